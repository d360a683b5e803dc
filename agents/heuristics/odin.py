"""A rule-based Odin player that reads only the observation vector and the mask.

A play is built card by card (``select``, then ``play`` or ``take``), so the agent
picks a whole target play from the observation and emits it one action at a time:
the next card of the target in the canonical order (decreasing card id), then the
commit. The target is scored on the hand before the selection (hand + selected
cards), which does not change while the play is being built, so the same target is
chosen again at every step of it.

Plan (greedy, no search):
- going out beats everything: lead a whole one-colour or one-value hand, or follow
  with the last cards;
- follow with the play that sheds the most cards (a play of k cards takes one back:
  k - 1 net), scored together with the shape of the hand it leaves: pairs of cards
  of one colour or one value are future multi-card plays; spending high cards costs
  a little; pass when nothing scores above passing;
- keep, from a covered play, the card that fits the hand best (then the highest);
- lead the single card that fits the hand least, the lowest among equals.

The decision is a small numba kernel over plain arrays; ``act_batch`` runs it over
the batch in one call. The observation offsets are passed in as an array (numba's
cache would keep another module's globals stale).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.agents.base import CompiledHeuristic
from cardenvs.core.bits import bits_of, has, popcount

# the game's constants the kernels read, in the order of the layout array (CompiledHeuristic)
LAYOUT = (
    "OBS_HAND", "OBS_SELECTED", "OBS_TABLE", "OBS_SEATS", "SEAT_FEATURES", "MAX_PLAYERS", "PASS", "PLAY",
    "SELECT0", "TAKE0",
)
_HAND, _SELECTED, _TABLE, _SEATS, _SEAT_FEATURES, _MAX_PLAYERS, _PASS, _PLAY, _SELECT0, _TAKE0 = range(len(LAYOUT))

# indices into the tuning array (integers, scaled by 100 where fractional)
_W_SHED = 0  # per net card shed
_W_SHAPE = 1  # per point of hand shape (pairs of one colour or value)
_W_SPEND = 2  # per value point of the cards played (keeps high cards)
_W_KEEP = 3  # per value point of the card taken back
_W_ENDGAME = 4  # extra per net card shed when an opponent holds this few cards or fewer (see _ENDGAME)
_ENDGAME = 5
_LEAD_HIGH = 6  # 1: lead the highest card among equally poor fits instead of the lowest
DEFAULT_TUNING = (300, 60, 8, 8, 1000, 2, 0)

NV = 9
NC = 6


@njit(cache=True, no_cfunc_wrapper=True)
def _shape(bits):
    """Pairs of cards sharing a colour, plus pairs sharing a value."""
    s = 0
    for col in range(NC):
        k = popcount((bits >> np.int64(col * NV)) & 511)
        s += k * (k - 1) // 2
    for v in range(NV):
        k = 0
        for col in range(NC):
            k += has(bits, col * NV + v)
        s += k * (k - 1) // 2
    return s


@njit(cache=True, no_cfunc_wrapper=True)
def _digits(bits):
    """The play's value: digits largest first."""
    val = np.int64(0)
    for v in range(NV - 1, -1, -1):
        for col in range(NC):
            if has(bits, col * NV + v):
                val = val * 10 + v + 1
    return val


@njit(cache=True, no_cfunc_wrapper=True)
def _value_sum(bits):
    s = 0
    for c in range(NC * NV):
        if has(bits, c):
            s += c % NV + 1
    return s


@njit(cache=True, no_cfunc_wrapper=True)
def _uniform(bits):
    cols = 0
    vals = np.int64(0)
    for col in range(NC):
        row = (bits >> np.int64(col * NV)) & 511
        if row:
            cols += 1
            vals |= row
    return cols <= 1 or popcount(vals) <= 1


@njit(cache=True, no_cfunc_wrapper=True)
def _best_take(hand, table):
    """The covered card to keep: the best fit, then the highest; and its fit score."""
    best = -1
    best_score = -(1 << 40)
    for c in range(NC * NV):
        if has(table, c):
            score = _shape(hand | (np.int64(1) << np.int64(c))) * 100 + c % NV
            if score > best_score:
                best_score = score
                best = c
    return best


