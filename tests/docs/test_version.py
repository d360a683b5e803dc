"""`cardenvs --version`, the installed package's metadata, pyproject.toml and the newest
entry of CHANGELOG.md name the same version. (After a change of version in
pyproject.toml, reinstall: `pip install -e .` records the new one.)"""

import importlib.metadata
import io
import re
from pathlib import Path

import cardenvs
from cardenvs.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def _newest_changelog_version() -> str:
    for line in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            found = re.match(r"## (\d+\.\d+\.\d+\S*)", line)
            assert found, f"the newest CHANGELOG.md entry is {line!r}, not a version"
            return found.group(1)
    raise AssertionError("CHANGELOG.md has no entry")


def test_version_agrees_everywhere(capsys):
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    project = re.search(r'^version = "([^"]+)"$', pyproject, flags=re.M).group(1)
    installed = importlib.metadata.version("cardenvs")
    assert installed == project, f"installed {installed}, pyproject.toml {project}: reinstall (pip install -e .)"
    assert cardenvs.__version__ == installed
    assert _newest_changelog_version() == project
    try:
        main(["--version"], out=io.StringIO(), err=io.StringIO())
    except SystemExit as e:  # argparse's version action exits
        assert e.code == 0
    assert capsys.readouterr().out.strip() == f"cardenvs {project}"
