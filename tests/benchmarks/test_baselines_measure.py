"""``benchmarks/baselines.py measure``: each shipped baseline played against heuristic and
random players, the results merged into the file of earlier measurements, and the table."""

from __future__ import annotations

import json

import pytest

from tests.benchmarks import load_benchmark


@pytest.fixture(scope="module")
def baselines():
    return load_benchmark("baselines")


@pytest.mark.slow  # whole matches, Rami 51's among them: the long tier
def test_measure_merges_each_baseline_into_the_results(baselines, tmp_path, monkeypatch):
    monkeypatch.setattr(baselines, "RESULTS", tmp_path)  # the repository's results stay as they are
    earlier = {"odin": {"env_id": "odin_v1", "players": 4, "options": {}, "train_minutes": 60, "method": "search",
                        "vs_heuristic": {"win_share": 0.35, "matches": 4000, "truncated": 0},
                        "vs_random": {"win_share": 1.0, "matches": 4000, "truncated": 0}},
               "president": {"env_id": "president_v0", "players": 4, "options": {}, "train_minutes": 1,
                             "vs_heuristic": {"win_share": 0.0, "matches": 1, "truncated": 0},
                             "vs_random": {"win_share": 0.0, "matches": 1, "truncated": 0}}}  # to be measured again
    (tmp_path / "baselines.json").write_text(json.dumps(earlier))
    results = baselines.measure(["president", "rami51-scorer-matches"], matches=4)
    assert set(results) == {"odin", "president", "rami51-scorer-matches", "rami51-scorer-matches-2p"}
    assert results["odin"] == earlier["odin"]  # kept as it was
    assert results["president"]["env_id"] == "president_v0" and results["president"]["train_minutes"] == 60
    for key, players in (("rami51-scorer-matches", 4), ("rami51-scorer-matches-2p", 2)):
        assert results[key]["players"] == results[key]["options"]["num_players"] == players
    for key in ("president", "rami51-scorer-matches", "rami51-scorer-matches-2p"):
        for name in ("heuristic", "random"):
            r = results[key][f"vs_{name}"]
            assert r["matches"] == 4 and 0.0 <= r["win_share"] <= 1.0 and r["truncated"] == 0
    assert json.loads((tmp_path / "baselines.json").read_text()) == results
    table = (tmp_path / "baselines.md").read_text().splitlines()
    assert len(table) == 2 + 4  # the header, its rule, a row per measurement
    assert table[2].startswith("| odin_v1 | 4 | match | 60 min (search) | 35.0% [")
    for players, fair in ((2, "50.0%"), (4, "25.0%")):
        assert sum(line.startswith(f"| rami51_v3 | {players} | match |") and line.endswith(f"| {fair} |")
                   for line in table) == 1
