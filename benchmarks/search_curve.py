"""How the strength of ``cardenvs train search`` grows with the labelling time.

Each worker of a run writes its positions every 10 minutes (``labels/worker{k}.{j}.npz``).
This fits a policy on the first 1, 2, ... of those shards of every worker (the run's fit
settings, run to their last epoch), plays each against three heuristic players, and
plots the win shares against the minutes of labelling:

    python benchmarks/search_curve.py runs/odin-search --shards 1 2 3 --matches 2000

It prints one JSON line per point and writes ``search_curve.png`` into the run's folder.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import fields
from pathlib import Path

from cardenvs.agents.training.expert import SHARD_SECONDS, SearchConfig, fit_policy, load_labels
from cardenvs.agents.training.trainer import evaluate_greedy
from cardenvs.core.registry import get_spec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", type=Path)
    ap.add_argument("--shards", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--matches", type=int, default=2000)
    args = ap.parse_args()
    saved = json.loads((args.run / "config.json").read_text())
    cfg = SearchConfig(**{f.name: saved[f.name] for f in fields(SearchConfig) if f.name in saved})
    spec = get_spec(cfg.game)
    players = cfg.num_players or spec.default_players
    points = []
    for shards in args.shards:
        files = sorted(p for p in (args.run / "labels").glob("worker*.npz") if int(p.name.split(".")[1]) < shards)
        data = load_labels(files)
        policy, summary = fit_policy(data, spec, players, cfg, math.inf)
        res = evaluate_greedy(spec, policy, policy.meta["options"], args.matches, seed=1_000_003)
        point = {"label_minutes": shards * SHARD_SECONDS / 60, "positions": summary["positions"],
                 "margin": summary["margin"], "vs_heuristic": res["vs_heuristic"], "ci95": res["vs_heuristic_ci"]}
        print(json.dumps(point), flush=True)
        points.append(point)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.errorbar([p["label_minutes"] for p in points], [100 * p["vs_heuristic"] for p in points],
                yerr=[100 * p["ci95"] for p in points], marker="o", capsize=3)
    ax.axhline(100 / players, color="grey", ls="--", label="fair share")
    ax.set_xlabel("minutes of labelling")
    ax.set_ylabel(f"win share vs {players - 1} heuristic players (%)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.run / "search_curve.png", dpi=100)


if __name__ == "__main__":
    main()
