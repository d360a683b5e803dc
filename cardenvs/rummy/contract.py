"""Does a hand hold a contract ("a séquence of 5 and a carré", Classes)? Contracts as
data and an exact search over one meld per contract item.

The search also answers the question a game asks while a contract (or any meld) is
being built card by card: with the cards still in hand, can the meld in progress be
finished *and* the contract's remaining melds be laid? The game loads what the meld in
progress still needs as demands (``D``: specific cards, ``A``: any card of a rank) and,
if it holds no natural card yet, one row of the natural cards it could get
(``win_mask``); :func:`contract_search` then places the remaining items.

Why it is exact: a meld of n or more cards holds one of exactly n cards (drop cards from
an end, keeping a natural one), so the items are searched at their minimal sizes. For a
choice of one window per item, the hand's natural cards are matched to the demands
(specific cards first, then any card of a rank from what is left: no other order
matches more) and the wild cards fill the rest; each meld must also get a natural card
of its own, a system of distinct representatives, which Hall's condition over the at
most four melds decides. Both hold together (a transversal matroid: the representatives
extend to a largest matching).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.bits import low_index, popcount
from cardenvs.rummy.melds import (
    ACE_HIGH,
    KIND_RUN,
    KIND_SET,
    NUM_FACES,
    NUM_POS,
    NUM_TYPES,
    ONE,
    R_MIN_NATURAL,
    R_RUN_SUIT,
    ZERO,
    card_at,
    is_wild,
    pos_rank,
    run_window_ok,
)

# Classes contracts: rows of (kind, size); kind KIND_SET with size 3 (brelan, 3+ of a
# rank) or 4 (carré, 4+), KIND_RUN with size n (séquence of n+). The order of the rows
# is the order the melds are laid in.
CONTRACT_ITEMS = 3
MAX_WIN = CONTRACT_ITEMS + 1  # the contract's melds and a meld in progress
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
N_OPTIONS = 4 * NUM_POS  # an item's windows: a set's rank, a run's (suit, lowest position)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def shortfall(N, D, A, R):
    """Cards the naturals N cannot give to the demands: the wild cards must cover it.
    D: specific cards; A: any card of a rank; R = (rank, lowest suit, count): cards of
    one rank from a suit up (a set being built by its naturals in suit order; rank -1:
    none). Served in that order from what is left, which matches the most cards (each
    later demand accepts every card an earlier one could take)."""
    short = ZERO
    for c in range(NUM_FACES):
        if D[c] > N[c]:
            short += D[c] - N[c]
    for r in range(13):
        restricted = R[2] if r == R[0] else ZERO
        if A[r] == 0 and restricted == 0:
            continue
        left = ZERO
        for t in range(4):
            c = r * 4 + t
            if N[c] > D[c]:
                left += N[c] - D[c]
                if restricted > 0 and t >= R[1]:
                    served = min(restricted, N[c] - D[c])
                    restricted -= served
                    left -= served
        short += restricted
        if A[r] > left:
            short += A[r] - left
    return short


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def naturals_distinct(N, win_mask, nwin):
    """Hall's condition: every group of melds (rows of ``win_mask``: bit c set when the
    natural card c would serve) has at least as many natural cards as melds."""
    for S in range(1, 1 << nwin):
        u = ZERO
        k = 0
        for i in range(nwin):
            if (S >> i) & 1:
                u |= win_mask[i]
                k += 1
        total = 0
        for c in range(NUM_FACES):
            if (u >> np.int64(c)) & ONE:
                total += N[c]
                if total >= k:
                    break
        if total < k:
            return False
    return True


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def run_cards_mask(rules, suit, lo, hi):
    """Bit mask of the natural cards at run positions lo..hi (suit -1: every suit)."""
    m = ZERO
    for q in range(lo, hi + 1):
        for t in range(4):
            if suit < 0 or t == suit:
                m |= ONE << np.int64(card_at(t, q))
    return m


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _apply(rules, kind, size, opt, D, A, win_mask, w, sign, used, distinct_ranks):
    """Add (sign 1) or remove (sign -1) the demands of window ``opt`` of an item; returns
    False (nothing changed) when the window does not exist."""
    if kind == KIND_SET:
        r = opt
        if r >= 13 or is_wild(rules, r * 4):
            return False
        bit = ONE << np.int64(r)
        if sign > 0:
            if distinct_ranks and used[0] & bit:
                return False
            used[0] |= bit
            win_mask[w] = np.int64(15) << np.int64(r * 4)
        elif distinct_ranks:
            used[0] &= ~bit
        A[r] += sign * size
        return True
    suit = opt // NUM_POS
    lo = opt % NUM_POS
    hi = lo + size - 1
    if hi >= NUM_POS or not run_window_ok(rules, lo, hi):
        return False
    if rules[R_RUN_SUIT]:
        for q in range(lo, hi + 1):
            D[card_at(suit, q)] += sign
        if sign > 0:
            win_mask[w] = run_cards_mask(rules, suit, lo, hi)
        return True
    if suit > 0:
        return False  # mixed suits: one window per lowest position
    for q in range(lo, hi + 1):
        A[pos_rank(q)] += sign
    if sign > 0:
        win_mask[w] = run_cards_mask(rules, np.int64(-1), lo, hi)
    return True


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _candidates(rules, kind, size, N, W, D):
    """The windows of an item worth trying, as a bit set over its options (N_OPTIONS =
    56 bits), before their demands are added: a quick necessary condition, that the cards
    not yet demanded give the window a natural card and cover it with the wild cards. Most
    windows fail it (a random hand holds few melds). One pass for all of an item's
    windows: a run's from each suit's positions still at hand (a bit mask), a set's from
    each rank's cards."""
    out = ZERO
    if kind == KIND_SET:
        for r in range(13):
            if is_wild(rules, r * 4):
                continue
            have = ZERO
            for t in range(4):
                c = r * 4 + t
                if N[c] > D[c]:
                    have += N[c] - D[c]
            if have >= 1 and have + W >= size:
                out |= ONE << np.int64(r)
        return out
    one_suit = rules[R_RUN_SUIT] != 0
    need_nat = rules[R_MIN_NATURAL] != 0
    # each suit's positions whose natural card is still at hand (an ace at 0 and 13), in
    # one pass over the cards, 14 bits a suit
    free = ZERO
    for c in range(NUM_FACES):
        if N[c] > D[c]:
            r = c // 4
            bits = (ONE | (ONE << np.int64(ACE_HIGH))) if r == 0 else (ONE << np.int64(r))
            free |= bits << np.int64((c % 4) * 16)
    if not one_suit:  # mixed suits: one window per lowest position, from any suit's cards
        free = (free | (free >> np.int64(16)) | (free >> np.int64(32)) | (free >> np.int64(48))) & np.int64(0xFFFF)
    span = (ONE << size) - ONE
    for suit in range(4 if one_suit else 1):
        f = (free >> np.int64(suit * 16)) & np.int64(0xFFFF)
        for lo in range(NUM_POS - size + 1):
            missing = size - popcount(f & (span << np.int64(lo)))
            if missing <= W and (missing < size or not need_nat):
                out |= ONE << np.int64(suit * NUM_POS + lo)
    return out


