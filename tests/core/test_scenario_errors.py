"""Scenario values that the loader refuses, each with the field named (and the env unchanged)."""

from __future__ import annotations

import math

import pytest

import cardenvs

CASES = [
    ("president_v0", {"round": 40000}, "'round': 40000 is out of range"),
    ("president_v0", {"round": 0}, "'round': 0 is out of range (1.."),
    ("president_v0", {"rng": "-1"}, "'rng': expected 16 hex digits"),
    ("president_v0", {"rng": 5}, "'rng': expected 16 hex digits"),
    ("president_v0", {"pile_rank": 1.5}, "'pile_rank': expected one of"),
    ("president_v0", {"pile_rank": "45"}, "'pile_rank': expected one of"),
    ("president_v0", {"num_steps": -1}, "'num_steps': -1 is out of range (0.."),
    ("president_v0", {"scores": [-5, 0, 0, 0]}, "scores[0]: -5 is out of range (0.."),
    ("president_v0", {"rewards": [math.nan, 0, 0, 0]}, "rewards[0]: expected a finite number"),
    ("odin_v1", {"rewards": [0, math.inf, 0, 0]}, "rewards[1]: expected a finite number"),
    ("rami51_v3", {"scores": [5000, 0]}, "player 0 has 5000 points, at or past the elimination score 1000"),
    ("rami51_v3", {"turns": -2}, "'turns': -2 is out of range (0.."),
    ("classes_v2", {"round_points": [0, -1, 0, 0]}, "round_points[1]: -1 is out of range"),
    ("president_v0", {"pile_count": -1}, "'pile_count': -1 is out of range (0.."),
    ("president_v0", {"run_count": -1}, "'run_count': -1 is out of range (0.."),
    # an option of the wrong kind is not the env's, though equal in Python (True == 1)
    ("president_v0", {"decks": True}, "scenario sets option decks=True"),
    ("rami51_v3", {"decks": True}, "scenario sets option decks=True"),
    ("frime_v1", {"first_round": True}, "scenario sets option first_round=True"),
    ("classes_v2", {"first_class": 1.0}, "scenario sets option first_class=1.0"),
]


@pytest.mark.parametrize("env_id,change,message", CASES, ids=[f"{c[0]}-{next(iter(c[1]))}" for c in CASES])
def test_a_bad_scenario_value_is_refused_naming_its_field(env_id, change, message):
    env = cardenvs.make_raw(env_id)
    env.reset(seed=1)
    before = env.state_dict()
    with pytest.raises(ValueError, match="scenario") as err:
        env.reset(options={"scenario": {**before, **change}})
    assert message in str(err.value)
    assert env.state_dict() == before  # nothing changed
