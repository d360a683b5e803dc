"""One PettingZoo AEC environment for every game: a batch of one over the game's kernels."""

from __future__ import annotations

import copy
from typing import Any

import numba
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env import AECIterable
from pettingzoo.utils.env_logger import EnvLogger

from cardenvs.core import jitcache
from cardenvs.core.match_record import MatchLog, MatchRecord, match_result
from cardenvs.core.protocol import (
    EVENT_FORCED_SHIFT,
    EVENT_REWARD,
    EVENT_ROUND_END,
    EVENT_TERMINATED,
    EVENT_TRUNCATED,
    MODE_AUTO_FORCED,
    GameSpec,
    check_action,
    check_options,
    check_reset_options,
    env_records,
    state_from_dict,
    state_to_dict,
)
from cardenvs.core.registry import PicklesBySpec
from cardenvs.core.rng import check_seed, rng_state_from_seed
from cardenvs.core.step import UNSEEN_MISSING, deal_unseen

ILLEGAL_MODES = ("raise", "penalty")
_MATCH_OVER = EVENT_TERMINATED | EVENT_TRUNCATED
_ROUND_OR_MATCH_OVER = EVENT_ROUND_END | _MATCH_OVER


class CardGameEnv(PicklesBySpec, AECEnv):
    """A card game as a PettingZoo AEC env.

    Agents ``player_0 .. player_{n-1}`` in seat order (play goes to the left, i.e. to
    the next index). Observations are ``{"observation": Box of the game's OBS_DTYPE
    (int16; float32 for President), "action_mask": int8 Box}``; the mask of an agent
    that is not to move is all zeros. The rules run in the game's numba kernels on a
    batch of one game, the same kernels as :class:`cardenvs.core.vector.VecEnv`.

    ``illegal_action="raise"`` (default) raises ValueError on an illegal action and
    changes nothing; ``"penalty"`` ends the game with -1 to the offender.

    ``auto_play_forced=True`` plays every decision that has exactly one legal action for
    its player, inside the compiled step: ``agent_selection`` is always a real choice
    (or a finished match), the skipped decisions' rewards arrive with the step that was
    played, and ``forced_moves`` counts the moves played by the last ``step`` or
    ``reset``. A loaded scenario is shown as loaded, even when its first decision is forced.
    """

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "name": "cardenvs", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, spec: GameSpec, render_mode: str | None = None, illegal_action: str = "raise",
                 auto_play_forced: bool = False, **options: Any):
        super().__init__()
        if render_mode not in (None, "human", "ansi", "rgb_array"):
            raise ValueError(f"render_mode must be None, 'human', 'ansi' or 'rgb_array', got {render_mode!r}")
        if illegal_action not in ILLEGAL_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_MODES}, got {illegal_action!r}")
        self.spec = spec
        self.game = spec.module
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        if not isinstance(auto_play_forced, (bool, np.bool_)):
            raise TypeError(f"auto_play_forced must be True or False, got {auto_play_forced!r}")
        self.auto_play_forced = bool(auto_play_forced)
        self._mode = MODE_AUTO_FORCED if self.auto_play_forced else 0
        self.forced_moves = 0
        self.metadata = dict(self.metadata, name=spec.env_id)
        options = check_options(spec.name, self.game, options)
        self._template = self.game.make_template(**options)
        jitcache.announce_compile(self.game, spec.title)
        self._marked = False  # the first step records that the kernels are compiled
        self.options = dict(options)
        self.num_players = int(self._template["num_players"][0])
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        low, high = self.game.observation_bounds(self._template)
        n_actions = self.game.NUM_ACTIONS
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, (self.game.OBS_SIZE,), self.game.OBS_DTYPE),
                "action_mask": spaces.Box(0, 1, (n_actions,), np.int8),
            }
        )
        self._action_space = spaces.Discrete(n_actions)
        self._n_actions = int(n_actions)
        self.observation_spaces = {a: self._observation_space for a in self.possible_agents}
        self.action_spaces = {a: self._action_space for a in self.possible_agents}
        # one-game buffers the kernels write into
        self._state = self._template.copy()
        self._mask = np.zeros((1, n_actions), dtype=np.bool_)
        self._obs = np.zeros((1, self.game.OBS_SIZE), dtype=self.game.OBS_DTYPE)
        self._rewards = np.zeros((1, self.game.MAX_PLAYERS), dtype=np.float32)
        self._events = np.zeros(1, dtype=np.int32)
        self._current = np.zeros(1, dtype=np.int32)
        self._action = np.zeros(1, dtype=np.int64)
        self._viewer = np.zeros(1, dtype=np.int64)
        self._other_obs = np.zeros((1, self.game.OBS_SIZE), dtype=self.game.OBS_DTYPE)
        self._bind_rows()
        self._running = False  # a match runs: every agent alive (observe's and last's fast path)
        self._seeded = False
        self._log: MatchLog | None = None  # the match since the last reset (match_record)
        self._last_move: tuple[int, int] | None = None  # (seat, action) of the last step: the pictures' status
        self.agents = []

    # ------------------------------------------------------------------ per-step fast paths
    # The per-step Python cost (a few microseconds) is what the AEC env's speed is made of:
    # the rows the step reads are views made once, and the compiled step is called through
    # its entry point for these buffers' exact types, which skips the dispatcher's type
    # resolution of eight arguments (about half the cost of the call). A copy or an
    # unpickled env makes its views and finds its entry point again.
    def _bind_rows(self) -> None:
        self._obs_row = self._obs[0]
        self._mask_row = self._mask[0]
        self._mask_i8 = self._mask[0].view(np.int8)
        # the step's arguments in the order the kernel takes them (one tuple: no eight
        # attribute loads per step)
        self._step_args = (self._state, self._action, self._mask, self._obs, self._rewards, self._events,
                           self._current, self._mode)
        self._step_entry = None  # found by the first step (after the dispatcher compiled it)

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        for name in ("_obs_row", "_mask_row", "_mask_i8", "_step_args", "_step_entry"):
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._bind_rows()

    def _run_step(self) -> None:
        """The game's compiled step on the one-game buffers."""
        entry = self._step_entry
        if entry is not None:
            entry(*self._step_args)
            return
        step_batch = self.game.step_batch
        step_batch(*self._step_args)
        overloads = getattr(step_batch, "overloads", None)  # absent with the JIT disabled
        if overloads is not None:
            sig = tuple(numba.typeof(x) for x in self._step_args)
            compiled = overloads.get(sig)
            if compiled is not None:
                self._step_entry = compiled.entry_point

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    # ------------------------------------------------------------------ reset / step
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """New match. ``seed`` fixes the deal (without one, the random stream of the
        previous match continues). ``options={"scenario": d}`` starts from a full or
        partial ``state_dict()``-style dict instead of the deal."""
        if seed is not None:
            rng_seed = check_seed(seed)
            rng = rng_state_from_seed(rng_seed)
        elif self._seeded:
            rng = self._state["rng"][0]
        else:
            rng = rng_state_from_seed(int(np.random.SeedSequence().entropy) & ((1 << 63) - 1))
        scenario = check_reset_options(options).get("scenario")
        # built aside and committed only once complete: a scenario that fails to load
        # raises and leaves the env exactly as it was
        state = self._template.copy()
        state["rng"] = rng
        mask, obs, current = np.zeros_like(self._mask), np.zeros_like(self._obs), np.zeros_like(self._current)
        events = self.game.reset_batch(state, mask, obs, current, self._mode if scenario is None else 0)
        if scenario is not None:
            state_from_dict(self.spec, state[0], scenario, np.random.default_rng(int(rng)))
            self.game.refresh_batch(state, mask, obs, current)
        self._seeded = True
        self._state[:] = state
        self._log = MatchLog(state, None if seed is None else int(rng_seed), self.num_players)
        self._last_move = None
        self._mask[:] = mask
        self._obs[:] = obs
        self._current[:] = current
        self.forced_moves = int(events[0]) >> EVENT_FORCED_SHIFT
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self._rewards_dirty = False
        done = bool(self._state["terminated"][0] or self._state["truncated"][0])
        self.terminations = {a: bool(self._state["terminated"][0]) for a in self.agents}
        self.truncations = {a: bool(self._state["truncated"][0]) for a in self.agents}
        self._running = not done
        self._set_infos()
        self.agent_selection = self.agents[int(self._current[0])] if not done else self.agents[0]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if not self._running:
            if not self.agents:  # the match is over and every agent was stepped out
                EnvLogger.warn_step_after_terminated_truncated()
                return
            if self.terminations[agent] or self.truncations[agent]:
                self._was_dead_step(action)
                return
        if type(action) is int and 0 <= action < self._n_actions:
            a = action  # the common case; anything else is checked in full below
        elif action is None:
            raise ValueError(f"{agent} is to move: step(None) is only for a finished agent")
        else:
            a = check_action(action, self._n_actions)  # 3.7, "3" or True would be read as another action
        legal = self._mask_row[a]
        if not legal and self.illegal_action == "raise":
            raise ValueError(self._illegal_message(agent, a))
        self._cumulative_rewards[agent] = 0.0
        self._action[0] = a
        log = self._log  # None in a re-dealt copy (resample_hidden): it records nothing
        if log is not None:
            if not legal:
                log.illegal = len(log.actions)
            log.actions.append(a)
        self._last_move = (self._index[agent], a)
        entry = self._step_entry
        if entry is not None:
            entry(*self._step_args)
        else:
            self._run_step()
        if not self._marked:
            self._marked = True
            jitcache.mark_compiled(self.game)
        events = self._events.item()
        self.forced_moves = events >> EVENT_FORCED_SHIFT
        if self._rewards_dirty or events & EVENT_REWARD:
            # the dicts are rebuilt only when this step or the previous one had rewards
            rewards = self._rewards[0]
            self.rewards = {ag: float(rewards[i]) for i, ag in enumerate(self.agents)}
            self._rewards_dirty = bool(events & EVENT_REWARD)
            self._accumulate_rewards()
            if log is not None:
                log.returns += self._rewards[0, : self.num_players]
        if events & _ROUND_OR_MATCH_OVER:
            self._set_infos()
        if events & _MATCH_OVER:
            term = bool(events & EVENT_TERMINATED)
            if log is not None:
                log.result = match_result(self.spec, self._state[0], log.returns, not term)
            self.terminations = {ag: term for ag in self.agents}
            self.truncations = {ag: not term for ag in self.agents}
            self._running = False
            self.agent_selection = agent
        else:
            self.agent_selection = self.agents[self._current.item()]
        if self.render_mode == "human":
            self.render()

    def match_record(self) -> MatchRecord:
        """The record of the match since the last ``reset``, finished or not: its options,
        its start (``state_dict``), the seed it was dealt from (if any), every action, and
        its result once over. Save and replay it with :mod:`cardenvs.replay`. ValueError if
        an illegal action was penalised (``illegal_action="penalty"``): a replay takes
        legal moves only."""
        if self._log is None:
            raise RuntimeError("no match recorded: call reset() first (a re-dealt copy from resample_hidden "
                               "has no record)")
        return self._log.record(self.spec, self.options, self.num_players, self.auto_play_forced)

    def _set_infos(self) -> None:
        info = self.game.round_info(self._state[0])
        self.infos = {a: dict(info) for a in self.agents}

    def _illegal_message(self, agent: str, a: int) -> str:
        legal = ", ".join(f"{i} {self.action_to_str(i)!r}" for i in self.legal_actions())
        return f"illegal action {a} ({self.action_to_str(a)!r}) for {agent}; legal now: {legal}"

    # ------------------------------------------------------------------ observation
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        p = self._index[agent]
        if self._running:
            done = False  # nobody is finished while the match runs
        else:
            done = self.terminations.get(agent, False) or self.truncations.get(agent, False)
        if not done and p == self._current.item():
            return {"observation": self._obs_row.copy(), "action_mask": self._mask_i8.copy()}
        self._viewer[0] = p
        self.game.observe_batch(self._state, self._viewer, self._other_obs)
        return {
            "observation": self._other_obs[0].copy(),
            "action_mask": np.zeros(self._n_actions, dtype=np.int8),
        }

    def last(self, observe: bool = True) -> tuple:
        """Observation, cumulative reward, terminated, truncated and info of the agent to move
        (PettingZoo's ``last``)."""
        agent = self.agent_selection
        if not observe:
            obs = None
        elif self._running and self._index[agent] == self._current.item():
            obs = {"observation": self._obs_row.copy(), "action_mask": self._mask_i8.copy()}  # observe's fast path
        else:
            obs = self.observe(agent)
        return (
            obs,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        """PettingZoo's ``agent_iter``: yields ``agent_selection`` until no agent is left
        (or ``max_iter`` times), its iterator a generator (cheaper than a class's ``__next__``)."""
        return _AgentIterable(self, max_iter)

    def privileged_observation(self) -> np.ndarray:
        """Every seat's observation of the position, row p seat p's: all the hands, which
        no player sees. For training only (a centralised critic, an oracle teacher); no
        agent's ``observe`` ever holds it."""
        views = np.empty((self.num_players, self.game.OBS_SIZE), dtype=self.game.OBS_DTYPE)
        for p in range(self.num_players):
            self._viewer[0] = p
            self.game.observe_batch(self._state, self._viewer, self._other_obs)
            views[p] = self._other_obs[0]
        return views

    def resample_hidden(self, viewer: str, seed: int) -> CardGameEnv:
        """A copy of this env in which every card ``viewer`` (an agent name) cannot see is
        dealt anew at random, consistently with what it has seen (a determinisation, for
        search): its observation, and its mask when it is to move, stay the same, and so do
        the hand sizes, the table and every public fact. The copy's random stream comes from
        ``seed`` alone; this env is left as it was. ValueError for a game that has no such
        deal yet (see the game's page)."""
        if not self._seeded:
            raise RuntimeError("call reset() before resample_hidden()")
        if viewer not in self._index:
            raise ValueError(f"viewer must be one of {self.possible_agents}, got {viewer!r}")
        seed = check_seed(seed)
        seats = np.array([self._index[viewer]], dtype=np.int64)
        if not hasattr(self.game, "deal_unseen_batch"):
            raise ValueError(f"{self.spec.name}: {UNSEEN_MISSING}")
        other = copy.deepcopy(self)
        other._log = None  # its position was never played from this match's start
        deal_unseen(self.game, self.spec.name, other._state, seats, seed, other._mask, other._obs, other._current)
        return other

    # ------------------------------------------------------------------ helpers for people and search
    def legal_actions(self) -> list[int]:
        """Legal actions of the agent to move, as ints."""
        return np.flatnonzero(self._mask[0]).tolist()

    def action_to_str(self, action: int) -> str:
        """The action in card notation (grammar on the game's docs page)."""
        return self.game.action_to_str(action)

    def public_action_str(self, action: int) -> str:
        """The action as the other players see it (a card given in secret shows no card)."""
        public = getattr(self.game, "public_action_str", None)
        return public(action) if public is not None else self.game.action_to_str(action)

    def render_text(self, viewer: int | str | None = None) -> str:
        """The table as text: every hand (viewer None), or what one seat sees."""
        return self.game.render_text(self._state[0], self._viewer_seat(viewer))

    def render_rgb(self, viewer: int | str | None = None) -> np.ndarray:
        """The table as an (H, W, 3) uint8 image: what one seat (an agent name or a seat
        number) sees, its own cards face up and the others' face down, or every hand
        (viewer None). Needs Pillow (``pip install "cardenvs[render]"``)."""
        from cardenvs.core.picture import table_rgb

        seat = self._viewer_seat(viewer)
        return table_rgb(self.spec, self._state[0], seat, last_move=self._last_move_text(seat))

    def render_svg(self, viewer: int | str | None = None) -> str:
        """The same picture as :meth:`render_rgb`, as an SVG document; the viewer's own
        cards are ``<g class="card in-hand" data-card="Qs">`` groups."""
        from cardenvs.core.picture import table_svg

        seat = self._viewer_seat(viewer)
        return table_svg(self.spec, self._state[0], seat, last_move=self._last_move_text(seat))

    def _last_move_text(self, viewer: int | None) -> str | None:
        """The last step's move as ``viewer`` saw it (a card given in secret shows no card
        to the others)."""
        if self._last_move is None:
            return None
        seat, a = self._last_move
        move = self.action_to_str(a) if viewer is None or viewer == seat else self.public_action_str(a)
        return f"{self.possible_agents[seat]}: {move}"

    def _viewer_seat(self, viewer: Any) -> int | None:
        """A viewer as a seat: None, an agent name or a seat number (ValueError for a name or
        seat outside the match, TypeError for another type)."""
        if viewer is None:
            return None
        if isinstance(viewer, str):
            if viewer not in self._index:
                raise ValueError(f"viewer must be one of {self.possible_agents}, a seat or None, got {viewer!r}")
            return self._index[viewer]
        if isinstance(viewer, (bool, np.bool_)) or not isinstance(viewer, (int, np.integer)):
            raise TypeError(f"viewer must be an agent name, a seat 0..{self.num_players - 1} or None, got {viewer!r}")
        if not 0 <= viewer < self.num_players:
            raise ValueError(f"viewer must be a seat 0..{self.num_players - 1}, an agent name or None, got {viewer!r}")
        return int(viewer)

    def str_to_action(self, text: str) -> int:
        """Inverse of :meth:`action_to_str`; ValueError quoting the text if unreadable."""
        return self.game.str_to_action(text)

    def state_dict(self) -> dict[str, Any]:
        """The full state (hands, piles, scores, turn, phase, rng) as a JSON-able dict."""
        return state_to_dict(self.spec, self._state[0])

    def state_record(self) -> np.ndarray:
        """A copy of the game's record (shape (1,), the game's ``STATE_DTYPE``), as the
        vector env's ``states`` holds each game. Changing the copy changes nothing here; an
        agent that reads the state (``act_states``: the search) checks such a record as it
        checks any given from outside (the env's own front ends give it theirs unchanged)."""
        return self._state.copy()

    def _env_records(self) -> np.ndarray:
        """The game's record as the env's own (a copy marked ``EnvRecords``), for the package's
        front ends that hand it to an agent that reads the state."""
        return env_records(self._state.copy())

    def clone(self) -> CardGameEnv:
        """An independent copy at the same state (for search)."""
        return copy.deepcopy(self)

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: the table as text; ``"rgb_array"``: an image of the table seen by the
        agent to move (every hand once the match is over); ``"human"``: the text, printed."""
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            running = self.agents and not (self._state["terminated"][0] or self._state["truncated"][0])
            return self.render_rgb(self.agent_selection if running else None)
        text = self.render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # the game module is not picklable: store the registry id and look it up again
    def __str__(self) -> str:
        return self.spec.env_id


class _AgentIterable(AECIterable):
    """``agent_iter``'s iterable: each ``iter`` a new generator over the env's turns."""

    def __iter__(self):
        env, left = self.env, self.max_iter
        while env.agents and left > 0:
            left -= 1
            yield env.agent_selection


class BoundsWrapper(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's AssertOutOfBoundsWrapper, with the env's own checks instead of its
    assertion: an action of the wrong type is a TypeError, one out of range a ValueError
    (as from the raw env), and the check is cheap (``Discrete.contains`` costs more than a
    whole game step)."""

    def __init__(self, env: CardGameEnv):
        super().__init__(env)
        self._raw = env

    def step(self, action: Any) -> None:
        self._raw.step(action)  # checks the action first: TypeError or ValueError, nothing changed

    def last(self, observe: bool = True) -> tuple:
        return self._raw.last(observe)


class OrderWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper; ``last`` and ``agent_iter`` go straight to
    the env once reset (the generic attribute forwarding dominated the step time)."""

    def __init__(self, env: BoundsWrapper):
        super().__init__(env)
        self._raw = env.unwrapped

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        super().reset(seed=seed, options=options)
        # Reset once, the order is kept for good: ``step`` and ``last`` become the env's own
        # methods (a layer of Python calls less each step). BoundsWrapper.step only hands the
        # action on (the env checks it), and the env warns as this wrapper would when stepped
        # with no agent left. (``_has_updated`` serves PettingZoo's order-enforcing iterator
        # only, which ``agent_iter`` below does not use.)
        self.step = self._raw.step
        self.last = self._raw.last

    def step(self, action: Any) -> None:
        super().step(action)  # before the first reset: PettingZoo's error

    def last(self, observe: bool = True) -> tuple:
        if not self._has_reset:
            raise AttributeError("last cannot be called before reset")
        return self._raw.last(observe)

    def agent_iter(self, max_iter: int = 2**63):
        if not self._has_reset:
            raise AttributeError("agent_iter cannot be called before reset")
        return self._raw.agent_iter(max_iter)


def make_aec(spec: GameSpec, render_mode: str | None = None, **options: Any) -> AECEnv:
    """The raw env behind PettingZoo's standard wrappers (bounds, call order).

    Illegal actions are handled by the env itself (``illegal_action`` option), so
    ``TerminateIllegalWrapper`` is not added."""
    env = CardGameEnv(spec, render_mode=render_mode, **options)
    return OrderWrapper(BoundsWrapper(env))
