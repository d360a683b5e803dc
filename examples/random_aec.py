"""Tutorial: a random player at every seat of the AEC env (PettingZoo's agent loop).

    python examples/random_aec.py            # 20 five-player Président matches
    python examples/random_aec.py --short    # 3 matches (what CI runs)

It asserts what the tutorial promises: every match ends, every agent gets its last step
with `terminated` (or `truncated`), and the match scores are in the info.
"""

import argparse

import numpy as np

import cardenvs

parser = argparse.ArgumentParser()
parser.add_argument("--short", action="store_true", help="a few matches, for CI")
args = parser.parse_args()
matches = 3 if args.short else 20

env = cardenvs.make("president_v0", num_players=5)
rng = np.random.default_rng(0)
wins = np.zeros(5)

for match in range(matches):
    env.reset(seed=match)
    ended = set()
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            ended.add(agent)
            action = None  # a finished agent steps None
        else:
            legal = np.flatnonzero(obs["action_mask"])  # the legal actions of the agent to move
            action = int(rng.choice(legal))
        env.step(action)
    assert ended == {f"player_{p}" for p in range(5)}, ended  # every agent saw the end
    scores = np.array(info["scores"])
    wins[scores == scores.max()] += 1  # the match winners: the highest score
    print(f"match {match}: scores {info['scores']}")

print("wins per seat:", wins)
assert wins.sum() >= matches  # a tie gives more than one winner
