"""Every package of the source tree ships: pyproject.toml lists the packages by hand
(``cardenvs.agents`` lives in the repository's top-level ``agents/`` folder), so a new
game folder missing from that list would work in a checkout and be absent from a wheel."""

from __future__ import annotations

from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = REPO / "pyproject.toml"


def _source_packages() -> set[str]:
    found = set()
    for root, dotted in ((REPO / "cardenvs", "cardenvs"), (REPO / "agents", "cardenvs.agents")):
        for init in root.rglob("__init__.py"):
            rel = init.parent.relative_to(root).parts
            found.add(".".join((dotted, *rel)))
    return found


@pytest.mark.skipif(not PYPROJECT.is_file(), reason="needs the repository's pyproject.toml")
def test_every_package_folder_is_listed_in_pyproject():
    listed = set(tomllib.loads(PYPROJECT.read_text())["tool"]["setuptools"]["packages"])
    missing = sorted(_source_packages() - listed)
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {missing}"
