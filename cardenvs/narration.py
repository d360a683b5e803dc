"""What the human CLI says between moves: the events a player at a real table notices
(the card you drew, a cleared pile, the exchange of cards, an out-of-turn offer declined),
read from the state before and after a move, and shown only to the seats allowed to see
them.

Three functions, each dispatching on the game's name (a game without an entry gets
nothing extra): :func:`move_note` (a few words after the move's own string),
:func:`events` (lines after the move) and :func:`phase_hint` (a line above a person's
choice that says what the decision is). They read ``state_dict()`` values only: no rule
is decided here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

State = dict[str, Any]


def _seat(k: int, viewer: int | None) -> str:
    return "you" if k == viewer else f"player_{k}"


def _act(k: int, viewer: int | None, verb: str) -> str:
    """"you lead" or "player_2 leads" ("are" / "is")."""
    if k == viewer:
        return f"you {verb}"
    return f"player_{k} {'is' if verb == 'are' else verb + 's'}"


def _sees(viewer: int | None, *seats: int) -> bool:
    """Private cards of ``seats`` are shown to one of them, or to an onlooker who sees
    every hand (``viewer`` None: ``--render`` with nobody at the table)."""
    return viewer is None or viewer in seats


def _cards(cards: Sequence[str]) -> str:
    return " ".join(cards)


def _hand_gain(before: State, after: State, k: int) -> list[str]:
    """The cards seat k holds after the move and did not hold before (with repeats)."""
    return list((Counter(after["hands"][k]) - Counter(before["hands"][k])).elements())


# --------------------------------------------------------------------------- President
def _president_note(before: State, seat: int, move: str) -> str:
    if before["phase"] != "offer":
        return ""
    rank = before["pile_rank"]
    if move == "pass":
        return f" (declines to complete the four of {rank}s out of turn)"
    return f" (completes the four of {rank}s out of turn)"


def _president_quiet(before: State, seat: int, viewer: int | None, move: str, forced: bool) -> bool:
    # Under the default completion_offers="public" everyone who could hold the cards is
    # asked, so that being asked reveals nothing; whether the pass was forced would tell
    # who holds them. So another player's pass in an offer is never shown to a person at
    # the table (only a completion is), and forced passes are not shown at all (a line
    # each would follow almost every play).
    if before["phase"] != "offer" or move != "pass":
        return False
    return forced or (viewer is not None and seat != viewer)


def _president_events(before: State, after: State, seat: int, viewer: int | None) -> list[str]:
    lines = []
    if after["round"] != before["round"]:
        return _president_exchange(after, viewer)
    for k, (was, now) in enumerate(zip(before["out"], after["out"], strict=True)):
        if now and not was and k in after["finish_order"]:
            lines.append(f"{_act(k, viewer, 'are')} out (place {after['finish_order'].index(k) + 1})")
        elif now and not was:
            lines.append(f"{_act(k, viewer, 'are')} stuck with only 2s: out of play, ranked below the others")
    if before["pile_count"] > 0 and after["pile_count"] == 0 and after["phase"] == "play":
        lines.append(f"the pile is cleared; {_act(after['current'], viewer, 'lead')}")
    if before["phase"] == "exchange" and after["phase"] != "exchange":
        lines += _president_return(before, after, viewer)
    return lines


def _president_exchange(after: State, viewer: int | None) -> list[str]:
    """A new round: the trou A's best card(s) went to the president."""
    pres, trou = after["president"], after["trou"]
    if pres < 0 or trou < 0 or after["received"][pres] is None:
        return []
    got = after["received"][pres]
    got = got if isinstance(got, list) else [got]
    shown = _cards(got) if _sees(viewer, pres, trou) else f"{len(got)} card{'s' if len(got) > 1 else ''}"
    return [f"exchange: {_seat(trou, viewer)} (trou) gave the best {shown} to {_seat(pres, viewer)} "
            "(président), who gives as many back"]


def _president_return(before: State, after: State, viewer: int | None) -> list[str]:
    pres, trou = after["president"], after["trou"]
    back = after["received"][trou]
    if back is None:
        return []
    back = back if isinstance(back, list) else [back]
    shown = _cards(back) if _sees(viewer, pres, trou) else f"{len(back)} card{'s' if len(back) > 1 else ''}"
    return [f"{_act(trou, viewer, 'receive')} {shown} back (trou)"]


def _president_hint(state: State, seat: int) -> str | None:
    if state["phase"] == "offer":
        return (f"out of turn: you may complete the four of {state['pile_rank']}s on the pile (you hold the "
                "missing cards, or as many); `pass` declines, and play goes on as if nobody had been asked")
    if state["phase"] == "exchange":
        return "the exchange: give one card back to the trou (`give R` returns a card of rank R)"
    return None


