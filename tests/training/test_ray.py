"""Rollouts and training on a local Ray instance started by the test (ray.init(num_cpus=2)):
the workers on Ray give the same arrays as in this process, and a worker that dies is
replaced and its round redone with the same result."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason='the Ray tests need ray: pip install -e ".[test]" (or "cardenvs[ray]")')

from cardenvs.agents.training.distributed import RolloutWorkers, rollouts  # noqa: E402

pytestmark = pytest.mark.slow  # a training or benchmark run: the long tier


@pytest.fixture(scope="module")
def ray_instance():
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    yield
    ray.shutdown()


def assert_same_arrays(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    """The trajectories exactly; a policy's log-probabilities to float32 rounding: numpy's
    BLAS may sum in another order in Ray's workers, which run one BLAS thread each."""
    assert a.keys() == b.keys()
    for key in a:
        if key == "log_prob":
            np.testing.assert_allclose(a[key], b[key], rtol=1e-4, atol=1e-7, err_msg=key)
        else:
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def test_two_ray_workers_equal_the_local_rollouts(ray_instance):
    from cardenvs import get_spec
    from cardenvs.agents.ppo import PolicyNetwork, baseline_path

    policy = PolicyNetwork.load(baseline_path(get_spec("president")))
    for choice in ("heuristic", policy):
        local = rollouts("president", choice, workers=2, decisions=3000, num_envs=32, seed=5, ray=False)
        remote = rollouts("president", choice, workers=2, decisions=3000, num_envs=32, seed=5, ray=True)
        assert_same_arrays(local, remote)


def test_the_scale_out_page_example_runs(ray_instance):
    page = (Path(__file__).resolve().parents[2] / "docs" / "scale-out.md").read_text()
    block = re.findall(r"```python\n(.*?)```", page, flags=re.S)[0]
    assert "rollouts(" in block
    exec(block.replace("100_000", "5_000").replace("65_536", "5_000"), {})


def _crash_once(marker: str):
    """A policy that kills its worker's process the first time it is called anywhere
    (a crash in the middle of a round), then plays the first legal action."""

    def policy(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL))  # one worker only, even at the same instant
        except FileExistsError:
            return masks.argmax(axis=1)
        os._exit(1)

    return policy


def test_a_killed_worker_is_replaced_and_its_round_redone(ray_instance, tmp_path):
    (tmp_path / "x").touch()  # in this process the policy must not crash
    with RolloutWorkers("president", workers=2, num_envs=16, seed=9, ray=False) as pool:
        expected = [pool.sample("random", 500) for _ in range(3)] + [pool.sample(_crash_once(str(tmp_path / "x")), 300)]
    with RolloutWorkers("president", workers=2, num_envs=16, seed=9, ray=True) as pool:
        got = [pool.sample("random", 500)]
        ray.kill(pool.pool.actors[0])  # between rounds: the next round finds it dead
        got.append(pool.sample("random", 500))
        assert pool.pool.replacements == 1
        refs_before = list(pool.pool.actors)
        got.append(pool.sample("random", 500))
        got.append(pool.sample(_crash_once(str(tmp_path / "y")), 300))  # a worker dies inside the round
        assert pool.pool.replacements == 2 and pool.pool.actors != refs_before
    for a, b in zip(expected, got, strict=True):
        assert_same_arrays(a, b)


def test_training_on_two_ray_workers_replays_the_in_process_workers(ray_instance, tmp_path):
    pytest.importorskip("torch")
    from cardenvs.agents.ppo import PolicyNetwork
    from cardenvs.cli.main import main

    weights = []
    for name, extra in (("local", []), ("ray", ["--ray"])):
        folder = tmp_path / name
        err = io.StringIO()
        code = main(["train", "ppo", "president", "--decisions", "1500", "--single-round", "--num-envs", "16",
                     "--eval-matches", "4", "--out", str(folder), "--threads", "1", "--workers", "2", *extra],
                    io.StringIO(), err)
        assert code == 0, err.getvalue()
        assert (folder / "checkpoint.pt").is_file()
        weights.append(PolicyNetwork.load(folder / "policy.npz").weights)
    for x, y in zip(*weights, strict=True):
        np.testing.assert_array_equal(x, y)
