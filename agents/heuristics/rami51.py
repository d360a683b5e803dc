"""A rule-based Rami 51 player that reads only the observation vector and the mask.

The masks are exact (every legal step can still be finished into a legal turn), so the
agent can be greedy without planning a whole turn:

- draw: take the discard top whenever it is legal (then it can be laid this turn), else
  draw from the stock;
- lay down whenever possible: start a meld when ``meld`` is legal, else lay off;
- build melds long: add a natural card when one fits, else lay the meld, and spend a
  joker only when nothing else is legal (jokers cost 20 in hand but make future melds);
  the first card of a meld is the one with the most partners in hand;
- discard the card that fits the hand least: partners are the other cards of its rank
  (a set) and of its suit one or two positions away (a run); among equals, the one that
  costs most in hand. Never a joker while another card can go.

The decision is a small numba kernel over plain arrays; ``act_batch`` runs it over the
batch in one call. Observation offsets and action ids are passed in as an array (numba's
cache would keep another module's globals stale).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.agents.base import CompiledHeuristic, first_legal
from cardenvs.games.rami51.plan import rami_penalty

# the game's constants the kernels read, in the order of the layout array (CompiledHeuristic)
LAYOUT = (
    "OBS_HAND", "DRAW_STOCK", "TAKE_DISCARD", "NEW_MELD", "LAYOFF0", "ADD0", "JOKER0", "CLOSE", "DISCARD0",
    "MAX_MELDS",
)
_HAND, _DRAW, _TAKE, _MELD, _LAYOFF0, _ADD0, _JOKER0, _CLOSE, _DISCARD0, _MAX_MELDS = range(len(LAYOUT))

# indices into the tuning array
_W_SET = 0  # per other card of the rank (distinct suit)
_W_NEAR = 1  # per card of the suit one position away
_W_GAP = 2  # per card of the suit two positions away
_W_COST = 3  # per penalty point (a tie-break: shed expensive cards)
_JOKER_LAST = 4  # 1: spend jokers only when nothing else is legal
DEFAULT_TUNING = (30, 30, 12, 1, 1)


@njit(cache=True, no_cfunc_wrapper=True)
def _partners(obs, L, T, c):
    """How well card c fits the hand: other cards of its rank, and of its suit near it."""
    h = L[_HAND]
    r = c // 4
    t = c % 4
    score = 0
    for u in range(4):
        if u != t and obs[h + r * 4 + u] > 0:
            score += T[_W_SET]
    for d in (-2, -1, 1, 2):
        q = r + d
        # the ace sits below the 2 and above the king
        if q == -1 or q == 13:
            q = 0
        elif q < 0 or q > 13:
            continue
        if obs[h + q * 4 + t] > 0:
            score += T[_W_NEAR] if d == -1 or d == 1 else T[_W_GAP]
    return score


@njit(cache=True, no_cfunc_wrapper=True)
def _decide(obs, mask, L, T):
    """The heuristic's action for one observation; -1 if nothing is legal."""
    first = first_legal(mask)
    if first < 0:
        return -1
    if mask[L[_TAKE]]:
        return L[_TAKE]
    if mask[L[_DRAW]]:
        return L[_DRAW]
    if mask[L[_MELD]]:
        return L[_MELD]
    for m in range(L[_MAX_MELDS]):
        if mask[L[_LAYOFF0] + m]:
            return L[_LAYOFF0] + m
    # building a meld or laying off: the natural card with the most partners
    best = -1
    best_score = -1
    for c in range(52):
        if mask[L[_ADD0] + c]:
            sc = _partners(obs, L, T, c)
            if sc > best_score:
                best, best_score = L[_ADD0] + c, sc
    if best >= 0:
        return best
    if mask[L[_CLOSE]]:
        return L[_CLOSE]
    for c in range(52):
        if mask[L[_JOKER0] + c]:
            return L[_JOKER0] + c
    # discard: the card that fits least, the most expensive among equals, a joker last
    best = -1
    best_score = 1 << 30
    for c in range(53):
        if not mask[L[_DISCARD0] + c]:
            continue
        if c == 52:
            sc = 1 << 20
        else:
            sc = _partners(obs, L, T, c) * 100 - T[_W_COST] * rami_penalty(c)
        if sc < best_score:
            best, best_score = L[_DISCARD0] + c, sc
    if best >= 0:
        return best
    return first


class Rami51Heuristic(CompiledHeuristic):
    """Greedy Rami 51 player (see the module docstring)."""

    decide = staticmethod(_decide)
    layout_names = LAYOUT
    default_tuning = DEFAULT_TUNING
    # the kernels only compare counts with 0: they read the game's int16 observation as it
    # is (a rollout of the card scorer's training steps 100,000 of them at once)
    obs_dtype = np.int16
