"""The Gymnasium interfaces: the single-agent env (checker, ids, seeding, reward crediting),
the learner-vs-opponents vector env over the numba core, and the SB3 adapter."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import cardenvs
from cardenvs.core.vector import RandomSampler
from cardenvs.integrations.gym import MAX_EPISODE_STEPS, LearnerVecEnv, SingleAgentEnv, gym_id

GAMES = [spec.env_id for spec in cardenvs.list_games()]
SHORT = {"president_v0": {"single_round": True}, "odin_v1": {"single_round": True},
         "rami51_v3": {"single_round": True}, "frime_v1": {"single_round": True},
         "classes_v2": {"single_round": True}}


@pytest.mark.parametrize("name", GAMES)
def test_registered_id_passes_gymnasium_checker(name):
    env = gym.make(gym_id(name))
    assert isinstance(env.unwrapped, SingleAgentEnv)
    check_env(env.unwrapped, skip_render_check=True)
    scaled = gym.make(gym_id(name), scale_observations=True, opponents="heuristic")
    obs, info = scaled.reset(seed=0)
    assert obs.dtype == np.float32 and 0.0 <= obs.min() and obs.max() <= 1.0
    assert info["action_mask"].dtype == np.bool_ and info["action_mask"].sum() >= 2


@pytest.mark.parametrize("name", GAMES)
def test_registered_id_defaults_make_an_env_a_network_can_learn_from(name):
    """An id out of the box: observations scaled to [0, 1], a time limit, and a single round
    for the games whose whole match runs to hundreds of decisions; make's keywords win."""
    env = gym.make(gym_id(name))
    assert env.spec.max_episode_steps == MAX_EPISODE_STEPS
    assert env.unwrapped.scale_observations is True
    assert env.observation_space.dtype == np.float32
    single = cardenvs.get_spec(name).name in ("rami51", "frime", "classes")
    assert env.unwrapped._env._template["single_round"][0] == single
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=3)
    steps, done = 0, False
    while not done:
        assert env.observation_space.contains(obs)
        obs, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        steps += 1
        done = terminated or truncated
    assert terminated and steps < 1000  # a random learner's episode ends well inside the limit
    raw = gym.make(gym_id(name), scale_observations=False, single_round=False, max_episode_steps=7)
    assert raw.spec.max_episode_steps == 7 and raw.unwrapped.scale_observations is False
    assert raw.unwrapped._env._template["single_round"][0] == 0
    vec = gym.make_vec(gym_id(name), num_envs=2, vectorization_mode="vector_entry_point")
    assert vec.scale_observations is True
    vec.close()


def test_learner_vec_env_time_limit_truncates_at_that_many_decisions():
    env = LearnerVecEnv("odin_v1", 16, opponents="random", max_episode_steps=3)
    obs, info = env.reset(seed=1)
    mask = info["action_mask"]
    rng = np.random.default_rng(0)
    lengths = np.zeros(16, np.int64)
    ended = []
    for _ in range(12):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, rewards, terminated, truncated, info = env.step(acts)
        mask = info["action_mask"]
        lengths += 1
        assert not (terminated & truncated).any()
        over = terminated | truncated
        ended += list(lengths[over])
        assert (lengths[truncated] == 3).all() and (lengths <= 3).all()
        if over.any():
            assert (info["_final_info"] == over).all() and (info["final_info"]["_return"] == over).all()
            # a match cut by the limit has no outcome; one that ended has its win share
            final = info["final_info"]
            assert (final["_win_share"] == terminated).all() and np.isnan(final["win_share"][truncated]).all()
        lengths[over] = 0
    assert ended and set(ended) <= {1, 2, 3} and 3 in ended
    assert LearnerVecEnv("odin_v1", 2, max_episode_steps=-1).max_episode_steps is None
    assert LearnerVecEnv("odin_v1", 2, max_episode_steps=np.int64(5)).max_episode_steps == 5
    # a reset mid-match starts every count again
    env.reset(seed=2)
    assert (env._decisions == 0).all()
    vec = gym.make_vec("cardenvs/odin-v1", num_envs=2, vectorization_mode="vector_entry_point")
    assert vec.max_episode_steps == MAX_EPISODE_STEPS
    assert gym.make_vec("cardenvs/odin-v1", num_envs=2, vectorization_mode="vector_entry_point",
                        max_episode_steps=-1).max_episode_steps is None
    for bad, error in ((0, ValueError), (-2, ValueError), (2.0, TypeError), (True, TypeError), ("5", TypeError)):
        with pytest.raises(error, match="max_episode_steps"):
            LearnerVecEnv("odin_v1", 2, max_episode_steps=bad)


def test_every_registered_id_is_in_the_docs():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    ids = [gid for gid in gym.registry if gid.startswith("cardenvs/")]
    assert len(ids) == len(GAMES)
    for page in ("docs/envs.md", "README.md"):
        text = (root / page).read_text()
        assert [gid for gid in ids if f"`{gid}`" not in text] == [], page


