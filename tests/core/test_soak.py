"""The soak run: random play with invariants, and numba's bounds checking on in a subprocess."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from cardenvs.cli.main import main
from cardenvs.core.registry import GAMES, get_spec
from cardenvs.soak import soak


@pytest.mark.parametrize("spec", GAMES.values(), ids=lambda s: s.name)
def test_a_short_soak_finds_nothing(spec):
    report = soak(spec, 300, num_envs=100, seed=11, check_every=50, options={"single_round": True})
    assert report.violations == []
    assert report.matches >= 300 and report.state_checks > 0 and report.decisions > 0


@pytest.mark.slow
def test_a_full_match_soak_finds_nothing():
    report = soak(get_spec("odin"), 200, num_envs=100, seed=12, check_every=100)
    assert report.violations == [] and report.matches >= 200


def test_the_soak_reports_a_broken_invariant(monkeypatch):
    """An env whose match rewards stop adding up to zero is caught."""
    import numpy as np

    import cardenvs.core.vector as vector

    real_step = vector.VecEnv.step

    def step(self, actions):
        st = real_step(self, actions)
        rewards = st.rewards.copy()
        rewards[:, 0] += np.where(st.terminated, 1.0, 0.0)  # one seat gets a point too many
        return st._replace(rewards=rewards)

    monkeypatch.setattr(vector.VecEnv, "step", step)
    report = soak(get_spec("president"), 30, num_envs=30, seed=2, options={"single_round": True})
    assert report.violations and "add up to" in report.violations[0]


def test_cli_soak():
    out = io.StringIO()
    assert main(["soak", "president", "--matches", "50", "--option", "single_round=true"], out, io.StringIO()) == 0
    assert "0 violation(s)" in out.getvalue() and "50 matches" in out.getvalue()


@pytest.mark.slow
def test_a_soak_with_bounds_checking_on():
    """numba's bounds checks turn a silent out-of-bounds access into an IndexError; run in a
    subprocess with its own cache (the checks are compiled in) so that a crash fails the test.
    The prebuilt kernels (compiled without the checks) refuse to serve such a process; the
    test also switches them off, and checks that its kernels were compiled there."""
    code = (
        "from cardenvs.core.registry import get_spec\n"
        "from cardenvs.soak import soak\n"
        "for game in ('president', 'classes'):\n"
        "    r = soak(get_spec(game), 60, num_envs=30, seed=5, check_every=40, options={'single_round': True})\n"
        "    assert not r.violations, r.violations\n"
        "    print(r.summary())\n"
        "from cardenvs.core import prebuilt\n"
        "print('prebuilt loads:', prebuilt.loads)\n"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=cache, CARDENVS_PREBUILT="0")
        proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=1500)
        compiled = list(Path(cache).rglob("*.nbi"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("0 violation(s)") == 2
    assert "prebuilt loads: 0" in proc.stdout and compiled