@njit(cache=True, no_cfunc_wrapper=True)
def _score_follow(orig, play, table, n_table, T, endgame):
    """Score of following with ``play`` from the hand ``orig`` (before the selection)."""
    rest = orig & ~play
    if rest == 0:
        return np.int64(1) << np.int64(50)  # going out
    t = popcount(play)
    score = np.int64((t - 1) * (T[_W_SHED] + (T[_W_ENDGAME] if endgame else 0)))
    after = rest
    if n_table > 0:
        keep = _best_take(rest, table)
        after = rest | (np.int64(1) << np.int64(keep))
        score += T[_W_KEEP] * (keep % NV + 1)
    score += T[_W_SHAPE] * (_shape(after) - _shape(orig))
    score -= T[_W_SPEND] * _value_sum(play)
    return score


@njit(cache=True, no_cfunc_wrapper=True)
def _decide(obs, mask, L, T):
    """The heuristic's action for one observation; -1 if nothing is legal."""
    first = -1
    count = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            count += 1
            if first < 0:
                first = a
    if first < 0:
        return -1
    if count == 1:
        return first
    hand = bits_of(obs, L[_HAND], NC * NV)
    sel = bits_of(obs, L[_SELECTED], NC * NV)
    table = bits_of(obs, L[_TABLE], NC * NV)
    orig = hand | sel
    n = popcount(table)
    S0, TK0 = L[_SELECT0], L[_TAKE0]

    if n == 0:
        # ---- lead: the whole hand when it is uniform, else one card
        if sel != 0:
            for c in range(NC * NV - 1, -1, -1):
                if mask[S0 + c]:
                    return S0 + c  # carrying on with a whole-hand lead
            return L[_PLAY]
        if _uniform(orig):
            for c in range(NC * NV - 1, -1, -1):
                if has(orig, c):
                    return S0 + c
        best = -1
        best_score = -(1 << 40)
        for c in range(NC * NV):
            if mask[S0 + c]:
                v = c % NV + 1
                score = (_shape(orig & ~(np.int64(1) << np.int64(c))) - _shape(orig)) * 100
                score += v if T[_LEAD_HIGH] else -v
                if score > best_score:
                    best_score = score
                    best = S0 + c
        return best if best >= 0 else first

    # ---- follow: the best legal target play containing the selection
    endgame = False
    for j in range(1, L[_MAX_PLAYERS]):
        o = L[_SEATS] + j * L[_SEAT_FEATURES]
        if obs[o] > 0.5 and obs[o + 1] < T[_ENDGAME] + 0.5:
            endgame = True
    V = _digits(table)
    low = NC * NV  # canonical order: cards added to the selection lie below all of it
    for c in range(NC * NV):
        if has(sel, c):
            low = c
            break
    free = hand & ((np.int64(1) << np.int64(low)) - 1)
    best_play = np.int64(0)
    best_score = np.int64(0) if sel == 0 else -(np.int64(1) << np.int64(60))  # 0: passing
    # one colour: subsets of a colour's cards; one value: subsets of a value's cards
    for kind in range(2):
        for g in range(NV if kind else NC):
            group = np.int64(0)
            for i in range(NC if kind else NV):
                c = i * NV + g if kind else g * NV + i
                group |= np.int64(1) << np.int64(c)
            if (sel & ~group) != 0:
                continue
            pool = free & group
            # enumerate subsets of pool (at most 9 cards)
            sub = pool
            while True:
                play = sub | sel
                t = popcount(play)
                if (t == n + 1 or (t == n and _digits(play) > V)) and t > 0:
                    score = _score_follow(orig, play, table, n, T, endgame)
                    if score > best_score:
                        best_score = score
                        best_play = play
                if sub == 0:
                    break
                sub = (sub - 1) & pool
    if best_play == 0:
        if mask[L[_PASS]]:
            return L[_PASS]
        return first
    todo = best_play & ~sel
    if todo != 0:
        for c in range(NC * NV - 1, -1, -1):
            if has(todo, c):
                return S0 + c if mask[S0 + c] else first
    if mask[L[_PLAY]]:
        return L[_PLAY]
    keep = _best_take(hand, table)
    if keep >= 0 and mask[TK0 + keep]:
        return TK0 + keep
    return first


class OdinHeuristic(CompiledHeuristic):
    """Rule-based Odin player (see the module docstring); deterministic."""

    decide = staticmethod(_decide)
    layout_names = LAYOUT
    default_tuning = DEFAULT_TUNING
    obs_dtype = np.int16  # the game's own: read as it is, no copy to float32