_NO_DEMANDS = np.zeros(NUM_FACES, dtype=np.int64)  # read only: a constant of the kernels


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def meld_within_reach(rules, kind, size, N, W):
    """May the naturals N (the wild cards among them are not counted) and ``W`` wild
    cards hold one meld of ``kind`` and ``size``? The search's own first test
    (:func:`_candidates`, nothing demanded yet), for a game to ask before setting up a
    search that would fail at once."""
    return _candidates(rules, kind, size, N, W, _NO_DEMANDS) != 0


STACK_SIZE = 3 * (CONTRACT_ITEMS + 1)  # contract_search's stack: int64 scratch of at least this length


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def contract_search(rules, N, W, items, nitems, D, A, R, win_mask, nwin0, used, distinct_ranks, stack):
    """Can the natural cards N and ``W`` wild cards give, besides the demands already in
    D, A and R (see :func:`shortfall`; and the ``nwin0`` natural rows already in
    ``win_mask``), one meld for each of
    the first ``nitems`` rows of ``items``? ``used[0]``: ranks of sets already taken
    (with ``distinct_ranks`` a contract's sets have different ranks). D, A, win_mask and
    used are scratch (restored on return), and ``stack`` (STACK_SIZE int64: the caller's,
    so that the search allocates nothing). Depth-first with an explicit stack; identical
    consecutive items take their windows in increasing order."""
    if shortfall(N, D, A, R) > W:
        return False
    need_nat = rules[R_MIN_NATURAL] > 0
    if nitems == 0:
        return not need_nat or naturals_distinct(N, win_mask, nwin0)
    # per depth: the next option to try, the window applied, the windows possible (the
    # bit set of _candidates: one pass per depth instead of a call per option)
    K = CONTRACT_ITEMS + 1
    opt = stack[0:K]
    applied = stack[K:2 * K]
    cand = stack[2 * K:3 * K]
    opt[0] = 0
    cand[0] = _candidates(rules, items[0, 0], items[0, 1], N, W, D)
    d = 0
    while True:
        if d == nitems:
            if not need_nat or naturals_distinct(N, win_mask, nwin0 + nitems):
                found = True
            else:
                found = False
            if found:
                for k in range(nitems):  # restore the scratch
                    _apply(rules, items[k, 0], items[k, 1], applied[k], D, A, win_mask, nwin0 + k, -ONE, used,
                           distinct_ranks)
                return True
            d -= 1
            _apply(rules, items[d, 0], items[d, 1], applied[d], D, A, win_mask, nwin0 + d, -ONE, used,
                   distinct_ranks)
            continue
        pushed = False
        while True:
            left = cand[d] & ~((ONE << opt[d]) - ONE)  # the windows possible from opt[d] on
            if left == 0:
                break
            o = low_index(left)
            opt[d] = o + 1
            if not _apply(rules, items[d, 0], items[d, 1], o, D, A, win_mask, nwin0 + d, ONE, used, distinct_ranks):
                continue
            if shortfall(N, D, A, R) > W:
                _apply(rules, items[d, 0], items[d, 1], o, D, A, win_mask, nwin0 + d, -ONE, used, distinct_ranks)
                continue
            applied[d] = o
            d += 1
            if d < nitems:
                same = items[d, 0] == items[d - 1, 0] and items[d, 1] == items[d - 1, 1]
                opt[d] = o if same else 0
                cand[d] = _candidates(rules, items[d, 0], items[d, 1], N, W, D)
            pushed = True
            break
        if pushed:
            continue
        if d == 0:
            return False
        d -= 1
        _apply(rules, items[d, 0], items[d, 1], applied[d], D, A, win_mask, nwin0 + d, -ONE, used, distinct_ranks)


