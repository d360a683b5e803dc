"""The meld engine shared by the rummies (rami51, frime, classes): numba functions over
card-count vectors, parameterised by a small rules vector.

Cards are the standard ids of ``cardenvs.cards`` (``rank * 4 + suit``, rank A=0 .. K=12,
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

Questions answered here:

- :func:`meld_options`: is this multiset of cards a valid meld, and with which wild
  positions (every interpretation);
- :func:`extension_options`: which cards (and wild positions) extend a table meld;
- :func:`split_all`: can a hand be split entirely into melds (frime's going out);
- :func:`contract_feasible`: does a hand hold a contract ("a séquence of 5 and a
  carré", classes);
- :func:`plan_feasible` with :func:`plan_windows` and :func:`plan_chains`: the rummy
  *turn planner* used by rami51's exact masks: is there a set of new melds (and lay-offs
  of one given card) that completes the meld being built, reaches an opening threshold
  with a clean run, uses a given card, and leaves at least one card in hand.
  :func:`opening_feasible` is its plain form ("does this hand hold a >= 51 opening with
  a clean run, using card X").

The planner works for rule sets whose melds name every card they hold (sets of distinct
suits, same-suit runs: rami51). Its exactness rests on three facts, each checked by the
brute-force tests in ``tests/test_melds.py``:

1. Without a minimum of natural cards, a run of 6 or more cards splits into runs of 3 to
   5 with the same cards (same points, at least as many clean runs), so candidate runs
   have 3 to 5 cards; sets have 3 or 4.
2. For a fixed multiset of melds, the jokers needed are the shortfall of natural cards,
   whichever meld gets them; taking naturals first, meld by meld, is exact for the card
   counts. Points differ only for an ace (1 low in a run, 11 elsewhere): when a meld wants
   an 11-point ace and none is left while an earlier meld holds a natural low ace, the
   two swap (the joker goes to the low ace).
3. The clean run is chosen first and takes natural cards only.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.bits import bits_of, low_index, popcount
from cardenvs.core.borrow import keep_alive

# Plain (non-literal) constants for calls between kernels: numba compiles a kernel once
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


# classes contracts (the French Classes rules): rows of (kind, size); kind KIND_SET with size 3 (brelan,
# 3+ of a rank) or 4 (carré, 4+), KIND_RUN with size n (séquence of n+)
CONTRACT_ITEMS = 3
CONTRACTS = np.zeros((10, CONTRACT_ITEMS, 2), dtype=np.int64)
for _i, _items in enumerate(
    [
        [(KIND_SET, 3), (KIND_SET, 3)],  # 1 deux brelans
        [(KIND_RUN, 4), (KIND_SET, 3)],  # 2 une séquence de quatre et un brelan
        [(KIND_SET, 4), (KIND_SET, 4)],  # 3 deux carrés
        [(KIND_RUN, 4), (KIND_RUN, 4)],  # 4 deux séquences de quatre
        [(KIND_SET, 3), (KIND_SET, 3), (KIND_SET, 3)],  # 5 trois brelans
        [(KIND_RUN, 4), (KIND_SET, 3), (KIND_SET, 3)],  # 6 une séquence de quatre et deux brelans
        [(KIND_RUN, 5), (KIND_SET, 4)],  # 7 une séquence de cinq et un carré
        [(KIND_RUN, 5), (KIND_RUN, 5)],  # 8 deux séquences de cinq
        [(KIND_RUN, 5), (KIND_SET, 3), (KIND_SET, 3)],  # 9 une séquence de cinq et deux brelans
        [(KIND_RUN, 7), (KIND_SET, 4)],  # 10 une séquence de sept et un carré
    ]
):
    for _j, (_k, _n) in enumerate(_items):
        CONTRACTS[_i, _j] = (_k, _n)


@njit(cache=True)
def pos_rank(pos):
    """Rank index (A=0 .. K=12) of a run position (0 and 13 are the ace)."""
    return 0 if pos == ACE_HIGH else pos


@njit(cache=True)
def card_at(suit, pos):
    """Card id at run position ``pos`` of ``suit``."""
    return pos_rank(pos) * 4 + suit


@njit(cache=True)
def is_wild(rules, c):
    if c == JOKER:
        return rules[R_JOKER_WILD] != 0
    return c // 4 == 1 and rules[R_TWOS_WILD] != 0


@njit(cache=True)
def rank_value(rank):
    """Rami value of a rank in a set (and in hand): ace 11, 2-10 face value, J Q K 10."""
    if rank == 0:
        return 11
    return min(rank + 1, 10)


@njit(cache=True)
def run_value(pos):
    """Rami value of a card at a run position: ace 1 low, 11 high."""
    if pos == ACE_LOW:
        return 1
    return rank_value(pos_rank(pos))


@njit(cache=True)
def rami_penalty(c):
    """Points of a card left in hand in rami51: joker 20, ace 11, faces 10, 2-10 face value."""
    if c == JOKER:
        return 20
    return rank_value(c // 4)


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def run_window_ok(rules, lo, hi):
    """Positions lo..hi form a run window under the rules (length, range, no K-A-2)."""
    if lo < rules[R_POS_LO] or hi > rules[R_POS_HI] or hi - lo + 1 < rules[R_RUN_MIN]:
        return False
    return not (lo == ACE_LOW and hi == ACE_HIGH)


@njit(cache=True, no_cpython_wrapper=True)
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


# --------------------------------------------------------------------------- is it a meld?
@njit(cache=True)
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
@njit(cache=True, _nrt=False)
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


# --------------------------------------------------------------------------- the turn planner
# A candidate ("window") is a row of `cw` (int16):
CW_KIND = 0  # KIND_SET, KIND_RUN, CW_CHAIN (a lay-off chain onto a table meld), CW_ALLWILD
CW_LEN = 1  # cards it holds
CW_XIN = 2  # holds the card X (natural, present in the hand)
CW_CLEAN = 3  # a run whose every card is a natural present in the hand
CW_PTS = 4  # points of its natural cards present in the hand
CW_BAN = 5  # 1: may not be taken all natural (a clean run whose designation already failed)
CW_CARD = 6  # CW_CARD + i: the card at its i-th position (represented card)
CW_VAL = CW_CARD + NUM_POS  # CW_VAL + i: that card's opening value there (0 in a chain)
CW_FIELDS = CW_VAL + NUM_POS
CW_CHAIN = 3
CW_ALLWILD = 4
MAX_WINDOWS = 512

# B (the meld being built, its cards added in canonical order) as an int64 vector:
B_KIND = 0  # BK_*
B_RANK = 1  # one card: its rank; a set: the rank
B_SUIT = 2  # one card: its suit; a run: the suit
B_LO = 3  # a run: lowest position; a set: lowest suit
B_HI = 4  # a run: highest position (the last card); a set: highest suit; one card: its position
B_N = 5  # cards placed
B_JOKER = 6  # a wild is among them
B_PTS_RUN = 7  # points of its natural cards if it ends as a run
B_PTS_SET = 8  # ... if it ends as a set
B_FIELDS = 9
BK_EMPTY = 0  # no meld in progress (or one just started, no card yet)
BK_ONE = 1
BK_SET = 2
BK_RUN = 3


@njit(cache=True, no_cpython_wrapper=True)
def clean_all_natural(cw, k, L, N):
    """Every position of row k is a natural card present in the hand (none needs a wild)."""
    for i in range(L):
        c = cw[k, CW_CARD + i]
        if c < 0 or N[c] == 0:
            return False
    return True


@njit(cache=True, no_cpython_wrapper=True, _nrt=False)
def _window_row(cw, k, kind, L, N, X):
    """Fill the summary fields of row k from its cards and values (already written)."""
    cw[k, CW_KIND] = kind
    cw[k, CW_LEN] = L
    pts = 0
    clean = kind == KIND_RUN
    xin = 0
    for i in range(L):
        c = cw[k, CW_CARD + i]
        if c >= 0 and N[c] > 0:
            pts += cw[k, CW_VAL + i]
            if c == X:
                xin = 1
        else:
            clean = False
    if X == JOKER and not clean_all_natural(cw, k, L, N):
        xin = 1  # the card to lay is a joker: any meld using a wild lays it
    cw[k, CW_PTS] = pts
    cw[k, CW_CLEAN] = 1 if clean else 0
    cw[k, CW_XIN] = xin
    cw[k, CW_BAN] = 0


@njit(cache=True, no_cpython_wrapper=True)
def _has_natural(cw, k, L, N):
    for i in range(L):
        c = cw[k, CW_CARD + i]
        if c >= 0 and N[c] > 0:
            return True
    return False


CARD_VALUE = np.array([rank_value.py_func(c // 4) for c in range(NUM_FACES)], dtype=np.int64)  # per card, for bit loops
POP14 = np.array([bin(i).count("1") for i in range(1 << 14)], dtype=np.int64)
SC_COUNTS = 0  # scratch[0:130]: counting-sort buckets
SC_U0 = 200  # scratch[200]: bit mask of the natural cards some candidate holds
# witness recording (see record_witnesses): when scratch[SC_WIT_ON] is set, every plan the
# search finds adds the first card (in canonical order) of each of its melds to these masks
SC_WIT_ON = 201
SC_WIT_NAT = 202  # ... first cards laid as naturals
SC_WIT_WILD = 203  # ... first cards a wild stands for
# row_bits[j] (pb[9]): the natural cards of candidate j as card bits, plus WILD_SLOT times
# its positions that take a wild whatever the hand holds (a row's cards are distinct)
WILD_SLOT = np.int64(1) << np.int64(56)
SC_RUNS = 130  # scratch[130:145]: plan_windows' run windows by length
SC_KNAP = 208  # scratch[208:256]: _root_bound's knapsack over the wilds (up to 47 wilds)
SCRATCH = 256
MAX_DEPTH = 40  # melds one search may lay (rows of undo, columns of the stack)
ST_J, ST_T, ST_W, ST_B, ST_P, ST_N, ST_S = 0, 1, 2, 3, 4, 5, 6  # rows of the search stack


# The planner's work arrays as one record: fields in this order, so that ``pb[0]`` is cw,
# ``pb[7]`` the scratch and so on. A record is passed to a compiled function as one
# pointer, where a tuple of arrays is passed as ten array structures (about 80 words
# copied at every call), and its arrays have constant shapes and strides.
PLAN_DTYPE = np.dtype(
    [
        ("cw", np.int16, (MAX_WINDOWS + 3, CW_FIELDS)),
        ("tmp", np.int16, (MAX_WINDOWS + 3, CW_FIELDS)),
        ("order", np.int64, (MAX_WINDOWS + 3,)),
        ("bound", np.int64, (MAX_WINDOWS + 3,)),
        ("stack", np.int64, (8, MAX_DEPTH)),
        ("undo", np.int64, (MAX_DEPTH + 2, NUM_POS)),
        ("low_ace", np.int64, (4,)),
        ("scratch", np.int64, (SCRATCH,)),
        ("bound0", np.int64, (MAX_WINDOWS + 3,)),
        ("row_bits", np.int64, (MAX_WINDOWS + 3,)),  # see plan_windows
    ]
)


@njit(cache=True)
def new_plan_buffers():
    """The planner's work arrays, allocated once and reused: a one-record array of
    PLAN_DTYPE (cw, tmp, order, bound, stack, undo, low_ace, scratch, bound0, row_bits).
    The planner takes its record ``bufs[0]``; the caller keeps ``bufs`` alive while the
    record is used (``core.borrow.keep_alive``)."""
    bufs = np.empty(1, dtype=PLAN_DTYPE)
    clear_plan_buffers(bufs[0])
    return bufs


@njit(cache=True, no_cpython_wrapper=True)
def clear_plan_buffers(pb):
    """Zero what the planner reads before writing (the search rows and stacks are always
    written first: left as they are, which saves clearing 70 KB on every AEC step)."""
    pb.bound[:] = 0
    pb.low_ace[:] = 0
    pb.scratch[:] = 0
    pb.bound0[:] = 0
    pb.row_bits[:] = 0


@njit(cache=True, no_cpython_wrapper=True)
def _at_least(c0, c1, c2, c3, k):
    """Bits whose bit-sliced 4-bit count (c3 c2 c1 c0) is at least k."""
    gt = ZERO
    eq = ~ZERO
    for j in range(3, -1, -1):
        cj = c3 if j == 3 else (c2 if j == 2 else (c1 if j == 1 else c0))
        if (k >> j) & 1:
            eq &= cj
        else:
            gt |= eq & cj
            eq &= ~cj
    return gt | eq


@njit(cache=True, _nrt=False)
def plan_windows(rules, N, W, X, pb, long_runs):
    """Candidate melds of a hand for :func:`plan_feasible` (into the workspace ``pb``):
    runs of 3..5 positions (3..5+W with ``long_runs``) and sets, each holding at least
    one natural card of the hand and needing at most ``W`` wilds; when X is a joker, also
    each of them with a wild where the hand holds the natural; one all-wild meld when
    ``W >= 3`` and the rules allow it. Rows are sorted for the search (melds holding X
    first, then by decreasing points); ``bound[j]`` bounds the points rows j.. can add.
    Returns the number of candidates."""
    cw, tmp, order, bound, scratch, row_bits = pb[0], pb[1], pb[2], pb[3], pb[7], pb[9]
    K = ZERO
    lo_pos = rules[R_POS_LO]
    hi_pos = rules[R_POS_HI]
    extra = W if long_runs else 2
    rmin = rules[R_RUN_MIN]
    # Run windows, found for every suit and start at once on card bits (bit 4p + t: suit t
    # at position p): ok[L - rmin] has bit 4 lo + t when the window of L positions from lo
    # holds enough naturals. Then emitted suit by suit, by start, by length.
    e = with_high_aces(natural_bits(N))
    e &= ((ONE << np.int64(4 * (hi_pos + 1))) - ONE) & ~((ONE << np.int64(4 * lo_pos)) - ONE)
    ok = scratch[SC_RUNS:SC_RUNS + 15]
    any_ok = ZERO
    c0 = ZERO
    c1 = ZERO
    c2 = ZERO
    c3 = ZERO  # bit-sliced count of the naturals in each window so far (up to 15)
    lmax = min(rmin + extra, hi_pos - lo_pos + 1)
    for i in range(lmax):
        x = e >> np.int64(4 * i)
        k0 = c0 & x
        c0 ^= x
        k1 = c1 & k0
        c1 ^= k0
        k2 = c2 & k1
        c2 ^= k1
        c3 |= k2
        L = i + 1
        if L < rmin:
            continue
        need = max(L - W, ONE, rules[R_MIN_NATURAL])
        # starts whose window ends by hi_pos; a window over both aces is no run
        starts = ((ONE << np.int64(4 * max(hi_pos - L + 2, 0))) - ONE) & ~((ONE << np.int64(4 * lo_pos)) - ONE)
        if L == ACE_HIGH + 1:
            starts &= ~np.int64(15)
        w = _at_least(c0, c1, c2, c3, need) & starts
        ok[L - rmin] = w
        any_ok |= w
    for t in range(4):
        m = any_ok & (NIBBLE_LOW << np.int64(t))
        while m:
            b = low_index(m)
            m &= m - ONE
            lo = b >> 2
            for L in range(rmin, lmax + 1):
                if not (ok[L - rmin] >> b) & 1 or K >= MAX_WINDOWS:
                    continue
                for i in range(L):
                    tmp[K, CW_CARD + i] = card_at(t, lo + i)
                    tmp[K, CW_VAL + i] = run_value(lo + i)
                _window_row(tmp, K, np.int64(KIND_RUN), L, N, X)
                K += 1
    smin = rules[R_SET_MIN]
    smax = rules[R_SET_MAX] if rules[R_SET_MAX] > 0 else 4
    h = natural_bits(N)
    if rules[R_TWOS_WILD]:
        h &= ~(np.int64(15) << np.int64(4))
    ranks = ranks_with_suits(h, max(smin - W, ONE)) & NIBBLE_LOW if smin - W <= 4 else ZERO
    while ranks:
        b = low_index(ranks)
        ranks &= ranks - ONE
        r = b >> 2
        held = (h >> np.int64(b)) & np.int64(15)  # the suits of rank r held
        for m in range(1, 16):
            L = POP14[m]
            if L < smin or L > smax:
                continue
            nat = POP14[m & held]
            if nat == 0 or L - nat > W or nat < rules[R_MIN_NATURAL] or K >= MAX_WINDOWS:
                continue
            i = 0
            for t in range(4):
                if (m >> t) & 1:
                    tmp[K, CW_CARD + i] = r * 4 + t
                    tmp[K, CW_VAL + i] = rank_value(r)
                    i += 1
            _window_row(tmp, K, np.int64(KIND_SET), L, N, X)
            K += 1
    if X == JOKER and W >= 1:
        # the joker to lay may stand where the hand holds the natural card: one variant per
        # such position (the natural stays in hand)
        K0 = K
        for k in range(K0):
            L = tmp[k, CW_LEN]
            for i in range(L):
                c = tmp[k, CW_CARD + i]
                if c < 0 or N[c] == 0 or K >= MAX_WINDOWS:
                    continue
                for f in range(CW_CARD):
                    tmp[K, f] = tmp[k, f]
                for f in range(L):
                    tmp[K, CW_CARD + f] = tmp[k, CW_CARD + f]
                    tmp[K, CW_VAL + f] = tmp[k, CW_VAL + f]
                tmp[K, CW_CARD + i] = -1
                tmp[K, CW_VAL + i] = 0
                _window_row(tmp, K, tmp[k, CW_KIND], np.int64(L), N, X)
                if _has_natural(tmp, K, L, N) or rules[R_MIN_NATURAL] == 0:
                    K += 1
    if W >= 3 and rules[R_MIN_NATURAL] == 0 and K < MAX_WINDOWS:
        L = min(rules[R_SET_MIN], rules[R_RUN_MIN])
        for i in range(L):
            tmp[K, CW_CARD + i] = -1
            tmp[K, CW_VAL + i] = 0
        _window_row(tmp, K, np.int64(CW_ALLWILD), L, N, X)
        K += 1
    # counting sort: X holders first, then by decreasing points
    NB = 2 * 64
    for b in range(NB + 1):
        scratch[SC_COUNTS + b] = 0
    kmin = NB
    kmax = ZERO
    for k in range(K):
        key = (0 if tmp[k, CW_XIN] else 64) + 63 - min(np.int64(tmp[k, CW_PTS]), 63)
        scratch[SC_COUNTS + key] += 1
        kmin = min(kmin, key)
        kmax = max(kmax, key)
    first = ZERO  # each used bucket's first slot; the running sum stays in a register
    for b in range(kmin, kmax + 1):
        n = scratch[SC_COUNTS + b]
        scratch[SC_COUNTS + b] = first
        first += n
    for k in range(K):
        key = (0 if tmp[k, CW_XIN] else 64) + 63 - min(np.int64(tmp[k, CW_PTS]), 63)
        order[scratch[SC_COUNTS + key]] = k
        scratch[SC_COUNTS + key] += 1
    for j in range(K):
        k = order[j]
        for f in range(CW_FIELDS):  # whole rows, constant length: a few vector moves
            cw[j, f] = tmp[k, f]
        rb = ZERO
        for f in range(cw[j, CW_LEN]):
            c = np.int64(cw[j, CW_CARD + f])
            rb += (ONE << c) if c >= 0 else WILD_SLOT
        row_bits[j] = rb
    # bound[j]: every natural of the hand that some candidate j.. holds, at its best value;
    # bound0[j]: the same over the candidates that need no wild (all a branch without
    # wilds left can still take: the hand only shrinks). On card bits: each card counts once.
    bound0 = pb[8]
    hand = natural_bits(N)
    union = ZERO
    union0 = ZERO
    b = ZERO
    b0 = ZERO
    bound[K] = 0
    bound0[K] = 0
    for j in range(K - 1, -1, -1):
        rb = row_bits[j]
        cards = rb & FACE_BITS
        new = cards & hand & ~union
        union |= new
        while new:
            c = low_index(new)
            new &= new - ONE
            b += CARD_VALUE[c] * np.int64(N[c])
        kind = cw[j, CW_KIND]
        if (kind == KIND_RUN or kind == KIND_SET) and rb < WILD_SLOT and not cards & ~hand:
            new = cards & ~union0
            union0 |= new
            while new:
                c = low_index(new)
                new &= new - ONE
                b0 += CARD_VALUE[c] * np.int64(N[c])
        bound[j] = b
        bound0[j] = b0
    scratch[SC_U0] = union
    return K


@njit(cache=True, no_cpython_wrapper=True, _nrt=False)
def plan_chains(rules, N, W, X, table_kind, table_key, table_lo, table_hi, table_slots, num_melds, pb, K):
    """Append to ``cw`` (from row K) the lay-off chains that would put card X on a table
    meld: the cards from the meld's end up to X's position (naturals or wilds), or X alone
    on a set missing its suit. Chains score no points (their ``bound`` is 0). Returns the
    new row count."""
    cw, bound, bound0 = pb[0], pb[3], pb[8]
    K0 = K
    K = _chains(rules, N, W, X, table_kind, table_key, table_lo, table_hi, table_slots, num_melds, cw, K)
    for j in range(K0, K + 1):
        bound[j] = 0
        bound0[j] = 0
    return K


@njit(cache=True, no_cpython_wrapper=True, _nrt=False)
def _chains(rules, N, W, X, table_kind, table_key, table_lo, table_hi, table_slots, num_melds, cw, K):
    if X == JOKER:
        # a joker laid off anywhere a card can go: one row is enough (they are all alike)
        if W == 0 or K >= MAX_WINDOWS:
            return K
        for m in range(num_melds):
            ok = False
            if table_kind[m] == KIND_SET:
                size = 0
                for t in range(4):
                    if table_slots[m, t] >= 0:
                        size += 1
                ok = size < 4 if rules[R_SET_DISTINCT] else (rules[R_SET_MAX] == 0 or size < rules[R_SET_MAX])
            elif table_kind[m] == KIND_RUN:
                lo = np.int64(table_lo[m])
                hi = np.int64(table_hi[m])
                ok = (lo > 0 and run_window_ok(rules, lo - 1, hi)) or (
                    hi < NUM_POS - 1 and run_window_ok(rules, lo, hi + 1)
                )
            if ok:
                cw[K, CW_CARD] = -1
                cw[K, CW_VAL] = 0
                _window_row(cw, K, np.int64(CW_CHAIN), ONE, N, X)
                cw[K, CW_CLEAN] = 0
                cw[K, CW_XIN] = 1
                return K + 1
        return K
    if X < 0 or X >= NUM_FACES or N[X] == 0:
        return K
    xr = X // 4
    xs = X % 4
    for m in range(num_melds):
        kind = table_kind[m]
        if kind == KIND_SET:
            if table_key[m] != xr:
                continue
            size = 0
            occ = 0
            for t in range(4):
                if table_slots[m, t] >= 0:
                    size += 1
                    occ |= 1 << t
            if (rules[R_SET_MAX] > 0 and size >= rules[R_SET_MAX]) or (rules[R_SET_DISTINCT] and (occ >> xs) & 1):
                continue
            if K >= MAX_WINDOWS:
                break
            cw[K, CW_CARD] = X
            cw[K, CW_VAL] = 0
            _window_row(cw, K, np.int64(CW_CHAIN), ONE, N, X)
            cw[K, CW_CLEAN] = 0
            K += 1
        elif kind == KIND_RUN:
            if table_key[m] != xs:
                continue
            lo = np.int64(table_lo[m])
            hi = np.int64(table_hi[m])
            for xp in (xr if xr > 0 else ACE_LOW, xr if xr > 0 else ACE_HIGH):
                if xp > hi:
                    a, b = hi + 1, xp
                    nlo, nhi = lo, xp
                elif xp < lo:
                    a, b = xp, lo - 1
                    nlo, nhi = xp, hi
                else:
                    continue
                if not run_window_ok(rules, nlo, nhi) or K >= MAX_WINDOWS:
                    continue
                L = b - a + 1
                nat = 0
                for i in range(L):
                    c = card_at(xs, a + i)
                    cw[K, CW_CARD + i] = c
                    cw[K, CW_VAL + i] = 0
                    if N[c] > 0:
                        nat += 1
                if L - nat > W:
                    continue
                _window_row(cw, K, np.int64(CW_CHAIN), L, N, X)
                cw[K, CW_CLEAN] = 0
                K += 1
                if xr > 0:
                    break
    return K


@njit(cache=True, no_cpython_wrapper=True, inline="always")
def _take(cw, j, N, W, low_ace, clean_only, swap_ok, undo, u0):
    """Take the cards of candidate j from the hand, naturals first, wilds for the rest.
    Returns (wilds used, points gained, drop of the points potential ``srem``), or
    (-1, 0, 0) when it cannot (then nothing changed). ``undo[i]``: 0 natural, 1 wild,
    2 wild by an ace swap, 3 natural low ace (swappable). The potential counts each
    natural of ``u0`` (the cards candidates hold) at its best value, plus 10 for each
    swappable low ace laid."""
    L = cw[j, CW_LEN]
    used = 0
    pts = 0
    drop = 0
    for i in range(L):
        c = np.int64(cw[j, CW_CARD + i])
        v = np.int64(cw[j, CW_VAL + i])
        if c >= 0 and N[c] > 0:
            N[c] -= 1
            pts += v
            if (u0 >> c) & 1:
                drop += rank_value(c // 4)
            if swap_ok and v == 1 and c < 4:
                low_ace[c] += 1
                drop -= 10
                undo[i] = 3
            else:
                undo[i] = 0
            continue
        if clean_only or used >= W:
            _untake(cw, j, i, N, low_ace, undo)
            return -1, 0, 0
        used += 1
        if swap_ok and c >= 0 and c < 4 and v == 11 and low_ace[c] > 0:
            low_ace[c] -= 1  # the earlier low ace becomes the wild; this ace is the natural
            pts += 10
            drop += 10
            undo[i] = 2
        else:
            undo[i] = 1
    if used == 0 and cw[j, CW_BAN]:
        _untake(cw, j, L, N, low_ace, undo)
        return -1, 0, 0
    return used, pts, drop


@njit(cache=True, no_cpython_wrapper=True, inline="always")
def _untake(cw, j, L, N, low_ace, undo):
    for i in range(L - 1, -1, -1):
        c = cw[j, CW_CARD + i]
        u = undo[i]
        if u == 0:
            N[c] += 1
        elif u == 3:
            N[c] += 1
            low_ace[c] -= 1
        elif u == 2:
            low_ace[c] += 1


@njit(cache=True, no_cpython_wrapper=True, _nrt=False)
def _record_row(cw, j, undo_row, scratch):
    """Add the first card of candidate j, as the search took it, to the witness masks."""
    kind = cw[j, CW_KIND]
    if kind != KIND_RUN and kind != KIND_SET:
        return
    c = np.int64(cw[j, CW_CARD])
    if c < 0:
        return  # a wild standing where the hand holds the natural: card not recorded
    u = undo_row[0]
    if u == 0 or u == 3:
        scratch[SC_WIT_NAT] |= ONE << c
    elif u == 1:
        scratch[SC_WIT_WILD] |= ONE << c


@njit(cache=True, no_cpython_wrapper=True)
def _swapped(cw, j, undo_row):
    """Did taking candidate j swap an ace with an earlier low ace (which then turns wild)?"""
    for i in range(cw[j, CW_LEN]):
        if undo_row[i] == 2:
            return True
    return False


@njit(cache=True, no_cpython_wrapper=True, _nrt=False)
def _record_dfs_plan(cw, stack, undo, depth, d, scratch):
    """The search found a plan (levels 0..d-1 of its stack): record its melds' first cards.
    A plan with an ace swap is skipped (which ace ended up wild is not tracked)."""
    for e in range(d):
        j = stack[ST_T, e]
        if cw[j, CW_KIND] != CW_ALLWILD and _swapped(cw, j, undo[depth + e]):
            return
    for e in range(d):
        j = stack[ST_T, e]
        if cw[j, CW_KIND] != CW_ALLWILD:
            _record_row(cw, j, undo[depth + e], scratch)


@njit(cache=True, no_cpython_wrapper=True)
def record_witnesses(pb, on):
    """Start (``on``) or stop recording witnesses: while on, each plan the planner finds adds
    the first card of every meld it lays (and whether a wild stands for it) to
    ``scratch[SC_WIT_NAT]``/``scratch[SC_WIT_WILD]``. Each such card can start a new meld
    with the turn still finishable (that plan, that meld first), so a mask over first
    cards need not search for it again."""
    scratch = pb[7]
    scratch[SC_WIT_ON] = 1 if on else 0
    scratch[SC_WIT_NAT] = 0
    scratch[SC_WIT_WILD] = 0


@njit(cache=True, no_cpython_wrapper=True, _nrt=False)
def _dfs(pb, K, j0, N, W, budget, pts, srem, need_pts, X, xbase, need_x, min_win, nwin, last_x, depth):
    """Is there a multiset of candidates j0.. (taken in non-decreasing order) that reaches
    the points, holds X, adds min_win melds, within ``budget`` cards and ``W`` wilds?
    An explicit stack (numba's cache does not reload recursive functions reliably);
    ``undo[depth + d]`` records what level d took. Pruned by three bounds on the points
    still to come: the candidates' cards (``bound``), the cards left (``srem``) and the
    budget (11 a card)."""
    cw, bound, stack, undo, low_ace, scratch, bound0 = pb[0], pb[3], pb[4], pb[5], pb[6], pb[7], pb[8]
    u0 = scratch[SC_U0]
    d = 0
    stack[ST_J, 0] = j0
    stack[ST_W, 0] = W
    stack[ST_B, 0] = budget
    stack[ST_P, 0] = pts
    stack[ST_N, 0] = nwin
    stack[ST_S, 0] = srem
    entering = True
    while True:
        Wd = stack[ST_W, d]
        x_open = need_x and ((X == JOKER and Wd >= xbase) or (X != JOKER and N[X] >= xbase))
        pd = stack[ST_P, d]
        if entering:
            if pd >= need_pts and stack[ST_N, d] >= min_win and not x_open:
                if scratch[SC_WIT_ON]:
                    _record_dfs_plan(cw, stack, undo, depth, np.int64(d), scratch)
                while d > 0:
                    d -= 1
                    j = stack[ST_T, d]
                    if cw[j, CW_KIND] != CW_ALLWILD:
                        _untake(cw, j, cw[j, CW_LEN], N, low_ace, undo[depth + d])
                return True
            entering = False
        pushed = False
        if d < MAX_DEPTH - 1:
            bd = stack[ST_B, d]
            cap = min(stack[ST_S, d], 11 * bd)
            j = stack[ST_J, d]
            while j < K:
                if x_open and j > last_x:
                    break
                if need_pts > 0 and pd + min(bound[j] if Wd > 0 else bound0[j], cap) < need_pts:
                    break
                L = cw[j, CW_LEN]
                kind = cw[j, CW_KIND]
                if L > bd or (kind == CW_CHAIN and not x_open):
                    j += 1
                    continue
                if kind == CW_ALLWILD:
                    if Wd < L:
                        j += 1
                        continue
                    used = L
                    gained = 0
                    drop = 0
                else:
                    used, gained, drop = _take(cw, j, N, Wd, low_ace, FALSE, kind != CW_CHAIN, undo[depth + d], u0)
                    if used < 0:
                        j += 1
                        continue
                stack[ST_T, d] = j
                stack[ST_J, d] = j + 1
                stack[ST_J, d + 1] = j
                stack[ST_W, d + 1] = Wd - used
                stack[ST_B, d + 1] = bd - L
                stack[ST_P, d + 1] = pd + gained
                stack[ST_N, d + 1] = stack[ST_N, d] + (0 if kind == CW_CHAIN else 1)
                stack[ST_S, d + 1] = stack[ST_S, d] - drop
                d += 1
                pushed = True
                entering = True
                break
        if pushed:
            continue
        if d == 0:
            return False
        d -= 1
        j = stack[ST_T, d]
        if cw[j, CW_KIND] != CW_ALLWILD:
            _untake(cw, j, cw[j, CW_LEN], N, low_ace, undo[depth + d])


@njit(cache=True, no_cpython_wrapper=True, _nrt=False)
def _completion(rules, binfo, idx, cw, row):
    """Write the idx-th completion of the meld being built into row ``row`` of ``cw``
    (its new cards only; may be none); returns its kind (KIND_SET/KIND_RUN), 0 to skip
    this index, -1 when there are no more. Completions: runs up to two positions past the
    shortest valid end (longer ones split into a completion plus a candidate), sets of
    every allowed size with higher suits."""
    bk = binfo[B_KIND]
    smax = rules[R_SET_MAX] if rules[R_SET_MAX] > 0 else 4
    if bk == BK_ONE or bk == BK_RUN:
        if bk == BK_ONE:
            lo = binfo[B_HI]  # the single card's position (an ace starts low)
            hi = lo
            suit = binfo[B_SUIT]
        else:
            lo = binfo[B_LO]
            hi = binfo[B_HI]
            suit = binfo[B_SUIT]
        hi0 = max(hi, lo + rules[R_RUN_MIN] - 1)
        if idx < 3:
            h = hi0 + idx
            if h >= NUM_POS or not run_window_ok(rules, lo, h):
                return 0
            L = h - hi
            for i in range(L):
                cw[row, CW_CARD + i] = card_at(suit, hi + 1 + i)
                cw[row, CW_VAL + i] = run_value(hi + 1 + i)
            cw[row, CW_LEN] = L
            cw[row, CW_KIND] = KIND_RUN
            return KIND_RUN
        if bk == BK_RUN:
            return -1
        idx -= 3
    if bk == BK_ONE or bk == BK_SET:
        if idx >= 16:
            return -1
        m = idx
        top = binfo[B_SUIT] if bk == BK_ONE else binfo[B_HI]
        n = 1 if bk == BK_ONE else binfo[B_N]
        rank = binfo[B_RANK]
        if m & ((1 << (top + 1)) - 1):
            return 0  # suits above the highest one placed only
        L = popcount(m)
        if n + L < rules[R_SET_MIN] or n + L > smax:
            return 0
        i = 0
        for t in range(4):
            if (m >> t) & 1:
                cw[row, CW_CARD + i] = rank * 4 + t
                cw[row, CW_VAL + i] = rank_value(rank)
                i += 1
        cw[row, CW_LEN] = L
        cw[row, CW_KIND] = KIND_SET
        return KIND_SET
    return -1


@njit(cache=True, _nrt=False)
def points_potential(N, u0):
    """Points of the naturals of N among the cards ``u0`` (a bit mask), each at its best value."""
    srem = ZERO
    bits = u0 & ((ONE << np.int64(NUM_FACES)) - ONE)
    while bits:
        c = low_index(bits)
        bits &= bits - ONE
        srem += CARD_VALUE[c] * np.int64(N[c])
    return srem


# Hands as card bits (bit c: the hand holds card c; ``natural_bits``). With the aces copied
# above the kings (``with_high_aces``), run position p of suit t is bit 4p + t, so shifts by
# 4 walk along every suit's run at once and each rank is a nibble.
NIBBLE_LOW = np.int64(0x1111111111111)  # the lowest bit of each of the 13 ranks' nibbles
FACE_BITS = np.int64((1 << NUM_FACES) - 1)
RUN_START_BITS = np.int64((1 << 48) - 1)  # 3-card windows start at positions 0..11


@njit(cache=True, no_cpython_wrapper=True)
def natural_bits(N):
    """Card bits of the naturals held in N (jokers not included)."""
    return bits_of(N, 0, NUM_FACES)


@njit(cache=True, no_cpython_wrapper=True)
def with_high_aces(h):
    """Card bits with the aces also at position 13 (bits 52..55), above the kings."""
    return h | ((h & np.int64(15)) << np.int64(NUM_FACES))


@njit(cache=True, no_cpython_wrapper=True)
def run_starts(e, W):
    """Bit 4p + t for each 3-card run window (positions p..p+2 of suit t) holding at least
    3 - W of the cards ``e`` (card bits with high aces)."""
    a = e
    b = e >> np.int64(4)
    c = e >> np.int64(8)
    if W <= 0:
        st = a & b & c
    elif W == 1:
        st = (a & b) | (a & c) | (b & c)
    else:
        st = a | b | c
    return st & RUN_START_BITS


@njit(cache=True, no_cpython_wrapper=True)
def ranks_with_suits(h, k):
    """Card bits of every card of the ranks of which h holds at least k suits (1 <= k <= 4)."""
    x = h - ((h >> ONE) & np.int64(0x5555555555555))
    x = (x & np.int64(0x3333333333333)) + ((x >> np.int64(2)) & np.int64(0x3333333333333))  # suits per rank
    ge = ((x + (8 - k) * NIBBLE_LOW) >> np.int64(3)) & NIBBLE_LOW
    return ge * np.int64(15)


@njit(cache=True, _nrt=False)
def coverage(rules, N, W):
    """Bit mask of the natural cards of N that some meld of at most W wilds could hold (a
    necessary condition for laying a card, and the cards whose points an opening can
    count). A run card needs a 3-card window around it with enough naturals (longer
    windows contain such one), a set card enough suits of its rank."""
    if (rules[R_TWOS_WILD] == 0 and rules[R_SET_DISTINCT] and rules[R_POS_LO] == ACE_LOW
            and rules[R_POS_HI] == ACE_HIGH and rules[R_RUN_MIN] == 3 and rules[R_SET_MIN] == 3):
        # rami51's rules, on card bits
        h = natural_bits(N)
        if W >= 2:
            return h  # two wilds complete a run window around any card
        st = run_starts(with_high_aces(h), W)
        cov = st | (st << np.int64(4)) | (st << np.int64(8))
        cov = (cov | (cov >> np.int64(NUM_FACES))) & FACE_BITS  # an ace high is the ace
        return (cov | ranks_with_suits(h, 3 - W)) & h
    cover = ZERO
    for t in range(4):
        m = suit_positions(rules, N, t)
        if m == 0:
            continue
        if W >= 2:
            cov = m
        else:
            if W == 1:
                st = (m & (m >> ONE)) | (m & (m >> np.int64(2))) | ((m >> ONE) & (m >> np.int64(2)))
            else:
                st = m & (m >> ONE) & (m >> np.int64(2))
            cov = (st | (st << ONE) | (st << np.int64(2))) & m
        while cov:
            p = POP14[((cov & -cov) - 1) & 16383]
            cover |= ONE << np.int64(card_at(t, p))
            cov &= cov - 1
    smin = rules[R_SET_MIN]
    for r in range(13):
        k = 0
        for t in range(4):
            c = r * 4 + t
            if N[c] > 0 and not is_wild(rules, c):
                k += 1 if rules[R_SET_DISTINCT] else N[c]
        if k == 0 or k + W < smin:
            continue
        for t in range(4):
            if N[r * 4 + t] > 0:
                cover |= ONE << np.int64(r * 4 + t)
    return cover


@njit(cache=True, no_cpython_wrapper=True, _nrt=False)
def reset_bans(cw, K):
    for j in range(K):
        cw[j, CW_BAN] = 0


@njit(cache=True, no_cpython_wrapper=True, _nrt=False)
def _root_bound(pb, K, N, W):
    """Points any plan can reach: the naturals that melds without wilds hold, plus the
    best naturals outside them that melds with wilds add (each such meld needs at least
    its missing cards in wilds: a small knapsack over the wilds). On card bits: candidate
    rows as ``row_bits`` (see plan_windows), the hand as ``natural_bits(N)``."""
    cw, scratch, row_bits = pb[0], pb[7], pb[9]
    hb = natural_bits(N)
    A = ZERO
    for j in range(K):
        kind = cw[j, CW_KIND]
        if kind != KIND_RUN and kind != KIND_SET:
            continue
        rb = row_bits[j]
        if rb < WILD_SLOT and not rb & ~hb:
            A |= rb
    total = points_potential(N, A)
    if W == 0:
        return total
    best = scratch[SC_KNAP:SC_KNAP + W + 1]  # the knapsack's table, reused
    best[:] = 0
    for j in range(K):
        kind = cw[j, CW_KIND]
        if kind != KIND_RUN and kind != KIND_SET:
            continue
        rb = row_bits[j]
        cards = rb & FACE_BITS
        have = cards & hb
        miss = (rb >> np.int64(56)) + popcount(cards & ~hb)
        gain_bits = have & ~A
        if miss == 0 or miss > W or gain_bits == 0:
            continue
        g = ZERO
        while gain_bits:
            g += CARD_VALUE[low_index(gain_bits)]
            gain_bits &= gain_bits - ONE
        copies = np.int64(99)
        while have:
            copies = min(copies, np.int64(N[low_index(have)]))
            have &= have - ONE
        for _ in range(min(copies, W // miss)):  # each copy of the meld once (0/1 knapsack)
            for w in range(W, miss - 1, -1):
                if best[w - miss] + g > best[w]:
                    best[w] = best[w - miss] + g
    top = ZERO
    for w in range(W + 1):
        top = max(top, best[w])
    return total + top


@njit(cache=True, _nrt=False)
def plan_feasible(rules, N, W, budget, need_pts, need_clean, X, need_x, min_win, binfo, pb, K, last_x, srem_in=-1):
    """The turn planner. Is there a way to finish the turn: complete the meld being built
    (``binfo``, may be empty), lay further melds from the candidates ``cw[:K]`` of the
    workspace ``pb`` (from :func:`plan_windows`, chains from :func:`plan_chains` after
    them), so that

    - their points (the meld being built included) reach ``need_pts``,
    - one of them is a clean run (a run of natural cards only) when ``need_clean``,
    - the card X (a natural, or a joker when X is 52) is among the cards laid when ``need_x``,
    - at least ``min_win`` new melds are laid when nothing is being built,
    - at most ``budget`` cards of the hand are used and at most ``W`` wilds?

    ``N`` (length 53, the hand's natural counts; wilds are counted in ``W`` only) is
    modified during the search and restored. ``last_x`` is the last row holding X.
    ``srem_in``: the points potential of N (see :func:`points_potential`) when the caller
    has it, else -1."""
    cw, undo, low_ace, scratch = pb[0], pb[5], pb[6], pb[7]
    if X == JOKER:
        xbase = np.int64(W)  # a joker is laid when the wilds left drop below this
    else:
        xbase = np.int64(N[X]) if X >= 0 else ZERO
    for i in range(4):
        low_ace[i] = 0
    u0 = scratch[SC_U0]
    srem = np.int64(srem_in)
    if need_pts <= 0:
        srem = ONE << np.int64(40)  # nothing to bound
    elif srem < 0:
        srem = points_potential(N, u0)
    brow = MAX_WINDOWS + 1  # a scratch row past the candidates
    bk = binfo[B_KIND]
    for j in range(K):
        cw[j, CW_BAN] = 0
    cw[brow, CW_BAN] = 0
    if bk == BK_EMPTY:
        if need_pts > 0 and _root_bound(pb, K, N, W) < need_pts:
            return False
        if not need_clean:
            return _dfs(pb, K, ZERO, N, W, budget, ZERO, srem, need_pts, X, xbase, need_x, min_win, ZERO, last_x, ONE)
        for i in range(K):
            if cw[i, CW_KIND] != KIND_RUN or not cw[i, CW_CLEAN] or cw[i, CW_LEN] > budget:
                continue
            used, gained, drop = _take(cw, i, N, ZERO, low_ace, TRUE, FALSE, undo[0], u0)
            if used < 0:
                continue
            ok = _dfs(pb, K, ZERO, N, W, budget - cw[i, CW_LEN], gained, srem - drop, need_pts, X, xbase, need_x,
                      min_win, ONE, last_x, ONE)
            if ok and scratch[SC_WIT_ON]:
                _record_row(cw, i, undo[0], scratch)  # the clean run (all natural, no swap)
            _untake(cw, i, cw[i, CW_LEN], N, low_ace, undo[0])
            if ok:
                return True
            # no plan has this run as its clean run: later searches may not lay it clean
            # (a plan where it is clean was just searched)
            cw[i, CW_BAN] = 1
        return False
    # a meld is being built: try each completion (it counts as the meld laid); when the
    # card to lay is a joker, also each completion with the joker where a natural is held
    idx = ZERO
    forced_ok = X == JOKER and need_x and W >= 1
    while True:
        kind = _completion(rules, binfo, idx, cw, brow)
        idx += 1
        if kind < 0:
            return False
        if kind == 0:
            continue
        L = cw[brow, CW_LEN]
        if L > budget:
            continue
        base = binfo[B_PTS_RUN] if kind == KIND_RUN else binfo[B_PTS_SET]
        for v in range(-1, L if forced_ok else 0):
            c = 0
            keep_val = 0
            if v >= 0:
                c = cw[brow, CW_CARD + v]
                if N[c] == 0:
                    continue
                keep_val = cw[brow, CW_VAL + v]
                cw[brow, CW_CARD + v] = -1
                cw[brow, CW_VAL + v] = 0
            ok = _complete_and_rest(N, W, budget, need_pts, need_clean, X, xbase, need_x, binfo, pb, K, last_x,
                                    brow, kind, L, base, v < 0, srem)
            if v >= 0:
                cw[brow, CW_CARD + v] = c
                cw[brow, CW_VAL + v] = keep_val
            if ok:
                return True
    return False


@njit(cache=True, no_cpython_wrapper=True, _nrt=False)
def _complete_and_rest(N, W, budget, need_pts, need_clean, X, xbase, need_x, binfo, pb, K, last_x,
                       brow, kind, L, base, may_be_clean, srem):
    """Take the completion in row ``brow``, then search the rest of the turn. Bans (see
    CW_BAN) hold within this call only."""
    cw, undo, low_ace, scratch = pb[0], pb[5], pb[6], pb[7]
    u0 = scratch[SC_U0]
    for j in range(K):
        cw[j, CW_BAN] = 0
    cw[brow, CW_BAN] = 0
    # (a) the meld being built is the clean run
    banned_b = False
    if need_clean and may_be_clean and kind == KIND_RUN and not binfo[B_JOKER]:
        used, gained, drop = _take(cw, brow, N, ZERO, low_ace, TRUE, FALSE, undo[0], u0)
        if used >= 0:
            ok = _dfs(pb, K, ZERO, N, W, budget - L, base + gained, srem - drop, need_pts, X, xbase, need_x, ZERO, ONE,
                      last_x, ONE)
            _untake(cw, brow, L, N, low_ace, undo[0])
            if ok:
                return True
            banned_b = True  # plans where it is the clean run were just searched
    if need_clean:
        # (b) another clean run first, then the completion
        for j in range(K):
            cw[j, CW_BAN] = 0
        cw[brow, CW_BAN] = 1 if banned_b else 0
        ok = False
        for i in range(K):
            if cw[i, CW_KIND] != KIND_RUN or not cw[i, CW_CLEAN] or cw[i, CW_LEN] + L > budget:
                continue
            used0, g0, d0 = _take(cw, i, N, ZERO, low_ace, TRUE, FALSE, undo[0], u0)
            if used0 < 0:
                continue
            used, gained, drop = _take(cw, brow, N, W, low_ace, FALSE, FALSE, undo[1], u0)
            if used >= 0:
                ok = _dfs(pb, K, ZERO, N, W - used, budget - L - cw[i, CW_LEN], base + g0 + gained, srem - d0 - drop,
                          need_pts, X, xbase, need_x, ZERO, np.int64(2), last_x, np.int64(2))
                if ok and scratch[SC_WIT_ON]:
                    _record_row(cw, i, undo[0], scratch)
                _untake(cw, brow, L, N, low_ace, undo[1])
            _untake(cw, i, cw[i, CW_LEN], N, low_ace, undo[0])
            if ok:
                break
            cw[i, CW_BAN] = 1
        cw[brow, CW_BAN] = 0
        return ok
    # (c) the completion, then the rest
    used, gained, drop = _take(cw, brow, N, W, low_ace, FALSE, FALSE, undo[0], u0)
    if used < 0:
        return False
    ok = _dfs(pb, K, ZERO, N, W - used, budget - L, base + gained, srem - drop, need_pts, X, xbase, need_x, ZERO, ONE,
              last_x, ONE)
    _untake(cw, brow, L, N, low_ace, undo[0])
    return ok


@njit(cache=True, no_cpython_wrapper=True, _nrt=False)
def last_x_row(cw, K):
    last = -1
    for j in range(K):
        if cw[j, CW_XIN]:
            last = j
    return last


@njit(cache=True)
def opening_feasible(rules, counts, threshold, X, max_cards):
    """Does the hand ``counts`` (length 53) hold melds worth ``threshold`` points or more
    (jokers 0, ace 1 low in a run, else 11) including a clean run, using card X when
    ``X >= 0``, with at most ``max_cards`` cards?"""
    N = np.zeros(NUM_TYPES, dtype=np.int64)
    W = 0
    for c in range(NUM_TYPES):
        if is_wild(rules, c):
            W += counts[c]
        else:
            N[c] = counts[c]
    bufs = new_plan_buffers()
    pb = bufs[0]
    K = plan_windows(rules, N, W, X, pb, FALSE)
    binfo = np.zeros(B_FIELDS, dtype=np.int64)
    need_x = X >= 0 and (W > 0 if X == JOKER else N[X] > 0)
    if X >= 0 and not need_x:
        return False
    ok = plan_feasible(rules, N, W, max_cards, threshold, TRUE, X, need_x, ONE, binfo, pb, K, last_x_row(pb[0], K))
    keep_alive(bufs)
    return ok


# --------------------------------------------------------------------------- full split (frime)
@njit(cache=True, no_cpython_wrapper=True)
def _lowest_natural(rules, R):
    """The lowest natural card left, in run-position order (2s first when they are
    natural, the ace first when it may be low, last when only high); -1 if none."""
    lo = rules[R_POS_LO]
    for p in range(lo, NUM_POS):
        r = pos_rank(p)
        if p == ACE_HIGH and lo == ACE_LOW:
            break  # the ace was looked at as position 0
        for t in range(4):
            c = r * 4 + t
            if R[c] > 0 and not is_wild(rules, c):
                return c
    for c in range(NUM_FACES):  # 2s when runs start at the 3
        if R[c] > 0 and not is_wild(rules, c):
            return c
    return -1


@njit(cache=True, no_cpython_wrapper=True)
def _leftover_ok(rules, W, cap):
    """Can ``W`` wilds that no meld needed still be laid (absorbed or as a wild meld)?"""
    if W == 0 or W <= cap:
        return True
    if rules[R_MIN_NATURAL] == 0 and W >= min(rules[R_SET_MIN], rules[R_RUN_MIN]):
        if rules[R_SET_MAX] == 0:
            return True
        longest = max(rules[R_SET_MAX], rules[R_POS_HI] - rules[R_POS_LO] + 1)
        return W - longest <= cap
    return False


SPLIT_RUN_OPTIONS = 30  # 2 ace positions x 5 starts x 3 lengths
MAX_LEVELS = 64


@njit(cache=True, no_cpython_wrapper=True)
def _split_option(rules, R, W, c, idx, avail, took):
    """Apply option ``idx`` for placing the lowest natural ``c`` (runs through it, then
    sets with each choice of the other naturals of its rank). Returns (status, taken,
    wilds, room, naturals): status 1 applied (``took[:taken]`` removed from R), 0 skip,
    -1 no more options."""
    r = c // 4
    s = c % 4
    if idx < SPLIT_RUN_OPTIONS:
        a = idx // 15
        rem = idx % 15
        lo_off = rem // 3
        L = rules[R_RUN_MIN] + rem % 3
        if a == 1 and r != 0:
            return 0, 0, 0, 0, 0
        p = (r if r > 0 else ACE_LOW) if a == 0 else ACE_HIGH
        if p < rules[R_POS_LO] or p > rules[R_POS_HI]:
            return 0, 0, 0, 0, 0
        lo = p - 4 + lo_off
        hi = lo + L - 1
        if lo < rules[R_POS_LO] or hi < p or hi > rules[R_POS_HI] or not run_window_ok(rules, lo, hi):
            return 0, 0, 0, 0, 0
        n = 0
        need = 0
        for q in range(lo, hi + 1):
            got = -1
            if q == p:
                got = c
            else:
                t0 = s if rules[R_RUN_SUIT] else 0
                t1 = s + 1 if rules[R_RUN_SUIT] else 4
                for t in range(t0, t1):
                    cc = card_at(t, q)
                    if R[cc] > 0 and not is_wild(rules, cc):
                        got = cc
                        break
            if got >= 0:
                R[got] -= 1
                took[n] = got
                n += 1
            else:
                need += 1
        if need > W or n < rules[R_MIN_NATURAL]:
            for i in range(n):
                R[took[i]] += 1
            return 0, 0, 0, 0, 0
        room = (rules[R_POS_HI] - rules[R_POS_LO] + 1) - L
        if rules[R_POS_LO] == ACE_LOW and rules[R_POS_HI] == ACE_HIGH:
            room -= 1
        return 1, n, need, room, n
    k = idx - SPLIT_RUN_OPTIONS
    pick = np.zeros(4, dtype=np.int64)
    for t in range(4):
        pick[t] = k % (avail[t] + 1)
        k //= avail[t] + 1
    if k > 0:
        return -1, 0, 0, 0, 0
    n_nat = 1 + pick[0] + pick[1] + pick[2] + pick[3]
    smax = rules[R_SET_MAX]
    need = max(0, rules[R_SET_MIN] - n_nat)
    if need > W or n_nat < rules[R_MIN_NATURAL] or (smax > 0 and n_nat + need > smax):
        return 0, 0, 0, 0, 0
    n = 0
    R[c] -= 1
    took[n] = c
    n += 1
    for t in range(4):
        for _ in range(pick[t]):
            R[r * 4 + t] -= 1
            took[n] = r * 4 + t
            n += 1
    room = 1 << 20 if smax == 0 else smax - n_nat - need
    if rules[R_SET_DISTINCT]:
        room = min(room, 4 - n_nat - need)
    return 1, n, need, room, n_nat


@njit(cache=True, no_cpython_wrapper=True)
def _split(rules, R, W0, left0):
    """Depth-first over the melds holding the lowest natural left (explicit stack)."""
    lv_c = np.empty(MAX_LEVELS, dtype=np.int64)
    lv_idx = np.empty(MAX_LEVELS, dtype=np.int64)
    lv_w = np.empty(MAX_LEVELS, dtype=np.int64)
    lv_cap = np.empty(MAX_LEVELS, dtype=np.int64)
    lv_left = np.empty(MAX_LEVELS, dtype=np.int64)
    lv_n = np.empty(MAX_LEVELS, dtype=np.int64)
    lv_took = np.empty((MAX_LEVELS, 24), dtype=np.int64)
    lv_avail = np.empty((MAX_LEVELS, 4), dtype=np.int64)
    d = 0
    lv_w[0] = W0
    lv_cap[0] = 0
    lv_left[0] = left0
    entering = True
    while True:
        if entering:
            entering = False
            if lv_left[d] == 0:
                if _leftover_ok(rules, lv_w[d], lv_cap[d]):
                    while d > 0:
                        d -= 1
                        for i in range(lv_n[d]):
                            R[lv_took[d, i]] += 1
                    return True
                lv_idx[d] = 1 << 30  # nothing to place: back up
            else:
                c = _lowest_natural(rules, R)
                lv_c[d] = c
                lv_idx[d] = 0
                r = c // 4
                for t in range(4):
                    lv_avail[d, t] = R[r * 4 + t]
                lv_avail[d, c % 4] -= 1
                if rules[R_SET_DISTINCT]:
                    for t in range(4):
                        lv_avail[d, t] = min(lv_avail[d, t], 1)
                    lv_avail[d, c % 4] = 0
        pushed = False
        while lv_idx[d] < (1 << 30) and d < MAX_LEVELS - 1:
            status, n, need, room, n_nat = _split_option(rules, R, lv_w[d], lv_c[d], lv_idx[d], lv_avail[d],
                                                         lv_took[d])
            lv_idx[d] += 1
            if status < 0:
                break
            if status == 0:
                continue
            lv_n[d] = n
            lv_w[d + 1] = lv_w[d] - need
            lv_cap[d + 1] = min(lv_cap[d] + room, 1 << 20)
            lv_left[d + 1] = lv_left[d] - n_nat
            d += 1
            pushed = True
            entering = True
            break
        if pushed:
            continue
        if d == 0:
            return False
        d -= 1
        for i in range(lv_n[d]):
            R[lv_took[d, i]] += 1


@njit(cache=True)
def split_all(rules, counts):
    """Can every card of ``counts`` (length 53) be laid as melds (frime's going out)?
    Exact: the lowest natural card left must be in a meld; each meld holding it is tried
    (runs of 3..5 positions through it, longer when every meld needs a natural card, and
    sets with every choice of the other naturals of its rank); wilds no meld needs must be
    absorbed by the melds (sets without an upper size, runs up to their range) or form a
    meld of wilds where allowed."""
    R = np.zeros(NUM_TYPES, dtype=np.int64)
    W = 0
    left = 0
    for c in range(NUM_TYPES):
        if is_wild(rules, c):
            W += counts[c]
        else:
            R[c] = counts[c]
            left += counts[c]
    if left == 0 and W == 0:
        return False
    if left == 0:
        return _leftover_ok(rules, W, ZERO)
    return _split(rules, R, W, left)


# --------------------------------------------------------------------------- contracts (classes)
@njit(cache=True, no_cpython_wrapper=True)
def _contract_leaf(rules, N, W, D, A, win_cards, win_rank, win_kind, nwin):
    """Given the chosen melds' demands (D: specific cards, A: any card of a rank), are
    there enough cards, and can every meld get a natural card of its own?"""
    short = 0
    for c in range(NUM_FACES):
        if D[c] > N[c]:
            short += D[c] - N[c]
    for r in range(13):
        if A[r] == 0:
            continue
        left = 0
        for t in range(4):
            c = r * 4 + t
            if N[c] > D[c]:
                left += N[c] - D[c]
        if A[r] > left:
            short += A[r] - left
    if short > W:
        return False
    if rules[R_MIN_NATURAL] == 0:
        return True
    return _sdr(N, win_cards, win_rank, win_kind, nwin)


@njit(cache=True, no_cpython_wrapper=True)
def _sdr(N, win_cards, win_rank, win_kind, nwin):
    """A system of distinct representatives: each meld one natural copy it asks for
    (a 'set' row: any card of its rank; a run row: one of its cards). Odometer search."""
    choice = np.zeros(max(nwin, 1), dtype=np.int64)
    used = np.zeros(NUM_FACES, dtype=np.int64)
    while True:
        ok = True
        used[:] = 0
        for i in range(nwin):
            if win_kind[i] == KIND_SET:
                if choice[i] >= 4:
                    ok = False
                    break
                c = win_rank[i] * 4 + choice[i]
            else:
                c = win_cards[i, choice[i]] if choice[i] < NUM_POS else -1
                if c < 0:
                    ok = False
                    break
            used[c] += 1
            if used[c] > N[c]:
                ok = False
                break
        if ok:
            return True
        # next choice vector
        i = 0
        while i < nwin:
            choice[i] += 1
            limit = 4 if win_kind[i] == KIND_SET else NUM_POS
            if choice[i] < limit and (win_kind[i] == KIND_SET or win_cards[i, choice[i]] >= 0):
                break
            choice[i] = 0
            i += 1
        if i == nwin:
            return False


@njit(cache=True, no_cpython_wrapper=True)
def _contract_apply(rules, items, i, opt, D, A, win_cards, win_rank, win_kind, sign):
    """Add (sign 1) or remove (sign -1) the demands of option ``opt`` for item i; returns
    False (nothing changed) when the option does not exist."""
    kind = items[i, 0]
    size = items[i, 1]
    if kind == KIND_SET:
        r = opt
        if r >= 13 or is_wild(rules, r * 4):
            return False
        A[r] += sign * size
        win_kind[i] = KIND_SET
        win_rank[i] = r
        return True
    if rules[R_RUN_SUIT]:
        s = opt // NUM_POS
        lo = opt % NUM_POS
        hi = lo + size - 1
        if s >= 4 or hi >= NUM_POS or not run_window_ok(rules, lo, hi):
            return False
        for k in range(NUM_POS):
            win_cards[i, k] = -1
        for q in range(lo, hi + 1):
            c = card_at(s, q)
            D[c] += sign
            win_cards[i, q - lo] = c
        win_kind[i] = KIND_RUN
        return True
    # mixed suits: each position asks for any card of its rank; the natural card the
    # meld needs is one of some rank of the window (opt chooses which position)
    lo = opt // NUM_POS
    q_rep = lo + opt % NUM_POS
    hi = lo + size - 1
    if hi >= NUM_POS or q_rep > hi or not run_window_ok(rules, lo, hi):
        return False
    for q in range(lo, hi + 1):
        A[pos_rank(q)] += sign
    win_kind[i] = KIND_SET
    win_rank[i] = pos_rank(q_rep)
    return True


@njit(cache=True, no_cpython_wrapper=True)
def _contract(rules, N, W, items, nitems, D, A, win_cards, win_rank, win_kind):
    """Depth-first over one meld per contract item (explicit stack)."""
    opt = np.zeros(CONTRACT_ITEMS + 1, dtype=np.int64)
    n_opts = np.int64(NUM_POS * NUM_POS)
    d = 0
    while True:
        if d == nitems:
            if _contract_leaf(rules, N, W, D, A, win_cards, win_rank, win_kind, nitems):
                return True
            d -= 1
            if d < 0:
                return False
            _contract_apply(rules, items, d, opt[d] - 1, D, A, win_cards, win_rank, win_kind, np.int64(-1))
            continue
        pushed = False
        while opt[d] < n_opts:
            o = opt[d]
            opt[d] += 1
            if _contract_apply(rules, items, d, o, D, A, win_cards, win_rank, win_kind, ONE):
                # prune on specific shortfall
                short = 0
                for c in range(NUM_FACES):
                    if D[c] > N[c]:
                        short += D[c] - N[c]
                if short > W:
                    _contract_apply(rules, items, d, o, D, A, win_cards, win_rank, win_kind, np.int64(-1))
                    continue
                d += 1
                opt[d] = 0
                pushed = True
                break
        if pushed:
            continue
        if d == 0:
            return False
        d -= 1
        _contract_apply(rules, items, d, opt[d] - 1, D, A, win_cards, win_rank, win_kind, np.int64(-1))


@njit(cache=True)
def contract_feasible(rules, counts, items):
    """Does the hand ``counts`` hold the melds ``items`` (rows (kind, size): KIND_SET of
    size 3 or 4 = brelan/carré, KIND_RUN of size n = séquence of n), disjointly, each
    with at least the rules' natural cards? Melds of exactly the minimal sizes are
    enough (a longer one holds one of them). Runs are placed before sets, so a set asks
    only for a count of cards of its rank."""
    N = np.zeros(NUM_TYPES, dtype=np.int64)
    W = 0
    for c in range(NUM_TYPES):
        if is_wild(rules, c):
            W += counts[c]
        else:
            N[c] = counts[c]
    nitems = 0
    for i in range(items.shape[0]):
        if items[i, 1] > 0:
            nitems += 1
    # runs first
    sorted_items = np.zeros((max(nitems, 1), 2), dtype=np.int64)
    k = 0
    for pass_kind in (KIND_RUN, KIND_SET):
        for i in range(items.shape[0]):
            if items[i, 1] > 0 and items[i, 0] == pass_kind:
                sorted_items[k, 0] = items[i, 0]
                sorted_items[k, 1] = items[i, 1]
                k += 1
    D = np.zeros(NUM_FACES, dtype=np.int64)
    A = np.zeros(13, dtype=np.int64)
    win_cards = np.full((max(nitems, 1), NUM_POS), -1, dtype=np.int64)
    win_rank = np.zeros(max(nitems, 1), dtype=np.int64)
    win_kind = np.zeros(max(nitems, 1), dtype=np.int64)
    return _contract(rules, N, W, sorted_items, nitems, D, A, win_cards, win_rank, win_kind)


# --------------------------------------------------------------------------- Python helpers
def hand_counts(cards) -> np.ndarray:
    """Count vector (length 53) from card strings (``"5h 6h X"``) or ids."""
    from cardenvs.cards import parse_cards

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
