"""Determinised search over a game's heuristic: the agent ``search`` (``search:K``,
``search:K:DEPTH``), and the rollout search that ``cardenvs train search`` labels with.

At each real decision with more than one legal action, the seat to move:

- deals the cards it cannot see anew, ``samples`` (K) times
  (:func:`cardenvs.core.step.deal_unseen`: only deals the seat cannot tell from the true
  one, the game's consistency rules applied; the states' own random streams drawn anew,
  so nothing of the true deal's future is read);
- tries every legal action in every deal and plays on with the game's heuristic at every
  seat, to the end of the round or for ``depth`` decisions (the same deals for every
  action, so their differences carry less noise than the values themselves);
- values each action by the mean over the deals of the seat's round reward minus the
  others' mean (a match of one round: its match reward, the win), and plays the best;
  ties go to the heuristic's move.

The searched actions of all the positions given to one call are stepped as one batch
through the game's compiled ``step_batch``; then each rollout is played on to its round's
end in compiled code, one game after the other (:func:`compiled_rollouts`; step by step
from Python for a cut rollout or a heuristic without a compiled policy). The state is
read only to be dealt anew from the seat's view: a test swaps hidden cards between two
opponents and gets the same decision.

The search needs a game's ``deal_unseen_batch`` kernel and its heuristic player. It
costs a round of heuristic play per legal action and deal at every decision;
``benchmarks/search_speed.py`` measures it (docs/notes/search.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.agents.base import Agent
from cardenvs.core.opponents import KIND_HEURISTIC, PLAY_DONE, opponents_kernel
from cardenvs.core.protocol import (
    ACT_HOLD,
    EVENT_ROUND_END,
    EVENT_TERMINATED,
    EVENT_TRUNCATED,
    MODE_AUTO_FORCED,
    GameSpec,
    check_options,
    checked_records,
)
from cardenvs.core.step import deal_unseen as deal_unseen_checked

ROUND_OVER = EVENT_ROUND_END | EVENT_TERMINATED | EVENT_TRUNCATED

#: deals a decision by game (``search`` without ``:K``), from quick measurements
#: (docs/notes/search.md: fewer deals play worse than the heuristic in Odin, and 64 gained
#: little over 32 anywhere); a game not named gets DEFAULT_SAMPLES
GAME_SAMPLES: dict[str, int] = {"president": 32, "odin": 32, "rami51": 32, "frime": 32, "classes": 32}
DEFAULT_SAMPLES = 32
#: rollouts (deals x legal actions x positions) searched together at most: memory stays
#: small (and when every step was a step of the whole batch, 2,048 rollouts a batch ran
#: Odin's and Rami 51's searches 10-25 % faster than 32,768: their states stayed in the cache)
MAX_TRIES = 2048
#: play the rollouts in compiled code where the heuristic can be (False: step by step from
#: Python, the same moves and values; ``benchmarks/search_speed.py --rollouts python
#: compiled`` times both)
ROLLOUTS_IN_KERNEL = True


def has_redeal(spec: GameSpec) -> bool:
    """Whether the game can deal the cards a seat cannot see anew (what the search needs)."""
    return hasattr(spec.module, "deal_unseen_batch")


def _game_name(game: Any) -> str:
    spec = getattr(game, "SPEC", None)
    return spec.name if spec is not None else getattr(game, "__name__", "game")


def _outputs(game: Any, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (np.empty((n, game.NUM_ACTIONS), np.bool_), np.empty((n, game.OBS_SIZE), game.OBS_DTYPE),
            np.empty(n, np.int32))


def step_once(game: Any, states: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, ...]:
    """One compiled step of ``states`` (legal actions or ACT_HOLD: no checks needed), forced
    moves played inside it; returns the observations, masks, rewards, events and the
    seats to move."""
    n = len(states)
    masks, obs, current = _outputs(game, n)
    rewards = np.empty((n, game.MAX_PLAYERS), np.float32)
    events = np.empty(n, np.int32)
    game.step_batch(states, np.ascontiguousarray(actions, np.int64), masks, obs, rewards, events, current,
                    MODE_AUTO_FORCED)
    return obs, masks, rewards, events, current


def deal_unseen(game: Any, states: np.ndarray, seats: np.ndarray, rng: np.random.Generator,
                keep_hands: bool = False) -> None:
    """Deal anew, in place, the cards ``seats[i]`` cannot see in game i, and refresh.

    The deal is :func:`cardenvs.core.step.deal_unseen`'s (rejection of deals that break
    what the seat can infer; the states' random streams drawn anew), seeded by one draw
    from ``rng``. ``keep_hands`` (training labels only: the search then reads the other
    hands, no fair player) deals only the cards no one holds, with the game's kernel, as
    the core entry has no such mode."""
    n = len(states)
    viewers = np.asarray(seats).astype(np.int64)
    if keep_hands:
        game.deal_unseen_batch(states, viewers, rng.random((n, game.UNSEEN_KEYS)), True)
        game.refresh_batch(states, *_outputs(game, n))
        return
    deal_unseen_checked(game, _game_name(game), states, viewers, int(rng.integers(2**63)), *_outputs(game, n))


def rollout_values(game: Any, heuristic: Any, states: np.ndarray, actions: np.ndarray, seats: np.ndarray,
                   players: int, depth: int | None = None) -> np.ndarray:
    """Each state after its action, played on by heuristic players to the round's end (or
    for ``depth`` more decisions: the rewards of a cut rollout so far): the seat's rewards
    minus the others' mean (the states' reward mode is per round, or per match). The
    states are changed (left somewhere along their rollouts). A whole rollout runs in
    compiled code where the heuristic has a compiled policy (:func:`compiled_rollouts`),
    else step by step from Python; both play the same moves and add the rewards up in
    the same order (the same values, to the last bit)."""
    if depth is None and ROLLOUTS_IN_KERNEL:
        compiled = compiled_rollouts(game, heuristic)
        if compiled is not None:
            return _rollouts_in_kernel(game, compiled, states, actions, seats, players)
    return _rollouts_from_python(game, heuristic, states, actions, seats, players, depth)


def compiled_rollouts(game: Any, heuristic: Any) -> tuple[Any, np.ndarray, np.ndarray] | None:
    """The compiled loop that plays a rollout to its round's end with ``heuristic`` at every
    seat (:func:`cardenvs.core.opponents.play_opponents`, each game played on alone), with
    the heuristic's layout and tuning; None when the heuristic has no compiled policy (or
    reads observations as a dtype the loop cannot give it). A Python loop of one batched
    step per move spent about 40 % of Frime's labelling in numpy's indexing and the
    agent's call around the kernels."""
    policy = getattr(heuristic, "compiled_policy", lambda: None)()
    if policy is None or policy.kind != KIND_HEURISTIC:
        return None
    kernel = opponents_kernel(game, policy)
    if kernel is None:
        return None
    tuning = np.asarray(policy.tuning, np.int64)
    return kernel, np.ascontiguousarray(policy.layout, np.int64), tuning if tuning.size else np.zeros(1, np.int64)


