"""``cardenvs warmup``: compile every kernel of the games into numba's cache ahead of their
first use, so that the first env, match or training run starts at once. An install from
the wheel ships the kernels prebuilt for a portable CPU (:mod:`cardenvs.core.prebuilt`):
``--native`` compiles them for this machine's own CPU instead."""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from typing import Any, TextIO

import numpy as np

from cardenvs.agents import has_heuristic, make_agent
from cardenvs.cli.common import MAX_THREADS, CliError, check_count
from cardenvs.core import prebuilt
from cardenvs.core.jitcache import kernel_stamp
from cardenvs.core.registry import get_spec, list_games
from cardenvs.envs import make


def add_parser(sub: Any) -> None:
    """``warmup [GAME ...] [--jobs N]``."""
    wu = sub.add_parser(
        "warmup",
        help="compile the kernels ahead of the first use",
        description="Compile every kernel of the given games (default: all) into numba's cache, so that the "
        "first env, match or training run starts at once. Later runs load the compiled code.",
    )
    wu.add_argument("games", nargs="*", help="env ids or names (default: every game)")
    wu.add_argument("--jobs", type=int, default=None, metavar="N",
                    help="games compiled at once, each in a process of its own (default: one per core, "
                    "at most the number of games)")
    wu.add_argument("--native", action="store_true",
                    help="compile for this machine's CPU even where kernels prebuilt for a portable CPU are "
                    "installed (later runs then use these)")


def warm_game(env_id: str) -> float:
    """Compile (or load from the cache) every kernel the game ``env_id`` uses: the vector
    step (the threaded step runs the same kernel), the AEC env, the heuristic and the compiled
    opponents of LearnerVecEnv. Returns the seconds it took. Runs in a process of its own
    under ``--jobs``."""
    from cardenvs.core.vector import RandomSampler, VecEnv

    spec = get_spec(env_id)
    t = time.perf_counter()
    sampler = RandomSampler(0)
    venv = VecEnv(spec, 4, auto_play_forced=True, final_observation=True)
    st = venv.reset()
    for _ in range(40):
        st = venv.step(sampler(st.legal_action_mask))
    venv.observe(0)
    env = make(spec.env_id)
    env.reset(seed=0)
    for _ in range(20):
        obs = env.observe(env.agent_selection)
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    if has_heuristic(spec):
        make_agent("heuristic", spec).act_batch(st.observation, st.legal_action_mask)
    # the compiled opponents' loop of LearnerVecEnv (one a game, random and heuristic seats)
    from cardenvs.integrations.gym import LearnerVecEnv

    learner = LearnerVecEnv(spec.env_id, 2, opponents="heuristic" if has_heuristic(spec) else "random", seed=0)
    learner.reset()
    learner.step(sampler(learner.action_masks()))
    return time.perf_counter() - t


def warm_games(env_ids: list[str], jobs: int) -> Iterator[tuple[str, float]]:
    """Warm ``env_ids``, ``jobs`` at a time in processes of their own (1: here, in turn);
    yields (env id, seconds) as each is ready. numba compiles on one core, and the games'
    kernels are apart, so two games compile in about the time of the longer one."""
    if jobs <= 1 or len(env_ids) <= 1:
        for env_id in env_ids:
            yield env_id, warm_game(env_id)
        return
    # "spawn": a fresh interpreter per process (no fork of numba's or torch's threads)
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(jobs, len(env_ids)), mp_context=context) as pool:
        futures = {pool.submit(warm_game, env_id): env_id for env_id in env_ids}
        for future in as_completed(futures):
            yield futures[future], future.result()


@contextmanager
def _prebuilt_off() -> Iterator[None]:
    """The prebuilt kernels switched off here and in the processes started meanwhile."""
    before = os.environ.get(prebuilt.SWITCH_ENV)
    os.environ[prebuilt.SWITCH_ENV] = "0"
    prebuilt.reset()
    try:
        yield
    finally:
        if before is None:
            del os.environ[prebuilt.SWITCH_ENV]
        else:
            os.environ[prebuilt.SWITCH_ENV] = before
        prebuilt.reset()


def cmd_warmup(args: argparse.Namespace, out: TextIO) -> int:
    """Compile (or load from the cache) every kernel a game uses, timing each game."""
    try:
        specs = [get_spec(g) for g in args.games] if args.games else list_games()
    except ValueError as e:
        raise CliError(str(e)) from None
    check_count("--jobs", args.jobs, high=MAX_THREADS)
    jobs = args.jobs if args.jobs is not None else min(os.cpu_count() or 1, len(specs))
    if not args.native:
        print(f"cardenvs: {prebuilt.status(kernel_stamp())}", file=out, flush=True)
    total = time.perf_counter()
    with _prebuilt_off() if args.native else _nothing():
        for env_id, seconds in warm_games([spec.env_id for spec in specs], jobs):
            print(f"{env_id}: ready in {seconds:.1f} s", file=out, flush=True)
    print(f"all kernels ready in {time.perf_counter() - total:.1f} s (compiled code is cached: later runs load it)",
          file=out)
    if not args.native and prebuilt.usable(kernel_stamp()) is not None:
        print("(`cardenvs warmup --native` compiles them for this machine's own CPU instead)", file=out)
    return 0


@contextmanager
def _nothing() -> Iterator[None]:
    yield
