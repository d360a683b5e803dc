"""Self-play masked PPO over the vector env, in one file (``cardenvs train ppo GAME``).

One shared policy plays every seat it is given. Each of the ``num_envs`` matches of the
batch gets a table when it is dealt:

- ``self``: the policy at every seat (self-play);
- ``heuristic``: the policy at one seat, the game's heuristic at the others;
- ``pool``: the policy at one seat, each other seat drawn from the opponent pool: the
  heuristic, random play, and past snapshots of the policy (kept so that it does not
  forget how to beat its earlier selves).

The batch is stepped with forced moves played inside the compiled step, so every
position the policy sees is a real choice. At step t of match n the seat to move is
``players[t, n]``; the rewards of the step go to every seat. Advantages follow each seat's
own decisions (:func:`cardenvs.agents.training.selfplay.seat_advantages`), so the four seats of a
self-play table are four interleaved trajectories; only the policy's decisions train it.

The actor and the critic are separate MLPs (as in CleanRL and Stable-Baselines3's
``MlpPolicy``). Observations are normalised by running statistics (mean and variance
over everything the policy has seen, clipped to +-5); the statistics travel with the
policy. The run writes into its folder:

- ``metrics.csv``: one row per iteration (decisions, samples/s, live win rates, losses,
  the time split between env, opponents, inference, advantages, update, evaluation);
- ``eval.csv``: periodic evaluations of the greedy policy against three heuristic players
  and three random players (win share with a 95 % interval, truncated matches apart);
- ``curve.png`` (with matplotlib): those win shares over wall time and decisions;
- ``checkpoint.pt``: everything to resume (``--resume``), with the config and env id;
- ``policy.npz``: the policy alone, for ``ppo:PATH`` (numpy, no torch needed to play).
"""

from __future__ import annotations

import copy
import csv
import json
import math
import os
import sys
import time
from collections import deque
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from cardenvs.agents.networks import (
    CHECKPOINT_FORMAT,
    _torch,
    actor_input_size,
    build_networks,
    load_checkpoint,
)
from cardenvs.agents.ppo import policy_network
from cardenvs.agents.training.running_stats import RunningStats
from cardenvs.agents.training.selfplay import seat_advantages
from cardenvs.core.registry import get_spec

TABLE_SELF, TABLE_HEURISTIC, TABLE_POOL, TABLE_RANDOM = 0, 1, 2, 3
LEARNER, HEURISTIC, RANDOM = -1, 0, 1  # controllers of a seat; snapshots are 2, 3, ...
# decisions after which an evaluation match is cut short: 2.7x the longest match of
# heuristic players measured in any game (2-player Rami 51: 9,234 decisions in 1,000
# matches, benchmarks/results/stalled_rounds.md)
EVAL_MAX_STEPS = 25_000


#: the defaults of runs saved before version 0.5, where a checkpoint may lack them
BEFORE_0_5 = {"teacher_until": 0.25}


@dataclass
class TrainConfig:
    """Everything that defines a run (saved in its checkpoint)."""

    game: str
    num_players: int | None = None  # the game's default if None
    single_round: bool = False  # the game played is one round (evaluated as such)
    options: dict[str, Any] = field(default_factory=dict)  # other game options
    # training-side choices: the episodes and rewards the policy trains on (evaluation
    # always plays the game above, with its own match reward)
    train_single_round: bool = False  # train on single rounds of the game
    train_reward_mode: str | None = None  # e.g. "round": the game's per-round reward
    minutes: float | None = 60.0  # wall-clock budget (None: no limit)
    decisions: int | None = None  # budget in the policy's decisions (None: no limit)
    seed: int = 0
    out: str = "runs/default"
    num_envs: int = 256
    rollout_steps: int = 64  # steps of the whole batch per iteration
    hidden: tuple[int, ...] = (256, 256)
    activation: str = "tanh"
    learning_rate: float = 1e-3
    anneal: bool = True  # learning rate down linearly over the budget, to 2 % of it
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip: float = 0.2
    epochs: int = 4
    minibatch: int = 4096
    entropy_coef: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    # shares of the tables; a self-play table gives P samples per decision round, the others one,
    # so 5 % of self-play tables are about 15 % of the samples at 4 players
    table_self: float = 0.05  # the policy at every seat
    table_heuristic: float = 0.8  # the policy against heuristic opponents only
    table_random: float = 0.03  # the policy against random players only; the rest draw from the pool
    snapshot_every: int = 25  # iterations between snapshots into the pool
    pool_size: int = 8
    # kickstarting: a cross-entropy pull toward the heuristic's move in the policy's own
    # positions, weight teacher_coef at the start, down linearly to 0 at teacher_until (a
    # fraction of the budget); the policy starts near the heuristic's play and PPO takes it
    # from there (0 turns it off). Over the whole budget by default: a pull that ends
    # early lets a short run slide back (President, 10 minutes: 22 % of the wins against
    # heuristic players at 2 minutes, 5 % at 5 with the pull ending at 2.5; 25 % at 5 and
    # after with the pull over the whole run)
    teacher_coef: float = 1.0
    teacher_until: float = 1.0
    # a residual policy: the actor also reads the heuristic's move in its position (one-hot
    # after the observation) and learns when to play something else; the critic does not
    heuristic_input: bool = False
    # a privileged (centralised) critic: the value of a position is learnt from every
    # seat's view, the learner's first (all the hands: what no player sees), so that the
    # advantages carry less of the deal's luck; the actor, and so the policy played, still
    # reads its own observation alone
    privileged_critic: bool = False
    eval_every_minutes: float = 5.0
    eval_matches: int = 400
    torch_threads: int | None = None  # default: 1 on machines with <= 2 cores, else 2
    checkpoint_every_minutes: float = 5.0
    # sampling on worker processes (cardenvs.agents.training.distributed): workers > 1 or a Ray address
    # shares the num_envs matches over that many workers, each with its own seed derived
    # from the run's; ray None runs them in this process one after the other (the same
    # batches as on Ray), "local" on a Ray instance of this machine, else the address of one
    workers: int = 1
    ray: str | None = None

    def game_options(self) -> dict[str, Any]:
        """The game the policy is for, as evaluated."""
        opts = dict(self.options)
        if self.num_players is not None:
            opts["num_players"] = self.num_players
        if self.single_round:
            opts["single_round"] = True
        return opts

    def training_options(self) -> dict[str, Any]:
        """The game as the policy trains on it."""
        opts = self.game_options()
        if self.train_single_round:
            opts["single_round"] = True
        if self.train_reward_mode is not None:
            opts["reward_mode"] = self.train_reward_mode
        return opts