def _rollouts_in_kernel(game: Any, compiled: tuple[Any, np.ndarray, np.ndarray], states: np.ndarray,
                        actions: np.ndarray, seats: np.ndarray, players: int) -> np.ndarray:
    n = len(states)
    kernel, layout, tuning = compiled
    obs, masks, rewards, events, current = step_once(game, states, actions)
    returns = rewards[:, :players].astype(np.float64)
    over = (events & ROUND_OVER) != 0
    if not over.all():
        # every seat a heuristic (seat -1: no learner; a row of kinds and tunings per seat),
        # each game played on alone to its round's end
        tunings = np.ascontiguousarray(np.tile(tuning, (players, 1)))
        kinds = np.full(players, KIND_HEURISTIC, np.int64)
        moves = np.empty(n, np.int64)
        # no learner's rewards to add up, but their array float32 as LearnerVecEnv's: the
        # same types, so one compiled loop a game serves both
        no_learner = np.zeros(n, np.float32)
        status = kernel(states, moves, masks, obs, rewards, events, current, MODE_AUTO_FORCED,
                        np.full(n, -1, np.int64), over, no_learner, returns, kinds, np.zeros(players, np.int64),
                        np.zeros(1, np.uint64), layout, tunings, False, False, True, ROUND_OVER)
        if status != PLAY_DONE:  # the heuristic's kernel chose an illegal move: its values would be wrong
            raise RuntimeError(f"{_game_name(game)}: the heuristic chose the illegal action "
                               f"{int(moves[status])} in rollout {status}; nothing of its round was stepped")
    return _values(returns, seats, players)


def _values(returns: np.ndarray, seats: np.ndarray, players: int) -> np.ndarray:
    """Each rollout's value: its seat's rewards minus the others' mean."""
    mine = returns[np.arange(len(returns)), seats]
    return mine - (returns.sum(1) - mine) / (players - 1)


