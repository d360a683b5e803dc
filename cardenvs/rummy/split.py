"""Can a whole hand be laid as melds? (frime's going out): an exact depth-first search
over the melds holding the lowest natural card left."""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.bits import popcount
from cardenvs.rummy.melds import (
    ACE_HIGH,
    ACE_LOW,
    NIBBLE_LOW,
    NUM_FACES,
    NUM_POS,
    NUM_TYPES,
    ONE,
    R_MIN_NATURAL,
    R_POS_HI,
    R_POS_LO,
    R_RUN_MIN,
    R_RUN_SUIT,
    R_SET_DISTINCT,
    R_SET_MAX,
    R_SET_MIN,
    R_TWOS_WILD,
    ZERO,
    card_at,
    is_wild,
    pos_rank,
    run_window_ok,
    with_high_aces,
)


# --------------------------------------------------------------------------- full split (frime)
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
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


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
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


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def viable(rules, R, W):
    """A cheap necessary condition at a node of the search: every natural card left has a
    meld it could still be in, a set (its rank's naturals, or distinct suits, and the
    wilds reach the smallest set) or a run (a shortest window through one of its
    positions, with no more missing cards than wilds). A node that fails it is a dead
    end, whatever the search would try below it. Wild cards in R are skipped (a game may
    pass a whole hand)."""
    if W + 1 >= rules[R_SET_MIN]:
        return True  # every card makes a set with the wilds
    run_min = rules[R_RUN_MIN]
    for c in range(NUM_FACES):
        if R[c] == 0 or is_wild(rules, c):
            continue
        r = c // 4
        t = c % 4
        k = 0
        for u in range(4):
            if R[r * 4 + u] > 0:
                k += 1 if rules[R_SET_DISTINCT] else R[r * 4 + u]
        if k + W >= rules[R_SET_MIN]:
            continue
        ok = False
        for p in (r if r > 0 else ACE_LOW, r if r > 0 else ACE_HIGH):
            if ok or p < rules[R_POS_LO] or p > rules[R_POS_HI]:
                continue
            for lo in range(max(rules[R_POS_LO], p - run_min + 1), min(p, rules[R_POS_HI] - run_min + 1) + 1):
                if not run_window_ok(rules, lo, lo + run_min - 1):
                    continue
                miss = 0
                for q in range(lo, lo + run_min):
                    if q == p:
                        continue
                    if rules[R_RUN_SUIT]:
                        have = R[card_at(t, q)] > 0
                    else:
                        have = False
                        for u in range(4):
                            if R[card_at(u, q)] > 0:
                                have = True
                    if not have:
                        miss += 1
                if miss <= W:
                    ok = True
                    break
        if not ok:
            return False
    return True


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def wild_lines_ok(rules, R, W):
    """A necessary condition for laying the naturals R (wilds skipped) with ``W`` wilds that
    complements :func:`viable` (which looks at each card alone, and says yes to every card
    once the wilds complete a set): the naturals that no meld without a wild could hold
    (fewer of their rank, or of its suits where a set's suits differ, than a set; no full
    run window of their suit through them) must each be in a meld with a wild, and melds
    do not share wilds. Such a set holds one rank and lacks at least what the rank's
    naturals leave short of a set; such a run holds one suit and takes at least one wild.
    So, for some choice of the suits whose cards go into runs, one wild per suit plus what
    the sets of the other cards' ranks lack is at most ``W``. True when runs may mix suits
    (the bound does not hold there). On card bits (bit 4 r + t; a shift by 4 is the next
    rank of the same suit)."""
    if not rules[R_RUN_SUIT]:
        return True
    set_min = np.int64(rules[R_SET_MIN])
    held = ZERO  # the naturals held, as card bits
    short = ZERO  # the card bits of the ranks whose set lacks cards
    lack1 = ZERO  # bit 4 r: rank r's set lacks at least 1 card; lack2, lack3: at least 2, 3
    lack2 = ZERO
    lack3 = ZERO
    for r in range(13):
        if r == 1 and rules[R_TWOS_WILD]:
            continue  # the 2s are wild
        a0 = np.int64(R[4 * r])
        a1 = np.int64(R[4 * r + 1])
        a2 = np.int64(R[4 * r + 2])
        a3 = np.int64(R[4 * r + 3])
        suits = np.int64(a0 > 0) | (np.int64(a1 > 0) << ONE) | (np.int64(a2 > 0) << np.int64(2)) | (
            np.int64(a3 > 0) << np.int64(3))
        held |= suits << np.int64(4 * r)
        k = popcount(suits) if rules[R_SET_DISTINCT] else a0 + a1 + a2 + a3
        b = ONE << np.int64(4 * r)
        if k < set_min:
            short |= np.int64(15) * b
            lack1 |= b
        if k < set_min - 1:
            lack2 |= b
        if k < set_min - 2:
            lack3 |= b  # (what a set lacks beyond 3 is not counted: a lower bound still)
    # the run positions: rank r at position r, the ace also at position 13 (bits 52..55)
    lo = np.int64(rules[R_POS_LO])
    hi = np.int64(rules[R_POS_HI])
    pos = with_high_aces(held)
    pos &= ((ONE << np.int64(4 * hi + 4)) - ONE) & ~((ONE << np.int64(4 * lo)) - ONE)
    run_min = np.int64(rules[R_RUN_MIN])
    starts = pos  # bit 4 p + t: positions p .. p + run_min - 1 of suit t all held
    for i in range(1, run_min):
        starts &= pos >> np.int64(4 * i)
    if lo == ACE_LOW and run_min >= NUM_POS:
        starts &= ~np.int64(15)  # a window over both aces is no run
    covered = ZERO
    for i in range(run_min):
        covered |= starts << np.int64(4 * i)
    covered |= (covered >> np.int64(4 * ACE_HIGH)) & np.int64(15)  # the ace, high or low
    need = held & short & ~covered
    if need == 0:
        return True
    for runs in range(16):  # the suits whose cards go into runs
        cost = ZERO
        in_runs = ZERO
        for t in range(4):
            if (runs >> t) & 1:
                suit = NIBBLE_LOW << np.int64(t)  # the suit's cards
                if need & suit:
                    cost += 1
                in_runs |= suit
        left = need & ~in_runs
        ranks = (left | (left >> ONE) | (left >> np.int64(2)) | (left >> np.int64(3))) & NIBBLE_LOW
        cost += popcount(ranks & lack1) + popcount(ranks & lack2) + popcount(ranks & lack3)
        if cost <= W:
            return True
    return False


