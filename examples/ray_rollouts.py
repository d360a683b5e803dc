"""Tutorial: rollouts on Ray workers, for a learner of your own.

    python examples/ray_rollouts.py            # 2 workers, 200,000 decisions a call
    python examples/ray_rollouts.py --short    # 2 workers, 20,000 decisions (what CI runs)

Each worker is a Ray actor that owns a vector env and a copy of the policy, which plays
every seat; `rollouts` gathers their time-major arrays side by side. `RolloutWorkers`
keeps the workers (and their matches) between calls, as a training loop does. The script
asserts what the tutorial says of the arrays: shapes, legal actions, and that the same
seed gives the same arrays (`ray=False` runs the same workers in this process).
Needs Ray (`pip install "cardenvs[ray]"`).
"""

import argparse

import numpy as np
import ray

from cardenvs.agents.training.distributed import RolloutWorkers, rollouts

parser = argparse.ArgumentParser()
parser.add_argument("--short", action="store_true", help="a small sample, for CI")
args = parser.parse_args()
decisions = 20_000 if args.short else 200_000

ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
try:
    batch = rollouts("president", "heuristic", workers=2, decisions=decisions, seed=0)
    T, N, obs_size = batch["observation"].shape
    print(f"{T} steps of {N} matches (2 workers side by side), {obs_size} observation entries")
    # every action taken was legal in its position
    assert batch["action_mask"][np.arange(T)[:, None], np.arange(N)[None, :], batch["action"]].all()
    assert batch["reward"].shape == (T, N, 4) and batch["player"].shape == (T, N)

    with RolloutWorkers("president", workers=2, num_envs=64, seed=0) as pool:  # the matches go on between calls
        for iteration in range(2):
            batch = pool.sample("random", decisions=decisions // 2)
            print(f"iteration {iteration}: {batch['action'].size} decisions, "
                  f"{int(batch['terminated'].sum())} matches finished")
            # ... your update: the arrays are what cardenvs.agents.training.selfplay.seat_advantages takes

    local = rollouts("president", "heuristic", workers=2, decisions=decisions, seed=0, ray=False)
    again = rollouts("president", "heuristic", workers=2, decisions=decisions, seed=0)
    assert np.array_equal(local["action"], again["action"])  # the same seed, the same arrays, with or without Ray
finally:
    ray.shutdown()
