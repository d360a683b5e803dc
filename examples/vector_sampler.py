"""Tutorial: the vector env with the compiled random sampler.

    python examples/vector_sampler.py            # 1,024 President matches side by side, 5,000 steps
    python examples/vector_sampler.py --short    # 256 matches, 1,500 steps (what CI runs)

One call steps every match; finished matches restart inside the step. The sampler picks a
random legal action for each match in compiled code, so the loop runs at the kernels'
speed. It asserts that the batch behaves as the tutorial says: exactly one winner's share
per finished match, and random seats win about equally.
"""

import argparse
import time

import numpy as np

import cardenvs
from cardenvs.core.vector import RandomSampler

parser = argparse.ArgumentParser()
parser.add_argument("--short", action="store_true", help="a small batch, for CI")
args = parser.parse_args()
num_envs, steps = (256, 1500) if args.short else (1024, 5000)

venv = cardenvs.make_vec("president_v0", num_envs=num_envs, seed=0, num_players=5)
sample = RandomSampler(seed=0)  # compiled, seeded random legal moves

state = venv.reset()
wins = np.zeros(5)
finished = 0
start = time.perf_counter()
for _ in range(steps):
    state = venv.step(sample(state.legal_action_mask))
    done = state.terminated
    finished += int(done.sum())
    wins += (state.rewards[done] > 0).sum(axis=0)  # the winners of a match get a positive reward
elapsed = time.perf_counter() - start

print(f"{steps * num_envs / elapsed:,.0f} decisions/s; {finished} matches finished")
print("matches won per seat:", wins)
assert finished > 0 and state.observation.shape == (num_envs, venv.spec.module.OBS_SIZE)
assert wins.sum() >= finished  # each finished match has a winner (a tie shares it)
assert wins.min() > 0  # every seat wins some: random play favours no seat much
