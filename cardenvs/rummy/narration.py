"""The rummies at the table: the card you drew, a card taken from the discard pile, a
whole turn in one line, who went out and the round's points (see
:mod:`cardenvs.core.narration`). Rami 51 and Classes use it as it is; Frime adds its own."""

from __future__ import annotations

from cardenvs.core.narration import (
    State,
    acts,
    cards_text,
    hand_gain,
    listing,
    seat_name,
    seats_points,
    sees,
)

STARTERS = ("meld", "set", "run", "contract")  # the moves that begin laying melds
SIMPLE = {"draw": "draws", "take": "takes the discard", "buy": "buys the card under the discard",
          "out": "goes out", "end": "ends the turn", "close": "lays the meld"}


def events(before: State, after: State, seat: int, viewer: int | None, move: str) -> list[str]:
    lines = []
    if move == "draw" and after["round"] == before["round"] and sees(viewer, seat):
        drawn = hand_gain(before, after, seat)
        if drawn:
            lines.append(f"{seat_name(seat, viewer)} drew {cards_text(drawn)}")
    if move in ("take", "buy") and after["round"] == before["round"]:
        got = hand_gain(before, after, seat)
        if got:
            lines.append(f"{acts(seat, viewer, 'take')} {cards_text(got)}")
    return lines


class _Meld:
    def __init__(self, begun: bool) -> None:
        self.cards: list[str] = []
        self.begun = begun  # begun in these moves (else added to one begun before)
        self.closed = False

    def phrase(self) -> str:
        cards = " ".join(self.cards)
        if self.begun and self.closed:
            return f"lays {cards}"
        if self.begun:
            return f"begins a meld with {cards}" if cards else "begins a meld"
        if self.closed:
            return f"completes a meld with {cards}" if cards else "lays the meld"
        return f"adds {cards}"


def summary(moves: list[str]) -> str:
    """A seat's moves in a row as one phrase: "takes the discard, lays 5c 6c 7c + 7d 7h 7s,
    lays off Jh on meld 2 and discards Qs"."""
    phrases: list[object] = []  # strings, melds, and lists of lay-offs
    meld: _Meld | None = None
    target: str | None = None
    begun = False  # a meld was begun in these moves: the next cards after a close begin another
    for move in moves:
        verb, _, arg = move.partition(" ")
        if verb in STARTERS:
            meld, begun = _Meld(True), True
            phrases.append(meld)
        elif verb == "layoff":
            target, meld = arg, None
        elif verb == "add":
            card = arg
            if target is not None:
                if not phrases or not isinstance(phrases[-1], list):
                    phrases.append([])
                phrases[-1].append(f"{card} on meld {target}")
                target = None
                continue
            if meld is None:
                meld = _Meld(begun)
                phrases.append(meld)
            meld.cards.append(card)
        elif verb == "close" and meld is not None:
            meld.closed, meld = True, None
        elif verb == "discard":
            phrases.append(f"discards {arg}")
            meld = None
        else:
            phrases.append(SIMPLE.get(move, move))
            meld = None
    words: list[str] = []
    for p in phrases:
        if isinstance(p, _Meld):
            if words and words[-1].startswith("lays ") and p.begun and p.closed and "lays off" not in words[-1]:
                words[-1] += " + " + " ".join(p.cards)  # melds laid one after the other
            else:
                words.append(p.phrase())
        elif isinstance(p, list):
            words.append("lays off " + " + ".join(p))
        else:
            words.append(str(p))
    return listing(words) if words else ""


def went_out(before: State, after: State, seat: int) -> int:
    """The seat that went out and ended the round, -1 if nobody did: the round's winner
    where the game keeps one, else the player who went out (Frime), else the player who
    ended the round with no cards left to count."""
    if after.get("winner", -1) >= 0:
        return int(after["winner"])
    if before.get("out_player", -1) >= 0:
        return int(before["out_player"])
    points = after.get("round_points")
    return seat if points is not None and points[seat] == 0 else -1


def round_end(before: State, after: State, seat: int, viewer: int | None) -> list[str]:
    out = went_out(before, after, seat)
    lines = [f"{seat_name(out, viewer)} went out" if out >= 0 else "nobody went out"]
    if after.get("round_points") is not None:
        lines.append(f"round points: {seats_points(after['round_points'], viewer)}")
    return lines
