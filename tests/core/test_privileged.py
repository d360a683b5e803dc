"""The privileged view: every seat's observation of a position (all the hands), on the
vector env's state and from the AEC env, for training only; off by default and never in a
player's observation."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs

GAMES = ["president", "odin", "rami51", "frime", "classes"]


@pytest.mark.parametrize("game", GAMES)
def test_each_row_is_that_seats_view_and_the_movers_row_is_the_observation(game):
    venv = cardenvs.make_vec(game, num_envs=16, seed=5, privileged_observation=True)
    state = venv.reset()
    rng = np.random.default_rng(5)
    rows = np.arange(venv.num_envs)
    for _ in range(60):
        views = state.privileged_observation
        assert views.shape == (venv.num_envs, venv.num_players, venv.observation_size)
        np.testing.assert_array_equal(views[rows, state.current_player], state.observation)
        for p in range(venv.num_players):
            np.testing.assert_array_equal(views[:, p], venv.observe(p))
        state = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in state.legal_action_mask]))


def test_off_by_default_and_checked():
    venv = cardenvs.make_vec("odin", num_envs=2)
    state = venv.reset()
    assert state.privileged_observation is None
    assert venv.step(np.array([np.flatnonzero(m)[0] for m in state.legal_action_mask])).privileged_observation is None
    with pytest.raises(TypeError, match="privileged_observation"):
        cardenvs.make_vec("odin", num_envs=2, privileged_observation="yes")


@pytest.mark.parametrize("game", GAMES)
def test_the_aec_env_gives_the_same_views(game):
    env = cardenvs.make_raw(game)
    env.reset(seed=3)
    views = env.privileged_observation()
    for p, agent in enumerate(env.possible_agents):
        if agent == env.agent_selection:
            np.testing.assert_array_equal(views[p], env.observe(agent)["observation"])
    assert views.shape == (env.num_players, env.game.OBS_SIZE)
    # a player's observation stays its own: the dict holds no privileged key
    assert set(env.observe(env.agent_selection)) == {"observation", "action_mask"}
