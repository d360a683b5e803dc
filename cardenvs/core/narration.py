"""What a person at the table is told between moves: the events a player at a real table
notices (the card you drew, a cleared pile, the exchange of cards, an out-of-turn offer
declined), read from the state before and after a move, and shown only to the seats allowed
to see them.

Each game may have a ``narration`` module (an attribute of its package) with any of:
``note(before, seat, move)`` (a few words after the move's own string), ``quiet(before,
seat, viewer, move, forced)`` (a move not to show as a line of its own), ``events(before,
after, seat, viewer, move)`` (lines after the move), ``hint(state, seat)`` (a line above a
person's choice), ``summary(moves)`` (a seat's moves in a row, such as a whole rummy turn,
as one phrase: "takes the discard, lays 5c 6c 7c and discards Qs") and ``round_end(before,
after, seat, viewer)`` (who went out, the places or the round's points, when a round
ends). A game without one, or without a function, gets nothing extra. They read
``state_dict()`` values only: no rule is decided here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from cardenvs.core.registry import get_spec

State = dict[str, Any]


def seat_name(k: int, viewer: int | None) -> str:
    return "you" if k == viewer else f"player_{k}"


def acts(k: int, viewer: int | None, verb: str) -> str:
    """"you lead" or "player_2 leads" ("are" / "is")."""
    if k == viewer:
        return f"you {verb}"
    return f"player_{k} {'is' if verb == 'are' else verb + 's'}"


def sees(viewer: int | None, *seats: int) -> bool:
    """Private cards of ``seats`` are shown to one of them, or to an onlooker who sees
    every hand (``viewer`` None: ``--render`` with nobody at the table)."""
    return viewer is None or viewer in seats


def cards_text(cards: Sequence[str]) -> str:
    return " ".join(cards)


def hand_gain(before: State, after: State, k: int) -> list[str]:
    """The cards seat k holds after the move and did not hold before (with repeats)."""
    return list((Counter(after["hands"][k]) - Counter(before["hands"][k])).elements())


def _hook(game: str, name: str):
    return getattr(getattr(get_spec(game).module, "narration", None), name, None)


def quiet(game: str, before: State, seat: int, viewer: int | None, move: str, forced: bool) -> bool:
    """A move not to show as a line of its own, to ``viewer`` (the events after it are
    still said): one that says nothing, or whose showing would tell what ``viewer`` may
    not know."""
    hook = _hook(game, "quiet")
    return bool(hook and hook(before, seat, viewer, move, forced))


def forced_note(seat: int, viewer: int | None, forced: bool) -> str:
    """" (the only legal move)" for the viewer's own forced moves (or an onlooker who sees
    every hand): that another player had no choice would tell what they hold."""
    return " (the only legal move)" if forced and (viewer is None or seat == viewer) else ""


def move_note(game: str, before: State, seat: int, move: str) -> str:
    """Words to add after seat's move string (its meaning in context), or ``""``."""
    note = _hook(game, "note")
    return note(before, seat, move) if note else ""


def events(game: str, before: State, after: State, seat: int, viewer: int | None, move: str) -> list[str]:
    """What happened with seat's move besides the move itself, as ``viewer`` may see it
    (``viewer`` None: an onlooker who sees every hand, as ``--render`` with nobody at the
    table)."""
    describe = _hook(game, "events")
    return describe(before, after, seat, viewer, move) if describe else []


def phase_hint(game: str, state: State, seat: int) -> str | None:
    """One line above a person's choice saying what the decision is, where it is not plain."""
    hint = _hook(game, "hint")
    return hint(state, seat) if hint else None


def plural(n: int, word: str, words: str | None = None) -> str:
    """``1 card``, ``2 cards`` (``words``: the plural where it is not ``word + "s"``)."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


def listing(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def grouped(game: str) -> bool:
    """Whether a seat's moves in a row are said in one line (a rummy turn, an Odin play
    built card by card); a game whose every move is a whole play (its narration's
    ``WHOLE_MOVES``: President, where a player leading again after a cleared pile makes a
    new play) says each on its own line."""
    module = getattr(get_spec(game).module, "narration", None)
    return not getattr(module, "WHOLE_MOVES", False)


def summary(game: str, moves: Sequence[str]) -> str:
    """A seat's moves in a row (a whole turn, a whole play) as one phrase, in the third
    person; without the game's ``summary`` the moves joined by commas."""
    hook = _hook(game, "summary")
    return hook(list(moves)) if hook else ", ".join(moves)


def round_end(game: str, before: State, after: State, seat: int, viewer: int | None) -> list[str]:
    """What everyone at the table learns when a round ends with seat's move (``before``:
    the state before that move, ``after``: the next round's, or the match's end): who
    went out, the places or each seat's points of the round."""
    hook = _hook(game, "round_end")
    return hook(before, after, seat, viewer) if hook else []


def seats_points(points: Sequence[int], viewer: int | None) -> str:
    """``you 0, player_1 30`` for each seat's points of a round."""
    return ", ".join(f"{seat_name(k, viewer)} {p}" for k, p in enumerate(points))
