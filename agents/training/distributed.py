"""Rollouts on Ray: K worker processes sample, the caller learns.

Each worker owns a vector env (its share of the matches) and a copy of the policy, and
returns a batch of trajectories per round. Two ways in:

- :func:`rollouts` and :class:`RolloutWorkers`: self-play trajectories as arrays, every
  seat played by one policy, for a learner of your own;
- ``cardenvs train ppo GAME --ray [ADDRESS] --workers K``: the trainer's sampling on K
  workers while the driver does the update (:class:`TrainerWorkers`).

Determinism. Worker k's seed is the k-th child of a ``numpy.random.SeedSequence`` of the
run's seed, and all of a worker's randomness (the matches, the tables, the sampling) lives
in its own state. A round's result depends only on that state and on what the driver
sends, so a run replays, and running the same workers in this process (``ray=False``)
gives the same arrays as running them on Ray.

Failures. After every round a worker hands back its state (a pickled blob, a few
kilobytes per match) with its batch. When a worker dies (``ray.exceptions.RayActorError``),
a new actor is started from that state and the round is asked of it again: it returns
what the dead one would have returned.

Ray is imported only when a pool runs on it (``pip install "cardenvs[ray]"``).
"""

from __future__ import annotations

import functools
import math
import os
import pickle
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from cardenvs.agents.networks import build_networks
from cardenvs.agents.training.running_stats import RunningStats

if TYPE_CHECKING:  # the trainer hands itself (and its class, for the workers) to these workers
    from cardenvs.agents.training.trainer import Trainer

from cardenvs.core.protocol import check_actions, env_records
from cardenvs.core.registry import get_spec

#: how many times one round may replace a dead worker before the error is raised
MAX_REPLACEMENTS_PER_ROUND = 3


