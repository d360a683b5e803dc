"""Frime at the table: the rummies' events, whole turns and round ends, a buy paid into the
pot, a player going out (see :mod:`cardenvs.core.narration`)."""

from __future__ import annotations

from cardenvs.core.narration import State, acts, seat_name
from cardenvs.rummy.narration import events as rummy_events
from cardenvs.rummy.narration import round_end, summary


def events(before: State, after: State, seat: int, viewer: int | None, move: str) -> list[str]:
    lines = rummy_events(before, after, seat, viewer, move)
    if move == "buy" and after["round"] == before["round"]:
        paid = before["money"][seat] - after["money"][seat]
        lines.append(f"{acts(seat, viewer, 'pay')} {paid}¢ into the pot (now {after['pot']}¢)")
    if after.get("out_player", -1) >= 0 and before.get("out_player", -1) < 0:
        k = after["out_player"]
        lines.append(f"{seat_name(k, viewer)} went out: every other player has one last turn")
    return lines


def hint(state: State, seat: int) -> str | None:
    if state["phase"] == "choose":
        return "your hand can be laid entirely as melds: `out` lays it now, `end` keeps it for later"
    return None


__all__ = ["events", "hint", "round_end", "summary"]  # the rummies' whole turn and round's end, shared
