"""The rummies at the table: the card you drew, a card taken from the discard pile (see
:mod:`cardenvs.core.narration`). Rami 51 and Classes use it as it is; Frime adds its own."""

from __future__ import annotations

from cardenvs.core.narration import State, acts, cards_text, hand_gain, seat_name, sees


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
