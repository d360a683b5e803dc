"""What the rummies' pictures share (:mod:`cardenvs.core.picture` draws them): the hands
(the viewer's face up; another hand as its count and the cards the table saw go into it),
the melds on the table by owner, wild cards with what they stand for (``2h=9h``), the meld
being built, the discard pile's top and the stock's count. Each rummy adds its own labels
(penalty points, money and flocons, classes) and status lines."""

from __future__ import annotations

import numpy as np

from cardenvs.core.cards import card_str, n_cards
from cardenvs.rummy import table as T


def _known(rec, p: int) -> list[str]:
    if "known" not in (rec.dtype.names or ()):
        return []
    return T.hand_cards(rec["known"][p])


def rummy_view(game: str, title: str, rec, viewer: int | None, rules: np.ndarray, *, over: bool,
               labels: list[list[str]], outs: list[str | None], build: list[str], build_label: str,
               status: list[str], discards_shown: int = 1) -> dict:
    """The view of a rummy's table. ``labels``/``outs``: per seat; ``build``: the meld
    being built (tokens as ``state_dict`` writes them); ``discards_shown``: how many cards
    of the discard pile's top are drawn (Frime shows the card under the top, the one a
    player may buy)."""
    P = int(rec["num_players"])
    seats = []
    for p in range(P):
        visible = viewer is None or viewer == p
        seats.append({
            "name": f"player_{p}",
            "hand": T.hand_cards(rec["hands"][p]) if visible else None,
            "count": int(rec["hands"][p].sum()),
            "known": [] if visible else _known(rec, p),
            "labels": labels[p],
            "to_move": p == int(rec["current"]) and not over,
            "out": outs[p],
        })
    pn = int(rec["pile_n"])
    shown = [card_str(int(rec["pile"][i])) for i in range(max(0, pn - discards_shown), pn)]
    table = [{"label": "discard pile and stock", "groups": [shown] if shown else [], "stack": int(rec["stock_n"]),
              "note": f"{n_cards(pn)} discarded, top last" if pn else "nothing discarded"}]
    if build:
        table.append({"label": build_label, "groups": [build], "stack": 0, "note": f"by player_{int(rec['current'])}"})
    melds = int(rec["num_melds"])
    if not melds:
        table.append({"label": "melds", "groups": [], "stack": 0, "note": "none on the table"})
    for owner in range(P):
        mine = [T.meld_tokens(rules, rec, m) for m in range(melds) if int(rec["meld_owner"][m]) == owner]
        if mine:
            table.append({"label": f"player_{owner}'s melds", "groups": mine, "stack": 0, "note": ""})
    return {"game": game, "title": title, "viewer": viewer, "seats": seats, "table": table, "status": status}
