"""The boundary rule: every value that reaches a kernel is checked in Python first; a bad
one raises ValueError/TypeError naming it and changes nothing (no coercion, no wrap-around)."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs
from cardenvs.core.registry import GAMES

ENV_IDS = list(GAMES)


def _loaded(env_id: str, seed: int = 1):
    env = cardenvs.make_raw(env_id)
    env.reset(seed=seed)
    return env


# ------------------------------------------------------------------ hands modulo 256
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_card_held_256_times_or_more_is_refused_not_kept_modulo_256(env_id):
    env = _loaded(env_id)
    before = env.state_dict()
    hands = [list(h) for h in before["hands"]]
    card = hands[0][0]
    hands[0] = [card] * 259  # stored modulo 256, this was a 3-card hand
    with pytest.raises(ValueError, match=r"hands\[0\].*appears 259 times"):
        env.reset(options={"scenario": {**before, "hands": hands}})
    assert env.state_dict() == before


# ------------------------------------------------------------------ actions through make()
@pytest.mark.parametrize("action,error", [(3.7, TypeError), ("3", TypeError), (True, TypeError),
                                          (np.float64(2.0), TypeError), (999, ValueError), (-1, ValueError)])
def test_the_wrapped_env_refuses_bad_actions_with_type_or_value_errors(action, error):
    env = cardenvs.make("president_v0")
    env.reset(seed=0)
    before = env.unwrapped.state_dict()
    with pytest.raises(error, match="action"):
        env.step(action)
    assert env.unwrapped.state_dict() == before
    env.step(env.unwrapped.legal_actions()[0])  # an int still plays
    env.step(np.int64(env.unwrapped.legal_actions()[0]))


# ------------------------------------------------------------------ reset options
@pytest.mark.parametrize("options,error", [([("scenario", {})], TypeError), ("scenario", TypeError),
                                           ({"scenaro": {}}, ValueError), ({"seed": 1}, ValueError)])
def test_reset_refuses_options_that_are_not_a_dict_of_known_keys(options, error):
    env = _loaded("frime_v1")
    before = env.state_dict()
    with pytest.raises(error, match="option"):
        env.reset(options=options)
    assert env.state_dict() == before


# ------------------------------------------------------------------ VecEnv indices
@pytest.mark.parametrize("i,error", [(-1, ValueError), (2, ValueError), ("0", TypeError), (True, TypeError),
                                     (1.0, TypeError)])
def test_vecenv_state_dict_takes_only_a_game_index(i, error):
    venv = cardenvs.make_vec("odin_v1", num_envs=2)
    venv.reset()
    with pytest.raises(error, match="game index"):
        venv.state_dict(i)
    with pytest.raises(error, match="game index"):
        venv.load_state_dict(i, venv.state_dict(0))


# ------------------------------------------------------------------ finished matches in a VecEnv
def _finished_state(env_id: str) -> dict:
    env = cardenvs.make_raw(env_id, single_round=True)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        env.step(int(rng.choice(env.legal_actions())))
    return env.state_dict()


@pytest.mark.parametrize("final_observation", [False, True])
def test_a_finished_match_is_refused_by_an_auto_reset_vecenv(final_observation):
    done = _finished_state("odin_v1")
    venv = cardenvs.make_vec("odin_v1", num_envs=2, single_round=True, final_observation=final_observation)
    venv.reset()
    before = venv.states.copy()
    with pytest.raises(ValueError, match="'terminated'.*finished match"):
        venv.load_state_dict(1, done)
    assert venv.states.tobytes() == before.tobytes()
    state = venv.step(np.array([np.flatnonzero(m)[0] for m in venv._legal]))
    assert state.legal_action_mask.any(axis=1).all()


def test_a_finished_match_loads_without_auto_reset_and_stays_finished():
    done = _finished_state("odin_v1")
    venv = cardenvs.make_vec("odin_v1", num_envs=2, single_round=True, auto_reset=False)
    venv.reset()
    state = venv.load_state_dict(1, done)
    assert not state.legal_action_mask[1].any()
    assert venv.state_dict(1) == done


# ------------------------------------------------------------------ partial scenarios: one deal in both front ends
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_partial_scenario_deals_the_same_in_the_aec_and_the_vector_env(env_id):
    env = _loaded(env_id)
    full = env.state_dict()
    partial = {"hands": [full["hands"][0]] + [None] * (len(full["hands"]) - 1)}
    env.reset(seed=11, options={"scenario": partial})
    venv = cardenvs.make_vec(env_id, num_envs=2)
    venv.reset()
    venv.load_state_dict(1, partial, seed=11)
    assert venv.state_dict(1) == env.state_dict()


# ------------------------------------------------------------------ counters no play reaches, every game
SIBLINGS = [
    ("odin_v1", {}, {"scores": [32760, 0, 0, 0]}, r"scores\[0\] must be 0\.\.14 while the match runs"),
    ("odin_v1", {}, {"round_points": [30, 0, 0, 0]}, r"round_points\[0\] must be 0\.\.0"),
    ("president_v0", {}, {"scores": [500, 0, 0, 0]}, r"scores\[0\] must be 0\.\.0 after 0 finished round"),
    ("rami51_v3", {}, {"turns": 10**6}, "turns must stay below max_turns_per_round"),
    ("president_v0", {"max_steps": 30}, {"num_steps": 30}, "'num_steps': 30 must stay below max_steps 30"),
    ("odin_v1", {"max_steps": 30}, {"num_steps": 10**6}, "'num_steps': 1000000 must stay below max_steps 30"),
] + [(g, {"num_players": 4}, {"rewards": [1e39, 0.0, 0.0, 0.0]}, "within float32") for g in ENV_IDS]


@pytest.mark.parametrize("env_id,options,change,message", SIBLINGS,
                         ids=[f"{c[0]}-{next(iter(c[2]))}" for c in SIBLINGS])
def test_counters_no_play_reaches_are_refused_in_every_game(env_id, options, change, message):
    env = cardenvs.make_raw(env_id, **options)
    env.reset(seed=2)
    before = env.state_dict()
    with pytest.raises(ValueError, match=message):
        env.reset(options={"scenario": {**before, **change}})
    assert env.state_dict() == before
