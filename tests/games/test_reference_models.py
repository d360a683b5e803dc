"""Independent review: behaviour checked against the rules (the game pages) that the
other test files do not pin yet.

- President and Odin replayed step by step against small reference models written
  from the rule texts (masks and transitions), over random play;
- President: a completion that uses fewer cards than the top play, the observation
  layout, the exchange hidden from the other seats, the docs page example;
- Odin: a known card leaves the public record once played; the turn order and the
  other seats' observations do not depend on hidden cards.
"""

from __future__ import annotations

import copy
import itertools

import numpy as np

import cardenvs
from cardenvs.core.cards import odin_card_id
from cardenvs.games.odin import rules as odin
from cardenvs.games.odin import text as odin_text
from cardenvs.games.president import rules as pres
from cardenvs.games.president import text as pres_text
from tests.games.table import legal

RANKS = "3456789TJQKA2"


def act(env, text: str) -> None:
    a = env.str_to_action(text)
    assert a in env.legal_actions(), (text, sorted(legal(env)))
    env.step(a)


# =========================================================================== President
def p_count(hand: list[str], r: str) -> int:
    return sum(1 for c in hand if c[0] == r)


def p_ref_mask(d: dict) -> set[str]:
    """The legal actions, straight from the rules on the president page."""
    p = d["current"]
    hand = d["hands"][p]
    if d["phase"] == "exchange":
        return {"give " + r for r in RANKS if p_count(hand, r)}
    if d["phase"] == "offer":
        return {"pass", d["pile_rank"] * (4 - d["run_count"])}
    empty = d["pile_rank"] is None
    out = set() if empty else {"pass"}
    for r in RANKS:
        if d["first_lead"] and r != "3":
            continue
        for k in range(1, p_count(hand, r) + 1):
            if r == "2":
                ok = k < len(hand)  # nobody goes out on a 2
            else:
                ok = empty or k > d["pile_count"] or (
                    k == d["pile_count"] and RANKS.index(r) >= RANKS.index(d["pile_rank"])
                )
            if ok:
                out.add(r * k)
    return out


def p_ref_step(d: dict, a: str):
    """The state after a play or pass inside a round; None when the round ends."""
    d = copy.deepcopy(d)
    P = d["num_players"]
    p = d["current"]

    def clear_and_lead(seat):
        d.update(pile_rank=None, pile_count=0, run_count=0, last_player=-1, matched=False, phase="play")
        while d["out"][seat]:
            seat = (seat + 1) % P
        d["current"] = seat

    def pass_on(frm, skips):
        q = frm
        for _ in range(3 * P):
            q = (q + 1) % P
            if q == d["last_player"]:
                clear_and_lead(q)
                return
            if d["out"][q]:
                continue
            if skips:
                skips -= 1
                continue
            d["phase"], d["current"] = "play", q
            return
        raise AssertionError("nobody to move")

    def next_offer(after):
        q = after
        while True:
            q = (q + 1) % P
            if q == d["last_player"]:
                return -1
            if not d["out"][q] and p_count(d["hands"][q], d["pile_rank"]) == 4 - d["run_count"]:
                return q

    if a == "pass":
        if d["phase"] == "offer":
            q = next_offer(p)
            if q >= 0:
                d["current"] = q
            else:
                pass_on(d["last_player"], 1 if d["matched"] else 0)
        else:
            pass_on(p, 0)
        return d
    r, k = a[0], len(a)
    hand = d["hands"][p]
    for c in sorted((c for c in hand if c[0] == r), key=lambda c: "cdhs".index(c[1]))[:k]:
        hand.remove(c)  # the lowest suits leave first
    d["first_lead"] = False
    cleared = r == "2"
    if not cleared:
        d["matched"] = d["pile_rank"] == r and d["pile_count"] == k
        d["run_count"] = d["run_count"] + k if d["pile_rank"] == r else k
        d["pile_rank"], d["pile_count"], d["last_player"] = r, k, p
        cleared = d["run_count"] >= 4
    if not hand:
        d["out"][p] = True
        d["finish_order"].append(p)
    elif all(c[0] == "2" for c in hand):
        d["out"][p] = True
        d["stuck_order"].append(p)
    if sum(not o for o in d["out"]) <= 1:
        return None
    if cleared:
        clear_and_lead(p)
        return d
    q = next_offer(p)
    if q >= 0:
        d["phase"], d["current"] = "offer", q
    else:
        pass_on(p, 1 if d["matched"] else 0)
    return d


