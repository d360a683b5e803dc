"""Smoke test of benchmarks/anchors.py: the cardenvs part in quick mode, and missing anchors
reported rather than crashing. No network and no anchor package needed."""

import json
import os
import sys

import pytest

import cardenvs
from tests.benchmarks import load_benchmark

pytestmark = pytest.mark.slow  # a training or benchmark run: the long tier
PINNABLE = hasattr(os, "sched_getaffinity")  # --cpu (Linux)



@pytest.fixture(scope="module")
def anchors():
    return load_benchmark("anchors")


def _check_stat(stat, rounds):
    assert set(stat) >= {"median", "min", "max", "rounds"}
    assert len(stat["rounds"]) == rounds
    assert 0 < stat["min"] <= stat["median"] <= stat["max"]


def test_cardenvs_quick_run_and_missing_anchors(anchors, tmp_path):
    game = cardenvs.list_games()[0]
    # --threads 1: no parallel kernel to compile on a cold cache; --anchor-python: this
    # interpreter, which has pettingzoo 1.27 (no gin_rummy_v4) and no rlcard; --cpu (Linux):
    # the timed children on one CPU, the highest this process may use
    cpu = max(os.sched_getaffinity(0)) if PINNABLE else None
    report = anchors.main([
        "--only", "cardenvs", "pettingzoo", "rlcard", "--quick", "--games", game.name, "--threads", "1",
        "--seconds", "0.02", "--memory-envs", "256", "--anchor-python", sys.executable,
        "--out", str(tmp_path), "-q", *(["--cpu", str(cpu)] if PINNABLE else []),
    ])
    on_disk = json.loads((tmp_path / "anchors.json").read_text())
    assert on_disk["settings"] == report["settings"]
    assert report["settings"]["rounds"] >= 3
    assert report["settings"]["cpu"] == cpu
    for key in ("machine", "git", "main_versions", "contenders", "targets", "memory", "compile"):
        assert key in on_disk
    assert on_disk["machine"]["logical_cpus"] >= 1
    assert on_disk["main_versions"]["cardenvs"] == cardenvs.__version__

    res = on_disk["contenders"][f"cardenvs:{game.name}"]
    assert res["status"] == "ok", res
    assert set(res["metrics"]) == {"aec", "vec:1:1", "vec:64:1"}
    for m in res["metrics"].values():
        _check_stat(m["decisions_per_s"], 3)
        _check_stat(m["games_per_s"], 3)
        assert m["vs_anchor"] is None  # OpenSpiel not run
    assert res["decisions_per_game"] > 0
    if PINNABLE:  # each round's process ran where --cpu put it
        assert [o["cpus"] for o in res["raw"]] == [[cpu]] * 3
    assert res["versions"]["numba"]

    for cid in ("pettingzoo:gin_rummy_v4", "rlcard:gin-rummy", "rlcard:doudizhu"):
        anchor = on_disk["contenders"][cid]
        assert anchor["status"] in ("missing", "ok"), anchor  # ok only where someone installed them here
        if anchor["status"] == "missing":
            assert anchor["reason"]
    assert on_disk["contenders"]["pettingzoo:gin_rummy_v4"]["status"] == "missing"

    mem = on_disk["memory"][game.name]
    assert mem["ok"] and mem["num_envs"] == 256 and mem["peak_rss"] >= mem["baseline_rss"] > 0

    targets = {t["target"]: t for t in on_disk["targets"]}
    aec_pz = [t for name, t in targets.items() if "AEC" in name and "PettingZoo" in name]
    assert aec_pz and all(t["status"] == "n/a" for t in aec_pz)
    assert all(t["status"] in ("PASS", "FAIL", "n/a") for t in targets.values())

    md = (tmp_path / "anchors.md").read_text()
    assert "## Throughput" in md and "| contender | mode | decisions/s |" in md
    assert f"cardenvs {game.env_id}" in md
    assert "## Missing or not run" in md and "PettingZoo gin_rummy_v4" in md and "openspiel" in md
    assert "## Targets" in md and "## Memory" in md and "## Versions" in md
    assert (f"ran on CPU {cpu} alone" in md) == PINNABLE
    # the plot is written, or the reason it is not (matplotlib is an optional extra)
    assert (tmp_path / "anchors.png").exists() or "matplotlib" in report["plot"]


def test_anchor_venv_absent_is_reported(anchors, tmp_path):
    report = anchors.main([
        "--only", "pettingzoo", "rlcard", "--quick", "--no-memory", "--no-plot", "-q",
        "--anchor-python", str(tmp_path / "no-such-venv" / "bin" / "python"), "--out", str(tmp_path),
    ])
    for cid in ("pettingzoo:gin_rummy_v4", "rlcard:gin-rummy", "rlcard:doudizhu"):
        res = report["contenders"][cid]
        assert res["status"] == "missing"
        assert "no-such-venv" in res["reason"]
    md = (tmp_path / "anchors.md").read_text()
    assert "RLCard doudizhu" in md and "no-such-venv" in md
    assert report["targets"] == []


@pytest.mark.skipif(not PINNABLE, reason="--cpu needs os.sched_setaffinity (Linux)")
def test_cpu_is_refused_with_threads_and_outside_the_allowed_cpus(anchors, tmp_path, capsys):
    base = ["--only", "cardenvs", "--quick", "--no-memory", "--no-plot", "-q", "--out", str(tmp_path)]
    cpu = min(os.sched_getaffinity(0))
    with pytest.raises(SystemExit):
        anchors.main(base + ["--cpu", str(cpu), "--threads", "2"])
    assert "--threads 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        anchors.main(base + ["--cpu", "100000", "--threads", "1"])
    assert "not a CPU this process may use" in capsys.readouterr().err
    assert not (tmp_path / "anchors.json").exists()
