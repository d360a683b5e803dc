"""Compile every game's kernels for a portable x86-64 CPU into ``cardenvs/prebuilt/``, the
folder the wheel ships (see ``cardenvs/core/prebuilt.py``). The release check runs it
before it builds the wheel; a checkout may run it too (the folder is ignored by git, and
used only while the kernel sources are the ones it was built from).

    python tools/prebuild_kernels.py                 # every game, two at a time
    python tools/prebuild_kernels.py --jobs 1 --out /tmp/prebuilt president
    python tools/prebuild_kernels.py --force         # again, even where the folder is current

A folder built from the same kernel sources, numba and Python for the same games is kept
as it is (CI builds it before the suite, and the release check then reuses it).

Each game compiles in a process of its own, with numba told to build for the portable CPU
and the project's cache locator told to write into the new folder. What a game's process
runs (``exercise``) is what a user's first runs compile: the vector env (its threaded
step runs the same kernel), the AEC env, every agent of ``cardenvs play`` and ``eval`` (random, heuristic,
search, and Rami 51's card scorer), the one-learner vector env the trainer uses, the re-deal of hidden cards, and
for Frime a position loaded in the choose phase.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("president", "odin", "rami51", "frime", "classes")
#: the games' builds, longest first (on a quiet 2-core machine Rami 51 about 90 s, Frime
#: and Classes 40-50, Odin and President 25-35): each worker takes the next game when it
#: is free, so that no long game starts last
LONGEST_FIRST = ("rami51", "frime", "classes", "odin", "president")


def exercise(game: str) -> None:
    """Compile what a user's first runs of ``game`` compile (run in the build's environment)."""
    import numpy as np

    from cardenvs.agents import make_agent
    from cardenvs.cli.main import main
    from cardenvs.cli.warmup import warm_game
    from cardenvs.core.registry import get_spec
    from cardenvs.integrations.gym import LearnerVecEnv

    spec = get_spec(game)
    warm_game(spec.env_id)
    sink = io.StringIO()
    # the search with 2 deals a decision: the same kernels as its default, a fraction of the playing time;
    # Rami 51's card scorer, its strongest shipped agent (its kernels took about 30 s on a first match)
    tables = ["heuristic,random", "search:2,heuristic"] + (["scorer,heuristic"] if game == "rami51" else [])
    for agents in tables:
        code = main(["play", game, "--games", "1", "--seed", "1", "--agents", agents], out=sink, err=sink)
        assert code == 0, sink.getvalue()
    code = main(["eval", game, "--agents", "heuristic,random", "--matches", "2", "--seed", "1"], out=sink, err=sink)
    assert code == 0, sink.getvalue()
    for opponents in ("heuristic", "random"):
        venv = LearnerVecEnv(game, 2, opponents=opponents, seed=0)
        venv.reset()
        for _ in range(8):
            venv.step(np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()]))
    from cardenvs.envs import make

    env = make(spec.env_id)
    env.reset(seed=0)
    env.unwrapped.resample_hidden(env.possible_agents[0], seed=1)
    if game == "frime":
        # a position loaded in the choose phase: its check asks the split search from Python
        # (a compile of its own, 5-6 s on a user's first such scenario or search of raw records)
        hands = [["Kc", "Kh", "2s"]] + [None] * (len(env.possible_agents) - 1)
        env.reset(seed=0, options={"scenario": {"hands": hands, "phase": "choose", "current": 0}})
    make_agent("random", spec)


def builder_hash() -> str:
    """sha256 of this file: what a game's build runs (``exercise``) is part of a build."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def current(out: Path, games: list[str]) -> bool:
    """Whether ``out`` holds kernels of ``games`` built by this file from these sources with
    this numba and Python, and all of them."""
    from cardenvs.core import prebuilt
    from cardenvs.core.jitcache import kernel_stamp

    manifest = prebuilt.read_manifest(out)
    if manifest is None:
        return False
    wanted = {**prebuilt.manifest_for(kernel_stamp(), games), "builder": builder_hash()}
    same = all(manifest.get(key) == wanted[key] for key in wanted if key != "games")
    complete = manifest.get("kernels") == sum(1 for _ in out.rglob("*.nbi"))
    return same and complete and set(games) <= set(manifest.get("games", ()))


