"""cardenvs against the field's anchor packages: one run, one machine, ratios. (One
concern, kept in one file past 1,000 lines: each contender's measured child and the table
that compares them must agree on what a decision is.)

Random legal play everywhere: the agent picks uniformly among the legal actions. A
"decision" is one action of one player in one game (chance nodes, dealing and resets do
not count); a "game" is what the package calls one episode (a President match to 11
points, one Gin Rummy hand, one Hearts deal), so games/s only compares like with like.

Contenders (each runs in its own process, one process per contender and round; rounds
are interleaved: round 1 runs every contender once, then round 2, ...):

- cardenvs, every registered game: the AEC env behind ``env()``'s wrappers with a Python
  random-legal agent, and the vector env (``cardenvs.make_vec``) stepped with the
  compiled ``RandomSampler`` at batch sizes 1, 64, 1024, 8192, on one thread and on all
  cores. Observation and mask are computed on every step.
- OpenSpiel ``gin_rummy`` and ``hearts`` (pip ``open-spiel``): bare (``legal_actions``
  only) and with the observation tensor and the legal-action mask fetched each step
  (through ``open_spiel.python.observation``, which writes into a reused numpy buffer,
  the fastest of OpenSpiel's tensor paths; Hearts only provides the information-state
  tensor, so that is the one fetched).
- PettingZoo ``gin_rummy_v4`` (``pettingzoo[classic]==1.26.1``; 1.27 removed it) and
  RLCard ``gin-rummy`` and ``doudizhu``. They cannot share cardenvs' environment
  (pettingzoo 1.27): ``--setup`` builds ``benchmarks/.anchor-venv`` for them.

A missing anchor is reported with the reason, not a crash. Also measured: peak RSS of the
vector env at 65,536 parallel games, and the JIT compile time of every game cold (fresh
``NUMBA_CACHE_DIR``) and warm (same folder again).

    pip install -e ".[anchors]"                       # OpenSpiel and matplotlib
    python benchmarks/anchors.py --setup              # build the anchor venv, then run all
    python benchmarks/anchors.py                      # --seconds 1.0 --rounds 3 (a few minutes)
    python benchmarks/anchors.py --quick              # smoke run
    python benchmarks/anchors.py --only cardenvs openspiel --rounds 5

Writes ``anchors.json``, ``anchors.md`` and ``anchors.png`` to ``benchmarks/results/``
(``--out`` to change). Figures on a shared machine vary by +-30 % between processes:
read the ratios, measured in the same run, rather than the absolute figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_VENV = HERE / ".anchor-venv"
DEFAULT_OUT = HERE / "results"
ANCHOR_VENV_REQUIREMENTS = ["pettingzoo[classic]==1.26.1"]  # brings rlcard (and open_spiel via shimmy)

BATCHES = [1, 64, 1024, 8192]
QUICK_BATCHES = [1, 64]
MEMORY_ENVS = 65_536
GROUPS = ("cardenvs", "openspiel", "pettingzoo", "rlcard")

# The anchor each cardenvs game family is compared with (contender id, metric).
FAMILY_ANCHOR = {
    "rummy": ("openspiel:gin_rummy", "obs_mask"),
    "climbing": ("openspiel:hearts", "obs_mask"),
}
FAMILY_ANCHOR_BARE = {
    "rummy": ("openspiel:gin_rummy", "bare"),
    "climbing": ("openspiel:hearts", "bare"),
}
KNOWN_FAMILIES = {"president": "climbing", "odin": "climbing"}

#: each game's one-thread vector env against its family's OpenSpiel anchor: the climbing
#: games against hearts bare (legal actions only), the rummies against gin_rummy with
#: observation and mask
VECTOR_TARGETS = {"president": 25.0, "odin": 25.0, "rami51": 60.0, "frime": 100.0, "classes": 60.0}
TARGETS = {
    "aec_vs_pettingzoo": 10.0,  # every AEC env >= 10x PettingZoo gin_rummy_v4
    "aec_vs_openspiel": 6.0,  # every AEC env >= 6x OpenSpiel gin_rummy with obs + mask
    "memory_bytes": 1 << 30,  # 65,536 parallel games <= 1 GiB
    "compile_cold_s": 60.0,
    "compile_warm_s": 2.0,
}


# =============================================================================== children
# Everything below up to "parent" runs inside a child process, possibly in the anchor
# venv where cardenvs is not installed: only the standard library at module level.


def _versions(*dists: str) -> dict:
    from importlib import metadata

    out = {"python": platform.python_version()}
    for d in dists:
        try:
            out[d] = metadata.version(d)
        except metadata.PackageNotFoundError:
            out[d] = None
    return out


class Missing(Exception):
    """The package a contender needs is not importable here (reported, not raised)."""


def _timed_loop(seconds: float, play_one) -> dict:
    """Play whole games with ``play_one() -> decisions`` until ``seconds`` have passed."""
    decisions = games = 0
    start = time.perf_counter()
    while True:
        decisions += play_one()
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    return {
        "decisions_per_s": decisions / elapsed,
        "games_per_s": games / elapsed,
        "decisions": decisions,
        "games": games,
        "seconds": elapsed,
    }


def _aec_loop(env, rng) -> int:
    """One full game of a PettingZoo AEC env with a uniform random legal agent."""
    import numpy as np

    decisions = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.randrange(len(legal))])
            decisions += 1
        env.step(action)
    return decisions


def child_cardenvs(spec: dict) -> dict:
    import importlib
    import random

    import numpy as np

    import cardenvs
    from cardenvs.core.threads import usable_cpus
    from cardenvs.core.vector import RandomSampler

    game = cardenvs.get_spec(spec["game"])
    players = spec["players"]
    seconds = spec["seconds"]
    seed = spec.get("seed", 0)
    metrics = {}

    # AEC: the game's PettingZoo-style module env() if it has one, else make() (same wrappers)
    try:
        module = importlib.import_module(f"cardenvs.{game.env_id}")
        env = module.env(num_players=players)
        via = f"cardenvs.{game.env_id}.env()"
    except ImportError:
        env = cardenvs.make(game.env_id, num_players=players)
        via = "cardenvs.make()"
    rng = random.Random(seed)
    env.reset(seed=seed)
    _aec_loop(env, rng)  # warm-up: one full game loads every kernel

    def play_aec():
        env.reset()
        return _aec_loop(env, rng)

    metrics["aec"] = _timed_loop(seconds, play_aec)

    threads_all = spec["threads"]
    runs = [(b, 1) for b in spec["batches"]]
    if threads_all > 1:
        runs += [(b, threads_all) for b in spec["batches"]]
    for batch, threads in runs:
        venv = cardenvs.make_vec(game.env_id, num_envs=batch, seed=seed, num_players=players, num_threads=threads)
        sample = RandomSampler(seed)
        state = venv.reset()
        for _ in range(3):  # warm-up (kernel load, thread pool start)
            state = venv.step(sample(state.legal_action_mask))
        steps = finished = 0
        chunk = 16 if batch >= 64 else 256
        start = time.perf_counter()
        while True:
            for _ in range(chunk):
                state = venv.step(sample(state.legal_action_mask))
                finished += int(state.terminated.sum() + state.truncated.sum())
            steps += chunk
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        metrics[f"vec:{batch}:{threads}"] = {
            "decisions_per_s": steps * batch / elapsed,
            # games that finished inside the window; the parent derives games/s from the
            # AEC game length instead, since a batch started together finishes together
            "finished_per_s": finished / elapsed,
            "decisions": steps * batch,
            "seconds": elapsed,
            "batch": batch,
            "threads": threads,
        }
    return {
        "metrics": metrics,
        "info": {
            "players": players,
            "aec_via": via,
            "observation_size": int(game.module.OBS_SIZE),
            "observation_dtype": np.dtype(game.module.OBS_DTYPE).name,
            "num_actions": int(game.module.NUM_ACTIONS),
            "bytes_per_game": int(game.module.STATE_DTYPE.itemsize),
            "usable_cpus": usable_cpus(),
        },
        "versions": _versions("cardenvs", "numba", "numpy", "pettingzoo", "gymnasium"),
    }


def child_openspiel(spec: dict) -> dict:
    import random

    try:
        import numpy as np
        import pyspiel
        from open_spiel.python.observation import make_observation
    except ImportError as exc:
        raise Missing(f"open-spiel not importable with {sys.executable}: {exc}") from exc

    game = pyspiel.load_game(spec["game"])
    gtype = game.get_type()
    if gtype.provides_observation_tensor:
        observer = make_observation(game)
        tensor = "observation tensor"
    elif gtype.provides_information_state_tensor:
        observer = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
        tensor = "information-state tensor"
    else:  # pragma: no cover - both anchors provide one
        observer = None
        tensor = "none"
    rng = random.Random(spec.get("seed", 0))

    def play(with_obs: bool):
        def one() -> int:
            state = game.new_initial_state()
            decisions = 0
            while not state.is_terminal():
                if state.is_chance_node():
                    actions, probs = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(rng.choices(actions, probs)[0])
                    continue
                player = state.current_player()
                if with_obs:
                    observer.set_from(state, player)
                    _obs = observer.tensor  # numpy view of the filled buffer
                    _mask = np.asarray(state.legal_actions_mask(player), dtype=np.int8)
                legal = state.legal_actions(player)
                state.apply_action(legal[rng.randrange(len(legal))])
                decisions += 1
            state.returns()
            return decisions

        return one

    play(True)()  # warm-up
    metrics = {}
    # alternate the two modes so slow phases of a shared machine hit both alike
    for mode, with_obs in (("bare", False), ("obs_mask", True)):
        metrics[mode] = _timed_loop(spec["seconds"], play(with_obs))
    return {
        "metrics": metrics,
        "info": {
            "players": game.num_players(),
            "tensor": tensor,
            "tensor_size": int(observer.tensor.size) if observer is not None else 0,
            "num_actions": game.num_distinct_actions(),
        },
        "versions": _versions("open-spiel", "numpy"),
    }


def child_pettingzoo(spec: dict) -> dict:
    import random

    try:
        import pettingzoo
        from pettingzoo.classic import gin_rummy_v4
    except ImportError as exc:
        raise Missing(
            f"pettingzoo gin_rummy_v4 not importable with {sys.executable} "
            f"(needs pettingzoo[classic]==1.26.1; run anchors.py --setup): {exc}"
        ) from exc
    env = gin_rummy_v4.env()
    rng = random.Random(spec.get("seed", 0))
    env.reset(seed=spec.get("seed", 0))
    _aec_loop(env, rng)

    def one():
        env.reset()
        return _aec_loop(env, rng)

    return {
        "metrics": {"aec": _timed_loop(spec["seconds"], one)},
        "info": {"players": len(env.possible_agents), "pettingzoo": pettingzoo.__version__},
        "versions": _versions("pettingzoo", "rlcard", "numpy", "gymnasium"),
    }


def child_rlcard(spec: dict) -> dict:
    import random

    try:
        import rlcard
    except ImportError as exc:
        raise Missing(f"rlcard not importable with {sys.executable} (run anchors.py --setup): {exc}") from exc
    seed = spec.get("seed", 0)
    env = rlcard.make(spec["game"], config={"seed": seed})
    rng = random.Random(seed)

    def one():
        state, _player = env.reset()
        decisions = 0
        while not env.is_over():
            legal = list(state["legal_actions"])  # the env encodes obs + legal actions every step
            state, _player = env.step(legal[rng.randrange(len(legal))])
            decisions += 1
        env.get_payoffs()
        return decisions

    one()
    return {
        "metrics": {"env": _timed_loop(spec["seconds"], one)},
        "info": {"players": env.num_players, "num_actions": env.num_actions},
        "versions": _versions("rlcard", "numpy"),
    }


def child_compile(spec: dict) -> dict:
    """Import cardenvs and take the first reset/step of every game (AEC, vector serial,
    vector parallel, sampler): with an empty NUMBA_CACHE_DIR this is the cold compile."""
    digest = source_digest()
    t0 = time.perf_counter()
    import numpy as np

    import cardenvs
    from cardenvs.core.vector import RandomSampler

    out = {"import_s": time.perf_counter() - t0, "games": {}, "source_digest": digest}
    for name in spec["games"]:
        game = cardenvs.get_spec(name)
        phases = {}
        t = time.perf_counter()
        env = cardenvs.make(game.env_id)
        env.reset(seed=0)
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        phases["aec_s"] = time.perf_counter() - t
        t = time.perf_counter()
        sample = RandomSampler(0)
        venv = cardenvs.make_vec(game.env_id, num_envs=4, seed=0)
        state = venv.reset()
        venv.step(sample(state.legal_action_mask))
        phases["vector_s"] = time.perf_counter() - t
        if spec["threads"] > 1:
            t = time.perf_counter()
            venv = cardenvs.make_vec(game.env_id, num_envs=4, seed=0, num_threads=spec["threads"])
            state = venv.reset()
            venv.step(sample(state.legal_action_mask))
            phases["vector_parallel_s"] = time.perf_counter() - t
        out["games"][name] = phases
    out["total_s"] = time.perf_counter() - t0
    return {"compile": out, "versions": _versions("cardenvs", "numba")}


def source_digest() -> str:
    """A hash of cardenvs' Python sources: numba's cache follows them, so an edit between
    the cold and the warm compile run (or during a benchmark) shows up here."""
    import hashlib

    h = hashlib.sha256()
    pkg = ROOT / "cardenvs"
    for path in sorted(pkg.rglob("*.py")):
        h.update(str(path.relative_to(pkg)).encode())
        try:
            h.update(path.read_bytes())
        except OSError:
            pass
    return h.hexdigest()[:16]


def _rss_now() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0  # pragma: no cover - not Linux


def child_memory(spec: dict) -> dict:
    import resource

    import cardenvs
    from cardenvs.core.vector import RandomSampler

    def peak() -> int:
        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return kb if sys.platform == "darwin" else kb * 1024  # bytes on macOS, KiB on Linux

    name = spec["game"]
    sample = RandomSampler(0)
    small = cardenvs.make_vec(name, num_envs=1, seed=0)  # imports done, kernels loaded
    state = small.reset()
    small.step(sample(state.legal_action_mask))
    del small, state
    base_peak, base_now = peak(), _rss_now()
    n = spec["num_envs"]
    venv = cardenvs.make_vec(name, num_envs=n, seed=0)
    state = venv.reset()
    for _ in range(spec["steps"]):
        state = venv.step(sample(state.legal_action_mask))
    top = peak()
    return {
        "memory": {
            "num_envs": n,
            "steps": spec["steps"],
            "peak_rss": top,
            "baseline_peak_rss": base_peak,
            "baseline_rss": base_now,
            "delta_rss": top - base_now,
            "state_bytes": int(venv.states.nbytes),
            "step_output_bytes": int(sum(a.nbytes for a in state if a is not None)),
        },
        "versions": _versions("cardenvs", "numba", "numpy"),
    }


CHILDREN = {
    "cardenvs": child_cardenvs,
    "openspiel": child_openspiel,
    "pettingzoo": child_pettingzoo,
    "rlcard": child_rlcard,
    "compile": child_compile,
    "memory": child_memory,
}


def run_child(spec: dict) -> None:
    """Child entry: run one measurement and print exactly one JSON line. ``spec["cpu"]``:
    first move this process to that CPU alone (``--cpu``); the CPUs it ran on are reported."""
    try:
        if spec.get("cpu") is not None:
            os.sched_setaffinity(0, {spec["cpu"]})
        result = {"ok": True, **CHILDREN[spec["kind"]](spec)}
    except Missing as exc:
        result = {"ok": False, "missing": True, "reason": str(exc)}
    except Exception as exc:  # noqa: BLE001 - reported to the parent
        result = {"ok": False, "error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
    result["interpreter"] = sys.executable
    if hasattr(os, "sched_getaffinity"):
        result["cpus"] = sorted(os.sched_getaffinity(0))
    sys.stdout.write("\n" + json.dumps(result) + "\n")
    sys.stdout.flush()


# ================================================================================= parent


def spawn(python: str, spec: dict, env: dict | None = None, timeout: float = 900) -> tuple[dict, float]:
    """Run one child; return its JSON (or an error record) and the process wall time."""
    cmd = [python, str(Path(__file__).resolve()), "--child", json.dumps(spec)]
    full_env = dict(os.environ)
    full_env.update(env or {})
    t = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=full_env, cwd=str(ROOT))
    except FileNotFoundError as exc:
        return {"ok": False, "missing": True, "reason": f"interpreter not found: {exc}"}, time.perf_counter() - t
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"timed out after {timeout:.0f} s"}, time.perf_counter() - t
    wall = time.perf_counter() - t
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line), wall
            except json.JSONDecodeError:
                break
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
    return {"ok": False, "error": f"child exited {proc.returncode} without a result: " + " | ".join(tail)}, wall


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def setup_venv(venv: Path, log) -> dict:
    """Create (or update) the anchor venv with pettingzoo[classic]==1.26.1 and rlcard."""
    log(f"setting up the anchor venv at {venv} ...")
    steps = []
    if not venv_python(venv).exists():
        steps.append([sys.executable, "-m", "venv", str(venv)])
    steps.append([str(venv_python(venv)), "-m", "pip", "install", "--disable-pip-version-check", "-q",
                  *ANCHOR_VENV_REQUIREMENTS])
    for cmd in steps:
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return {"ok": False, "reason": f"{' '.join(cmd[:4])}: {exc}"}
        if proc.returncode != 0:
            tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-4:])
            return {"ok": False, "reason": f"{' '.join(cmd[:4])} ... exited {proc.returncode}: {tail}"}
    log("anchor venv ready")
    return {"ok": True, "python": str(venv_python(venv)), "requirements": ANCHOR_VENV_REQUIREMENTS}


def game_family(spec) -> str:
    if spec.name in KNOWN_FAMILIES:
        return KNOWN_FAMILIES[spec.name]
    text = f"{spec.name} {spec.summary}".lower()
    if "rummy" in text or "gin" in spec.name:
        return "rummy"
    return "climbing"  # the shedding/climbing family; compared with OpenSpiel hearts


def main_python_has(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def build_contenders(args, games, threads_all) -> list[dict]:
    venv_py = str(args.anchor_python or venv_python(args.venv))
    contenders = []
    if "cardenvs" in args.only:
        for g in games:
            contenders.append({
                "id": f"cardenvs:{g.name}", "group": "cardenvs", "label": f"cardenvs {g.env_id}",
                "family": game_family(g), "python": sys.executable,
                "spec": {"kind": "cardenvs", "game": g.name, "players": args.players.get(g.name, g.default_players),
                         "batches": args.batches, "threads": threads_all},
            })
    if "openspiel" in args.only:
        # the main env if it has open-spiel (the `anchors` extra), else the anchor venv
        py = sys.executable if main_python_has("pyspiel") else venv_py
        for g in ("gin_rummy", "hearts"):
            contenders.append({"id": f"openspiel:{g}", "group": "openspiel", "label": f"OpenSpiel {g}",
                               "python": py, "spec": {"kind": "openspiel", "game": g}})
    if "pettingzoo" in args.only:
        contenders.append({"id": "pettingzoo:gin_rummy_v4", "group": "pettingzoo",
                           "label": "PettingZoo gin_rummy_v4", "python": venv_py,
                           "spec": {"kind": "pettingzoo", "game": "gin_rummy_v4"}})
    if "rlcard" in args.only:
        for g in ("gin-rummy", "doudizhu"):
            contenders.append({"id": f"rlcard:{g}", "group": "rlcard", "label": f"RLCard {g}",
                               "python": venv_py, "spec": {"kind": "rlcard", "game": g}})
    return contenders


def summarize(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "rounds": values}


def machine_info() -> dict:
    info = {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "logical_cpus": os.cpu_count(),
    }
    if hasattr(os, "sched_getaffinity"):
        info["usable_cpus"] = len(os.sched_getaffinity(0))
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    info["cpu_model"] = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    info["memory_bytes"] = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    if hasattr(os, "getloadavg"):
        info["loadavg_start"] = list(os.getloadavg())
    return info


def git_info() -> dict:
    out = {}
    try:
        out["commit"] = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT,
                                       timeout=10).stdout.strip() or None
        status = subprocess.run(["git", "--no-optional-locks", "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, cwd=ROOT, timeout=10).stdout
        out["dirty"] = bool(status.strip())
    except (OSError, subprocess.TimeoutExpired):
        pass
    return out


def run_rounds(contenders: list[dict], args, log) -> dict:
    results = {}
    for c in contenders:
        results[c["id"]] = {k: c[k] for k in ("label", "group", "python") if k in c}
        results[c["id"]].update(status="pending", raw=[], errors=[], family=c.get("family"))
        if c.get("missing"):
            results[c["id"]].update(status="missing", reason=c["missing"])
    for r in range(args.rounds):
        # rotate the order each round so no contender always runs first (or last)
        order = contenders[r % len(contenders):] + contenders[: r % len(contenders)] if contenders else []
        for c in order:
            res = results[c["id"]]
            if res["status"] == "missing":
                continue
            spec = dict(c["spec"], seconds=args.seconds, seed=r, cpu=args.cpu)
            out, wall = spawn(c["python"], spec)
            if out.get("missing"):
                res.update(status="missing", reason=out["reason"])
                log(f"  round {r + 1}: {c['label']}: missing ({out['reason']})")
                continue
            if not out.get("ok"):
                res["errors"].append({"round": r + 1, "error": out.get("error"), "traceback": out.get("traceback")})
                log(f"  round {r + 1}: {c['label']}: ERROR {out.get('error')}")
                continue
            out["round"] = r + 1
            out["process_wall_s"] = wall
            res["raw"].append(out)
            main = next(iter(out["metrics"].values()))
            log(f"  round {r + 1}: {c['label']:<28} {main['decisions_per_s']:>12,.0f} decisions/s "
                f"({wall:.1f} s process)")
    for res in results.values():
        if res["status"] == "missing":
            res["metrics"] = {}
            continue
        if not res["raw"]:
            res["status"] = "error"
            res["metrics"] = {}
            continue
        res["status"] = "ok"
        first = res["raw"][-1]
        res["versions"] = first.get("versions", {})
        res["info"] = first.get("info", {})
        res["interpreter"] = first.get("interpreter")
        metrics = {}
        for key in first["metrics"]:
            rows = [o["metrics"][key] for o in res["raw"] if key in o["metrics"]]
            m = {"decisions_per_s": summarize([x["decisions_per_s"] for x in rows])}
            for extra in ("games_per_s", "finished_per_s"):
                if extra in rows[0]:
                    m[extra] = summarize([x[extra] for x in rows])
            for extra in ("batch", "threads"):
                if extra in rows[0]:
                    m[extra] = rows[0][extra]
            m["rounds_by_index"] = [o["round"] for o in res["raw"] if key in o["metrics"]]
            metrics[key] = m
        res["metrics"] = metrics
    # vector games/s from the AEC game length (decisions per game) of the same game
    for res in results.values():
        aec = res["metrics"].get("aec") if res.get("group") == "cardenvs" else None
        if not aec:
            continue
        length = statistics.median(
            o["metrics"]["aec"]["decisions"] / o["metrics"]["aec"]["games"] for o in res["raw"]
        )
        res["decisions_per_game"] = length
        for key, m in res["metrics"].items():
            if key.startswith("vec:"):
                m["games_per_s"] = {k: (v / length if k != "rounds" else [x / length for x in v])
                                    for k, v in m["decisions_per_s"].items()}
    return results


def per_round_ratio(a: dict, b: dict) -> list[float]:
    """Ratios of two metrics round by round (rounds are interleaved, so round r of each
    ran in the same stretch of machine load)."""
    ra = dict(zip(a["rounds_by_index"], a["decisions_per_s"]["rounds"], strict=True))
    rb = dict(zip(b["rounds_by_index"], b["decisions_per_s"]["rounds"], strict=True))
    return [ra[k] / rb[k] for k in sorted(ra) if k in rb and rb[k] > 0]


def ratio(results: dict, cid: str, key: str, anchor: tuple[str, str]) -> dict | None:
    aid, akey = anchor
    a = results.get(aid, {}).get("metrics", {}).get(akey)
    m = results[cid]["metrics"].get(key)
    if not a or not m:
        return None
    rounds = per_round_ratio(m, a)
    return {
        "anchor": aid,
        "anchor_metric": akey,
        "ratio": m["decisions_per_s"]["median"] / a["decisions_per_s"]["median"],
        "round_min": min(rounds) if rounds else None,
        "round_max": max(rounds) if rounds else None,
    }


def add_ratios(results: dict) -> None:
    for cid, res in results.items():
        if res.get("group") != "cardenvs" or res["status"] != "ok":
            continue
        fam = res["family"]
        for key, m in res["metrics"].items():
            m["vs_anchor"] = ratio(results, cid, key, FAMILY_ANCHOR[fam])
            m["vs_anchor_bare"] = ratio(results, cid, key, FAMILY_ANCHOR_BARE[fam])
            if key == "aec":
                m["vs_pettingzoo"] = ratio(results, cid, key, ("pettingzoo:gin_rummy_v4", "aec"))
                m["vs_openspiel_gin_obs"] = ratio(results, cid, key, ("openspiel:gin_rummy", "obs_mask"))


def best_one_thread(res: dict) -> tuple[str, dict] | None:
    cands = [(k, m) for k, m in res["metrics"].items() if k.startswith("vec:") and m.get("threads") == 1]
    if not cands:
        return None
    return max(cands, key=lambda km: km[1]["decisions_per_s"]["median"])


def verdict(value, limit, higher_is_better=True) -> str:
    if value is None:
        return "n/a"
    ok = value >= limit if higher_is_better else value <= limit
    return "PASS" if ok else "FAIL"


def evaluate_targets(results: dict, memory: dict, compile_: dict) -> list[dict]:
    out = []
    for res in results.values():
        if res.get("group") != "cardenvs":
            continue
        fam = res["family"]
        if res["status"] != "ok":
            out.append({"target": f"{res['label']}: measured", "status": "n/a", "note": res.get("reason", "")})
            continue
        best = best_one_thread(res)
        if best is not None and fam in ("climbing", "rummy"):
            key, m = best
            game = res["label"].split()[-1].rpartition("_v")[0]  # "cardenvs odin_v1" -> "odin"
            need = VECTOR_TARGETS.get(game)
            # the climbing games' line is against hearts bare, the rummies' against gin_rummy with obs + mask
            bare = fam == "climbing"
            r, other = (m.get("vs_anchor_bare"), m.get("vs_anchor")) if bare else (m.get("vs_anchor"),
                                                                                  m.get("vs_anchor_bare"))
            anchor = "OpenSpiel hearts" if fam == "climbing" else "OpenSpiel gin_rummy"
            kind, other_kind = ("bare", "obs + mask") if bare else ("obs + mask", "bare")
            big = max(mm["batch"] for mm in res["metrics"].values() if "batch" in mm) >= 1024
            if need is None:
                out.append({"target": f"{res['label']} vector: no line set", "status": "n/a",
                            "note": "a game without an entry in VECTOR_TARGETS"})
                continue
            out.append({
                "target": f"{res['label']} vector, one core (best batch {m['batch']}) >= {need:g}x {anchor} "
                          f"({kind})",
                "value": r and r["ratio"], "limit": need,
                "status": verdict(r and r["ratio"], need) if big else "n/a",
                "note": ("" if big else "no batch >= 1,024 measured (--quick/--batches); ")
                + (f"rounds {r['round_min']:.1f}-{r['round_max']:.1f}x; " if r and r["round_min"] else "")
                + (f"vs {anchor} {other_kind}: {other['ratio']:.1f}x" if other else "")
                + ("" if r else "anchor missing"),
            })
        aec = res["metrics"].get("aec")
        if aec:
            r = aec.get("vs_pettingzoo")
            out.append({
                "target": f"{res['label']} AEC >= {TARGETS['aec_vs_pettingzoo']:g}x PettingZoo gin_rummy_v4",
                "value": r and r["ratio"], "limit": TARGETS["aec_vs_pettingzoo"],
                "status": verdict(r and r["ratio"], TARGETS["aec_vs_pettingzoo"]),
                "note": f"rounds {r['round_min']:.1f}-{r['round_max']:.1f}x" if r else "anchor missing",
            })
            r = aec.get("vs_openspiel_gin_obs")
            out.append({
                "target": f"{res['label']} AEC >= {TARGETS['aec_vs_openspiel']:g}x OpenSpiel gin_rummy (obs + mask)",
                "value": r and r["ratio"], "limit": TARGETS["aec_vs_openspiel"],
                "status": verdict(r and r["ratio"], TARGETS["aec_vs_openspiel"]),
                "note": f"rounds {r['round_min']:.2f}-{r['round_max']:.2f}x" if r else "anchor missing",
            })
    cards = [r for r in results.values() if r.get("group") == "cardenvs"]
    for fam, anchor in (("climbing", "OpenSpiel hearts"), ("rummy", "OpenSpiel gin_rummy")):
        if cards and fam not in {r["family"] for r in cards}:
            measured = ", ".join(r["label"].split()[1] for r in cards)
            out.append({"target": f"{fam} games' vector env, one core, against {anchor}",
                        "status": "n/a", "note": f"no {fam} game registered or measured (measured: {measured})"})
    for name, mem in memory.items():
        if mem.get("ok"):
            n = mem["num_envs"]
            limit = TARGETS["memory_bytes"]
            at_target = n == MEMORY_ENVS
            out.append({
                "target": f"cardenvs {name}: {MEMORY_ENVS:,} parallel games <= 1 GiB (RSS above baseline)",
                "value": mem["delta_rss"] if at_target else None, "limit": limit,
                "status": verdict(mem["delta_rss"], limit, higher_is_better=False) if at_target else "n/a",
                "note": f"peak RSS {mem['peak_rss'] / 2**20:,.0f} MiB in all" if at_target
                else f"measured at {n:,} games only (--memory-envs): {mem['delta_rss'] / 2**20:,.0f} MiB",
            })
        else:
            out.append({"target": f"cardenvs {name}: memory", "status": "n/a", "note": mem.get("error", "")})
    for phase in ("cold", "warm"):
        c = compile_.get(phase)
        if not c:
            continue
        limit = TARGETS[f"compile_{phase}_s"]
        value = c.get("total_s")
        out.append({
            "target": f"compile, {phase} cache, all games (import + first reset/step) <= {limit:g} s",
            "value": value, "limit": limit, "status": verdict(value, limit, higher_is_better=False),
            "note": c.get("error", "") or f"process wall {c['process_wall_s']:.1f} s"
            + ("; cardenvs sources were edited during the measurement: not a fair warm figure"
               if compile_.get("source_changed") else ""),
        })
    return out


def measure_compile(games: list[str], threads: int, log, cpu: int | None = None) -> dict:
    for attempt in range(1, 3):
        cache = tempfile.mkdtemp(prefix="cardenvs-numba-cache-")
        out = {"attempt": attempt}
        try:
            for phase in ("cold", "warm"):
                res, wall = spawn(sys.executable, {"kind": "compile", "games": games, "threads": threads, "cpu": cpu},
                                  env={"NUMBA_CACHE_DIR": cache})
                if res.get("ok"):
                    out[phase] = dict(res["compile"], process_wall_s=wall, cpus=res.get("cpus"))
                    log(f"  compile {phase}: {out[phase]['total_s']:.1f} s (process {wall:.1f} s)")
                else:
                    out[phase] = {"error": res.get("error") or res.get("reason"), "total_s": None}
                    log(f"  compile {phase}: ERROR {out[phase]['error']}")
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        digests = {out[p].get("source_digest") for p in ("cold", "warm")} | {source_digest()}
        out["source_changed"] = len(digests) > 1
        if not out["source_changed"]:
            break
        log("  cardenvs sources changed between the cold and the warm run (numba may have recompiled): "
            + ("measuring again" if attempt == 1 else "giving up"))
    return out


def measure_memory(games, num_envs: int, players: dict, log) -> dict:
    out = {}
    for g in games:
        res, _ = spawn(sys.executable, {"kind": "memory", "game": g.name, "num_envs": num_envs, "steps": 8})
        if res.get("ok"):
            out[g.name] = dict(res["memory"], ok=True)
            m = out[g.name]
            log(f"  memory {g.name}: {num_envs:,} games, peak {m['peak_rss'] / 2**20:,.0f} MiB, "
                f"above baseline {m['delta_rss'] / 2**20:,.0f} MiB")
        else:
            out[g.name] = {"ok": False, "error": res.get("error") or res.get("reason")}
            log(f"  memory {g.name}: ERROR {out[g.name]['error']}")
    return out


# ---------------------------------------------------------------------------------- output


def fmt_rate(x: float | None) -> str:
    if x is None:
        return "-"
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= div:
            return f"{x / div:.3g}{unit}"
    return f"{x:.3g}"


def fmt_stat(s: dict | None) -> str:
    if not s:
        return "-"
    return f"{fmt_rate(s['median'])} ({fmt_rate(s['min'])}–{fmt_rate(s['max'])})"


def fmt_ratio(r: dict | None) -> str:
    if not r:
        return "-"
    span = ""
    if r.get("round_min") is not None:
        span = f" ({r['round_min']:.3g}–{r['round_max']:.3g})"
    return f"{r['ratio']:.3g}×{span}"


def metric_label(key: str, res: dict) -> str:
    if key == "aec":
        return "AEC env() + Python agent"
    if key.startswith("vec:"):
        _, b, t = key.split(":")
        return f"vector N={int(b):,} {'1 thread' if t == '1' else t + ' threads'}"
    return {"bare": "bare (legal_actions only)",
            "obs_mask": f"+ {res.get('info', {}).get('tensor', 'obs')} + mask",
            "env": "env.step (obs + legal encoded)"}.get(key, key)


def anchor_name(ref: tuple[str, str]) -> str:
    return f"{ref[0].split(':', 1)[1]} {'obs+mask' if ref[1] == 'obs_mask' else ref[1]}"


def to_markdown(report: dict) -> str:
    res_all = report["contenders"]
    lines = ["# cardenvs against the anchor packages", ""]
    s = report["settings"]
    m = report["machine"]
    lines += [
        f"Run {report['date']} — {s['rounds']} interleaved rounds × {s['seconds']:g} s per measurement, "
        f"one process per contender and round; random legal play. Figures: median (min–max over rounds). "
        f"Ratios: median ÷ median, with the range of the per-round ratios.",
        "",
        f"Machine: {m.get('cpu_model', m['machine'])}, {m.get('usable_cpus', m['logical_cpus'])} usable CPUs, "
        f"{m.get('memory_bytes', 0) / 2**30:.0f} GiB, {m['platform']}, Python {m['python']}; "
        f"load average {' / '.join(f'{x:.2f}' for x in m.get('loadavg_start', []))} at start, "
        f"{' / '.join(f'{x:.2f}' for x in m.get('loadavg_end', []))} at end.",
        *([f"The timed processes (throughput, compile) ran on CPU {s['cpu']} alone (--cpu)."]
          if s.get("cpu") is not None else []),
        f"cardenvs commit {(report['git'].get('commit') or '?')[:10]}"
        f"{' (working tree modified)' if report['git'].get('dirty') else ''}.",
        "",
    ]
    sd = report.get("source_digest", {})
    if sd.get("start") != sd.get("end"):
        lines += ["**Warning: cardenvs' sources changed during this run** (numba recompiled; figures before "
                  "and after the edit measure different code). Run again on a quiet tree.", ""]
    lines += [
        "## Throughput",
        "",
        "| contender | mode | decisions/s | games/s | × closest anchor | × anchor bare |",
        "|---|---|---|---|---|---|",
    ]
    for _cid, res in res_all.items():
        if res["status"] != "ok":
            continue
        fam = res.get("family")
        for key, mt in res["metrics"].items():
            games = mt.get("games_per_s")
            lines.append(
                f"| {res['label']} | {metric_label(key, res)} | {fmt_stat(mt['decisions_per_s'])} | "
                f"{fmt_stat(games)} | "
                + (f"{fmt_ratio(mt.get('vs_anchor'))} | {fmt_ratio(mt.get('vs_anchor_bare'))} |"
                   if fam else "| |")
            )
    fams = sorted({r["family"] for r in res_all.values() if r.get("family")})
    if fams:
        lines += ["", "Closest anchor: " + "; ".join(
            f"{f} games ({', '.join(r['label'].split()[1] for r in res_all.values() if r.get('family') == f)}) "
            f"→ OpenSpiel {anchor_name(FAMILY_ANCHOR[f])} (bare: {anchor_name(FAMILY_ANCHOR_BARE[f])})"
            for f in fams) + ". Vector games/s = decisions/s ÷ the AEC run's decisions per game "
            "(a batch started together finishes together, so counting finishes in a short window misleads)."]
    cards = [r for r in res_all.values() if r.get("group") == "cardenvs" and r["status"] == "ok"]
    for r in cards:
        i = r.get("info", {})
        lines.append(
            f"- {r['label']}: {i.get('players')} players, {r.get('decisions_per_game', 0):,.0f} decisions per game "
            f"(match), observation {i.get('observation_size')} {i.get('observation_dtype', 'float32')} values, "
            f"{i.get('num_actions')} actions, "
            f"{i.get('bytes_per_game')} bytes of state per game.")
    for r in res_all.values():
        if r.get("group") == "openspiel" and r["status"] == "ok":
            i = r.get("info", {})
            lines.append(f"- {r['label']}: {i.get('players')} players, obs = {i.get('tensor')} "
                         f"({i.get('tensor_size')} floats), {i.get('num_actions')} actions.")
    missing = [(r["label"], r.get("reason") or "; ".join(e["error"] or "" for e in r["errors"]))
               for r in res_all.values() if r["status"] in ("missing", "error")]
    skipped = report.get("skipped_groups", [])
    if missing or skipped:
        lines += ["", "## Missing or not run", ""]
        lines += [f"- **{label}**: {why}" for label, why in missing]
        lines += [f"- **{g}**: not run (`--only` left it out)" for g in skipped]
    if report["targets"]:
        lines += ["", "## Targets (same run, one core)", "",
                  "| target | measured | verdict | note |", "|---|---|---|---|"]
        for t in report["targets"]:
            v = t.get("value")
            if v is None:
                shown = "-"
            elif "GiB" in t["target"]:
                shown = f"{v / 2**20:,.0f} MiB"
            elif "compile" in t["target"]:
                shown = f"{v:.1f} s"
            else:
                shown = f"{v:.3g}×"
            lines.append(f"| {t['target']} | {shown} | **{t['status']}** | {t.get('note', '')} |")
    mem = report.get("memory", {})
    if mem:
        lines += ["", "## Memory (vector env, 1 thread, reset + 8 steps)", "",
                  "| game | games | peak RSS | baseline RSS (after imports + kernels) | above baseline | "
                  "state | one step's outputs |", "|---|---|---|---|---|---|---|"]
        for g, x in mem.items():
            if x.get("ok"):
                lines.append(
                    f"| {g} | {x['num_envs']:,} | {x['peak_rss'] / 2**20:,.0f} MiB | "
                    f"{x['baseline_rss'] / 2**20:,.0f} MiB | {x['delta_rss'] / 2**20:,.0f} MiB | "
                    f"{x['state_bytes'] / 2**20:,.1f} MiB | {x['step_output_bytes'] / 2**20:,.1f} MiB |")
            else:
                lines.append(f"| {g} | - | error: {x.get('error')} | | | | |")
    comp = report.get("compile", {})
    if comp.get("cold") or comp.get("warm"):
        lines += ["", "## JIT compile (import + first AEC step, vector step, parallel vector step of every game)",
                  "", "| cache | import | per game | total in process | process wall |", "|---|---|---|---|---|"]
        for phase in ("cold", "warm"):
            c = comp.get(phase) or {}
            if c.get("total_s") is None:
                lines.append(f"| {phase} | error: {c.get('error')} | | | |")
                continue
            per = "; ".join(f"{g}: " + ", ".join(f"{k[:-2]} {v:.1f} s" for k, v in ph.items())
                            for g, ph in c["games"].items())
            lines.append(f"| {phase} | {c['import_s']:.1f} s | {per} | {c['total_s']:.1f} s | "
                         f"{c['process_wall_s']:.1f} s |")
    lines += ["", "## Versions", ""]
    by_python: dict[str, dict] = {sys.executable: dict(report["main_versions"])}
    for r in res_all.values():
        if r.get("interpreter"):
            by_python.setdefault(r["interpreter"], {}).update(r.get("versions") or {})
    for py, vers in by_python.items():
        where = "main env" if py == sys.executable else "anchor venv"
        shown = ", ".join(f"{k} {v}" for k, v in sorted(vers.items()) if v)
        try:  # the interpreter's path only when it is inside the repository
            where += f" (`{Path(os.path.abspath(py)).relative_to(ROOT)}`)"
        except ValueError:
            pass
        lines.append(f"- {where}: {shown}.")
    if report.get("anchor_venv") and "setup failed" in report["anchor_venv"]:
        lines.append(f"- anchor venv: {report['anchor_venv']}.")
    lines.append("")
    return "\n".join(lines)


def plot(report: dict, path: Path) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        return f"matplotlib not importable ({exc}); pip install -e '.[anchors]'"
    res_all = report["contenders"]
    fig, ax = plt.subplots(figsize=(10, 6.5))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    xs_all = []
    for i, res in enumerate(r for r in res_all.values() if r.get("group") == "cardenvs" and r["status"] == "ok"):
        col = colours[i % len(colours)]
        by_threads: dict[int, list] = {}
        for _key, m in res["metrics"].items():
            if "batch" in m:
                by_threads.setdefault(m["threads"], []).append(m)
        for t, ms in sorted(by_threads.items()):
            ms.sort(key=lambda m: m["batch"])
            x = [m["batch"] for m in ms]
            xs_all += x
            y = [m["decisions_per_s"]["median"] for m in ms]
            err = [[yy - m["decisions_per_s"]["min"] for yy, m in zip(y, ms, strict=True)],
                   [m["decisions_per_s"]["max"] - yy for yy, m in zip(y, ms, strict=True)]]
            ax.errorbar(x, y, yerr=err, color=col, marker="o", capsize=3, linestyle="-" if t == 1 else "--",
                        label=f"{res['label']} vector, {t} thread{'s' if t > 1 else ''}")
        aec = res["metrics"].get("aec")
        if aec:
            ax.errorbar([1], [aec["decisions_per_s"]["median"]], color=col, marker="s", markersize=9,
                        yerr=[[aec["decisions_per_s"]["median"] - aec["decisions_per_s"]["min"]],
                              [aec["decisions_per_s"]["max"] - aec["decisions_per_s"]["median"]]],
                        capsize=3, linestyle="none", label=f"{res['label']} AEC env() (one game, Python agent)")
    anchor_rows = []
    for res in res_all.values():
        if res.get("group") == "cardenvs" or res["status"] != "ok":
            continue
        for key, m in res["metrics"].items():
            anchor_rows.append((f"{res['label']} {'' if key in ('aec', 'env') else key.replace('_', '+')}".strip(),
                                m["decisions_per_s"]))
    styles = ["-", "--", ":", "-."]
    xmax = max(xs_all) if xs_all else 8192
    for j, (label, s) in enumerate(anchor_rows):
        ax.axhline(s["median"], color="0.35", linestyle=styles[j % len(styles)], linewidth=1)
        ax.axhspan(s["min"], s["max"], color="0.5", alpha=0.12)
        ax.text(xmax * 1.15, s["median"], label, fontsize=7.5, va="center", color="0.2")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(0.7, xmax * 1.1)
    ticks = sorted(set(xs_all)) or [1]
    ax.set_xticks(ticks, [f"{t:,}" for t in ticks])
    ax.set_xlabel("batch size (parallel games per vector step)")
    ax.set_ylabel("decisions per second (random legal play)")
    ax.set_title(f"cardenvs vs anchors — {report['machine'].get('cpu_model', '')}, "
                 f"{report['machine'].get('usable_cpus', '')} CPUs, median of {report['settings']['rounds']} rounds",
                 fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="lower right")
    fig.subplots_adjust(left=0.08, right=0.76)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return None


# ------------------------------------------------------------------------------------ main


def parse_players(items: list[str]) -> dict:
    out = {}
    for item in items or []:
        name, _, n = item.partition("=")
        out[name] = int(n)
    return out


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--only", nargs="+", choices=GROUPS, default=list(GROUPS),
                        help="contender groups to run (default: all)")
    parser.add_argument("--games", nargs="+", help="cardenvs games (default: every registered game)")
    parser.add_argument("--players", nargs="*", metavar="GAME=N", help="players per cardenvs game (default: "
                        "the game's default)")
    parser.add_argument("--seconds", type=float, help="time per measurement (default 1.0; --quick 0.05)")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 3)")
    parser.add_argument("--batches", nargs="+", type=int, help=f"vector batch sizes (default {BATCHES})")
    parser.add_argument("--threads", type=int, help="'all cores' thread count (default: numba's, i.e. the CPUs)")
    parser.add_argument("--cpu", type=int, help="run the timed processes (throughput, compile) on this CPU alone "
                        "(with --threads 1): on a machine whose cores differ in speed, both sides of a ratio get "
                        "the same core")
    parser.add_argument("--memory-envs", type=int, help=f"parallel games for the RSS figure (default {MEMORY_ENVS:,})")
    parser.add_argument("--no-memory", action="store_true", help="skip the RSS measurement")
    parser.add_argument("--compile", dest="compile", action="store_true", default=None,
                        help="measure JIT compile cold/warm (default on; off with --quick)")
    parser.add_argument("--no-compile", dest="compile", action="store_false")
    parser.add_argument("--quick", action="store_true", help="smoke run: 0.05 s, 3 rounds, batches 1 and 64, "
                        "memory at 4,096 games, no compile timing")
    parser.add_argument("--setup", action="store_true", help="build/update the anchor venv first")
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV, help="anchor venv (pettingzoo 1.26.1, rlcard)")
    parser.add_argument("--anchor-python", help="interpreter for the PettingZoo/RLCard anchors (default: the venv's)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder for anchors.json/.md/.png")
    parser.add_argument("--no-plot", action="store_true")
    parser.add_argument("-q", "--quiet", action="store_true")
    args = parser.parse_args(argv)
    if args.child:
        run_child(json.loads(args.child))
        return {}

    def log(msg: str) -> None:
        if not args.quiet:
            print(msg, flush=True)

    import cardenvs
    from cardenvs.core.threads import usable_cpus

    q = args.quick
    args.seconds = args.seconds if args.seconds is not None else (0.05 if q else 1.0)
    args.rounds = args.rounds if args.rounds is not None else 3
    args.batches = args.batches or (QUICK_BATCHES if q else BATCHES)
    args.memory_envs = args.memory_envs or (4096 if q else MEMORY_ENVS)
    if args.compile is None:
        args.compile = not q
    args.players = parse_players(args.players)
    if args.rounds < 1:
        parser.error("--rounds must be >= 1")
    threads_all = args.threads or usable_cpus()  # the threaded step uses at most one thread per CPU
    if args.cpu is not None:
        if not hasattr(os, "sched_setaffinity"):
            parser.error("--cpu needs os.sched_setaffinity (Linux)")
        if args.cpu not in os.sched_getaffinity(0):
            parser.error(f"--cpu {args.cpu}: not a CPU this process may use ({sorted(os.sched_getaffinity(0))})")
        if threads_all != 1:
            parser.error("--cpu runs each measurement on one core: use it with --threads 1")
    games = [cardenvs.get_spec(g) for g in args.games] if args.games else cardenvs.list_games()

    report = {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "settings": {"seconds": args.seconds, "rounds": args.rounds, "batches": args.batches,
                     "threads_all": threads_all, "only": args.only, "quick": q, "cpu": args.cpu,
                     "memory_envs": args.memory_envs, "games": [g.name for g in games]},
        "machine": machine_info(),
        "git": git_info(),
        "source_digest": {"start": source_digest()},
        "main_versions": _versions("cardenvs", "numba", "numpy", "pettingzoo", "gymnasium", "open-spiel",
                                   "matplotlib"),
        "skipped_groups": [g for g in GROUPS if g not in args.only],
    }
    report["machine"]["usable_cpus"] = usable_cpus()

    venv_needed = any(g in args.only for g in ("pettingzoo", "rlcard")) or (
        "openspiel" in args.only and not main_python_has("pyspiel"))
    setup_failure = None
    if args.setup and venv_needed and not args.anchor_python:
        st = setup_venv(args.venv, log)
        report["anchor_venv"] = st.get("python") if st["ok"] else f"setup failed: {st['reason']}"
        if not st["ok"]:
            setup_failure = st["reason"]
    elif venv_needed and not args.anchor_python and venv_python(args.venv).exists():
        report["anchor_venv"] = str(venv_python(args.venv))

    contenders = build_contenders(args, games, threads_all)
    for c in contenders:
        py = Path(c["python"])
        if not py.exists():
            why = setup_failure or (
                "no such interpreter (--anchor-python)" if args.anchor_python
                else "anchor venv not built; run `python benchmarks/anchors.py --setup`")
            c["missing"] = f"{c['label']} needs {py}: {why}"

    log(f"{len(contenders)} contenders, {args.rounds} rounds x {args.seconds:g} s")
    t0 = time.perf_counter()
    report["compile"] = {}
    if args.compile and "cardenvs" in args.only:
        log("JIT compile, fresh NUMBA_CACHE_DIR (cold) then again (warm):")
        report["compile"] = measure_compile([g.name for g in games], threads_all, log, args.cpu)
    report["contenders"] = run_rounds(contenders, args, log)
    add_ratios(report["contenders"])
    report["memory"] = {}
    if not args.no_memory and "cardenvs" in args.only:
        log(f"peak RSS at {args.memory_envs:,} parallel games:")
        report["memory"] = measure_memory(games, args.memory_envs, args.players, log)
    report["targets"] = evaluate_targets(report["contenders"], report["memory"], report["compile"])
    report["machine"]["loadavg_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else []
    report["source_digest"]["end"] = source_digest()
    report["elapsed_s"] = time.perf_counter() - t0

    args.out.mkdir(parents=True, exist_ok=True)
    md = to_markdown(report)
    if not args.no_plot:
        why = plot(report, args.out / "anchors.png")
        report["plot"] = why or str(args.out / "anchors.png")
    for res in report["contenders"].values():  # keep the JSON readable: per-round records stay, bulky fields go
        for o in res.get("raw", []):
            o.pop("versions", None)
            o.pop("info", None)
            o.pop("interpreter", None)
    tmp = args.out / "anchors.json.tmp"
    tmp.write_text(json.dumps(report, indent=2))
    tmp.replace(args.out / "anchors.json")
    (args.out / "anchors.md").write_text(md)
    log("")
    log(md)
    log(f"wrote {args.out / 'anchors.json'}, {args.out / 'anchors.md'}"
        + ("" if args.no_plot else f", {report['plot']}") + f" in {report['elapsed_s']:.0f} s")
    return report


if __name__ == "__main__":
    main()
