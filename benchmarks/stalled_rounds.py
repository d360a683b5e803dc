"""How often the rummies' rounds stall, and what that does to a match.

A rummy round that reaches ``max_turns_per_round`` turns ends void (nobody scores it, the
next round is dealt). This script plays matches between random or heuristic players on
the vector env and reports, per setup: the share of rounds that ended void, the mean
rounds and decisions of a match, the longest match, and the matches cut by ``max_steps``
(0 unless given).

    python benchmarks/stalled_rounds.py                        # every rummy, the default setups
    python benchmarks/stalled_rounds.py --games classes --matches 500 --option max_steps=200000
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from cardenvs.agents import make_agent
from cardenvs.core.registry import get_spec
from cardenvs.core.vector import VecEnv

SETUPS = {  # game: [(players, agent names, extra options)]
    "rami51": [(2, "random", {}), (2, "heuristic", {}), (2, "random", {"single_round": True}),
               (2, "heuristic", {"single_round": True}), (4, "heuristic", {})],
    "frime": [(4, "random", {}), (4, "heuristic", {}), (6, "heuristic", {})],
    "classes": [(2, "heuristic", {}), (4, "heuristic", {}), (6, "heuristic", {}), (4, "random", {}),
                (4, "random", {"single_round": True})],
}


def measure(game: str, players: int, agent: str, options: dict, matches: int, seed: int) -> dict:
    spec = get_spec(game)
    env = VecEnv(spec, num_envs=matches, seed=seed, auto_reset=False, num_players=players, **options)
    agents = [make_agent(agent, spec, seed=seed + k, options=dict(options, num_players=players))
              for k in range(players)]
    st = env.reset()
    done = np.zeros(matches, dtype=np.bool_)
    decisions = np.zeros(matches, dtype=np.int64)
    t = time.perf_counter()
    while not done.all():
        actions = np.zeros(matches, dtype=np.int64)
        for seat, a in enumerate(agents):
            rows = np.flatnonzero(~done & (st.current_player == seat))
            if rows.size:
                actions[rows] = a.act_batch(st.observation[rows], st.legal_action_mask[rows])
        decisions += ~done
        st = env.step(actions)
        done |= st.terminated | st.truncated
    rounds = np.array([int(r["round"]) for r in env.states]) - int(options.get("first_round", 1)) + 1
    voids = np.array([int(r["void_rounds"]) for r in env.states])
    return {"rounds": rounds, "voids": voids, "decisions": decisions,
            "cut": int(np.sum([bool(r["truncated"]) for r in env.states])), "seconds": time.perf_counter() - t}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=list(SETUPS))
    ap.add_argument("--matches", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--option", nargs="*", default=[], metavar="KEY=VALUE", help="added to every setup (ints)")
    args = ap.parse_args()
    extra = {k: int(v) for k, v in (o.split("=", 1) for o in args.option)}
    print("| game | players | agents | options | void rounds | rounds / match | decisions / match (max) "
          "| cut by max_steps | time |")
    print("|---|---|---|---|---|---|---|---|---|")
    for game in args.games:
        for players, agent, options in SETUPS[game]:
            opts = dict(options, **extra)
            r = measure(game, players, agent, opts, args.matches, args.seed)
            share = r["voids"].sum() / max(1, r["rounds"].sum())
            shown = ", ".join(f"{k}={v}" for k, v in opts.items()) or "defaults"
            print(f"| {game} | {players} | {agent} | {shown} | {share:.1%} | {r['rounds'].mean():.1f} | "
                  f"{r['decisions'].mean():,.0f} ({r['decisions'].max():,}) | {r['cut']} of {args.matches} | "
                  f"{r['seconds']:.0f} s |", flush=True)


if __name__ == "__main__":
    main()
