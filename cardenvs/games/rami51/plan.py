"""Rami 51's turn planner: the search behind its exact masks. (One concern, kept whole past
1,000 lines: the search and the proofs of its exactness read together.) Given the hand, the meld
being built and the table, is there a set of new melds (and lay-offs that put one given card
on the table, each on the one before) that completes the meld being built, reaches the
opening threshold with a clean run, uses a given card, and leaves at least one card in hand?

:func:`plan_feasible` with :func:`plan_windows` and :func:`plan_chains` answer it;
:func:`opening_feasible` is its plain form ("does this hand hold a >= 51 opening with a
clean run, using card X"). It runs on the meld primitives of :mod:`cardenvs.rummy.melds`.

The planner works for rule sets whose melds name every card they hold (sets of distinct
suits, same-suit runs: rami51). Its exactness rests on three facts, each checked by the
brute-force tests in ``tests/games/rami51/test_plan.py``:

1. Without a minimum of natural cards, a run of 6 or more cards splits into runs of 3 to
   5 with the same cards (same points, at least as many clean runs), so candidate runs
   have 3 to 5 cards; sets have 3 or 4.
2. For a fixed multiset of melds, the jokers needed are the shortfall of natural cards,
   whichever meld gets them; taking naturals first, meld by meld, is exact for the card
   counts. Points differ only for an ace (1 low in a run, 11 elsewhere): when a meld wants
   an 11-point ace and none is left while an earlier meld holds a natural low ace, the
   two swap (the joker goes to the low ace).
3. The clean run is chosen first and takes natural cards only.
4. The given card X reaches a meld laid this turn by a chain of lay-offs (after the
   opening): on a candidate meld other than the clean run, the meld and the chain are one
   longer meld (a candidate, or split as in 1), more points if anything; on the clean run,
   a chain of naturals makes a longer clean run, so only a chain with a wild is searched
   apart (:func:`_bridged`); the meld being built grows upwards only, so the chains below
   it, and X in a set's suit it passed, are rows of their own (:func:`_host_chains`).
   Chains are taken last, after every meld has taken its naturals (a natural in a chain
   scores nothing).
"""


from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.bits import bits_of, low_index, popcount
from cardenvs.core.borrow import keep_alive
from cardenvs.rummy.melds import (
    ACE_HIGH,
    ACE_LOW,
    FALSE,
    JOKER,
    KIND_RUN,
    KIND_SET,
    NIBBLE_LOW,
    NUM_FACES,
    NUM_POS,
    NUM_TYPES,
    ONE,
    R_MIN_NATURAL,
    R_POS_HI,
    R_POS_LO,
    R_RUN_MIN,
    R_SET_DISTINCT,
    R_SET_MAX,
    R_SET_MIN,
    R_TWOS_WILD,
    TRUE,
    ZERO,
    card_at,
    is_wild,
    pos_rank,
    run_window_ok,
    suit_positions,
    with_high_aces,
)


# --------------------------------------------------------------------------- Rami 51 values
@njit(cache=True, no_cfunc_wrapper=True)
def rank_value(rank):
    """Rami value of a rank in a set (and in hand): ace 11, 2-10 face value, J Q K 10."""
    if rank == 0:
        return 11
    return min(rank + 1, 10)


@njit(cache=True, no_cfunc_wrapper=True)
def run_value(pos):
    """Rami value of a card at a run position: ace 1 low, 11 high."""
    if pos == ACE_LOW:
        return 1
    return rank_value(pos_rank(pos))


