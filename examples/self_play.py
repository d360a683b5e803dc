"""Tutorial: train with `cardenvs train ppo` (self-play PPO), then play and measure the policy.

    python examples/self_play.py            # 10 minutes of training
    python examples/self_play.py --short    # 60,000 decisions (what CI runs, about 30 s)

The trainer plays four-player Président rounds: the policy against the game's heuristic
players (most tables), random players, past snapshots of itself and itself, pulled
toward the heuristic's moves early on (kickstarting). Its run folder holds
`policy.npz`, which any agent name `ppo:PATH` plays, without torch. The script then
evaluates that policy against three random players, seats rotated, and asserts that it
wins at least 40 % of the rounds (a quarter is the fair share).
"""

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import cardenvs
from cardenvs.agents import make_agent
from cardenvs.agents.evaluate import evaluate

parser = argparse.ArgumentParser()
parser.add_argument("--short", action="store_true", help="a short budget, for CI")
args = parser.parse_args()
budget = ["--decisions", "60000"] if args.short else ["--minutes", "10"]

with tempfile.TemporaryDirectory() as tmp:
    run = Path(tmp) / "president"
    # the command line of the tutorial: `cardenvs train ppo president --players 4 --single-round ...`
    subprocess.run([sys.executable, "-m", "cardenvs", "train", "ppo", "president", "--players", "4",
                    "--single-round", "--eval-matches", "100", "--threads", "1", "--out", str(run), *budget],
                   check=True)
    assert (run / "policy.npz").exists() and (run / "metrics.csv").exists()

    spec = cardenvs.get_spec("president")
    options = {"num_players": 4, "single_round": True}
    policy = make_agent(f"ppo:{run / 'policy.npz'}", spec, options=options)
    others = [make_agent("random", spec, seed=s, options=options) for s in range(3)]
    results = evaluate(spec, [policy, *others], num_matches=400, seed=1, options=options)

share = results[0].win_rate
low, high = results[0].interval95  # Wilson's interval
print(f"the trained policy wins {share:.1%} [{low:.1%}, {high:.1%}] of the rounds against three random players")
assert share >= 0.40, share
