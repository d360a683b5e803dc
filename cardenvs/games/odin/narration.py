"""Odin at the table: a cleared table, the card taken back (see :mod:`cardenvs.core.narration`)."""

from __future__ import annotations

from cardenvs.core.narration import State, acts, cards_text


def events(before: State, after: State, seat: int, viewer: int | None, move: str) -> list[str]:
    lines = []
    if after["round"] != before["round"]:
        return lines
    if before["table"] and not after["table"] and after["phase"] == "play":
        lines.append(f"everybody passed: the table is cleared; {acts(after['current'], viewer, 'lead')}")
    taken = [c for c in after["known"][seat] if c not in before["known"][seat]]
    if taken and after["table"] != before["table"] and len(before["table"]) == 1:
        lines.append(f"{acts(seat, viewer, 'take')} the {taken[0]} back from the table (the only card there)")
    return lines


def hint(state: State, seat: int) -> str | None:
    if state["selected"]:
        return (f"selected so far: {cards_text(state['selected'])}: add cards of the same colour or value, or "
                "commit the play (`play`; `take C` when the covered play has two or more cards, C the one you keep)")
    return None
