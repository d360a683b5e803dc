"""Does a hand hold a contract ("a séquence of 5 and a carré", classes)? Contracts as data
and an exact search over one meld per contract item."""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.rummy.melds import (
    KIND_RUN,
    KIND_SET,
    NUM_FACES,
    NUM_POS,
    NUM_TYPES,
    ONE,
    R_MIN_NATURAL,
    R_RUN_SUIT,
    card_at,
    is_wild,
    pos_rank,
    run_window_ok,
)

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


