"""Odin at the table: a cleared table, the card taken back, a whole play in one line, who
went out (see :mod:`cardenvs.core.narration`)."""

from __future__ import annotations

from cardenvs.core.narration import State, acts, cards_text, listing, seat_name, seats_points


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


def summary(moves: list[str]) -> str:
    """A play in one phrase: "plays 7p 7b and takes 4r back", "passes"."""
    selected = [m.split(" ", 1)[1] for m in moves if m.startswith("select ")]
    words = []
    for move in moves:
        verb, _, arg = move.partition(" ")
        if verb == "play":
            words.append(f"plays {' '.join(selected)}")
        elif verb == "take":
            words.append(f"plays {' '.join(selected)} and takes {arg} back")
        elif verb == "pass":
            words.append("passes")
        elif verb != "select":
            words.append(move)
    if selected and not any(m == "play" or m.startswith("take ") for m in moves):
        words.append(f"selects {' '.join(selected)}")  # a play still being chosen
    return listing(words) if words else ""


def round_end(before: State, after: State, seat: int, viewer: int | None) -> list[str]:
    points = after["round_points"]
    out = [seat_name(k, viewer) for k, p in enumerate(points) if p == 0]
    return [f"{listing(out)} went out" if out else "nobody went out",
            f"round points: {seats_points(points, viewer)}"]
