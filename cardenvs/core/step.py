"""What every game's compiled step does alike, around its own rules (see ``step_batch``
in each game module and docs/adding-a-game.md)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from cardenvs.core.protocol import (
    ACT_REFRESH,
    ACT_RESET,
    EVENT_REWARD,
    EVENT_TERMINATED,
    EVENT_TRUNCATED,
)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def close_step(s, rewards, phase_over):
    """After a player's action (applied or penalised): count the step, truncate the match
    at ``max_steps``, add the step's rewards per seat into ``rewards`` (zeroed by the
    caller once per call: forced moves played in the same call add up); returns the
    step's EVENT_* flags for rewards and for the match's end."""
    ev = 0
    s.num_steps += 1
    if not s.terminated and not s.truncated and s.max_steps > 0 and s.num_steps >= s.max_steps:
        s.truncated = True
        s.phase = phase_over
    for p in range(s.num_players):
        rewards[p] += s.rewards[p]
        if s.rewards[p] != 0.0:
            ev |= EVENT_REWARD
    if s.terminated:
        ev |= EVENT_TERMINATED
    if s.truncated:
        ev |= EVENT_TRUNCATED
    return ev


def pseudo_step(step_batch: Callable, states: np.ndarray, action: int, masks: np.ndarray, obs: np.ndarray,
                current: np.ndarray, max_players: int, mode: int = 0) -> np.ndarray:
    """Run ``step_batch`` with the pseudo-action ``action`` (ACT_RESET, ACT_REFRESH, ...)
    in every game; returns the events (the count of forced moves played, with
    MODE_AUTO_FORCED)."""
    n = states.shape[0]
    events = np.zeros(n, dtype=np.int32)
    step_batch(states, np.full(n, action, dtype=np.int64), masks, obs, np.zeros((n, max_players), dtype=np.float32),
               events, current, mode)
    return events


def reset_drivers(step_batch: Callable, max_players: int) -> tuple[Callable, Callable]:
    """A game's ``reset_batch`` and ``refresh_batch``: its ``step_batch`` with the
    pseudo-actions ACT_RESET (a new match in every game, rng and options already set;
    ``mode=MODE_AUTO_FORCED`` plays its forced opening moves) and ACT_REFRESH (masks and
    observations of states loaded from outside)."""

    def reset_batch(states, masks, obs, current, mode: int = 0) -> np.ndarray:
        return pseudo_step(step_batch, states, ACT_RESET, masks, obs, current, max_players, mode)

    def refresh_batch(states, masks, obs, current) -> np.ndarray:
        return pseudo_step(step_batch, states, ACT_REFRESH, masks, obs, current, max_players)

    return reset_batch, refresh_batch


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def only_legal(legal, n):
    """The one legal action among ``legal[:n]`` (nonzero entries), or -1 when there are
    none or several: a forced move is played for the player (MODE_AUTO_FORCED)."""
    only = -1
    for k in range(n):
        if legal[k]:
            if only >= 0:
                return -1
            only = k
    return only


def check_playable(game, rec) -> None:
    """ValueError unless the player to move in the loaded record ``rec`` has a legal
    action (a scenario's last check): the game module's own masks, on a copy."""
    tmp = np.zeros(1, dtype=game.STATE_DTYPE)
    tmp[0] = rec
    masks = np.zeros((1, game.NUM_ACTIONS), dtype=np.bool_)
    obs = np.zeros((1, game.OBS_SIZE), dtype=game.OBS_DTYPE)
    game.refresh_batch(tmp, masks, obs, np.zeros(1, dtype=np.int32))
    if not masks.any():
        raise ValueError("scenario: the player to move has no legal action in this position (it cannot be finished)")
