"""The RLlib MultiAgentEnv: RLlib's own env checks pass for every game, and RLlib PPO with
its action-masking module trains an iteration on it (skipped without ray[rllib])."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason='the RLlib tests need RLlib: pip install "cardenvs[rllib]"')
pytest.importorskip("torch")

import ray  # noqa: E402
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

from cardenvs import list_games  # noqa: E402
from cardenvs.integrations.rllib import MultiAgentCardEnv, action_masking_ppo_config  # noqa: E402


@pytest.mark.parametrize("game", [spec.name for spec in list_games()])
def test_every_game_passes_rllib_checks_and_plays_by_its_masks(game):
    env = MultiAgentCardEnv({"game": game})
    # the checker skips everything when these are missing: make sure it really checks
    assert hasattr(env, "observation_space") and hasattr(env, "action_space") and env._agent_ids
    check_multiagent_environments(env)  # steps a random action, illegal ones included
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(300):
        ((agent, o),) = obs.items()
        assert set(o) == {"observations", "action_mask"} and o["action_mask"].dtype == np.float32
        assert env.observation_spaces[agent].contains(o)
        legal = np.flatnonzero(o["action_mask"])
        assert legal.size >= 2  # forced moves are played inside the step
        obs, rewards, terminated, truncated, _ = env.step({agent: int(rng.choice(legal))})
        for a, r in rewards.items():
            returns[a] += r
        if terminated["__all__"] or truncated["__all__"]:
            assert set(obs) == set(rewards) == set(terminated) - {"__all__"}
            obs, _ = env.reset()


def test_forced_moves_can_be_kept_and_raw_observations_asked_for():
    env = MultiAgentCardEnv({"game": "president", "auto_play_forced": False, "scale_observations": False})
    obs, _ = env.reset(seed=1)
    sizes = []
    for _ in range(200):
        ((agent, o),) = obs.items()
        legal = np.flatnonzero(o["action_mask"])
        sizes.append(legal.size)
        obs, _, terminated, truncated, _ = env.step({agent: int(legal[0])})
        if terminated["__all__"] or truncated["__all__"]:
            obs, _ = env.reset()
    assert 1 in sizes and max(o["observations"].max() for o in obs.values()) >= 1.0
    with pytest.raises(ValueError, match="needs a game"):
        MultiAgentCardEnv({})


def test_rllib_ppo_with_action_masking_trains_an_iteration():
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    try:
        config = action_masking_ppo_config("president", env_runners=2).training(
            train_batch_size_per_learner=400, minibatch_size=100, num_epochs=1)
        algo = config.build_algo()
        result = algo.train()
        algo.stop()
        assert result["env_runners"]["num_env_steps_sampled"] >= 400
    finally:
        ray.shutdown()