P_KEYS = ("pile_rank", "pile_count", "run_count", "last_player", "matched", "out", "finish_order",
          "stuck_order", "phase", "current", "first_lead")


def p_key(d: dict) -> tuple:
    return tuple(sorted(h) for h in d["hands"]) + tuple(str(d[k]) for k in P_KEYS)


def test_president_agrees_with_a_reference_model_over_random_play():
    """Masks and every transition inside a round (skips, offers in turn order, clears,
    going out, stuck with 2s) equal an independent model of the rules."""
    steps = offers = 0
    for P, seeds, kw in ((4, range(2), {}), (5, range(1), {}), (4, range(1), {"decks": 2}), (8, range(1), {})):
        # the reference model asks only the holders of the missing cards
        env = cardenvs.make_raw("president_v0", num_players=P, completion_offers="holders", **kw)
        rng = np.random.default_rng(P)
        for seed in seeds:
            env.reset(seed=seed)
            for _ in range(500):
                if any(env.terminations.values()):
                    break
                d = env.state_dict()
                assert legal(env) == p_ref_mask(d)
                acts = env.legal_actions()
                a = int(rng.choice(acts))
                if a == pres.PASS and len(acts) > 1 and rng.random() < 0.6:
                    a = int(rng.choice(acts[1:]))  # play more often than uniform: more offers and runs
                env.step(a)
                steps += 1
                if d["phase"] == "exchange":
                    continue
                expected = p_ref_step(d, env.action_to_str(a))
                got = env.state_dict()
                if expected is None:
                    assert got["round"] == d["round"] + 1 or got["phase"] == "over"
                else:
                    assert p_key(got) == p_key(expected), (d, env.action_to_str(a))
                    offers += got["phase"] == "offer"
    assert steps > 2000 and offers > 50, (steps, offers)


def p_load(env, **scenario):
    scenario.setdefault("first_lead", False)
    env.reset(seed=0, options={"scenario": scenario})
    return env


def test_president_completion_may_use_fewer_cards_than_the_top_play():
    """On 7 then 77 (a run of three), a single 7 completes the four out of turn; in an
    ordinary turn that single 7 could not go on the pair."""
    env = cardenvs.make_raw("president_v0", num_players=4, completion_offers="holders")
    hands = ["7c Kc Ac", "7d 7h Qc Jc", "8c 9c", "7s 4c 5c"]
    p_load(env, hands=hands, current=0)
    act(env, "7")
    assert env.state_dict()["phase"] == "play" and env.agent_selection == "player_1"  # nobody holds 777
    act(env, "77")  # more cards beat fewer: a run of three sevens
    d = env.state_dict()
    assert (d["pile_rank"], d["pile_count"], d["run_count"]) == ("7", 2, 3)
    assert d["phase"] == "offer" and env.agent_selection == "player_3"  # seat 2 holds no 7
    assert legal(env) == {"pass", "7"}
    act(env, "7")
    d = env.state_dict()
    assert d["pile_rank"] is None and d["phase"] == "play" and env.agent_selection == "player_3"
    assert legal(env) == {"4", "5"}
    # declined instead: the single 7 is not a legal ordinary play on the pair
    p_load(env, hands=hands, current=0)
    act(env, "7")
    act(env, "77")
    act(env, "pass")
    assert env.agent_selection == "player_2" and env.state_dict()["phase"] == "play"
    act(env, "pass")
    assert env.agent_selection == "player_3" and legal(env) == {"pass"}


