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
from cardenvs.integrations.rllib import (  # noqa: E402
    MultiAgentCardEnv,
    action_masking_ppo_config,
    greedy_actions,
    win_share_against,
)


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
        module = algo.get_module("shared")
        measured = win_share_against(module, "president", "random", matches=40, num_players=4)
        algo.stop()
        assert result["env_runners"]["num_env_steps_sampled"] >= 400
        assert measured.finished == 40 and measured.low <= measured.share <= measured.high
    finally:
        ray.shutdown()


class _PreferHighest:
    """A stand-in for an RLlib module: prefers the highest action index, masks applied by
    the caller."""

    def forward_inference(self, batch):
        import torch

        obs = batch["obs"]["observations"]
        return {"action_dist_inputs": torch.arange(batch["obs"]["action_mask"].shape[1], dtype=torch.float32)
                .repeat(obs.shape[0], 1)}


def test_greedy_actions_keep_to_the_mask_and_win_share_is_measured_against_fixed_players():
    masks = np.array([[True, False, True, False], [False, True, False, False]])
    assert greedy_actions(_PreferHighest(), np.zeros((2, 5), np.float32), masks).tolist() == [2, 1]
    measured = win_share_against(_PreferHighest(), "odin", "random", matches=30, seed=4, num_players=3)
    again = win_share_against(_PreferHighest(), "odin", "random", matches=30, seed=4, num_players=3)
    assert measured == again and measured.finished == 30 and measured.truncated == 0
    assert 0.0 <= measured.low <= measured.share <= measured.high <= 1.0
    # a cap reached: those matches are left out and counted
    cut = win_share_against(_PreferHighest(), "odin", "random", matches=6, seed=4, num_players=3, max_steps=3)
    assert cut.truncated == 6 and cut.finished == 0
    for bad, error in ((0, ValueError), (2.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match="matches"):
            win_share_against(_PreferHighest(), "odin", matches=bad)
    # the env config a module was trained on, as RLlib holds it
    assert win_share_against(_PreferHighest(), {"game": "odin", "num_players": 3}, matches=30, seed=4) == measured
    with pytest.raises(ValueError, match="needs a game"):
        win_share_against(_PreferHighest(), {"num_players": 3})
    with pytest.raises(TypeError, match="scale_observations"):
        win_share_against(_PreferHighest(), "odin", scale_observations="false")
