"""``benchmarks/baselines.py install``: a card-scorer run goes to the shipped file of its
episode (single rounds or whole matches), with its record beside it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardenvs.agents import rami51_scorer
from cardenvs.agents.rami51_scorer import SHIPPED, SHIPPED_MATCHES, ScorerNetwork
from tests.benchmarks import load_benchmark


@pytest.fixture(scope="module")
def baselines():
    return load_benchmark("baselines")


def _run_folder(folder: Path, scorer: Path, kept: int | None) -> Path:
    folder.mkdir()
    net = ScorerNetwork.load(scorer)  # as a run on the game's current version writes it
    ScorerNetwork({**net.meta, "env_id": "rami51_v3"}, net.mean, net.std, net.weights).save(folder / "scorer.npz")
    (folder / "config.json").write_text(json.dumps({"game": "rami51_v3", "out": "/somewhere/else"}))
    (folder / "eval.csv").write_text("matches,vs_heuristic\n8,0.5\n")
    if kept is not None:
        (folder / "summary.json").write_text(json.dumps({"kept_iteration": kept}))
    return folder


@pytest.mark.parametrize("source, kept", [(SHIPPED_MATCHES, 4), (SHIPPED, None)])
def test_install_puts_a_scorer_in_its_episodes_file(baselines, tmp_path, monkeypatch, source, kept):
    targets = {SHIPPED: tmp_path / "rami51-scorer.npz", SHIPPED_MATCHES: tmp_path / "rami51-scorer-matches.npz"}
    monkeypatch.setattr(rami51_scorer, "SHIPPED", targets[SHIPPED])  # the package's own files stay as they are
    monkeypatch.setattr(rami51_scorer, "SHIPPED_MATCHES", targets[SHIPPED_MATCHES])
    baselines.install("rami51", _run_folder(tmp_path / "run", source, kept))
    target = targets[source]
    other = targets[SHIPPED_MATCHES if source == SHIPPED else SHIPPED]
    assert target.read_bytes() == (tmp_path / "run" / "scorer.npz").read_bytes() and not other.exists()
    assert ScorerNetwork.load(target).meta["options"] == ScorerNetwork.load(source).meta["options"]
    record = json.loads(target.with_suffix(".json").read_text())
    assert record["env_id"] == "rami51_v3" and "out" not in record["train_config"]  # no path of the run's machine
    assert record.get("kept_iteration") == kept