def build(games: list[str], out: Path, jobs: int) -> dict:
    """Compile ``games`` into ``out`` (replaced), write its manifest; returns the manifest."""
    sys.path.insert(0, str(ROOT))
    from cardenvs.core import prebuilt
    from cardenvs.core.jitcache import kernel_stamp

    stamp = kernel_stamp()
    work = Path(tempfile.mkdtemp(prefix="cardenvs-prebuild-"))
    # nothing of this shell's numba or cardenvs settings (bounds checks, optimisation level,
    # a disabled JIT, other cache locators) reaches the build: the manifest records numba's
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "CARDENVS_"))}
    env.update({
        "NUMBA_CPU_NAME": prebuilt.TARGET_CPU,
        "NUMBA_CPU_FEATURES": "",  # the CPU model's own extensions, not this machine's
        prebuilt.BUILD_ENV: str(work / "prebuilt"),
        "NUMBA_CACHE_DIR": str(work / "other"),  # anything outside the project
        "PYTHONPATH": os.pathsep.join([str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p]),
    })

    def one(game: str) -> float:
        start = time.perf_counter()
        done = subprocess.run([sys.executable, __file__, "--exercise", game], env=env, check=True, cwd=work,
                              stdout=subprocess.PIPE, text=True)
        if done.stdout.split()[-1:] != [stamp]:  # the sources this game was compiled from
            raise SystemExit(f"{game} was compiled from other kernel sources: run the build again")
        return time.perf_counter() - start

    order = sorted(games, key=lambda g: LONGEST_FIRST.index(g) if g in LONGEST_FIRST else len(LONGEST_FIRST))
    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for game, seconds in zip(order, pool.map(one, order), strict=True):
                print(f"{game}: compiled for {prebuilt.TARGET_CPU} in {seconds:.1f} s", flush=True)
        kernel_stamp.cache_clear()
        if kernel_stamp() != stamp:
            raise SystemExit("a kernel source changed during the build: run it again")
        kernels = sum(1 for _ in (work / "prebuilt").rglob("*.nbi"))
        if not kernels:
            raise SystemExit("the build saved no kernel")
        manifest = {**prebuilt.manifest_for(stamp, games), "builder": builder_hash(), "kernels": kernels}
        (work / "prebuilt" / prebuilt.MANIFEST_NAME).write_text(json.dumps(manifest, indent=1) + "\n")
        # the new folder takes the old one's place by renames: a running process never reads
        # one build's index beside another build's data file
        new, old = out.with_name(f".{out.name}.new"), out.with_name(f".{out.name}.old")
        for leftover in (new, old):
            shutil.rmtree(leftover, ignore_errors=True)
        shutil.copytree(work / "prebuilt", new)
        if out.exists():
            os.replace(out, old)
        os.replace(new, out)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"{out}: {sum(1 for _ in out.rglob('*.nbc'))} kernels, {size / 2**20:.1f} MiB")
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", nargs="*", help=f"games (default: all of {', '.join(GAMES)})")
    parser.add_argument("--out", type=Path, default=ROOT / "cardenvs" / "prebuilt")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--force", action="store_true", help="build even where the folder is current")
    parser.add_argument("--exercise", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.exercise:
        exercise(args.exercise)
        from cardenvs.core.jitcache import kernel_stamp

        print(kernel_stamp())  # the sources compiled from (the parent compares)
        return
    unknown = sorted(set(args.games) - set(GAMES))
    if unknown:
        parser.error(f"unknown games {unknown}; choose among {', '.join(GAMES)}")
    games = list(args.games) or list(GAMES)
    sys.path.insert(0, str(ROOT))
    if not args.force and current(args.out, games):
        print(f"{args.out}: current for {', '.join(games)} (--force builds it again)")
        return
    build(games, args.out, args.jobs)


if __name__ == "__main__":
    main()
