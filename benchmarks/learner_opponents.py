"""LearnerVecEnv's learner decisions per second against built-in opponents, every game.

A random learner (``RandomSampler``) plays N = 1 and N = 64 matches of 4 players against
``"heuristic"`` and ``"random"`` opponents; each figure is ``--seconds`` of steps after 5
warm-up steps (numba's cache warm: ``cardenvs warmup`` first). To compare two checkouts,
run it in each in turn, twice or more (the machine's load moves absolute figures):

``python benchmarks/learner_opponents.py [--seconds 3] [--games president_v0 rami51_v3] [--opponents heuristic]``

prints one line per figure and, last, all of them as one JSON object.
"""

from __future__ import annotations

import argparse
import json

from training import learner_rate  # benchmarks/ is the script's folder

GAMES = ["president_v0", "odin_v1", "rami51_v3", "frime_v1", "classes_v2"]


def rate(game: str, n: int, opponents: str, seconds: float, players: int = 4) -> float:
    return learner_rate(game, players, n, seconds, opponents)  # the training benchmark's loop


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--games", nargs="+", default=GAMES)
    ap.add_argument("--opponents", nargs="+", default=["heuristic", "random"])
    args = ap.parse_args(argv)
    out = {}
    for game in args.games:
        for opponents in args.opponents:
            for n in (1, 64):
                r = rate(game, n, opponents, args.seconds)
                out[f"{game} {opponents} N={n}"] = r
                print(f"{game:14s} {opponents:9s} N={n:3d} {r:10,.0f}/s", flush=True)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