# --------------------------------------------------------------------------- Odin
def _odin_events(before: State, after: State, seat: int, viewer: int | None) -> list[str]:
    lines = []
    if after["round"] != before["round"]:
        return lines
    if before["table"] and not after["table"] and after["phase"] == "play":
        lines.append(f"everybody passed: the table is cleared; {_act(after['current'], viewer, 'lead')}")
    taken = [c for c in after["known"][seat] if c not in before["known"][seat]]
    if taken and after["table"] != before["table"] and len(before["table"]) == 1:
        lines.append(f"{_act(seat, viewer, 'take')} the {taken[0]} back from the table (the only card there)")
    return lines


def _odin_hint(state: State, seat: int) -> str | None:
    if state["selected"]:
        return (f"selected so far: {_cards(state['selected'])}: add cards of the same colour or value, or "
                "commit the play (`play`; `take C` when the covered play has two or more cards, C the one you keep)")
    return None


# --------------------------------------------------------------------------- the rummies
def _rummy_events(before: State, after: State, seat: int, viewer: int | None, move: str) -> list[str]:
    lines = []
    if move == "draw" and after["round"] == before["round"] and _sees(viewer, seat):
        drawn = _hand_gain(before, after, seat)
        if drawn:
            lines.append(f"{_seat(seat, viewer)} drew {_cards(drawn)}")
    if move in ("take", "buy") and after["round"] == before["round"]:
        got = _hand_gain(before, after, seat)
        if got:
            lines.append(f"{_act(seat, viewer, 'take')} {_cards(got)}")
    return lines


def _frime_events(before: State, after: State, seat: int, viewer: int | None, move: str) -> list[str]:
    lines = _rummy_events(before, after, seat, viewer, move)
    if move == "buy" and after["round"] == before["round"]:
        paid = before["money"][seat] - after["money"][seat]
        lines.append(f"{_act(seat, viewer, 'pay')} {paid}¢ into the pot (now {after['pot']}¢)")
    if after.get("out_player", -1) >= 0 and before.get("out_player", -1) < 0:
        k = after["out_player"]
        lines.append(f"{_seat(k, viewer)} went out: every other player has one last turn")
    return lines


def _frime_hint(state: State, seat: int) -> str | None:
    if state["phase"] == "choose":
        return "your hand can be laid entirely as melds: `out` lays it now, `end` keeps it for later"
    return None


_NOTES: dict[str, Callable[[State, int, str], str]] = {"president": _president_note}
_EVENTS: dict[str, Callable[..., list[str]]] = {
    "president": lambda b, a, s, v, m: _president_events(b, a, s, v),
    "odin": lambda b, a, s, v, m: _odin_events(b, a, s, v),
    "rami51": _rummy_events,
    "classes": _rummy_events,
    "frime": _frime_events,
}
_HINTS: dict[str, Callable[[State, int], str | None]] = {
    "president": _president_hint,
    "odin": _odin_hint,
    "frime": _frime_hint,
}


def quiet(game: str, before: State, seat: int, viewer: int | None, move: str, forced: bool) -> bool:
    """A move not to show as a line of its own, to ``viewer`` (the events after it are
    still said): one that says nothing, or whose showing would tell what ``viewer`` may
    not know."""
    return game == "president" and _president_quiet(before, seat, viewer, move, forced)


def forced_note(seat: int, viewer: int | None, forced: bool) -> str:
    """" (the only legal move)" for the viewer's own forced moves (or an onlooker who sees
    every hand): that another player had no choice would tell what they hold."""
    return " (the only legal move)" if forced and (viewer is None or seat == viewer) else ""


def move_note(game: str, before: State, seat: int, move: str) -> str:
    """Words to add after seat's move string (its meaning in context), or ``""``."""
    note = _NOTES.get(game)
    return note(before, seat, move) if note else ""


def events(game: str, before: State, after: State, seat: int, viewer: int | None, move: str) -> list[str]:
    """What happened with seat's move besides the move itself, as ``viewer`` may see it
    (``viewer`` None: an onlooker who sees every hand, as ``--render`` with nobody at the
    table)."""
    describe = _EVENTS.get(game)
    return describe(before, after, seat, viewer, move) if describe else []


def phase_hint(game: str, state: State, seat: int) -> str | None:
    """One line above a person's choice saying what the decision is, where it is not plain."""
    hint = _HINTS.get(game)
    return hint(state, seat) if hint else None
