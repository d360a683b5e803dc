"""A rule-based Classes player that reads only the observation vector and the mask.

The masks are exact (a contract once started can be finished; a meld started can always
be laid), so the agent can be greedy:

- draw: take the discard top when it is a 2 or fits the hand (a partner: a card of its
  rank, or of its suit one or two positions away), else draw from the stock;
- lay the contract as soon as the hand holds it; once it is laid, lay every further meld
  and every lay-off the mask allows (fewer points in hand, and the round ends sooner);
- while building a meld: natural cards first, then close it, then 2s only when the meld
  needs them;
- discard the card that fits the hand least (fewest partners; among equals the one worth
  most points), never a 2 while another card can go.

The decision is a small numba kernel over plain arrays (observation offsets and action
ids passed in as an array); ``act_batch`` runs it over the batch in one call.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.agents.base import CompiledHeuristic, first_legal
from cardenvs.agents.heuristics.rummy import best_discard, one_hot_card, worth_taking
from cardenvs.rummy.melds import classes_penalty

# the game's constants the kernels read, in the order of the layout array (CompiledHeuristic)
LAYOUT = (
    "OBS_HAND", "OBS_TOP", "DRAW_STOCK", "TAKE_DISCARD", "DISCARD0", "CONTRACT", "NEW_SET", "NEW_RUN",
    "LAYOFF0", "ADD0", "WILD0", "CLOSE", "MAX_MELDS",
)
(
    _HAND, _TOP, _DRAW, _TAKE, _DISCARD0, _CONTRACT, _SET, _RUN, _LAYOFF0, _ADD0, _WILD0, _CLOSE, _MAX_MELDS,
) = range(len(LAYOUT))

_W_PARTNER = 0  # per partner of a card
_W_POINTS = 1  # per point of a card (a tie-break: shed expensive cards)
DEFAULT_TUNING = (100, 1)


# per card: the 2s are wild; the points a card left in hand costs
WILD = np.array([c // 4 == 1 for c in range(52)])
POINTS = np.array([classes_penalty.py_func(c) for c in range(52)], dtype=np.int64)


@njit(cache=True, no_cfunc_wrapper=True)
def _decide(obs, mask, L, T):
    first = first_legal(mask)
    if mask[L[_DRAW]] or mask[L[_TAKE]]:
        if mask[L[_TAKE]] and worth_taking(obs, L[_HAND], one_hot_card(obs, L[_TOP], 52), WILD):
            return L[_TAKE]
        if mask[L[_DRAW]]:
            return L[_DRAW]
        return L[_TAKE]
    # building a meld or adding to one: naturals first, then close, then 2s
    for c in range(52):
        if mask[L[_ADD0] + c]:
            return L[_ADD0] + c
    if mask[L[_CLOSE]]:
        return L[_CLOSE]
    for c in range(52):
        if mask[L[_WILD0] + c]:
            return L[_WILD0] + c
    # laying down: the contract, further melds, lay-offs
    for a in (L[_CONTRACT], L[_RUN], L[_SET]):
        if mask[a]:
            return a
    for m in range(L[_MAX_MELDS]):
        if mask[L[_LAYOFF0] + m]:
            return L[_LAYOFF0] + m
    best = best_discard(obs, mask, L[_HAND], L[_DISCARD0], WILD, POINTS, T[_W_PARTNER], T[_W_POINTS])
    if best >= 0:
        return best
    return first


class ClassesHeuristic(CompiledHeuristic):
    """Greedy Classes player (see the module docstring)."""

    decide = staticmethod(_decide)
    layout_names = LAYOUT
    default_tuning = DEFAULT_TUNING
    obs_dtype = np.int16  # the game's own: read as it is, no copy to float32
