"""Property-based fuzzing of every input the package takes, for every game (hypothesis).

Not collected by the main pytest run: ``tests/core/test_fuzz.py`` runs this file in a
subprocess, so that a crash of the interpreter (a segfault from an out-of-bounds write)
fails that test instead of killing the whole run. Each property: the input either works
or raises ValueError/TypeError, and a failure leaves the env exactly as it was.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cardenvs
from cardenvs.core.protocol import options_schema
from cardenvs.core.registry import GAMES
from cardenvs.core.vector import RandomSampler

SPECS = list(GAMES.values())
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)

# values of every shape that JSON-like scenarios, actions and options might carry
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6),
    st.sampled_from(["3c", "X", "Ah", "2=7s", "-1", "ff", "over", "play", "", "0x10"]),
)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5), max_leaves=12)


def _drawn_position(spec, data, seeds: int, steps: int):
    """An env after a drawn number of random steps from a drawn seed, and its state_dict."""
    seed = data.draw(st.integers(0, seeds), label="seed")
    env = _played_env(spec, seed, data.draw(st.integers(0, steps), label="steps"))
    return env, env.state_dict()


def _played_env(spec, seed: int, steps: int):
    env = cardenvs.make_raw(spec.env_id)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    return env


def _mutate(scenario: dict, key: str, value, index: int | None):
    out = copy.deepcopy(scenario)
    if index is not None and isinstance(out.get(key), list) and out[key]:
        out[key][index % len(out[key])] = value
    else:
        out[key] = value
    return out


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
@FUZZ
@given(data=st.data())
def test_mutated_scenarios_load_or_are_refused(spec, data):
    env, before = _drawn_position(spec, data, 50, 60)
    key = data.draw(st.sampled_from(sorted(before)), label="key")
    scenario = _mutate(before, key, data.draw(values, label="value"),
                       data.draw(st.none() | st.integers(0, 10), label="index"))
    agent = env.agent_selection
    try:
        env.reset(options={"scenario": scenario})
    except (ValueError, TypeError) as e:
        assert "scenario" in str(e) or key in str(e), str(e)
        assert env.state_dict() == before and env.agent_selection == agent
        return
    # it loaded: the env is playable, every masked-in action is legal
    for _ in range(5):
        a = env.agent_selection
        if env.terminations[a] or env.truncations[a]:
            break
        mask = env.observe(a)["action_mask"]
        assert mask.any()
        env.step(int(np.flatnonzero(mask)[0]))


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
@FUZZ
@given(action=scalars | st.integers(-10, 400) | st.sampled_from([np.int8(3), np.uint64(2**63), np.float32(1)]))
def test_any_action_value_is_played_or_refused(spec, action):
    env = _played_env(spec, 3, 10)
    before, agent = env.state_dict(), env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        return
    mask = env.observe(agent)["action_mask"]
    try:
        env.step(action)
    except (ValueError, TypeError):
        assert env.state_dict() == before and env.agent_selection == agent
        return
    assert isinstance(action, (int, np.integer)) and not isinstance(action, bool) and mask[int(action)]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
@FUZZ
@given(data=st.data())
def test_the_vector_env_refuses_bad_actions_viewers_and_loads(spec, data):
    venv = cardenvs.make_vec(spec.env_id, 3, seed=data.draw(st.integers(0, 9), label="seed"))
    state = venv.reset()
    sampler = RandomSampler(0)
    for _ in range(data.draw(st.integers(0, 30), label="steps")):
        state = venv.step(sampler(state.legal_action_mask))
    snapshot = venv.states.copy()
    kind = data.draw(st.sampled_from(["actions", "viewer", "load"]), label="kind")
    try:
        if kind == "actions":
            dtype = data.draw(st.sampled_from(["int64", "int8", "uint16", "float64", "bool", "object"]))
            raw = data.draw(st.lists(st.integers(-(2**40), 2**40), min_size=0, max_size=5))
            venv.step(np.array(raw).astype(dtype) if raw else np.array(raw, dtype=dtype))
        elif kind == "viewer":
            venv.observe(data.draw(values | st.integers(-5, 10), label="viewer"))
            return
        else:
            i = data.draw(st.integers(-3, 5) | values, label="index")
            scenario = venv.state_dict(0)
            key = data.draw(st.sampled_from(sorted(scenario)), label="key")
            venv.load_state_dict(i, _mutate(scenario, key, data.draw(values, label="value"), None))
    except (ValueError, TypeError):
        assert (venv.states == snapshot).all()
        return
    st_ = venv.step(sampler(venv._legal)) if kind != "viewer" else None
    assert st_ is None or st_.legal_action_mask.any(axis=1).all()


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
@FUZZ
@given(data=st.data())
def test_option_values_build_an_env_or_are_refused(spec, data):
    schema = options_schema(spec.module)
    name = data.draw(st.sampled_from(sorted(schema)), label="option")
    value = data.draw(values | st.integers(-3, 12), label="value")
    try:
        venv = cardenvs.make_vec(spec.env_id, 2, **{name: value})
    except (ValueError, TypeError) as e:
        assert name in str(e) or "players" in str(e) or "deck" in str(e), str(e)
        return
    state = venv.reset()
    sampler = RandomSampler(1)
    for _ in range(20):
        assert state.legal_action_mask.any(axis=1).all()
        state = venv.step(sampler(state.legal_action_mask))


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
@FUZZ
@given(text=st.text(max_size=20) | st.sampled_from(["pass", "draw", "7h 7s", "#3", "give K", "lay 3c 4c 5c"]))
def test_move_strings_parse_to_an_action_or_are_refused(spec, text):
    try:
        action = spec.module.str_to_action(text)
    except ValueError:
        return
    assert isinstance(action, (int, np.integer)) and 0 <= int(action) < spec.module.NUM_ACTIONS
    assert not math.isnan(float(action))


# --------------------------------------------------------------------------- adapters, finished matches, counters
def _finished(spec, seed: int) -> dict:
    env = cardenvs.make_raw(spec.env_id, single_round=True)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        env.step(int(rng.choice(env.legal_actions())))
    return env.state_dict()


adapter_actions = scalars | st.integers(-10, 400) | st.sampled_from(
    [np.int8(3), np.uint64(2**63), np.float32(1), np.array(2), np.array([1.0]), np.bool_(True), 1.0, 0.5, "1"])


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
@FUZZ
@given(action=adapter_actions, flag=scalars)
def test_the_adapters_play_an_action_or_refuse_it_unchanged(spec, action, flag):
    from cardenvs.integrations.gym import LearnerVecEnv, SingleAgentEnv

    env = SingleAgentEnv(spec.env_id, seat=0)
    env.reset(seed=1)
    before = env.unwrapped._env.state_dict()
    mask = env.action_masks()
    try:
        env.step(action)
    except (ValueError, TypeError):
        assert env.unwrapped._env.state_dict() == before
    else:
        assert isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)) or (
            isinstance(action, np.ndarray) and action.dtype.kind in "iu")
    venv = LearnerVecEnv(spec.env_id, 2, seat=0, illegal_action="raise")
    venv.reset(seed=1)
    states = venv.core_states.copy()
    try:
        venv.step(np.array([action, action], dtype=object) if not isinstance(action, np.ndarray) else
                  np.stack([action, action]))
    except (ValueError, TypeError):
        assert venv.core_states.tobytes() == states.tobytes()
    try:
        SingleAgentEnv(spec.env_id, scale_observations=flag)
    except TypeError:
        assert not isinstance(flag, (bool, np.bool_))
    else:
        assert isinstance(flag, (bool, np.bool_))
    del mask


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
@FUZZ
@given(seed=st.integers(0, 30), auto_reset=st.booleans())
def test_a_loaded_finished_match_is_honoured_or_refused(spec, seed, auto_reset):
    from cardenvs.integrations.gym import SingleAgentEnv

    done = _finished(spec, seed)
    env = cardenvs.make_raw(spec.env_id, single_round=True)
    env.reset(seed=seed, options={"scenario": done})
    assert env.state_dict() == done and all(env.terminations.values()) | all(env.truncations.values())
    venv = cardenvs.make_vec(spec.env_id, 2, single_round=True, auto_reset=auto_reset)
    venv.reset()
    snapshot = venv.states.copy()
    try:
        state = venv.load_state_dict(1, done)
    except ValueError:
        assert auto_reset and (venv.states == snapshot).all()
    else:
        assert not auto_reset and not state.legal_action_mask[1].any() and venv.state_dict(1) == done
    learner = SingleAgentEnv(spec.env_id, single_round=True)
    learner.reset(seed=seed)
    before = learner._env.state_dict()
    with pytest.raises(ValueError, match="over"):
        learner.reset(options={"scenario": done})
    assert learner._env.state_dict() == before


COUNTERS = ("scores", "round_points", "flocons", "money", "pot", "turns", "num_steps", "level", "rewards", "round",
            "void_rounds")


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
@FUZZ
@given(data=st.data())
def test_loaded_counters_keep_observations_in_space_and_rewards_finite(spec, data):
    env, before = _drawn_position(spec, data, 20, 40)
    keys = [k for k in COUNTERS if k in before]
    key = data.draw(st.sampled_from(keys), label="key")
    big = st.integers(-(2**33), 2**33) | st.integers(-5, 600) | st.floats(-1e40, 1e40)
    index = data.draw(st.none() | st.integers(0, 5), label="index")
    scenario = _mutate(before, key, data.draw(big, label="value"), index)
    try:
        env.reset(options={"scenario": scenario})
    except (ValueError, TypeError):
        assert env.state_dict() == before
        return
    rng = np.random.default_rng(0)
    space = env.observation_space(env.possible_agents[0])["observation"]
    total = np.zeros(env.num_players)
    for _ in range(400):
        for a in env.possible_agents:
            assert space.contains(env.observe(a)["observation"]), (key, scenario[key])
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        env.step(int(rng.choice(env.legal_actions())))
        total += [env.rewards[a] for a in env.possible_agents]
    assert np.isfinite(total).all() and np.abs(total).max() < 1e7, (key, scenario[key], total)
