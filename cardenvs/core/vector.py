"""The vectorised fast core: a batch of games stepped by one compiled call (pgx-style)."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from cardenvs.core import jitcache
from cardenvs.core.bits import low_index, popcount
from cardenvs.core.match_record import MatchLog, MatchRecord, match_result
from cardenvs.core.protocol import (
    ACT_HOLD,
    ACT_RESET,
    EVENT_FORCED_SHIFT,
    EVENT_ILLEGAL,
    EVENT_ROUND_END,
    EVENT_TERMINATED,
    EVENT_TRUNCATED,
    MODE_AUTO_FORCED,
    MODE_AUTO_RESET,
    GameSpec,
    check_actions,
    check_flag,
    check_game_index,
    check_options,
    state_from_dict,
    state_to_dict,
)
from cardenvs.core.registry import PicklesBySpec
from cardenvs.core.rng import batch_seeds, check_seed, rng_state_from_seed
from cardenvs.core.step import UNSEEN_MISSING, deal_unseen


class VecState(NamedTuple):
    """What ``reset`` and ``step`` return; arrays have a leading batch dimension N.

    After ``step``, ``rewards``/``terminated``/``truncated`` belong to the step just
    taken; with auto-reset, a game that ended is already restarted, so its
    ``observation``/``legal_action_mask``/``current_player`` are the new game's.
    Each call returns fresh arrays: keeping them is safe.
    """

    observation: np.ndarray  # (N, OBS_SIZE) of the game's OBS_DTYPE, seen by the player to move
    legal_action_mask: np.ndarray  # (N, NUM_ACTIONS) bool
    current_player: np.ndarray  # (N,) int32
    rewards: np.ndarray  # (N, num_players) float32
    terminated: np.ndarray  # (N,) bool
    truncated: np.ndarray  # (N,) bool
    round_ended: np.ndarray  # (N,) bool: a round ended on this step
    illegal: np.ndarray  # (N,) bool: the action was illegal and penalised
    forced_moves: np.ndarray  # (N,) int32: forced moves played for the players in this call (auto_play_forced)
    # (N, num_players, OBS_SIZE): each seat's view of a match that ended on this step, before
    # the auto-reset (final_observation=True); rows of games that did not end are zero. None otherwise.
    final_observation: np.ndarray | None = None
    # (N, num_players, OBS_SIZE): every seat's view of the position, row p seat p's (so row
    # current_player is ``observation``): all hands, for centralised critics and oracle
    # teachers (privileged_observation=True). None otherwise; never a player's observation.
    privileged_observation: np.ndarray | None = None


class VecEnv(PicklesBySpec):
    """``num_envs`` independent games of one kind, stepped together.

    ``num_threads`` > 1 steps the batch in that many chunks on Python threads (at most one
    per usable CPU; the compiled step releases the GIL) when it holds at least
    ``parallel_threshold`` games (default 1,024; below that one thread is faster, as
    handing the chunks over costs more than the games). ``auto_reset`` restarts a finished game inside the same step.
    ``illegal_action="raise"`` checks the actions first and raises ValueError
    (nothing changes); ``"penalty"`` ends those games with -1 to the offender.
    ``auto_play_forced`` plays every decision that has exactly one legal action inside
    the compiled step, so that each returned position is a real choice (or a finished
    game); ``forced_moves`` counts them and their rewards add up into the step's.
    ``final_observation`` (with ``auto_reset``) also returns every seat's view of each
    match that ended, taken before its restart (for bootstrapping and self-play).
    ``privileged_observation`` also returns every seat's view of each position (every
    hand: what no player sees), for training only (a centralised critic, an oracle teacher).
    """

    def __init__(
        self,
        spec: GameSpec,
        num_envs: int,
        seed: int = 0,
        num_threads: int = 1,
        auto_reset: bool = True,
        illegal_action: str = "raise",
        parallel_threshold: int = 1024,
        auto_play_forced: bool = False,
        final_observation: bool = False,
        privileged_observation: bool = False,
        **options: Any,
    ):
        for name, value in (("num_envs", num_envs), ("num_threads", num_threads),
                            ("parallel_threshold", parallel_threshold)):
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"{name} must be an integer, got {value!r}")
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        seed = check_seed(seed)
        if illegal_action not in ("raise", "penalty"):
            raise ValueError(f"illegal_action must be 'raise' or 'penalty', got {illegal_action!r}")
        if num_threads < 1:
            raise ValueError(f"num_threads must be >= 1, got {num_threads}")
        self.spec = spec
        self.game = spec.module
        self.num_envs = int(num_envs)
        self.seed = int(seed)
        self.num_threads = int(num_threads)
        self.parallel = self.num_threads > 1 and self.num_envs >= parallel_threshold
        self.auto_reset = bool(auto_reset)
        for name, value in (("auto_reset", auto_reset), ("auto_play_forced", auto_play_forced),
                            ("final_observation", final_observation),
                            ("privileged_observation", privileged_observation)):
            check_flag(name, value)
        if final_observation and not auto_reset:
            raise ValueError("final_observation=True needs auto_reset=True (without it, a finished game stays "
                             "as it ended: observe it with observe(viewer))")
        self.auto_play_forced = bool(auto_play_forced)
        self.final_observation = bool(final_observation)
        self.privileged_observation = bool(privileged_observation)
        # the kernels' mode: with final observations, ended games are restarted by a second call
        self._mode = (MODE_AUTO_FORCED if self.auto_play_forced else 0) | (
            MODE_AUTO_RESET if self.auto_reset and not self.final_observation else 0
        )
        self.illegal_action = illegal_action
        options = check_options(spec.name, self.game, options)
        self._template = self.game.make_template(**options)
        self.options = dict(options)
        jitcache.announce_compile(self.game, spec.title)
        self._steps = 0
        # record_matches: the recorded games' matches in progress, and those ended since finished_matches()
        self._recorded: dict[int, MatchLog | None] | None = None
        self._ended_matches: list[tuple[int, MatchLog]] = []
        self.num_players = int(self._template["num_players"][0])
        self.num_actions = self.game.NUM_ACTIONS
        self.observation_size = self.game.OBS_SIZE
        self.states = np.zeros(self.num_envs, dtype=self.game.STATE_DTYPE)
        self._state: VecState | None = None

    # ------------------------------------------------------------------ reset / step
    def reset(self, seed: int | None = None, seeds: np.ndarray | list[int] | None = None) -> VecState:
        """New matches in every game. ``seeds`` gives each game its own integer seed
        (game i then deals exactly as the AEC env reset with ``seeds[i]``); otherwise
        per-game seeds are drawn from ``seed`` (default: the constructor's)."""
        if seeds is None:
            seeds = batch_seeds(self.seed if seed is None else check_seed(seed), self.num_envs)
        elif seed is not None:
            raise ValueError("give seed or seeds, not both")
        seeds = np.asarray(seeds)
        if seeds.shape != (self.num_envs,):
            raise ValueError(f"seeds must have shape ({self.num_envs},), got {seeds.shape}")
        if seeds.dtype.kind not in "iu" or (seeds.dtype.kind == "i" and seeds.size and seeds.min() < 0):
            raise ValueError(f"seeds must be integers >= 0, got dtype {seeds.dtype}")
        self.states[:] = self._template[0]
        self.states["rng"] = [rng_state_from_seed(int(s)) for s in seeds]
        obs, masks, current = self._new_outputs()
        events = self.game.reset_batch(self.states, masks, obs, current, self._mode & MODE_AUTO_FORCED)
        self._finished = np.zeros(self.num_envs, dtype=np.bool_)  # ended games, without auto-reset
        self._legal = masks.copy()  # the env's own: the caller may write into what it gets
        if self._recorded is not None:
            self._recorded = {i: MatchLog(self.states[i:i + 1], int(seeds[i]), self.num_players)
                              for i in self._recorded}
        zeros = np.zeros(self.num_envs, dtype=np.bool_)
        self._state = VecState(
            obs, masks, current, np.zeros((self.num_envs, self.num_players), np.float32),
            zeros, zeros.copy(), zeros.copy(), zeros.copy(), (events >> EVENT_FORCED_SHIFT).astype(np.int32),
            None, self._every_view(),
        )
        return self._state

    def step(self, actions: np.ndarray) -> VecState:
        """One decision in every game (the player to move in each plays ``actions[i]``)."""
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        actions = check_actions(actions, self.num_envs)  # a float, bool or string array is no action
        if self.illegal_action == "raise":
            self._check_legal(actions)  # finished games (no auto-reset) take any action: they ignore it
        if actions.min() < -1:
            actions = np.maximum(actions, -1)  # illegal, penalised (the kernels' pseudo-actions are < -1)
        obs, masks, current = self._new_outputs()
        n = self.num_envs
        rewards = np.empty((n, self.game.MAX_PLAYERS), dtype=np.float32)
        events = np.empty(n, dtype=np.int32)
        self._run(self.states, actions, masks, obs, rewards, events, current, self._mode)
        flags = np.empty((4, n), dtype=np.bool_)
        forced = np.empty(n, dtype=np.int32)
        _split_events(events, flags, forced)
        final = None
        if self.final_observation:
            final = self._restart_ended(flags[0] | flags[1], masks, obs, current, forced)
        if self._recorded is not None:
            self._record_step(actions, rewards, flags)
        if not self.auto_reset:
            self._finished |= flags[0] | flags[1]
        self._legal = masks.copy()  # the env's own: the caller may write into what it gets
        self._state = VecState(obs, masks, current, rewards[:, : self.num_players], *flags, forced, final,
                               self._every_view())
        if self._steps == 0:
            jitcache.mark_compiled(self.game)
        self._steps += 1
        return self._state

    def _run(self, states, actions, masks, obs, rewards, events, current, mode) -> None:
        if self.parallel:
            self.game.step_batch_parallel(states, actions, masks, obs, rewards, events, current, mode,
                                          self.num_threads)
        else:
            self.game.step_batch(states, actions, masks, obs, rewards, events, current, mode)

    def _restart_ended(self, ended, masks, obs, current, forced) -> np.ndarray:
        """Every seat's view of the games in ``ended``, then a new match in each of them
        (what auto-reset does inside the step), written into the step's output rows."""
        final = np.zeros((self.num_envs, self.num_players, self.observation_size), dtype=self.game.OBS_DTYPE)
        rows = np.flatnonzero(ended)
        if rows.size == 0:
            return final
        sub = self.states[rows]
        view = np.empty((rows.size, self.observation_size), dtype=self.game.OBS_DTYPE)
        for p in range(self.num_players):
            self.game.observe_batch(sub, np.full(rows.size, p, dtype=np.int64), view)
            final[rows, p] = view
        actions = np.full(self.num_envs, ACT_HOLD, dtype=np.int64)
        actions[rows] = ACT_RESET
        events = np.empty(self.num_envs, dtype=np.int32)
        rewards = np.empty((self.num_envs, self.game.MAX_PLAYERS), dtype=np.float32)
        self._run(self.states, actions, masks, obs, rewards, events, current, self._mode & MODE_AUTO_FORCED)
        forced[rows] += events[rows] >> EVENT_FORCED_SHIFT
        return final

    def _every_view(self) -> np.ndarray | None:
        """Every seat's observation of every game (privileged_observation), else None."""
        if not self.privileged_observation:
            return None
        views = np.empty((self.num_envs, self.num_players, self.observation_size), dtype=self.game.OBS_DTYPE)
        for p in range(self.num_players):
            views[:, p] = self.observe(p)
        return views

    def _new_outputs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return (
            np.empty((self.num_envs, self.observation_size), dtype=self.game.OBS_DTYPE),
            np.empty((self.num_envs, self.num_actions), dtype=np.bool_),
            np.empty(self.num_envs, dtype=np.int32),
        )

    def _check_legal(self, actions: np.ndarray) -> None:
        i = _first_illegal(self._legal, actions, self._finished)
        if i >= 0:
            ok = self._finished.copy()
            valid = (actions >= 0) & (actions < self.num_actions)
            ok[valid] |= self._legal[np.flatnonzero(valid), actions[valid]]
            a = int(actions[i])
            legal = np.flatnonzero(self._legal[i])
            names = ", ".join(f"{x} {self.game.action_to_str(x)!r}" for x in legal[:20])
            raise ValueError(
                f"illegal action {a} in game {i} (and {int((~ok).sum()) - 1} other games); "
                f"legal there: {names}; nothing was stepped"
            )

    # ------------------------------------------------------------------ extras
    def observe(self, viewer: np.ndarray | int) -> np.ndarray:
        """Observation of seat ``viewer`` (per game, or one seat for all) in every game."""
        v = self._check_viewers(viewer)
        out = np.empty((self.num_envs, self.observation_size), dtype=self.game.OBS_DTYPE)
        self.game.observe_batch(self.states, v, out)
        return out

    def resample_hidden(self, viewers: np.ndarray | int, seed: int) -> VecEnv:
        """A copy of this env (same game, options and settings) in whose game i every card
        seat ``viewers[i]`` cannot see is dealt anew at random, consistently with what that
        seat has seen (a determinisation, for search): its observation, and its mask when it
        is to move, stay the same; the hand sizes, the table and every public fact stay.
        ``viewers``: a seat per game, or one seat for all. The copy's random streams come
        from ``seed`` alone. This env is left as it was. What each game keeps as public is on
        its page; ValueError for a game that has no such deal yet. The copy holds the
        re-dealt positions as they are: with ``auto_play_forced``, a player to move left
        with a single legal action plays it at the next step, like any move."""
        if self._state is None:
            raise RuntimeError("call reset() before resample_hidden()")
        v = self._check_viewers(viewers)
        seed = check_seed(seed)
        if not hasattr(self.game, "deal_unseen_batch"):
            raise ValueError(f"{self.spec.name}: {UNSEEN_MISSING}")
        other = copy.deepcopy(self)
        other._recorded, other._ended_matches = None, []  # its positions were never played from a recorded start
        obs, masks, current = other._new_outputs()
        deal_unseen(self.game, self.spec.name, other.states, v, seed, masks, obs, current)
        other._legal = masks.copy()
        if other._state is not None:
            other._state = other._state._replace(observation=obs, legal_action_mask=masks, current_player=current,
                                                 privileged_observation=other._every_view())
        return other

    def _check_viewers(self, viewer: np.ndarray | int) -> np.ndarray:
        """A seat per game (or one for all) as an int64 array of shape (num_envs,)."""
        arr = np.asarray(viewer)
        if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
            raise TypeError(f"viewer must be a seat number (an integer or integer array), got {viewer!r}")
        if arr.size and (arr.min() < 0 or arr.max() >= self.num_players):
            raise ValueError(f"viewer must be a seat 0..{self.num_players - 1}, got {viewer!r}")
        if arr.ndim > 1 or (arr.ndim == 1 and arr.shape[0] not in (1, self.num_envs)):
            raise ValueError(f"viewer must be one seat or one per game ({self.num_envs}), got shape {arr.shape}")
        return np.broadcast_to(arr.astype(np.int64), (self.num_envs,)).copy()

    def state_dict(self, i: int) -> dict[str, Any]:
        """The full state of game ``i`` (see the AEC env's ``state_dict``)."""
        return state_to_dict(self.spec, self.states[check_game_index(i, self.num_envs)])

    def load_state_dict(self, i: int, scenario: dict[str, Any], seed: int | None = None) -> VecState:
        """Put game ``i`` in the state described by ``scenario`` (full or partial).

        The random parts of a partial scenario (hands given as None, the stock's order, a
        scenario without ``rng``) are drawn as in the AEC env's ``reset``: from ``seed``
        when given (the same seed and scenario load the same game in both), else from the
        game's own random stream, continued.

        A finished match (``terminated`` or ``truncated``) loads only with
        ``auto_reset=False``, where a finished game stays as it ended: with auto-reset a
        game is never left finished between steps, so it is refused (ValueError)."""
        if self._state is None:
            raise RuntimeError("call reset() before load_state_dict()")
        i = check_game_index(i, self.num_envs)
        # built aside and committed only once complete: a scenario that fails to load
        # raises and leaves the batch exactly as it was
        one = self._template[:1].copy()
        rng = self.states["rng"][i] if seed is None else rng_state_from_seed(check_seed(seed))
        one["rng"] = rng
        obs, masks, current = self._state.observation, self._state.legal_action_mask, self._state.current_player
        obs1, masks1, current1 = np.zeros_like(obs[:1]), np.zeros_like(masks[:1]), np.zeros_like(current[:1])
        self.game.reset_batch(one, masks1, obs1, current1)
        state_from_dict(self.spec, one[0], scenario, np.random.default_rng(int(rng)))
        self.game.refresh_batch(one, masks1, obs1, current1)
        finished = bool(one["terminated"][0] or one["truncated"][0])
        if finished and self.auto_reset:
            which = "terminated" if one["terminated"][0] else "truncated"
            raise ValueError(f"scenario {which!r}: game {i} would load a finished match, which auto_reset=True "
                             f"never holds between steps; load it into a VecEnv with auto_reset=False")
        self.states[i] = one[0]
        if self._recorded is not None and i in self._recorded:
            self._recorded[i] = MatchLog(self.states[i:i + 1], None, self.num_players)
        # new arrays: those returned before stay as the caller got them
        obs, masks, current = obs.copy(), masks.copy(), current.copy()
        obs[i], masks[i], current[i] = obs1[0], masks1[0], current1[0]
        self._finished[i] = finished
        self._legal = masks.copy()
        self._state = self._state._replace(observation=obs, legal_action_mask=masks, current_player=current,
                                           privileged_observation=self._every_view())
        return self._state

    # ------------------------------------------------------------------ match records
    def record_matches(self, games: Iterable[int] | None) -> None:
        """Record every match of the games ``games`` (indices), across auto-resets, for
        saving and replaying (:mod:`cardenvs.replay`); None stops recording. Recording
        starts at each game's next ``reset`` (dealt from a seed, which the record keeps),
        or, when the env is already reset, at the game's current position. A game that is
        not recorded costs nothing, and an env that records no game pays one test a step."""
        if games is None:
            self._recorded, self._ended_matches = None, []
            return
        if isinstance(games, (int, np.integer)):
            raise TypeError(f"games must be a list of game indices, got {games!r}")
        chosen = sorted({check_game_index(i, self.num_envs) for i in games})
        now = self._state is not None
        self._recorded = {i: MatchLog(self.states[i:i + 1], None, self.num_players) if now else None
                          for i in chosen}
        self._ended_matches = []

    def match_record(self, i: int) -> MatchRecord:
        """The record of the match being played in recorded game ``i`` (or, without
        auto-reset, the one that ended there), from its start to now."""
        i = check_game_index(i, self.num_envs)
        if self._recorded is None or i not in self._recorded:
            raise ValueError(f"game {i} is not recorded: choose it with record_matches([...]) first")
        log = self._recorded[i]
        if log is None:
            raise RuntimeError("call reset() before match_record()")
        return log.record(self.spec, self.options, self.num_players, self.auto_play_forced)

    def finished_matches(self) -> list[tuple[int, MatchRecord]]:
        """The recorded matches that ended since the last call, as (game index, record) in
        the order they ended; each is returned once. With auto-reset, a match's ``result``
        has no game scores (the game restarted in the same step): its returns and places."""
        ended, self._ended_matches = self._ended_matches, []
        return [(i, log.record(self.spec, self.options, self.num_players, self.auto_play_forced))
                for i, log in ended]

    def _record_step(self, actions: np.ndarray, rewards: np.ndarray, flags: np.ndarray) -> None:
        """Each recorded game's action and rewards of this step; a match that ended is put
        aside and, after an auto-reset, the next one is recorded from its start."""
        for i, log in self._recorded.items():
            if log is None or self._finished[i]:  # a finished game (no auto-reset) ignores its action
                continue
            if flags[3, i]:
                log.illegal = len(log.actions)
            log.actions.append(int(actions[i]))
            log.returns += rewards[i, : self.num_players]
            if flags[0, i] or flags[1, i]:
                final = None if self.auto_reset else self.states[i]
                log.result = match_result(self.spec, final, log.returns, not flags[0, i])
                self._ended_matches.append((i, log))
                if self.auto_reset:
                    self._recorded[i] = MatchLog(self.states[i:i + 1], None, self.num_players)


@njit(cache=True, no_cfunc_wrapper=True)
def _first_illegal(masks, actions, finished):
    """Index of the first game whose action is not legal (finished games take anything); -1 if none."""
    for i in range(masks.shape[0]):
        a = actions[i]
        if not finished[i] and not (0 <= a < masks.shape[1] and masks[i, a]):
            return i
    return -1


@njit(cache=True, no_cfunc_wrapper=True)
def _split_events(events, flags, forced):
    """EVENT_* bits into the terminated, truncated, round_ended and illegal rows of
    ``flags``, and the count of forced moves into ``forced``."""
    for i in range(events.shape[0]):
        e = events[i]
        flags[0, i] = (e & EVENT_TERMINATED) != 0
        flags[1, i] = (e & EVENT_TRUNCATED) != 0
        flags[2, i] = (e & EVENT_ROUND_END) != 0
        flags[3, i] = (e & EVENT_ILLEGAL) != 0
        forced[i] = e >> EVENT_FORCED_SHIFT


@njit(cache=True, no_cfunc_wrapper=True)
def sample_row(row, words, x):
    """One uniformly random legal action of the mask ``row`` (its bytes, as uint8) and the
    stream's next state: ``(action, x)`` (xorshift64* over ``x``), the k-th legal action, k
    uniform below their count; ``(-1, x)``, the stream unmoved, when none is legal.
    ``words`` is work space of ``ceil(len(row) / 64)`` int64. The row is packed into 64-bit
    words first, without branches, so that the count and the pick skip illegal actions by
    the word (half the time of a scan with a branch per action). Written once, for the
    random agent's batches (:func:`_sample_legal`) and the compiled opponents' loop
    (:mod:`cardenvs.core.opponents`), which must draw the same moves."""
    n_actions = row.shape[0]
    n = 0
    for q in range(words.shape[0]):
        w = np.int64(0)
        for b in range(min(64, n_actions - 64 * q)):
            w |= np.int64(row[64 * q + b]) << np.int64(b)
        words[q] = w
        n += popcount(w)
    if n == 0:
        return -1, x  # no legal action: a finished game, or a bug the caller will see
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    k = np.int64(((x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(11)) % np.uint64(n))
    q = 0
    c = popcount(words[0])
    while k >= c:  # the word holding the k-th legal action
        k -= c
        q += 1
        c = popcount(words[q])
    w = words[q]
    for _ in range(k):
        w &= w - 1
    return 64 * q + low_index(w), x


@njit(cache=True, no_cfunc_wrapper=True)
def _sample_legal(masks, rng_state, out):
    """One uniformly random legal action per row (:func:`sample_row`), -1 where none is
    legal; ``rng_state[0]`` is the stream, advanced once per row that has a legal action."""
    x = rng_state[0]
    flags = masks.view(np.uint8)
    words = np.zeros((masks.shape[1] + 63) // 64, dtype=np.int64)
    for i in range(masks.shape[0]):
        a, x = sample_row(flags[i], words, x)
        out[i] = a
    rng_state[0] = x


class RandomSampler:
    """Compiled batched random-legal-action sampler, seeded."""

    def __init__(self, seed: int = 0):
        self._rng = np.array([rng_state_from_seed(seed) | np.uint64(1)], dtype=np.uint64)

    @property
    def stream(self) -> np.ndarray:
        """The sampler's random stream, a (1,) uint64 array that each call advances in
        place (the compiled opponents' loop draws from it as the sampler would)."""
        return self._rng

    def __call__(self, masks: np.ndarray) -> np.ndarray:
        masks = np.ascontiguousarray(masks, dtype=np.bool_)
        out = np.empty(masks.shape[0], dtype=np.int64)
        _sample_legal(masks, self._rng, out)
        return out
