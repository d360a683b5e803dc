"""Frime: scripted scenarios with exact outcomes for the rules, an exhaustive check that a
going out can always be finished and that closing is legal exactly when the rest splits,
random-play invariants, and hidden information.

Positions are built with scenarios and driven with ``str_to_action``; the card a player
draws is set by taking the discard top (the stock order is the seeded shuffle). Seats play
to the left: 0 -> 1 -> 2 -> 3 -> 0. Rules: ``docs/games/frime.md``.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import cardenvs
import cardenvs.games.frime as FD
from cardenvs.core.vector import RandomSampler
from cardenvs.games.frime import rules as F
from cardenvs.games.frime import text as FT
from cardenvs.rummy import melds as M
from cardenvs.rummy.split import hand_splits
from tests.games.table import OneGame, act, legal, st


def make(**options):
    return cardenvs.make_raw("frime_v1", **options)


def load(env, seed: int = 0, **scenario):
    env.reset(seed=seed, options={"scenario": _reachable(scenario)})
    return env


def _reachable(scenario: dict) -> dict:
    """A short-hand position made reachable (the loader refuses positions no play reaches):
    before anybody is out, every other hand holds what the round dealt, so the hands of the
    players not to move are padded with cards the scenario leaves free (the tests look at the
    player to move); a player out this round has the flocon of it."""
    out = scenario.get("out_player", -1)
    if "hands" in scenario and out < 0 and scenario.get("phase") != "over":
        dealt = scenario.get("round", 1) + 2
        used = Counter(c for key in ("pile", "stock") for c in scenario.get(key, []))
        used.update(c for h in scenario["hands"] if h for c in h)
        for m in scenario.get("melds", []):
            used.update(c.split("=")[0] for c in m["cards"])
        free = [c for c in FT.CARD_NAMES if c[0] in "89TJ" for _ in range(2 - used[c])]
        cur = scenario.get("current", 0)
        padded = []
        for q, h in enumerate(scenario["hands"]):
            h = list(h) if h is not None else None
            if h is not None and q != cur and len(h) < dealt:
                h, free = h + free[: dealt - len(h)], free[dealt - len(h):]
            padded.append(h)
        scenario = {**scenario, "hands": padded}
    if out >= 0 and "flocons" not in scenario and scenario.get("phase") != "over":
        flocons = [0] * len(scenario.get("hands", [0] * 4))
        flocons[out] = 2 if scenario.get("round", 1) >= F.DOUBLED_FROM else 1
        scenario = {**scenario, "flocons": flocons}
    return scenario


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
    assert not hand_splits(F.RULES, M.hand_counts("Ah 2h 3h 9c"))  # no A-2-3
    assert hand_splits(F.RULES, M.hand_counts("Qh Kh Ah"))
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
        env = cardenvs.make("frime_v1", reward_mode=mode, first_round=9)
        env.reset(seed=4)
        rng = np.random.default_rng(0)
        ret = dict.fromkeys(env.possible_agents, 0.0)
        from cardenvs.agents import make_agent

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
    # the last round (doubled), seats 0 and 2 tied on points and flocons (a tie in flocons needs
    # earlier rounds: a position of round 11)
    env = make()
    load(env, hands=hands("", "9c Jh Kc", "2c 2d", "7c 8d Qd"), pile=["Ad"], current=3, phase="draw", round=11,
         melds=[{"kind": "run", "owner": 0, "cards": ["3h", "4h", "5h"]}], out_player=0, last_turns=1,
         flocons=[2, 0, 2, 0], pot=201, money=[450, 450, 450, 449])
    act(env, "take", "discard Ad")
    d = st(env)
    assert d["terminated"] and d["scores"] == [0, 58, 0, 50]
    # settlement: flocons +40 -40 +40 -40, points +108 -124 +108 -92; pot 201: 101 to seat 0, 100 to seat 2
    assert d["money"] == [699, 286, 698, 317]


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
            if hand_splits(F.RULES, M.hand_counts(" ".join(rest))):
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
    env = cardenvs.make_vec("frime_v1", num_envs=128, seed=9, first_round=1, single_round=True)
    s = env.reset(seed=9)
    sample = RandomSampler(4)
    deck = FT.deck_counts(None)
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
            counts += FT.custom_counts(rec, "melds") + FT.custom_counts(rec, "build")
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
        assert FT.str_to_action(FT.action_to_str(a)) == a
    assert FT.str_to_action("*=7") == F.FRIME0 + 6 * 4


# --------------------------------------------------------------------------- exact masks: brute force
WILD = -1  # a frime, whichever card it is


def _ref_melds(counts):
    """Every meld the cards can form, from the rules: (meld, cards used). A meld is
    ("run", suit, ((pos, card or W), ...)) or ("set", rank, (natural cards sorted..., W...))."""
    wilds = sum(int(counts[c]) for c in FT.WILD_TYPES)
    out = []
    for t in range(4):
        for lo in range(2, 12):
            for hi in range(lo + 2, 14):
                cells = [(q, (0 if q == 13 else q) * 4 + t) for q in range(lo, hi + 1)]
                for mask in range(1 << len(cells)):
                    w = bin(mask).count("1")
                    if w > wilds:
                        continue
                    nat = [c for i, (_, c) in enumerate(cells) if not (mask >> i) & 1]
                    if any(nat.count(c) > counts[c] for c in nat):
                        continue
                    meld = ("run", t, tuple((q, WILD if (mask >> i) & 1 else c) for i, (q, c) in enumerate(cells)))
                    out.append((meld, nat, w))
    for r in [0] + list(range(2, 13)):
        avail = [int(counts[r * 4 + t]) for t in range(4)]
        for k in np.ndindex(*(a + 1 for a in avail)):
            nat = [r * 4 + t for t in range(4) for _ in range(k[t])]
            for w in range(wilds + 1):
                if len(nat) + w >= 3:
                    out.append((("set", r, tuple(sorted(nat)) + (WILD,) * w), nat, w))
    return out


def _ref_splits(counts):
    """Every way to lay all the cards as melds: {sorted tuple of melds}."""
    melds = _ref_melds(counts)
    results = set()

    def go(start, left_nat, left_w, chosen):
        if sum(left_nat.values()) == 0 and left_w == 0:
            results.add(tuple(sorted(chosen)))
            return
        for i in range(start, len(melds)):
            m, nat, w = melds[i]
            if w > left_w or any(nat.count(c) > left_nat.get(c, 0) for c in set(nat)):
                continue
            rest = dict(left_nat)
            for c in nat:
                rest[c] -= 1
            go(i, rest, left_w - w, chosen + [m])

    nat = {c: int(counts[c]) for c in range(52) if counts[c] and c not in FT.WILD_TYPES}
    go(0, nat, sum(int(counts[c]) for c in FT.WILD_TYPES), [])
    return results


def _table_outcome(rec):
    out = []
    for m in range(int(rec["num_melds"])):
        kind = int(rec["meld_kind"][m])
        slots = [int(x) for x in rec["meld_slot"][m]]
        if kind == M.KIND_RUN:
            cells = tuple((q, WILD if FT._is_wild(c) else c) for q, c in enumerate(slots) if c >= 0)
            out.append(("run", int(rec["meld_key"][m]), cells))
        else:
            nat = sorted(c for c in slots if c >= 0 and not FT._is_wild(c))
            w = sum(1 for c in slots if c >= 0 and FT._is_wild(c))
            out.append(("set", int(rec["meld_key"][m]), tuple(nat) + (WILD,) * w))
    return tuple(sorted(out))


def _mask_outcomes(env):
    """Every table reachable through the masks from here to the end of the going out
    (depth first over the legal steps, on copies of the state); no dead end."""
    outs = set()
    kernels = OneGame(FD)
    me = int(env._state[0]["current"])

    def dfs(state):
        if int(state[0]["out_player"]) == me:
            outs.add(_table_outcome(state[0]))
            return
        legal_ = np.flatnonzero(state[0]["legal"])
        assert legal_.size, FT.render_text(state[0])
        for a in legal_:
            dfs(kernels.stepped(state, a))

    dfs(env._state.copy())
    return outs


@pytest.mark.parametrize("seed", range(3))
def test_going_out_masks_reach_exactly_every_split(seed):
    """From small hands that split, the tables the going-out masks reach are exactly the
    ways to lay the hand as melds (brute force from the rules: every meld, every frime
    position, sets with identical cards, melds of frimes only)."""
    rng = np.random.default_rng(seed)
    pool = [c for c in range(52) if c // 4 in (0, 2, 3, 4, 5, 11, 12) and c % 4 < 2] * 2 + [52, 52, 4, 5]
    checked = 0
    for it in range(400):
        rng.shuffle(pool)
        n = int(rng.integers(3, 7))
        hand = pool[:n]
        counts = np.bincount(hand, minlength=53)
        if sum(counts[c] for c in FT.WILD_TYPES) > 2 or not hand_splits(F.RULES, counts):
            continue
        env = make()
        others = ["9c 9d Jh", "5s 6s Qd", "7c 8d Ad"]
        load(env, seed=it, hands=[[FT.CARD_NAMES[c] for c in hand]] + [h.split() for h in others], current=0,
             phase="choose", round=max(1, n - 2))
        act(env, "out")
        got = _mask_outcomes(env)
        ref = _ref_splits(counts)
        assert got == ref, (hand, sorted(got ^ ref)[:3])
        checked += 1
        if checked >= 6:
            break
    assert checked >= 4


def _ref_extensions(meld, nat_left, w_left):
    """Every way to add cards to a table meld of the first player: (meld, naturals, wilds)."""
    kind, key, cells = meld
    out = [(meld, [], 0)]
    if kind == "run":
        lo, hi = cells[0][0], cells[-1][0]
        for a in range(lo - 2 + 1):
            for b in range(13 - hi + 1):
                qs = list(range(lo - a, lo)) + list(range(hi + 1, hi + b + 1))
                if not qs:
                    continue
                for mask in range(1 << len(qs)):
                    w = bin(mask).count("1")
                    nat = [(0 if q == 13 else q) * 4 + key for i, q in enumerate(qs) if not (mask >> i) & 1]
                    if w > w_left or any(nat.count(c) > nat_left.get(c, 0) for c in set(nat)):
                        continue
                    new = sorted(list(cells) + [(q, WILD if (mask >> i) & 1 else (0 if q == 13 else q) * 4 + key)
                                                for i, q in enumerate(qs)])
                    out.append((("run", key, tuple(new)), nat, w))
        return out
    avail = [nat_left.get(key * 4 + t, 0) for t in range(4)]
    base = [c for c in cells if c != WILD]
    w0 = len(cells) - len(base)
    for k in np.ndindex(*(a + 1 for a in avail)):
        nat = [key * 4 + t for t in range(4) for _ in range(k[t])]
        for w in range(w_left + 1):
            if nat or w:
                out.append((("set", key, tuple(sorted(base + nat)) + (WILD,) * (w0 + w)), nat, w))
    return out


def _ref_last_turn(counts, table):
    """Every end of a last turn (after the discard), from the rules: any own melds, and any
    cards added to the first player's melds. {(table, remaining naturals, remaining wilds)}."""
    melds = _ref_melds(counts)
    outs = set()
    nat0 = {c: int(counts[c]) for c in range(52) if counts[c] and c not in FT.WILD_TYPES}
    w0 = sum(int(counts[c]) for c in FT.WILD_TYPES)

    def extend(i, left, w, new_table):
        if i == len(table):
            rest = tuple(sorted(c for c, k in left.items() for _ in range(k)))
            outs.add((tuple(sorted(new_table)), rest, w))
            return
        for m, nat, ww in _ref_extensions(table[i], left, w):
            rest = dict(left)
            for c in nat:
                rest[c] -= 1
            extend(i + 1, rest, w - ww, new_table + [m])

    def go(start, left, w, own):
        extend(0, left, w, list(own))
        for i in range(start, len(melds)):
            m, nat, ww = melds[i]
            if ww > w or any(nat.count(c) > left.get(c, 0) for c in set(nat)):
                continue
            rest = dict(left)
            for c in nat:
                rest[c] -= 1
            go(i, rest, w - ww, own + [m])

    go(0, nat0, w0, [])
    return outs


