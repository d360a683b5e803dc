"""The batch driver is written once (cardenvs/core/step_driver.py) and generated into each
game's driver.py from the hooks of its rules.py: the committed files must be what the
template and the hooks give now. Nothing here compiles a kernel."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cardenvs.core import step_driver

REPO = step_driver.PACKAGE_DIR.parent


@pytest.mark.parametrize("game_dir", step_driver.game_dirs(), ids=lambda d: d.name)
def test_generated_driver_is_up_to_date(game_dir):
    path = game_dir / "driver.py"
    assert path.is_file(), f"{path} is missing: run `{step_driver.COMMAND}`"
    expected = step_driver.render(step_driver.read_game(game_dir))
    assert path.read_text() == expected, f"{path.relative_to(REPO)} is stale: run `{step_driver.COMMAND}`"


def test_every_game_has_a_driver():
    names = {d.name for d in step_driver.game_dirs()}
    assert {"president", "odin", "rami51", "frime", "classes"} <= names


def test_the_game_packages_export_the_generated_drivers():
    import cardenvs.games  # noqa: F401  (registers every game)
    from cardenvs.core.registry import list_games

    for spec in list_games():
        for name in ("step_batch", "step_batch_parallel", "observe_batch"):
            kernel = getattr(spec.module, name)
            assert kernel.py_func.__module__ == f"{spec.module.__name__}.driver", (spec.name, name)
        for name in ("reset_batch", "refresh_batch"):
            assert getattr(spec.module, name).__module__ == "cardenvs.core.step", (spec.name, name)


def test_check_command_runs_without_importing_cardenvs(tmp_path):
    # the generator must work while a driver is missing or broken (cardenvs would not import):
    # run as a script it imports nothing of the package
    done = subprocess.run([sys.executable, "-X", "importtime", str(REPO / "cardenvs/core/step_driver.py"), "--check"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert " cardenvs" not in done.stderr and "numba" not in done.stderr


def _rules(tmp_path: Path, body: str) -> Path:
    game = tmp_path / "toy"
    game.mkdir(parents=True)
    (game / "rules.py").write_text(body)
    return game


TOY = """
def new_match(s): pass
def recount(s): pass
def apply_action(s, a): return False
def penalise(s, offender): pass
def legal_mask(s): pass
def observe(s, viewer, out): pass
start_match = new_match
refresh = recount
apply_legal_action = apply_action
"""


def test_hooks_are_read_from_the_source(tmp_path):
    game = step_driver.read_game(_rules(tmp_path, TOY))
    assert game.hooks["start_match"] == ("s",) and game.hooks["apply_legal_action"] == ("s", "a")
    text = step_driver.render(game)
    compile(text, "driver.py", "exec")
    assert "start_match(s)" in text and "only_legal(s.legal, NUM_ACTIONS)" in text
    assert "prefetch_read" not in text and "borrowed" not in text and "ACT_MASK" not in text


def test_a_missing_or_odd_hook_is_refused(tmp_path):
    with pytest.raises(step_driver.HookError, match="needs the hook refresh"):
        step_driver.read_game(_rules(tmp_path, TOY.replace("refresh = recount\n", "")))
    with pytest.raises(step_driver.HookError, match="has no 'p'"):
        step_driver.read_game(_rules(tmp_path / "b", TOY.replace("def legal_mask(s)", "def legal_mask(s, p)")))
    with pytest.raises(step_driver.HookError, match="no new_workspace"):
        step_driver.read_game(_rules(tmp_path / "c", TOY.replace("def legal_mask(s)", "def legal_mask(s, ws)")))
    with pytest.raises(step_driver.HookError, match="unknown 'fast'"):
        step_driver.read_game(_rules(tmp_path / "d", TOY + "DRIVER_OPTIONS = ('fast',)\n"))
