"""Re-deals of what a seat cannot see per second, beside the vector step, every game.

For each game: N games (default 1,024, 4 players) played at random to mid-round
positions; then, alternating in one process, ``VecEnv.resample_hidden(viewers, seed)``
(a re-deal of every game for its player to move, as a search does: the copy, the kernel,
the rejection of deals that break a public fact, the refreshed masks and observations)
and ``VecEnv.step``
with the compiled random sampler. Reports re-deals/s (one game re-dealt once) and
decisions/s (one game stepped once), medians over the rounds.

    python benchmarks/resample.py                       # all games, N = 1024
    python benchmarks/resample.py --games odin --num-envs 256 --rounds 7

Compile time is excluded (a warm-up runs first); figures vary by +-30 % on shared machines.
"""

from __future__ import annotations

import argparse
import statistics
import time

import cardenvs
from cardenvs.core.vector import RandomSampler

GAMES = ("president", "odin", "rami51", "frime", "classes")


def measure(game: str, n: int, rounds: int, seconds: float) -> dict:
    venv = cardenvs.make_vec(game, num_envs=n, seed=0, num_players=4)
    state = venv.reset()
    sampler = RandomSampler(seed=1)
    for _ in range(30):  # into the round: hands known in part, tables laid
        state = venv.step(sampler(state.legal_action_mask))
    venv.resample_hidden(state.current_player, seed=0)  # warm-up (compiles)
    redeal, step = [], []
    for r in range(rounds):
        t0, k = time.perf_counter(), 0
        while time.perf_counter() - t0 < seconds:
            venv.resample_hidden(state.current_player, seed=r * 1000 + k)
            k += 1
        redeal.append(k * n / (time.perf_counter() - t0))
        t0, k = time.perf_counter(), 0
        while time.perf_counter() - t0 < seconds:
            state = venv.step(sampler(state.legal_action_mask))
            k += 1
        step.append(k * n / (time.perf_counter() - t0))
    return {"game": game, "num_envs": n, "redeals_per_s": statistics.median(redeal),
            "decisions_per_s": statistics.median(step)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", nargs="+", default=list(GAMES))
    ap.add_argument("--num-envs", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.0)
    args = ap.parse_args()
    print(f"{'game':<10} {'N':>6} {'re-deals/s':>12} {'step decisions/s':>18} {'ratio':>7}")
    for game in args.games:
        r = measure(game, args.num_envs, args.rounds, args.seconds)
        print(f"{game:<10} {r['num_envs']:>6} {r['redeals_per_s']:>12,.0f} {r['decisions_per_s']:>18,.0f} "
              f"{r['redeals_per_s'] / r['decisions_per_s']:>7.2f}", flush=True)


if __name__ == "__main__":
    main()