# --------------------------------------------------------------------------- seeds
def worker_seeds(seed: int, workers: int, stream: Sequence[int] = ()) -> list[int]:
    """One seed per worker, derived from ``seed`` (and ``stream``, e.g. a resume point) with
    ``SeedSequence.spawn``: distinct and reproducible; worker k's seed does not depend on
    how many workers there are."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    children = np.random.SeedSequence([int(seed), *map(int, stream)]).spawn(workers)
    # 62 bits: agents add small offsets to a seed, and seeds stay below 2**64
    return [int(c.generate_state(1, np.uint64)[0] >> np.uint64(2)) for c in children]


def split_matches(num_envs: int, workers: int) -> list[int]:
    """``num_envs`` matches shared out over ``workers`` (the first ones get one more)."""
    if num_envs < workers:
        raise ValueError(f"num_envs ({num_envs}) must be at least the number of workers ({workers})")
    base, extra = divmod(num_envs, workers)
    return [base + (k < extra) for k in range(workers)]


# --------------------------------------------------------------------------- agent state
def agent_state(agent: Any) -> dict[str, Any]:
    """An agent's own attributes (its random streams, weights ...) without the game
    module it refers to, which does not pickle."""
    return {k: v for k, v in agent.__dict__.items() if k not in ("spec", "game")}


def load_agent_state(agent: Any, state: dict[str, Any]) -> None:
    agent.__dict__.update(state)


# --------------------------------------------------------------------------- the pool
class _ActorHost:
    """What runs inside a Ray actor: one worker, built from its class and arguments, then
    put in the state the driver kept (a replacement) or left as built (a new pool)."""

    def __init__(self, worker_class: type, kwargs: dict[str, Any], state: bytes | None):
        started = time.perf_counter()
        self.worker = worker_class(**kwargs)
        if state is not None:
            self.worker.set_state(state)
        self.start_seconds = time.perf_counter() - started

    def run(self, payload: Any) -> tuple[Any, bytes]:
        result = self.worker.run(payload)
        return result, self.worker.get_state()

    def info(self) -> dict[str, Any]:
        """The actor's process id, host and how long the worker took to build (the
        compiled kernels load from the cache of that machine)."""
        import socket

        return {"pid": os.getpid(), "host": socket.gethostname(), "start_seconds": self.start_seconds}


@functools.lru_cache(maxsize=1)
def _remote_host() -> Any:
    import ray

    # one CPU each: K workers need K CPUs of the Ray instance; no automatic restarts,
    # since the pool replaces a dead worker itself, from the state it kept
    return ray.remote(num_cpus=1, max_restarts=0)(_ActorHost)


def connect_ray(address: str | None = None) -> None:
    """Join a Ray instance: the one this process has already joined, else ``address``
    (``"auto"``, ``"HOST:6379"``, ``"ray://HOST:10001"``); with ``None`` or ``"local"``
    the one named by ``RAY_ADDRESS``, or a new one on this machine."""
    try:
        import ray
    except ImportError:  # pragma: no cover - depends on the install
        raise ImportError('running on Ray needs ray: pip install "cardenvs[ray]"') from None
    if ray.is_initialized():
        return
    try:
        if address in (None, "", "local"):
            ray.init(include_dashboard=False, logging_level="WARNING")
        else:
            ray.init(address=address, logging_level="WARNING")
    except (ConnectionError, RuntimeError, TimeoutError) as e:  # no cluster there, or a refused one
        raise ValueError(f"cannot join the Ray instance at {address!r}: {e} (start one with `ray start --head`, "
                         "or leave the address out to start one on this machine)") from None


class WorkerPool:
    """K workers of one class, each built from its own keyword arguments, run round by
    round: :meth:`run` sends every worker the same payload and returns their results in
    worker order. With ``ray=False`` the workers live in this process and run one after
    the other (the same results, no parallelism); otherwise each is a Ray actor.

    A worker class has ``run(payload)``, ``get_state() -> bytes`` and ``set_state(bytes)``;
    its result must depend only on its state and the payload, which is what lets a dead
    worker be replaced without changing the run.
    """

    def __init__(self, worker_class: type, worker_kwargs: Sequence[dict[str, Any]], ray: bool | str = True):
        if not isinstance(ray, (bool, str)) or (isinstance(ray, str) and not ray):
            raise ValueError(f"ray must be True, False or a Ray address, got {ray!r}")
        self.worker_class = worker_class
        self.worker_kwargs = [dict(kw) for kw in worker_kwargs]
        self.on_ray = ray is not False
        self.states: list[bytes | None] = [None] * len(self.worker_kwargs)  # after the last round
        self.replacements = 0  # dead workers replaced so far
        self.rounds = 0
        if self.on_ray:
            connect_ray(None if ray is True else str(ray))
            self.actors = [self._start(k) for k in range(len(self.worker_kwargs))]
            self.local: list[Any] = []
        else:
            self.actors = []
            self.local = [worker_class(**kw) for kw in self.worker_kwargs]

    @property
    def size(self) -> int:
        return len(self.worker_kwargs)

    def _start(self, k: int) -> Any:
        return _remote_host().remote(self.worker_class, self.worker_kwargs[k], self.states[k])

    def info(self) -> list[dict[str, Any]]:
        """Per worker: process id, host and build time (``start_seconds``)."""
        if not self.on_ray:
            return [{"pid": os.getpid(), "host": "local", "start_seconds": 0.0} for _ in self.local]
        import ray

        return ray.get([a.info.remote() for a in self.actors])

    def run(self, payload: Any, replacement_payload: Callable[[], Any] | None = None) -> list[Any]:
        """One round: every worker's result, in worker order. ``replacement_payload()``
        (default: ``payload``) is what a worker started to replace a dead one gets, for
        payloads that send only what changed since the previous round (built only then)."""
        self.rounds += 1
        if not self.on_ray:
            return [w.run(payload) for w in self.local]
        import ray
        from ray.exceptions import RayActorError

        sent = ray.put(payload)  # one copy in the object store, read by every worker
        refs = [a.run.remote(sent) for a in self.actors]
        results: list[Any] = []
        for k, ref in enumerate(refs):
            for attempt in range(MAX_REPLACEMENTS_PER_ROUND + 1):
                try:
                    result, state = ray.get(ref)
                    break
                except RayActorError:
                    if attempt == MAX_REPLACEMENTS_PER_ROUND:
                        raise
                    # the same worker again, from where it stood before this round
                    self.replacements += 1
                    self.actors[k] = self._start(k)
                    again = payload if replacement_payload is None else replacement_payload()
                    ref = self.actors[k].run.remote(again)
            self.states[k] = state
            results.append(result)
        return results

    def close(self) -> None:
        """Stop the actors (the Ray instance stays up)."""
        if self.on_ray:
            import ray

            for a in self.actors:
                ray.kill(a)
            self.actors = []

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# --------------------------------------------------------------------------- self-play rollouts
#: the arrays of a rollout, each with leading dimensions (steps, matches)
ROLLOUT_FIELDS = ("observation", "action_mask", "player", "action", "reward", "terminated", "truncated",
                  "forced_moves")


class SelfPlayWorker:
    """One worker of :class:`RolloutWorkers`: ``num_envs`` matches of ``game`` with forced
    moves played inside the step, one policy at every seat."""

    def __init__(self, game: str, num_envs: int, seed: int, options: dict[str, Any]):
        from cardenvs.core.vector import VecEnv

        self.spec = get_spec(game)
        self.seed = int(seed)
        self.options = dict(options)
        self.env = VecEnv(self.spec, num_envs, seed=self.seed, auto_play_forced=True, **self.options)
        self.state = self.env.reset()
        self.rng = np.random.default_rng(self.seed)  # sampling of a PolicyNetwork
        self.agent: Any = None
        self.agent_name: str | None = None

    def _policy(self, policy: Any) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray | None]]:
        from cardenvs.agents.ppo import PolicyNetwork, heuristic_hints, observation_converter

        if isinstance(policy, PolicyNetwork):
            convert = observation_converter(policy, self.spec)
            hinter = heuristic_hints(policy, self.spec, self.options)

            def act(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
                hints = None if hinter is None else hinter(obs, mask)
                if convert is not None:  # an earlier version's policy sees its own observation layout
                    obs = convert(obs)
                return sample_policy(policy, obs, mask, self.rng, hints)

            return act
        if isinstance(policy, str):
            if self.agent_name != policy:  # the same name keeps its agent (and its random stream)
                from cardenvs.agents import make_agent

                self.agent = make_agent(policy, self.spec, seed=self.seed, options=self.options)
                self.agent_name = policy
            if self.agent.reads_state:  # a search: the matches' records (copies) too
                return lambda obs, mask: (self.agent.act_states(env_records(self.env.states), obs, mask), None)
            return lambda obs, mask: (self.agent.act_batch(obs, mask), None)
        if callable(policy):  # its actions as given: a float or a bool is a TypeError, never cast
            return lambda obs, mask: (check_actions(policy(obs, mask), mask.shape[0], "the policy's actions"), None)
        raise TypeError(f"policy must be an agent name, a PolicyNetwork or a callable, got {type(policy).__name__}")

    def run(self, payload: dict[str, Any]) -> dict[str, np.ndarray]:
        """One round of ``payload["steps"]`` steps; a step refused (an illegal action of a
        callable policy, say) puts the worker back where it stood before the round, so
        that its matches and its ``VecState`` stay together, and raises."""
        saved = self.get_state()
        try:
            return self._run(payload)
        except BaseException:
            self.set_state(saved)
            raise

    def _run(self, payload: dict[str, Any]) -> dict[str, np.ndarray]:
        act = self._policy(payload["policy"])
        T, N, P = int(payload["steps"]), self.env.num_envs, self.env.num_players
        game = self.spec.module
        out = {
            "observation": np.empty((T, N, game.OBS_SIZE), dtype=game.OBS_DTYPE),
            "action_mask": np.empty((T, N, game.NUM_ACTIONS), dtype=np.bool_),
            "player": np.empty((T, N), dtype=np.int32),
            "action": np.empty((T, N), dtype=np.int64),
            "reward": np.empty((T, N, P), dtype=np.float32),
            "terminated": np.empty((T, N), dtype=np.bool_),
            "truncated": np.empty((T, N), dtype=np.bool_),
            "forced_moves": np.empty((T, N), dtype=np.int32),
        }
        log_prob = None
        st = self.state
        for t in range(T):
            out["observation"][t] = st.observation
            out["action_mask"][t] = st.legal_action_mask
            out["player"][t] = st.current_player
            actions, logp = act(st.observation, st.legal_action_mask)
            if logp is not None:
                if log_prob is None:
                    log_prob = np.empty((T, N), dtype=np.float32)
                log_prob[t] = logp
            out["action"][t] = actions
            st = self.env.step(actions)
            out["reward"][t] = st.rewards
            out["terminated"][t] = st.terminated
            out["truncated"][t] = st.truncated
            out["forced_moves"][t] = st.forced_moves
        self.state = st
        if log_prob is not None:
            out["log_prob"] = log_prob
        # every seat's view where the rollout stops, to bootstrap the matches still running
        out["last_observation"] = np.stack([self.env.observe(p) for p in range(P)], axis=1)
        return out

    def get_state(self) -> bytes:
        agent = agent_state(self.agent) if self.agent is not None else None
        return pickle.dumps({"env": self.env, "state": self.state, "rng": self.rng.bit_generator.state,
                             "agent_name": self.agent_name, "agent": agent})

    def set_state(self, blob: bytes) -> None:
        d = pickle.loads(blob)
        self.env, self.state = d["env"], d["state"]
        self.rng.bit_generator.state = d["rng"]
        self.agent, self.agent_name = None, None
        if d["agent_name"] is not None:
            self._policy(d["agent_name"])
            load_agent_state(self.agent, d["agent"])


def sample_policy(policy: Any, observations: np.ndarray, masks: np.ndarray,
                  rng: np.random.Generator, hints: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Sample a :class:`cardenvs.agents.ppo.PolicyNetwork` over the legal actions (numpy):
    (actions, their log-probabilities). Rows with no legal action get -1. ``hints``: the
    heuristic's moves, for a policy that reads them."""
    logits = policy.logits(observations, hints).astype(np.float64)
    live = masks.any(axis=1)
    logits[~masks] = -np.inf
    logits[~live] = 0.0
    z = logits - logits.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    gumbel = -np.log(-np.log(rng.random(logits.shape).clip(1e-300, 1.0)))
    actions = (log_p + gumbel).argmax(axis=1)
    chosen = np.take_along_axis(log_p, actions[:, None], axis=1)[:, 0]
    actions[~live] = -1
    return actions.astype(np.int64), np.where(live, chosen, 0.0).astype(np.float32)