@njit(cache=True, no_cfunc_wrapper=True)
def rami_penalty(c):
    """Points of a card left in hand in rami51: joker 20, ace 11, faces 10, 2-10 face value."""
    if c == JOKER:
        return 20
    return rank_value(c // 4)


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
MAX_WINDOWS = 512  # candidates and chains onto table melds
HOST_ROWS = 4  # rows past them: chains onto melds laid this turn (see _host_chains)
ROW_B = MAX_WINDOWS + HOST_ROWS + 1  # a scratch row past those: the completion of the meld being built
NUM_ROWS = ROW_B + 2
# MAX_WINDOWS as an argument: a plain int constant would reach the callee as a literal type
# and compile a second copy of it (and of what it calls) beside the int64 one
CAP = np.int64(MAX_WINDOWS)

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
B_SUITS = 9  # one card or a set: the suits placed (bit t: suit t)
B_FIELDS = 10
BK_EMPTY = 0  # no meld in progress (or one just started, no card yet)
BK_ONE = 1
BK_SET = 2
BK_RUN = 3


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def clean_all_natural(cw, k, L, N):
    """Every position of row k is a natural card present in the hand (none needs a wild)."""
    for i in range(L):
        c = cw[k, CW_CARD + i]
        if c < 0 or N[c] == 0:
            return False
    return True


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
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


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
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
        ("cw", np.int16, (NUM_ROWS, CW_FIELDS)),
        ("tmp", np.int16, (NUM_ROWS, CW_FIELDS)),
        ("order", np.int64, (NUM_ROWS,)),
        ("bound", np.int64, (NUM_ROWS,)),
        ("stack", np.int64, (8, MAX_DEPTH)),
        ("undo", np.int64, (MAX_DEPTH + 2, NUM_POS)),
        ("low_ace", np.int64, (4,)),
        ("scratch", np.int64, (SCRATCH,)),
        ("bound0", np.int64, (NUM_ROWS,)),
        ("row_bits", np.int64, (NUM_ROWS,)),  # see plan_windows
    ]
)


