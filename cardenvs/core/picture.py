"""The one drawing of a card and a table, for every game and every front end.

Three steps, each a plain function:

1. **The view** (a game's ``table_view(rec, viewer)``, in ``cardenvs/games/<game>/picture.py``):
   a JSON-able dict of exactly what seat ``viewer`` sees (``None``: an onlooker who sees
   every hand). Its keys::

       {"game": "president", "title": "Président, round 2", "viewer": 0 or None,
        "seats": [{"name": "player_0", "hand": ["3c", "Qs"] or None (face down),
                   "count": 2, "known": ["7r"] (cards of a hidden hand the table has seen),
                   "labels": ["score 3"], "to_move": True, "out": "out, 1st" or None}],
        "table": [{"label": "pile", "groups": [["7", "7"]], "stack": 0, "note": "by player_1"}],
        "status": ["phase play"]}

   A card is its notation (``Qs``, ``Tc``, ``X``, Odin's ``7r``); a wild card on the table
   is ``2h=9h`` (the physical card, then what it stands for); a rank alone (``7``) is a card
   whose suit the record does not keep (President's pile). ``stack`` is a face-down pile of
   that many cards (a stock).
2. **The scene** (:func:`table_scene`): the view laid out on a fixed canvas as a list of
   simple shapes (dicts: ``rect`` with rounded corners, ``circle``, ``polygon``, ``text``,
   and ``group``, which holds shapes and may carry a card's code). A card is drawn here
   once, from shapes only (a suit is polygons and circles, never a font glyph).
3. **The painters** of the same scene: :func:`to_svg` (a string, needs nothing) and
   :func:`to_rgb` (an (H, W, 3) uint8 array, painted with Pillow, the ``render`` extra).

``table_svg``/``table_rgb``/``table_view`` run the three steps for a game's record.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from cardenvs.core.protocol import GameSpec

WIDTH, HEIGHT = 960, 640

FELT = "#1d6b47"
PANEL = "#175638"
INK = "#f4f1e8"
DIM = "#b9d3c4"
GOLD = "#ffd166"
CARD_FACE = "#fbfaf5"
CARD_EDGE = "#2b2b2b"
RED = "#c1121f"
BLACK = "#1b1b1b"
BACK = "#27476e"
ODIN_FILL = {"r": "#d62828", "o": "#f77f00", "y": "#f6c744", "g": "#2a9d5f", "b": "#1d5fa8", "p": "#7b2cbf"}
ODIN_NAMES = {"r": "red", "o": "orange", "y": "yellow", "g": "green", "b": "blue", "p": "purple"}

# card sizes (width, height): the viewer's hand, the table, a seat's strip
HAND_CARD = (62, 88)
TABLE_CARD = (40, 56)
SEAT_CARD = (28, 40)

Shape = dict[str, Any]


# --------------------------------------------------------------------------- the API for front ends
def check_viewer(spec: GameSpec, rec: np.void, viewer: Any) -> int | None:
    """``viewer`` as a seat: None (an onlooker) or an integer seat of the match. TypeError for
    another type (a bool, a float, a string: ``"1"`` is not read as seat 1), ValueError for a
    seat outside the match."""
    if viewer is None:
        return None
    P = int(rec["num_players"])
    if isinstance(viewer, (bool, np.bool_)) or not isinstance(viewer, (int, np.integer)):
        raise TypeError(f"viewer must be a seat 0..{P - 1} or None, got {viewer!r}")
    if not 0 <= viewer < P:
        raise ValueError(f"viewer must be a seat 0..{P - 1} or None, got {viewer!r}")
    return int(viewer)


def table_view(spec: GameSpec, rec: np.void, viewer: int | None, last_move: str | None = None) -> dict:
    """What seat ``viewer`` sees of the game in ``rec`` (None: every hand), as the game's
    ``table_view`` describes it. ``last_move``: a status line saying the last move, as this
    viewer saw it (the record does not keep it; the AEC env does)."""
    view = spec.module.table_view(rec, check_viewer(spec, rec, viewer))
    if last_move is not None:
        if not isinstance(last_move, str):
            raise TypeError(f"last_move must be a string or None, got {last_move!r}")
        view["status"] = list(view.get("status", [])) + [f"last move: {last_move}"]
    return view


def table_svg(spec: GameSpec, rec: np.void, viewer: int | None, last_move: str | None = None) -> str:
    """The table seen by ``viewer`` as an SVG document (no dependency)."""
    return to_svg(table_scene(table_view(spec, rec, viewer, last_move)))


def table_rgb(spec: GameSpec, rec: np.void, viewer: int | None, scale: int = 1,
              last_move: str | None = None) -> np.ndarray:
    """The table seen by ``viewer`` as an (HEIGHT, WIDTH, 3) uint8 image (needs Pillow)."""
    return to_rgb(table_scene(table_view(spec, rec, viewer, last_move)), scale=scale)


# --------------------------------------------------------------------------- shapes
def rect(x: float, y: float, w: float, h: float, fill: str, stroke: str | None = None, width: float = 1,
         r: float = 0) -> Shape:
    return {"kind": "rect", "x": x, "y": y, "w": w, "h": h, "r": r, "fill": fill, "stroke": stroke, "width": width}


def circle(cx: float, cy: float, r: float, fill: str) -> Shape:
    return {"kind": "circle", "cx": cx, "cy": cy, "r": r, "fill": fill}


def polygon(points: list[tuple[float, float]], fill: str) -> Shape:
    return {"kind": "polygon", "points": [[float(x), float(y)] for x, y in points], "fill": fill}


def text(x: float, y: float, s: str, size: float, fill: str = INK, anchor: str = "start", bold: bool = False) -> Shape:
    """Text whose vertical middle is at ``y``; ``anchor`` start, middle or end at ``x``."""
    return {"kind": "text", "x": x, "y": y, "text": s, "size": size, "fill": fill, "anchor": anchor, "bold": bold}


def group(children: list[Shape], card: str | None = None, in_hand: bool = False) -> Shape:
    return {"kind": "group", "children": children, "card": card, "in_hand": in_hand}


# --------------------------------------------------------------------------- a card
def suit_shapes(suit: str, cx: float, cy: float, s: float, fill: str) -> list[Shape]:
    """A suit symbol of height ``s`` centred on (cx, cy), from polygons and circles."""
    if suit == "d":
        return [polygon([(cx, cy - s / 2), (cx + 0.38 * s, cy), (cx, cy + s / 2), (cx - 0.38 * s, cy)], fill)]
    if suit == "h":
        return [circle(cx - 0.22 * s, cy - 0.17 * s, 0.25 * s, fill),
                circle(cx + 0.22 * s, cy - 0.17 * s, 0.25 * s, fill),
                polygon([(cx - 0.46 * s, cy - 0.1 * s), (cx + 0.46 * s, cy - 0.1 * s), (cx, cy + 0.5 * s)], fill)]
    stem = polygon([(cx, cy - 0.05 * s), (cx + 0.16 * s, cy + 0.5 * s), (cx - 0.16 * s, cy + 0.5 * s)], fill)
    if suit == "s":
        return [circle(cx - 0.21 * s, cy + 0.08 * s, 0.23 * s, fill),
                circle(cx + 0.21 * s, cy + 0.08 * s, 0.23 * s, fill),
                polygon([(cx - 0.44 * s, cy + 0.05 * s), (cx + 0.44 * s, cy + 0.05 * s), (cx, cy - 0.5 * s)], fill),
                stem]
    if suit == "c":
        r = 0.2 * s
        return [circle(cx, cy - 0.28 * s, r, fill), circle(cx - 0.24 * s, cy + 0.04 * s, r, fill),
                circle(cx + 0.24 * s, cy + 0.04 * s, r, fill), circle(cx, cy - 0.04 * s, 0.12 * s, fill), stem]
    return []


def _star(cx: float, cy: float, s: float, fill: str) -> Shape:
    pts = []
    for i in range(10):
        radius = s / 2 if i % 2 == 0 else s / 5
        angle = np.pi / 2 + i * np.pi / 5
        pts.append((cx + radius * np.cos(angle), cy - radius * np.sin(angle)))
    return polygon(pts, fill)


def _rank_label(rank: str) -> str:
    return "10" if rank == "T" else rank


def card_back(x: float, y: float, w: float, h: float) -> Shape:
    """A face-down card."""
    m = max(2.0, w * 0.1)
    cx, cy = x + w / 2, y + h / 2
    return group([rect(x, y, w, h, BACK, "#e8e4d8", 1, r=w * 0.1),
                  rect(x + m, y + m, w - 2 * m, h - 2 * m, BACK, GOLD, 1, r=w * 0.06),
                  polygon([(cx, cy - h * 0.16), (cx + w * 0.2, cy), (cx, cy + h * 0.16), (cx - w * 0.2, cy)], GOLD)])


def card(code: str, x: float, y: float, w: float, h: float, in_hand: bool = False) -> Shape:
    """One card, face up, as a group tagged with its code: a standard card (rank and suit),
    the joker, an Odin card (its colour and value), a rank alone, or a wild card
    ``2h=9h`` (the card with a gold band saying what it stands for)."""
    phys, _, stands = code.partition("=")
    kids: list[Shape] = []
    corner = h * 0.27
    if len(phys) == 2 and phys[1] in ODIN_FILL:  # an Odin card: value, colour
        fill = ODIN_FILL[phys[1]]
        ink = BLACK if phys[1] == "y" else "#ffffff"
        # the value in the corner (seen when cards overlap) and large, the colour's letter
        kids += [rect(x, y, w, h, fill, CARD_EDGE, 1, r=w * 0.1),
                 text(x + w * 0.1, y + corner * 0.62, phys[0], corner, ink, bold=True),
                 text(x + w * 0.56, y + h * 0.55, phys[0], h * 0.44, ink, "middle", bold=True),
                 text(x + w * 0.9, y + h * 0.88, phys[1], h * 0.16, ink, "end")]
        return group(kids, card=code, in_hand=in_hand)
    kids.append(rect(x, y, w, h, CARD_FACE, CARD_EDGE, 1, r=w * 0.1))
    band = h * 0.34 if stands else 0.0
    if phys == "X":
        kids += [text(x + w * 0.08, y + corner * 0.62, "Jk", corner * 0.8, "#6a1b9a", bold=True),
                 _star(x + w / 2, y + (h - band) * 0.58, min(w, h - band) * 0.62, "#6a1b9a")]
    elif len(phys) == 2:
        rank, suit = phys
        ink = RED if suit in "dh" else BLACK
        kids.append(text(x + w * 0.08, y + corner * 0.62, _rank_label(rank), corner, ink, bold=True))
        big = min(w * 0.62, (h - band) * 0.48)
        kids += suit_shapes(suit, x + w * 0.55, y + (h - band) * 0.66, big, ink)
    else:  # a rank whose suit is not kept
        kids += [text(x + w * 0.08, y + corner * 0.62, _rank_label(phys), corner, "#444444", bold=True),
                 text(x + w / 2, y + h * 0.62, _rank_label(phys), h * 0.4, "#444444", "middle", bold=True)]
    if stands:  # what the wild card stands for, on a gold band
        by = y + h - band
        kids.append(rect(x + 1, by, w - 2, band - 1, GOLD, None, 0, r=w * 0.08))
        rank, suit = (stands[0], stands[1]) if len(stands) == 2 else (stands, "")
        ink = RED if suit in ("d", "h") else BLACK
        size = band * 0.72
        kids.append(text(x + w * 0.52, by + band / 2, "=" + _rank_label(rank), size, ink, "end", bold=True))
        kids += suit_shapes(suit, x + w * 0.72, by + band / 2, size * 0.8, ink)
    return group(kids, card=code, in_hand=in_hand)


def card_row(codes: list[str], x: float, y: float, w: float, h: float, max_width: float,
             in_hand: bool = False) -> tuple[list[Shape], float]:
    """Cards left to right from (x, y), overlapping when they would pass ``max_width``;
    returns the shapes and the width used."""
    if not codes:
        return [], 0.0
    gap = w + 4
    if len(codes) > 1 and (len(codes) - 1) * gap + w > max_width:
        gap = max(6.0, (max_width - w) / (len(codes) - 1))
    shapes = [card(c, x + i * gap, y, w, h, in_hand) for i, c in enumerate(codes)]
    return shapes, (len(codes) - 1) * gap + w


def backs_row(n: int, x: float, y: float, w: float, h: float, max_width: float) -> tuple[list[Shape], float]:
    """``n`` face-down cards fanned (at most 12 drawn, the count said beside them)."""
    if n <= 0:
        return [], 0.0
    drawn = min(n, 12)
    gap = min(w * 0.35, max(3.0, (max_width - w) / max(1, drawn - 1)))
    shapes = [card_back(x + i * gap, y, w, h) for i in range(drawn)]
    return shapes, (drawn - 1) * gap + w


# --------------------------------------------------------------------------- the table
def _clip(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def _wrap(words: list[str], width: int) -> list[str]:
    """Labels joined by `` · `` into lines of about ``width`` characters."""
    lines: list[str] = []
    for w in words:
        if lines and len(lines[-1]) + 3 + len(w) <= width:
            lines[-1] += " · " + w
        else:
            lines.append(w)
    return lines


def _play_area(areas: list[dict], x0: float, y: float, area_w: float, limit: float,
               scale: float, overlap: bool) -> tuple[list[Shape], bool]:
    """The table's areas from ``y`` down, cards at ``scale`` of the table size (``overlap``:
    the cards of a group overlapping, their corners showing); False when they run past
    ``limit`` (what does not fit is left out)."""
    shapes: list[Shape] = []
    w, h = TABLE_CARD[0] * scale, TABLE_CARD[1] * scale
    right = x0 + area_w - 8
    for area in areas:
        if y + 20 > limit:
            return shapes, False
        label = area["label"] + (f": {area['note']}" if area.get("note") else "")
        groups = area.get("groups", [])
        gx = x0 + 10
        if overlap and groups:  # compact: the label at the start of its first row of cards
            shapes.append(text(gx, y + h / 2, _clip(label, 24), 11, GOLD, bold=True))
            gx += 7 * min(len(label), 24) + 8
        else:
            shapes.append(text(x0 + 10, y + 8, _clip(label, 52), 13, GOLD, bold=True))
            y += 18
        for cards in groups:
            # side by side (or overlapping); squeezed further only when a row cannot hold it
            width = w + (len(cards) - 1) * (w * 0.55 if overlap else w + 4)
            if gx + width > right and gx > x0 + 10:
                gx, y = x0 + 10, y + h + 6
            if y + h > limit:
                return shapes, False
            row, used = card_row(cards, gx, y, w, h, min(width, right - gx))
            shapes += row
            gx += used + 10
        stack = int(area.get("stack", 0))
        if stack > 0:
            if gx + w * 2 + 70 > right and gx > x0 + 10:
                gx, y = x0 + 10, y + h + 6
            if y + h > limit:
                return shapes, False
            row, used = backs_row(min(stack, 5), gx, y, w, h, w * 2)
            shapes += row
            shapes.append(text(gx + used + 6, y + h / 2, f"{stack} card{'' if stack == 1 else 's'}", 12, INK))
        y += (h + (6 if overlap else 10)) if groups or stack > 0 else 4
    return shapes, True


def table_scene(view: dict) -> list[Shape]:
    """The view laid out on a WIDTH x HEIGHT canvas: the title, a strip per seat (name,
    labels, cards or backs) on the left, the play area on the right, the status lines, and
    the viewer's own hand in large cards at the bottom (an onlooker's picture has every
    hand in the strips instead)."""
    viewer = view.get("viewer")
    seats = view["seats"]
    scene: list[Shape] = [rect(0, 0, WIDTH, HEIGHT, FELT)]
    scene.append(text(16, 22, view["title"], 20, INK, bold=True))
    who = "everyone's cards (onlooker)" if viewer is None else f"seen by {seats[viewer]['name']}"
    scene.append(text(WIDTH - 16, 22, who, 14, DIM, "end"))

    hand_band = viewer is not None
    top, bottom = 44, (HEIGHT - 150 if hand_band else HEIGHT - 44)
    # seats, left
    left_w = 500
    scene.append(rect(8, top, left_w, bottom - top, PANEL, None, 0, r=10))
    n = len(seats)
    strip = (bottom - top - 8) / n
    ch = min(SEAT_CARD[1], strip - 10)
    cw = ch * SEAT_CARD[0] / SEAT_CARD[1]
    for i, seat in enumerate(seats):
        y0 = top + 4 + i * strip
        mid = y0 + strip / 2
        if seat.get("to_move"):
            scene.append(rect(12, y0 + 1, left_w - 8, strip - 2, "#22704b", GOLD, 2, r=8))
            scene.append(polygon([(16, mid - 6), (26, mid), (16, mid + 6)], GOLD))
        name = seat["name"] + (" (you)" if i == viewer else "")
        words = list(seat.get("labels", [])) + ([seat["out"]] if seat.get("out") else [])
        lines = _wrap(words, 27)
        if strip >= 34:
            rows = lines[: max(1, min(3, int((strip - 22) // 14)))]
            y1 = mid - 7 * len(rows)
            scene.append(text(32, y1, name, 14, INK, bold=True))
            for j, line in enumerate(rows):
                scene.append(text(32, y1 + 16 + 13 * j, _clip(line, 30), 11, GOLD if seat.get("out") and
                                  j == len(rows) - 1 and line.endswith(seat["out"]) else DIM))
        else:
            scene.append(text(32, mid, _clip(name + "  " + " · ".join(words), 30), 11, INK))
        cx, cy, room = 200, mid - ch / 2, left_w - 200
        if seat.get("hand") is not None and not (hand_band and i == viewer):
            shapes, _ = card_row(seat["hand"], cx, cy, cw, ch, room)
            scene += shapes or [text(cx, mid, "no cards", 12, DIM)]
        elif hand_band and i == viewer:
            scene.append(text(cx, mid, "your hand is below", 12, DIM))
        else:
            count = int(seat.get("count", 0))
            known = seat.get("known") or []
            room_backs = room - 40 - (len(known) * (cw + 2) + 30 if known else 0)
            shapes, used = backs_row(count, cx, cy, cw, ch, max(cw, min(room_backs, 160)))
            scene += shapes
            scene.append(text(cx + used + 8, mid, f"{count} card{'' if count == 1 else 's'}", 12, DIM))
            if known:
                kx = cx + used + 80
                scene.append(text(kx, mid - ch / 2 - 1, "known", 9, DIM))
                shapes, _ = card_row(known, kx, cy + 4, cw * 0.85, ch * 0.85, WIDTH - kx)
                scene += shapes

    # the play area, right
    x0 = left_w + 16
    area_w = WIDTH - x0 - 8
    scene.append(rect(x0, top, area_w, bottom - top, PANEL, None, 0, r=10))
    status = view.get("status", [])
    status_h = 18 * len(status) + 8
    limit = bottom - status_h
    # the largest cards at which every area fits (many melds: smaller cards, then overlapping)
    for scale, overlap in ((1.0, False), (0.85, False), (0.7, False), (0.7, True), (0.58, True)):
        shapes, fits = _play_area(view.get("table", []), x0, top + 10, area_w, limit, scale, overlap)
        if fits:
            break
    scene += shapes
    if not fits:
        scene.append(text(x0 + area_w - 10, limit - 6, "more on the table than fits here: see the text view",
                          11, GOLD, "end"))
    sy = bottom - status_h + 12
    for line in status:
        scene.append(text(x0 + 10, sy, _clip(line, 56), 12, DIM))
        sy += 18

    if hand_band:
        me = seats[viewer]
        hy = HEIGHT - 142
        mine = me.get("hand") or []
        label = f"your hand, {me['name']}: {len(mine)} card{'' if len(mine) == 1 else 's'}"
        scene.append(text(16, hy + 8, label, 14, INK, bold=True))
        shapes, _ = card_row(me.get("hand") or [], 16, hy + 22, HAND_CARD[0], HAND_CARD[1], WIDTH - 32, in_hand=True)
        scene += shapes
    return scene


# --------------------------------------------------------------------------- painters
def _fmt(v: float) -> str:
    return f"{float(v):.1f}".rstrip("0").rstrip(".")


def _svg_shape(s: Shape, out: list[str]) -> None:
    k = s["kind"]
    if k == "rect":
        stroke = f' stroke="{s["stroke"]}" stroke-width="{_fmt(s["width"])}"' if s.get("stroke") else ""
        rr = f' rx="{_fmt(s["r"])}"' if s.get("r") else ""
        out.append(f'<rect x="{_fmt(s["x"])}" y="{_fmt(s["y"])}" width="{_fmt(s["w"])}" height="{_fmt(s["h"])}"'
                   f'{rr} fill="{s["fill"]}"{stroke}/>')
    elif k == "circle":
        out.append(f'<circle cx="{_fmt(s["cx"])}" cy="{_fmt(s["cy"])}" r="{_fmt(s["r"])}" fill="{s["fill"]}"/>')
    elif k == "polygon":
        pts = " ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in s["points"])
        out.append(f'<polygon points="{pts}" fill="{s["fill"]}"/>')
    elif k == "text":
        weight = ' font-weight="bold"' if s.get("bold") else ""
        out.append(f'<text x="{_fmt(s["x"])}" y="{_fmt(s["y"])}" font-size="{_fmt(s["size"])}" fill="{s["fill"]}" '
                   f'text-anchor="{s["anchor"]}" dominant-baseline="central"{weight}>{escape(s["text"])}</text>')
    elif k == "group":
        attrs = ""
        if s.get("card"):
            attrs = f' class="{"card in-hand" if s.get("in_hand") else "card"}" data-card={quoteattr(s["card"])}'
        out.append(f"<g{attrs}>")
        for c in s["children"]:
            _svg_shape(c, out)
        out.append("</g>")
    else:  # pragma: no cover
        raise ValueError(f"unknown shape kind {k!r}")


def to_svg(scene: list[Shape]) -> str:
    """The scene as an SVG document. The viewer's own hand cards are
    ``<g class="card in-hand" data-card="Qs">`` groups (a page can make them clickable),
    every other face-up card ``<g class="card" data-card=...>``."""
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Sans, Arial, Helvetica, sans-serif">']
    for s in scene:
        _svg_shape(s, out)
    out.append("</svg>")
    return "\n".join(out)


_PLAIN = {"—": "-", "–": "-", "…": "...", "·": "-", "→": "->", "×": "x", "’": "'"}


def _plain_text(s: str) -> str:
    """Text the bundled font draws: its glyphs are ASCII (é is drawn as e)."""
    s = "".join(_PLAIN.get(ch, ch) for ch in s)
    s = unicodedata.normalize("NFKD", s)
    return "".join(ch for ch in s if ord(ch) < 128)


@lru_cache(maxsize=64)
def _font(size: int):
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


def _pillow():
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        raise ImportError('pictures as images need Pillow: pip install "cardenvs[render]"') from None
    return Image, ImageDraw


def to_rgb(scene: list[Shape], scale: int = 1) -> np.ndarray:
    """The scene painted with Pillow as an (HEIGHT, WIDTH, 3) uint8 array. ``scale`` > 1
    paints that many times larger and shrinks the result (smoother edges, slower)."""
    if isinstance(scale, (bool, np.bool_)) or not isinstance(scale, (int, np.integer)) or not 1 <= scale <= 4:
        raise ValueError(f"scale must be an integer 1..4, got {scale!r}")
    Image, ImageDraw = _pillow()
    image = Image.new("RGB", (WIDTH * scale, HEIGHT * scale), FELT)
    draw = ImageDraw.Draw(image)
    k = float(scale)

    def paint(s: Shape) -> None:
        kind = s["kind"]
        if kind == "rect":
            box = [s["x"] * k, s["y"] * k, (s["x"] + s["w"]) * k, (s["y"] + s["h"]) * k]
            outline = s.get("stroke")
            width = max(1, round(s["width"] * k)) if outline else 0
            if s.get("r"):
                draw.rounded_rectangle(box, radius=s["r"] * k, fill=s["fill"], outline=outline, width=width)
            else:
                draw.rectangle(box, fill=s["fill"], outline=outline, width=width)
        elif kind == "circle":
            r = s["r"] * k
            draw.ellipse([s["cx"] * k - r, s["cy"] * k - r, s["cx"] * k + r, s["cy"] * k + r], fill=s["fill"])
        elif kind == "polygon":
            draw.polygon([(x * k, y * k) for x, y in s["points"]], fill=s["fill"])
        elif kind == "text":
            anchor = {"start": "lm", "middle": "mm", "end": "rm"}[s["anchor"]]
            size = max(6, round(s["size"] * k))
            stroke = max(1, size // 20) if s.get("bold") else 0
            draw.text((s["x"] * k, s["y"] * k), _plain_text(s["text"]), fill=s["fill"], font=_font(size),
                      anchor=anchor, stroke_width=stroke, stroke_fill=s["fill"])
        elif kind == "group":
            for c in s["children"]:
                paint(c)

    for s in scene:
        paint(s)
    if scale > 1:
        image = image.resize((WIDTH, HEIGHT), Image.Resampling.LANCZOS)
    return np.asarray(image, dtype=np.uint8).copy()
