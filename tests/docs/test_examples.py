"""The tutorials' scripts (examples/) run in their short mode and assert what their pages
promise: each script's own asserts (a trained agent's margin over random play, the
arrays' shapes, ...) fail it, and this test reports its output.

A script that needs an extra that is not installed (RLlib) is skipped, naming it."""

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
# script -> the modules it needs beyond the package's own dependencies
NEEDS = {
    "random_aec.py": (),
    "vector_sampler.py": (),
    "sb3_maskable_ppo.py": ("torch", "sb3_contrib"),
    "cleanrl_loop.py": ("torch",),
    "self_play.py": ("torch",),
    "evaluate_agents.py": (),
    "ray_rollouts.py": ("ray",),
    "rllib_ppo.py": ("torch", "ray.rllib.algorithms.ppo"),  # ray ships its code, ray[rllib] its dependencies
}
TIMEOUT = 300  # seconds; the scripts take 1-40 s on a 2-core machine with the kernels cached


def _missing(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:  # not installed, or installed without its dependencies
        return True
    return False


def test_every_example_is_listed():
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(NEEDS)


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(NEEDS))
def test_example_runs_short(script):
    missing = [m for m in NEEDS[script] if _missing(m)]
    if missing:
        pytest.skip(f"{script} needs {', '.join(missing)}, not installed (see the script's page)")
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    proc = subprocess.run([sys.executable, str(EXAMPLES / script), "--short"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 0, f"{script} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
