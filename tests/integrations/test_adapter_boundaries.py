"""The adapters refuse what they cannot honour: a refused call changes nothing, a value is
never coerced (``int(1.9)``, ``bool("false")``), and the Gymnasium envs pickle."""

from __future__ import annotations

import copy
import pickle

import gymnasium
import numpy as np
import pytest

import cardenvs
from cardenvs.integrations.gym import LearnerVecEnv, SingleAgentEnv


def _finished_state(env_id: str, **options) -> dict:
    env = cardenvs.make_raw(env_id, **options)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        env.step(int(rng.choice(env.legal_actions())))
    return env.state_dict()


# ------------------------------------------------------------------ SingleAgentEnv.reset
def test_a_refused_scenario_leaves_the_seat_opponents_and_streams_as_they_were():
    env = SingleAgentEnv("odin", seat=None)
    twin = SingleAgentEnv("odin", seat=None)
    env.reset(seed=5)
    twin.reset(seed=5)
    opponents = env._opponents
    with pytest.raises(ValueError, match="scenario"):
        env.reset(seed=9, options={"scenario": {"round": "two"}})
    assert env.seat == twin.seat and env._opponents is opponents
    assert env._env.state_dict() == twin._env.state_dict()
    for _ in range(30):  # the learner's moves go to the learner's seat, as in an env never refused
        mask = twin.action_masks()
        if not mask.any():
            break
        a = int(np.flatnonzero(mask)[0])
        assert env.step(a)[1:4] == twin.step(a)[1:4]
        assert env._env.state_dict() == twin._env.state_dict()
    env.reset()
    twin.reset()
    assert env._env.state_dict() == twin._env.state_dict() and env.seat == twin.seat


def test_single_agent_reset_refuses_a_finished_match_instead_of_dealing_a_new_one():
    done = _finished_state("odin", single_round=True)
    env = SingleAgentEnv("odin", single_round=True)
    env.reset(seed=1)
    before = env._env.state_dict()
    with pytest.raises(ValueError, match="'terminated'.*match is over"):
        env.reset(options={"scenario": done})
    assert env._env.state_dict() == before


@pytest.mark.parametrize("options,error", [([("scenario", {})], TypeError), ({"scenaro": {}}, ValueError)])
def test_single_agent_reset_refuses_bad_options(options, error):
    env = SingleAgentEnv("president")
    env.reset(seed=1)
    before = env._env.state_dict()
    with pytest.raises(error, match="option"):
        env.reset(options=options)
    assert env._env.state_dict() == before


@pytest.mark.parametrize("value", ["false", "no", "0", 0, 1, None])
def test_scale_observations_takes_only_true_or_false(value):
    with pytest.raises(TypeError, match="scale_observations"):
        SingleAgentEnv("president", scale_observations=value)
    with pytest.raises(TypeError, match="scale_observations"):
        LearnerVecEnv("president", 2, scale_observations=value)


# ------------------------------------------------------------------ LearnerVecEnv
class _Stubborn:
    """Plays legally, then once, when told to, picks an illegal action."""

    def __init__(self):
        self.bad = False

    def __call__(self, obs, masks):
        out = np.array([np.flatnonzero(m)[0] for m in masks], dtype=np.int64)
        if self.bad:
            self.bad = False
            out[0] = int(np.flatnonzero(~masks[0])[0])
        return out


def test_an_opponents_illegal_choice_leaves_the_learner_vec_env_as_before_the_step():
    opp = _Stubborn()
    env = LearnerVecEnv("president", 4, opponents=opp, seed=0)
    twin = LearnerVecEnv("president", 4, opponents=_Stubborn(), seed=0)
    obs, _ = env.reset()
    twin.reset()
    actions = np.array([np.flatnonzero(m)[0] for m in env.action_masks()])
    opp.bad = True
    with pytest.raises(ValueError, match="opponent chose the illegal action"):
        env.step(actions)
    assert env.core_states.tobytes() == twin.core_states.tobytes()
    assert (env.action_masks() == twin.action_masks()).all() and (env.seats == twin.seats).all()
    for _ in range(20):
        actions = np.array([np.flatnonzero(m)[0] for m in twin.action_masks()])
        a, b = env.step(actions), twin.step(actions)
        assert (a[0] == b[0]).all() and (a[1] == b[1]).all()
    assert env.core_states.tobytes() == twin.core_states.tobytes()


