"""Tutorial: Stable-Baselines3's MaskablePPO on a Gymnasium id.

    python examples/sb3_maskable_ppo.py            # 50,000 steps
    python examples/sb3_maskable_ppo.py --short    # 10,000 steps (what CI runs, about 10 s)

One seat of a four-player Président round against three random players
(`cardenvs/president-v0`, `single_round=True`), eight envs in SB3's `DummyVecEnv`. After
training, the greedy policy and a random player each play the same 300 deals in the
learner's seat; the script asserts that the policy wins at least 15 points more of them
than the random player (who wins about 28 %: a quarter, and a little more for ties).
"""

import argparse

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env

import cardenvs  # noqa: F401  (registers the Gymnasium ids)

parser = argparse.ArgumentParser()
parser.add_argument("--short", action="store_true", help="a short budget, for CI")
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()
steps = 10_000 if args.short else 50_000
MARGIN = 0.15  # the least gain over a random player that this budget reaches (docs/tutorials/sb3-maskable-ppo.md)

torch.set_num_threads(1)  # small networks: one thread is fastest on a small machine
game = dict(opponents="random", num_players=4, single_round=True, scale_observations=True)

venv = make_vec_env("cardenvs/president-v0", 8, seed=args.seed, env_kwargs=game)
model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=256, seed=args.seed)
model.learn(total_timesteps=steps)


def win_share(choose, deals: int = 300) -> float:
    """The learner's share of the wins over `deals` rounds, `choose(obs, mask) -> action`."""
    env = gym.make("cardenvs/president-v0", **game)
    total = 0.0
    for deal in range(deals):
        obs, info = env.reset(seed=10_000 + deal)  # the same deals and seats for both players
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(choose(obs, info["action_mask"]))
            done = terminated or truncated
        total += info["win_share"]
    return total / deals


rng = np.random.default_rng(args.seed)
trained = win_share(lambda obs, mask: int(model.predict(obs, action_masks=mask, deterministic=True)[0]))
random_play = win_share(lambda obs, mask: int(rng.choice(np.flatnonzero(mask))))
print(f"after {steps:,} steps: the policy wins {trained:.1%} of the rounds, a random player {random_play:.1%}")
assert trained >= random_play + MARGIN, (trained, random_play)
