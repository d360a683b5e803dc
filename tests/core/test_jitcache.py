"""numba's cache is keyed on every kernel source: an edit of a helper in one file reaches
a cached caller in another file (numba alone would keep the caller's stale machine code)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cardenvs
from cardenvs.core import jitcache

REPO = Path(cardenvs.__file__).resolve().parent.parent

# vector._sample_legal (core/vector.py) calls bits.low_index (core/bits.py): one legal action, at 3
PROBE = """
import numpy as np
import cardenvs
from cardenvs.core.vector import _sample_legal
assert cardenvs.__file__.startswith({root!r}), cardenvs.__file__
masks = np.zeros((1, 10), dtype=np.int8)
masks[0, 3] = 1
out = np.zeros(1, dtype=np.int64)
_sample_legal(masks, np.ones(1, dtype=np.uint64), out)
print(int(out[0]))
"""


def _run(root: Path, cache: Path) -> int:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(root))
    done = subprocess.run([sys.executable, "-c", PROBE.format(root=str(root))], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_edit_of_a_helper_reaches_a_cached_caller(tmp_path):
    root = tmp_path / "copy"
    for package in ("cardenvs", "agents"):
        shutil.copytree(REPO / package, root / package, ignore=shutil.ignore_patterns("__pycache__", "prebuilt"))
    cache = tmp_path / "cache"
    assert _run(root, cache) == 3
    assert any(cache.rglob("vector._sample_legal-*.nbc")), "the caller was not cached"
    assert _run(root, cache) == 3  # from the cache

    bits = root / "cardenvs" / "core" / "bits.py"
    text = bits.read_text()
    line = "    return _DEBRUIJN_INDEX[((low * np.int64(_DEBRUIJN)) >> np.int64(58)) & np.int64(63)]\n"
    assert line in text
    bits.write_text(text.replace(line, line.rstrip("\n") + " + 1\n"))
    assert _run(root, cache) == 4, "a cached caller kept the old helper"


def test_stamp_covers_every_kernel_file():
    names = {p.relative_to(REPO).as_posix() for p in jitcache.kernel_sources()}
    for expected in ("cardenvs/core/bits.py", "cardenvs/core/vector.py", "cardenvs/games/odin/rules.py",
                     "cardenvs/core/step_driver.py",
                     "agents/heuristics/odin.py"):
        assert expected in names
    assert "cardenvs/envs.py" not in names  # no kernels: editing it recompiles nothing
    assert len(jitcache.kernel_stamp()) == 64


def test_locator_answers_numba_s_other_attributes():
    # numba reads ``_py_file`` of the locator when it warns that a function cannot be
    # cached (for example with NUMBA_OPT=0): the project's locator must not raise there
    from cardenvs.core.vector import _sample_legal

    py_func = _sample_legal.py_func
    locator = jitcache.ProjectCacheLocator.from_function(py_func, py_func.__code__.co_filename)
    assert locator is not None
    assert Path(locator._py_file).resolve() == Path(py_func.__code__.co_filename).resolve()
    import copy
    import pickle

    assert copy.copy(locator).get_cache_path() == locator.get_cache_path()  # no endless lookup of _inner
    assert pickle.loads(pickle.dumps(locator)).get_cache_path() == locator.get_cache_path()


def test_every_kernel_skips_the_c_callback_wrapper():
    # numba wraps every compiled function in a C-callable copy for use as a first-class
    # function value, which no kernel of the project is: no_cfunc_wrapper=True on each
    # saves its lowering and machine code in every cold compile (docs/adding-a-game.md)
    import importlib
    import pkgutil

    from numba.core.registry import CPUDispatcher

    import cardenvs.agents

    modules = []
    # cardenvs.agents is the checkout's agents/ folder, which walking cardenvs/ does not reach
    for package in (cardenvs, cardenvs.agents):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.endswith("__main__"):
                continue
            try:
                modules.append(importlib.import_module(info.name))
            except ImportError:  # an optional extra (torch, ray) that is not installed
                continue
    kernels = {id(v): (m.__name__, k, v) for m in modules for k, v in vars(m).items()
               if isinstance(v, CPUDispatcher) and v.py_func.__module__ == m.__name__}
    assert len(kernels) > 100
    assert any(mod.startswith("cardenvs.agents.") for mod, _, _ in kernels.values())
    missing = sorted(f"{mod}.{name}" for mod, name, d in kernels.values()
                     if not d.targetoptions.get("no_cfunc_wrapper"))
    assert not missing, missing


def test_two_writers_of_one_index_keep_both_entries(tmp_path, monkeypatch):
    """Two processes compiling one shared kernel for two record types at once (``cardenvs
    warmup``'s games side by side) must not give both the same data file: numba picks the
    first free name from the index it read, so without the lock the second writer
    overwrites the first one's machine code and the index points a record type at code
    compiled for another."""
    import threading
    import time

    from numba.core import caching

    jitcache.install()
    read_index = caching.IndexDataCacheFile._load_index

    def slow_read(self):  # widen the window between reading the index and writing it
        found = read_index(self)
        time.sleep(0.3)
        return found

    monkeypatch.setattr(caching.IndexDataCacheFile, "_load_index", slow_read)
    stamp = jitcache.kernel_stamp()
    writers = [caching.IndexDataCacheFile(str(tmp_path), "shared_kernel-12.py311", stamp) for _ in range(2)]
    threads = [threading.Thread(target=w.save, args=((f"record type {i}",), f"code for type {i}"))
               for i, w in enumerate(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    reader = caching.IndexDataCacheFile(str(tmp_path), "shared_kernel-12.py311", stamp)
    assert reader.load(("record type 0",)) == "code for type 0"
    assert reader.load(("record type 1",)) == "code for type 1"
    assert len(list(tmp_path.glob("*.nbc"))) == 2


# A helper compiled for two record types by two processes, each calling it from a cached
# kernel of its own (as the rummy layer's kernels are, under each game's step driver). The
# field x lies at another offset in each record type. Both processes run the same code
# in the same order, so numba (counting compiled functions from 1 in each process, and
# record types too) gives both compilations of the helper one symbol name.
COLLIDE_KERNELS = """
from numba import njit


@njit(cache=True, no_cfunc_wrapper=True)
def weigh(s, n):  # too big for LLVM to inline: each caller keeps a call to its weak copy
    t = 0
    for i in range(n):
        v = s.x[i % 4]
        if v > 100:
            t += v // 3
        elif v > 10:
            t ^= v * 7
        elif v > 5:
            t -= v << 2
        elif v < 0:
            t += (v * v) % 11
        else:
            t += v * (i + 1)
    return t


@njit(cache=True, no_cfunc_wrapper=True)
def run_a(arr, n):
    return weigh(arr[0], n)


@njit(cache=True, no_cfunc_wrapper=True)
def run_b(arr, n):
    return weigh(arr[0], n)
"""

COLLIDE_PROBE = """
import sys
import numpy as np
import cardenvs
assert cardenvs.__file__.startswith({root!r}), cardenvs.__file__
sys.path.insert(0, {kernels!r})
import collide_kernels
dtypes = {{"a": np.dtype([("pad", np.int64, 8), ("x", np.int64, 4)]),
          "b": np.dtype([("x", np.int64, 4), ("pad", np.int64, 8)])}}
for which in sys.argv[1]:
    arr = np.zeros(1, dtypes[which])
    arr[0]["x"] = [1, 2, 3, 4]
    arr[0]["pad"] = 1000
    print(which, int(getattr(collide_kernels, "run_" + which)(arr, 4)))
"""


def _probe(tmp_path: Path, which: str) -> list[str]:
    kernels = tmp_path / "kernels"
    kernels.mkdir(exist_ok=True)
    (kernels / "collide_kernels.py").write_text(COLLIDE_KERNELS)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    env.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run([sys.executable, "-c", COLLIDE_PROBE.format(root=str(REPO), kernels=str(kernels)), which],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_two_processes_never_give_two_compilations_one_symbol_name(tmp_path):
    """Two processes compiling one helper for two record types, one after the other into
    one cache (or side by side: two games trained at once), and a third that loads both
    callers from it (Frime reset, then Classes played: Classes ran Frime's field offsets
    on its own states and reached an illegal state). The third process links the second
    caller's call to the first one's copy of the helper unless the two compilations got
    symbol names of their own (numba issue #10486)."""
    assert _probe(tmp_path, "a") == ["a", "30"]
    assert _probe(tmp_path, "b") == ["b", "30"]
    assert len(list((tmp_path / "cache").rglob("collide_kernels.weigh-*.nbc"))) == 2
    # both callers from the cache, in one process: b's call must reach b's own helper
    assert _probe(tmp_path, "ab") == ["a", "30", "b", "30"], "b ran the helper compiled for a's record type"


def test_compiled_functions_are_numbered_from_a_random_start_also_in_a_fork():
    from numba.core.bytecode import FunctionIdentity

    jitcache.install()
    first = next(FunctionIdentity._unique_ids)
    assert first > 2**32  # numba's own count starts at 1 in every process
    if not hasattr(os, "fork"):
        return
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: a fork goes on with its parent's count unless renumbered
        try:
            os.write(write, str(next(FunctionIdentity._unique_ids)).encode())
        finally:
            os._exit(0)
    os.close(write)
    child = int(os.read(read, 64))
    os.close(read)
    os.waitpid(pid, 0)
    parent = next(FunctionIdentity._unique_ids)
    assert abs(child - parent) > 2**20, (child, parent)


GAMES_PROBE = """
import sys
import numpy as np
import gymnasium as gym
import cardenvs
assert cardenvs.__file__.startswith({root!r}), cardenvs.__file__
ids = {{"classes": "cardenvs/classes-v2", "frime": "cardenvs/frime-v1"}}
for game in sys.argv[1].split(","):
    env = gym.make(ids[game], single_round=False, max_episode_steps=-1)  # whole matches: the bug showed after round 1
    rng = np.random.default_rng(0)
    for episode in range(int(sys.argv[2])):
        obs, info = env.reset(seed=episode)
        done = False
        steps = 0
        while not done and steps < 2000:
            mask = info["action_mask"]
            assert mask.any(), (game, episode, steps, info)
            obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = term or trunc
            steps += 1
print("ok")
"""


@pytest.mark.slow
def test_classes_after_frime_from_a_cache_both_games_compiled_into(tmp_path):
    """The bug as it was met, from an empty cache: Classes compiled by one process, Frime
    by the next one into the same cache, then a process that resets Frime and plays
    Classes. Before the fix, rummy.table.hand_of for Classes' and for Frime's states got
    one symbol name in the two processes, and the third one played Classes with Frime's
    offset of the hands (round scores in the tens of thousands, then an empty mask)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    env.pop("NUMBA_DISABLE_JIT", None)
    for games, episodes in (("classes", "1"), ("frime", "1"), ("frime,classes", "3")):
        done = subprocess.run([sys.executable, "-c", GAMES_PROBE.format(root=str(REPO)), games, episodes],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, (games, done.stderr[-3000:])