@pytest.mark.parametrize("actions", [[1.9, 0.5], [True, False], ["1", "0"]])
def test_learner_vec_env_refuses_actions_that_are_not_integers(actions):
    env = LearnerVecEnv("president", 2)
    env.reset(seed=0)
    with pytest.raises(TypeError, match="actions"):
        env.step(np.array(actions))


def test_sb3_vec_env_refuses_float_actions_instead_of_truncating_them():
    pytest.importorskip("stable_baselines3")
    from cardenvs.integrations.sb3 import SB3VecEnv

    venv = SB3VecEnv("president", num_envs=2)
    venv.reset()
    before = venv.learner_env.core_states.copy()
    with pytest.raises(TypeError, match="actions"):
        venv.step(np.array([1.9, 0.5]))
    assert venv.learner_env.core_states.tobytes() == before.tobytes()
    with pytest.raises(TypeError, match="scale_observations"):
        SB3VecEnv("president", num_envs=2, scale_observations="false")


# ------------------------------------------------------------------ pickling and copies
def _roll(env, steps: int = 25) -> list:
    out = []
    for _ in range(steps):
        mask = env.action_masks()
        if isinstance(env, LearnerVecEnv):
            res = env.step(np.array([np.flatnonzero(m)[0] for m in mask]))
            out.append((res[0].tobytes(), res[1].tobytes()))
        else:
            if not mask.any():
                env.reset()
                continue
            res = env.step(int(np.flatnonzero(mask)[-1]))
            out.append((res[0].tobytes(), res[1]))
    return out


@pytest.mark.parametrize("make", [
    lambda: SingleAgentEnv("frime", opponents="heuristic"),
    lambda: SingleAgentEnv("president", opponents="random", scale_observations=True),
    lambda: LearnerVecEnv("odin", 3, opponents="random"),
    lambda: LearnerVecEnv("rami51", 2, opponents="heuristic"),
    lambda: gymnasium.make("cardenvs/president-v0"),
], ids=["single-frime", "single-president", "vec-odin", "vec-rami51", "gymnasium.make"])
def test_the_gymnasium_envs_pickle_and_copy_and_continue_identically(make):
    env = make()
    env.reset(seed=4)
    raw = env.unwrapped if not isinstance(env, LearnerVecEnv) else env
    _roll(raw, 3)
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert _roll(clone if isinstance(env, LearnerVecEnv) else clone.unwrapped) == _roll(copy.deepcopy(raw))
    assert _roll(raw)  # the original goes on


# ------------------------------------------------------------------ RLlib
@pytest.mark.parametrize("action", [1.9, "1", True, 0.5, np.float32(2.0)])
def test_the_rllib_env_refuses_actions_that_are_not_integers(action):
    pytest.importorskip("ray.rllib")
    from cardenvs.integrations.rllib import MultiAgentCardEnv

    env = MultiAgentCardEnv({"game": "president"})
    obs, _ = env.reset(seed=0)
    agent = next(iter(obs))
    before = env.env.state_dict()
    with pytest.raises(TypeError, match="action"):
        env.step({agent: action})
    assert env.env.state_dict() == before


def test_the_rllib_env_refuses_a_string_flag_and_a_finished_match():
    pytest.importorskip("ray.rllib")
    from cardenvs.integrations.rllib import MultiAgentCardEnv

    with pytest.raises(TypeError, match="scale_observations"):
        MultiAgentCardEnv({"game": "president", "scale_observations": "false"})
    env = MultiAgentCardEnv({"game": "odin", "single_round": True})
    env.reset(seed=0)
    before = env.env.state_dict()
    with pytest.raises(ValueError, match="'terminated'.*match is over"):
        env.reset(options={"scenario": _finished_state("odin", single_round=True)})
    assert env.env.state_dict() == before
    with pytest.raises(ValueError, match="option"):
        env.reset(options={"scenaro": before})
