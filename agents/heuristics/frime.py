"""A rule-based Frime player that reads only the observation vector and the mask.

The masks are exact (a going out can always be finished; a meld started can always reach
three cards), so the agent can be greedy:

- draw: take the discard top when it is a frime or fits the hand (a partner: a card of
  its rank, or of its suit one or two positions away), buy the card under it when that
  one is a frime, else draw from the stock;
- discard the card that fits the hand least (fewest partners; among equals the one worth
  most points), never a frime while another card can go;
- always go out when the hand allows it;
- lay down as much as possible in a last turn: start a meld, add naturals before frimes,
  lay the meld when nothing fits, lay off on the first player's melds; end the turn only
  when nothing else is legal.

The decision is a small numba kernel over plain arrays (observation offsets and action
ids passed in as an array); ``act_batch`` runs it over the batch in one call.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.agents.base import CompiledHeuristic, first_legal
from cardenvs.agents.heuristics.rummy import best_discard, one_hot_card, worth_taking
from cardenvs.rummy.melds import frime_penalty

# the game's constants the kernels read, in the order of the layout array (CompiledHeuristic)
LAYOUT = (
    "OBS_HAND", "OBS_TOP", "OBS_UNDER", "DRAW_STOCK", "TAKE_DISCARD", "BUY", "DISCARD0", "GO_OUT", "END_TURN",
    "NEW_SET", "NEW_RUN", "LAYOFF0", "ADD0", "FRIME0", "CLOSE", "MAX_MELDS",
)
(
    _HAND, _TOP, _UNDER, _DRAW, _TAKE, _BUY, _DISCARD0, _OUT, _END, _SET, _RUN, _LAYOFF0, _ADD0, _FRIME0,
    _CLOSE, _MAX_MELDS,
) = range(len(LAYOUT))

_W_PARTNER = 0  # per partner of a card
_W_POINTS = 1  # per point of a card (a tie-break: shed expensive cards)
DEFAULT_TUNING = (100, 1)


# per card (52: the joker): the frimes (2s, jokers) are wild; the points a card left in hand costs
WILD = np.array([c == 52 or c // 4 == 1 for c in range(53)])
POINTS = np.array([frime_penalty.py_func(c) for c in range(53)], dtype=np.int64)


@njit(cache=True, no_cfunc_wrapper=True)
def _decide(obs, mask, L, T):
    first = first_legal(mask)
    if mask[L[_DRAW]] or mask[L[_TAKE]]:
        if mask[L[_TAKE]] and worth_taking(obs, L[_HAND], one_hot_card(obs, L[_TOP], 53), WILD):
            return L[_TAKE]
        under = one_hot_card(obs, L[_UNDER], 53)
        if mask[L[_BUY]] and under >= 0 and WILD[under]:
            return L[_BUY]
        if mask[L[_DRAW]]:
            return L[_DRAW]
        return L[_TAKE]
    if mask[L[_OUT]]:
        return L[_OUT]
    best = best_discard(obs, mask, L[_HAND], L[_DISCARD0], WILD, POINTS, T[_W_PARTNER], T[_W_POINTS])
    if best >= 0:
        return best
    # laying: naturals first, then lay the meld, then frimes; new melds and lay-offs
    for c in range(52):
        if mask[L[_ADD0] + c]:
            return L[_ADD0] + c
    if mask[L[_CLOSE]]:
        return L[_CLOSE]
    for c in range(52):
        if mask[L[_FRIME0] + c]:
            return L[_FRIME0] + c
    if mask[L[_RUN]]:
        return L[_RUN]
    if mask[L[_SET]]:
        return L[_SET]
    for m in range(L[_MAX_MELDS]):
        if mask[L[_LAYOFF0] + m]:
            return L[_LAYOFF0] + m
    if mask[L[_END]]:
        return L[_END]
    return first


class FrimeHeuristic(CompiledHeuristic):
    """Greedy Frime player (see the module docstring)."""

    decide = staticmethod(_decide)
    layout_names = LAYOUT
    default_tuning = DEFAULT_TUNING
    obs_dtype = np.int16  # the game's own: read as it is, no copy to float32
