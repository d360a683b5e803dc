"""Compiled opponents: the built-in random and heuristic players' whole turns in one numba call.

:class:`cardenvs.integrations.gym.LearnerVecEnv` plays the other seats between the
learner's decisions. In a game whose turn is many kernel steps (Rami 51: the draw, the
melds card by card, the lay-offs, the discard), one Python call per opponent and step
costs more than the steps. :func:`play_opponents` runs that loop inside compiled code:
every game waiting on an opponent gets its move, the games are stepped (the game's own
``step_batch``), and so on until the learner is to move (or the game has stopped: the
match is over, or for the search's rollouts the round) in every game.

It plays exactly the moves of the Python loop: the same rounds (each round one move in
every game waiting on an opponent, then one ``step_batch`` over all of them), the random
players' draws from their own streams in the same order (by seat group in the order of
the opponents, then by game; by game alone when one agent plays every seat) with the
random agent's own sampler (:func:`cardenvs.core.vector.sample_row`), and the heuristic's
own ``decide`` kernel. A seat played from Python (a callable, a policy, the search) stops
the loop at the start of a round in which it is to move somewhere: the caller chooses
those moves and calls again with ``given``, and the round goes on in compiled code.

An agent says it can be played here by its ``compiled_policy()`` (a
:class:`CompiledPolicy`); ``cardenvs.core`` never imports the agents: the heuristic's
kernel is handed in, and :func:`opponents_kernel` binds a copy of the loop to it and to
the game's ``step_batch`` (as the step driver binds its hooks, :func:`bound_copy`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from cardenvs.core.jitcache import bound_copy, in_project
from cardenvs.core.protocol import ACT_HOLD, EVENT_TERMINATED, EVENT_TRUNCATED
from cardenvs.core.vector import sample_row

#: the events that end a learner's match (``stop`` of :func:`play_opponents`)
MATCH_OVER = EVENT_TERMINATED | EVENT_TRUNCATED

#: how a seat is played: from Python (the loop stops), by a random or a heuristic kernel
KIND_PYTHON, KIND_RANDOM, KIND_HEURISTIC = 0, 1, 2
#: what :func:`play_opponents` returns besides a game's index (an illegal move there)
PLAY_DONE, PLAY_PYTHON = -1, -2


class CompiledPolicy(NamedTuple):
    """What an agent's ``compiled_policy()`` gives to be played inside the loop.

    ``kind``: KIND_RANDOM (``stream``: its sampler's (1,) uint64 stream, advanced in place)
    or KIND_HEURISTIC (``decide(obs, mask, layout, tuning)``, its numba kernel, reading
    observations as ``obs_dtype``; ``layout`` and ``tuning`` its int64 arrays)."""

    kind: int
    stream: np.ndarray | None = None
    decide: Any = None
    layout: np.ndarray | None = None
    tuning: np.ndarray | None = None
    obs_dtype: Any = None


# ------------------------------------------------------------- what the binding puts in
def step_batch(states, actions, masks, obs, rewards, events, current, mode):
    """Stand-in for the game's ``step_batch``."""
    raise NotImplementedError


@njit(cache=True, no_cfunc_wrapper=True)
def no_heuristic(obs, mask, layout, tuning):
    """The ``decide`` of a loop bound without a heuristic (no seat of it is one)."""
    return -1


decide = no_heuristic
CONVERT_OBS = False  # the heuristic reads float32, the game's observations are another dtype


def heuristic_move(obs_row, mask, layout, tuning, row):
    """The bound heuristic's move in one game; ``row`` holds the float32 copy of the
    observation it reads where the game's observations are another dtype."""
    if CONVERT_OBS:
        for j in range(row.shape[0]):
            row[j] = np.float32(obs_row[j])
        return decide(row, mask, layout, tuning)
    return decide(obs_row, mask, layout, tuning)


def play_opponents(states, actions, masks, obs, rewards, events, current, mode, seats, over, learner_rewards,
                   returns, kinds, samplers, streams, layout, tunings, grouped, given, by_game, stop):
    """The opponents' moves, round after round, until no game waits on one.

    Seat groups ``k = (current - seat - 1) % P`` (P = ``returns.shape[1]``) are played as
    ``kinds[k]`` says: a random player draws from ``streams[samplers[k]]``, the heuristic
    decides with ``tunings[k]``. ``grouped``: the draws go by group, then by game (several
    opponents); else by game. ``given``: the Python seats' moves of this first round are
    already in ``actions``. The learner's rewards add into ``learner_rewards``, every
    seat's into ``returns``, an event of ``stop`` (a match's end; a rollout stops at a
    round's end too) into ``over``. A game whose seat is -1 has no learner: every seat is
    an opponent (the search's rollouts), so ``kinds`` and ``tunings`` need a row for each
    of the P seats (k = current % P), and only ``by_game`` plays such a game (the rounds
    play the P - 1 groups of a table with a learner). Returns PLAY_DONE, PLAY_PYTHON
    (a Python seat is to move: nothing of that round was played), or the first game whose
    move is illegal (nothing of that round was stepped).

    ``by_game`` (every seat a heuristic: no stream is shared between the games, and the
    heuristic is a function of the position) plays each game's turns to the end before
    the next game's, stepping that game alone: the same moves, without the rounds. Rami
    51's heuristic turns are long (a meld card by card): a round of 64 games waited on
    the longest turn of the 64, about 390 rounds a learner's decision against 11 moves a
    game, each round stepping every game held."""
    n = states.shape[0]
    P = returns.shape[1]
    n_actions = masks.shape[1]
    flags = masks.view(np.uint8)
    words = np.zeros((n_actions + 63) // 64, dtype=np.int64)
    row = np.empty(obs.shape[1], dtype=np.float32)
    rel = np.empty(n, dtype=np.int64)  # the game's seat group to move, -1 when none waits
    if by_game:
        for i in range(n):
            while not over[i] and current[i] != seats[i]:
                k = (np.int64(current[i]) - seats[i] - 1) % P
                actions[i] = heuristic_move(obs[i], masks[i], layout, tunings[k], row)
                if not (0 <= actions[i] < n_actions and masks[i, actions[i]]):
                    return i
                step_batch(states[i:i + 1], actions[i:i + 1], masks[i:i + 1], obs[i:i + 1], rewards[i:i + 1],
                           events[i:i + 1], current[i:i + 1], mode)
                if seats[i] >= 0:
                    learner_rewards[i] += rewards[i, seats[i]]
                for p in range(P):
                    returns[i, p] += rewards[i, p]
                if events[i] & stop:
                    over[i] = True
        return PLAY_DONE
    first = True
    while True:
        waiting = False
        python = False
        for i in range(n):
            if over[i] or current[i] == seats[i]:
                rel[i] = -1
                continue
            k = (np.int64(current[i]) - seats[i] - 1) % P
            rel[i] = k
            waiting = True
            if kinds[k] == KIND_PYTHON:
                python = True
        if not waiting:
            return PLAY_DONE
        if python and not (first and given):
            return PLAY_PYTHON
        for g in range(P - 1 if grouped else 1):
            for i in range(n):
                k = rel[i]
                if k < 0 or (grouped and k != g):
                    continue
                if kinds[k] == KIND_RANDOM:
                    a, x = sample_row(flags[i], words, streams[samplers[k]])
                    streams[samplers[k]] = x
                    actions[i] = a
                elif kinds[k] == KIND_HEURISTIC:
                    actions[i] = heuristic_move(obs[i], masks[i], layout, tunings[k], row)
        for i in range(n):
            if rel[i] < 0:
                actions[i] = ACT_HOLD
            elif not (0 <= actions[i] < n_actions and masks[i, actions[i]]):
                return i
        step_batch(states, actions, masks, obs, rewards, events, current, mode)
        for i in range(n):
            if seats[i] >= 0:
                learner_rewards[i] += rewards[i, seats[i]]
            for p in range(P):
                returns[i, p] += rewards[i, p]
            if events[i] & stop:
                over[i] = True
        first = False


_KERNELS: dict[tuple, Any] = {}


def opponents_kernel(game: Any, heuristic: CompiledPolicy | None = None) -> Any:
    """:func:`play_opponents` compiled for ``game`` (its module) and the heuristic whose
    kernel is ``heuristic.decide`` (or none): one copy per pair, bound to them as globals
    (numba caches no function that takes a compiled function as an argument), in numba's
    cache when both are the project's. None when the heuristic reads observations as a
    dtype other than float32 or the game's own (it is then played from Python)."""
    convert = False
    decide_ = no_heuristic
    if heuristic is not None:
        wanted = np.dtype(heuristic.obs_dtype)
        if wanted != np.dtype(game.OBS_DTYPE):
            if wanted != np.dtype(np.float32):
                return None
            convert = True
        decide_ = heuristic.decide
    key = (game.__name__, decide_, convert)
    kernel = _KERNELS.get(key)
    if kernel is None:
        py_decide = getattr(decide_, "py_func", decide_)
        name = f"{game.__name__}.play_opponents"
        if decide_ is not no_heuristic:
            name += f".{py_decide.__module__}.{py_decide.__qualname__}" + (".f32" if convert else "")
        names = dict(globals(), step_batch=game.step_batch, decide=decide_, CONVERT_OBS=convert)
        # cached when what it calls is the project's (the cache is keyed on the project's sources)
        cached = in_project(getattr(py_decide, "__code__", None)) and in_project(
            getattr(getattr(game.step_batch, "py_func", None), "__code__", None)) and _cached(game.step_batch)
        jit = njit(cache=cached, no_cfunc_wrapper=True)
        names["heuristic_move"] = jit(bound_copy(heuristic_move, names, name + ".heuristic_move"))
        kernel = jit(bound_copy(play_opponents, names, name))
        _KERNELS[key] = kernel
    return kernel


def _cached(dispatcher: Any) -> bool:
    """Whether numba caches ``dispatcher`` (a game's driver is cached only for the project's hooks)."""
    cache = getattr(dispatcher, "_cache", None)
    return cache is not None and type(cache).__name__ != "NullCache"
