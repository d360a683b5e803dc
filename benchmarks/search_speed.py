"""What the ``search`` agent costs: its decisions a second on one core, for each game it plays.

One seat (rotated) is the search agent, the others heuristic players, ``--batch`` matches
side by side on the vector env (as ``cardenvs eval`` plays them; ``--batch 1`` is one match at
a time, as ``cardenvs play`` asks). It counts the search seat's decisions (those with more
than one legal action: the ones searched) and the time spent in the agent, and prints the
searched decisions a second, the rollouts a decision (deals x legal actions) and the
matches a minute with one search seat. Run it with one numba thread and one BLAS thread
(the step is single-threaded; the figure is per core):

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/search_speed.py
    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/search_speed.py --games odin --samples 4 8 16

``--rollouts python compiled`` times the rollouts played step by step from Python and in
compiled code in turn, setup by setup (the same moves; the default is the compiled loop).

``--quality`` measures what the deals buy instead: on positions of heuristic play (the
search seat to move, more than one legal action), each K's choice is valued by a
reference search of ``--reference`` deals (other deals, same rollouts); the regret is the
reference's best value minus that of the move chosen, in the search's units (round
points over the others' mean; the win in a one-round match), and the heuristic's own
move is the baseline:

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/search_speed.py --quality --games rami51

Games without a re-deal (``deal_unseen_batch``) are skipped with a note. The figures are
in docs/notes/search.md.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time

import numpy as np

from cardenvs.agents import has_search, make_agent
from cardenvs.agents import search as search_module
from cardenvs.core.registry import get_spec, list_games
from cardenvs.core.vector import VecEnv


def measure(game: str, players: int, samples: int | None, batch: int, seconds: float, seed: int,
            options: dict) -> dict:
    """Play for about ``seconds`` of search time; the search seat's figures."""
    spec = get_spec(game)
    opts = {**options, "num_players": players}
    name = "search" if samples is None else f"search:{samples}"
    search = make_agent(name, spec, seed=seed, options=opts)
    heuristic = make_agent("heuristic", spec, options=opts)
    searched = decisions = rollouts = matches = started = 0
    per_match: list[int] = []  # searched decisions of each finished match
    spent = 0.0
    first = seed * 1_000_000
    while spent < seconds:
        env = VecEnv(spec, num_envs=batch, auto_reset=False, auto_play_forced=True, **opts)
        st = env.reset(seeds=np.arange(first + started, first + started + batch))
        seat = (np.arange(batch) + started) % players
        started += batch
        done = np.zeros(batch, bool)
        count = np.zeros(batch, np.int64)
        while not done.all() and spent < seconds:
            actions = heuristic.act_batch(st.observation, st.legal_action_mask)
            rows = np.flatnonzero(~done & (st.current_player == seat))
            if rows.size:
                masks = st.legal_action_mask[rows]
                t = time.perf_counter()
                actions[rows] = search.act_states(env.states[rows], st.observation[rows], masks)
                spent += time.perf_counter() - t
                legal = masks.sum(1)
                decisions += rows.size
                searched += int((legal > 1).sum())
                count[rows] += legal > 1
                rollouts += int(legal[legal > 1].sum()) * search.samples
            actions[done] = 0
            st = env.step(actions)
            done |= st.terminated | st.truncated
        per_match += count[done].tolist()
        matches += int(done.sum())
    rate = searched / spent
    mean = float(np.mean(per_match)) if per_match else None
    return {"game": game, "players": players, "samples": search.samples, "batch": batch, "seconds": spent,
            "searched_decisions": searched, "decisions": decisions, "matches_finished": matches,
            "searched_per_s": rate, "rollouts_per_decision": rollouts / max(searched, 1),
            "rollouts_per_s": rollouts / spent, "searched_per_match": mean,
            "search_seconds_per_match": None if mean is None else mean / rate}


def heuristic_positions(game: str, players: int, n: int, seed: int, options: dict):
    """``n`` positions of heuristic play with more than one legal action: states, observations, masks."""
    spec = get_spec(game)
    opts = {**options, "num_players": players}
    heuristic = make_agent("heuristic", spec, options=opts)
    rng = np.random.default_rng(seed)
    env = VecEnv(spec, num_envs=n, auto_reset=True, auto_play_forced=True, **opts)
    st = env.reset(seed=seed)
    states, obs, masks = [], [], []
    for _ in range(2000):
        take = np.flatnonzero((st.legal_action_mask.sum(1) > 1) & (rng.random(n) < 0.02))
        states.append(env.states[take].copy())
        obs.append(st.observation[take].copy())
        masks.append(st.legal_action_mask[take].copy())
        if sum(len(x) for x in states) >= n:
            break
        st = env.step(heuristic.act_batch(st.observation, st.legal_action_mask))
    return np.concatenate(states)[:n], np.concatenate(obs)[:n], np.concatenate(masks)[:n]


