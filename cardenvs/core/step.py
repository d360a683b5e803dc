"""What every game's compiled step does alike, around its own rules (see ``step_batch``
in each game module and docs/adding-a-game.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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


UNSEEN_MISSING = "dealing the cards a seat cannot see anew is not available for this game"


def deal_unseen(game: Any, name: str, states: np.ndarray, viewers: np.ndarray, seed: int,
                masks: np.ndarray, obs: np.ndarray, current: np.ndarray, tries: int = 1024) -> None:
    """Deal anew, in place, in game i of ``states``, every card seat ``viewers[i]`` cannot
    see (the game's ``deal_unseen_batch``), from a random stream seeded by ``seed`` alone:
    the new states' own streams are drawn from it too, so nothing of the true deal's future
    leaks. ``masks``, ``obs`` and ``current`` get the new states' rows (as ``refresh_batch``
    writes them). ValueError for a game that has no such kernel yet.

    What the player to move has done this turn tells something of its hand: Odin's cards
    selected so far can still become a legal play, Rami 51's turn can still be finished
    (the card taken up laid, the opening made). A deal that breaks it leaves that player
    without a legal action; such a deal is drawn again, and so is one the game's kernel
    flags as inconsistent with a public fact it checks after dealing (President: a player
    in play never holds only 2s; Classes: a player who let a turn pass without laying
    the contract did not hold it). Rejection: the deals kept are uniform among those that
    keep every inference. ValueError, and the states as they were, when a game still has
    none after ``tries`` deals: a position where almost no deal lets the player to move go
    on, seen by another seat (a Frime player laying out its whole hand, a Rami 51 player
    who must still open with the card it took). A re-deal for the player to move, as a
    search makes, keeps its own hand and never meets it."""
    if not hasattr(game, "deal_unseen_batch"):
        raise ValueError(f"{name}: {UNSEEN_MISSING}")
    check = getattr(game, "check_unseen", None)
    if check is not None:
        check(states)  # a game's options under which it cannot deal anew: ValueError
    stream = np.random.default_rng(seed)
    before = states.copy()
    n = states.shape[0]
    # the first deal of every game in place; the games it breaks are dealt again from copies
    consistent = game.deal_unseen_batch(states, viewers, stream.random((n, game.UNSEEN_KEYS)), False)
    game.refresh_batch(states, masks, obs, current)
    ok = consistent & (masks.any(axis=1) | states["terminated"] | states["truncated"])
    todo = np.flatnonzero(~ok)
    states[todo] = before[todo]
    for _ in range(tries - 1):
        if todo.size == 0:
            break
        sub, sub_masks, sub_obs, sub_current = states[todo], masks[todo], obs[todo], current[todo]
        consistent = game.deal_unseen_batch(sub, viewers[todo], stream.random((todo.size, game.UNSEEN_KEYS)), False)
        game.refresh_batch(sub, sub_masks, sub_obs, sub_current)
        ok = consistent & (sub_masks.any(axis=1) | sub["terminated"] | sub["truncated"])
        done = todo[ok]
        states[done], masks[done], obs[done], current[done] = sub[ok], sub_masks[ok], sub_obs[ok], sub_current[ok]
        todo = todo[~ok]
    if todo.size:
        states[:] = before
        game.refresh_batch(states, masks, obs, current)
        raise ValueError(f"{name}: no deal of the unseen cards found in {tries} tries that lets the player to move "
                         f"go on, in game(s) {todo[:10].tolist()}")
    # every game's own stream anew (the next rounds' deals, a rebuilt stock): not the true one
    states["rng"] = stream.integers(0, 2**64, n, dtype=np.uint64, endpoint=False)
