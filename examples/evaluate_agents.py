"""Tutorial: evaluate and compare agents, head to head, with the seats rotated.

    python examples/evaluate_agents.py            # 2,000 matches per comparison
    python examples/evaluate_agents.py --short    # 200 (what CI runs)

Four-player Président matches on the vector env: the heuristic player against three
random players, then the trained baseline shipped with the package (`ppo`) against three
heuristic players. `evaluate` rotates the seats between matches, so that every agent
plays every seat equally often, and gives each agent its win share with a 95 % interval.
The same comparisons from the shell: `cardenvs eval president --agents heuristic,random`.
It asserts the ordering the tutorial shows: heuristic over random, and the shipped policy
over the heuristic's fair share of 25 %.
"""

import argparse

import cardenvs
from cardenvs.agents import make_agent
from cardenvs.agents.evaluate import evaluate

parser = argparse.ArgumentParser()
parser.add_argument("--short", action="store_true", help="fewer matches, for CI")
args = parser.parse_args()
matches = 200 if args.short else 2000

spec = cardenvs.get_spec("president")
options = {"num_players": 4}


def compare(first: str, others: str) -> float:
    """`first` against three `others`; prints and returns the first agent's win share."""
    agents = [make_agent(first, spec, seed=0, options=options)]
    agents += [make_agent(others, spec, seed=s, options=options) for s in (1, 2, 3)]
    results = evaluate(spec, agents, num_matches=matches, seed=0, options=options)
    for r in results[:2]:
        low, high = r.interval95  # Wilson's interval: right at 0 % and 100 % too
        print(f"  {r.name:>10}: {r.win_rate:6.1%} [{low:.1%}, {high:.1%}] of {r.finished} matches, "
              f"mean score {r.mean_score:.2f}")
    return results[0].win_rate


print(f"heuristic against three random players, {matches} matches:")
heuristic = compare("heuristic", "random")
print(f"the shipped policy (ppo) against three heuristic players, {matches} matches:")
ppo = compare("ppo", "heuristic")
assert heuristic > 0.5, heuristic
assert ppo > 0.25 + 0.05, ppo
