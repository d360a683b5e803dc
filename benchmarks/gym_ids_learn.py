"""Do the Gymnasium ids train out of the box? sb3-contrib's MaskablePPO on each id's defaults.

For every id (or ``--games``), the snippet of the README: ``MaskablePPO("MlpPolicy", env)``
over ``make_vec_env(id, 8)`` with nothing but the id's defaults, ``--steps`` decisions of the
learner (SB3's defaults apart from ``n_steps=256``, so that short budgets still make a few
updates). Then the greedy policy and a uniformly random player each play the same
``--episodes`` deals in the learner's seat against the id's default opponents; the
figure is the gain of the policy's win share over the random player's (a tie's win is
shared). ``--kwargs KEY=VALUE`` overrides an id's default (``single_round=False``,
``scale_observations=False``, ...) to compare with other settings.

    python benchmarks/gym_ids_learn.py --steps 50000 --episodes 300
    python benchmarks/gym_ids_learn.py --games classes --kwargs single_round=False

Writes one JSON line per id to ``--out`` (default ``benchmarks/results/gym_ids_learn.jsonl``).
The episodes the policy plays are dealt from seeds the training never used.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # small matrices in a loop: one BLAS thread is fastest

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

import cardenvs  # noqa: E402,F401  (registers the ids)
from cardenvs.core.outcome import wilson_interval  # noqa: E402
from cardenvs.core.registry import GAMES  # noqa: E402
from cardenvs.integrations.gym import gym_id  # noqa: E402


def win_share(env_id: str, kwargs: dict, choose, episodes: int) -> tuple[float, float]:
    """The learner seat's mean win share over ``episodes`` seeded deals, and the mean
    episode length in learner decisions."""
    env = gym.make(env_id, **kwargs)
    total = 0.0
    steps = 0
    for k in range(episodes):
        obs, info = env.reset(seed=1_000_000 + k)
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(choose(obs, info["action_mask"]))
            steps += 1
            done = terminated or truncated
        total += info.get("win_share", 0.0)
    return total / episodes, steps / episodes


def main() -> None:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="*", default=None, help="game names (default: every game)")
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kwargs", nargs="*", default=[], metavar="KEY=VALUE")
    parser.add_argument("--out", default="benchmarks/results/gym_ids_learn.jsonl")
    args = parser.parse_args()
    torch.set_num_threads(1)
    extra = {}
    for item in args.kwargs:
        key, _, value = item.partition("=")
        extra[key] = ast.literal_eval(value)
    names = args.games or [env_id.rpartition("_v")[0] for env_id in GAMES]
    for name in names:
        env_id = gym_id(next(e for e in GAMES if e.rpartition("_v")[0] == name))
        defaults = dict(gym.spec(env_id).kwargs)
        defaults.pop("game", None)
        t0 = time.perf_counter()
        venv = make_vec_env(env_id, 8, seed=args.seed, env_kwargs=extra)
        model = MaskablePPO("MlpPolicy", venv, n_steps=256, seed=args.seed)
        model.learn(total_timesteps=args.steps)
        train_s = time.perf_counter() - t0
        rng = np.random.default_rng(args.seed)

        def greedy(o, m, model=model):
            return int(model.predict(o, action_masks=m, deterministic=True)[0])

        def uniform(o, m, rng=rng):
            return int(rng.choice(np.flatnonzero(m)))

        trained, length = win_share(env_id, extra, greedy, args.episodes)
        random_play, _ = win_share(env_id, extra, uniform, args.episodes)
        low, high = wilson_interval(trained, args.episodes)
        row = {"id": env_id, "defaults": defaults, "overrides": extra, "steps": args.steps,
               "train_seconds": round(train_s, 1), "episodes": args.episodes, "episode_decisions": round(length, 1),
               "policy_win_share": round(trained, 4), "policy_ci95": [round(low, 4), round(high, 4)],
               "random_win_share": round(random_play, 4), "gain": round(trained - random_play, 4), "seed": args.seed,
               "max_episode_steps": gym.spec(env_id).max_episode_steps}
        print(f"{env_id}: {args.steps:,} steps in {train_s:.0f} s; policy {trained:.1%} [{low:.1%}, {high:.1%}], "
              f"random {random_play:.1%}: gain {trained - random_play:+.1%} ({length:.0f} decisions an episode)",
              flush=True)
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        with open(args.out, "a") as f:
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