@njit(cache=True, no_cfunc_wrapper=True)
def contract_feasible(rules, counts, items, distinct_ranks):
    """Does the hand ``counts`` (length 53) hold the melds ``items`` (rows (kind, size):
    KIND_SET of size 3 or 4 = brelan/carré, KIND_RUN of size n = séquence of n; rows of
    size 0 are ignored), disjointly, each with the rules' natural cards? With
    ``distinct_ranks`` its sets have different ranks."""
    N = np.zeros(NUM_TYPES, dtype=np.int64)
    W = ZERO
    for c in range(NUM_TYPES):
        if is_wild(rules, c):
            W += counts[c]
        else:
            N[c] = counts[c]
    rows = np.zeros((CONTRACT_ITEMS, 2), dtype=np.int64)
    n = ZERO  # int64 from the start, and ZERO below: no literal-typed copy of the search
    for kind in (KIND_RUN, KIND_SET):  # runs first: their specific demands prune sooner
        for i in range(items.shape[0]):
            if items[i, 1] > 0 and items[i, 0] == kind:
                rows[n, 0] = items[i, 0]
                rows[n, 1] = items[i, 1]
                n += 1
    D = np.zeros(NUM_FACES, dtype=np.int64)
    A = np.zeros(13, dtype=np.int64)
    win_mask = np.zeros(MAX_WIN, dtype=np.int64)
    R = np.array([-1, 0, 0], dtype=np.int64)
    used = np.zeros(1, dtype=np.int64)
    stack = np.zeros(STACK_SIZE, dtype=np.int64)
    return contract_search(rules, N, W, rows, n, D, A, R, win_mask, ZERO, used, distinct_ranks, stack)
