"""Gymnasium interfaces: one learner against opponent agents.

- :class:`SingleAgentEnv` is a ``gymnasium.Env``: the learner plays one seat of a
  match, the other seats are played by agents between the learner's decisions.
- :class:`LearnerVecEnv` is a ``gymnasium.vector.VectorEnv`` over the numba core: N
  such matches stepped together, the built-in opponents' turns played in compiled code.
- :func:`register_envs` registers ``cardenvs/<game>-v<N>`` for every game (done when
  ``cardenvs`` is imported), so ``gymnasium.make("cardenvs/president-v0")`` works.

Both play forced moves (a single legal action) inside the compiled step by default, so
that every decision the learner sees is a real choice. The learner's reward for a step is
its own reward summed over everything that happened until its next decision (the
opponents' moves, forced moves, the match's end). Illegal actions are penalised by
default (the learner gets -1 and the match ends), because checkers and unmasked
algorithms step random actions; ``illegal_action="raise"`` raises instead.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from cardenvs.core.opponents import (
    KIND_HEURISTIC,
    KIND_PYTHON,
    KIND_RANDOM,
    MATCH_OVER,
    PLAY_DONE,
    PLAY_PYTHON,
    opponents_kernel,
)
from cardenvs.core.outcome import win_shares
from cardenvs.core.protocol import (
    ACT_HOLD,
    ACT_RESET,
    MODE_AUTO_FORCED,
    GameSpec,
    check_action,
    check_actions,
    check_flag,
    check_positive_int,
    check_reset_options,
    env_records,
)
from cardenvs.core.registry import GAMES, get_spec
from cardenvs.core.rng import batch_seeds, check_seed, rng_state_from_seed
from cardenvs.core.vector import VecEnv

#: an opponent: an agent name ("random", "heuristic", "search"), an agent object (``act`` and
#: ``act_batch``; or ``act_states`` where its ``reads_state`` is true: it gets a copy of the
#: games' records too), or a callable ``f(observation, action_mask) -> action`` (one game in
#: SingleAgentEnv, a batch of rows in LearnerVecEnv)
Opponent = Any


def _observation_box(spec: GameSpec, template: np.ndarray, scale: bool) -> tuple[spaces.Box, float, float]:
    low, high = spec.module.observation_bounds(template)
    game = spec.module
    if scale:
        return spaces.Box(0.0, 1.0, (game.OBS_SIZE,), np.float32), float(low), float(high)
    return spaces.Box(low, high, (game.OBS_SIZE,), game.OBS_DTYPE), float(low), float(high)


def _scale(obs: np.ndarray, low: float, high: float) -> np.ndarray:
    return ((obs.astype(np.float32) - low) / (high - low)).astype(np.float32, copy=False)


def _make_opponents(spec: GameSpec, opponents: Opponent | Sequence[Opponent], num_players: int,
                    seed: int | None, options: dict[str, Any]) -> list[Any]:
    """One opponent per seat after the learner's (seat + 1, seat + 2, ... in play order)."""
    from cardenvs.agents import make_agent

    if isinstance(opponents, (list, tuple)):
        if len(opponents) != num_players - 1:
            raise ValueError(f"opponents: expected {num_players - 1} entries (one per other seat), "
                             f"got {len(opponents)}")
        items = list(opponents)
    else:
        items = [opponents]  # one agent plays every other seat (one batched call in LearnerVecEnv)
    rng = np.random.default_rng(seed)
    out: list[Any] = []
    for item in items:
        if isinstance(item, str):
            out.append(make_agent(item, spec, seed=int(rng.integers(2**62)), options=options))
        elif callable(item) or hasattr(item, "act") or hasattr(item, "act_batch"):
            out.append(item)
        else:
            raise TypeError(f"opponents: expected an agent name, an agent or a callable, got {item!r}")
    return out if len(out) == num_players - 1 else out * (num_players - 1)


def _reads_state(opponent: Any) -> bool:
    """An agent that decides from the game's state too (the search: ``act_states``)."""
    return bool(getattr(opponent, "reads_state", False))


