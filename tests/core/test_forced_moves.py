"""auto_play_forced: the env plays every decision with a single legal action inside the
compiled step. The trajectory is exactly the one obtained by playing those moves by hand;
the AEC env and the vector env agree; final observations are the ended matches' views."""

import numpy as np
import pytest
from pettingzoo.test import api_test

import cardenvs
from cardenvs.core.vector import RandomSampler

CASES = [
    ("president_v0", {"num_players": 5}),
    ("president_v0", {"num_players": 4, "single_round": True, "reward_mode": "round"}),
    ("odin_v1", {"num_players": 4}),
    ("odin_v1", {"num_players": 3, "reward_mode": "round", "single_round": True}),
    ("rami51_v3", {"num_players": 3, "elimination_score": 80}),
    ("rami51_v3", {"num_players": 2, "max_steps": 150}),  # truncation by max_steps amid forced moves
]


def _play_forced_by_hand(env, returns):
    """Play the forced moves of the plain AEC env ``env``, adding the rewards to
    ``returns``; a match that ends is restarted (its random stream continued, as
    auto-reset does) and played on. Returns (forced moves, the match ended, a round ended)."""
    forced, ended, round_ended = 0, False, False
    while True:
        if all(env.terminations.values()) or all(env.truncations.values()):
            ended = True
            env.reset()
            continue
        legal = env.legal_actions()
        if len(legal) != 1:
            return forced, ended, round_ended
        before = env.infos[env.agent_selection]["round"]
        env.step(legal[0])
        forced += 1
        returns += [env.rewards[a] for a in env.possible_agents]
        round_ended |= env.infos[env.agent_selection]["round"] != before or all(env.terminations.values())


@pytest.mark.parametrize("name,options", CASES)
def test_forced_moves_played_inside_equal_forced_moves_played_by_hand(name, options):
    """One step of the auto-playing vector env = the chosen action, then every forced move,
    in the plain AEC env: the same states, observations, masks, summed rewards and match
    ends; every position returned is a real choice."""
    n = 16
    seeds = np.arange(70, 70 + n)
    fast = cardenvs.make_vec(name, num_envs=n, auto_play_forced=True, **options)
    sf = fast.reset(seeds=seeds)
    plain = [cardenvs.make_raw(name, **options) for _ in range(n)]
    for i, env in enumerate(plain):
        env.reset(seed=int(seeds[i]))
        forced, _, _ = _play_forced_by_hand(env, np.zeros(env.num_players))
        assert forced == sf.forced_moves[i]
    sampler = RandomSampler(11)
    total_forced = ends = 0
    for step in range(250):
        assert (sf.legal_action_mask.sum(axis=1) >= 2).all(), step  # never a forced decision shown
        actions = sampler(sf.legal_action_mask)
        sf = fast.step(actions)
        for i, env in enumerate(plain):
            returns = np.zeros(env.num_players)
            env.step(int(actions[i]))
            returns += [env.rewards[a] for a in env.possible_agents]
            ended = all(env.terminations.values()) or all(env.truncations.values())
            forced, ended_later, _ = _play_forced_by_hand(env, returns)
            assert ended or not ended_later or forced > 0
            assert forced == sf.forced_moves[i], (i, step)
            assert bool(sf.terminated[i] or sf.truncated[i]) == (ended or ended_later), (i, step)
            np.testing.assert_allclose(sf.rewards[i], returns, atol=1e-5, err_msg=f"game {i} step {step}")
            assert env.state_dict() == fast.state_dict(i), (i, step)
            obs = env.observe(env.agent_selection)
            assert np.array_equal(obs["action_mask"], sf.legal_action_mask[i])
            assert np.array_equal(obs["observation"], sf.observation[i])
            total_forced += forced
            ends += ended or ended_later
    assert total_forced > 0


