"""The rummies' cards as a person types them: every move a card may stand for.

A card typed at the table may mean several moves: ``Qs`` adds the queen to a meld or
discards it; ``2s`` in a game where 2s are wild may be a natural card or a wild one
standing for any card; ``X=Jh``, ``2h=9h`` (the form the table prints), ``*=5c`` and
``*=7`` (a wild card standing for a set's rank) name the meaning. This module lists the
moves a token may be; which of them is legal is the env's to say (its mask), so nothing
here decides a rule. The console (``cardenvs.cli.console``) keeps the readings the game
allows and plays the one that is left.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardenvs.core.cards import JOKER, RANKS, SUITS, card_id, card_str
from cardenvs.rummy.melds import NUM_FACES, R_SET_DISTINCT
from cardenvs.rummy.table import is_wild_card


@dataclass(frozen=True)
class CardMoves:
    """A game's action ids for cards: ``add + c`` lays natural card c, ``wild + c`` lays a
    wild card standing for c (in a set of one rank, c is the rank's clubs id where the
    game's sets may repeat suits), ``discard + c`` discards c (X: ``discard + 52``, where
    the game has jokers)."""

    title: str
    rules: np.ndarray
    add: int
    wild: int
    discard: int

    def wild_names(self) -> str:
        """What is wild in the game, in words: "jokers", "2s" or "2s and jokers"."""
        joker, two = is_wild_card(self.rules, JOKER), is_wild_card(self.rules, 4)
        return " and ".join(n for n, w in (("2s", two), ("jokers", joker)) if w)


def _meaning(moves: CardMoves, text: str, token: str) -> list[int]:
    """The wild moves a meaning after ``=`` stands for: a card (``9h``) or, in a game whose
    sets may repeat suits, a rank (``9``: a set of 9s)."""
    distinct = bool(moves.rules[R_SET_DISTINCT])
    if len(text) == 1 and text.upper() in RANKS:
        if distinct:
            raise ValueError(f"cannot read {token!r}: in {moves.title} a wild card stands for a card, "
                             f"like {token[:-len(text)]}{text.upper()}h")
        return [moves.wild + RANKS.index(text.upper()) * 4]
    try:
        c = card_id(text)
    except ValueError:
        c = -1
    if not 0 <= c < NUM_FACES:
        raise ValueError(f"cannot read {token!r}: after '=' comes the card the wild card stands for "
                         f"(ranks {' '.join(RANKS)}, suits {' '.join(SUITS)}, like '*=7h')")
    found = [moves.wild + c]
    if not distinct:  # in a set a wild card stands for the rank (its clubs id)
        found.append(moves.wild + (c // 4) * 4)
    return list(dict.fromkeys(found))


def card_readings(moves: CardMoves, token: str, discard: bool = True) -> list[int] | None:
    """Every move the card ``token`` may stand for, or None when ``token`` is no card.

    ``7h``: add it or (``discard``) discard it; a wild card (``X``, or ``2s`` where 2s are
    wild) also stands for any card; ``X=Jh``, ``2h=9h`` (the table's form), ``*=5c`` and
    ``*=7`` (a set's rank, where sets may repeat suits) lay a wild card with that meaning.
    A physical card that is not wild in this game before ``=`` is a ValueError saying
    so."""
    token = token.strip()
    phys_text, eq, meaning = token.partition("=")
    if eq:
        if phys_text == "*":
            return _meaning(moves, meaning, token)
        try:
            phys = JOKER if phys_text in ("X", "x") else card_id(phys_text)
        except ValueError:
            return None
        if not is_wild_card(moves.rules, phys):
            raise ValueError(f"cannot read {token!r}: {card_str(phys) if phys != JOKER else 'a joker'} is not "
                             f"a wild card in {moves.title} (wild: {moves.wild_names()})")
        return _meaning(moves, meaning, token)
    try:
        c = JOKER if token == "X" else card_id(token)
    except ValueError:
        return None
    found = []
    if c < NUM_FACES:
        found.append(moves.add + c)
    if is_wild_card(moves.rules, c):
        found += [moves.wild + r for r in range(NUM_FACES)]
    elif c == JOKER:
        raise ValueError(f"cannot read {token!r}: {moves.title} has no jokers")
    if discard:
        found.append(moves.discard + c)
    return found


def named_card(text: str) -> str | None:
    """The card of the hand a typed word lays or discards (``7h``, ``add 7h``, ``discard
    7h``; the wild card before ``=``: ``X`` of ``X=7h``, ``2c`` of ``2c=7h``), None for a
    word that names none (``*=7h``, ``draw``)."""
    words = " ".join(str(text).split()).split(" ")
    if len(words) == 2 and words[0].lower() in ("add", "discard"):
        words = words[1:]
    if len(words) != 1:
        return None
    phys = words[0].partition("=")[0]
    if phys in ("X", "x"):
        return "X"
    try:
        return card_str(card_id(phys))
    except ValueError:
        return None


def str_to_actions(moves: CardMoves, text: str, str_to_action) -> list[int]:
    """Every move a typed word may stand for: a card (bare, ``add C`` or with its
    meaning: :func:`card_readings`), else the one move ``str_to_action`` reads (its
    ValueError when it reads none)."""
    words = " ".join(str(text).split()).split(" ")
    if len(words) == 1:
        found = card_readings(moves, words[0])
    elif len(words) == 2 and words[0].lower() == "add":
        found = card_readings(moves, words[1], discard=False)
    else:
        found = None
    return found if found is not None else [str_to_action(text)]
