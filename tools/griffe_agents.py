"""A griffe extension for the API reference (mkdocstrings, mkdocs.yml).

- The agents live in the repository's top-level ``agents/`` folder and install as
  ``cardenvs.agents`` (``package-dir`` in pyproject.toml), a mapping griffe does not read:
  this loads ``agents/`` and attaches it to ``cardenvs``.
- Docstrings name objects with reST roles (``:class:`X```), which Markdown shows as they
  are: they are shown as code instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import griffe

ROOT = Path(__file__).resolve().parents[1]
ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):`~?([^`]+)`")


class AgentsPackage(griffe.Extension):
    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs) -> None:
        if pkg.name != "cardenvs" or "agents" in pkg.members:
            return
        agents = griffe.load(
            "agents", search_paths=[str(ROOT)], docstring_parser=loader.docstring_parser,
            docstring_options=loader.docstring_options,
        )
        pkg.set_member("agents", agents)

    def on_object(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(r"``\1``", obj.docstring.value)