@njit(cache=True, no_cfunc_wrapper=True)
def new_plan_buffers():
    """The planner's work arrays, allocated once and reused: a one-record array of
    PLAN_DTYPE (cw, tmp, order, bound, stack, undo, low_ace, scratch, bound0, row_bits).
    The planner takes its record ``bufs[0]``; the caller keeps ``bufs`` alive while the
    record is used (``core.borrow.keep_alive``)."""
    bufs = np.empty(1, dtype=PLAN_DTYPE)
    clear_plan_buffers(bufs[0])
    return bufs


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def clear_plan_buffers(pb):
    """Zero what the planner reads before writing: the aces' counts and the scratch (its
    flags). The rest is left as allocated: the search rows and stacks; ``bound`` and
    ``bound0``, which :func:`plan_windows` and the chains write for every row they make
    before any search reads them; and ``row_bits``, which :func:`plan_windows` writes for
    its rows (chain rows get none: :func:`_root_bound` reads it for runs and sets only).
    A batch's games share one workspace, so no reader may count on zeros there anyway.
    Clearing those 12 KB was most of the cost of the workspace that every AEC step makes."""
    pb.low_ace[:] = 0
    pb.scratch[:] = 0


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
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


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
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
                _window_row(tmp, K, np.int64(tmp[k, CW_KIND]), np.int64(L), N, X)
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


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def plan_chains(rules, N, W, X, table_kind, table_key, table_lo, table_hi, table_slots, num_melds, pb, K,
                own_run):
    """Append to ``cw`` (from row K) the lay-off chains that would put card X on a table
    meld: the cards from the meld's end up to X's position (naturals or wilds), or X alone
    on a set missing its suit. ``own_run``: X is a joker and the plan's clean run, laid
    this turn, will take it as a lay-off (the caller checked that it can): a joker row
    even without a table meld for it. Chains score no points (their ``bound`` is 0).
    Chains onto the melds of this turn are :func:`plan_feasible`'s (see _host_chains).
    Returns the new row count."""
    cw, bound, bound0 = pb[0], pb[3], pb[8]
    K0 = K
    K = _chains(rules, N, W, X, table_kind, table_key, table_lo, table_hi, table_slots, num_melds, cw, K, own_run)
    for j in range(K0, K + 1):
        bound[j] = 0
        bound0[j] = 0
    return K


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _chains(rules, N, W, X, table_kind, table_key, table_lo, table_hi, table_slots, num_melds, cw, K, own_run):
    if X == JOKER:
        # a joker laid off anywhere a card can go: one row is enough (they are all alike)
        if W == 0 or K >= MAX_WINDOWS:
            return K
        if own_run:  # a free end of the clean run of this turn's opening (see the caller)
            return _joker_row(N, X, cw, K)
        for m in range(num_melds):
            K1 = K
            if table_kind[m] == KIND_SET:
                K1 = _set_chain(rules, N, W, X, np.int64(table_key[m]), _table_suits(table_slots, m), cw, K,
                                CAP)
            elif table_kind[m] == KIND_RUN:
                K1 = _run_chains(rules, N, W, X, np.int64(table_key[m]), np.int64(table_lo[m]),
                                 np.int64(table_hi[m]), cw, K, CAP)
            if K1 > K:
                return K1
        return K
    if X < 0 or X >= NUM_FACES or N[X] == 0:
        return K
    for m in range(num_melds):
        if table_kind[m] == KIND_SET:
            K = _set_chain(rules, N, W, X, np.int64(table_key[m]), _table_suits(table_slots, m), cw, K, CAP)
        elif table_kind[m] == KIND_RUN:
            K = _run_chains(rules, N, W, X, np.int64(table_key[m]), np.int64(table_lo[m]), np.int64(table_hi[m]),
                            cw, K, CAP)
    return K


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _table_suits(table_slots, m):
    """The suits of table set m (bit t: suit t)."""
    occ = ZERO
    for t in range(4):
        if table_slots[m, t] >= 0:
            occ |= ONE << np.int64(t)
    return occ


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _joker_row(N, X, cw, K):
    """A chain row of one wild: the joker X laid off (wherever a card can go)."""
    cw[K, CW_CARD] = -1
    cw[K, CW_VAL] = 0
    _window_row(cw, K, np.int64(CW_CHAIN), ONE, N, X)
    cw[K, CW_CLEAN] = 0
    cw[K, CW_XIN] = 1
    return K + 1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _set_chain(rules, N, W, X, rank, occ, cw, K, cap):
    """The chain row that lays X off on a set of ``rank`` holding the suits ``occ``: X
    alone, where its suit is free (X a joker: where any suit is). Rows up to ``cap``."""
    size = POP14[occ]
    if K >= cap:
        return K
    if X == JOKER:
        ok = size < 4 if rules[R_SET_DISTINCT] else (rules[R_SET_MAX] == 0 or size < rules[R_SET_MAX])
        if W == 0 or not ok:
            return K
        return _joker_row(N, X, cw, K)
    if X // 4 != rank:
        return K
    if (rules[R_SET_MAX] > 0 and size >= rules[R_SET_MAX]) or (rules[R_SET_DISTINCT] and (occ >> (X % 4)) & 1):
        return K
    cw[K, CW_CARD] = X
    cw[K, CW_VAL] = 0
    _window_row(cw, K, np.int64(CW_CHAIN), ONE, N, X)
    cw[K, CW_CLEAN] = 0
    return K + 1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _run_chains(rules, N, W, X, suit, lo, hi, cw, K, cap):
    """The chain rows that lay X off on a run of ``suit`` over positions lo..hi: the cards
    from the run's end up to X's position, each laid off on the one before (naturals, or
    wilds standing for them; at most W wilds missing); an ace may go at either end. X a
    joker: one row when the run has a free end. Rows up to ``cap``."""
    if X == JOKER:
        if W == 0 or K >= cap:
            return K
        if (lo > 0 and run_window_ok(rules, lo - 1, hi)) or (hi < NUM_POS - 1 and run_window_ok(rules, lo, hi + 1)):
            return _joker_row(N, X, cw, K)
        return K
    if X % 4 != suit:
        return K
    xr = X // 4
    for xp in (xr if xr > 0 else ACE_LOW, xr if xr > 0 else ACE_HIGH):
        if xp > hi:
            a, b = hi + 1, xp
            nlo, nhi = lo, xp
        elif xp < lo:
            a, b = xp, lo - 1
            nlo, nhi = xp, hi
        else:
            continue
        if not run_window_ok(rules, nlo, nhi) or K >= cap:
            continue
        L = b - a + 1
        nat = 0
        for i in range(L):
            c = card_at(suit, a + i)
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


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _host_chains(rules, N, W, X, binfo, cw, brow, kind, pb, K):
    """Append (from row K) the chains that lay X off on the meld being built once it is
    completed by row ``brow`` as a meld of ``kind`` and laid: below its first card (the
    meld is built upwards from it), above its last, on a set the suits it lacks. Chains
    score nothing (``bound`` 0). Returns the new row count."""
    bound, bound0 = pb[3], pb[8]
    K0 = K
    cap = np.int64(MAX_WINDOWS + HOST_ROWS)
    L = cw[brow, CW_LEN]
    if kind == KIND_RUN:
        K = _run_chains(rules, N, W, X, binfo[B_SUIT], binfo[B_LO], binfo[B_HI] + L, cw, K, cap)
    else:
        occ = binfo[B_SUITS]
        for i in range(L):
            occ |= ONE << np.int64(cw[brow, CW_CARD + i] % 4)
        K = _set_chain(rules, N, W, X, binfo[B_RANK], occ, cw, K, cap)
    for j in range(K0, K):
        bound[j] = 0
        bound0[j] = 0
    return K


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _bridged(rules, pb, K, N, W, budget, pts, srem, need_pts, X, xbase, min_win, nwin, brow, bL):
    """Plans whose clean run (a candidate, laid all natural) takes the card X (a natural of
    its suit) by a chain of lay-offs, laid once the opening is made: the cards from the
    run's end up to X, a wild standing for some (a chain of naturals makes the run and
    the chain one longer clean run, which the other searches find). ``brow`` (when >= 0):
    the completion of the meld being built, ``bL`` cards, taken too. No bans (CW_BAN):
    they hold for plans without such a chain only. Rows K.. are the chain's."""
    cw, bound, bound0, undo, low_ace, scratch = pb[0], pb[3], pb[8], pb[5], pb[6], pb[7]
    u0 = scratch[SC_U0]
    xs = X % 4
    cap = np.int64(MAX_WINDOWS + HOST_ROWS)
    depth = ONE if brow < 0 else np.int64(2)
    for i in range(K):
        if cw[i, CW_KIND] != KIND_RUN or not cw[i, CW_CLEAN]:
            continue
        c0 = np.int64(cw[i, CW_CARD])
        L = np.int64(cw[i, CW_LEN])
        if c0 % 4 != xs or L + bL > budget:
            continue
        lo = c0 // 4  # a run starts at its low ace, never at a high one
        Ke = _run_chains(rules, N, W, X, xs, lo, lo + L - 1, cw, K, cap)
        if Ke == K:
            continue
        for j in range(K, Ke):
            bound[j] = 0
            bound0[j] = 0
        for j in range(Ke):
            cw[j, CW_BAN] = 0
        cw[ROW_B, CW_BAN] = 0
        used0, g0, d0 = _take(cw, i, N, ZERO, low_ace, TRUE, FALSE, undo[0], u0)
        if used0 < 0:
            continue
        ok = False
        if brow < 0:
            ok = _dfs(pb, Ke, ZERO, N, W, budget - L, pts + g0, srem - d0, need_pts, X, xbase, TRUE, min_win, nwin,
                      Ke - 1, depth)
        else:
            used, g1, d1 = _take(cw, brow, N, W, low_ace, FALSE, FALSE, undo[1], u0)
            if used >= 0:
                ok = _dfs(pb, Ke, ZERO, N, W - used, budget - L - bL, pts + g0 + g1, srem - d0 - d1, need_pts, X,
                          xbase, TRUE, min_win, nwin, Ke - 1, depth)
                _untake(cw, brow, bL, N, low_ace, undo[1])
        if ok and scratch[SC_WIT_ON]:
            _record_row(cw, i, undo[0], scratch)
        _untake(cw, i, L, N, low_ace, undo[0])
        if ok:
            return True
    return False


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def _take(cw, j, N, W, low_ace, clean_only, swap_ok, undo, u0):
    """Take the cards of candidate j from the hand, naturals first, wilds for the rest.
    Returns (wilds used, points gained, drop of the points potential ``srem``), or
    (-1, 0, 0) when it cannot (then nothing changed). ``undo[i]``: 0 natural, 1 wild,
    2 wild by an ace swap, 3 natural low ace (swappable). The potential counts each
    natural of ``u0`` (the cards candidates hold) at its best value, plus 10 for each
    swappable low ace laid."""
    L = cw[j, CW_LEN]
    # int64 from the start: a literal 0 would reach the caller's calls as a literal type
    # first, and numba would compile a second copy of the callee for it
    used = ZERO
    pts = ZERO
    drop = ZERO
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
            return -ONE, ZERO, ZERO
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
        return -ONE, ZERO, ZERO
    return used, pts, drop


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
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


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
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


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _swapped(cw, j, undo_row):
    """Did taking candidate j swap an ace with an earlier low ace (which then turns wild)?"""
    for i in range(cw[j, CW_LEN]):
        if undo_row[i] == 2:
            return True
    return False


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
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


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
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


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
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


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
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


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def points_potential(N, u0):
    """Points of the naturals of N among the cards ``u0`` (a bit mask), each at its best value."""
    srem = ZERO
    bits = u0 & ((ONE << np.int64(NUM_FACES)) - ONE)
    while bits:
        c = low_index(bits)
        bits &= bits - ONE
        srem += CARD_VALUE[c] * np.int64(N[c])
    return srem


