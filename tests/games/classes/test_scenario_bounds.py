"""Classes scenarios: classes, points, contracts and turns within what play can reach
(docs/games/classes.md, "Scenarios")."""

from __future__ import annotations

import pytest

import cardenvs


@pytest.mark.parametrize("change,message", [
    ({"level": [10, 10, 10, 10]}, r"level\[0\] must be 1\.\.1 in round 1"),
    ({"scores": [500, 0, 0, 0]}, r"scores\[0\] must be 0\.\.0 after 0 scored round"),
    ({"laid": [True, False, False, False]}, r"laid\[0\] is true but player 0 has no meld on the table"),
    ({"turns": 10**6}, "turns must stay below max_turns_per_round"),
    ({"num_steps": 50}, "'num_steps': 50 must stay below max_steps 40"),
])
def test_unreachable_positions_are_refused(change, message):
    env = cardenvs.make_raw("classes_v2", max_steps=40)
    env.reset(seed=4)
    before = env.state_dict()
    with pytest.raises(ValueError, match=message):
        env.reset(options={"scenario": {**before, **change}})
    assert env.state_dict() == before


def test_a_later_round_allows_higher_classes_and_points():
    env = cardenvs.make_raw("classes_v2")
    env.reset(seed=4)
    state = env.state_dict()
    env.reset(options={"scenario": {**state, "round": 3, "level": [3, 2, 1, 1], "scores": [0, 100, 520, 7]}})
    assert env.state_dict()["level"] == [3, 2, 1, 1]