@pytest.mark.parametrize("name,options", CASES[::2])
def test_aec_and_vector_agree_with_forced_moves(name, options):
    n = 12
    seeds = np.arange(500, 500 + n)
    venv = cardenvs.make_vec(name, num_envs=n, auto_play_forced=True, **options)
    state = venv.reset(seeds=seeds)
    envs = [cardenvs.make_raw(name, auto_play_forced=True, **options) for _ in range(n)]
    for env, seed in zip(envs, seeds, strict=True):
        env.reset(seed=int(seed))
    rng = np.random.default_rng(1)
    forced = 0
    for step in range(300):
        actions = np.empty(n, dtype=np.int64)
        for i, env in enumerate(envs):
            agent = env.agent_selection
            obs = env.observe(agent)
            assert agent == f"player_{state.current_player[i]}"
            assert obs["action_mask"].sum() >= 2
            assert np.array_equal(obs["action_mask"], state.legal_action_mask[i]), (i, step)
            assert np.array_equal(obs["observation"], state.observation[i]), (i, step)
            actions[i] = rng.choice(np.flatnonzero(obs["action_mask"]))
        state = venv.step(actions)
        for i, env in enumerate(envs):
            env.step(int(actions[i]))
            assert [env.rewards[a] for a in env.possible_agents] == state.rewards[i].tolist(), (i, step)
            count = env.forced_moves
            if all(env.terminations.values()) or all(env.truncations.values()):
                assert state.terminated[i] or state.truncated[i]
                env.reset()  # auto-reset plays the new match's forced opening moves in the same call
                count += env.forced_moves
            assert count == state.forced_moves[i]
            forced += count
    assert forced > 0


@pytest.mark.parametrize("name", [spec.env_id for spec in cardenvs.list_games()])
def test_pettingzoo_api_with_forced_moves(name):
    api_test(cardenvs.make(name, auto_play_forced=True), num_cycles=500)


def test_scenario_is_shown_as_loaded_with_forced_moves():
    plain = cardenvs.make_raw("president_v0")
    plain.reset(seed=1)
    rng = np.random.default_rng(0)
    while len(plain.legal_actions()) != 1:  # a position with a forced move
        plain.step(int(rng.choice(plain.legal_actions())))
    scenario = plain.state_dict()
    env = cardenvs.make_raw("president_v0", auto_play_forced=True)
    env.reset(seed=2, options={"scenario": scenario})
    assert env.state_dict() == scenario
    assert len(env.legal_actions()) == 1 and env.forced_moves == 0
    env.step(env.legal_actions()[0])  # the next step plays it, and the forced moves after it
    assert len(env.legal_actions()) >= 2 or all(env.terminations.values())


@pytest.mark.parametrize("name,options", [CASES[0], CASES[2], CASES[4]])
def test_final_observation_is_every_seat_view_before_the_restart(name, options):
    n = 32
    with_final = cardenvs.make_vec(name, num_envs=n, seed=9, final_observation=True, auto_play_forced=True,
                                   **options)
    manual = cardenvs.make_vec(name, num_envs=n, seed=9, auto_reset=False, auto_play_forced=True, **options)
    s1 = with_final.reset()
    manual.reset()
    sampler = RandomSampler(2)
    ended = 0
    for _ in range(3000):
        live = ~(manual.states["terminated"] | manual.states["truncated"])
        actions = sampler(s1.legal_action_mask)
        s1 = with_final.step(actions)
        manual.step(np.where(live, actions, 0))
        done = (s1.terminated | s1.truncated) & live
        for i in np.flatnonzero(done):
            for p in range(with_final.num_players):
                np.testing.assert_array_equal(s1.final_observation[i, p], manual.observe(p)[i])
        assert not s1.final_observation[~(s1.terminated | s1.truncated)].any()
        ended += int(done.sum())
        if ended >= 8:
            break
        if (~live | done).all():
            break
    assert ended >= 1


@pytest.mark.parametrize("action", [-5, -4, -3, -2])
def test_pseudo_actions_never_reach_a_finished_game(action):
    venv = cardenvs.make_vec("odin_v1", num_envs=2, seed=0, auto_reset=False, single_round=True)
    state = venv.reset()
    sampler = RandomSampler(0)
    while not (venv.states["terminated"] | venv.states["truncated"]).any():
        state = venv.step(sampler(state.legal_action_mask))
    done = int(np.flatnonzero(venv.states["terminated"] | venv.states["truncated"])[0])
    before = venv.state_dict(done)
    actions = sampler(state.legal_action_mask)
    actions[done] = action
    state = venv.step(np.where(state.legal_action_mask.any(axis=1), actions, action))
    assert venv.state_dict(done) == before
    assert not state.legal_action_mask[done].any()
    assert state.terminated[done] or state.truncated[done]
