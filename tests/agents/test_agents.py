"""The agents: the registry of names, the random and human agents, the heuristics'
legality and strength, and the shipped baselines."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import cardenvs
from cardenvs import get_spec, make_vec
from cardenvs.agents import AGENT_NAMES, available_agents, has_heuristic, has_search, make_agent
from cardenvs.agents.base import Agent
from cardenvs.agents.evaluate import evaluate

SPEC = get_spec("president")


def test_registry_names():
    from cardenvs.agents.ppo import has_baseline

    names = [n for n in AGENT_NAMES if (n != "ppo" or has_baseline(SPEC)) and (n != "search" or has_search(SPEC))]
    assert available_agents(SPEC) == [*names, "ppo:PATH", *(["search:K"] if has_search(SPEC) else [])]
    for name in names:
        agent = make_agent(name, SPEC, seed=1)
        assert isinstance(agent, Agent) and agent.name == name
    with pytest.raises(ValueError, match="available agents: random, heuristic, human"):
        make_agent("alphazero", SPEC)


def test_game_without_heuristic():
    other = dataclasses.replace(SPEC, name="nogame", env_id="nogame_v0")
    assert not has_heuristic(other)
    assert available_agents(other) == ["random", "human", "ppo:PATH"]
    with pytest.raises(ValueError, match="no heuristic agent for 'nogame'; available agents: random, human, ppo:PATH"):
        make_agent("heuristic", other)


def test_random_agent_single_and_empty_mask():
    agent = make_agent("random", SPEC, seed=3)
    mask = np.zeros(SPEC.module.NUM_ACTIONS, dtype=bool)
    mask[[0, 5, 9]] = True
    obs = np.zeros(SPEC.module.OBS_SIZE, dtype=np.float32)
    picks = {agent.act(obs, mask) for _ in range(200)}
    assert picks == {0, 5, 9}
    with pytest.raises(ValueError, match="no legal action"):
        agent.act(obs, np.zeros_like(mask))
    out = agent.act_batch(np.stack([obs, obs]), np.stack([mask, np.zeros_like(mask)]))
    assert out[0] in (0, 5, 9) and out[1] == -1


def test_human_agent_is_cli_only():
    human = make_agent("human", SPEC)
    assert human.is_human
    with pytest.raises(RuntimeError, match="through the CLI"):
        human.act(np.zeros(SPEC.module.OBS_SIZE), np.ones(SPEC.module.NUM_ACTIONS, dtype=bool))


@pytest.mark.parametrize("game", ["odin", "rami51", "frime", "classes"])
def test_heuristic_reads_its_int16_observation_as_floats_would_be(game):
    """The heuristic's kernels take the game's int16 observation without a conversion:
    the same moves as from the observation in float32 (the dtype President's heuristic
    reads), act and act_batch alike; a fraction or an out-of-range number is refused,
    not truncated."""
    spec = get_spec(game)
    heur = make_agent("heuristic", spec)
    assert heur.obs_dtype == np.int16 == spec.module.OBS_DTYPE
    env = make_vec(game, num_envs=64, seed=8, num_players=4)
    rng = np.random.default_rng(8)
    st = env.reset()
    for step in range(300):
        obs, mask = st.observation, st.legal_action_mask
        assert obs.dtype == np.int16
        h = heur.act_batch(obs, mask)
        as_floats = np.empty(len(obs), np.int64)
        type(heur).decide_batch(obs.astype(np.float32), mask.astype(np.bool_), heur._layout, heur._tuning, as_floats)
        assert np.array_equal(h, as_floats)
        assert np.array_equal(heur.act_batch(obs.astype(np.float64), mask), h)  # whole numbers in floats: accepted
        if step % 50 == 0:
            assert all(heur.act(obs[i], mask[i]) == h[i] for i in range(0, 64, 8))
        rand = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        st = env.step(np.where(rng.random(64) < 0.3, rand, h))
    for bad in (obs + 0.5, obs.astype(np.int64) + 40_000, np.full(obs.shape, np.nan)):
        with pytest.raises(ValueError, match="whole numbers within int16"):
            heur.act_batch(bad, mask)
    with pytest.raises(ValueError, match="whole numbers within int16"):
        heur.act(obs[0] + 0.5, mask[0])


@pytest.mark.parametrize("players", [4, 5, 8, 10])
def test_agents_always_legal(players):
    """Heuristic and random pick legal actions in states reached by a mix of both;
    the heuristic's act and act_batch agree."""
    n = 128
    env = make_vec("president", num_envs=n, seed=players, num_players=players)
    heur = make_agent("heuristic", SPEC)
    rand = make_agent("random", SPEC, seed=players)
    rng = np.random.default_rng(players)
    st = env.reset()
    for step in range(250):
        h = heur.act_batch(st.observation, st.legal_action_mask)
        r = rand.act_batch(st.observation, st.legal_action_mask)
        rows = np.arange(n)
        assert st.legal_action_mask[rows, h].all(), "heuristic chose an illegal action"
        assert st.legal_action_mask[rows, r].all(), "random chose an illegal action"
        if step % 25 == 0:
            for i in range(0, n, 16):
                assert heur.act(st.observation[i], st.legal_action_mask[i]) == h[i]
        st = env.step(np.where(rng.random(n) < 0.5, h, r))


