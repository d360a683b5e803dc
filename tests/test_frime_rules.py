"""Frime: scripted scenarios with exact outcomes for the rules, an exhaustive check that a
going out can always be finished and that closing is legal exactly when the rest splits,
random-play invariants, and hidden information.

Positions are built with scenarios and driven with ``str_to_action``; the card a player
draws is set by taking the discard top (the stock order is the seeded shuffle). Seats play
to the left: 0 -> 1 -> 2 -> 3 -> 0. Rules: ``docs/games/frime.md``.
"""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs
from cardenvs.core.vector import RandomSampler
from cardenvs.games import frime as F
from cardenvs.rummy import melds as M
from cardenvs.rummy.split import split_all


def make(**options):
    return cardenvs.make_raw("frime_v0", **options)


def load(env, seed: int = 0, **scenario):
    env.reset(seed=seed, options={"scenario": scenario})
    return env


def legal(env) -> set[str]:
    return {env.action_to_str(a) for a in env.legal_actions()}


def act(env, *texts: str) -> None:
    for text in texts:
        a = env.str_to_action(text)
        assert a in env.legal_actions(), (text, sorted(legal(env)))
        env.step(a)


def st(env) -> dict:
    return env.state_dict()


def hands(*hs: str) -> list[list[str]]:
    return [h.split() for h in hs]


# --------------------------------------------------------------------------- deal
@pytest.mark.parametrize("first_round", [1, 5, 11])
def test_deal_sizes_dealer_and_first_player(first_round):
    env = make(num_players=5, first_round=first_round)
    env.reset(seed=3)
    d = st(env)
    assert d["round"] == first_round
    assert all(len(h) == first_round + 2 for h in d["hands"])
    assert len(d["pile"]) == 1
    assert sum(len(h) for h in d["hands"]) + len(d["stock"]) + 1 == 108
    assert d["current"] == (d["dealer"] + 1) % 5
    assert d["money"] == [450] * 5 and d["pot"] == 250


def test_next_round_deals_one_more_card_and_the_dealer_moves_left():
    env = make()
    load(env, hands=hands("3h 4h Kc", "9c 9d Jh", "5s 6s Qd", "7c 8d Ad"), pile=["5h"], current=0, dealer=3,
         phase="draw")
    act(env, "take", "discard Kc", "out", "run", "3h", "4h", "5h", "close")
    for _ in range(3):  # the last turns: draw and discard
        act(env, "draw")
        d = st(env)
        act(env, "discard " + d["hands"][d["current"]][0])
        if st(env)["phase"] == "lay":  # the drawn card made a meld possible: lay nothing
            act(env, "end")
    d = st(env)
    assert d["round"] == 2 and d["dealer"] == 0 and d["current"] == 1
    assert all(len(h) == 4 for h in d["hands"])


# --------------------------------------------------------------------------- draw, buy
def test_buy_takes_the_card_under_the_top_for_10_cents_into_the_pot():
    env = make()
    load(env, hands=hands("3h 4h Kc", "9c 9d Jh", "5s 6s Qd", "7c 8d Ad"), pile=["5h", "Tc"], current=0,
         phase="draw")
    assert legal(env) == {"draw", "take", "buy"}
    act(env, "buy")
    d = st(env)
    assert sorted(d["hands"][0]) == sorted(["3h", "4h", "Kc", "5h"])
    assert d["pile"] == ["Tc"] and d["money"][0] == 440 and d["pot"] == 210


def test_buying_costs_20_cents_in_rounds_of_10_to_13_cards():
    env = make(first_round=8)
    env.reset(seed=1)
    d = st(env)
    p = d["current"]
    h = [list(x) for x in d["hands"]]
    load(env, hands=h, pile=d["pile"] + ["Tc"] if d["pile"][0] != "Tc" else d["pile"] + ["Td"], current=p,
         phase="draw")
    act(env, "buy")
    d = st(env)
    assert d["money"][p] == 430 and d["pot"] == 220


def test_no_buy_with_a_single_card_in_the_discard_pile():
    env = make()
    load(env, hands=hands("3h 4h Kc", "9c 9d Jh", "5s 6s Qd", "7c 8d Ad"), pile=["5h"], current=0, phase="draw")
    assert legal(env) == {"draw", "take"}