def _episode(env, seed, rng):
    obs, info = env.reset(seed=seed)
    trace, total = [obs.copy()], 0.0
    while True:
        mask = env.action_masks()
        assert mask.sum() >= 2  # forced moves are played by the env
        obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        trace.append(obs.copy())
        total += reward
        if term or trunc:
            return trace, total, info


@pytest.mark.parametrize("name", GAMES)
def test_single_agent_env_is_seeded_and_credits_the_learner(name):
    env = SingleAgentEnv(name, opponents="random", **SHORT[name])
    seats = set()
    for seed in range(6):
        t1, r1, info1 = _episode(env, seed, np.random.default_rng(seed))
        t2, r2, info2 = _episode(env, seed, np.random.default_rng(seed))
        assert all(np.array_equal(a, b) for a, b in zip(t1, t2, strict=True)) and r1 == r2
        # the learner's rewards over the episode are its whole match return
        assert r1 == pytest.approx(info1["return"])
        assert 0.0 <= info1["win_share"] <= 1.0
        seats.add(info1["seat"])
    assert len(seats) > 1  # drawn per episode


def test_single_agent_env_fixed_seat_and_opponent_list():
    calls = []

    def first_legal(obs, mask):
        calls.append(1)
        return int(np.flatnonzero(mask)[0])

    env = SingleAgentEnv("president_v0", opponents=["heuristic", first_legal, "random"], seat=2,
                         single_round=True)
    _, _, info = _episode(env, 1, np.random.default_rng(0))
    assert info["seat"] == 2 and calls
    with pytest.raises(ValueError, match="opponents"):
        SingleAgentEnv("president_v0", opponents=["random"])
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv("president_v0", seat=4)


class _OnlyAct:
    def act(self, obs, mask):
        return int(np.flatnonzero(mask)[-1])


class _OnlyBatch:
    def act_batch(self, obs, masks):
        return np.array([np.flatnonzero(m)[0] for m in masks])


def test_opponents_with_one_method_and_rewards_before_the_first_decision():
    for opponent in (_OnlyAct(), _OnlyBatch()):
        _episode(SingleAgentEnv("odin_v1", opponents=opponent, single_round=True), 0, np.random.default_rng(0))
        env = LearnerVecEnv("odin_v1", 4, opponents=opponent, single_round=True)
        env.reset()
        env.step(RandomSampler(0)(env.action_masks()))
    # round rewards that arrive before the learner's first decision are paid with that decision
    env = LearnerVecEnv("rami51_v3", 64, opponents="heuristic", reward_mode="round", elimination_score=60,
                        num_players=3, seed=1)
    env.reset()
    sampler = RandomSampler(0)
    totals = np.zeros(64)
    checked = 0
    for _ in range(3000):
        _, rew, term, trunc, info = env.step(sampler(env.action_masks()))
        totals += rew
        for i in np.flatnonzero(term | trunc):
            assert totals[i] == pytest.approx(info["final_info"]["return"][i], abs=1e-4)
            totals[i] = 0.0
            checked += 1
        if checked >= 20:
            break
    assert checked >= 20


def test_unseeded_reset_does_not_replay():
    env = LearnerVecEnv("president_v0", 8, seed=3)
    a, _ = env.reset()
    b, _ = env.reset()
    c, _ = env.reset(seed=3)
    assert not np.array_equal(a, b) and np.array_equal(a, c)


def test_illegal_learner_action_is_penalised_or_raises():
    env = SingleAgentEnv("odin_v1", seat=0, single_round=True)
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, term, _, _ = env.step(bad)
    assert term and reward == -1.0
    strict = SingleAgentEnv("odin_v1", seat=0, illegal_action="raise", single_round=True)
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="illegal"):
        strict.step(bad)
    with pytest.raises(TypeError, match="integer"):
        strict.step(2.5)


