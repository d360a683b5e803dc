"""``cardenvs warmup``: compile every kernel of the games into numba's cache ahead of their
first use, so that the first env, match or training run starts at once."""

from __future__ import annotations

import argparse
import time
from typing import Any, TextIO

import numpy as np

from cardenvs.agents import has_heuristic, make_agent
from cardenvs.cli.common import CliError
from cardenvs.core.registry import get_spec, list_games
from cardenvs.envs import make


def add_parser(sub: Any) -> None:
    """``warmup [GAME ...] [--threads]``."""
    wu = sub.add_parser(
        "warmup",
        help="compile the kernels ahead of the first use",
        description="Compile every kernel of the given games (default: all) into numba's cache, so that the "
        "first env, match or training run starts at once. Later runs load the compiled code.",
    )
    wu.add_argument("games", nargs="*", help="env ids or names (default: every game)")
    wu.add_argument("--threads", action="store_true", help="also the threaded step (num_threads > 1)")


def cmd_warmup(args: argparse.Namespace, out: TextIO) -> int:
    """Compile (or load from the cache) every kernel a game uses, timing each game."""
    from cardenvs.core.vector import RandomSampler, VecEnv

    try:
        specs = [get_spec(g) for g in args.games] if args.games else list_games()
    except ValueError as e:
        raise CliError(str(e)) from None
    total = time.perf_counter()
    for spec in specs:
        t = time.perf_counter()
        sampler = RandomSampler(0)
        threads = [1, 2] if args.threads else [1]
        for n_threads in threads:
            venv = VecEnv(spec, 4, num_threads=n_threads, parallel_threshold=1, auto_play_forced=True,
                          final_observation=True)
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
        print(f"{spec.env_id}: ready in {time.perf_counter() - t:.1f} s", file=out, flush=True)
    print(f"all kernels ready in {time.perf_counter() - total:.1f} s (compiled code is cached: later runs load it)",
          file=out)
    return 0