# --------------------------------------------------------------------------- the network
def tensorboard_writer(folder: Path) -> Any:
    """A TensorBoard ``SummaryWriter`` into ``folder/tb`` when tensorboard is installed, else None."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(str(folder / "tb"))


def evaluate_greedy(spec: Any, policy: Any, options: dict[str, Any], matches: int, seed: int) -> dict[str, float]:
    """``policy`` (a policy network, or an agent) played greedily against P-1 heuristic
    players and against P-1 random players of the game ``options`` give (an agent's: with
    ``num_players``): win shares, 95 % intervals, truncated matches."""
    from cardenvs.agents import make_agent
    from cardenvs.agents.base import Agent
    from cardenvs.agents.evaluate import evaluate
    from cardenvs.agents.ppo import PPOAgent

    opts = {k: v for k, v in options.items() if k != "reward_mode"}
    # a match nobody can win (an untrained policy and three random players of Classes
    # can void round after round) would hold the run up for an hour: cut it short
    # (counted as truncated) unless the run sets its own max_steps (0: never)
    if "max_steps" not in opts:
        opts["max_steps"] = EVAL_MAX_STEPS
    if isinstance(policy, Agent):  # an agent of its own kind (a card scorer ...)
        me, players = policy, int(opts.get("num_players", spec.default_players))
    else:
        me, players = PPOAgent(spec, options=opts, policy=policy), policy.meta["num_players"]
    out: dict[str, float] = {}
    for name in ("heuristic", "random"):
        others = [make_agent(name, spec, seed=10_000 + k, options=opts) for k in range(1, players)]
        res = evaluate(spec, [me, *others], matches, seed=seed, options=opts)
        out[f"vs_{name}"] = res[0].win_rate
        out[f"vs_{name}_ci"] = res[0].ci95
        out[f"vs_{name}_low"], out[f"vs_{name}_high"] = res[0].interval95  # Wilson: right at 0 % and 100 % too
        out[f"vs_{name}_truncated"] = res[0].truncated
    return out


def pyplot_or_none(err: TextIO, figures: str) -> Any:
    """matplotlib's pyplot on its file-only backend, or None (said on ``err``: no
    curve.png, ``figures`` has them) where matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"matplotlib is not installed: no curve.png ({figures} has the figures)", file=err)
        return None
    return plt


def share_text(res: dict[str, float], name: str, players: int) -> str:
    """An evaluation's win share against ``name`` players, as text: with its 95 % Wilson
    interval (which ``± 0.0 %`` at 0 % or 100 % would not be), or ``±`` the normal
    approximation's half-width for results that carry only that."""
    trunc = res.get(f"vs_{name}_truncated", 0)
    share = res[f"vs_{name}"]
    if f"vs_{name}_low" in res:
        spread = f"[{res[f'vs_{name}_low']:.1%}, {res[f'vs_{name}_high']:.1%}]"
    else:
        spread = f"± {res[f'vs_{name}_ci']:.1%}"
    return f"vs {players - 1} {name} {share:.1%} {spread}" + (f" ({trunc} truncated)" if trunc else "")


def check_new_folder(folder: str | os.PathLike) -> None:
    """A new run's folder must not hold another run (its checkpoint.pt): that one is
    resumed, not trained over (``cardenvs train ppo`` asks before building anything)."""
    if (Path(folder) / "checkpoint.pt").exists():
        raise ValueError(f"{str(folder)!r} holds a run already: resume it, or train into another folder")


