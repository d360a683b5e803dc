"""The AEC env and the vector env run the same kernels: same seeds and actions give
identical observations, masks, rewards and terminations, game after game."""

import numpy as np
import pytest

import cardenvs

# (game, options, games to play): short single-round games for volume, full matches for
# what happens between rounds (president's exchange, odin's next leader)
CASES = [
    ("president_v0", {"num_players": 4, "single_round": True}, 700),
    ("president_v0", {"num_players": 9, "single_round": True}, 250),
    ("president_v0", {"num_players": 5}, 60),
    ("odin_v0", {"num_players": 4, "single_round": True}, 300),
    ("odin_v0", {"num_players": 2}, 60),
    ("odin_v0", {"num_players": 6, "reward_mode": "round"}, 50),
    # rami51: no turn cap, so that every episode terminates (a truncation would desync the
    # AEC env, which this test resets only on termination); low elimination score for whole matches
    ("rami51_v0", {"num_players": 4, "single_round": True, "max_turns_per_round": 0}, 100),
    ("rami51_v0", {"num_players": 3, "elimination_score": 60, "max_turns_per_round": 0, "reward_mode": "round"}, 15),
]


@pytest.mark.parametrize("name,options,games", CASES)
def test_aec_and_vector_lockstep(name, options, games):
    n = 50
    seeds = np.arange(1000, 1000 + n)
    venv = cardenvs.make_vec(name, num_envs=n, **options)
    state = venv.reset(seeds=seeds)
    envs = [cardenvs.make_raw(name, **options) for _ in range(n)]
    for env, seed in zip(envs, seeds, strict=True):
        env.reset(seed=int(seed))
    rng = np.random.default_rng(0)
    finished = 0
    steps = 0
    while finished < games:
        actions = np.empty(n, dtype=np.int64)
        for i, env in enumerate(envs):
            agent = env.agent_selection
            obs = env.observe(agent)
            assert agent == f"player_{state.current_player[i]}"
            assert np.array_equal(obs["action_mask"], state.legal_action_mask[i]), (i, steps)
            assert np.array_equal(obs["observation"], state.observation[i]), (i, steps)
            legal = np.flatnonzero(obs["action_mask"])
            actions[i] = legal[int(rng.integers(len(legal)))]
        state = venv.step(actions)
        steps += 1
        for i, env in enumerate(envs):
            env.step(int(actions[i]))
            assert [env.rewards[a] for a in env.possible_agents] == state.rewards[i].tolist(), (i, steps)
            done = all(env.terminations.values())
            assert done == bool(state.terminated[i])
            if done:
                finished += 1
                env.reset()  # no seed: the game's own random stream continues, as auto-reset does
    assert steps > 0