def test_president_observation_layout():
    env = cardenvs.make_raw("president_v0", num_players=5)
    hands = ["5c 6c", "Tc Td Kc", "4c 4d 8h", [], ["2h"]]
    p_load(
        env,
        hands=hands,
        current=1,
        round=6,  # five finished rounds: the scores below are ones play can reach
        scores=[1, 2, 3, 4, 5],
        out=[False, False, False, True, True],
        finish_order=[3],
        stuck_order=[4],
        pile_rank="9",
        pile_count=2,
        run_count=2,
        last_player=0,
    )
    obs = env.observe("player_1")["observation"]
    assert obs.shape == (pres.OBS_SIZE,) == (152,)
    hand = obs[pres.OBS_HAND : pres.OBS_HAND + 13]
    assert hand[RANKS.index("T")] == 2 and hand[RANKS.index("K")] == 1 and hand.sum() == 3
    pile = obs[pres.OBS_PILE_RANK : pres.OBS_PILE_RANK + 13]
    assert pile[RANKS.index("9")] == 1 and pile.sum() == 1
    assert obs[pres.OBS_PILE_COUNT] == 2 and obs[pres.OBS_RUN_COUNT] == 2
    played = obs[pres.OBS_PLAYED : pres.OBS_PLAYED + 13]
    for r in RANKS:  # every card no hand holds is out of the hands (the scenario's rest)
        assert played[RANKS.index(r)] == 4 - sum(p_count(h, r) for h in hands if h)
    assert obs[pres.OBS_PHASE : pres.OBS_PHASE + 3].tolist() == [1, 0, 0]
    assert obs[pres.OBS_FIRST_LEAD] == 0 and obs[pres.OBS_TARGET] == 11
    assert not obs[pres.OBS_RECEIVED : pres.OBS_GIVEN + 13].any()
    seats = obs[pres.OBS_SEATS :].reshape(pres.MAX_PLAYERS, pres.SEAT_FEATURES)
    # relative to player 1: seats 1, 2, 3, 4, 0
    assert seats[:5, 0].tolist() == [1] * 5 and not seats[5:].any()
    assert seats[:5, 1].tolist() == [3, 3, 0, 1, 2]  # cards held
    assert seats[:5, 2].tolist() == [1, 1, 0, 0, 1]  # in play
    assert seats[:5, 3].tolist() == [0, 0, 0, 1, 0]  # stuck with 2s
    assert seats[:5, 4].tolist() == [0, 0, 1, 0, 0]  # finishing place
    assert seats[:5, 5].tolist() == [2, 3, 4, 5, 1]  # scores
    assert seats[:5, 6].tolist() == [0, 0, 0, 0, 1]  # made the top play
    assert seats[:5, 7].tolist() == [1, 0, 0, 0, 0]  # to move
    lo, hi = pres_text.observation_bounds(pres_text.make_template(num_players=5))
    assert lo == 0 and obs.min() >= lo and obs.max() <= hi


def test_president_exchange_is_seen_only_by_the_president_and_trou():
    """Which card the president returns changes the observations of the president and
    the trou A only; the others see 'give a card'."""
    views = {}
    for pick in (0, -1):
        env = cardenvs.make_raw("president_v0", num_players=4)
        env.reset(seed=3, options={"scenario": {
            "round": 2, "phase": "exchange", "president": 2, "trou": 3, "current": 2,
            "first_lead": False, "scores": [0, 1, 2, 0],
        }})
        gives = sorted(env.legal_actions())
        assert legal(env) == {"give " + r for r in RANKS if p_count(env.state_dict()["hands"][2], r)}
        a = gives[pick]
        assert env.public_action_str(a) == "give a card"
        env.step(a)
        rank = RANKS.index(env.action_to_str(a)[-1])
        d = env.state_dict()
        assert d["phase"] == "play" and d["current"] == 2 and d["received"][3] == d["given"][2]
        trou = env.observe("player_3")["observation"]
        assert trou[pres.OBS_RECEIVED + rank] == 1 and trou[pres.OBS_RECEIVED : pres.OBS_RECEIVED + 13].sum() == 1
        assert env.observe("player_2")["observation"][pres.OBS_GIVEN + rank] == 1
        views[pick] = [env.observe(f"player_{p}")["observation"] for p in range(4)]
    same = [np.array_equal(views[0][p], views[-1][p]) for p in range(4)]
    assert same == [True, True, False, False]


