"""Instructions a kernel runs per position, counted by valgrind: a figure that barely moves
on a shared machine, where timings move by a third or more (up to twice) from one process
to the next.

Positions come from play (random agents, then the heuristic, at the game's default
number of players; Rami 51's first-card positions from four-player random play), are
stored, and a child process runs the game's
``mask_batch`` and ``observe_batch`` over them under ``valgrind --tool=callgrind``, with
counting switched on around each call only (``--instr-atstart=no``, then
``callgrind_control -i on/off``). Importing numba and loading the kernels under valgrind
takes minutes, but nothing of it is counted. Instructions are not time (a cache miss
costs more than an add), so read them beside a timing; they tell a change of the work
done apart from the machine's spread.

Checkouts compare side by side: ``--pythonpath DIR`` (repeatable) runs a child on each
DIR instead of the installed ``cardenvs`` (their state layouts must match, since the
positions are stored once). Build the kernels ahead in each (``cardenvs/prebuilt``, see
``tools/prebuild_kernels.py``): the children then count those portable (x86-64-v3)
kernels. Without them each child compiles its own under valgrind, far slower: valgrind
reports a CPU of its own, so a numba cache compiled for this machine is not reused.

    python benchmarks/instruction_counts.py [--games rami51 classes frime] [--positions 2000]
        [--pythonpath OTHER_CHECKOUT] [--out counts.json]

Needs ``valgrind`` (``apt-get install -y valgrind``).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

RUMMY_FIRST_CARD = "rami51-first-card"  # Rami 51's costliest positions, apart
# dump names: no character a shell reads (callgrind_control passes them through one)
SEPARATOR = "."


def collect(game: str, positions: int, seed: int = 0) -> np.ndarray:
    """``positions`` states of ``game`` from random, then heuristic play (half each)."""
    import cardenvs
    from cardenvs.agents import make_agent
    from cardenvs.core.vector import RandomSampler

    spec = cardenvs.get_spec(game)
    found = []
    for mode in ("random", "heuristic"):
        env = cardenvs.make_vec(spec.env_id, 128, num_players=spec.default_players)
        state = env.reset(seed=seed)
        agent = make_agent("heuristic", spec, seed=seed) if mode == "heuristic" else None
        sample = RandomSampler(seed)
        for k in range(600):
            actions = agent.act_batch(state.observation, state.legal_action_mask) if agent else sample(
                state.legal_action_mask)
            state = env.step(actions)
            if k % 3 == 1:
                found.append(env.states.copy())
    states = np.concatenate(found)
    half = states[: len(states) // 2], states[len(states) // 2:]
    return np.concatenate([h[:: max(1, len(h) // (positions // 2))][: positions // 2] for h in half])


def first_card_positions(positions: int, seed: int = 0) -> np.ndarray:
    """Rami 51 positions where the first card of a new meld is chosen (random play)."""
    import cardenvs
    from cardenvs.core.vector import RandomSampler
    from cardenvs.games.rami51 import rules

    env = cardenvs.make_vec(cardenvs.get_spec("rami51").env_id, 256, num_players=4)
    state = env.reset(seed=seed)
    sample = RandomSampler(seed)
    found, n = [], 0
    while n < positions:
        state = env.step(sample(state.legal_action_mask))
        at = (env.states["phase"] == rules.PHASE_BUILD) & (env.states["build_n"] == 0)
        found.append(env.states[at].copy())
        n += int(at.sum())
    return np.concatenate(found)[:positions]


def workload_names(stem: str) -> list[str]:
    """The dumps of one stored set of positions: its mask, and its observation (not for the
    first-card positions, which only the mask singles out)."""
    return [stem + SEPARATOR + "mask"] + ([] if stem == RUMMY_FIRST_CARD else [stem + SEPARATOR + "observe"])


def child(folder: str) -> None:
    """Under valgrind: each stored workload with counting on, dumped under its name."""
    import importlib

    pid = str(os.getpid())

    def control(*args: str) -> None:
        done = subprocess.run(["callgrind_control", *args, pid], capture_output=True, text=True, timeout=120)
        if done.returncode != 0 or "No active callgrind runs" in done.stdout:
            raise SystemExit(f"callgrind_control {' '.join(args)}: {done.stdout}{done.stderr}")

    work = [("noop", lambda: None)]
    for path in sorted(Path(folder).glob("*.npy")):
        name = path.stem
        game = "rami51" if name == RUMMY_FIRST_CARD else name
        mask_name, observe_name = (workload_names(name) + [None])[:2]
        rules = importlib.import_module(f"cardenvs.games.{game}")
        states = np.load(path)
        obs = np.zeros((len(states), rules.OBS_SIZE), dtype=rules.OBS_DTYPE)
        viewer = states["current"].astype(np.int64)
        work_states = states.copy()
        rules.mask_batch(work_states[:2])  # loaded before counting starts
        rules.observe_batch(states[:2], viewer[:2], obs[:2])
        work.append((mask_name, lambda r=rules, w=work_states: r.mask_batch(w)))
        if observe_name:
            work.append((observe_name, lambda r=rules, s=states, v=viewer, o=obs: r.observe_batch(s, v, o)))
    for name, run in work:
        control("-i", "on")
        run()
        control("-i", "off")
        control("--dump=" + name)


def totals(prefix: str) -> dict[str, int]:
    """Instructions of each dump that the child named."""
    out = {}
    for path in glob.glob(prefix + ".*"):
        text = Path(path).read_text()
        name = re.search(r"^desc: Trigger: dump (\S+)$", text, re.M)
        count = re.search(r"^totals: (\d+)", text, re.M)
        if name and count:
            out[name.group(1)] = int(count.group(1))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=["rami51", "classes", "frime"])
    parser.add_argument("--positions", type=int, default=2000, help="per game (at least 2)")
    parser.add_argument("--pythonpath", action="append", default=[],
                        help="a checkout to count instead of the installed cardenvs (repeat to compare several)")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    if args.positions < 2:
        parser.error("--positions must be at least 2")
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        sys.exit("valgrind is not installed (apt-get install -y valgrind)")
    folder = tempfile.mkdtemp(prefix="cardenvs-instructions-")
    for game in args.games:
        np.save(Path(folder) / f"{game}.npy", collect(game, args.positions))
    if "rami51" in args.games:
        np.save(Path(folder) / f"{RUMMY_FIRST_CARD}.npy", first_card_positions(args.positions))
    checkouts = list(dict.fromkeys(args.pythonpath)) or [""]
    python = sys.executable  # the interpreter itself (a launcher script would hide it from valgrind)
    procs = []
    for k, checkout in enumerate(checkouts):
        env = dict(os.environ)
        if checkout:
            env["PYTHONPATH"] = os.pathsep.join([checkout, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        prefix = f"{folder}/callgrind-{k}.out"
        cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={prefix}",
               python, os.path.abspath(__file__), "--child", folder]
        log = open(f"{folder}/child-{k}.log", "w")  # valgrind's and the child's messages
        procs.append((checkout or "the installed cardenvs", prefix, log.name,
                      subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)))
    expected = {"noop"} | {name for p in Path(folder).glob("*.npy") for name in workload_names(p.stem)}
    try:
        report = _read(procs, expected, folder)
    finally:
        for *_, proc in procs:
            proc.kill()
        shutil.rmtree(folder, ignore_errors=True)
    names = sorted({name for r in report.values() for name in r})
    print("| workload | " + " | ".join(report) + " |")
    print("|---" * (len(report) + 1) + "|")
    for name in names:
        print(f"| {name.replace(SEPARATOR, ' ')} | " + " | ".join(f"{r[name]:,.0f}" for r in report.values()) + " |")
    print("(instructions per position)")
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))


def _read(procs: list, expected: set[str], folder: str) -> dict[str, dict[str, float]]:
    """Each child's counts per position, less the empty workload's; SystemExit with the
    child's last messages when one failed or left a dump out."""
    report = {}
    for label, prefix, log, proc in procs:
        code = proc.wait()
        counts = totals(prefix)
        if code != 0 or set(counts) != expected:
            tail = "".join(Path(log).read_text().splitlines(keepends=True)[-15:])
            sys.exit(f"the child on {label} failed (exit {code}; dumps {sorted(counts)}, expected "
                     f"{sorted(expected)}):\n{tail}")
        noop = counts.pop("noop")
        report[label] = {}
        for name, count in sorted(counts.items()):
            n = len(np.load(Path(folder) / f"{name.split(SEPARATOR)[0]}.npy", mmap_mode="r"))
            report[label][name] = (count - noop) / n
    return report


if __name__ == "__main__":
    main()
