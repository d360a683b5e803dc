"""Throughput of every registered game: AEC env (behind env()'s wrappers) and vector env.

Random legal play. AEC: a Python agent picks uniformly among the mask's legal actions
and the loop runs through ``agent_iter``/``last``/``step`` as a PettingZoo user would.
Vector: the compiled batched sampler picks the actions; one ``step`` call per batch;
observation and mask are computed every step. A "decision" is one action of one game.

    python benchmarks/throughput.py                      # all games, default batch sizes
    python benchmarks/throughput.py --games president --batch 1 1024 8192 --json out.json
    python benchmarks/throughput.py --threads 2          # add a threaded run at the big batches

Compile time is excluded (a warm-up call runs first); figures vary by +-30 % on shared machines.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time

import numba
import numpy as np
from anchors import _aec_loop as aec_game  # the same random-agent loop as the anchors' runs

import cardenvs
from cardenvs.core.threads import usable_cpus
from cardenvs.core.vector import RandomSampler

DEFAULT_BATCHES = [1, 16, 64, 256, 1024, 4096, 8192]
DEFAULT_PLAYERS = {"president": 5, "rami51": 4}


def bench_aec(name: str, players: int, seconds: float, seed: int = 0) -> dict:
    env = cardenvs.make(name, num_players=players)
    rng = random.Random(seed)
    env.reset(seed=seed)
    aec_game(env, rng)  # warm-up: one full match compiles everything
    env.reset(seed=seed)
    decisions = 0
    games = 0
    start = time.perf_counter()
    while True:
        decisions += aec_game(env, rng)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
        env.reset()
    return {"decisions_per_s": decisions / elapsed, "games_per_s": games / elapsed, "decisions": decisions}


def bench_vec(name: str, players: int, batch: int, seconds: float, threads: int = 1, seed: int = 0) -> dict:
    venv = cardenvs.make_vec(name, num_envs=batch, seed=seed, num_players=players, num_threads=threads)
    sample = RandomSampler(seed)
    state = venv.reset()
    for _ in range(3):  # warm-up (compile)
        state = venv.step(sample(state.legal_action_mask))
    steps = 0
    games = 0
    start = time.perf_counter()
    while True:
        for _ in range(16):
            state = venv.step(sample(state.legal_action_mask))
            games += int(state.terminated.sum() + state.truncated.sum())
        steps += 16
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    return {
        "batch": batch,
        "threads": threads,
        "decisions_per_s": steps * batch / elapsed,
        "games_per_s": games / elapsed,
        "bytes_per_game": venv.states.dtype.itemsize,
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="*", default=[s.name for s in cardenvs.list_games()])
    parser.add_argument("--batch", nargs="*", type=int, default=DEFAULT_BATCHES)
    parser.add_argument("--threads", type=int, default=1, help="also run batches >= 1024 with this many threads")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--json", help="write the results to this file")
    args = parser.parse_args(argv)
    results = {
        "machine": {
            "python": platform.python_version(),
            "numba": numba.__version__,
            "numpy": np.__version__,
            "processor": platform.processor() or platform.machine(),
            "cpus": usable_cpus(),
        },
        "games": {},
    }
    for name in args.games:
        spec = cardenvs.get_spec(name)
        players = DEFAULT_PLAYERS.get(spec.name, spec.default_players)
        res = {"players": players, "aec": bench_aec(spec.env_id, players, args.seconds), "vector": []}
        print(f"{spec.env_id} ({players} players)")
        print(f"  AEC env() wrappers  {res['aec']['decisions_per_s']:>12,.0f} steps/s  "
              f"{res['aec']['games_per_s']:8.1f} matches/s")
        runs = [(b, 1) for b in args.batch]
        if args.threads > 1:
            runs += [(b, args.threads) for b in args.batch if b >= 1024]
        for batch, threads in runs:
            r = bench_vec(spec.env_id, players, batch, args.seconds, threads)
            res["vector"].append(r)
            print(f"  vector N={batch:<5d} threads={threads}  {r['decisions_per_s']:>12,.0f} decisions/s  "
                  f"{r['games_per_s']:8.1f} matches/s")
        results["games"][spec.name] = res
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)
    return results


if __name__ == "__main__":
    main()