@pytest.mark.parametrize("name", GAMES)
def test_learner_vec_env_matches_a_hand_played_vector_env(name):
    """Game by game, LearnerVecEnv equals the plain vector env in which the learner's
    actions and the heuristic opponents' moves are played by hand."""
    from cardenvs.agents import make_agent

    n, seat = 6, 1
    opts = dict(SHORT[name], num_players=max(3, cardenvs.get_spec(name).min_players))
    env = LearnerVecEnv(name, n, opponents="heuristic", seat=seat, seed=5, **opts)
    obs, info = env.reset()
    # penalty mode: the games that wait get any action, then their states are put back
    ref = cardenvs.make_vec(name, num_envs=n, seed=5, auto_reset=False, auto_play_forced=True,
                            illegal_action="penalty", **opts)
    st = ref.reset()
    heuristic = make_agent("heuristic", cardenvs.get_spec(name), seed=0)
    done = np.zeros(n, bool)
    returns = np.zeros(n)

    def opponents_play(st, live):
        while True:
            wait = live & ~(ref.states["terminated"] | ref.states["truncated"]) & (st.current_player != seat)
            if not wait.any():
                return st
            acts = np.zeros(n, np.int64)
            acts[wait] = heuristic.act_batch(st.observation[wait], st.legal_action_mask[wait])
            before = ref.states.copy()
            nxt = ref.step(np.where(wait, acts, 0))
            ref.states[~wait] = before[~wait]  # only the waiting games move
            returns[wait] += nxt.rewards[wait, seat]
            st = nxt._replace(observation=np.where(wait[:, None], nxt.observation, st.observation),
                              legal_action_mask=np.where(wait[:, None], nxt.legal_action_mask,
                                                         st.legal_action_mask),
                              current_player=np.where(wait, nxt.current_player, st.current_player))

    st = opponents_play(st, np.ones(n, bool))
    rng = np.random.default_rng(3)
    for _ in range(400):
        live = ~done
        np.testing.assert_array_equal(obs[live], st.observation[live])
        np.testing.assert_array_equal(env.action_masks()[live], st.legal_action_mask[live])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        obs, rew, term, trunc, info = env.step(actions)
        before = ref.states.copy()
        nxt = ref.step(np.where(live, actions, 0))
        ref.states[done] = before[done]
        step_rew = np.where(live, nxt.rewards[:, seat], 0.0)
        st = nxt
        returns[:] = 0
        st = opponents_play(st, live)
        np.testing.assert_allclose(rew[live], (step_rew + returns)[live], atol=1e-5)
        ended = live & (ref.states["terminated"] | ref.states["truncated"])
        np.testing.assert_array_equal((term | trunc)[live], ended[live])
        for i in np.flatnonzero(ended):
            np.testing.assert_array_equal(info["final_obs"][i], ref.observe(seat)[i])
        done |= ended
        if done.all():
            break
    assert done.any()


def test_learner_vec_env_seeding_and_autoreset():
    env = LearnerVecEnv("odin_v1", 16, opponents="random", seed=2, single_round=True)
    obs1, _ = env.reset(seed=4)
    sampler = RandomSampler(0)
    trace1 = []
    for _ in range(60):
        obs, rew, term, trunc, info = env.step(sampler(env.action_masks()))
        trace1.append((obs.copy(), rew.copy()))
        assert (env.action_masks().sum(axis=1) >= 2).all()
        if (term | trunc).any():
            assert info["_final_obs"].tolist() == (term | trunc).tolist()
            shares = info["final_info"]["win_share"][term | trunc]
            assert ((0 <= shares) & (shares <= 1)).all()
    obs2, _ = env.reset(seed=4)
    sampler = RandomSampler(0)
    np.testing.assert_array_equal(obs1, obs2)
    for o, r in trace1:
        obs, rew, *_ = env.step(sampler(env.action_masks()))
        np.testing.assert_array_equal(o, obs)
        np.testing.assert_array_equal(r, rew)
    assert env.observation_space.shape == (16, env.single_observation_space.shape[0])


def test_make_vec_from_the_id_gives_the_fast_vector_env():
    env = gym.make_vec("cardenvs/president-v0", num_envs=8, vectorization_mode="vector_entry_point",
                       opponents="heuristic")
    assert isinstance(env, LearnerVecEnv)
    obs, info = env.reset(seed=0)
    assert obs.shape == (8, env.single_observation_space.shape[0]) and info["action_mask"].shape[0] == 8


def test_random_learner_wins_its_share_against_random_opponents():
    env = LearnerVecEnv("president_v0", 256, opponents="random", seed=0, single_round=True)
    env.reset()
    sampler = RandomSampler(1)
    shares, episodes = 0.0, 0
    while episodes < 1500:
        _, _, term, trunc, info = env.step(sampler(env.action_masks()))
        d = term | trunc
        if d.any():
            shares += info["final_info"]["win_share"][d].sum()
            episodes += int(d.sum())
    assert abs(shares / episodes - 0.25) < 0.04  # 4 players, fair share 1/4 (± ~3.5 sigma)


sb3_contrib = pytest.importorskip("sb3_contrib")


def test_maskable_ppo_trains_on_the_registered_id(tmp_path):
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    torch.set_num_threads(1)
    model = MaskablePPO("MlpPolicy", make_vec_env("cardenvs/president-v0", 4), n_steps=32, batch_size=64, seed=0)
    model.learn(256)
    model.save(tmp_path / "ppo")


def test_maskable_ppo_trains_on_the_fast_vector_env():
    import torch
    from sb3_contrib import MaskablePPO

    from cardenvs.integrations.sb3 import SB3VecEnv

    torch.set_num_threads(1)
    venv = SB3VecEnv("odin_v1", 32, opponents="heuristic", scale_observations=True, single_round=True)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=128, seed=0)
    model.learn(1024)
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=venv.action_masks())
    assert venv.action_masks()[np.arange(32), actions].all()
