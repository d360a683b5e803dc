"""The engines agree. The AEC env and the vector env run the same kernels: same seeds and
actions give identical observations, masks, rewards and terminations, game after game;
and the vector env's serial and threaded steps give identical trajectories."""

import numpy as np
import pytest

import cardenvs
from cardenvs.core.threads import usable_cpus
from cardenvs.core.vector import RandomSampler

# (game, options, games to play): short single-round games for volume, full matches for
# what happens between rounds (president's exchange, odin's next leader)
CASES = [
    ("president_v0", {"num_players": 4, "single_round": True}, 700),
    ("president_v0", {"num_players": 9, "single_round": True}, 250),
    ("president_v0", {"num_players": 5}, 60),
    ("odin_v1", {"num_players": 4, "single_round": True}, 300),
    ("odin_v1", {"num_players": 2}, 60),
    ("odin_v1", {"num_players": 6, "reward_mode": "round"}, 50),
    # rami51: no turn cap (every episode plays to its end); low elimination score for whole matches
    ("rami51_v3", {"num_players": 4, "single_round": True, "max_turns_per_round": 0}, 100),
    ("rami51_v3", {"num_players": 3, "elimination_score": 60, "max_turns_per_round": 0, "reward_mode": "round"}, 15),
    # frime: rounds of 3 cards (random players seldom go out with longer hands), no turn cap
    ("frime_v1", {"num_players": 4, "single_round": True, "max_turns_per_round": 0}, 100),
    ("frime_v1", {"num_players": 6, "single_round": True, "max_turns_per_round": 0, "reward_mode": "round"}, 50),
    # classes: single rounds, no turn cap; a late class (long contracts), mixed-suit runs, round rewards
    ("classes_v2", {"num_players": 4, "single_round": True, "max_turns_per_round": 0}, 60),
    ("classes_v2", {"num_players": 5, "single_round": True, "max_turns_per_round": 0, "first_class": 8,
                    "run_same_suit": False, "same_rank_sets": False, "reward_mode": "round"}, 30),
    # small turn caps: void rounds (the match goes on) in whole matches
    pytest.param("rami51_v3", {"num_players": 2, "elimination_score": 60, "max_turns_per_round": 6}, 15,
                 marks=pytest.mark.slow),  # void rounds until someone reaches 60: long
    ("frime_v1", {"num_players": 4, "max_turns_per_round": 5, "reward_mode": "round"}, 15),
    ("classes_v2", {"num_players": 3, "first_class": 10, "max_turns_per_round": 8, "max_steps": 400}, 15),
    # single rounds at the turn cap: truncated
    ("rami51_v3", {"num_players": 3, "single_round": True, "max_turns_per_round": 12}, 30),
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
            assert all(env.terminations.values()) == bool(state.terminated[i]), (i, steps)
            assert all(env.truncations.values()) == bool(state.truncated[i]), (i, steps)
            done = bool(state.terminated[i] or state.truncated[i])
            if done:
                finished += 1
                env.reset()  # no seed: the game's own random stream continues, as auto-reset does
    assert steps > 0


# (game, players, steps, round ends at least): every field of every step, and the final
# states byte for byte; the threaded run steps chunks of the batch (step_batch_parallel)
THREAD_CASES = [
    ("president_v0", 6, 400, 600),
    ("odin_v1", 5, 600, 600),
    ("rami51_v3", 4, 600, 20),
    ("frime_v1", 5, 600, 20),
    ("classes_v2", 3, 600, 20),
]


@pytest.mark.skipif(usable_cpus() < 2, reason="one usable CPU: the threaded step would run serially")
@pytest.mark.parametrize("name,players,steps,min_round_ends", THREAD_CASES)
def test_serial_and_threaded_stepping_are_identical(name, players, steps, min_round_ends):
    n = 600
    serial = cardenvs.make_vec(name, num_envs=n, seed=21, num_players=players)
    threaded = cardenvs.make_vec(name, num_envs=n, seed=21, num_players=players, num_threads=2, parallel_threshold=1)
    assert threaded.parallel and not serial.parallel
    s1, s2 = serial.reset(), threaded.reset()
    samp1, samp2 = RandomSampler(5), RandomSampler(5)
    ended = 0
    for _ in range(steps):
        a1, a2 = samp1(s1.legal_action_mask), samp2(s2.legal_action_mask)
        assert np.array_equal(a1, a2)
        s1, s2 = serial.step(a1), threaded.step(a2)
        for f in s1._fields:
            assert np.array_equal(getattr(s1, f), getattr(s2, f)), f
        ended += int(s1.round_ended.sum())
    assert serial.states.tobytes() == threaded.states.tobytes()
    assert ended >= min_round_ends
