"""MkDocs hooks for the documentation site (mkdocs.yml names this file under ``hooks``).

- The pages link to a few files outside ``docs/``: the benchmark results in
  ``benchmarks/results/`` (tables and the anchors' plot). Those links are right in the
  repository, so the pages keep them; the site publishes the files under the same path
  (``benchmarks/results/...``) and each such link is rewritten to point there. A link that
  leaves ``docs/`` for any other file is left alone, so the strict build reports it.
- A page whose text is ``<!-- include: PATH -->`` (a path from the repository root, such as
  ``CHANGELOG.md``) shows that file, its relative links rebased onto the page.
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = ("benchmarks/results",)  # folders outside docs/ whose .md and .png the site carries
SUFFIXES = (".md", ".png")
LINK = re.compile(r"(\]\()([^)\s#]+)([^)]*\))")
INCLUDE = re.compile(r"^<!-- include: (\S+) -->\s*$")


def _published() -> list[str]:
    return sorted(
        f"{folder}/{name}"
        for folder in PUBLISHED
        for name in os.listdir(ROOT / folder)
        if name.endswith(SUFFIXES)
    )


def on_files(files: Files, config) -> Files:
    for rel in _published():
        files.append(File(rel, src_dir=str(ROOT), dest_dir=config["site_dir"],
                          use_directory_urls=config["use_directory_urls"]))
    return files


def _rebase(markdown: str, source_dir: str, page_dir: str) -> str:
    """Links of a repository file in ``source_dir`` (from the root) rebased onto a page of
    ``docs/`` in ``page_dir``."""

    def rewrite(m: re.Match) -> str:
        target = m.group(2)
        if "://" in target or target.startswith(("/", "mailto:")):
            return m.group(0)
        in_repo = posixpath.normpath(posixpath.join(source_dir, target))
        if not in_repo.startswith("docs/"):
            return m.group(0)
        return m.group(1) + posixpath.relpath(in_repo, posixpath.join("docs", page_dir)) + m.group(3)

    return LINK.sub(rewrite, markdown)


def on_page_markdown(markdown: str, page, config, files: Files) -> str:
    published = set(_published())
    page_dir = posixpath.dirname(page.file.src_uri)  # relative to docs/
    include = INCLUDE.match(markdown.strip())
    if include:
        path = include.group(1)
        markdown = _rebase((ROOT / path).read_text(encoding="utf-8"), posixpath.dirname(path), page_dir)

    def rewrite(m: re.Match) -> str:
        target = m.group(2)
        if "://" in target or target.startswith(("/", "mailto:")):
            return m.group(0)
        in_repo = posixpath.normpath(posixpath.join("docs", page_dir, target))
        if in_repo not in published:
            return m.group(0)
        return m.group(1) + posixpath.relpath(in_repo, page_dir or ".") + m.group(3)

    return LINK.sub(rewrite, markdown)
