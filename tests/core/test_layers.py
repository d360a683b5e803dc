"""The imports run one way (docs/architecture.md): import-linter checks the contracts of
pyproject.toml (``[tool.importlinter]``) over the package as it is installed.

In a checkout, ``cardenvs.agents`` lives in the repository's top-level ``agents/`` folder
and is mapped into the package by the install; import-linter reads files, not the import
system, so the test lays the package out as a wheel does (a copy, with ``agents`` inside)
and runs import-linter there."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cardenvs
import cardenvs.agents

pytest.importorskip("importlinter")

CONFIG = Path(__file__).resolve().parents[2] / "pyproject.toml"


def _wheel_layout(tmp_path: Path) -> Path:
    skip = shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc", "baselines", "pages", "prebuilt")
    package = Path(cardenvs.__file__).resolve().parent
    shutil.copytree(package, tmp_path / "cardenvs", ignore=skip)
    agents = Path(cardenvs.agents.__file__).resolve().parent
    if not (tmp_path / "cardenvs" / "agents").exists():
        shutil.copytree(agents, tmp_path / "cardenvs" / "agents", ignore=skip)
    return tmp_path


def _lint(root: Path) -> subprocess.CompletedProcess:
    code = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(config_filename=sys.argv[1]))"
    return subprocess.run([sys.executable, "-c", code, str(CONFIG)], cwd=root, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.skipif(not CONFIG.is_file(), reason="needs the repository's pyproject.toml")
def test_the_import_contracts_are_kept(tmp_path):
    result = _lint(_wheel_layout(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 3 kept, 0 broken." in result.stdout


@pytest.mark.skipif(not CONFIG.is_file(), reason="needs the repository's pyproject.toml")
def test_an_import_against_the_layers_is_caught(tmp_path):
    """The check can fail: the core importing a game breaks the layers."""
    root = _wheel_layout(tmp_path)
    bits = root / "cardenvs" / "core" / "bits.py"
    bits.write_text(bits.read_text() + "\nimport cardenvs.games.odin  # noqa\n")
    result = _lint(root)
    assert result.returncode != 0
    assert "BROKEN" in result.stdout and "cardenvs.core.bits -> cardenvs.games.odin" in result.stdout