# --------------------------------------------------------------------------- the trainer
class Trainer:
    """A run: ``Trainer(config).train()``; ``Trainer.resume(folder)`` continues one."""

    def __init__(self, config: TrainConfig, out: TextIO | None = None, err: TextIO | None = None):
        torch = _torch()
        self.torch = torch
        self.cfg = config
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        threads = config.torch_threads or (1 if (os.cpu_count() or 1) <= 2 else 2)
        torch.set_num_threads(threads)
        self.spec = get_spec(config.game)
        self.cfg.game = self.spec.env_id
        from cardenvs.core.vector import VecEnv

        self._check_config()
        # final observations: a match cut short by max_steps is bootstrapped from each seat's
        # last view instead of counting as an ending worth 0 (which would reward stalling)
        self.env = VecEnv(self.spec, config.num_envs, seed=config.seed, auto_play_forced=True,
                          final_observation=True, privileged_observation=config.privileged_critic,
                          **config.training_options())
        self.P = self.env.num_players
        game = self.spec.module
        self.obs_size, self.num_actions = game.OBS_SIZE, game.NUM_ACTIONS
        self.actor_inputs = actor_input_size(self.obs_size, self.num_actions, config.heuristic_input)
        self.critic_inputs = self.obs_size * (self.P if config.privileged_critic else 1)
        torch.manual_seed(config.seed)
        self.actor, self.critic = build_networks(self.obs_size, self.num_actions, tuple(config.hidden),
                                                 config.activation, heuristic_input=config.heuristic_input,
                                                 critic_inputs=self.critic_inputs)
        params = list(self.actor.parameters()) + list(self.critic.parameters())
        self.optimizer = torch.optim.Adam(params, lr=config.learning_rate, eps=1e-5)
        self.stats = RunningStats(self.obs_size)
        self.rng = np.random.default_rng(np.random.SeedSequence([config.seed, 1]))
        self.policy_meta = {"env_id": self.spec.env_id, "num_players": self.P,
                            "options": config.game_options(), "activation": config.activation}
        if config.heuristic_input:
            self.policy_meta["heuristic_input"] = True
        from cardenvs.agents import make_agent

        opts = config.game_options()
        self.heuristic = make_agent("heuristic", self.spec, seed=config.seed, options=opts)
        self.random = make_agent("random", self.spec, seed=config.seed + 1, options=opts)
        self.pool: list[dict[str, Any]] = []  # snapshots: actor copy and its observation statistics
        self.pool_version = 0  # changes with the pool, so that workers get it only then
        self._stacked: tuple | None = None  # the pool's weights stacked for one batched pass (_pool_stack)
        self.iteration = 0
        self.decisions = 0  # the policy's decisions so far (training samples)
        self.elapsed = 0.0  # wall seconds of training so far (over resumes)
        self.times = dict.fromkeys(("env", "opponents", "inference", "advantages", "update", "eval"), 0.0)
        self.live = {TABLE_HEURISTIC: deque(maxlen=2000), "random": deque(maxlen=2000)}
        self.folder = Path(config.out)
        self._evaluated = -1  # the iteration of the last evaluation

    def start_matches(self) -> None:
        """Deal new matches in every game of the batch and draw their tables."""
        N = self.cfg.num_envs
        self.table = np.zeros(N, dtype=np.int64)
        self.ctrl = np.zeros((N, self.P), dtype=np.int64)
        self.learner_seat = np.zeros(N, dtype=np.int64)
        self.returns = np.zeros((N, self.P), dtype=np.float64)
        self.state = self.env.reset(seed=int(self.rng.integers(2**62)))
        self._deal_tables(np.arange(N))

    def _check_config(self) -> None:
        c = self.cfg
        for name in ("num_envs", "rollout_steps", "epochs", "minibatch", "snapshot_every", "pool_size",
                     "eval_matches"):
            v = getattr(c, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        if isinstance(c.workers, bool) or not isinstance(c.workers, int) or c.workers < 1:
            raise ValueError(f"workers must be a positive integer, got {c.workers!r}")
        if c.workers > c.num_envs:
            raise ValueError(f"num_envs ({c.num_envs}) must be at least workers ({c.workers})")
        if c.ray is not None and not (isinstance(c.ray, str) and c.ray):
            raise ValueError(f"ray must be None, 'local' or a Ray address, got {c.ray!r}")
        if c.ray is not None:
            import importlib.util

            if importlib.util.find_spec("ray") is None:
                raise ValueError('sampling on Ray needs ray: pip install "cardenvs[ray]"')
        if c.minutes is None and c.decisions is None:
            raise ValueError("give a budget: minutes or decisions")
        if c.minutes is not None and not c.minutes > 0:
            raise ValueError(f"minutes must be positive, got {c.minutes!r}")
        if c.decisions is not None and (not isinstance(c.decisions, int) or c.decisions < 1):
            raise ValueError(f"decisions must be a positive integer, got {c.decisions!r}")
        for name in ("teacher_coef", "teacher_until"):
            v = getattr(c, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < math.inf:
                raise ValueError(f"{name} must be a number >= 0, got {v!r}")
        for name in ("heuristic_input", "privileged_critic"):
            if not isinstance(getattr(c, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(c, name)!r}")
        shares = (c.table_self, c.table_heuristic, c.table_random)
        if not (all(0 <= x <= 1 for x in shares) and sum(shares) <= 1):
            raise ValueError("table_self, table_heuristic and table_random are shares that add up to at most 1")
        from cardenvs.agents import has_heuristic

        if not has_heuristic(self.spec):
            raise ValueError(f"{self.spec.name} has no heuristic player to train and evaluate against")

    # ------------------------------------------------------------------ tables
    def _deal_tables(self, rows: np.ndarray) -> None:
        """Draw a table (who plays each seat) for the matches dealt in ``rows``."""
        c = self.cfg
        u = self.rng.random(rows.size)
        edges = np.cumsum([c.table_self, c.table_heuristic, c.table_random])
        kind = np.select([u < edges[0], u < edges[1], u < edges[2]], [TABLE_SELF, TABLE_HEURISTIC, TABLE_RANDOM],
                         TABLE_POOL)
        self.table[rows] = kind
        seat = self.rng.integers(self.P, size=rows.size)
        choices = 2 + len(self.pool)  # heuristic, random, snapshots
        for i, n in enumerate(rows):
            if kind[i] == TABLE_SELF:
                self.ctrl[n] = LEARNER
            elif kind[i] == TABLE_HEURISTIC:
                self.ctrl[n] = HEURISTIC
            elif kind[i] == TABLE_RANDOM:
                self.ctrl[n] = RANDOM
            else:
                self.ctrl[n] = self.rng.integers(choices, size=self.P)
            self.ctrl[n, seat[i]] = LEARNER
            self.learner_seat[n] = seat[i]

    # ------------------------------------------------------------------ acting
    def _actor_input(self, x: np.ndarray, raw: np.ndarray, masks: np.ndarray,
                     hints: np.ndarray | None = None) -> np.ndarray:
        """The actor's input for normalised observations ``x``: ``x`` itself, or with
        ``heuristic_input`` ``x`` and the heuristic's move (``hints``, else computed from
        the raw observations) one-hot."""
        if not self.cfg.heuristic_input:
            return x
        from cardenvs.agents.ppo import one_hot

        if hints is None:
            hints = self.heuristic.act_batch(raw, masks)
        return np.concatenate([x, one_hot(hints, self.num_actions)], axis=1)

    def _forward(self, actor: Any, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Sample from the masked policy: (actions, their log-probabilities)."""
        torch = self.torch
        with torch.no_grad():
            logits = actor(torch.from_numpy(obs)).masked_fill_(~torch.from_numpy(masks), -1e9)
            action, logp_all = self._sample(logits)
            return action.numpy(), logp_all.gather(1, action[:, None]).squeeze(1).numpy()

    def _sample(self, logits: Any) -> tuple[Any, Any]:
        """An action from masked logits (over their last axis) and the log-probabilities:
        the Gumbel-max trick, one argmax, cheaper than a Categorical for small batches."""
        torch = self.torch
        logp_all = torch.log_softmax(logits, dim=-1)
        u = torch.rand(logits.shape).clamp_(1e-12, 1.0)
        return (logp_all - torch.log(-torch.log(u))).argmax(dim=-1), logp_all

    def _opponent_actions(self, rows: np.ndarray, who: np.ndarray, obs: np.ndarray, masks: np.ndarray,
                          actions: np.ndarray) -> None:
        groups = []  # (pool index, rows) of the snapshots' seats
        for k in np.unique(who):
            sel = rows[who == k]
            if k == HEURISTIC:
                actions[sel] = self.heuristic.act_batch(obs[sel], masks[sel])
            elif k == RANDOM:
                actions[sel] = self.random.act_batch(obs[sel], masks[sel])
            else:
                groups.append((int(k) - 2, sel))
        if groups:
            with self.torch.no_grad():
                chosen = self._sample(self._snapshot_logits(groups, obs, masks))[0].numpy()
            for k, sel in groups:
                actions[sel] = chosen[k, :sel.size]

    def _snapshot_logits(self, groups: list[tuple[int, np.ndarray]], obs: np.ndarray, masks: np.ndarray) -> Any:
        """The masked logits of the pool's snapshots in their rows (``groups``: pool index,
        rows), all snapshots in one batched pass: row i of snapshot k is ``[k, i]`` of a
        (pool, rows, actions) tensor, each snapshot's layers applied by a batched matrix
        product over the pool's stacked weights. (A forward call per snapshot, each on a
        few rows, made the opponents' time grow with the pool: 8 -> 150 ms a rollout of
        President's default batch as the pool filled, more than the env's own steps.)"""
        torch = self.torch
        weights, biases = self._pool_stack()
        width = max(sel.size for _, sel in groups)
        x = np.zeros((len(self.pool), width, self.actor_inputs), dtype=np.float32)
        allowed = np.zeros((len(self.pool), width, self.num_actions), dtype=np.bool_)
        every = np.concatenate([sel for _, sel in groups])
        hints = self.heuristic.act_batch(obs[every], masks[every]) if self.cfg.heuristic_input else None
        start = 0
        for k, sel in groups:
            snap = self.pool[k]
            xk = self.stats.normalise(obs[sel], snap["mean"], snap["std"])
            x[k, :sel.size] = self._actor_input(xk, obs[sel], masks[sel],
                                                None if hints is None else hints[start:start + sel.size])
            allowed[k, :sel.size] = masks[sel]
            start += sel.size
        act = torch.tanh if self.cfg.activation == "tanh" else torch.relu
        with torch.no_grad():
            h = torch.from_numpy(x)
            for j, (w, b) in enumerate(zip(weights, biases, strict=True)):
                h = torch.baddbmm(b, h, w)
                if j < len(weights) - 1:
                    h = act(h)
            # padding rows allow nothing: their logits are all alike and never read
            return h.masked_fill_(~torch.from_numpy(allowed), -1e9)

    def _pool_stack(self) -> tuple[list[Any], list[Any]]:
        """The pool's actor weights stacked per layer: (pool, inputs, outputs) and biases
        (pool, 1, outputs), made again when a snapshot joins or is replaced. Snapshots are
        never changed once taken; the cache holds them, so their ids name them while it does."""
        key = [id(s) for s in self.pool]
        if self._stacked is None or self._stacked[0] != key:
            torch = self.torch
            linears = [[m for m in s["actor"] if isinstance(m, torch.nn.Linear)] for s in self.pool]
            with torch.no_grad():
                weights = [torch.stack([lin[j].weight.T for lin in linears]).contiguous()
                           for j in range(len(linears[0]))]
                biases = [torch.stack([lin[j].bias[None, :] for lin in linears]).contiguous()
                          for j in range(len(linears[0]))]
            self._stacked = (key, list(self.pool), weights, biases)
        return self._stacked[2], self._stacked[3]

    # ------------------------------------------------------------------ one iteration
    def _rollout(self, teaching: bool | None = None) -> dict[str, np.ndarray]:
        """One rollout of the batch; ``teaching`` (default: from the budget spent) says
        whether to record the heuristic's moves for the teacher term."""
        T, N, P = self.cfg.rollout_steps, self.cfg.num_envs, self.P
        obs_buf = np.zeros((T, N, self.actor_inputs), dtype=np.float32)  # the actor's input
        mask_buf = np.zeros((T, N, self.num_actions), dtype=np.bool_)
        act_buf = np.zeros((T, N), dtype=np.int64)
        teacher_buf = np.zeros((T, N), dtype=np.int64)
        teaching = self._teacher_weight() > 0 if teaching is None else teaching
        logp_buf = np.zeros((T, N), dtype=np.float32)
        val_buf = np.zeros((T, N), dtype=np.float32)
        mine = np.zeros((T, N), dtype=np.bool_)
        players = np.zeros((T, N), dtype=np.int64)
        rewards = np.zeros((T, N, P), dtype=np.float32)
        dones = np.zeros((T, N), dtype=np.bool_)
        # a privileged critic's inputs (every seat's view), for its update: the learner's rows
        # of each step, in the order of the batch (steps, then games)
        critic_rows: list[np.ndarray] | None = [] if self.cfg.privileged_critic else None
        torch = self.torch
        st = self.state
        all_rows = np.arange(N)
        for t in range(T):
            cur = st.current_player.astype(np.int64)
            who = self.ctrl[all_rows, cur]
            actions = np.zeros(N, dtype=np.int64)
            t0 = time.perf_counter()
            learner_rows = np.flatnonzero(who == LEARNER)
            if learner_rows.size:
                raw = st.observation[learner_rows]
                self.stats.update(raw.astype(np.float32))
                x = self.stats.normalise(raw)
                m = st.legal_action_mask[learner_rows]
                hints = self.heuristic.act_batch(raw, m) if teaching or self.cfg.heuristic_input else None
                xa = self._actor_input(x, raw, m, hints)
                a, logp = self._forward(self.actor, xa, m)
                if critic_rows is not None:
                    x = self._seat_views(st.privileged_observation[learner_rows], cur[learner_rows])
                    critic_rows.append(x)
                with torch.no_grad():
                    v = self.critic(torch.from_numpy(x)).squeeze(1).numpy()
                actions[learner_rows] = a
                obs_buf[t, learner_rows] = xa
                mask_buf[t, learner_rows] = m
                act_buf[t, learner_rows] = a
                logp_buf[t, learner_rows] = logp
                val_buf[t, learner_rows] = v
                mine[t, learner_rows] = True
                if teaching:
                    teacher_buf[t, learner_rows] = hints
            t1 = time.perf_counter()
            other = np.flatnonzero(who != LEARNER)
            if other.size:
                self._opponent_actions(other, who[other], st.observation, st.legal_action_mask, actions)
            t2 = time.perf_counter()
            st = self.env.step(actions)
            t3 = time.perf_counter()
            players[t] = cur
            rewards[t] = st.rewards
            if st.truncated.any():
                self._bootstrap_truncated(rewards[t], st)
            ended = st.terminated | st.truncated
            dones[t] = ended
            self.returns += st.rewards
            if ended.any():
                self._record_ends(np.flatnonzero(ended), st.truncated)
            self.times["inference"] += t1 - t0
            self.times["opponents"] += t2 - t1
            self.times["env"] += t3 - t2
        self.state = st
        # each learner seat's value where the rollout stops (its next decision lies beyond)
        last_values = np.zeros((N, P), dtype=np.float32)
        t0 = time.perf_counter()
        for p in range(P):
            rows = np.flatnonzero(self.ctrl[:, p] == LEARNER)
            if rows.size:
                if critic_rows is not None:
                    x = self._seat_views(st.privileged_observation[rows], np.full(rows.size, p))
                else:
                    x = self.stats.normalise(self.env.observe(p)[rows])
                with torch.no_grad():
                    last_values[rows, p] = self.critic(torch.from_numpy(x)).squeeze(1).numpy()
        self.times["inference"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        adv, ret = seat_advantages(rewards, val_buf, players, dones, last_values, self.cfg.gamma,
                                   self.cfg.gae_lambda)
        self.times["advantages"] += time.perf_counter() - t0
        sel = mine.reshape(-1)
        batch = {
            "obs": obs_buf.reshape(T * N, -1)[sel], "mask": mask_buf.reshape(T * N, -1)[sel],
            "act": act_buf.reshape(-1)[sel], "logp": logp_buf.reshape(-1)[sel],
            "adv": adv.reshape(-1)[sel], "ret": ret.reshape(-1)[sel], "teacher": teacher_buf.reshape(-1)[sel],
        }
        if critic_rows is not None:
            batch["critic_obs"] = (np.concatenate(critic_rows) if critic_rows
                                   else np.zeros((0, self.critic_inputs), dtype=np.float32))
        return batch

    def _seat_views(self, views: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """A privileged critic's input: from ``views`` (rows of every seat's view), each
        row's views from seat ``seats[i]`` on around the table (its own first, then the
        next seat's ...), normalised like observations, end to end."""
        order = (seats[:, None] + np.arange(self.P)) % self.P
        v = views[np.arange(len(seats))[:, None], order]
        return self.stats.normalise(v).reshape(len(seats), -1)

    def _bootstrap_truncated(self, step_rewards: np.ndarray, st: Any) -> None:
        """Add gamma * V(final view) to each learner seat's reward of a truncated match."""
        torch = self.torch
        rows = np.flatnonzero(st.truncated)
        for p in range(self.P):
            mine = rows[self.ctrl[rows, p] == LEARNER]
            if mine.size:
                if self.cfg.privileged_critic:
                    x = self._seat_views(st.final_observation[mine], np.full(mine.size, p))
                else:
                    x = self.stats.normalise(st.final_observation[mine, p])
                with torch.no_grad():
                    v = self.critic(torch.from_numpy(x)).squeeze(1).numpy()
                step_rewards[mine, p] += self.cfg.gamma * v

    def _record_ends(self, rows: np.ndarray, truncated: np.ndarray) -> None:
        from cardenvs.core.outcome import win_shares

        shares = win_shares(self.returns[rows])
        for i, n in enumerate(rows):
            if not truncated[n]:
                share = float(shares[i, self.learner_seat[n]])
                if self.table[n] == TABLE_HEURISTIC:
                    self.live[TABLE_HEURISTIC].append(share)
                elif self.table[n] == TABLE_RANDOM:
                    self.live["random"].append(share)
        self.returns[rows] = 0.0
        self._deal_tables(rows)

    def _update(self, batch: dict[str, np.ndarray]) -> dict[str, float]:
        torch = self.torch
        c = self.cfg
        n = batch["act"].shape[0]
        tensors = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in batch.items()}
        stats = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clipfrac": 0.0,
                 "teacher_loss": 0.0}
        teacher_weight = self._teacher_weight()
        steps = 0
        actor_params, critic_params = list(self.actor.parameters()), list(self.critic.parameters())
        for _ in range(c.epochs):
            order = torch.from_numpy(self.rng.permutation(n))
            for start in range(0, n, c.minibatch):
                idx = order[start:start + c.minibatch]
                if idx.numel() < 2:
                    continue
                obs, mask = tensors["obs"][idx], tensors["mask"][idx]
                logits = self.actor(obs).masked_fill(~mask, -1e9)
                dist = torch.distributions.Categorical(logits=logits, validate_args=False)
                logp = dist.log_prob(tensors["act"][idx])
                log_ratio = logp - tensors["logp"][idx]
                ratio = log_ratio.exp()
                adv = tensors["adv"][idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg = torch.max(-adv * ratio, -adv * ratio.clamp(1 - c.clip, 1 + c.clip)).mean()
                # the critic reads the observation only (without the actor's hint), or every view
                critic_in = tensors["critic_obs"][idx] if "critic_obs" in tensors else obs[:, :self.obs_size]
                value = self.critic(critic_in).squeeze(1)
                v_loss = 0.5 * (value - tensors["ret"][idx]).pow(2).mean()
                entropy = dist.entropy().mean()
                loss = pg + c.value_coef * v_loss - c.entropy_coef * entropy
                teacher_loss = torch.zeros(())
                if teacher_weight > 0:
                    teacher_loss = -dist.logits.gather(1, tensors["teacher"][idx][:, None]).mean()
                    loss = loss + teacher_weight * teacher_loss
                self.optimizer.zero_grad()
                loss.backward()
                # each network's gradient clipped on its own: the critic's (large while returns are
                # still unknown) must not shrink the actor's step
                torch.nn.utils.clip_grad_norm_(actor_params, c.max_grad_norm)
                torch.nn.utils.clip_grad_norm_(critic_params, c.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    stats["policy_loss"] += float(pg)
                    stats["value_loss"] += float(v_loss)
                    stats["entropy"] += float(entropy)
                    stats["approx_kl"] += float(((ratio - 1) - log_ratio).mean())
                    stats["clipfrac"] += float(((ratio - 1).abs() > c.clip).float().mean())
                    stats["teacher_loss"] += float(teacher_loss)
                steps += 1
        return {k: v / max(steps, 1) for k, v in stats.items()}

    # ------------------------------------------------------------------ evaluation
    def current_policy(self):
        """The policy as it is now (numpy), for ``cardenvs.agents.ppo.PPOAgent``."""
        return policy_network(self.actor, self.stats.mean, self.stats.std(), self.policy_meta)

    def evaluate(self, matches: int | None = None) -> dict[str, float]:
        """The greedy policy against P-1 heuristic players and against P-1 random players."""
        return evaluate_greedy(self.spec, self.current_policy(), self.cfg.game_options(),
                               matches or self.cfg.eval_matches, seed=1_000_003 + self.iteration)

    # ------------------------------------------------------------------ the loop
    def train(self) -> dict[str, Any]:
        """Train until the budget is spent; returns the last evaluation and figures."""
        c = self.cfg
        if self.iteration == 0:
            check_new_folder(self.folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "config.json").write_text(json.dumps(asdict(c), indent=2) + "\n")
        self.start_matches()
        workers = None
        if c.workers > 1 or c.ray is not None:
            from cardenvs.agents.training.distributed import TrainerWorkers

            workers = TrainerWorkers(self)
            where = "in this process, one after the other" if c.ray is None else f"on Ray ({c.ray})"
            print(f"sampling on {c.workers} workers {where}", file=self.out)
        self.tb = tensorboard_writer(self.folder)
        if self.tb is None:
            print("TensorBoard: not installed, so no event files (pip install tensorboard); metrics.csv and "
                  "eval.csv hold the same figures", file=self.out)
        else:
            print(f"TensorBoard: tensorboard --logdir {self.folder / 'tb'}", file=self.out)
        metrics_new = not (self.folder / "metrics.csv").exists()
        metrics = open(self.folder / "metrics.csv", "a", newline="")
        mw = csv.writer(metrics)
        if metrics_new:
            mw.writerow(["iteration", "wall_s", "decisions", "samples_per_s", "live_vs_heuristic",
                         "live_vs_random", "policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac",
                         "teacher_loss",
                         *[f"time_{k}" for k in self.times]])
        start = time.perf_counter() - self.elapsed
        next_eval = self.elapsed if self.iteration == 0 else self.elapsed + c.eval_every_minutes * 60
        next_ckpt = self.elapsed + c.checkpoint_every_minutes * 60
        last = {}
        print(f"training {self.spec.env_id} ({self.P} players{', single round' if c.single_round else ''}) "
              f"into {self.folder}; budget "
              + " or ".join(x for x in (f"{c.minutes:g} min" if c.minutes else "",
                                        f"{c.decisions:,} decisions" if c.decisions else "") if x),
              file=self.out)
        try:
            while True:
                self.elapsed = time.perf_counter() - start
                if self.elapsed >= next_eval:
                    last = self._evaluate_and_log()
                    next_eval = self.elapsed + c.eval_every_minutes * 60
                if self._budget_spent():
                    break
                if c.anneal:
                    for group in self.optimizer.param_groups:
                        group["lr"] = c.learning_rate * max(1.0 - self._budget_fraction(), 0.02)
                batch = self._rollout() if workers is None else workers.rollout(self)
                t0 = time.perf_counter()
                losses = self._update(batch)
                self.times["update"] += time.perf_counter() - t0
                self.iteration += 1
                self.decisions += batch["act"].shape[0]
                self.elapsed = time.perf_counter() - start
                if self.iteration % c.snapshot_every == 0:
                    self._snapshot()
                mw.writerow([self.iteration, f"{self.elapsed:.2f}", self.decisions,
                             f"{self.decisions / max(self.elapsed, 1e-9):.1f}",
                             _mean(self.live[TABLE_HEURISTIC]), _mean(self.live["random"]),
                             *(f"{losses[k]:.5f}" for k in ("policy_loss", "value_loss", "entropy", "approx_kl",
                                                            "clipfrac", "teacher_loss")),
                             *(f"{v:.2f}" for v in self.times.values())])
                metrics.flush()
                if self.tb is not None:
                    for k, v in losses.items():
                        self.tb.add_scalar(f"loss/{k}", v, self.decisions)
                    self.tb.add_scalar("speed/samples_per_s", self.decisions / max(self.elapsed, 1e-9), self.decisions)
                    if self.live[TABLE_HEURISTIC]:
                        self.tb.add_scalar("live/vs_heuristic", np.mean(self.live[TABLE_HEURISTIC]), self.decisions)
                self._progress()
                if self.elapsed >= next_ckpt:
                    self.save_checkpoint()
                    next_ckpt = self.elapsed + c.checkpoint_every_minutes * 60
        except KeyboardInterrupt:
            self.err.write("\ninterrupted: saving the checkpoint\n")
        finally:
            metrics.close()
            if workers is not None:
                workers.close()
        self.err.write("\n")
        self.elapsed = time.perf_counter() - start
        self.save_checkpoint()  # first: an interrupt during the last evaluation loses nothing
        if self._evaluated != self.iteration:
            last = self._evaluate_and_log()
        self.elapsed = time.perf_counter() - start
        self.save_checkpoint()
        self._plot()
        if self.tb is not None:
            self.tb.close()
        split = ", ".join(f"{k} {100 * v / max(self.elapsed, 1e-9):.0f} %" for k, v in self.times.items())
        print(f"done: {self.iteration} iterations, {self.decisions:,} decisions in {self.elapsed / 60:.1f} min "
              f"({self.decisions / max(self.elapsed, 1e-9):,.0f} samples/s); time: {split}", file=self.out)
        print(f"greedy policy, {c.eval_matches} matches each: {share_text(last, 'heuristic', self.P)}; "
              f"{share_text(last, 'random', self.P)}", file=self.out)
        print(f"policy: {self.folder / 'policy.npz'} (play it as ppo:{self.folder / 'policy.npz'})", file=self.out)
        return {"iterations": self.iteration, "decisions": self.decisions, "elapsed": self.elapsed,
                "times": dict(self.times), **last}

    def _budget_spent(self) -> bool:
        c = self.cfg
        return bool((c.minutes is not None and self.elapsed >= c.minutes * 60)
                    or (c.decisions is not None and self.decisions >= c.decisions))

    def _snapshot(self) -> None:
        snap = {"actor": copy.deepcopy(self.actor), "mean": self.stats.mean.astype(np.float32),
                "std": self.stats.std(), "iteration": self.iteration}
        self.pool_version += 1
        if len(self.pool) < self.cfg.pool_size:
            self.pool.append(snap)
        else:  # replace a random one: the pool keeps a spread of ages
            self.pool[int(self.rng.integers(len(self.pool)))] = snap

    def _evaluate_and_log(self) -> dict[str, float]:
        t0 = time.perf_counter()
        res = self.evaluate()
        self._evaluated = self.iteration
        dt = time.perf_counter() - t0
        self.times["eval"] += dt
        path = self.folder / "eval.csv"
        new = not path.exists()
        with open(path, "a", newline="") as f:
            w = csv.writer(f)
            if new:
                w.writerow(["iteration", "wall_s", "decisions", "matches", "vs_heuristic", "vs_heuristic_ci95",
                            "vs_heuristic_truncated", "vs_random", "vs_random_ci95", "vs_random_truncated"])
            w.writerow([self.iteration, f"{self.elapsed:.1f}", self.decisions, self.cfg.eval_matches,
                        f"{res['vs_heuristic']:.4f}", f"{res['vs_heuristic_ci']:.4f}", res["vs_heuristic_truncated"],
                        f"{res['vs_random']:.4f}", f"{res['vs_random_ci']:.4f}", res["vs_random_truncated"]])
        if getattr(self, "tb", None) is not None:
            for name in ("heuristic", "random"):
                self.tb.add_scalar(f"eval/vs_{name}", res[f"vs_{name}"], self.decisions)
        self.err.write(f"\r[eval at {self.elapsed / 60:.1f} min, {self.decisions:,} decisions] "
                       f"{share_text(res, 'heuristic', self.P)}; {share_text(res, 'random', self.P)}\n")
        return res

    def _teacher_weight(self) -> float:
        c = self.cfg
        if c.teacher_coef <= 0 or c.teacher_until <= 0:
            return 0.0
        return c.teacher_coef * max(0.0, 1.0 - self._budget_fraction() / c.teacher_until)

    def _budget_fraction(self) -> float:
        c = self.cfg
        frac = 0.0
        if c.minutes:
            frac = self.elapsed / (c.minutes * 60)
        if c.decisions:
            frac = max(frac, self.decisions / c.decisions)
        return min(frac, 1.0)

    def _progress(self) -> None:
        frac = self._budget_fraction()
        width = 24
        filled = min(width, int(width * frac))
        live_h = _mean(self.live[TABLE_HEURISTIC])
        self.err.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.elapsed / 60:5.1f} min  "
                       f"{self.decisions:,} decisions  {self.decisions / max(self.elapsed, 1e-9):,.0f}/s  "
                       f"live win share vs heuristics {live_h if live_h != '' else '-'}   ")
        self.err.flush()

    def _plot(self) -> None:
        plt = pyplot_or_none(self.err, "eval.csv")
        if plt is None:
            return
        rows = list(csv.DictReader(open(self.folder / "eval.csv")))
        if not rows:
            return
        fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
        for ax, key, label in ((axes[0], "wall_s", "wall time (min)"), (axes[1], "decisions", "decisions")):
            x = np.array([float(r[key]) for r in rows]) / (60 if key == "wall_s" else 1)
            for name in ("heuristic", "random"):
                y = np.array([float(r[f"vs_{name}"]) for r in rows])
                ci = np.array([float(r[f"vs_{name}_ci95"]) for r in rows])
                ax.plot(x, y, marker="o", label=f"vs {self.P - 1} {name}")
                ax.fill_between(x, y - ci, y + ci, alpha=0.2)
            ax.axhline(1 / self.P, color="grey", linestyle="--", label="fair share")
            ax.set_xlabel(label)
            ax.grid(alpha=0.3)
        axes[0].set_ylabel("win share of the greedy policy")
        axes[0].legend()
        fig.suptitle(f"{self.spec.env_id}, {self.P} players{', single round' if self.cfg.single_round else ''}")
        fig.tight_layout()
        fig.savefig(self.folder / "curve.png", dpi=100)
        plt.close(fig)

    # ------------------------------------------------------------------ checkpoints
    def save_checkpoint(self) -> Path:
        torch = self.torch
        self.folder.mkdir(parents=True, exist_ok=True)
        ckpt = {
            "format": CHECKPOINT_FORMAT,
            "env_id": self.spec.env_id,
            "config": asdict(self.cfg),
            "policy_meta": self.policy_meta,
            "actor": self.actor.state_dict(),
            "critic": self.critic.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            # numpy arrays as tensors: the checkpoint loads with torch's safe loader
            "obs_mean": torch.from_numpy(self.stats.mean), "obs_var": torch.from_numpy(self.stats.var),
            "obs_count": float(self.stats.count), "obs_std": torch.from_numpy(self.stats.std()),
            "pool": [{"actor": s["actor"].state_dict(), "mean": torch.from_numpy(s["mean"]),
                      "std": torch.from_numpy(s["std"]), "iteration": s["iteration"]} for s in self.pool],
            "iteration": self.iteration, "decisions": self.decisions, "elapsed": self.elapsed,
            "times": self.times, "rng": self.rng.bit_generator.state, "torch_rng": torch.get_rng_state(),
        }
        path = self.folder / "checkpoint.pt"
        tmp = self.folder / "checkpoint.pt.tmp"
        torch.save(ckpt, tmp)
        os.replace(tmp, path)
        self.current_policy().save(self.folder / "policy.npz")
        return path

    @classmethod
    def resume(cls, folder: str | os.PathLike, minutes: float | None = None, decisions: int | None = None,
               out: TextIO | None = None, err: TextIO | None = None, workers: int = 1,
               ray: str | None = None) -> Trainer:
        """Continue the run in ``folder``. ``minutes``/``decisions``, when either is given,
        replace its budget (totals over the whole run; the one not given is then no limit).
        Where it runs comes from the caller, never from the checkpoint: ``workers`` and
        ``ray`` (as in :class:`TrainConfig`; default one worker in this process) replace the
        run's, and its folder is ``folder``. The rest of the config is the run's own.
        Matches in progress when it stopped are dealt anew; the opponents' random streams
        start again."""
        torch = _torch()
        path = Path(folder) / "checkpoint.pt"
        if not path.is_file():
            raise ValueError(f"no checkpoint to resume in {str(folder)!r}")
        ckpt = load_checkpoint(path)
        saved = ckpt["config"] if isinstance(ckpt.get("config"), dict) else {}
        unknown = sorted(set(saved) - {f.name for f in fields(TrainConfig)})
        if unknown or "game" not in saved:
            raise ValueError(f"{str(path)!r}: its config has unknown keys {unknown} or no game")
        # a file being loaded never decides a network address, a worker count or a path
        local = {"out": str(folder), "workers": workers, "ray": ray}
        saved = {**BEFORE_0_5, **saved}  # a run saved before these defaults changed keeps its own
        config = TrainConfig(**{**saved, "hidden": tuple(saved.get("hidden", TrainConfig.hidden)), **local})
        if minutes is not None or decisions is not None:  # a new budget replaces both
            config.minutes, config.decisions = minutes, decisions
        self = cls(config, out=out, err=err)
        self.actor.load_state_dict(ckpt["actor"])
        self.critic.load_state_dict(ckpt["critic"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
        self.stats.mean, self.stats.var = ckpt["obs_mean"].numpy(), ckpt["obs_var"].numpy()
        self.stats.count = ckpt["obs_count"]
        for s in ckpt["pool"]:
            actor, _ = build_networks(self.obs_size, self.num_actions, tuple(config.hidden), config.activation,
                                      heuristic_input=config.heuristic_input)
            actor.load_state_dict(s["actor"])
            self.pool.append({"actor": actor, "mean": s["mean"].numpy(), "std": s["std"].numpy(),
                              "iteration": s["iteration"]})
        self.iteration, self.decisions, self.elapsed = ckpt["iteration"], ckpt["decisions"], ckpt["elapsed"]
        self.times = dict(ckpt["times"])
        self.rng.bit_generator.state = ckpt["rng"]
        torch.set_rng_state(ckpt["torch_rng"])
        return self


def _mean(values: deque) -> str:
    return f"{np.mean(values):.3f}" if values else ""