def _rollouts_from_python(game: Any, heuristic: Any, states: np.ndarray, actions: np.ndarray, seats: np.ndarray,
                          players: int, depth: int | None) -> np.ndarray:
    returns = np.zeros((len(states), players))  # every seat's rewards, added up step by step
    ids = np.arange(len(states))  # the try each row of ``states`` is
    alive = np.ones(len(states), bool)
    a = actions
    steps = 0
    while True:
        obs, masks, rewards, events, _ = step_once(game, states, a)
        returns[ids] += rewards[:, :players].astype(np.float64) * alive[:, None]
        alive &= (events & ROUND_OVER) == 0
        if not alive.any() or (depth is not None and steps >= depth):
            return _values(returns, seats, players)
        steps += 1
        if alive.mean() < 0.75:  # step only the tries still going
            states, ids, obs, masks = states[alive], ids[alive], obs[alive], masks[alive]
            alive = alive[alive]
        # the heuristic reads only the live rows: a held row's outputs are not written
        a = np.full(len(alive), ACT_HOLD, np.int64)
        live = np.flatnonzero(alive)
        a[live] = heuristic.act_batch(obs[live], masks[live])


def search_values(game: Any, heuristic: Any, states: np.ndarray, seats: np.ndarray, masks: np.ndarray,
                  samples: int, players: int, round_mode: int, rng: np.random.Generator | None,
                  keep_hands: bool = False, depth: int | None = None) -> list[np.ndarray]:
    """The search's value of every legal action in each of ``states`` (one array per
    state, over ``np.flatnonzero(masks[i])``), all searched in one batch; the states are
    not changed. ``keep_hands`` deals only the cards no one holds (the search reads the
    other hands). ``rng=None`` searches the true deal instead, ``samples`` times the same
    (it sees every card: an upper bound for measurements, not a fair player)."""
    legal = [np.flatnonzero(m) for m in masks]
    deals = np.repeat(states, samples)  # state-major: state i's deals, then state i+1's
    deal_seats = np.repeat(seats, samples)
    if rng is not None:
        deal_unseen(game, deals, deal_seats, rng, keep_hands)
    counts = np.repeat([len(x) for x in legal], samples)
    tries = np.repeat(deals, counts)  # each deal once per legal action
    tries["reward_mode"] = round_mode
    actions = np.concatenate([np.tile(x, samples) for x in legal])
    v = rollout_values(game, heuristic, tries, actions, np.repeat(deal_seats, counts), players, depth)
    out, k = [], 0
    for x in legal:
        m = len(x) * samples
        out.append(v[k:k + m].reshape(samples, len(x)).mean(0))
        k += m
    return out


def value_mode(game: Any, options: dict[str, Any]) -> tuple[int, int]:
    """The game's players and the reward mode its search values by: a match of one round by
    its outcome (the match rewards, the win), a longer one by each round's rewards."""
    template = game.make_template(**options)
    single = bool(template["single_round"][0])
    mode = game.make_template(**{**options, "reward_mode": "match" if single else "round"})["reward_mode"][0]
    return int(template["num_players"][0]), int(mode)


def best_actions(values: list[np.ndarray], masks: np.ndarray, hints: np.ndarray) -> np.ndarray:
    """The legal action of highest value in each row, the heuristic's (``hints``) on a tie."""
    out = np.empty(len(values), np.int64)
    for i, v in enumerate(values):
        legal = np.flatnonzero(masks[i])
        h = legal == hints[i]
        out[i] = hints[i] if h.any() and v[h][0] >= v.max() else legal[int(np.argmax(v))]
    return out


def _positive(value: Any, what: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"search: {what} must be a positive integer, got {value!r}")
    return int(value)


