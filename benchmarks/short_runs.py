"""Curves of short ``cardenvs train ppo`` runs, and whether each kept improving.

    for g in president odin rami51 frime classes; do
        cardenvs train ppo $g --minutes 10 --seed 1 --threads 1 --out runs/short/$g
    done
    python benchmarks/short_runs.py runs/short/president runs/short/odin ... --plot docs/images/short-runs.png

Reads each run's ``eval.csv`` (the greedy policy against P-1 heuristic players, every
tenth of a short budget) and prints, per run: the share at the start, the best and the
last evaluation with their 95 % Wilson intervals, and two checks: the last evaluation is
the best within the best's interval (it did not slide back), and it ends above where it
started. ``--plot`` draws the curves, one panel per run, the intervals shaded.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from cardenvs.core.outcome import wilson_interval
from cardenvs.core.registry import get_spec


def fair_share(folder: Path) -> float:
    """1 / the run's players (its config.json; the game's default number when unset)."""
    config = json.loads((folder / "config.json").read_text())
    players = config.get("num_players") or get_spec(config["game"]).default_players
    return 1.0 / players


def read_run(folder: Path) -> list[dict[str, float]]:
    """The evaluations of a run: minutes, share against heuristic players, its interval."""
    rows = []
    with open(folder / "eval.csv", newline="") as f:
        for row in csv.DictReader(f):
            matches = int(row["matches"]) - int(row["vs_heuristic_truncated"])
            share = float(row["vs_heuristic"])
            low, high = wilson_interval(share, matches)
            rows.append({"minutes": float(row["wall_s"]) / 60, "decisions": int(row["decisions"]), "share": share,
                         "low": low, "high": high})
    if not rows:
        raise ValueError(f"{folder}: no evaluation in eval.csv")
    return rows


def verdict(rows: list[dict[str, float]]) -> dict[str, object]:
    """The start, the best and the last evaluation, and the two checks."""
    best = max(rows, key=lambda r: r["share"])
    last, start = rows[-1], rows[0]
    return {"start": start, "best": best, "last": last, "last_is_best": last["share"] >= best["low"],
            "above_start": last["low"] > start["high"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders (each with eval.csv)")
    parser.add_argument("--plot", type=Path, help="a PNG of the curves")
    args = parser.parse_args()
    runs = {folder: read_run(folder) for folder in args.runs}
    print("| run | start | best | last | last is the best (within its interval) | ends above the start |")
    print("|---|---|---|---|---|---|")
    for folder, rows in runs.items():
        v = verdict(rows)
        cell = lambda r: f"{r['share']:.1%} [{r['low']:.1%}, {r['high']:.1%}] at {r['minutes']:.0f} min"  # noqa: E731
        print(f"| {folder.name} | {cell(v['start'])} | {cell(v['best'])} | {cell(v['last'])} | "
              f"{'yes' if v['last_is_best'] else 'no'} | {'yes' if v['above_start'] else 'no'} |")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, len(runs), figsize=(3.2 * len(runs), 3.0), sharey=True, squeeze=False)
        for ax, (folder, rows) in zip(axes[0], runs.items(), strict=True):
            x = [r["minutes"] for r in rows]
            ax.fill_between(x, [r["low"] for r in rows], [r["high"] for r in rows], alpha=0.25)
            ax.plot(x, [r["share"] for r in rows], marker="o", markersize=3)
            ax.axhline(fair_share(folder), color="grey", linestyle="--", linewidth=0.8)  # the fair share
            ax.set_title(folder.name, fontsize=9)
            ax.set_xlabel("minutes")
        axes[0][0].set_ylabel("win share vs heuristic players")
        fig.tight_layout()
        args.plot.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(args.plot, dpi=110)
        print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