def _act_one(opponent: Any, obs: np.ndarray, mask: np.ndarray, state: Callable[[], np.ndarray]) -> Any:
    """The opponent's choice as it gave it (checked by the env, never coerced by ``int``);
    ``state()``: a copy of the game's one-game record, made only for an agent that reads it."""
    if _reads_state(opponent):
        return np.asarray(opponent.act_states(state(), obs[None], mask[None])).reshape(-1)[0]
    if hasattr(opponent, "act"):
        return opponent.act(obs, mask)
    if hasattr(opponent, "act_batch"):
        return np.asarray(opponent.act_batch(obs[None], mask[None])).reshape(-1)[0]
    return opponent(obs, mask)


def _act_rows(opponent: Any, obs: np.ndarray, masks: np.ndarray, states: Callable[[], np.ndarray]) -> np.ndarray:
    """The opponent's choices for ``K`` rows, integers (a float or a bool choice is a TypeError);
    ``states()``: the rows' records (copies), asked for only by an agent that reads them."""
    if _reads_state(opponent):
        out = opponent.act_states(states(), obs, masks)
    elif hasattr(opponent, "act_batch"):
        out = opponent.act_batch(obs, masks)
    elif hasattr(opponent, "act"):
        out = [check_action(opponent.act(o, m), masks.shape[1], "an opponent's action")
               for o, m in zip(obs, masks, strict=True)]
        out = np.array(out, dtype=np.int64).reshape(len(out))
    else:
        out = opponent(obs, masks)
    return check_actions(out, masks.shape[0], "an opponent's actions")


def _check_episode_limit(value: Any) -> int | None:
    """``max_episode_steps``: None or -1 (no limit, as ``gymnasium.make`` reads -1) or a
    positive int (never a float or a bool cast)."""
    if value is None or (type(value) is int or isinstance(value, np.integer)) and value == -1:
        return None
    return check_positive_int("max_episode_steps", value)


def _check_learner_seat(seat: int | None, num_players: int) -> int | None:
    if seat is None:
        return None
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < num_players:
        raise ValueError(f"seat must be None (drawn per episode) or a seat 0..{num_players - 1}, got {seat!r}")
    return int(seat)