# Hands as card bits (``natural_bits``; the layout, NIBBLE_LOW and with_high_aces: rummy/melds.py).
FACE_BITS = np.int64((1 << NUM_FACES) - 1)
RUN_START_BITS = np.int64((1 << 48) - 1)  # 3-card windows start at positions 0..11


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def natural_bits(N):
    """Card bits of the naturals held in N (jokers not included)."""
    return bits_of(N, 0, NUM_FACES)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
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


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def ranks_with_suits(h, k):
    """Card bits of every card of the ranks of which h holds at least k suits (1 <= k <= 4)."""
    x = h - ((h >> ONE) & np.int64(0x5555555555555))
    x = (x & np.int64(0x3333333333333)) + ((x >> np.int64(2)) & np.int64(0x3333333333333))  # suits per rank
    ge = ((x + (8 - k) * NIBBLE_LOW) >> np.int64(3)) & NIBBLE_LOW
    return ge * np.int64(15)


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
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


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def reset_bans(cw, K):
    for j in range(K):
        cw[j, CW_BAN] = 0


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
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


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def plan_feasible(rules, N, W, budget, need_pts, need_clean, X, need_x, min_win, binfo, pb, K, last_x, srem_in=-1):
    """The turn planner. Is there a way to finish the turn: complete the meld being built
    (``binfo``, may be empty), lay further melds from the candidates ``cw[:K]`` of the
    workspace ``pb`` (from :func:`plan_windows`, chains from :func:`plan_chains` after
    them), so that

    - their points (the meld being built included) reach ``need_pts``,
    - one of them is a clean run (a run of natural cards only) when ``need_clean``,
    - the card X (a natural, or a joker when X is 52) is among the cards laid when ``need_x``,
      in a meld or by lay-offs once the opening is made: a chain of them onto a table meld
      (the rows of :func:`plan_chains`), onto the meld being built (:func:`_host_chains`) or
      onto the clean run (:func:`_bridged`); on another meld of the turn the chain and the
      meld are one longer meld, a candidate or split into candidates (fact 1),
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
    brow = np.int64(ROW_B)  # a scratch row past the candidates
    bk = binfo[B_KIND]
    # the taken card may reach the clean run by lay-offs, a wild among them
    bridge = need_x and need_clean and X >= 0 and X != JOKER and W > 0
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
        return bridge and _bridged(rules, pb, K, N, W, budget, ZERO, srem, need_pts, X, xbase, min_win, ONE,
                                   np.int64(-1), ZERO)
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
        Kh = K  # with the chains onto this meld once laid
        lx = last_x
        if need_x:
            Kh = _host_chains(rules, N, W, X, binfo, cw, brow, kind, pb, K)
            if Kh > K:
                lx = Kh - 1
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
            ok = _complete_and_rest(rules, N, W, budget, need_pts, need_clean, X, xbase, need_x, binfo, pb, Kh, lx,
                                    brow, kind, L, base, v < 0, srem, bridge)
            if v >= 0:
                cw[brow, CW_CARD + v] = c
                cw[brow, CW_VAL + v] = keep_val
            if ok:
                return True
    return False


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _complete_and_rest(rules, N, W, budget, need_pts, need_clean, X, xbase, need_x, binfo, pb, K, last_x,
                       brow, kind, L, base, may_be_clean, srem, bridge):
    """Take the completion in row ``brow``, then search the rest of the turn. Bans (see
    CW_BAN) hold within this call only. ``bridge``: also the plans of :func:`_bridged`."""
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
        if ok:
            return True
        # (d) a clean run that takes X by lay-offs through a wild (see _bridged; no bans)
        return bridge and _bridged(rules, pb, K, N, W, budget, base, srem, need_pts, X, xbase, ZERO, np.int64(2),
                                   brow, np.int64(L))  # int64 as the other call's: one compiled _bridged
    # (c) the completion, then the rest
    used, gained, drop = _take(cw, brow, N, W, low_ace, FALSE, FALSE, undo[0], u0)
    if used < 0:
        return False
    ok = _dfs(pb, K, ZERO, N, W - used, budget - L, base + gained, srem - drop, need_pts, X, xbase, need_x, ZERO, ONE,
              last_x, ONE)
    _untake(cw, brow, L, N, low_ace, undo[0])
    return ok


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def last_x_row(cw, K):
    last = -1
    for j in range(K):
        if cw[j, CW_XIN]:
            last = j
    return last


@njit(cache=True, no_cfunc_wrapper=True)
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


