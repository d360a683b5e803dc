"""The training page's examples run as written (with a tiny budget)."""

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "training.md"
BLOCKS = re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S)


def _block(marker: str) -> str:
    found = [b for b in BLOCKS if marker in b]
    assert len(found) == 1, marker
    return found[0]


def test_single_agent_example_runs():
    exec(_block('gym.make("cardenvs/odin-v1"'), {})


def test_cleanrl_style_loop_runs():
    pytest.importorskip("torch")
    budget = "N, T, ITERATIONS = 64, 32, 50"
    code = _block(budget).replace(budget, "N, T, ITERATIONS = 8, 8, 2")
    exec(code, {})


@pytest.mark.slow
def test_sb3_examples_run():
    pytest.importorskip("sb3_contrib")
    first = _block('make_vec_env("cardenvs/president-v0", 8)').replace("20_000", "256")
    scope: dict = {}
    exec(first, scope)
    exec(_block("SB3VecEnv(").replace("20_000", "256"), scope)