def _last_turn_outcomes(env):
    outs = set()
    kernels = OneGame(FD)
    me = int(env._state[0]["current"])

    def record(rec):
        h = rec["hands"][me]
        rest = tuple(sorted(c for c in range(52) if c not in FT.WILD_TYPES for _ in range(int(h[c]))))
        outs.add((_table_outcome(rec), rest, int(sum(int(h[c]) for c in FT.WILD_TYPES))))

    def dfs(state):
        if int(state[0]["current"]) != me or state[0]["phase"] == F.PHASE_DRAW:
            record(state[0])
            return
        legal_ = np.flatnonzero(state[0]["legal"])
        assert legal_.size, FT.render_text(state[0])
        for a in legal_:
            if a == F.END_TURN:
                record(state[0].copy())
                continue
            nxt = kernels.stepped(state, a)
            if int(nxt[0]["current"]) != me:
                record_after = nxt[0].copy()
                record_after["hands"][me] = nxt[0]["hands"][me]
                record(record_after)
                continue
            dfs(nxt)

    dfs(env._state.copy())
    return outs


@pytest.mark.parametrize("seed", range(3))
def test_last_turn_masks_reach_exactly_every_laying(seed):
    """In a last turn, the ends the masks reach are exactly the rules' ones: any own melds
    and any cards added to the first player's melds (never to another's)."""
    rng = np.random.default_rng(100 + seed)
    checked = 0
    for it in range(60):
        pool = [c for c in range(52) if c // 4 in (0, 3, 4, 5, 6, 12) and c % 4 < 2] * 2 + [52, 4]
        rng.shuffle(pool)
        n = int(rng.integers(2, 6))
        hand, pool = pool[:n], pool[n:]
        counts = np.bincount(hand, minlength=53)
        t = int(rng.integers(2))
        run = [f"{'A23456789TJQK'[q]}{'cd'[t]}" for q in (4, 5, 6)]  # 5 6 7 of clubs or diamonds
        other = ["9h", "9s", "X=9"]
        melds = [{"kind": "run", "owner": 1, "cards": run}, {"kind": "set", "owner": 2, "cards": other}]
        hand_s = [FT.CARD_NAMES[c] for c in hand]
        env = make()
        try:  # a hand that holds both copies of a run card is refused: skip it
            load(env, seed=it, hands=["7h 8s Ad Th Jh".split(), [], "Js Jd Qd".split(), hand_s], current=3,
                 phase="lay", melds=melds, out_player=1, last_turns=2, pile=["Kh"], round=3)
        except ValueError:
            continue
        got = _last_turn_outcomes(env)
        table = [_table_outcome(env._state[0])[i] for i in range(2)]
        first = [m for m in table if m[0] == "run"]
        others = [m for m in table if m[0] != "run"]
        ref = {(tuple(sorted(list(tb) + others)), rest, w) for tb, rest, w in _ref_last_turn(counts, first)}
        assert got == ref, (hand_s, sorted(got ^ ref)[:3])
        checked += 1
    assert checked >= 10


def test_a_set_is_offered_when_its_lowest_suit_card_belongs_in_a_run():
    env = make()
    load(env, hands=hands("5d 6d 7d 7h 7s 7s", "9c 9d Jh", "5s 6s Qd", "7c 8d Ad"), current=0, phase="choose",
         round=4)
    act(env, "out")
    assert legal(env) == {"set", "run"}
    act(env, "set")
    assert legal(env) == {"add 7h"}  # 7d goes in the run: a set from 7d would leave 5d 6d alone


def test_the_frimes_of_the_meld_being_built_are_observed():
    seen = []
    for cards in (["X=4h", "5h", "6h"], ["5h", "6h", "X=7h"]):
        env = make()
        load(env, hands=hands("", "7h 8h 9h", "5s 6s Qd", "7c 8d Ad"), current=1, phase="build",
             out_player=0, last_turns=3, melds=[{"kind": "run", "owner": 0, "cards": ["Tc", "Jc", "Qc"]}],
             build={"kind": "run", "cards": cards})
        seen.append(env.observe("player_1")["observation"].copy())
    assert not np.array_equal(seen[0], seen[1])
    assert seen[0][F.OBS_BUILD_FRIMES + 3 * 4 + 2] == 1  # a frime standing for 4h (rank index 3, hearts)


def test_scenarios_that_would_reach_a_dead_end_are_refused():
    base = dict(hands=hands("3h 4h Kc", "9c 9d Jh", "5s 6s Qd", "7c 8d Ad"), current=0)
    env = make()
    with pytest.raises(ValueError, match="choose"):
        load(env, phase="choose", **base)  # 3h 4h Kc does not split
    with pytest.raises(ValueError, match="last_turns"):
        load(env, phase="draw", out_player=2, last_turns=1, **base)  # seat 0 is 2 seats before seat 2
    with pytest.raises(ValueError, match="suit order"):
        load(env, phase="build", going_out=True, build={"kind": "set", "cards": ["X=7", "7c"]},
             **dict(base, hands=hands("7d 7h Kc", "9c 9d Jh", "5s 6s Qd", "8c 8d Ad")))
    env.reset(seed=0)
    assert st(env)["phase"] == "draw"  # a failed load leaves a usable env


@pytest.mark.slow
def test_the_split_search_with_its_bounds_matches_the_brute_force():
    """``_splits`` (the search, which prunes with necessary conditions at every node) against
    the brute-force reference, on random hands of the whole deck (frimes among them) and on
    hands built from melds: the bounds never refuse a hand that splits."""
    from numba import njit

    from tests.rummy.reference import meld_rich_hand, ref_split

    @njit
    def splits(H):
        owner = np.zeros(1, dtype=F.WORKSPACE_DTYPE)
        return F._splits(H, F.FALSE, owner[0])

    rng = np.random.default_rng(3)
    deck = np.repeat(np.arange(53), FT.deck_counts(None))
    seen = [0, 0]
    for i in range(1600):
        if i % 2:
            hand = [int(c) for c in rng.choice(deck, size=int(rng.integers(3, 10)), replace=False)]
        else:
            hand = meld_rich_hand(F.RULES, rng, int(rng.integers(3, 10)))
        want = ref_split(F.RULES, hand)
        assert splits(np.bincount(hand, minlength=53).astype(np.int64)) == want, [FT.CARD_NAMES[c] for c in hand]
        seen[want] += 1
    assert min(seen) > 100


def test_scenario_holes_found_in_review_are_closed():
    env = make()
    env.reset(seed=0)
    d = st(env)
    for bad, match in (
        ({"phase": "over", "terminated": True, "target": 110}, "target"),
        ({"phase": "over", "terminated": True, "current": 120}, "current"),
        ({"phase": "over"}, "over"),
        ({"terminated": True}, "over"),
        ({"current": 1000}, "out of range"),
        ({"current": 1.7}, "integer"),
        ({"money": [450, 450, 450, 440]}, "add up"),
    ):
        with pytest.raises(ValueError, match=match):
            env.reset(seed=0, options={"scenario": dict(d, **bad)})
    venv = cardenvs.make_vec("frime_v1", num_envs=2, seed=0)
    venv.reset()
    for viewer in (4, -1, 100):
        with pytest.raises(ValueError, match="viewer"):
            venv.observe(viewer)


def test_a_stalled_round_is_void_and_the_next_round_is_dealt():
    """At the turn cap with nobody out, the round scores nothing (the pot, the money and
    the flocons stay as they were) and the next dealer deals the next round; once somebody
    is out the cap no longer applies (the round ends within a lap)."""
    venv = cardenvs.make_vec("frime_v1", num_envs=64, seed=5, max_turns_per_round=8, auto_reset=False)
    s = venv.reset()
    sample = RandomSampler(2)
    voids = 0
    done = np.zeros(64, dtype=bool)
    while not done.all():
        before = venv.states.copy()
        s = venv.step(np.where(done, 0, sample(s.legal_action_mask)))
        now = venv.states
        for i in np.flatnonzero(~done & (now["void_rounds"] > before["void_rounds"])):
            voids += 1
            b, a = before[i], now[i]
            assert b["turns"] == 7 and b["out_player"] == -1 and s.round_ended[i]
            assert (a["scores"] == b["scores"]).all() and (a["flocons"] == b["flocons"]).all()
            assert (a["round_points"] == 0).all()
            if b["round"] < 11:
                assert a["pot"] == b["pot"] and (a["money"] == b["money"]).all()
                assert a["round"] == b["round"] + 1 and a["dealer"] == (b["dealer"] + 1) % 4 and a["turns"] == 0
            else:
                assert s.terminated[i] and a["pot"] == 0
        assert not (~done & (now["out_player"] < 0) & (now["turns"] >= 8) & (now["phase"] != F.PHASE_OVER)).any()
        done |= s.terminated | s.truncated
    assert voids >= 64 and not venv.states["truncated"].any() and (venv.states["round"] == 11).all()


def test_a_truncated_match_is_paid_out_on_its_finished_rounds():
    for mode in ("match", "round"):
        venv = cardenvs.make_vec("frime_v1", num_envs=64, seed=8, reward_mode=mode, max_steps=400,
                                 auto_reset=False)
        s = venv.reset()
        sample = RandomSampler(1)
        total = np.zeros((64, 4))
        done = np.zeros(64, dtype=bool)
        while not done.all():
            s = venv.step(np.where(done, 0, sample(s.legal_action_mask)))
            total += np.where(done[:, None], 0, s.rewards)
            done |= s.terminated | s.truncated
        assert s.truncated.any()
        assert np.allclose(total.sum(axis=1), 0.0, atol=1e-4)  # zero-sum, truncated or not
        assert (venv.states["pot"] == 0).all()
        money = venv.states["money"][:, :4]
        assert np.allclose(total, (money - 500) / 100, atol=1e-4)  # both modes: the profit