class RolloutWorkers:
    """A pool of self-play workers that keeps its matches between calls:
    ``sample(policy, decisions)`` returns at least ``decisions`` decisions as arrays.

    ``workers`` processes (Ray actors; ``ray=False``: in this process, same arrays) each
    step ``num_envs`` matches of ``game`` with forced moves played inside the step; one
    policy plays every seat. ``ray`` is True (the Ray instance this process has joined, or
    a new local one), or the address of a running instance.

    The arrays are time-major, matches side by side (worker 0's first):
    ``observation`` (T, M, OBS_SIZE), ``action_mask`` (T, M, NUM_ACTIONS) bool,
    ``player`` (T, M) the seat that decided, ``action`` (T, M), ``reward`` (T, M, P) the
    step's rewards for every seat, ``terminated``/``truncated`` (T, M) (the match was
    restarted within the step), ``forced_moves`` (T, M), ``last_observation`` (M, P,
    OBS_SIZE) every seat's view after the last step, and ``log_prob`` (T, M) when the policy
    is a :class:`~cardenvs.agents.ppo.PolicyNetwork`. ``player``, ``reward``,
    ``terminated`` and value estimates are what :func:`cardenvs.agents.training.selfplay.seat_advantages`
    takes.
    """

    def __init__(self, game: str, workers: int = 2, seed: int = 0, num_envs: int = 64, ray: bool | str = True,
                 **options: Any):
        spec = get_spec(game)
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.game = spec.env_id
        self.num_envs = num_envs
        seeds = worker_seeds(seed, workers)
        kwargs = [{"game": self.game, "num_envs": num_envs, "seed": s, "options": options} for s in seeds]
        self.pool = WorkerPool(SelfPlayWorker, kwargs, ray=ray)

    @property
    def workers(self) -> int:
        return self.pool.size

    def sample(self, policy: Any = "random", decisions: int = 10_000) -> dict[str, np.ndarray]:
        """Step every worker's matches ``ceil(decisions / (workers * num_envs))`` times.

        ``policy``: an agent name (``"random"``, ``"heuristic"``, ``"ppo:PATH"``, the path
        read on the worker's machine), a ``PolicyNetwork`` (sampled), or a picklable
        callable ``f(observations, masks) -> actions`` run inside the workers."""
        if isinstance(decisions, bool) or not isinstance(decisions, int) or decisions < 1:
            raise ValueError(f"decisions must be a positive integer, got {decisions!r}")
        steps = math.ceil(decisions / (self.workers * self.num_envs))
        parts = self.pool.run({"policy": policy, "steps": steps})
        return concatenate_rollouts(parts)

    def close(self) -> None:
        self.pool.close()

    def __enter__(self) -> RolloutWorkers:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def concatenate_rollouts(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The workers' arrays side by side along the matches axis (a fresh, writable copy)."""
    out = {}
    for key in parts[0]:
        axis = 0 if key == "last_observation" else 1
        out[key] = np.concatenate([p[key] for p in parts], axis=axis)
    return out


def rollouts(game: str, policy: Any = "random", workers: int = 2, decisions: int = 10_000, seed: int = 0,
             num_envs: int = 64, ray: bool | str = True, **options: Any) -> dict[str, np.ndarray]:
    """Self-play trajectories of ``policy`` at every seat, sampled on ``workers`` Ray
    actors: a one-off :meth:`RolloutWorkers.sample` (see there for the arrays).
    ``ray=False`` runs the same workers in this process and returns the same arrays."""
    with RolloutWorkers(game, workers=workers, seed=seed, num_envs=num_envs, ray=ray, **options) as pool:
        return pool.sample(policy, decisions)


# --------------------------------------------------------------------------- the trainer's workers
class TrainerWorker:
    """One sampling worker of ``cardenvs train ppo --workers K``: a :class:`cardenvs.agents.training.trainer.Trainer`
    of its own (its share of the matches, its tables, heuristic and random players, its seed)
    whose networks, observation statistics and opponent pool are the driver's, sent every
    round. It returns the batch of :meth:`Trainer._rollout`, what it saw of the observations
    (to merge into the driver's statistics), the finished matches' win shares and its time split."""

    def __init__(self, config: Any, trainer_class: type[Trainer]):
        import io

        import torch

        self.torch = torch
        # torch's random stream is the process's: a worker keeps its own, so that workers in
        # the driver's process draw exactly what they would draw each in a process of their own
        outer = torch.get_rng_state()
        self.trainer = trainer_class(config, out=io.StringIO(), err=io.StringIO())  # seeds torch with the worker's seed
        self.trainer.start_matches()
        self.torch_rng = torch.get_rng_state()
        torch.set_rng_state(outer)
        self.pool_version = -1

    def run(self, payload: dict[str, Any]) -> dict[str, Any]:
        torch = self.torch
        outer = torch.get_rng_state()
        torch.set_rng_state(self.torch_rng)
        try:
            return self._run(payload)
        finally:
            self.torch_rng = torch.get_rng_state()
            torch.set_rng_state(outer)

    def _run(self, payload: dict[str, Any]) -> dict[str, Any]:
        t, torch = self.trainer, self.torch
        t.actor.load_state_dict({k: torch.from_numpy(v) for k, v in payload["actor"].items()})
        t.critic.load_state_dict({k: torch.from_numpy(v) for k, v in payload["critic"].items()})
        if payload["pool"] is not None and payload["pool_version"] != self.pool_version:
            rng_state = torch.get_rng_state()  # building networks draws from torch's stream: keep it as it was
            t.pool = []
            for snap in payload["pool"]:
                actor, _ = build_networks(t.obs_size, t.num_actions, tuple(t.cfg.hidden), t.cfg.activation,
                                          heuristic_input=t.cfg.heuristic_input)
                actor.load_state_dict({k: torch.from_numpy(v) for k, v in snap["actor"].items()})
                t.pool.append({"actor": actor, "mean": snap["mean"], "std": snap["std"],
                               "iteration": snap["iteration"]})
            torch.set_rng_state(rng_state)
            self.pool_version = payload["pool_version"]
        t.stats = RecordingStats(*payload["stats"])
        t.times = dict.fromkeys(t.times, 0.0)
        batch = t._rollout(teaching=payload["teaching"])
        seen = t.stats.seen
        live = {kind: list(shares) for kind, shares in t.live.items()}
        for d in t.live.values():
            d.clear()
        return {"batch": batch, "seen": (seen.mean, seen.var, seen.count), "live": live, "times": dict(t.times)}

    def get_state(self) -> bytes:
        t = self.trainer
        return pickle.dumps({
            "env": t.env, "state": t.state, "table": t.table, "ctrl": t.ctrl, "learner_seat": t.learner_seat,
            "returns": t.returns, "rng": t.rng.bit_generator.state, "torch_rng": self.torch_rng.numpy(),
            "random": agent_state(t.random), "heuristic": agent_state(t.heuristic),
        })

    def set_state(self, blob: bytes) -> None:
        d = pickle.loads(blob)
        t = self.trainer
        t.env, t.state = d["env"], d["state"]
        t.table, t.ctrl, t.learner_seat, t.returns = d["table"], d["ctrl"], d["learner_seat"], d["returns"]
        t.rng.bit_generator.state = d["rng"]
        self.torch_rng = self.torch.from_numpy(d["torch_rng"])
        load_agent_state(t.random, d["random"])
        load_agent_state(t.heuristic, d["heuristic"])


class RecordingStats(RunningStats):
    """The driver's statistics, updated as usual during the round, and also what the round
    saw alone (``seen``), to merge into the driver's."""

    def __init__(self, mean: np.ndarray, var: np.ndarray, count: float):
        super().__init__(mean.shape[0])
        self.mean, self.var, self.count = mean.copy(), var.copy(), float(count)
        self.seen = RunningStats(mean.shape[0])
        self.seen.count = 0.0  # no prior: it is merged into the driver's as it is

    def update(self, x: np.ndarray) -> None:
        super().update(x)
        self.seen.update(x)


class TrainerWorkers:
    """The driver's side of ``cardenvs train ppo --workers K [--ray ADDRESS]``: K
    :class:`TrainerWorker` sharing the run's matches, one round per iteration."""

    def __init__(self, trainer: Trainer):
        cfg = trainer.cfg
        shares = split_matches(cfg.num_envs, cfg.workers)
        # a resumed run starts its workers on new matches: the seeds follow the iteration
        seeds = worker_seeds(cfg.seed, cfg.workers, stream=(2, trainer.iteration))
        # one torch thread per worker process (more only slow small networks down); workers in
        # this process keep the driver's setting
        threads = 1 if cfg.ray is not None else trainer.torch.get_num_threads()
        configs = [replace(cfg, seed=s, num_envs=n, workers=1, ray=None, torch_threads=threads)
                   for s, n in zip(seeds, shares, strict=True)]
        self.pool = WorkerPool(TrainerWorker, [{"config": c, "trainer_class": type(trainer)} for c in configs],
                               ray=False if cfg.ray is None else (True if cfg.ray == "local" else cfg.ray))
        self.sent_pool_version = -1

    @staticmethod
    def _payload(trainer: Trainer) -> dict[str, Any]:
        """What every worker gets each round: the networks (numpy), the observation
        statistics, whether the teacher term is on, and the pool's version."""
        return {"actor": _numpy_state(trainer.actor), "critic": _numpy_state(trainer.critic),
                "stats": (trainer.stats.mean, trainer.stats.var, trainer.stats.count),
                "teaching": trainer._teacher_weight() > 0, "pool": None, "pool_version": trainer.pool_version}

    @staticmethod
    def _pool(trainer: Trainer) -> list[dict[str, Any]]:
        return [{"actor": _numpy_state(s["actor"]), "mean": s["mean"], "std": s["std"], "iteration": s["iteration"]}
                for s in trainer.pool]

    def rollout(self, trainer: Trainer) -> dict[str, np.ndarray]:
        """One round on every worker; merges what they return into ``trainer`` (statistics,
        live win shares, time split) and returns the batch, worker 0's samples first."""
        started = time.perf_counter()
        payload = self._payload(trainer)

        def full() -> dict[str, Any]:  # for a new worker: the whole pool
            return {**payload, "pool": self._pool(trainer)}

        if trainer.pool_version != self.sent_pool_version:  # the pool goes out only when it changed
            payload = full()
        results = self.pool.run(payload, replacement_payload=full)
        self.sent_pool_version = trainer.pool_version
        for r in results:
            trainer.stats.merge(*r["seen"])
            for kind, shares in r["live"].items():
                trainer.live[kind].extend(shares)
        # the driver's wall time of the round, split as the workers spent theirs on average
        wall = time.perf_counter() - started
        keys = ("env", "opponents", "inference", "advantages")
        spent = {k: float(np.mean([r["times"][k] for r in results])) for k in keys}
        total = sum(spent.values()) or 1.0
        for k in keys:
            trainer.times[k] += wall * spent[k] / total
        return {k: np.concatenate([r["batch"][k] for r in results]) for k in results[0]["batch"]}

    def close(self) -> None:
        self.pool.close()


def _numpy_state(module: Any) -> dict[str, np.ndarray]:
    return {k: v.detach().cpu().numpy() for k, v in module.state_dict().items()}
