"""Sampling on workers (cardenvs.agents.training.distributed) without Ray: seeds, worker state, the trainer's
workers in this process. The same workers on Ray are tested in test_ray.py."""

from __future__ import annotations

import io

import numpy as np
import pytest

from cardenvs import get_spec
from cardenvs.agents.training.distributed import RolloutWorkers, rollouts, sample_policy, split_matches, worker_seeds
from cardenvs.agents.training.selfplay import seat_advantages


def assert_same_arrays(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def test_worker_seeds_are_distinct_and_follow_the_run_seed():
    assert worker_seeds(7, 4) == worker_seeds(7, 4)
    assert len(set(worker_seeds(7, 4))) == 4
    assert worker_seeds(7, 4) != worker_seeds(8, 4)
    assert worker_seeds(7, 2, stream=(2, 0)) != worker_seeds(7, 2, stream=(2, 5))
    assert all(0 <= s < 2**62 for s in worker_seeds(2**64 - 1, 3))
    assert split_matches(10, 3) == [4, 3, 3]
    with pytest.raises(ValueError, match="at least the number of workers"):
        split_matches(2, 3)
    with pytest.raises(ValueError, match="positive integer"):
        worker_seeds(0, 0)


def test_rollouts_replay_and_hold_every_seat_of_self_play():
    a = rollouts("president", "random", workers=2, decisions=1000, num_envs=8, seed=3, ray=False)
    b = rollouts("president", "random", workers=2, decisions=1000, num_envs=8, seed=3, ray=False)
    assert_same_arrays(a, b)
    T, M = a["action"].shape
    assert M == 16 and T * M >= 1000
    assert a["observation"].shape == (T, M, get_spec("president").module.OBS_SIZE)
    assert a["last_observation"].shape == (M, 4, a["observation"].shape[2])
    legal = np.take_along_axis(a["action_mask"], a["action"][..., None], axis=2)[..., 0]
    assert legal.all()  # every action taken was legal for the player to move
    assert set(np.unique(a["player"])) == {0, 1, 2, 3}
    assert np.allclose(a["reward"].sum(axis=2), 0.0)  # the games are zero-sum
    other = rollouts("president", "random", workers=2, decisions=1000, num_envs=8, seed=4, ray=False)
    assert not np.array_equal(a["action"], other["action"])
    # the arrays are what seat_advantages takes
    values = np.zeros((T, M), np.float32)
    adv, ret = seat_advantages(a["reward"], values, a["player"].astype(np.int64), a["terminated"] | a["truncated"],
                               np.zeros((M, 4), np.float32), 0.99, 0.95)
    assert adv.shape == (T, M) and np.isfinite(ret).all()


def test_a_worker_restored_from_its_state_returns_the_same_round():
    from cardenvs.agents.ppo import PolicyNetwork, baseline_path

    policy = PolicyNetwork.load(baseline_path(get_spec("president")))
    for choice in ("random", policy):
        pool = RolloutWorkers("president", workers=1, num_envs=8, seed=1, ray=False)
        worker = pool.pool.local[0]
        pool.sample(choice, 80)
        blob = worker.get_state()
        first = pool.sample(choice, 80)
        worker.set_state(blob)
        assert_same_arrays(first, pool.sample(choice, 80))


def test_sampled_policy_log_probabilities_are_those_of_the_masked_softmax():
    from cardenvs.agents.ppo import PolicyNetwork, baseline_path

    policy = PolicyNetwork.load(baseline_path(get_spec("president")))
    out = rollouts("president", policy, workers=1, decisions=64, num_envs=16, ray=False)
    obs, mask, act = out["observation"][0], out["action_mask"][0], out["action"][0]
    logits = policy.logits(obs).astype(np.float64)
    logits[~mask] = -np.inf
    expected = logits[np.arange(16), act] - np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(1)) \
        - logits.max(1)
    np.testing.assert_allclose(out["log_prob"][0], expected, rtol=1e-5, atol=1e-6)
    actions, logp = sample_policy(policy, obs, np.zeros_like(mask), np.random.default_rng(0))
    assert (actions == -1).all() and (logp == 0).all()  # no legal action: -1


def test_a_callable_policy_runs_in_the_workers():
    def first_legal(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return masks.argmax(axis=1)

    out = rollouts("odin", first_legal, workers=2, decisions=200, num_envs=4, ray=False)
    np.testing.assert_array_equal(out["action"], out["action_mask"].argmax(axis=2))
    with pytest.raises(TypeError, match="policy must be"):
        rollouts("odin", 3, workers=1, decisions=10, num_envs=2, ray=False)


@pytest.mark.slow
def test_trainer_with_workers_in_this_process_replays_and_differs_from_one_process(tmp_path):
    pytest.importorskip("torch")
    from cardenvs.agents.ppo import PolicyNetwork
    from cardenvs.agents.training.trainer import TrainConfig, Trainer

    def run(name: str, **kw) -> tuple[dict, list[np.ndarray]]:
        cfg = TrainConfig(game="president", single_round=True, decisions=1200, minutes=None, out=str(tmp_path / name),
                          num_envs=16, rollout_steps=16, minibatch=256, hidden=(32, 32), eval_matches=8,
                          eval_every_minutes=100.0, snapshot_every=2, torch_threads=1, seed=3, **kw)
        result = Trainer(cfg, out=io.StringIO(), err=io.StringIO()).train()
        return result, PolicyNetwork.load(tmp_path / name / "policy.npz").weights

    first, w1 = run("a", workers=2)
    second, w2 = run("b", workers=2)
    assert first["decisions"] == second["decisions"] >= 1200
    for x, y in zip(w1, w2, strict=True):
        np.testing.assert_array_equal(x, y)
    _, single = run("c")
    assert not all(np.array_equal(x, y) for x, y in zip(w1, single, strict=True))
    with pytest.raises(ValueError, match="workers must be a positive integer"):
        Trainer(TrainConfig(game="president", workers=0, out=str(tmp_path / "bad")))
    with pytest.raises(ValueError, match="at least workers"):
        Trainer(TrainConfig(game="president", workers=4, num_envs=2, out=str(tmp_path / "bad")))


class _FirstLegal:
    """A picklable policy: the first legal action of every row; at call ``fail_at`` an
    illegal one in row 0."""

    def __init__(self, fail_at: int | None = None):
        self.calls, self.fail_at = 0, fail_at

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        self.calls += 1
        out = masks.argmax(axis=1).astype(np.int64)
        if self.calls == self.fail_at:
            out[0] = int(np.flatnonzero(~masks[0])[0])
        return out


def test_a_refused_step_mid_round_leaves_the_workers_as_before_the_round():
    workers = RolloutWorkers("president", workers=2, num_envs=4, seed=5, ray=False)
    twin = RolloutWorkers("president", workers=2, num_envs=4, seed=5, ray=False)
    with pytest.raises(ValueError, match="illegal action"):
        workers.sample(_FirstLegal(fail_at=3), decisions=80)  # 10 steps a worker, refused at the third
    assert_same_arrays(workers.sample(_FirstLegal(), decisions=80), twin.sample(_FirstLegal(), decisions=80))
    with pytest.raises(TypeError, match="policy's actions"):
        workers.sample(lambda obs, masks: masks.argmax(axis=1) + 0.5, decisions=8)
