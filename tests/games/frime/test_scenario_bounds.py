"""Frime scenarios: counters within what play can reach, so that the payout cannot overflow
and the observation stays within its space (docs/games/frime.md, "Scenarios")."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs


def _env(**options):
    env = cardenvs.make_raw("frime_v1", **options)
    env.reset(seed=2)
    return env


@pytest.mark.parametrize("change,message", [
    ({"scores": [2**31 - 100, 0, 0, 0]}, r"scores\[0\] must be 0\.\.0"),
    ({"scores": [0, -40000, 0, 0]}, r"scores\[1\] must be 0\.\.0"),
    ({"flocons": [-32768, 0, 0, 0]}, r"flocons\[0\] must be 0\.\.0"),
    ({"money": [1000, 0, 250, 250], "pot": 500}, r"money\[0\] must be .*\.\.450"),
    ({"turns": 10**6}, "turns must stay below max_turns_per_round 200"),
    ({"rewards": [1e39, 0, 0, 0]}, r"rewards\[0\]: expected a finite number within float32"),
    ({"round_points": [5, 0, 0, 0]}, r"round_points\[0\] must be 0\.\.0"),
])
def test_unreachable_counters_are_refused(change, message):
    env = _env(single_round=True)
    before = env.state_dict()
    with pytest.raises(ValueError, match=message):
        env.reset(options={"scenario": {**before, **change}})
    assert env.state_dict() == before


def test_a_hand_that_round_one_cannot_deal_is_refused():
    env = _env()
    before = env.state_dict()
    hands = [list(h) for h in before["hands"]]
    cur = before["current"]
    hands[(cur + 1) % 4] = hands[(cur + 1) % 4][:1]  # 1 card in round 1 (3 dealt), nobody out
    with pytest.raises(ValueError, match=r"hands\[.\] holds 1 cards; in round 1"):
        env.reset(options={"scenario": {**before, "hands": hands,
                                        "stock": before["stock"] + before["hands"][(cur + 1) % 4][1:]}})
    assert env.state_dict() == before


def test_the_largest_reachable_scores_pay_out_within_int32_and_stay_zero_sum():
    env = cardenvs.make_raw("frime_v1", first_round=11)
    env.reset(seed=0)
    state = env.state_dict()
    state["scores"] = [0, 0, 0, 0]
    state["round"] = 11
    env.reset(options={"scenario": state})
    rng = np.random.default_rng(0)
    total = np.zeros(4)
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        env.step(int(rng.choice(env.legal_actions())))
        total += [env.rewards[a] for a in env.possible_agents]
    assert abs(total.sum()) < 1e-3
    obs = env.observe("player_0")["observation"]
    space = env.observation_space("player_0")["observation"]
    assert space.contains(obs)
