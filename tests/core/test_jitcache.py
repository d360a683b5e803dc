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