SPLIT_RUN_OPTIONS = 30  # 2 ace positions x 5 starts x 3 lengths
MAX_LEVELS = 64
MAX_TAKEN = 24  # cards one meld of the search takes at most

# The search's work arrays, one record that the caller owns (a game's step keeps one for
# the whole batch): passed as one pointer, with constant shapes, and no allocation in the
# search, so that it compiles without numba's reference counting (``_nrt=False``). The
# counts and wilds of every level were allocated at each call, and the reference counts
# of the arrays passed at each node were about a third of Frime's step.
SPLIT_DTYPE = np.dtype(
    [
        ("R", np.int64, (NUM_TYPES,)),  # the natural cards left
        ("lv", np.int64, (6, MAX_LEVELS)),  # per level: card, option, wilds, room, naturals left, taken
        ("took", np.int64, (MAX_LEVELS, MAX_TAKEN)),  # per level: the cards its meld took
        ("avail", np.int64, (MAX_LEVELS, 4)),  # per level: other naturals of the card's rank, per suit
    ]
)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
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
    # the other naturals of the rank taken, per suit: the digits of k (no array: this runs
    # for every option the search tries, and an allocation here was most of its cost)
    p0 = k % (avail[0] + 1)
    k //= avail[0] + 1
    p1 = k % (avail[1] + 1)
    k //= avail[1] + 1
    p2 = k % (avail[2] + 1)
    k //= avail[2] + 1
    p3 = k % (avail[3] + 1)
    k //= avail[3] + 1
    if k > 0:
        return -1, 0, 0, 0, 0
    n_nat = 1 + p0 + p1 + p2 + p3
    smax = rules[R_SET_MAX]
    need = max(0, rules[R_SET_MIN] - n_nat)
    if need > W or n_nat < rules[R_MIN_NATURAL] or (smax > 0 and n_nat + need > smax):
        return 0, 0, 0, 0, 0
    n = 0
    R[c] -= 1
    took[n] = c
    n += 1
    for t in range(4):
        for _ in range(p0 if t == 0 else (p1 if t == 1 else (p2 if t == 2 else p3))):
            R[r * 4 + t] -= 1
            took[n] = r * 4 + t
            n += 1
    room = 1 << 20 if smax == 0 else smax - n_nat - need
    if rules[R_SET_DISTINCT]:
        room = min(room, 4 - n_nat - need)
    return 1, n, need, room, n_nat


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def split_all(rules, counts, work):
    """Can every card of ``counts`` (length 53) be laid as melds (frime's going out)?
    Exact: the lowest natural card left must be in a meld; each meld holding it is tried
    (runs of 3..5 positions through it, longer when every meld needs a natural card, and
    sets with every choice of the other naturals of its rank); wilds no meld needs must be
    absorbed by the melds (sets without an upper size, runs up to their range) or form a
    meld of wilds where allowed. Each node first checks two necessary conditions on the
    cards left (:func:`wild_lines_ok`, then :func:`viable`) and backs up when one fails.
    ``work``: a record of SPLIT_DTYPE (see :func:`hand_splits` for a call from Python)."""
    R = work.R
    W = np.int64(0)  # typed: a literal 0 here compiled the search twice
    left = np.int64(0)
    for c in range(NUM_TYPES):
        if is_wild(rules, c):
            R[c] = 0
            W += counts[c]
        else:
            R[c] = counts[c]
            left += counts[c]
    if left == 0 and W == 0:
        return False
    if left == 0:
        return _leftover_ok(rules, W, ZERO)
    # depth-first over the melds holding the lowest natural left (an explicit stack; one
    # function with its caller: each compiled layer above the search compiles it again)
    # the stack's scalar columns as rows of one array (contiguous rows: fast indexing)
    lv = work.lv
    lv_c = lv[0]
    lv_idx = lv[1]
    lv_w = lv[2]
    lv_cap = lv[3]
    lv_left = lv[4]
    lv_n = lv[5]
    lv_took = work.took
    lv_avail = work.avail
    d = 0
    lv_w[0] = W
    lv_cap[0] = 0
    lv_left[0] = left
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
            elif not wild_lines_ok(rules, R, lv_w[d]) or not viable(rules, R, lv_w[d]):
                lv_idx[d] = 1 << 30  # some card left can be in no meld, or not with the wilds left: back up
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


def hand_splits(rules: np.ndarray, counts: np.ndarray) -> bool:
    """:func:`split_all` from Python, with a work record of its own."""
    work = np.zeros(1, dtype=SPLIT_DTYPE)
    return bool(split_all(rules, np.ascontiguousarray(counts, dtype=np.int64), work[0]))
