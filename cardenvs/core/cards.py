"""Card notation, decks and card ids shared by every game.

Notation (the same in every game page): ranks ``A 2 3 4 5 6 7 8 9 T J Q K``, suits ``c d h s``
(clubs, diamonds, hearts, spades): ``Ah``, ``Tc``, ``2s``; the joker is ``X``.
Odin cards are a value digit then a colour letter ``r o y g b p``: ``7r``, ``1p``.

Card ids are small integers so that numba kernels can keep hands as count vectors:
a standard card is ``rank * 4 + suit`` (rank 0 = ace ... 12 = king, suit in c d h s
order), the joker is 52. An Odin card is ``colour * 9 + (value - 1)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

RANKS = "A23456789TJQK"
SUITS = "cdhs"
JOKER = 52
NUM_STANDARD = 52
NUM_WITH_JOKER = 53  # card-type count when jokers exist: 52 faces + the joker type

ODIN_COLOURS = "roygbp"
ODIN_VALUES = 9
NUM_ODIN = len(ODIN_COLOURS) * ODIN_VALUES


def card_id(text: str) -> int:
    """Id of one standard card, e.g. ``card_id("Th") == 38``; ``"X"`` is the joker."""
    if not isinstance(text, str):
        raise ValueError(f"not a card: {text!r}")
    t = text.strip()
    if t == "X":
        return JOKER
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise ValueError(
            f"not a card: {text!r} (expected a rank of {' '.join(RANKS)} then a suit "
            f"of {' '.join(SUITS)}, like 'Th', or 'X' for a joker)"
        )
    return RANKS.index(t[0]) * 4 + SUITS.index(t[1])


def card_str(cid: int) -> str:
    """Notation of a standard card id (inverse of :func:`card_id`)."""
    cid = int(cid)
    if cid == JOKER:
        return "X"
    if not 0 <= cid < NUM_STANDARD:
        raise ValueError(f"not a standard card id: {cid!r}")
    return RANKS[cid // 4] + SUITS[cid % 4]


def odin_card_id(text: str) -> int:
    """Id of one Odin card, e.g. ``odin_card_id("7r") == 6``."""
    if not isinstance(text, str):
        raise ValueError(f"not an Odin card: {text!r}")
    t = text.strip()
    if len(t) != 2 or t[0] not in "123456789" or t[1] not in ODIN_COLOURS:
        raise ValueError(
            f"not an Odin card: {text!r} (expected a value 1-9 then a colour of "
            f"{' '.join(ODIN_COLOURS)}, like '7r')"
        )
    return ODIN_COLOURS.index(t[1]) * ODIN_VALUES + int(t[0]) - 1


def odin_card_str(cid: int) -> str:
    """Notation of an Odin card id (inverse of :func:`odin_card_id`)."""
    cid = int(cid)
    if not 0 <= cid < NUM_ODIN:
        raise ValueError(f"not an Odin card id: {cid!r}")
    return f"{cid % ODIN_VALUES + 1}{ODIN_COLOURS[cid // ODIN_VALUES]}"


#: every card's notation by id, the joker's last (counts_to_cards, the games' state fields)
CARD_NAMES = tuple(card_str(c) for c in range(NUM_WITH_JOKER))
ODIN_CARD_NAMES = tuple(odin_card_str(c) for c in range(NUM_ODIN))


def n_cards(n: int) -> str:
    """``"1 card"``, ``"5 cards"``: a count of cards as the table texts print it."""
    return f"{n} card" if n == 1 else f"{n} cards"


def parse_cards(text: str | Iterable[str], odin: bool = False) -> list[int]:
    """Card ids from ``"Ah Tc X"`` (spaces or commas) or from a list of card strings."""
    parts = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    parse = odin_card_id if odin else card_id
    return [parse(p) for p in parts]


def format_cards(ids: Iterable[int], odin: bool = False) -> str:
    """``"Ah Tc X"`` from card ids."""
    fmt = odin_card_str if odin else card_str
    return " ".join(fmt(c) for c in ids)


def counts_to_cards(counts: Sequence[int] | np.ndarray, odin: bool = False) -> list[str]:
    """Card strings of a count vector (a card held twice appears twice), in id order."""
    arr = np.asarray(counts)
    held = np.flatnonzero(arr > 0).tolist()
    names = ODIN_CARD_NAMES if odin else CARD_NAMES
    if held and held[-1] >= len(names):  # not a card id: the formatter's error for the first
        (odin_card_str if odin else card_str)(next(c for c in held if c >= len(names)))
    return [names[c] for c, n in zip(held, arr[held].tolist(), strict=True) for _ in range(int(n))]


def cards_to_counts(cards: str | Iterable[str], size: int, odin: bool = False) -> np.ndarray:
    """Count vector of length ``size`` from card strings."""
    counts = np.zeros(size, dtype=np.int64)
    for c in parse_cards(cards, odin=odin):
        if c >= size:
            raise ValueError(f"card {card_str(c)!r} does not exist in this game")
        counts[c] += 1
    return counts


def standard_deck_counts(decks: int = 1, jokers_per_deck: int = 0) -> np.ndarray:
    """How many of each card type ``decks`` 52-card decks hold (length 52, or 53 with jokers)."""
    size = NUM_WITH_JOKER if jokers_per_deck else NUM_STANDARD
    counts = np.full(size, decks, dtype=np.int64)
    if jokers_per_deck:
        counts[JOKER] = decks * jokers_per_deck
    return counts


def odin_deck_counts(colours: int = 6) -> np.ndarray:
    """Odin's deck: values 1-9 in the first ``colours`` colours (6 normally, 4 for two players)."""
    counts = np.zeros(NUM_ODIN, dtype=np.int64)
    counts[: colours * ODIN_VALUES] = 1
    return counts


def deck_list(counts: np.ndarray) -> np.ndarray:
    """The deck as a flat array of card ids, in id order (shuffle it with the game's RNG)."""
    return np.repeat(np.arange(len(counts), dtype=np.int16), counts)
