"""The agent interface shared by every game: a policy over (observation, legal-action mask)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from numba import njit

from cardenvs.core.jitcache import bound_copy, in_project
from cardenvs.core.opponents import KIND_HEURISTIC, CompiledPolicy
from cardenvs.core.protocol import GameSpec
from cardenvs.core.registry import PicklesBySpec


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """numpy's BLAS on one thread while agents play, and as it was afterwards. A policy's
    forward pass multiplies small matrices once a decision, where BLAS threads only wait
    on each other: 1,000 Président matches of the shipped policy against heuristics took
    3.3 s with the default threads and 1.7 s with one, on two busy cores (more cores, more
    waiting). ``threadpoolctl`` (the library scikit-learn uses for this) sets the limit
    and restores the user's own on exit."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


class Agent(PicklesBySpec):
    """A player that picks a legal action from an observation and its action mask.

    Agents are built from the game's registry entry (``spec``) so that they can
    decode the game's observation layout; ``options`` are the env's constructor
    options (``num_players`` ...), ``seed`` makes a stochastic agent reproducible.

    ``act`` takes one observation (``OBS_SIZE`` values, any numeric dtype) and one bool mask
    (``NUM_ACTIONS``) and returns an int. ``act_batch`` is the same over a leading
    batch dimension, for :class:`cardenvs.core.vector.VecEnv`; rows whose mask is
    all false (finished games) get -1. Subclasses override ``act`` and, when they
    can do it faster than a Python loop, ``act_batch``.

    An agent with ``reads_state = True`` (the search, which deals the cards its seat
    cannot see anew) decides from the game's state record too: a front end that holds
    the games calls ``act_states(states, observations, masks)`` for it instead of
    ``act_batch`` (``cardenvs eval`` and ``play``, :func:`cardenvs.agents.evaluate.evaluate`,
    the Gymnasium envs' opponents); its ``act``/``act_batch`` raise. Such an agent may use
    the state only to deal it anew from the seat's view, never read the hidden cards for
    its decision, and never changes the caller's records (it works on copies).
    """

    #: name in :func:`cardenvs.agents.make_agent`
    name = "agent"
    #: True for the human placeholder: the CLI asks a person instead of calling act
    is_human = False
    #: True for an agent that needs the game's state: front ends call ``act_states``
    reads_state = False

    def __init__(self, spec: GameSpec, seed: int | None = None, options: dict[str, Any] | None = None):
        self.spec = spec
        self.game = spec.module
        self.seed = seed
        self.options = dict(options or {})
        self.num_actions = int(self.game.NUM_ACTIONS)
        self.observation_size = int(self.game.OBS_SIZE)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise NotImplementedError

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """One action per row; -1 where no action is legal."""
        masks = np.asarray(action_masks, dtype=np.bool_)
        out = np.full(masks.shape[0], -1, dtype=np.int64)
        for i in range(masks.shape[0]):
            if masks[i].any():
                out[i] = self.act(observations[i], masks[i])
        return out

    def act_states(self, states: np.ndarray, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``act_batch`` for a caller that holds the games: ``states[i]`` is the state record
        (the game's ``STATE_DTYPE``) of row i's game, its player to move the seat deciding.
        Agents with ``reads_state`` override it; the others ignore the states."""
        return self.act_batch(observations, action_masks)

    def reset(self) -> None:
        """Called before each match; stateless agents ignore it."""

    def compiled_policy(self) -> CompiledPolicy | None:
        """How compiled code plays this agent's moves (:mod:`cardenvs.core.opponents`: the
        opponents' turns of :class:`cardenvs.integrations.gym.LearnerVecEnv` in one call),
        exactly as ``act_batch`` would; None: only from Python."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec.env_id!r}, seed={self.seed!r})"


@njit(cache=True, no_cfunc_wrapper=True)
def first_legal(mask):
    """The lowest legal action, or -1 when none is legal (a heuristic's fallback)."""
    for a in range(mask.shape[0]):
        if mask[a]:
            return a
    return -1


def decide(obs, mask, layout, tuning):
    """Stand-in for a heuristic's own ``decide``, which :func:`_decide_rows` is bound to."""
    raise NotImplementedError


def _decide_rows(obs, masks, layout, tuning, out):
    """``decide`` over the rows of a batch: compiled once per heuristic, bound to its
    ``decide`` (:func:`cardenvs.core.jitcache.bound_copy`)."""
    for i in range(obs.shape[0]):
        out[i] = decide(obs[i], masks[i], layout, tuning)


class CompiledHeuristic(Agent):
    """A rule-based agent whose decision is a numba kernel ``decide(obs, mask, layout,
    tuning)``; subclasses set ``decide``, ``layout_names`` (the names of the game's
    constants it reads, offsets into the observation and action ids: passed to the
    kernel as an array ``layout``, in that order, so that the cached kernel never holds
    stale globals), ``default_tuning`` and, where the kernel reads another dtype than
    float32, ``obs_dtype``. ``decide_batch`` (the same over rows) is made from ``decide``.
    Deterministic."""

    name = "heuristic"
    default_tuning: tuple[int, ...] = ()
    decide: Any = None
    decide_batch: Any = None
    layout_names: tuple[str, ...] = ()
    #: the dtype the kernels read observations as (a subclass whose kernel only compares
    #: counts can take the game's own observation dtype, and skip a conversion a step)
    obs_dtype: Any = np.float32

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("decide")
        if own is not None and "decide_batch" not in cls.__dict__:
            decide = own.__func__ if isinstance(own, staticmethod) else own
            rows = bound_copy(_decide_rows, dict(globals(), decide=decide),
                              f"{cls.__module__}.{cls.__qualname__}.decide_batch")
            # cached only when ``decide`` is the project's: the cache of a bound copy is keyed
            # on the project's kernel sources, which say nothing of an edit elsewhere
            cached = in_project(getattr(getattr(decide, "py_func", decide), "__code__", None))
            cls.decide_batch = staticmethod(njit(cache=cached, no_cfunc_wrapper=True)(rows))

    @classmethod
    def layout(cls, rules: Any) -> np.ndarray:
        """The game's constants named by ``layout_names``, as the kernel's ``layout`` array."""
        return np.array([int(getattr(rules, name)) for name in cls.layout_names], dtype=np.int64)

    def __init__(
        self,
        spec: GameSpec,
        seed: int | None = None,
        options: dict[str, Any] | None = None,
        tuning: tuple[int, ...] | None = None,
    ):
        super().__init__(spec, seed, options)
        self._layout = type(self).layout(self.game.rules)
        self._tuning = np.asarray(self.default_tuning if tuning is None else tuning, dtype=np.int64)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = check_mask(action_mask)
        return int(type(self).decide(observations_as(observation, self.obs_dtype), mask, self._layout, self._tuning))

    def compiled_policy(self) -> CompiledPolicy | None:
        """Its ``decide`` kernel, layout and tuning, unless a subclass decides otherwise
        (its own ``act_batch`` or ``decide_batch``)."""
        cls = type(self)
        rows = getattr(cls.decide_batch, "py_func", None)
        if (cls.act_batch is not CompiledHeuristic.act_batch or cls.decide is None
                or getattr(rows, "__code__", None) is not _decide_rows.__code__):
            return None
        return CompiledPolicy(KIND_HEURISTIC, decide=cls.decide, layout=self._layout, tuning=self._tuning,
                              obs_dtype=self.obs_dtype)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs = observations_as(observations, self.obs_dtype)
        masks = np.ascontiguousarray(action_masks, dtype=np.bool_)
        out = np.empty(obs.shape[0], dtype=np.int64)
        type(self).decide_batch(obs, masks, self._layout, self._tuning, out)
        return out


def observations_as(observations: Any, dtype: Any) -> np.ndarray:
    """The observations as kernels that read ``dtype`` take them (C-contiguous); for an
    integer dtype, ValueError where the conversion would change them (a fraction, NaN, a
    number out of its range, not a number)."""
    obs = np.asarray(observations)
    wanted = np.dtype(dtype)
    if obs.dtype == wanted or wanted.kind == "f":
        return np.ascontiguousarray(obs, dtype=wanted)
    if obs.dtype.kind not in "biuf":
        raise ValueError(f"observations must be numbers, got dtype {obs.dtype}")
    with np.errstate(invalid="ignore"):
        as_int = obs.astype(wanted)
    if not np.array_equal(as_int, obs):
        raise ValueError(f"observations must be whole numbers within {wanted} (the game's observation)")
    return np.ascontiguousarray(as_int)


def check_mask(action_mask: np.ndarray) -> np.ndarray:
    """The mask as bool, or ValueError when nothing is legal (a finished game or a caller bug)."""
    mask = np.asarray(action_mask).astype(np.bool_, copy=False)
    if not mask.any():
        raise ValueError("no legal action in the mask (is the game over, or is it another player's turn?)")
    return mask
