"""Self-play helpers: advantages and returns per seat over interleaved turns.

In a self-play rollout of the vector env, step t of game n is a decision of seat
``players[t, n]``, and its ``rewards[t, n]`` go to every seat. Each seat's own decisions
form its trajectory: the rewards that reach a seat between two of its decisions (on its
own move, on the other players' moves, at the match's end) all belong to the earlier one,
and the discount applies once per decision of that seat. :func:`seat_advantages` computes
generalised advantage estimates (GAE) along those per-seat trajectories in one pass.
"""

from __future__ import annotations

import numpy as np
from numba import njit


def seat_advantages(
    rewards: np.ndarray,
    values: np.ndarray,
    players: np.ndarray,
    dones: np.ndarray,
    last_values: np.ndarray | None = None,
    gamma: float = 0.99,
    lam: float = 0.95,
) -> tuple[np.ndarray, np.ndarray]:
    """GAE advantages and returns of every decision, along each seat's own trajectory.

    rewards: (T, N, P) rewards of step t to every seat (``VecState.rewards``, stacked).
    values: (T, N) value of the position at step t for the seat to move there.
    players: (T, N) the seat that moved at step t (``VecState.current_player`` before it).
    dones: (T, N) the match ended at step t (terminated or truncated): no value after it.
    last_values: (N, P) each seat's value at the end of the rollout, for the matches still
        running (their seats' next decisions lie beyond it); default 0.
    Returns ``(advantages, returns)``, both (T, N) float32, ``returns = advantages + values``.
    """
    rewards = np.ascontiguousarray(rewards, dtype=np.float32)
    if rewards.ndim != 3:
        raise ValueError(f"rewards must be (T, N, P), got shape {rewards.shape}")
    T, N, P = rewards.shape
    values = np.ascontiguousarray(values, dtype=np.float32)
    players = np.ascontiguousarray(players, dtype=np.int64)
    dones = np.ascontiguousarray(dones, dtype=np.bool_)
    for name, arr in (("values", values), ("players", players), ("dones", dones)):
        if arr.shape != (T, N):
            raise ValueError(f"{name} must have shape {(T, N)}, got {arr.shape}")
    if players.size and (players.min() < 0 or players.max() >= P):
        raise ValueError(f"players must be seats 0..{P - 1}")
    if last_values is None:
        last_values = np.zeros((N, P), dtype=np.float32)
    last_values = np.ascontiguousarray(last_values, dtype=np.float32)
    if last_values.shape != (N, P):
        raise ValueError(f"last_values must have shape {(N, P)}, got {last_values.shape}")
    advantages = np.empty((T, N), dtype=np.float32)
    _seat_gae(rewards, values, players, dones, last_values, np.float32(gamma), np.float32(lam), advantages)
    return advantages, advantages + values


@njit(cache=True, no_cfunc_wrapper=True)
def _seat_gae(rewards, values, players, dones, last_values, gamma, lam, advantages):
    """Backwards over time, per game: each seat keeps the rewards it received since its
    next decision, and that decision's value and advantage."""
    T, N, P = rewards.shape
    pending = np.zeros(P, dtype=np.float32)  # rewards since the seat's next decision
    next_value = np.zeros(P, dtype=np.float32)
    next_adv = np.zeros(P, dtype=np.float32)
    for n in range(N):
        for p in range(P):
            pending[p] = 0.0
            next_value[p] = last_values[n, p]
            next_adv[p] = 0.0
        for t in range(T - 1, -1, -1):
            if dones[t, n]:  # the match ended here: what follows belongs to the next match
                for p in range(P):
                    pending[p] = 0.0
                    next_value[p] = 0.0
                    next_adv[p] = 0.0
            for p in range(P):
                pending[p] += rewards[t, n, p]
            q = players[t, n]
            delta = pending[q] + gamma * next_value[q] - values[t, n]
            adv = delta + gamma * lam * next_adv[q]
            advantages[t, n] = adv
            next_value[q] = values[t, n]
            next_adv[q] = adv
            pending[q] = 0.0
