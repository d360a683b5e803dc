"""The shipped baselines: install a trained run as a game's baseline, and measure it.

    python benchmarks/baselines.py install GAME RUN_FOLDER   # policy.npz -> agents/baselines/GAME.npz,
                                                              # curve.png -> docs/images/GAME-ppo-curve.png
                                                              # (a card-scorer run: scorer.npz ->
                                                              # agents/baselines/rami51-scorer.npz, or
                                                              # rami51-scorer-matches.npz for whole matches)
    python benchmarks/baselines.py measure [BASELINE ...] [--matches 4000]   # rami51, rami51-scorer, ...

``measure`` plays each shipped baseline (greedy) against P-1 heuristic players and against
P-1 random players on the game the policy was trained for (its players and options), with
``cardenvs.agents.evaluate.evaluate`` (seats rotated, ties shared, truncated matches apart), and
writes ``benchmarks/results/baselines.json`` and ``baselines.md`` (the table of the README).
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"


def install(game: str, run: Path) -> None:
    from cardenvs import get_spec
    from cardenvs.agents.ppo import BASELINES, PolicyNetwork

    spec = get_spec(game)
    if (run / "scorer.npz").is_file():  # cardenvs train scorer rami51
        from cardenvs.agents.rami51_scorer import ScorerNetwork, shipped_scorer

        scorer = ScorerNetwork.load(run / "scorer.npz")
        if scorer.env_id != spec.env_id:
            raise SystemExit(f"{run} holds a card scorer for another game than {spec.env_id}")
        shipped = shipped_scorer(scorer.meta["options"])  # its episode's file
        shutil.copyfile(run / "scorer.npz", shipped)
        _write_record(shipped.with_suffix(".json"), spec.env_id, run)
        print(f"installed {shipped}")
        return
    policy = PolicyNetwork.load(run / "policy.npz")
    if policy.env_id != spec.env_id:
        raise SystemExit(f"{run} holds a policy for {policy.env_id}, not {spec.env_id}")
    BASELINES.mkdir(exist_ok=True)
    shutil.copyfile(run / "policy.npz", BASELINES / f"{spec.name}.npz")
    _write_record(BASELINES / f"{spec.name}.json", spec.env_id, run)
    images = ROOT / "docs" / "images"
    images.mkdir(exist_ok=True)
    if (run / "curve.png").is_file():  # a PPO run's learning curve (a search-labelled run has none)
        shutil.copyfile(run / "curve.png", images / f"{spec.name}-ppo-curve.png")
    print(f"installed {BASELINES / f'{spec.name}.npz'}")


def _write_record(path: Path, env_id: str, run: Path) -> None:
    """The run's settings and evaluation, next to the shipped file."""
    config = json.loads((run / "config.json").read_text())
    config.pop("out", None)  # where the run was written: a path of the machine it ran on
    record = {"env_id": env_id, "train_config": config, "eval": (run / "eval.csv").read_text()}
    summary = json.loads((run / "summary.json").read_text()) if (run / "summary.json").is_file() else {}
    if "kept_iteration" in summary:  # a card-scorer run: which iteration's scorer is its scorer.npz
        record["kept_iteration"] = summary["kept_iteration"]
    path.write_text(json.dumps(record, indent=2) + "\n")


def measure(games: list[str], matches: int) -> dict:
    from cardenvs import get_spec
    from cardenvs.agents import make_agent
    from cardenvs.agents.evaluate import evaluate
    from cardenvs.agents.ppo import BASELINES, PolicyNetwork, PPOAgent
    from cardenvs.core.outcome import wilson_interval

    path = RESULTS / "baselines.json"
    results = json.loads(path.read_text()) if path.is_file() else {}
    setups = []  # (key of the results, the shipped file's stem, game, players or None: the policy's)
    for game in games:
        if game == "rami51-scorer-matches":  # the whole-match scorer plays 2 to 4: measured at 4 and at 2
            setups += [(game, game, "rami51", 4), (f"{game}-2p", game, "rami51", 2)]
        else:
            setups.append((game, game, game.removesuffix("-scorer"), None))
    for key, stem, game, players in setups:
        spec = get_spec(game)
        if stem.startswith("rami51-scorer"):  # Rami 51's card scorers (agents/baselines/rami51-scorer*.npz)
            from cardenvs.agents.rami51_scorer import CardScorerAgent, ScorerNetwork

            shipped = BASELINES / f"{stem}.npz"
            meta = ScorerNetwork.load(shipped).meta
            meta = {**meta, "num_players": players or meta["num_players"]}
            opts = {**meta["options"], "num_players": meta["num_players"]}
            agent = CardScorerAgent(spec, options=opts, scorer=shipped)
        else:
            policy = PolicyNetwork.load(BASELINES / f"{spec.name}.npz")
            meta, opts = policy.meta, policy.game_options()
            agent = PPOAgent(spec, options=opts)
        train = json.loads((BASELINES / f"{stem}.json").read_text())["train_config"]
        row = {"env_id": spec.env_id, "players": meta["num_players"], "options": opts,
               "train_minutes": train.get("minutes"),
               "method": train.get("method", "ppo"),  # the method of cardenvs train METHOD
               "train_options": {k: train[k] for k in ("train_single_round", "train_reward_mode") if k in train}}
        for name in ("heuristic", "random"):
            others = [make_agent(name, spec, seed=k, options=opts) for k in range(1, meta["num_players"])]
            t = time.perf_counter()
            res = evaluate(spec, [agent, *others], matches, seed=20261201, options=opts)
            row[f"vs_{name}"] = {"win_share": res[0].win_rate, "ci95": res[0].ci95, "matches": matches,
                                 "truncated": res[0].truncated, "seconds": time.perf_counter() - t}
            low, high = res[0].interval95
            print(f"{spec.env_id} vs {meta['num_players'] - 1} {name}: {res[0].win_rate:.1%} [{low:.1%}, {high:.1%}] "
                  f"({res[0].truncated} truncated)", flush=True)
        results[key] = row
    path.write_text(json.dumps(results, indent=2) + "\n")
    lines = ["| game | players | episode | trained | vs heuristics | vs random | fair share |",
             "|---|---|---|---|---|---|---|"]
    for row in results.values():
        p = row["players"]
        episode = "single round" if row["options"].get("single_round") else "match"
        cells = []
        for n in ("heuristic", "random"):
            r = row[f"vs_{n}"]
            low, high = wilson_interval(r["win_share"], r["matches"] - r["truncated"])  # right at 0 % and 100 %
            cells.append(f"{r['win_share']:.1%} [{low:.1%}, {high:.1%}]" + (f" ({r['truncated']} cut)" if r["truncated"]
                                                                          else ""))
        lines.append(f"| {row['env_id']} | {p} | {episode} | {row['train_minutes']:g} min "
                     f"({row.get('method', 'ppo')}) | {cells[0]} | {cells[1]} | {1 / p:.1%} |")
    (RESULTS / "baselines.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("install")
    a.add_argument("game")
    a.add_argument("run", type=Path)
    m = sub.add_parser("measure")
    m.add_argument("games", nargs="*")
    m.add_argument("--matches", type=int, default=4000)
    args = ap.parse_args()
    if args.cmd == "install":
        install(args.game, args.run)
    else:
        from cardenvs.agents.ppo import BASELINES

        measure(args.games or sorted(p.stem for p in BASELINES.glob("*.npz")), args.matches)


if __name__ == "__main__":
    main()
