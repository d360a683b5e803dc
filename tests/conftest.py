"""The suite's set-up: before a whole-suite run, the games' kernels are compiled into
numba's cache, the games side by side in processes of their own (``cardenvs warmup
--jobs``). The suite runs on every core (pytest-xdist, ``-n auto`` in pyproject.toml);
without this, each worker would compile every game again, at the same time as the other.
A run of chosen files or tests compiles only what it uses, as before."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time

import pytest

_SB3_DIR = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    # Stable-Baselines3's learn() makes a folder in the temporary directory for every run
    # unless SB3_LOGDIR names one: the suite's runs share one, removed at the end
    if "SB3_LOGDIR" not in os.environ:
        os.environ["SB3_LOGDIR"] = config.stash[_SB3_DIR] = tempfile.mkdtemp(prefix="cardenvs-tests-sb3-")


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_SB3_DIR, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop("SB3_LOGDIR", None)


def _whole_suite(config: pytest.Config) -> bool:
    """No test file or node named on the command line (options such as ``-k`` aside)."""
    return not config.option.file_or_dir


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    if hasattr(config, "workerinput") or not _whole_suite(config) or os.environ.get("NUMBA_DISABLE_JIT") == "1":
        return  # an xdist worker (the controller warmed the cache), a chosen subset, or no compiling at all
    import cardenvs.games  # noqa: F401  (registers every game)
    from cardenvs.cli.warmup import warm_games
    from cardenvs.core import jitcache
    from cardenvs.core.registry import list_games

    cold = [spec.env_id for spec in list_games() if not jitcache.is_compiled(spec.module)]
    if not cold:
        return
    start = time.perf_counter()
    for _ in warm_games(cold, os.cpu_count() or 1):
        pass
    print(f"\ncompiled the kernels of {len(cold)} game(s) in {time.perf_counter() - start:.0f} s, "
          f"{min(os.cpu_count() or 1, len(cold))} at a time", file=sys.stderr)