# --------------------------------------------------------------------------- going out
def test_going_out_is_offered_only_when_the_hand_splits():
    env = make()
    load(env, hands=hands("3h 4h Kc", "9c 9d Jh", "5s 6s Qd", "7c 8d Ad"), pile=["5h"], current=0, phase="draw")
    act(env, "take", "discard Kc")
    assert legal(env) == {"out", "end"}
    env2 = make()
    load(env2, hands=hands("3h 4h Kc", "9c 9d Jh", "5s 6s Qd", "7c 8d Ad"), pile=["9s"], current=0, phase="draw")
    act(env2, "take", "discard Kc")  # 3h 4h 9s: no meld
    d = st(env2)
    assert d["current"] == 1 and d["phase"] == "draw"


def test_a_complete_hand_must_still_draw_and_discard():
    env = make()
    load(env, hands=hands("3h 4h 5h", "9c 9d Jh", "5s 6s Qd", "7c 8d Ad"), pile=["Kc"], current=0, phase="draw")
    assert legal(env) == {"draw", "take"}
    act(env, "take")
    assert "out" not in legal(env) and all(m.startswith("discard") for m in legal(env))


def test_going_out_lays_every_card_and_earns_a_flocon():
    env = make()
    load(env, hands=hands("3h 4h Kc", "9c 9d Jh", "5s 6s Qd", "7c 8d Ad"), pile=["5h"], current=0, phase="draw")
    act(env, "take", "discard Kc", "out")
    assert legal(env) == {"run"}  # no end while going out; 3h 4h 5h is no set
    act(env, "run")
    assert legal(env) == {"add 3h"}  # a run from 4h would leave 3h alone
    act(env, "3h", "4h", "5h")
    assert "close" in legal(env)
    act(env, "close")
    d = st(env)
    assert d["out_player"] == 0 and d["flocons"] == [1, 0, 0, 0] and d["last_turns"] == 3
    assert d["melds"] == [{"kind": "run", "owner": 0, "cards": ["3h", "4h", "5h"]}]
    assert d["current"] == 1 and d["phase"] == "draw"


def test_frimes_are_wild_and_keep_their_position():
    env = make()
    load(env, hands=hands("3h X Kc", "9c 9d Jh", "5s 6s Qd", "7c 8d Ad"), pile=["2c"], current=0, phase="draw")
    act(env, "take", "discard Kc", "out", "run", "3h", "add *=4h", "add *=5h", "close")
    d = st(env)
    assert d["melds"][0]["cards"] == ["3h", "X=4h", "2c=5h"]  # jokers are laid before 2s
    assert d["out_player"] == 0


def test_sets_with_identical_cards_and_a_meld_of_frimes_only():
    env = make()
    load(env, hands=hands("7c 7c 2d X 2s Kd", "9c 9d Jh", "5s 6s Qd", "7d 8d Ad"), pile=["7h"], current=0,
         phase="draw", round=4)
    act(env, "take", "discard Kd", "out")
    assert legal(env) == {"set", "run"}
    act(env, "set", "7c", "7c", "7h", "close", "set", "add *=7", "add *=7", "add *=7", "close")
    d = st(env)
    assert d["melds"][0]["cards"] == ["7c", "7c", "7h"]
    assert d["melds"][1] == {"kind": "set", "owner": 0, "cards": ["X=7", "2d=7", "2s=7"]}


def test_aces_are_only_above_the_king():
    assert not split_all(F.RULES, M.hand_counts("Ah 2h 3h 9c"))  # no A-2-3
    assert split_all(F.RULES, M.hand_counts("Qh Kh Ah"))
    env = make()
    load(env, hands=hands("Qh Kh 9c", "9s 9d Jh", "5s 6s Qd", "7c 8d Ad"), pile=["Ah"], current=0, phase="draw")
    act(env, "take", "discard 9c", "out", "run", "Qh", "Kh", "Ah", "close")
    assert st(env)["melds"][0]["cards"] == ["Qh", "Kh", "Ah"]


# --------------------------------------------------------------------------- the last turns and the score
def _out_position(**kw):
    env = make(**kw)
    load(env, hands=hands("3h 4h Kc", "6h 9d Jh", "Js Jd Qd", "7c 8d Ad"), pile=["5h"], current=0, phase="draw")
    act(env, "take", "discard Kc", "out", "run", "3h", "4h", "5h", "close")
    return env