# --------------------------------------------------------------------------- one game
class SingleAgentEnv(gymnasium.Env):
    """One seat of a card game as a Gymnasium env, the other seats played by ``opponents``.

    ``game``: a registry name (``"president_v0"`` or ``"president"``). Opponents get the
    game's raw observations, whatever ``scale_observations`` says. ``seat``: the
    learner's seat, or None to draw it at every reset (seeded). ``opponents``: one
    opponent for every other seat, or a list of ``num_players - 1`` of them for the seats
    after the learner's in play order. ``scale_observations`` maps observations to
    [0, 1] float32 by the space's bounds. Other keywords are the game's options.

    ``action_masks()`` (sb3-contrib's name) and ``info["action_mask"]`` give the legal
    actions. ``info`` also holds ``seat`` and the game's round info (``scores``, ...),
    and when the match ends ``win_share`` (1 for a win, split on a tie) and ``return``
    (the learner's total reward over the match).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        game: str,
        opponents: Opponent | Sequence[Opponent] = "random",
        seat: int | None = None,
        scale_observations: bool = False,
        auto_play_forced: bool = True,
        illegal_action: str = "penalty",
        render_mode: str | None = None,
        **options: Any,
    ):
        from cardenvs.core.aec import CardGameEnv

        if render_mode not in (None, "ansi", "rgb_array"):
            raise ValueError(f"render_mode must be None, 'ansi' (text) or 'rgb_array' (an image), got {render_mode!r}")
        self.spec_game = get_spec(game)
        self.render_mode = render_mode
        self._env = CardGameEnv(self.spec_game, illegal_action=illegal_action, auto_play_forced=auto_play_forced,
                                **options)
        self.num_players = self._env.num_players
        self.fixed_seat = _check_learner_seat(seat, self.num_players)
        self._opponent_spec = opponents
        self._options = dict(options)
        self._opponents = _make_opponents(self.spec_game, opponents, self.num_players, 0, self._options)
        self.scale_observations = check_flag("scale_observations", scale_observations)
        self.observation_space, self._low, self._high = _observation_box(
            self.spec_game, self._env._template, self.scale_observations)
        self.action_space = spaces.Discrete(self.spec_game.module.NUM_ACTIONS)
        self.seat = 0
        self._returns = np.zeros(self.num_players)
        self._pending = 0.0
        #: matches the opponents ended before the learner's first decision (dealt again, never
        #: returned: an episode has at least one decision); rare, e.g. a Rami 51 round won at once
        self.matches_without_learner = 0

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """A new match (``seed`` fixes it, the learner's seat and the named opponents), or
        ``options={"scenario": d}`` as in the AEC env. A scenario refused, a finished match,
        or one the opponents end before the learner's first decision raises ValueError and
        leaves the env exactly as it was (the seat, the opponents, the random streams)."""
        scenario = check_reset_options(options).get("scenario")
        saved = copy.deepcopy((self.__dict__.get("_np_random"), self.__dict__.get("_np_random_seed")))
        env_before = copy.deepcopy(self._env) if scenario is not None else None
        try:
            super().reset(seed=seed)
            rng = self.np_random
            opponents = self._opponents
            if seed is not None:  # named opponents get fresh seeds from this one
                opponents = _make_opponents(self.spec_game, self._opponent_spec, self.num_players,
                                            int(rng.integers(2**62)), self._options)
            seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(self.num_players))
            self._env.reset(seed=int(rng.integers(2**62)), options=options)  # raises before any change
            if scenario is not None and self._done():
                which = "terminated" if self._env._state["terminated"][0] else "truncated"
                raise ValueError(f"scenario {which!r}: the match is over, an episode needs a decision to make")
        except BaseException:
            self._np_random, self._np_random_seed = saved
            if env_before is not None:
                self._env = env_before
            raise
        before = (self._opponents, self.seat, self._returns.copy(), self._pending, saved)
        self._opponents, self.seat = opponents, seat
        for opponent in self._opponents:
            if hasattr(opponent, "reset"):
                opponent.reset()
        self._returns[:] = 0.0
        self._pending = self._play_opponents()  # rewards before its first decision: paid with that step
        if scenario is not None and self._done():  # (the opponents' own random streams have moved on)
            self._env = env_before
            self._opponents, self.seat, self._returns, self._pending, rngs = before
            self._np_random, self._np_random_seed = rngs
            raise ValueError("scenario: the opponents end this match before the learner's first decision")
        while self._done():  # the opponents ended it before the learner's first decision: deal again
            self.matches_without_learner += 1
            self._env.reset()  # the same random stream, continued
            self._returns[:] = 0.0
            self._pending = self._play_opponents()
        return self._observation(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        env = self._env
        agent = env.possible_agents[self.seat]
        if self._done():
            raise RuntimeError("the match is over: call reset()")
        if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu":
            action = action.reshape(())  # a one-element integer array, as a policy's predict gives
        action = check_action(action, self.action_space.n)
        reward, self._pending = self._pending, 0.0
        env.step(action)
        reward += self._collect(agent)
        reward += self._play_opponents()
        terminated = any(env.terminations.values())
        truncated = any(env.truncations.values())
        return self._observation(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (bool, all false once the match is over)."""
        env = self._env
        if self._done():
            return np.zeros(self.action_space.n, dtype=np.bool_)
        return env._mask[0].copy()

    def render(self) -> str | np.ndarray | None:
        """The table seen by the learner's seat: ``"ansi"`` as text, ``"rgb_array"`` as an
        (H, W, 3) uint8 image (what Gymnasium's ``RecordVideo`` films; needs Pillow)."""
        if self.render_mode == "ansi":
            return self._env.render_text(self.seat)
        if self.render_mode == "rgb_array":
            return self._env.render_rgb(self.seat)
        return None

    # ------------------------------------------------------------------ internals
    def _done(self) -> bool:
        env = self._env
        return bool(env._state["terminated"][0] or env._state["truncated"][0])

    def _collect(self, learner: str) -> float:
        """The last step's rewards: into every seat's match return; the learner's returned."""
        env = self._env
        for i, ag in enumerate(env.possible_agents):
            self._returns[i] += env.rewards[ag]
        return float(env.rewards[learner])

    def _play_opponents(self) -> float:
        """Opponents move until the learner is to move or the match is over; returns the
        learner's rewards meanwhile."""
        env = self._env
        learner = env.possible_agents[self.seat]
        reward = 0.0
        while not self._done() and env.agent_selection != learner:
            p = int(env._current[0])
            opponent = self._opponents[(p - self.seat - 1) % self.num_players]
            obs = env.observe(env.agent_selection)
            env.step(_act_one(opponent, obs["observation"], obs["action_mask"].astype(np.bool_), env._env_records))
            reward += self._collect(learner)
        return reward

    def _observation(self) -> np.ndarray:
        obs = self._env.observe(self._env.possible_agents[self.seat])["observation"]
        return _scale(obs, self._low, self._high) if self.scale_observations else obs

    def _info(self) -> dict[str, Any]:
        info = dict(self._env.infos[self._env.possible_agents[self.seat]])
        info["seat"] = self.seat
        info["action_mask"] = self.action_masks()
        if self._done():
            info["win_share"] = float(win_shares(self._returns[None])[0, self.seat])
            info["return"] = float(self._returns[self.seat])
        return info


# --------------------------------------------------------------------------- N games
class LearnerVecEnv(gymnasium.vector.VectorEnv):
    """N matches over the numba core, the learner in one seat of each, as a Gymnasium
    ``VectorEnv`` (``AutoresetMode.SAME_STEP``).

    Each step plays the learner's action in every game, then the opponents' moves until
    the learner is to move again in every game: the random and heuristic opponents inside
    one compiled call (:mod:`cardenvs.core.opponents`), the others in batch (one call per
    opponent and kernel step, over the games where it is to move), with the same moves
    either way. ``compiled_opponents=False`` plays every opponent from Python (the
    reference the compiled loop is tested against). A finished match is restarted in
    the same step: the returned observation is the new match's, the final observation
    of the ended one is in ``infos["final_obs"]`` (``infos["_final_obs"]`` marks the
    games), and ``infos["final_info"]`` holds its ``win_share``, ``return`` and
    ``seat``. ``infos["action_mask"]`` and :meth:`action_masks` give the legal actions.

    Opponents are as in :class:`SingleAgentEnv`, except that a callable takes a batch
    of rows: ``f(observations (K, OBS_SIZE), masks (K, NUM_ACTIONS) bool) -> (K,)``.
    Opponents always get the game's raw observations (``scale_observations`` is for the
    learner): a frozen copy of a learner trained on scaled inputs scales them itself.
    The compiled random and heuristic agents (those whose ``compiled_policy()`` is not
    None) play whole turns in compiled code; a table that mixes them with callables stops
    the compiled loop in each round where a callable is to move.

    ``max_episode_steps`` (what ``gymnasium.make_vec`` passes from an id's time limit)
    truncates a match at that many learner decisions, as Gymnasium's ``TimeLimit`` does
    for one env: ``truncated`` is true and the match restarts in the same step; its
    ``final_info`` has the ``return`` so far and no ``win_share`` (NaN, ``_win_share``
    false: the match has no outcome). None or -1: no limit.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        game: str,
        num_envs: int,
        opponents: Opponent | Sequence[Opponent] = "random",
        seat: int | None = None,
        seed: int = 0,
        scale_observations: bool = False,
        auto_play_forced: bool = True,
        illegal_action: str = "penalty",
        compiled_opponents: bool = True,
        max_episode_steps: int | None = None,
        **options: Any,
    ):
        spec = get_spec(game)
        self.max_episode_steps = _check_episode_limit(max_episode_steps)
        self.spec_game = spec
        self._core = VecEnv(spec, num_envs, seed=seed, auto_reset=False, illegal_action=illegal_action,
                            auto_play_forced=auto_play_forced, **options)
        self.game = spec.module
        self.num_envs = self._core.num_envs
        self.num_players = self._core.num_players
        self.fixed_seat = _check_learner_seat(seat, self.num_players)
        self.illegal_action = illegal_action
        self._mode = MODE_AUTO_FORCED if auto_play_forced else 0
        self._opponent_spec = opponents
        self._options = dict(options)
        self._seed = int(seed)
        self._opponents = _make_opponents(spec, opponents, self.num_players, seed, self._options)
        self.compiled_opponents = check_flag("compiled_opponents", compiled_opponents)
        self._plan = self._compiled_plan()
        self.scale_observations = check_flag("scale_observations", scale_observations)
        self.single_observation_space, self._low, self._high = _observation_box(
            spec, self._core._template, self.scale_observations)
        self.single_action_space = spaces.Discrete(self.game.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n, game_ = self.num_envs, self.game
        # the kernels write into these; rows of games held by ACT_HOLD keep their contents
        self._obs = np.zeros((n, game_.OBS_SIZE), dtype=game_.OBS_DTYPE)
        self._masks = np.zeros((n, game_.NUM_ACTIONS), dtype=np.bool_)
        self._current = np.zeros(n, dtype=np.int32)
        self._rewards = np.zeros((n, game_.MAX_PLAYERS), dtype=np.float32)
        self._events = np.zeros(n, dtype=np.int32)
        self._actions = np.zeros(n, dtype=np.int64)
        self._over = np.zeros(n, dtype=np.bool_)
        self.seats = np.zeros(n, dtype=np.int64)
        self._returns = np.zeros((n, self.num_players))
        self._seat_rng = np.random.default_rng(seed)
        self._reset_rng = np.random.default_rng([self._seed, 2])  # seeds of later unseeded resets
        self._pending = np.zeros(n, dtype=np.float32)  # learner rewards before its first decision
        self._decisions = np.zeros(n, dtype=np.int64)  # the learner's decisions in each match so far
        self._started = False
        #: matches the opponents ended before the learner's first decision (dealt again)
        self.matches_without_learner = 0

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """New matches in every game. ``seed`` (default: the constructor's) fixes the
        deals, the learner's seats and the named opponents' seeds."""
        check_reset_options(options, allowed=())  # LearnerVecEnv.reset takes no options
        if seed is not None:
            self._seed = check_seed(seed)
            self._reset_rng = np.random.default_rng([self._seed, 2])
        elif self._started:  # Gymnasium's contract: no seed, no replay
            self._seed = int(self._reset_rng.integers(2**62))
        core = self._core
        core.states[:] = core._template[0]
        core.states["rng"] = [rng_state_from_seed(int(x)) for x in batch_seeds(self._seed, self.num_envs)]
        self._seat_rng = np.random.default_rng([self._seed, 1])
        self._opponents = _make_opponents(self.spec_game, self._opponent_spec, self.num_players,
                                          int(self._seat_rng.integers(2**62)), self._options)
        self._plan = self._compiled_plan()
        for opponent in self._opponents:
            if hasattr(opponent, "reset"):
                opponent.reset()
        self._started = True
        self._start_matches(np.arange(self.num_envs))
        return self._observations(), {"action_mask": self._masks.copy(), "seat": self.seats.copy()}

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        a = check_actions(actions, self.num_envs)  # floats, bools, strings: TypeError, never cast
        legal = (a >= 0) & (a < self.game.NUM_ACTIONS)
        legal[legal] = self._masks[np.flatnonzero(legal), a[legal]]
        if not legal.all():
            i = int(np.flatnonzero(~legal)[0])
            if self.illegal_action == "raise":
                names = ", ".join(str(x) for x in np.flatnonzero(self._masks[i])[:20])
                raise ValueError(f"illegal action {int(a[i])} in game {i}; legal there: {names}; nothing was stepped")
            a = np.where(legal, a, -1)  # penalised by the kernel (negative: never a pseudo-action)
        snapshot = self._snapshot()
        try:
            return self._step(a)
        except BaseException:
            # an opponent's refused choice (or its exception) comes after the learner's move:
            # everything goes back to before this step, so that nothing was stepped
            self._restore(snapshot)
            raise

    def _snapshot(self) -> tuple[Any, ...]:
        return (self._core.states.copy(), self._obs.copy(), self._masks.copy(), self._current.copy(),
                self._over.copy(), self.seats.copy(), self._returns.copy(), self._pending.copy(),
                self._seat_rng.bit_generator.state, self.matches_without_learner,
                self._decisions.copy())  # (a new dict each read)

    def _restore(self, snapshot: tuple[Any, ...]) -> None:
        (self._core.states[:], self._obs[:], self._masks[:], self._current[:], self._over[:], self.seats[:],
         self._returns[:], self._pending[:], self._seat_rng.bit_generator.state,
         self.matches_without_learner, self._decisions[:]) = snapshot

    def _step(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        rewards = self._pending.copy()  # what reached the learner before its first decision
        self._pending[:] = 0.0
        self._actions[:] = a
        self._kernel_step(rewards)
        self._play_opponents(rewards)
        self._decisions += 1
        ended = self._over.copy()
        terminated = np.zeros(self.num_envs, dtype=np.bool_)
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        cut = np.zeros(self.num_envs, dtype=np.bool_)  # by the time limit: the match itself goes on
        if self.max_episode_steps is not None:  # Gymnasium's TimeLimit, for the vector env
            cut = ~ended & (self._decisions >= self.max_episode_steps)
            truncated |= cut
            ended |= cut
        infos: dict[str, Any] = {}
        if ended.any():
            rows = np.flatnonzero(ended)
            terminated[rows] = self.core_states["terminated"][rows]
            truncated[rows] |= self.core_states["truncated"][rows] & ~terminated[rows]
            infos.update(self._final_infos(rows, cut[rows]))
            self._start_matches(rows)
        infos["action_mask"] = self._masks.copy()
        infos["seat"] = self.seats.copy()
        return self._observations(), rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """(N, NUM_ACTIONS) bool: the learner's legal actions in every game."""
        return self._masks.copy()

    def close(self, **kwargs: Any) -> None:
        pass

    # the game module does not pickle: it is looked up again from the spec (which does)
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.pop("game", None)
        state.pop("_plan", None)  # compiled kernels: made again from the opponents
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.game = self.spec_game.module
        self._plan = self._compiled_plan()

    @property
    def core_states(self) -> np.ndarray:
        """The games' state records (read them, do not write)."""
        return self._core.states

    # ------------------------------------------------------------------ internals
    def _kernel_step(self, learner_rewards: np.ndarray) -> None:
        g = self.game
        g.step_batch(self._core.states, self._actions, self._masks, self._obs, self._rewards, self._events,
                     self._current, self._mode)
        rows = np.arange(self.num_envs)
        learner_rewards += self._rewards[rows, self.seats]
        self._returns += self._rewards[:, : self.num_players]
        self._over |= (self._events & MATCH_OVER) != 0

    def _play_opponents(self, learner_rewards: np.ndarray) -> None:
        """Opponents move, in batch, until the learner is to move or the match is over in
        every game: in compiled code where they can (:mod:`cardenvs.core.opponents`), one
        call for all their turns, the seats played from Python asked round by round."""
        plan = self._plan
        if plan is None:
            self._play_opponents_python(learner_rewards)
            return
        kernel, kinds, samplers, streams, layout, tunings = plan
        stream = np.array([s[0] for s in streams], dtype=np.uint64)
        given = False
        while True:
            try:
                status = kernel(self._core.states, self._actions, self._masks, self._obs, self._rewards,
                                self._events, self._current, self._mode, self.seats, self._over, learner_rewards,
                                self._returns, kinds, samplers, stream, layout, tunings, not self._one_opponent,
                                given, bool((kinds == KIND_HEURISTIC).all()), MATCH_OVER)
            finally:  # the random players' streams, where the draws left them
                for k, s in enumerate(streams):
                    s[0] = stream[k]
            if status == PLAY_DONE:
                return
            if status != PLAY_PYTHON:
                raise ValueError(f"an opponent chose the illegal action {int(self._actions[status])} in game "
                                 f"{status}; nothing was stepped")
            # a round in which a seat played from Python is to move: its moves, then the round goes on
            waiting = ~self._over & (self._current != self.seats)
            rel = (self._current.astype(np.int64) - self.seats - 1) % self.num_players
            self._actions[:] = ACT_HOLD
            for k, opponent in enumerate(self._opponents):
                rows = np.flatnonzero(waiting & (rel == k))
                if kinds[k] == KIND_PYTHON and rows.size:
                    self._actions[rows] = _act_rows(opponent, self._obs[rows], self._masks[rows],
                                                    lambda rows=rows: env_records(self._core.states[rows]))
            given = True

    def _compiled_plan(self) -> tuple[Any, ...] | None:
        """How the compiled loop plays the opponents: its kernel, each seat's kind (random,
        heuristic, Python), the random players' streams (one per agent, shared by the seats
        it plays) and the heuristic's layout and tunings; None where no seat is compiled
        (or ``compiled_opponents=False``): the Python loop plays them all."""
        if not self.compiled_opponents:
            return None
        policies = [getattr(opp, "compiled_policy", lambda: None)() if not _reads_state(opp) else None
                    for opp in self._opponents]
        if all(p is None for p in policies):
            return None
        heuristic = next((p for p in policies if p is not None and p.kind == KIND_HEURISTIC), None)
        kernel = opponents_kernel(self.game, heuristic or self._game_heuristic())
        if kernel is None and heuristic is not None:  # that heuristic from Python; random ones compiled
            heuristic, kernel = None, opponents_kernel(self.game, None)
        kinds = np.full(len(policies), KIND_PYTHON, dtype=np.int64)
        samplers = np.zeros(len(policies), dtype=np.int64)
        streams: list[np.ndarray] = []
        tunings = np.zeros((len(policies), max([1] + [len(p.tuning) for p in policies
                                                      if p is not None and p.kind == KIND_HEURISTIC])), np.int64)
        for k, p in enumerate(policies):
            if p is None:
                continue
            if p.kind == KIND_RANDOM:
                found = [j for j, s in enumerate(streams) if s is p.stream]
                if not found:
                    streams.append(p.stream)
                samplers[k] = found[0] if found else len(streams) - 1
                kinds[k] = KIND_RANDOM
            elif (heuristic is not None and p.kind == KIND_HEURISTIC and p.decide is heuristic.decide
                  and np.array_equal(p.layout, heuristic.layout) and p.obs_dtype == heuristic.obs_dtype):
                tunings[k, : len(p.tuning)] = p.tuning
                kinds[k] = KIND_HEURISTIC
        if not (kinds != KIND_PYTHON).any():
            return None
        layout = np.zeros(1, np.int64) if heuristic is None else np.ascontiguousarray(heuristic.layout, np.int64)
        return kernel, kinds, samplers, streams, layout, tunings

    def _game_heuristic(self) -> Any:
        """The game's heuristic's policy (None for a game without one): a table of random
        players only gets the loop bound to it too, one compiled loop a game (each costs
        5-11 s to compile on first use)."""
        from cardenvs.agents import has_heuristic, heuristic_class

        if not has_heuristic(self.spec_game):
            return None
        return heuristic_class(self.spec_game)(self.spec_game).compiled_policy()

    def _play_opponents_python(self, learner_rewards: np.ndarray) -> None:
        """The opponents' moves from Python, one call per opponent and kernel step (what
        the compiled loop does, for tables without a compiled seat)."""
        P = self.num_players
        while True:
            waiting = ~self._over & (self._current != self.seats)
            if not waiting.any():
                return
            self._actions[:] = ACT_HOLD
            if self._one_opponent:
                groups = [(self._opponents[0], np.flatnonzero(waiting))]
            else:  # by seat relative to the learner's
                rel = (self._current.astype(np.int64) - self.seats - 1) % P
                groups = [(opp, np.flatnonzero(waiting & (rel == k))) for k, opp in enumerate(self._opponents)]
            for opponent, rows in groups:
                if rows.size:
                    self._actions[rows] = _act_rows(opponent, self._obs[rows], self._masks[rows],
                                                    lambda rows=rows: env_records(self._core.states[rows]))
            bad = waiting & ((self._actions < 0) | (self._actions >= self.game.NUM_ACTIONS))
            ok = waiting & ~bad
            ok[ok] = self._masks[np.flatnonzero(ok), self._actions[ok]]
            if (waiting & ~ok).any():
                i = int(np.flatnonzero(waiting & ~ok)[0])
                raise ValueError(f"an opponent chose the illegal action {int(self._actions[i])} in game {i}; "
                                 f"nothing was stepped")
            self._kernel_step(learner_rewards)

    @property
    def _one_opponent(self) -> bool:
        return all(opp is self._opponents[0] for opp in self._opponents)

    def _start_matches(self, rows: np.ndarray) -> None:
        """New matches in ``rows``, played by the opponents up to the learner's first
        decision; a match they end before it is dealt again (``matches_without_learner``)."""
        while rows.size:
            self._restart(rows)
            self._play_opponents(self._pending)  # only the new matches wait on opponents now
            rows = rows[self._over[rows]]
            self.matches_without_learner += int(rows.size)

    def _restart(self, rows: np.ndarray) -> None:
        """New matches in ``rows`` (their random streams continue), new learner seats."""
        self._actions[:] = ACT_HOLD
        self._actions[rows] = ACT_RESET
        self.game.step_batch(self._core.states, self._actions, self._masks, self._obs, self._rewards, self._events,
                             self._current, self._mode)
        if self.fixed_seat is not None:
            self.seats[rows] = self.fixed_seat
        else:
            self.seats[rows] = self._seat_rng.integers(self.num_players, size=rows.size)
        # the forced opening moves played by the reset: their rewards and a match they end count too
        self._over[rows] = (self._events[rows] & MATCH_OVER) != 0
        self._returns[rows] = self._rewards[rows, : self.num_players]
        self._pending[rows] = self._rewards[rows, self.seats[rows]]
        self._decisions[rows] = 0

    def _observations(self) -> np.ndarray:
        return _scale(self._obs, self._low, self._high) if self.scale_observations else self._obs.copy()

    def _final_infos(self, rows: np.ndarray, cut: np.ndarray) -> dict[str, Any]:
        n = self.num_envs
        view = np.empty((rows.size, self.game.OBS_SIZE), dtype=self.game.OBS_DTYPE)
        self.game.observe_batch(self._core.states[rows], self.seats[rows], view)
        if self.scale_observations:
            view = _scale(view, self._low, self._high)
        final_obs = np.full(n, None, dtype=object)
        for k, i in enumerate(rows):
            final_obs[i] = view[k]
        mask = np.zeros(n, dtype=np.bool_)
        mask[rows] = True
        shares = np.zeros(n)
        returns = self._returns[rows]
        shares[rows] = win_shares(returns)[np.arange(rows.size), self.seats[rows]]
        # a match cut by the time limit has no outcome: no win share (as TimeLimit gives none)
        shares[rows[cut]] = np.nan
        share_mask = mask.copy()
        share_mask[rows[cut]] = False
        ret = np.zeros(n)
        ret[rows] = returns[np.arange(rows.size), self.seats[rows]]
        final_info = {"win_share": shares, "_win_share": share_mask, "return": ret, "_return": mask.copy(),
                      "seat": self.seats.copy(), "_seat": mask.copy()}
        return {"final_obs": final_obs, "_final_obs": mask, "final_info": final_info, "_final_info": mask.copy()}


# --------------------------------------------------------------------------- registration
def gym_id(env_id: str) -> str:
    """``"president_v0"`` -> ``"cardenvs/president-v0"``."""
    name, _, version = env_id.rpartition("_v")
    return f"cardenvs/{name}-v{version}"


#: learner decisions after which ``gymnasium.make``'s TimeLimit truncates an episode: far
#: above every id's default episode (a random learner's longest in 200: 188 in President,
#: under 170 elsewhere), so it only cuts a whole match asked for where one can run to
#: thousands of decisions (Classes, Rami 51); ``gymnasium.make(id, max_episode_steps=N)`` sets another
MAX_EPISODE_STEPS = 5000


def id_defaults(env_id: str) -> dict[str, Any]:
    """The keyword arguments a Gymnasium id passes to its env before the user's own: scaled
    observations (a network's input) and the game's ``gym_options`` (its episode)."""
    return {"game": env_id, "scale_observations": True, **GAMES[env_id].gym_options}


def register_envs() -> None:
    """Register ``cardenvs/<game>-v<N>`` (SingleAgentEnv) and its vector entry point
    (LearnerVecEnv, for ``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``)
    for every game, with the defaults of :func:`id_defaults` and a time limit of
    MAX_EPISODE_STEPS learner decisions; keyword arguments of ``gymnasium.make`` go to the
    env over them."""
    for env_id in GAMES:
        gid = gym_id(env_id)
        if gid in gymnasium.registry:
            continue
        gymnasium.register(
            gid,
            entry_point="cardenvs.integrations.gym:SingleAgentEnv",
            vector_entry_point="cardenvs.integrations.gym:LearnerVecEnv",
            kwargs=id_defaults(env_id),
            max_episode_steps=MAX_EPISODE_STEPS,
            disable_env_checker=False,
        )


__all__ = ["MAX_EPISODE_STEPS", "LearnerVecEnv", "SingleAgentEnv", "gym_id", "id_defaults", "register_envs"]
