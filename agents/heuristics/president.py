"""A rule-based Président player that reads only the observation vector and the mask.

Plan (a sensible club player, not a searcher):
- exchange: give back the lowest card;
- out-of-turn completion: always complete the four (it clears the pile and gives the
  lead), unless that would leave only 2s in hand (stuck = last place);
- lead: the lowest single, else the lowest group whole (never break a pair to lead);
  with only 2s and one group left, play the 2s first (nobody goes out on a 2); when an
  opponent holds a single card, lead a pair or better, or else the highest single;
- follow: complete a four when possible; otherwise the lowest whole group that is legal,
  same count first; 2s and aces are kept to regain the lead until the endgame (few cards
  in my hand, or an opponent close to going out); pass rather than break a group or spend
  a high card early.

The decision is a small numba kernel over plain arrays; ``act_batch`` runs it over the
batch in one call. The observation offsets are passed in as an array rather than read
as globals because numba's cache would keep stale globals of another module.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.agents.base import CompiledHeuristic, first_legal

# the game's constants the kernels read, in the order of the layout array (CompiledHeuristic)
LAYOUT = (
    "OBS_HAND", "OBS_PILE_RANK", "OBS_PILE_COUNT", "OBS_RUN_COUNT", "OBS_PHASE", "OBS_SEATS", "SEAT_FEATURES",
    "MAX_PLAYERS", "NUM_RANKS", "MAX_PER_RANK", "PASS", "PLAY0", "GIVE0", "TWO",
)
(
    _HAND, _PILE_RANK, _PILE_COUNT, _RUN_COUNT, _PHASE, _SEATS, _SEAT_FEATURES, _MAX_PLAYERS, _NUM_RANKS,
    _MAX_PER_RANK, _PASS, _PLAY0, _GIVE0, _TWO,
) = range(len(LAYOUT))

# indices into the tuning array
_ENDGAME_HAND = 0  # my hand this small: spend 2s, aces and break groups freely
_ENDGAME_OPP = 1  # an opponent this close to going out: the same
_HIGH_RANK = 2  # president ranks from here up (A) are kept to regain the lead
_SAME_COUNT_FIRST = 3  # 1: follow with the same count when a whole group of it is legal
_OVERPLAY = 4  # 1: follow a smaller play with a bigger whole group (a pair on a single) before the endgame
_LEAD_SINGLES = 5  # 1: lead the lowest single before any lower pair
DEFAULT_TUNING = (5, 2, 11, 1, 1, 1)


@njit(cache=True, no_cfunc_wrapper=True)
def _play(L, rank, count):
    return L[_PLAY0] + rank * L[_MAX_PER_RANK] + count - 1


@njit(cache=True, no_cfunc_wrapper=True)
def _stuck_after(hand, held, rank, count, two):
    """Playing ``count`` cards of ``rank`` would leave only 2s (out at once, ranked last)."""
    left = held - count
    return rank != two and left > 0 and left == hand[two]


@njit(cache=True, no_cfunc_wrapper=True)
def _decide(obs, mask, L, T):
    """The heuristic's action for one observation; -1 if nothing is legal."""
    first = first_legal(mask)
    if first < 0:
        return -1
    R = L[_NUM_RANKS]
    two = L[_TWO]
    PASS = L[_PASS]
    hand = np.zeros(R, dtype=np.int64)
    held = 0
    for r in range(R):
        hand[r] = np.int64(obs[L[_HAND] + r] + 0.5)
        held += hand[r]
    twos = hand[two]
    groups = 0
    for r in range(two):
        if hand[r] > 0:
            groups += 1

    # exchange: the president gives back the lowest card
    if obs[L[_PHASE] + 2] > 0.5:
        for r in range(R):
            if mask[L[_GIVE0] + r]:
                return L[_GIVE0] + r
        return first

    # out-of-turn completion of a four: the only play in the mask besides pass
    if obs[L[_PHASE] + 1] > 0.5:
        for a in range(mask.shape[0]):
            if a != PASS and mask[a] and L[_PLAY0] <= a < L[_GIVE0]:
                rank = (a - L[_PLAY0]) // L[_MAX_PER_RANK]
                count = (a - L[_PLAY0]) % L[_MAX_PER_RANK] + 1
                if _stuck_after(hand, held, rank, count, two):
                    return PASS if mask[PASS] else a
                return a
        return PASS if mask[PASS] else first

    # going out beats everything
    for r in range(two):
        if hand[r] == held and mask[_play(L, r, held)]:
            return _play(L, r, held)

    opp_min = 1 << 30
    for j in range(1, L[_MAX_PLAYERS]):
        o = L[_SEATS] + j * L[_SEAT_FEATURES]
        if obs[o] > 0.5 and obs[o + 2] > 0.5:
            opp_min = min(opp_min, np.int64(obs[o + 1] + 0.5))
    endgame = held <= T[_ENDGAME_HAND] or opp_min <= T[_ENDGAME_OPP]

    pile_rank = -1
    for r in range(R):
        if obs[L[_PILE_RANK] + r] > 0.5:
            pile_rank = r

    # one group and some 2s left: shed the 2s first (one play clears and keeps the lead)
    if twos > 0 and groups <= 1 and mask[_play(L, two, twos)]:
        return _play(L, two, twos)

    if pile_rank < 0:
        # ---- lead
        if opp_min == 1:
            for r in range(two):
                if hand[r] >= 2 and mask[_play(L, r, hand[r])]:
                    return _play(L, r, hand[r])
            for r in range(two - 1, -1, -1):
                if hand[r] > 0 and mask[_play(L, r, hand[r])] and not _stuck_after(hand, held, r, hand[r], two):
                    return _play(L, r, hand[r])
        if T[_LEAD_SINGLES]:
            for r in range(two):
                if hand[r] == 1 and mask[_play(L, r, 1)] and not _stuck_after(hand, held, r, 1, two):
                    return _play(L, r, 1)
        for r in range(two):
            if hand[r] > 0 and mask[_play(L, r, hand[r])] and not _stuck_after(hand, held, r, hand[r], two):
                return _play(L, r, hand[r])
        # the first lead must hold the 3 of clubs, and the mask knows it: lowest legal play
        for a in range(mask.shape[0]):
            if mask[a] and a != PASS:
                return a
        return first

    # ---- follow
    pile_count = np.int64(obs[L[_PILE_COUNT]] + 0.5)
    run = np.int64(obs[L[_RUN_COUNT]] + 0.5)
    if pile_rank != two and run < 4:
        need = 4 - run
        a = _play(L, pile_rank, need)
        if hand[pile_rank] >= need and mask[a] and not _stuck_after(hand, held, pile_rank, need, two):
            return a  # four of a kind clears the pile: we lead next
    if twos > 0 and (endgame or twos + 1 >= groups) and mask[_play(L, two, 1)]:
        return _play(L, two, 1)  # a 2 clears the pile and takes the lead
    best = -1
    for r in range(two):
        k = hand[r]
        if k == 0:
            continue
        a = _play(L, r, k)
        if not mask[a] or _stuck_after(hand, held, r, k, two):
            continue
        if r >= T[_HIGH_RANK] and not endgame:
            continue  # keep aces to regain the lead later
        if T[_SAME_COUNT_FIRST] and k == pile_count:
            return a
        if k > pile_count and not T[_OVERPLAY] and not endgame:
            continue
        if best < 0:
            best = a
    if best >= 0:
        return best
    if endgame:
        for r in range(two):
            if hand[r] > pile_count:
                a = _play(L, r, pile_count)
                if mask[a] and not _stuck_after(hand, held, r, pile_count, two):
                    return a
    if mask[PASS]:
        return PASS
    return first


class PresidentHeuristic(CompiledHeuristic):
    """Rule-based Président player (see the module docstring); deterministic."""

    decide = staticmethod(_decide)
    layout_names = LAYOUT
    default_tuning = DEFAULT_TUNING