def test_last_turns_lay_own_melds_and_add_only_to_the_first_players_melds():
    env = _out_position()
    # player 1: draws Kc (the discard), discards 9d; may add 6h to player 0's run
    act(env, "take", "discard 9d")
    assert legal(env) == {"end", "layoff 0"}
    act(env, "layoff 0")
    assert legal(env) == {"add 6h"}
    act(env, "6h")
    d = st(env)
    assert d["melds"][0]["cards"] == ["3h", "4h", "5h", "6h"]
    assert d["current"] == 2  # Jh Kc: nothing more to lay, the turn ended by itself
    # player 2: takes 9d, discards Qd: Js Jd 9d, nothing to lay
    act(env, "take", "discard Qd")
    d = st(env)
    assert d["current"] == 3  # Js Jd 9d: nothing to lay, the turn ended by itself
    act(env, "take", "discard Ad")  # player 3: Qd 7c 8d: nothing; the round ends
    d = st(env)
    assert d["round"] == 2
    # points: player 1 Jh Kc -> 20, player 2 Js Jd 9d -> 29, player 3 7c 8d Qd -> 25
    assert d["round_points"] == [0, 20, 29, 25]
    assert d["scores"] == [0, 20, 29, 25] and d["flocons"] == [1, 0, 0, 0]


def test_points_and_flocons_double_in_rounds_of_10_to_13_cards():
    env = make(first_round=8, single_round=True)
    load(env, hands=hands("3h 4h 5h 6h 7h 8h 9h Th Jh Kc", "3c 5c 7c 9c Jc 4d 6d 8d Td Qd",
                          "3s 5s 7s 9s Js As 4c 6c 8c Tc", "3d 5d 7d 9d Jd Ad 4s 6s 8s Ts"),
         pile=["Qh"], current=0, phase="draw")
    act(env, "take", "discard Kc", "out", "run", "3h", "4h", "5h", "6h", "7h", "8h", "9h", "Th", "Jh", "Qh", "close")
    for _ in range(3):  # each takes the king and throws it back: nothing to lay
        act(env, "take", "discard Kc")
    d = st(env)
    assert d["terminated"]
    assert d["flocons"] == [2, 0, 0, 0]
    assert d["scores"] == [0, 144, 126, 126]


# --------------------------------------------------------------------------- the money
def test_settlement_and_the_pot_at_the_end_of_the_match():
    env = _out_position(single_round=True)
    act(env, "take", "discard 9d", "layoff 0", "6h")
    act(env, "take", "discard Qd")
    act(env, "take", "discard Ad")
    d = st(env)
    assert d["terminated"] and d["phase"] == "over"
    pts = [0, 20, 29, 25]
    fl = [1, 0, 0, 0]
    settle = [10 * (4 * fl[i] - sum(fl)) + (sum(pts) - 4 * pts[i]) for i in range(4)]
    pot = [200, 0, 0, 0]  # player 0 has the lowest score
    assert d["money"] == [450 + settle[i] + pot[i] for i in range(4)]
    assert sum(d["money"]) == 2000 and d["pot"] == 0
    assert env.rewards == {f"player_{i}": pytest.approx((d["money"][i] - 500) / 100) for i in range(4)}