def test_president_docs_example():
    """The scenario example of docs/games/president.md, with its printed results."""
    env = cardenvs.make_raw("president_v0", num_players=4)
    scenario = {
        "hands": [["9c", "Kh", "2s"], ["Qd", "Qs"], ["4c", "9h", "9s"], ["5h", "Jc", "Jd"]],
        "current": 0,
        "first_lead": False,
        "pile_rank": "9", "pile_count": 1, "run_count": 1, "last_player": 3,
    }
    env.reset(seed=0, options={"scenario": scenario})
    assert [env.action_to_str(a) for a in env.legal_actions()] == ["pass", "9", "K", "2"]
    env.step(env.str_to_action("9"))
    # every player in play holding two or more cards is asked, from player 0's left
    assert (env.agent_selection, env.state_dict()["phase"]) == ("player_1", "offer")
    assert [env.action_to_str(a) for a in env.legal_actions()] == ["pass"]
    env.step(env.str_to_action("pass"))
    assert (env.agent_selection, env.state_dict()["phase"]) == ("player_2", "offer")
    assert [env.action_to_str(a) for a in env.legal_actions()] == ["pass", "99"]
    env.step(env.str_to_action("9h 9s"))
    s = env.state_dict()
    assert (env.agent_selection, s["phase"], s["pile_rank"]) == ("player_2", "play", None)
    assert len(s["played"]) == 44


# =========================================================================== Odin
def o_value(cards) -> int:
    return int("".join(sorted((c[0] for c in cards), reverse=True))) if cards else 0


def o_uniform(cards) -> bool:
    return len({c[1] for c in cards}) == 1 or len({c[0] for c in cards}) == 1


def o_legal_plays(hand: list[str], table: list[str]) -> list[tuple[str, ...]]:
    out = []
    for r in range(1, len(hand) + 1):
        for combo in itertools.combinations(hand, r):
            if not table:
                ok = r == 1 or (r == len(hand) and o_uniform(hand))
            else:
                ok = r in (len(table), len(table) + 1) and o_uniform(combo) and o_value(combo) > o_value(table)
            if ok:
                out.append(combo)
    return out


def test_odin_agrees_with_a_reference_model_over_random_play():
    """Random legal plays (brute force over the hand) go through the masks, and each
    commit or pass does what the rules say: the table, the card kept, the discards,
    the public record of kept cards, the turn, the trick's end and the round's end."""
    plays = rounds = 0
    by_id = odin_card_id
    for P, seeds in ((2, range(2)), (3, range(2)), (4, range(2)), (6, range(1))):
        env = cardenvs.make_raw("odin_v1", num_players=P, target_score=10)
        rng = np.random.default_rng(P)
        for seed in seeds:
            env.reset(seed=seed)
            while not any(env.terminations.values()):
                d = env.state_dict()
                p, hand, table = d["current"], d["hands"][d["current"]], d["table"]
                options = o_legal_plays(hand, table)
                if table and (not options or rng.random() < 0.3):
                    assert "pass" in legal(env)
                    env.step(odin.PASS)
                    e = env.state_dict()
                    assert e["current"] == (p + 1) % P
                    if e["current"] == d["last_player"]:  # everyone else passed: the table is discarded
                        assert e["table"] == [] and e["last_player"] == -1
                        assert sorted(e["discarded"], key=by_id) == sorted(d["discarded"] + table, key=by_id)
                    else:
                        assert e["table"] == table
                    continue
                play = list(options[rng.integers(len(options))])
                emptied = len(play) == len(hand)
                take = table[rng.integers(len(table))] if len(table) > 1 and not emptied else None
                for a in odin_text.play_actions(play, take):
                    assert a in env.legal_actions(), (env.action_to_str(a), d)
                    env.step(a)
                plays += 1
                e = env.state_dict()
                if emptied:  # the round ends at once: one point per card left
                    rounds += 1
                    pts = [len(h) for h in d["hands"]]
                    pts[p] = 0
                    assert e["round_points"] == pts
                    if e["phase"] != "over":
                        assert e["round"] == d["round"] + 1 and e["current"] == (d["round_leader"] + 1) % P
                    continue
                kept = take or (table[0] if table else None)
                assert sorted(e["hands"][p], key=by_id) == sorted(
                    (set(hand) - set(play)) | ({kept} if kept else set()), key=by_id
                )
                assert sorted(e["table"], key=by_id) == sorted(play, key=by_id)
                assert set(e["discarded"]) == set(d["discarded"]) | (set(table) - {kept})
                assert set(e["known"][p]) == (set(d["known"][p]) - set(play)) | ({kept} if kept else set())
                assert e["last_player"] == p and e["current"] == (p + 1) % P
    assert plays > 600 and rounds > 15


