"""Runs the property-based fuzz suite (tests/core/fuzz_cases.py) in a subprocess: a crash of the
interpreter there fails this test instead of ending the whole test run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")


@pytest.mark.slow
def test_the_fuzz_suite_passes_without_crashing():
    cases = Path(__file__).with_name("fuzz_cases.py")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(cases)],
        capture_output=True, text=True, timeout=1800, cwd=cases.parents[2],
    )
    assert proc.returncode == 0, f"exit code {proc.returncode}\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
    assert " passed" in proc.stdout and "failed" not in proc.stdout