def test_round_rewards_add_up_to_the_match_rewards():
    totals = {}
    for mode in ("match", "round"):
        env = cardenvs.make("frime_v0", reward_mode=mode, first_round=9)
        env.reset(seed=4)
        rng = np.random.default_rng(0)
        ret = dict.fromkeys(env.possible_agents, 0.0)
        from agents import make_agent

        heur = make_agent("heuristic", cardenvs.get_spec("frime"))
        for agent in env.agent_iter():
            obs, rew, term, trunc, _ = env.last()
            ret[agent] += rew
            if term or trunc:
                env.step(None)
                continue
            env.step(heur.act(obs["observation"], obs["action_mask"]) if rng.random() < 0.9
                     else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        totals[mode] = ret
    for a in totals["match"]:
        assert totals["match"][a] == pytest.approx(totals["round"][a], abs=1e-4)
    assert sum(totals["match"].values()) == pytest.approx(0.0, abs=1e-4)


def test_a_tie_shares_the_pot_with_the_odd_cent_in_seat_order():
    env = make(single_round=True)
    load(env, hands=hands("", "9c Jh Kc", "2c 2d", "7c 8d Qd"), pile=["Ad"], current=3, phase="draw",
         melds=[{"kind": "run", "owner": 0, "cards": ["3h", "4h", "5h"]}], out_player=0, last_turns=1,
         flocons=[1, 0, 1, 0], pot=201, money=[450, 450, 450, 449])
    act(env, "take", "discard Ad")
    d = st(env)
    assert d["terminated"] and d["scores"] == [0, 29, 0, 25]
    # settlement: flocons +20 -20 +20 -20, points +54 -62 +54 -46; pot 201: 101 to seat 0, 100 to seat 2
    assert d["money"] == [625, 368, 624, 383]


# --------------------------------------------------------------------------- exact masks
def _walk_going_out(env, depth=0):
    """Every masked-in step of a going out, exhaustively: each path lays the whole hand."""
    d = st(env)
    if d["out_player"] >= 0:
        return 1
    acts = env.legal_actions()
    assert acts, d
    n = 0
    for a in acts:
        c = env.clone()
        c.step(a)
        n += _walk_going_out(c, depth + 1)
    return n


@pytest.mark.parametrize("seed", range(6))
def test_every_masked_step_of_a_going_out_can_be_finished(seed):
    rng = np.random.default_rng(seed)
    env = make()
    found = 0
    for _ in range(400):
        env.reset(seed=int(rng.integers(1 << 30)))
        d = st(env)
        p = d["current"]
        hand = list(d["hands"][p])
        # draw the pile top and see if the hand splits after some discard
        pool = hand + d["pile"][-1:]
        for k in range(len(pool)):
            rest = pool[:k] + pool[k + 1:]
            if split_all(F.RULES, M.hand_counts(" ".join(rest))):
                act(env, "take", "discard " + pool[k], "out")
                paths = _walk_going_out(env)
                assert paths >= 1
                found += 1
                break
        if found >= 3:
            break
    assert found >= 1


def test_close_is_legal_exactly_when_the_rest_splits():
    env = make()
    # 3h 4h 5h 6h 6c 6d after the discard: the run 3h-5h leaves 6h 6c 6d (a set); 3h-6h leaves 6c 6d
    load(env, hands=hands("3h 4h 5h 6h 6c Kc", "9c 9d Jh", "5s 6s Qd", "7c 8d Ad"), pile=["6d"], current=0,
         phase="draw", round=4)
    act(env, "take", "discard Kc", "out", "run", "3h", "4h", "5h")
    assert "close" in legal(env)
    assert "add 6h" not in legal(env)  # 6c 6d alone cannot be laid
    act(env, "close", "set", "6c", "6d", "6h", "close")
    assert st(env)["out_player"] == 0


# --------------------------------------------------------------------------- random play
def test_random_play_invariants():
    env = cardenvs.make_vec("frime_v0", num_envs=128, seed=9, first_round=1, single_round=True)
    s = env.reset(seed=9)
    sample = RandomSampler(4)
    deck = F.deck_counts(None)
    ended = 0
    for _ in range(1500):
        s = env.step(sample(s.legal_action_mask))
        live = ~(s.terminated | s.truncated)
        assert s.legal_action_mask[live].any(axis=1).all()
        done = s.terminated
        if done.any():
            ended += int(done.sum())
            assert np.allclose(s.rewards[done].sum(axis=1), 0.0, atol=1e-4)
        for i in range(0, 128, 16):
            rec = env.states[i]
            counts = rec["hands"][:4].sum(axis=0).astype(np.int64)
            counts += np.bincount(rec["stock"][: rec["stock_n"]], minlength=53)
            counts += np.bincount(rec["pile"][: rec["pile_n"]], minlength=53)
            counts += F.custom_counts(rec, "melds") + F.custom_counts(rec, "build")
            assert (counts == deck).all()
    assert ended > 50


def test_hidden_cards_do_not_change_the_observation():
    env = make()
    env.reset(seed=5)
    d = st(env)
    viewer = d["current"]
    other = (viewer + 1) % 4
    obs = env.observe(f"player_{viewer}")["observation"].copy()
    # swap a card of another hand with a stock card of a different type
    h = [list(x) for x in d["hands"]]
    stock = list(d["stock"])
    j = next(i for i, c in enumerate(stock) if c != h[other][0])
    h[other][0], stock[j] = stock[j], h[other][0]
    d2 = dict(d, hands=h, stock=stock[::-1])
    env.reset(seed=5, options={"scenario": d2})
    assert (env.observe(f"player_{viewer}")["observation"] == obs).all()


def test_scenario_round_trip_and_move_strings():
    env = _out_position()
    d = st(env)
    env2 = make()
    env2.reset(seed=1, options={"scenario": d})
    assert st(env2) == d
    for a in range(F.NUM_ACTIONS):
        assert F.str_to_action(F.action_to_str(a)) == a
    assert F.str_to_action("*=7") == F.FRIME0 + 6 * 4
