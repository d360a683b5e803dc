"""Melds of every rummy: numba functions over card-count vectors, parameterised by a
small rules vector (the meld rules as data).

Cards are the standard ids of ``cardenvs.core.cards`` (``rank * 4 + suit``, rank A=0 .. K=12,
suits c d h s; the joker is 52); a hand is a count vector of length 53 (several decks:
counts above 1). A **position** places a card in a run: 0 is an ace below the 2, 1 the 2,
..., 12 the king, 13 an ace above the king. A set's positions are its suits.

Rules vector (``int64``, indices ``R_*``), built by :func:`rules_rami51`,
:func:`rules_frime`, :func:`rules_classes`:

============== ============================================================ ====== ===== =======
index          meaning                                                      rami51 frime classes
============== ============================================================ ====== ===== =======
R_JOKER_WILD   the joker (id 52) is wild                                    1      1     0
R_TWOS_WILD    every 2 is wild                                              0      1     1
R_SET_MIN      smallest set                                                 3      3     3
R_SET_MAX      largest set (0: no limit)                                    4      0     0
R_SET_DISTINCT the cards of a set have different suits                      1      0     0
R_RUN_MIN      shortest run                                                 3      3     3
R_POS_LO       lowest run position (0: ace low allowed; 2: runs from the 3) 0      2     2
R_POS_HI       highest run position (13: ace high allowed)                  13     13    13
R_MIN_NATURAL  natural (non-wild) cards every meld needs                    0      0     1
R_RUN_SUIT     a run is of one suit (classes: option ``run_same_suit``)     1      1     1
============== ============================================================ ====== ===== =======

A run never holds both positions 0 and 13 (no K-A-2: the ace is low or high, never both).

- :func:`meld_options`: is this multiset of cards a valid meld, and with which wild
  positions (every interpretation);
- :func:`extension_options`: which cards (and wild positions) extend a table meld.

The searches that decide whether a turn can be finished are each game's own: Rami 51's
opening planner (``cardenvs/games/rami51/plan.py``), the full split of a hand into melds
(:mod:`cardenvs.rummy.split`, frime's going out), the contracts (:mod:`cardenvs.rummy.contract`,
classes).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.bits import popcount

# more for each literal argument value it sees (Literal[bool](True), Literal[int](0), ...),
# which multiplied the cold compile time; np.bool_ and np.int64 values are typed plainly.
TRUE = np.bool_(True)
FALSE = np.bool_(False)
ZERO = np.int64(0)
ONE = np.int64(1)

# --------------------------------------------------------------------------- cards, positions
NUM_FACES = 52
JOKER = 52
NUM_TYPES = 53
NUM_POS = 14
ACE_LOW = 0
ACE_HIGH = 13

KIND_NONE = 0
KIND_SET = 1
KIND_RUN = 2
KIND_WILD = 3  # meld_options: a meld of wild cards only (it names its cards when laid)

# rules vector
R_JOKER_WILD = 0
R_TWOS_WILD = 1
R_SET_MIN = 2
R_SET_MAX = 3
R_SET_DISTINCT = 4
R_RUN_MIN = 5
R_POS_LO = 6
R_POS_HI = 7
R_MIN_NATURAL = 8
R_RUN_SUIT = 9
NUM_RULES = 10


def rules_rami51() -> np.ndarray:
    """Jokers wild, 2s natural; sets of 3-4 distinct suits; runs of 3+ of a suit, ace low or high."""
    return np.array([1, 0, 3, 4, 1, 3, 0, 13, 0, 1], dtype=np.int64)


def rules_frime() -> np.ndarray:
    """Every 2 and joker wild; sets of 3+ (duplicates allowed, no upper size); runs 3..K A
    of one suit (ace high only); melds of wilds only allowed."""
    return np.array([1, 1, 3, 0, 0, 3, 2, 13, 0, 1], dtype=np.int64)


def rules_classes(run_same_suit: bool = True) -> np.ndarray:
    """2s wild, no jokers; sets of 3+ (duplicates allowed); runs 3..K A (ace high only),
    of one suit unless ``run_same_suit`` is False; at least one natural card per meld."""
    return np.array([0, 1, 3, 0, 0, 3, 2, 13, 1, int(bool(run_same_suit))], dtype=np.int64)


@njit(cache=True, no_cfunc_wrapper=True)
def pos_rank(pos):
    """Rank index (A=0 .. K=12) of a run position (0 and 13 are the ace)."""
    return 0 if pos == ACE_HIGH else pos


@njit(cache=True, no_cfunc_wrapper=True)
def card_at(suit, pos):
    """Card id at run position ``pos`` of ``suit``."""
    return pos_rank(pos) * 4 + suit


@njit(cache=True, no_cfunc_wrapper=True)
def is_wild(rules, c):
    if c == JOKER:
        return rules[R_JOKER_WILD] != 0
    return c // 4 == 1 and rules[R_TWOS_WILD] != 0


@njit(cache=True, no_cfunc_wrapper=True)
def frime_penalty(c):
    """Frime: ace 1, 3-9 face value, T J Q K 10, frimes (2s, jokers) 0 (before doubling)."""
    if c == JOKER:
        return 0
    r = c // 4
    if r == 1:
        return 0
    if r == 0:
        return 1
    return min(r + 1, 10)


@njit(cache=True, no_cfunc_wrapper=True)
def classes_penalty(c):
    """Classes: ace 15, T J Q K 10, 3-9 5, 2 20."""
    r = c // 4
    if r == 0:
        return 15
    if r == 1:
        return 20
    if r >= 9:
        return 10
    return 5


@njit(cache=True, no_cfunc_wrapper=True)
def run_window_ok(rules, lo, hi):
    """Positions lo..hi form a run window under the rules (length, range, no K-A-2)."""
    if lo < rules[R_POS_LO] or hi > rules[R_POS_HI] or hi - lo + 1 < rules[R_RUN_MIN]:
        return False
    return not (lo == ACE_LOW and hi == ACE_HIGH)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def suit_positions(rules, N, t):
    """Bit mask of the run positions (``R_POS_LO..R_POS_HI``) whose natural card of suit t
    the hand N holds (an ace sets both its low and its high position where both exist)."""
    m = ZERO
    for r in range(1, 13):  # 2..K stand at positions 1..12
        if N[r * 4 + t] > 0:
            m |= ONE << np.int64(r)
    if N[t] > 0:  # the ace: position 0 below the 2, 13 above the king
        m |= ONE | (ONE << np.int64(13))
    lo = np.int64(rules[R_POS_LO])
    hi = np.int64(rules[R_POS_HI])
    return m & ((ONE << (hi + ONE)) - ONE) & ~((ONE << lo) - ONE)


# Hands as card bits (bit c: the hand holds card c). With the aces copied above the kings
# (``with_high_aces``), run position p of suit t is bit 4p + t, so shifts by 4 walk along
# every suit's run at once and each rank is a nibble.
NIBBLE_LOW = np.int64(0x1111111111111)  # the lowest bit of each of the 13 ranks' nibbles


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def with_high_aces(h):
    """Card bits with the aces also at position 13 (bits 52..55), above the kings."""
    return h | ((h & np.int64(15)) << np.int64(NUM_FACES))


# --------------------------------------------------------------------------- is it a meld?
@njit(cache=True, no_cfunc_wrapper=True)
def meld_options(rules, counts, out):
    """Every interpretation of the cards ``counts`` (length 53) as one meld; returns how
    many rows were written to ``out`` (int64, (n, 5)):

    ``(KIND_SET, rank, wild_suits, 0, 0)``: a set; with distinct suits ``wild_suits`` is
    the bit mask of the suits the wilds stand for (each choice its own row), otherwise 0.
    ``(KIND_RUN, suit, lo, hi, wild_positions)``: a run over positions lo..hi, the wilds at
    the bit mask ``wild_positions`` (suit -1 for a run of mixed suits).
    ``(KIND_WILD, size, 0, 0, 0)``: wilds only (allowed without a natural minimum); the
    player names the cards.
    """
    n = 0
    wilds = 0
    nat = 0
    for c in range(NUM_TYPES):
        k = np.int64(counts[c])
        if k == 0:
            continue
        if is_wild(rules, c):
            wilds += k
        else:
            nat += k
    total = wilds + nat
    if total == 0:
        return 0
    if nat < rules[R_MIN_NATURAL]:
        return 0
    if nat == 0:
        if total >= min(rules[R_SET_MIN], rules[R_RUN_MIN]):
            out[n, 0] = KIND_WILD
            out[n, 1] = total
            out[n, 2] = 0
            out[n, 3] = 0
            out[n, 4] = 0
            n += 1
        return n
    # ---- sets: every natural of one rank
    rank = -1
    one_rank = True
    suits = 0
    dup_suit = False
    for c in range(NUM_FACES):
        k = np.int64(counts[c])
        if k == 0 or is_wild(rules, c):
            continue
        if rank < 0:
            rank = c // 4
        elif c // 4 != rank:
            one_rank = False
        if k > 1 or (suits >> (c % 4)) & 1:
            dup_suit = True
        suits |= 1 << (c % 4)
    size_ok = total >= rules[R_SET_MIN] and (rules[R_SET_MAX] == 0 or total <= rules[R_SET_MAX])
    if one_rank and size_ok:
        if rules[R_SET_DISTINCT]:
            if not dup_suit:
                free = 15 & ~suits
                if popcount(free) >= wilds:
                    # each subset of the free suits of size `wilds`
                    for m in range(16):
                        if m & ~free == 0 and popcount(m) == wilds:
                            out[n, 0] = KIND_SET
                            out[n, 1] = rank
                            out[n, 2] = m
                            out[n, 3] = 0
                            out[n, 4] = 0
                            n += 1
        else:
            out[n, 0] = KIND_SET
            out[n, 1] = rank
            out[n, 2] = 0
            out[n, 3] = 0
            out[n, 4] = 0
            n += 1
    # ---- runs: naturals of one suit (or any), distinct positions, inside one window
    if total < rules[R_RUN_MIN]:
        return n
    suit = -1
    one_suit = True
    aces = 0
    for c in range(NUM_FACES):
        k = np.int64(counts[c])
        if k == 0 or is_wild(rules, c):
            continue
        if k > 1:
            return n  # a run holds each card once
        if suit < 0:
            suit = c % 4
        elif c % 4 != suit:
            one_suit = False
        if c // 4 == 0:
            aces += 1
    if rules[R_RUN_SUIT] and not one_suit:
        return n
    if aces > 1:
        return n  # one ace at most (no K-A-2, and an ace once)
    run_suit = suit if rules[R_RUN_SUIT] else -1
    # natural ranks must be distinct (mixed suits: one card per rank)
    seen = 0
    for c in range(NUM_FACES):
        if counts[c] == 0 or is_wild(rules, c):
            continue
        r = c // 4
        if (seen >> r) & 1:
            return n
        seen |= 1 << r
    for ace_pos in (ACE_LOW, ACE_HIGH):
        if aces == 0 and ace_pos == ACE_HIGH:
            break
        natpos = ZERO
        for r in range(13):
            if (seen >> r) & 1:
                p = r if r > 0 else ace_pos
                natpos |= ONE << np.int64(p)
        for lo in range(NUM_POS):
            hi = lo + total - 1
            if hi >= NUM_POS or not run_window_ok(rules, lo, hi):
                continue
            window = ((ONE << np.int64(total)) - 1) << np.int64(lo)
            if natpos & ~window:
                continue
            out[n, 0] = KIND_RUN
            out[n, 1] = run_suit
            out[n, 2] = lo
            out[n, 3] = hi
            out[n, 4] = window & ~natpos
            n += 1
    return n


# --------------------------------------------------------------------------- extensions
@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def extension_options(rules, kind, key, lo, hi, occupied, size, out):
    """Cards that extend a table meld by one card; returns how many rows were written to
    ``out`` (int64, (n, 2)): ``(card, position)``. A natural of that card, or a wild
    standing for it, may be added there.

    Run (``key`` its suit, -1 for mixed suits; ``lo``..``hi``): one position below or
    above (a mixed run lists the four suits of the rank). Set (``key`` its rank,
    ``occupied`` the bit mask of suits held, ``size`` its cards): a missing suit with
    distinct suits (position = suit), any suit otherwise, while below the largest size.
    """
    n = 0
    if kind == KIND_RUN:
        for p in (lo - 1, hi + 1):
            if p < 0 or p >= NUM_POS:
                continue
            if not run_window_ok(rules, min(p, lo), max(p, hi)):
                continue
            if key >= 0:
                out[n, 0] = card_at(key, p)
                out[n, 1] = p
                n += 1
            else:
                for t in range(4):
                    out[n, 0] = card_at(t, p)
                    out[n, 1] = p
                    n += 1
        return n
    if kind == KIND_SET:
        if rules[R_SET_MAX] > 0 and size >= rules[R_SET_MAX]:
            return 0
        for t in range(4):
            if rules[R_SET_DISTINCT] and (occupied >> t) & 1:
                continue
            out[n, 0] = key * 4 + t
            out[n, 1] = t
            n += 1
    return n


# --------------------------------------------------------------------------- Python helpers
def hand_counts(cards) -> np.ndarray:
    """Count vector (length 53) from card strings (``"5h 6h X"``) or ids."""
    from cardenvs.core.cards import parse_cards

    ids = parse_cards(cards) if isinstance(cards, str) or (cards and isinstance(next(iter(cards)), str)) else cards
    counts = np.zeros(NUM_TYPES, dtype=np.int64)
    for c in ids:
        counts[int(c)] += 1
    return counts


def meld_interpretations(rules: np.ndarray, cards) -> list[tuple[int, ...]]:
    """:func:`meld_options` as a list of tuples (for people and tests)."""
    out = np.zeros((64, 5), dtype=np.int64)
    n = meld_options(rules, hand_counts(cards), out)
    return [tuple(int(x) for x in row) for row in out[:n]]