def quality(game: str, players: int, samples: list[int], reference: int, positions: int, seed: int,
            options: dict) -> list[dict]:
    """Each K's mean regret against a reference search on the same positions."""
    from cardenvs.agents.search import search_values

    spec = get_spec(game)
    opts = {**options, "num_players": players}
    states, obs, masks = heuristic_positions(game, players, positions, seed, options)
    ref_agent = make_agent(f"search:{reference}", spec, seed=seed, options=opts)
    seats = np.empty(len(states), np.int32)
    spec.module.refresh_batch(states.copy(), np.empty_like(masks), np.empty_like(obs), seats)
    t = time.perf_counter()
    ref = search_values(spec.module, ref_agent.heuristic, states, seats.astype(np.int64), masks, reference, players,
                        ref_agent.round_mode, np.random.default_rng([seed, 1]))
    ref_seconds = time.perf_counter() - t
    hints = ref_agent.heuristic.act_batch(obs, masks)

    def regret(picks: np.ndarray) -> tuple[float, float]:
        r = np.array([v.max() - v[np.flatnonzero(m) == a][0] for v, m, a in zip(ref, masks, picks, strict=True)])
        return float(r.mean()), float(1.96 * r.std(ddof=1) / np.sqrt(len(r)))

    out = [{"game": game, "samples": "heuristic", "regret": regret(hints), "seconds": 0.0}]
    out.append({"game": game, "samples": f"reference {reference}", "regret": (0.0, 0.0), "seconds": ref_seconds})
    for k in samples:
        agent = make_agent(f"search:{k}", spec, seed=seed + k, options=opts)
        t = time.perf_counter()
        picks = agent.act_states(states, obs, masks)
        out.append({"game": game, "samples": k, "regret": regret(picks), "seconds": time.perf_counter() - t,
                    "unlike_heuristic": float(np.mean(picks != hints))})
    return out


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="*", default=[g.name for g in list_games()])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--samples", type=int, nargs="*", default=[None],
                    help="deals a decision to measure (default: the game's default)")
    ap.add_argument("--batch", type=int, nargs="*", default=[1, 64], help="matches side by side (default 1 64)")
    ap.add_argument("--seconds", type=float, default=20.0, help="search time measured per setup (default 20)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--option", nargs="*", default=[], metavar="KEY=VALUE", help="game options (integers)")
    ap.add_argument("--rollouts", nargs="+", choices=["compiled", "python"], default=["compiled"],
                    help="how the rollouts are played, each timed in turn (default compiled)")
    ap.add_argument("--json", help="append the figures to this file, a JSON object a line")
    ap.add_argument("--quality", action="store_true", help="regret of each K against a reference search")
    ap.add_argument("--reference", type=int, default=128, help="deals of the reference search (default 128)")
    ap.add_argument("--positions", type=int, default=100, help="positions for --quality (default 100)")
    args = ap.parse_args(argv)
    options = {k: int(v) for k, v in (o.split("=", 1) for o in args.option)}
    out = []
    if args.quality:
        for game in args.games:
            if not has_search(get_spec(game)):
                print(f"{game}: no re-deal of the unseen cards yet, skipped")
                continue
            ks = [k for k in args.samples if k is not None] or [4, 8, 16, 32, 64]
            for r in quality(game, args.players, ks, args.reference, args.positions, args.seed, options):
                out.append(r)
                extra = f", {r['unlike_heuristic']:.0%} unlike the heuristic" if "unlike_heuristic" in r else ""
                print(f"{game} {args.players}p K={r['samples']}: regret {r['regret'][0]:.4f} +- {r['regret'][1]:.4f} "
                      f"a decision ({r['seconds']:.1f} s for {args.positions} positions{extra})", flush=True)
                if args.json:
                    with open(args.json, "a") as f:
                        f.write(json.dumps(r) + "\n")
        return out
    try:
        for game in args.games:
            spec = get_spec(game)
            if not has_search(spec):
                print(f"{spec.name}: no re-deal of the unseen cards yet, skipped")
                continue
            for rollouts in args.rollouts:  # compiles (or loads) what each way uses
                search_module.ROLLOUTS_IN_KERNEL = rollouts == "compiled"
                measure(spec.name, args.players, 1, 1, 0.2, args.seed, options)
            for samples, batch, rollouts in itertools.product(args.samples, args.batch, args.rollouts):
                search_module.ROLLOUTS_IN_KERNEL = rollouts == "compiled"
                r = measure(spec.name, args.players, samples, batch, args.seconds, args.seed, options)
                r["rollouts"] = rollouts
                out.append(r)
                cost = r["search_seconds_per_match"]
                print(f"{spec.name} {args.players}p K={r['samples']:<3d} batch {batch:4d} {rollouts:>8}: "
                      f"{r['searched_per_s']:8.1f} searched decisions/s, {r['rollouts_per_decision']:5.1f} "
                      f"rollouts a decision, {r['rollouts_per_s']:8.0f} rollouts/s; "
                      + (f"{r['searched_per_match']:.0f} searched decisions a match, {cost:.1f} s of search "
                         f"a match ({r['matches_finished']} finished)" if cost is not None else "no match finished"),
                      flush=True)
                if args.json:
                    with open(args.json, "a") as f:
                        f.write(json.dumps(r) + "\n")
    finally:
        search_module.ROLLOUTS_IN_KERNEL = True
    return out


if __name__ == "__main__":
    main()