def test_heuristic_beats_random():
    """Measured (2,000 matches): 4 players, full matches ~100% (fair share 25%);
    5 players, single rounds ~66% (fair share 20%). Thresholds sit far below."""
    res = evaluate(SPEC, [make_agent("heuristic", SPEC)] + [make_agent("random", SPEC, seed=k) for k in (1, 2, 3)], 200)
    assert res[0].win_rate > 0.8
    assert res[0].mean_score > max(r.mean_score for r in res[1:]) + 3
    agents5 = [make_agent("heuristic", SPEC)] + [make_agent("random", SPEC, seed=k) for k in range(1, 5)]
    res5 = evaluate(SPEC, agents5, 200, seed=9, options={"num_players": 5, "single_round": True})
    assert res5[0].win_rate > 0.4
    assert all(r.win_rate < 0.2 for r in res5[1:])


@pytest.mark.parametrize("game", ["president", "odin", "rami51", "frime", "classes"])
def test_each_shipped_baseline_plays_only_legal_moves(game):
    """The shipped ``ppo`` baselines (residual ones run the heuristic beside their
    network) play legal moves only; the env raises otherwise."""
    from cardenvs.agents.ppo import PolicyNetwork, baseline_path

    spec = cardenvs.get_spec(game)
    opts = PolicyNetwork.load(baseline_path(spec)).game_options()
    assert opts["num_players"] == 4 and "reward_mode" not in opts
    agent = make_agent("ppo", spec, options=opts)
    env = cardenvs.make_vec(game, 16, seed=5, illegal_action="raise", **opts)
    st = env.reset()
    for _ in range(300):
        st = env.step(agent.act_batch(st.observation, st.legal_action_mask))


def test_each_heuristic_compiles_a_batch_of_its_own():
    # numba caches a compiled function under its qualified name: the class's module is in it
    from cardenvs.agents.heuristics.odin import OdinHeuristic
    from cardenvs.agents.heuristics.rami51 import Rami51Heuristic

    name = OdinHeuristic.decide_batch.py_func.__qualname__
    assert name == "cardenvs.agents.heuristics.odin.OdinHeuristic.decide_batch"
    assert Rami51Heuristic.decide_batch.py_func.__globals__["decide"] is Rami51Heuristic.decide


def test_the_win_share_interval_means_something_at_0_and_100_percent():
    from cardenvs.agents.evaluate import SlotResult

    none = SlotResult("a", 50, 0.0, float("nan"))
    low, high = none.interval95
    assert low == 0.0 and 0.05 < high < 0.09  # 0 wins of 50: up to about 7 %
    every = SlotResult("a", 50, 50.0, float("nan"), wins_sq=50.0)
    low, high = every.interval95
    assert 0.91 < low < 0.95 and high == 1.0
    half = SlotResult("a", 2000, 1000.0, float("nan"), wins_sq=1000.0)
    low, high = half.interval95
    assert abs((high - low) / 2 - half.ci95) < 1e-3  # the normal approximation where it holds
