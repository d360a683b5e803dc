"""Each game's own cold compile: what a new user waits for on the first use of one game.

Every run is a new process with an empty numba cache (``NUMBA_CACHE_DIR`` pointed at a
fresh folder) that imports cardenvs and takes the first AEC reset and step of one game
(the compile child of ``anchors.py``, given one game); then, in the same process, the
first vector-env reset and step with the compiled random sampler (mostly loaded from
what the AEC step compiled: both run the same kernels). A second process on the same
cache shows the warm load. The rounds alternate the games so that a drift of the
machine's speed spreads over all of them.

    python benchmarks/cold_compile.py                          # every game, 3 rounds
    python benchmarks/cold_compile.py --games frime --rounds 7
    python benchmarks/cold_compile.py --json benchmarks/results/cold_compile.json \\
        --markdown benchmarks/results/cold_compile.md

Reported per game: the median, lowest and highest of the cold first AEC step (wall time
from before ``import cardenvs``), the first vector step
after it, and the warm load. Compile work is single-threaded, so on a busy machine the
figures grow with the load; run it on an idle one. Before each cold run a fixed piece of
pure-Python work is timed (``reference_s``): on a shared machine whose speed drifts from
hour to hour, the compile figures move with it, and the ratio to the reference says
whether the code or the machine changed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from anchors import spawn  # the anchors' measured child: import, then the first steps

# Frime's own cold compile: import and first AEC reset/step, median of the rounds.
TARGETS_S = {"frime": 20.0}


def reference_seconds() -> float:
    """Seconds for a fixed piece of pure-Python work (about 0.3 s on the 2-core machine
    these figures come from): a speed index of the machine at the time of a run."""
    t = time.perf_counter()
    total = 0
    for i in range(3_000_000):
        total += i * i % 7
    return time.perf_counter() - t


def cold_run(game: str, cache: str) -> dict:
    """One measured process (anchors' compile child, one game, one thread): seconds of the
    import, of the first AEC reset and step, and of the first vector step after them."""
    res, wall = spawn(sys.executable, {"kind": "compile", "games": [game], "threads": 1},
                      env={"NUMBA_CACHE_DIR": cache})
    if "compile" not in res:
        raise RuntimeError(f"{game}: the measured process failed: {res.get('error') or res.get('reason')}")
    out = res["compile"]
    phases = out["games"][game]
    return {"aec_s": out["import_s"] + phases["aec_s"], "vector_s": phases["vector_s"], "process_s": wall}


def summarise(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=None, help="game names (default: every game)")
    ap.add_argument("--rounds", type=int, default=3, help="cold runs of each game (default 3)")
    ap.add_argument("--json", type=Path, help="write the runs and the summary here")
    ap.add_argument("--markdown", type=Path, help="write the summary table here")
    args = ap.parse_args()
    from cardenvs.core.registry import list_games

    games = args.games or [g.name for g in list_games()]
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    runs: dict[str, list[dict]] = {g: [] for g in games}
    for r in range(args.rounds):
        for game in games:
            reference = reference_seconds()
            with tempfile.TemporaryDirectory(prefix="cardenvs-cold-") as cache:
                cold = cold_run(game, cache)
                warm = cold_run(game, cache)
            cold["warm_aec_s"] = warm["aec_s"]
            cold["reference_s"] = reference
            runs[game].append(cold)
            print(f"round {r + 1}/{args.rounds}  {game:10s} cold: first AEC step {cold['aec_s']:5.1f} s "
                  f"; then vector {cold['vector_s']:4.1f} s; "
                  f"warm {warm['aec_s']:4.1f} s; reference {reference:.2f} s", flush=True)
    summary = {g: {k: summarise([run[k] for run in runs[g]])
                   for k in ("aec_s", "vector_s", "warm_aec_s", "reference_s")} for g in games}
    lines = ["| game | cold: import + first AEC step, median (low-high) "
             "| then first vector step | warm load | reference work, median | target |",
             "|---|---|---|---|---|---|"]
    verdicts = []
    for g in games:
        s = summary[g]
        limit = TARGETS_S.get(g)
        verdict = ""
        if limit is not None:
            ok = s["aec_s"]["median"] <= limit
            verdict = f"<= {limit:g} s: {'pass' if ok else 'FAIL'}"
            verdicts.append(ok)
        lines.append(f"| {g} | {s['aec_s']['median']:.1f} s ({s['aec_s']['min']:.1f}-{s['aec_s']['max']:.1f}) "
                     f"| {s['vector_s']['median']:.1f} s "
                     f"| {s['warm_aec_s']['median']:.1f} s | {s['reference_s']['median']:.2f} s | {verdict} |")
    print("\n".join(lines))
    meta = {"rounds": args.rounds, "python": platform.python_version(), "machine": platform.machine(),
            "cpus": os.cpu_count()}
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "summary": summary, "runs": runs}, indent=1) + "\n")
    if args.markdown:
        import numba

        head = [f"# Cold compile, each game in a process of its own ({args.rounds} rounds)", "",
                f"numba {numba.__version__}, Python {meta['python']}, {meta['cpus']} CPUs; "
                "`python benchmarks/cold_compile.py` (its docstring says what is measured).", ""]
        args.markdown.write_text("\n".join(head + lines) + "\n")
    if verdicts and not all(verdicts):
        sys.exit(1)


if __name__ == "__main__":
    main()