class SearchAgent(Agent):
    """Determinised search over the game's heuristic (see the module docstring).

    ``samples``: deals of the unseen cards a decision (default: ``GAME_SAMPLES``);
    ``depth``: decisions a rollout plays after the searched action (None: to the round's
    end; a cut rollout counts the rewards it got, which in most games come at the round's
    end, so a small depth is a time cap more than a setting). Call k of :meth:`act_states`
    draws its deals from a stream seeded by (``seed``, k) alone: the same seed and the
    same calls give the same decisions, and the true deal's future is never read. Reads
    the game's state (``reads_state``): call :meth:`act_states`."""

    name = "search"
    reads_state = True

    def __init__(self, spec: GameSpec, seed: int | None = None, options: dict[str, Any] | None = None,
                 samples: int | None = None, depth: int | None = None):
        super().__init__(spec, seed, options)
        from cardenvs.agents import available_agents, has_heuristic, make_agent

        if not has_redeal(spec):
            raise ValueError(f"search: {spec.name} cannot deal the cards a seat cannot see anew (the game has no "
                             f"deal_unseen_batch yet); available agents: {', '.join(available_agents(spec))}")
        if not has_heuristic(spec):
            raise ValueError(f"search: {spec.name} has no heuristic player for the rollouts")
        self.samples = _positive(GAME_SAMPLES.get(spec.name, DEFAULT_SAMPLES) if samples is None else samples,
                                 "samples")
        self.depth = None if depth is None else _positive(depth, "depth")
        opts = check_options(spec.name, self.game, {k: v for k, v in self.options.items() if k != "reward_mode"})
        self.players, self.round_mode = value_mode(self.game, opts)
        check = getattr(self.game, "check_unseen", None)
        if check is not None:  # options under which no fair re-deal exists: refused now, not mid-match
            check(self.game.make_template(**opts))
        self.heuristic = make_agent("heuristic", spec, options=self.options)
        self._entropy = np.random.SeedSequence(seed).entropy  # seed None: fresh entropy, kept
        self._calls = 0

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise TypeError("the search agent needs the game's state: call act_states(states, observations, masks) "
                        "(cardenvs eval and play do)")

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return self.act(observations, action_masks)

    def act_states(self, states: np.ndarray, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """One action per row, -1 where no action is legal; ``states[i]``: the record of
        row i's game, whose player to move is the searching seat (not changed: the search
        works on copies, and reads them only to deal them anew)."""
        masks = np.asarray(action_masks).astype(np.bool_, copy=False)
        states = checked_records(self.spec, states)  # a copy; from outside an env: through the scenario checks
        if states.size and (states["num_players"] != self.players).any():
            raise ValueError(f"search: made for {self.players} players (its options), given games of "
                             f"{sorted(set(states['num_players'].tolist()))} players")
        if states.shape[0] != masks.shape[0]:
            raise ValueError(f"search: {states.shape[0]} states for {masks.shape[0]} masks")
        rng = np.random.default_rng([*_words(self._entropy), self._calls])
        self._calls += 1
        # the seat to move and its legal actions, as the game derives them from the record
        seen, view, seats = _outputs(self.game, len(states))
        self.game.refresh_batch(states, seen, view, seats)
        if not np.array_equal(seen, masks):
            raise ValueError("search: the states given do not match the action masks (each row's record, please)")
        out = np.full(masks.shape[0], -1, np.int64)
        counts = masks.sum(1)
        one = np.flatnonzero(counts == 1)
        out[one] = masks[one].argmax(1)
        rows = np.flatnonzero(counts > 1)
        if rows.size == 0:
            return out
        # the heuristic's move from the record's own observation (checked), not the caller's array
        hints = np.asarray(self.heuristic.act_batch(view[rows], masks[rows]), np.int64)
        per_row = counts[rows] * self.samples
        start = 0
        while start < rows.size:  # chunks of at most MAX_TRIES rollouts (one state at least)
            stop = start + max(1, int(np.searchsorted(np.cumsum(per_row[start:]), MAX_TRIES, side="right")))
            part = rows[start:stop]
            values = search_values(self.game, self.heuristic, states[part], seats[part].astype(np.int64), masks[part],
                                   self.samples, self.players, self.round_mode, rng, depth=self.depth)
            out[part] = best_actions(values, masks[part], hints[start:stop])
            start = stop
        return out

    def __repr__(self) -> str:
        depth = "" if self.depth is None else f", depth={self.depth}"
        return f"SearchAgent({self.spec.env_id!r}, samples={self.samples}{depth}, seed={self.seed!r})"


def _words(entropy: int | list[int] | tuple[int, ...]) -> list[int]:
    """A SeedSequence's entropy as a list of non-negative ints (it may be one int or several)."""
    return [int(x) for x in entropy] if isinstance(entropy, (list, tuple)) else [int(entropy)]


def parse_search_name(name: str) -> tuple[int | None, int | None]:
    """``search``, ``search:K``, ``search:K:DEPTH`` or ``search::DEPTH`` -> (samples, depth),
    None where not given; ValueError naming the form otherwise."""
    parts = name.strip().split(":")[1:]
    if len(parts) > 2 or (len(parts) == 2 and not parts[1].strip()):
        raise ValueError(f"search takes search, search:K, search:K:DEPTH or search::DEPTH, got {name!r}")
    out: list[int | None] = [None, None]
    for k, (what, text) in enumerate(zip(("K (deals a decision)", "DEPTH (decisions a rollout)"), parts,
                                         strict=False)):
        if not text.strip():
            continue
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1:
            raise ValueError(f"search: {what} must be a positive integer, got {text!r} in {name!r}")
        out[k] = value
    return out[0], out[1]