def o_load(env, **scenario):
    env.reset(seed=0, options={"scenario": scenario})
    return env


def o_seats(env, agent: str) -> np.ndarray:
    return env.observe(agent)["observation"][odin.OBS_SEATS :].reshape(odin.MAX_PLAYERS, odin.SEAT_FEATURES)


def test_odin_a_known_card_leaves_the_public_record_when_played():
    env = cardenvs.make_raw("odin_v1", num_players=3)
    o_load(env, hands=["6g 1o 2o", "3y 4y", "3p 4p"], table=["5r"], last_player=2, current=0)
    act(env, "select 6g")
    act(env, "play")  # 6g on 5r: the 5r comes back, seen by all
    assert env.state_dict()["known"][0] == ["5r"]
    for agent, rel in (("player_1", 2), ("player_2", 1)):
        # in the viewer's block for player 0 (each opponent has its own, by relative seat)
        assert env.observe(agent)["observation"][odin.OBS_KNOWN + (rel - 1) * 54 + odin_card_id("5r")] == 1
        assert o_seats(env, agent)[rel, 7] == 1
    act(env, "pass")
    act(env, "pass")  # table discarded: player 0 leads
    assert env.agent_selection == "player_0" and env.state_dict()["table"] == []
    act(env, "select 5r")  # selected: public as the selection, no longer a known card in hand
    d = env.state_dict()
    assert d["known"][0] == [] and d["selected"] == ["5r"]
    obs = env.observe("player_1")["observation"]
    assert not obs[odin.OBS_KNOWN : odin.OBS_TABLE_COUNT].any() and obs[odin.OBS_SELECTED + odin_card_id("5r")] == 1
    assert o_seats(env, "player_1")[2, 7] == 0
    act(env, "play")
    obs = env.observe("player_2")["observation"]
    assert obs[odin.OBS_TABLE + odin_card_id("5r")] == 1 and not obs[odin.OBS_KNOWN : odin.OBS_TABLE_COUNT].any()


def test_odin_turn_flow_and_views_do_not_depend_on_hidden_cards():
    """A player who cannot follow is still asked (a pass decision), so the turn order,
    and with it every other seat's view, is the same whatever their hidden cards are."""
    runs = []
    for hand1, aside_extra in (("6r 1o", "2o"), ("1o 2o", "6r")):  # can beat 5r / cannot
        env = cardenvs.make_raw("odin_v1", num_players=3)
        o_load(env, hands=["7g 8g", hand1.split(), "3y 4y"], table=["5r"], last_player=0, current=1)
        assert aside_extra in env.state_dict()["aside"]
        trace = []
        for _ in range(2):  # players 1 and 2 pass: the table is discarded, player 0 leads
            trace.append((env.agent_selection, env.observe("player_0")["observation"].copy(),
                          env.observe("player_2")["observation"].copy()))
            act(env, "pass")
        trace.append((env.agent_selection, env.observe("player_0")["observation"].copy(),
                      env.observe("player_2")["observation"].copy()))
        runs.append((trace, legal(env)))
    (t1, l1), (t2, l2) = runs
    assert [x[0] for x in t1] == [x[0] for x in t2] == ["player_1", "player_2", "player_0"]
    for a, b in zip(t1, t2, strict=True):
        assert np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
    assert l1 == l2 == {"select 7g", "select 8g"}
