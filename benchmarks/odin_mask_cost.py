"""What Odin's legal mask costs per step, and how the card-by-card encoding behaves.

Positions are collected from play (random agents, then the heuristic), stored, and
the mask kernel alone (``legal_sets_batch`` of the rules: the legal sets as bit masks, the form the
step keeps), the observation alone, and a whole vector step are timed over them, in
ns per game (one core, best of several repeats; CPU time, so other processes on a
shared machine disturb it less). Also counted: legal actions per decision, decisions
per play and per match, and the size of the alternative encodings.

    python benchmarks/odin_mask_cost.py [--players 4] [--batch 4096]
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

import cardenvs
import cardenvs.games.odin as odin_driver
from cardenvs.core.vector import RandomSampler
from cardenvs.games.odin import rules as odin


def best_time(fn, repeats: int = 7, inner: int = 50) -> float:
    fn()
    best = float("inf")
    for _ in range(repeats):
        t = time.process_time()
        for _ in range(inner):
            fn()
        best = min(best, (time.process_time() - t) / inner)
    return best


def collect(players: int, batch: int, agent: str, seed: int = 0, steps: int = 3000):
    """``batch`` positions sampled along ``steps`` steps of 1024 games, plus play statistics."""
    games = 1024
    venv = cardenvs.make_vec("odin_v1", num_envs=games, seed=seed, num_players=players)
    state = venv.reset()
    if agent == "heuristic":
        from cardenvs.agents.heuristics.odin import OdinHeuristic

        pick = OdinHeuristic(venv.spec).act_batch
    else:
        sampler = RandomSampler(seed)
        pick = lambda obs, mask: sampler(mask)  # noqa: E731
    rng = np.random.default_rng(seed)
    decisions = legal = selects = commits = passes = matches = rounds = 0
    snapshots = []
    for step in range(steps):
        actions = pick(state.observation, state.legal_action_mask)
        legal += int(state.legal_action_mask.sum())
        decisions += games
        selects += int(((actions >= odin.SELECT0) & (actions < odin.TAKE0)).sum())
        commits += int(((actions == odin.PLAY) | (actions >= odin.TAKE0)).sum())
        passes += int((actions == odin.PASS).sum())
        state = venv.step(actions)
        matches += int(state.terminated.sum())
        rounds += int(state.round_ended.sum())
        if step >= 100 and step % 100 == 0:
            snapshots.append(venv.states.copy())
    pool = np.concatenate(snapshots)
    states = pool[rng.permutation(len(pool))[:batch]].copy()
    stats = {
        "legal actions per decision": legal / decisions,
        "decisions per play (selects + commit)": (selects + commits) / commits,
        "share of passes": passes / decisions,
        "decisions per round": decisions / max(rounds, 1),
        "rounds per match": rounds / max(matches, 1),
    }
    return venv, states, stats


def alternative_sizes() -> dict:
    """Distinct plays: one colour (any non-empty subset of its 9 values) or one value
    (two or more of its 6 colours; singles are already counted)."""
    colour = 6 * (2**9 - 1)
    value = 9 * sum(1 for k in range(2, 7) for _ in itertools.combinations(range(6), k))
    plays = colour + value
    return {
        "one action per play (+ pass)": plays + 1,
        "one action per (play, card kept)": plays * 54 + 1,
        "card by card, this env": odin.NUM_ACTIONS,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--batch", type=int, default=4096)
    args = parser.parse_args()
    for name, n in alternative_sizes().items():
        print(f"{name:40s} {n:>8,d} actions")
    for agent in ("random", "heuristic"):
        venv, states, stats = collect(args.players, args.batch, agent)
        N = len(states)
        work = states.copy()
        t_mask = best_time(lambda: odin.legal_sets_batch(work)) / N * 1e9  # noqa: B023
        obs = np.empty((N, odin.OBS_SIZE), odin.OBS_DTYPE)
        viewer = states["current"].astype(np.int64)
        t_obs = best_time(lambda: odin_driver.observe_batch(work, viewer, obs)) / N * 1e9  # noqa: B023
        masks = np.empty((N, odin.NUM_ACTIONS), np.bool_)
        cur = np.empty(N, np.int32)
        odin_driver.refresh_batch(work, masks, obs, cur)
        sampler = RandomSampler(1)
        rew = np.empty((N, odin.MAX_PLAYERS), np.float32)
        ev = np.empty(N, np.int32)

        def step():
            odin_driver.step_batch(work, sampler(masks), masks, obs, rew, ev, cur, 1)  # noqa: B023

        t_step = best_time(step) / N * 1e9
        print(f"\npositions from {agent} play ({args.players} players, {N} games):")
        for k, v in stats.items():
            print(f"  {k:40s} {v:10.2f}")
        print(f"  {'mask alone (ns per game)':40s} {t_mask:10.0f}")
        print(f"  {'observation alone (ns per game)':40s} {t_obs:10.0f}")
        print(f"  {'whole step incl. mask, obs, sampler':40s} {t_step:10.0f}")
        print(f"  {'mask share of the step':40s} {t_mask / t_step:10.1%}")


if __name__ == "__main__":
    main()
