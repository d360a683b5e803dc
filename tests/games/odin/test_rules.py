"""Odin: scripted scenarios with exact outcomes for every rule, the mask's exactness
against a brute force over subsets of the hand, and invariants over thousands of
random games.

Positions are built with scenarios (``env.reset(seed=..., options={"scenario": d})``)
and driven with ``odin_text.play_actions``. Seats play to the left: 0 -> 1 -> 2 -> 3 -> 0.
Cards a scenario does not place are set aside. Rules:
``docs/games/odin.md``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import cardenvs
import cardenvs.games.odin as odin_driver
from cardenvs.core.cards import odin_card_id, odin_card_str
from cardenvs.core.vector import RandomSampler
from cardenvs.games.odin import rules as odin
from cardenvs.games.odin import text as odin_text
from tests.games.table import OneGame, legal, st

NV = odin.NUM_VALUES


# --------------------------------------------------------------------------- helpers
def make(num_players: int = 4, **options):
    return cardenvs.make_raw("odin_v1", num_players=num_players, **options)


def load(env, seed: int = 0, **scenario):
    env.reset(seed=seed, options={"scenario": scenario})
    return env


def act(env, text: str) -> None:
    env.step(env.str_to_action(text))


def play(env, cards: str, take: str | None = None) -> None:
    """Select ``cards`` in the canonical order, then commit (``take`` a covered card)."""
    for a in odin_text.play_actions(cards.split(), take):
        assert a in env.legal_actions(), (env.action_to_str(a), sorted(legal(env)))
        env.step(a)


def to_move(env) -> int:
    cur = st(env)["current"]
    assert env.agent_selection == f"player_{cur}"
    return cur


def rewards(env) -> list[float]:
    return [env.rewards[a] for a in env.possible_agents]


def ids(cards) -> list[int]:
    return [odin_card_id(c) for c in (cards.split() if isinstance(cards, str) else cards)]


def names(card_ids) -> set[str]:
    return {odin_card_str(c) for c in card_ids}


def strs(card_ids) -> list[str]:
    return [odin_card_str(c) for c in sorted(card_ids)]


# An independent reference: the value of a play and its legality, straight from the rules.
def ref_value(cards: list[int]) -> int:
    return int("".join(str(d) for d in sorted((c % NV + 1 for c in cards), reverse=True)))


def ref_uniform(cards: list[int]) -> bool:
    return len({c // NV for c in cards}) == 1 or len({c % NV for c in cards}) == 1


def ref_legal_plays(hand: list[int], table: list[int]) -> set[frozenset]:
    """Every legal play by brute force over the subsets of the hand."""
    out = set()
    for r in range(1, len(hand) + 1):
        for combo in itertools.combinations(hand, r):
            if not table:
                ok = r == 1 or (r == len(hand) and ref_uniform(hand))
            else:
                n = len(table)
                ok = r in (n, n + 1) and ref_uniform(list(combo)) and ref_value(list(combo)) > ref_value(table)
            if ok:
                out.add(frozenset(combo))
    return out


def reachable_plays(arr, kernel: OneGame) -> tuple[dict, int]:
    """Every play reachable through the masks from a turn start: {selection: commit
    actions}; every masked-in select must lead to at least one commit."""
    found: dict[frozenset, set[int]] = {}
    nodes = 0

    def walk(state, mask, chosen):
        nonlocal nodes
        nodes += 1
        commits = {a for a in (odin.PLAY, *range(odin.TAKE0, odin.NUM_ACTIONS)) if mask[a]}
        selects = [a for a in range(odin.SELECT0, odin.TAKE0) if mask[a]]
        if chosen:
            assert not mask[odin.PASS], "pass with a selection"
            assert commits or selects, f"dead end after selecting {names(chosen)}"
            # canonical order: only cards below the last selected one
            assert all(a - odin.SELECT0 < min(chosen) for a in selects)
        if commits:
            found[frozenset(chosen)] = commits
        for a in selects:
            nxt = state.copy()
            walk(nxt, kernel.step(nxt, a), chosen + [a - odin.SELECT0])

    walk(arr.copy(), kernel.refresh(arr.copy()), [])
    return found, nodes


def check_exact(arr, kernel: OneGame) -> int:
    """The plays reachable through the masks are exactly the brute-force legal plays,
    with the right commit actions. Returns the number of mask nodes visited."""
    rec = arr[0]
    p = int(rec["current"])
    hand = [int(c) for c in np.flatnonzero(rec["hands"][p])]
    table = [int(c) for c in np.flatnonzero(rec["table"])]
    mask = kernel.refresh(arr.copy())
    assert bool(mask[odin.PASS]) == bool(table)
    found, nodes = reachable_plays(arr, kernel)
    expected = ref_legal_plays(hand, table)
    assert set(found) == expected, (names(hand), names(table), sorted(map(names, set(found) ^ expected), key=len))
    for sel, commits in found.items():
        if not table or len(sel) == len(hand) or len(table) == 1:
            assert commits == {odin.PLAY}
        else:
            assert commits == {odin.TAKE0 + c for c in table}
    return nodes


# --------------------------------------------------------------------------- encoding
def test_action_encoding():
    s2a, a2s = odin_text.str_to_action, odin_text.action_to_str
    assert odin.NUM_ACTIONS == 110
    assert s2a("pass") == odin.PASS == 0 and s2a("play") == odin.PLAY == 1
    assert s2a("select 7r") == odin.SELECT0 + 6 == s2a("7r") == s2a(" Select  7R ")
    assert s2a("take 1p") == odin.TAKE0 + 45
    assert a2s(odin.SELECT0 + odin_card_id("9g")) == "select 9g"
    assert a2s(odin.TAKE0 + odin_card_id("2o")) == "take 2o"
    for a in range(odin.NUM_ACTIONS):
        assert s2a(a2s(a)) == a
    for bad in ("0r", "7z", "take", "select 7r 8r", "7r 8r", "", "play 7r"):
        with pytest.raises(ValueError, match="cannot read"):
            s2a(bad)
    with pytest.raises(ValueError):
        a2s(110)
    # a play's actions: decreasing card id, then the commit
    assert odin_text.play_actions(["2r", "6r"]) == [s2a("6r"), s2a("2r"), odin.PLAY]
    assert odin_text.play_actions("3r 3g".split(), take="9b") == [s2a("3g"), s2a("3r"), s2a("take 9b")]
    assert odin_text.card_value(["2r", "6r"]) == 62 and odin_text.card_value("9r 4o 2y".split()) == 942
    assert odin_text.card_value(["3r", "3g"]) == 33


def test_bad_options():
    for kw in (
        {"num_players": 1},
        {"num_players": 7},
        {"target_score": 12},
        {"target_score": True},
        {"two_player_colours": 1},
        {"two_player_colours": 7},
        {"reward_mode": "points"},
        {"max_steps": -1},
        {"single_round": 1},
    ):
        with pytest.raises((ValueError, TypeError), match="odin: (option )?" + next(iter(kw))):
            make(**{"num_players": 4, **kw})
    for t in (10, 15, 20, 30):
        make(target_score=t)


# --------------------------------------------------------------------------- the deal
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_deal_nine_cards_each_rest_set_aside(num_players):
    env = make(num_players)
    env.reset(seed=num_players)
    d = st(env)
    colours = "royg" if num_players == 2 else "roygbp"  # two players: two colours removed
    deck = sorted(f"{v}{c}" for c in colours for v in range(1, 10))
    assert all(len(h) == 9 for h in d["hands"])
    assert len(d["aside"]) == len(deck) - 9 * num_players
    assert sorted([c for h in d["hands"] for c in h] + d["aside"]) == deck
    assert d["table"] == [] and d["discarded"] == [] and d["selected"] == [] and d["last_player"] == -1
    assert d["round"] == 1 and d["current"] == d["round_leader"] and d["phase"] == "play"
    obs = env.observe(env.agent_selection)["observation"]
    assert obs[odin.OBS_COLOURS] == len(colours)


def test_two_player_colours_option():
    env = make(2, two_player_colours=6)
    env.reset(seed=0)
    d = st(env)
    assert len(d["aside"]) == 54 - 18
    env = make(2, two_player_colours=2)
    env.reset(seed=0)
    d = st(env)
    assert d["aside"] == [] and {c[1] for h in d["hands"] for c in h} == {"r", "o"}
    # a scenario cannot bring back a removed colour
    env = make(2)
    with pytest.raises(ValueError, match="5b appears 1 times but the decks hold 0"):
        load(env, hands=[["5b"], None])


def test_first_leader_is_random_and_seeded():
    leaders = []
    for seed in range(40):
        env = make(5)
        env.reset(seed=seed)
        a = st(env)["round_leader"]
        env.reset(seed=seed)
        assert st(env)["round_leader"] == a == to_move(env)
        leaders.append(a)
    assert set(leaders) == set(range(5))


# --------------------------------------------------------------------------- leading
def test_lead_is_exactly_one_card():
    env = make()
    load(env, hands=["2r 5r 5g 9b", "1o 2o", "3y 4y", "6p 7p"], current=0)
    assert legal(env) == {"select 2r", "select 5r", "select 5g", "select 9b"}  # no pass on an empty table
    act(env, "select 5g")
    assert legal(env) == {"play"}  # 5g 5r would be a pair: not a lead
    act(env, "play")
    d = st(env)
    assert d["table"] == ["5g"] and d["last_player"] == 0 and to_move(env) == 1
    assert d["hands"][0] == ["2r", "5r", "9b"]
    assert "pass" in legal(env)


@pytest.mark.parametrize("hand", ["2r 5r 9r", "4r 4g 4p"])
def test_whole_hand_lead_ends_the_round(hand):
    env = make()
    load(env, hands=[hand, "1o 2o 3o", "3y 4y", "6b 7b 8b 9b"], current=0, scores=[3, 4, 5, 6], round_leader=0)
    cards = sorted(ids(hand), reverse=True)
    top, mid, low = (odin_card_str(c) for c in cards)
    assert legal(env) == {f"select {c}" for c in hand.split()}
    act(env, f"select {top}")
    assert legal(env) == {"play", f"select {mid}"}  # a single, or carry on to the whole hand
    act(env, f"select {mid}")
    assert legal(env) == {f"select {low}"}  # two of three cards is not a lead
    act(env, f"select {low}")
    assert legal(env) == {"play"}
    act(env, "play")
    d = st(env)
    assert d["round_points"] == [0, 3, 2, 4]
    assert d["scores"] == [3, 7, 7, 10]
    assert d["round"] == 2 and d["round_leader"] == 1 and to_move(env) == 1  # the leader moves left
    assert all(len(h) == 9 for h in d["hands"])
    assert env.infos["player_0"]["round_points"] == [0, 3, 2, 4]


def test_whole_hand_lead_needs_the_canonical_start_and_a_uniform_hand():
    env = make()
    load(env, hands=["2r 5r 9r", "1o 2o", "3y 4y", "6b 7b"], current=0)
    act(env, "select 5r")  # not the top card: only a single lead
    assert legal(env) == {"play"}
    load(env, hands=["2r 5r 9g", "1o 2o", "3y 4y", "6b 7b"], current=0)
    act(env, "select 9g")
    assert legal(env) == {"play"}  # not one colour nor one value


def test_uniform_hand_follows_the_normal_constraints():
    """The whole-hand exception is for leads only: on a table of 2, a hand of four
    reds plays 2 or 3 of them, never all 4."""
    env = make()
    load(env, hands=["1o 2o", "2r 3r 4r 5r", "3y 4y", "6b 7b"], current=1, table=["2g", "1g"], last_player=0)
    kernel = OneGame(odin_driver)
    found, _ = reachable_plays(env._state, kernel)
    sizes = {len(p) for p in found}
    assert sizes == {2, 3}
    assert frozenset(ids("2r 3r 4r 5r")) not in found
    check_exact(env._state, kernel)


# --------------------------------------------------------------------------- following
def plays_here(env) -> set[frozenset]:
    found, _ = reachable_plays(env._state, OneGame(odin_driver))
    return {frozenset(names(p)) for p in found}


def test_following_same_colour_or_same_value_and_higher():
    env = make()
    load(env, hands=["1o 2o", "6g 7g 6b 2y 4r", "3y 4y", "6p 7p"], current=1, table=["5r"], last_player=0)
    P = frozenset
    # singles higher than 5, and pairs (one card more) of one colour or one value;
    # a mixed pair (7g 6b, 4r 2y) is never playable, and 4r or 2y alone is too low
    assert plays_here(env) == {P({"6g"}), P({"7g"}), P({"6b"}), P({"7g", "6g"}), P({"6g", "6b"})}


def test_as_many_cards_or_one_more():
    env = make()
    load(env, hands=["1o 2o", "1r 2r 3r 4r 5r", "3y 4y", "6p 7p"], current=1, table=["9g", "8g"], last_player=0)
    sizes = {len(p) for p in plays_here(env)}
    assert sizes == {3}  # 2 red cards read at most 54 < 98; 3 cards beat any 2; 4 is too many
    load(env, hands=["1o 2o", "1r 2r 3r 9r 9o", "3y 4y", "6p 7p"], current=1, table=["5g", "4g"], last_player=0)
    got = plays_here(env)
    assert {len(p) for p in got} == {2, 3}
    assert frozenset({"9r", "3r"}) in got and frozenset({"9r", "9o"}) in got  # 93 and 99 beat 54
    assert frozenset({"3r", "2r"}) not in got  # 32 does not


def test_three_cards_on_two_with_the_take_choice():
    env = make()
    load(env, hands=["1o 2o", "1b 2b 3b 8y", "3y 4y", "6p 7p"], current=1, table=["9r", "8r"], last_player=0)
    play_order = odin_text.play_actions(["1b", "2b", "3b"])[:-1]
    for a in play_order:
        env.step(a)
    # 321 beats 98 (one card more); the covered play has two cards: choose which to keep
    assert legal(env) == {"take 9r", "take 8r"}
    act(env, "take 9r")
    d = st(env)
    assert d["hands"][1] == ["9r", "8y"]
    assert d["table"] == ["1b", "2b", "3b"] and d["last_player"] == 1
    assert d["discarded"] == ["8r"]
    assert d["known"][1] == ["9r"]  # everybody saw 9r go into player 1's hand
    assert to_move(env) == 2
    obs = env.observe("player_0")["observation"]  # player 1 is player 0's left neighbour
    assert obs[odin.OBS_KNOWN + odin_card_id("9r")] == 1.0
    # each opponent has its own block: to player 2, player 1 is three seats on (block 2)
    view = env.observe("player_2")["observation"][odin.OBS_KNOWN : odin.OBS_TABLE_COUNT].reshape(5, 54)
    assert np.flatnonzero(view).tolist() == [2 * 54 + odin_card_id("9r")]
    assert obs[odin.OBS_DISCARDED + odin_card_id("8r")] == 1.0
    assert obs[odin.OBS_TABLE_COUNT] == 3
    # the other choice keeps 8r
    load(env, hands=["1o 2o", "1b 2b 3b 8y", "3y 4y", "6p 7p"], current=1, table=["9r", "8r"], last_player=0)
    play(env, "1b 2b 3b", take="8r")
    d = st(env)
    assert d["hands"][1] == ["8r", "8y"] and d["discarded"] == ["9r"]


def test_same_value_play_whose_digits_read_higher():
    env = make()
    load(env, hands=["1o 2o", "3g 3b 2g 1g", "3y 4y", "6p 7p"], current=1, table=["3r", "2r"], last_player=0)
    got = plays_here(env)
    assert frozenset({"3g", "3b"}) in got  # 33 > 32
    assert frozenset({"3g", "2g"}) not in got  # 32 = 32 is not higher
    assert frozenset({"3g", "2g", "1g"}) in got  # 321: one card more
    play(env, "3g 3b", take="3r")
    d = st(env)
    assert d["table"] == ["3g", "3b"] and d["hands"][1] == ["3r", "1g", "2g"] and d["discarded"] == ["2r"]
    # 44 on the table: another pair of 4s only ties it; 54 beats it, and so do three 4s
    load(env, hands=["1o 2o", "4g 4b 4p 5g", "3y 5y", "6p 7p"], current=1, table=["4r", "4o"], last_player=0)
    got = plays_here(env)
    assert frozenset({"4g", "4b"}) not in got and frozenset({"4b", "4p"}) not in got
    assert frozenset({"5g", "4g"}) in got and frozenset({"4g", "4b", "4p"}) in got


def test_digits_read_from_largest_to_smallest():
    """2 and 6 read 62 whichever order: 61 does not beat it, 63 does; 9 4 2 -> 942."""
    env = make()
    load(env, hands=["1o 2o", "6g 1g 3g", "3y 4y", "6p 7p"], current=1, table=["2r", "6r"], last_player=0)
    got = plays_here(env)
    assert frozenset({"6g", "3g"}) in got and frozenset({"6g", "1g"}) not in got
    assert frozenset({"6g", "3g", "1g"}) in got
    load(env, hands=["1o 2o", "9g 5g 2g 1g", "3y 4y", "6p 7p"], current=1, table=["9r", "4r", "2r"], last_player=0)
    got = plays_here(env)
    assert frozenset({"9g", "5g", "2g"}) in got  # 952 > 942
    assert frozenset({"9g", "5g", "1g"}) in got  # 951 > 942
    assert frozenset({"9g", "2g", "1g"}) not in got  # 921 < 942
    assert frozenset({"9g", "5g", "2g", "1g"}) in got


def test_one_card_table_is_taken_back_without_a_choice():
    env = make()
    load(env, hands=["1o 2o", "6g 7g", "3y 4y", "6p 7p"], current=1, table=["5r"], last_player=0)
    act(env, "select 6g")
    assert legal(env) == {"play"}  # no 'take': the only covered card comes back
    act(env, "play")
    d = st(env)
    assert d["hands"][1] == ["5r", "7g"] and d["table"] == ["6g"] and d["discarded"] == []
    assert d["known"][1] == ["5r"]


def test_emptying_the_hand_takes_nothing_and_ends_the_round():
    env = make()
    load(
        env,
        hands=["1o 2o", "6g 7g", "3y 4y 5y", "6p 7p 8p 9p"],
        current=1,
        table=["5r", "4r"],
        last_player=0,
        scores=[1, 2, 3, 4],
        round_leader=3,
    )
    play(env, "6g 7g")  # 76 > 54, the last two cards
    d = st(env)
    assert d["round_points"] == [2, 0, 3, 4] and d["scores"] == [3, 2, 6, 8]
    assert d["round"] == 2 and d["round_leader"] == 0 and to_move(env) == 0
    assert all(len(h) == 9 for h in d["hands"]) and d["known"] == [[], [], [], []]
    # before the commit, only 'play' was offered (no take on an emptying play)
    load(env, hands=["1o 2o", "6g 7g", "3y 4y 5y", "6p 7p"], current=1, table=["5r", "4r"], last_player=0)
    act(env, "select 7g")
    act(env, "select 6g")
    assert legal(env) == {"play"}


def test_single_lead_with_the_last_card_ends_the_round():
    env = make()
    load(env, hands=["1o 2o", "6g", "3y 4y 5y", "6p 7p"], current=1)
    play(env, "6g")
    assert st(env)["round_points"] == [2, 0, 3, 2]


def test_canonical_order_and_pass_only_before_selecting():
    env = make()
    load(env, hands=["1o 2o", "2g 5g 7g 9g", "3y 4y", "6p 7p"], current=1, table=["3r", "1r"], last_player=0)
    assert legal(env) == {"pass", "select 5g", "select 7g", "select 9g"}
    act(env, "select 7g")
    assert legal(env) == {"select 5g", "select 2g"}  # no pass, no 9g (it would have come first)
    act(env, "select 2g")
    assert legal(env) == {"take 3r", "take 1r"}  # 72 > 31; nothing below 2g to add


# --------------------------------------------------------------------------- passing
def test_passing_does_not_lock_out():
    env = make(3)
    load(env, hands=["4r 8g", "3r 9o", "2r 5r 6y"], current=1)
    play(env, "3r")  # player 1 leads 3r
    act(env, "pass")  # player 2 passes
    play(env, "4r")  # player 0 plays 4r and takes 3r back
    assert st(env)["hands"][0] == ["3r", "8g"]
    act(env, "pass")  # player 1 passes
    assert to_move(env) == 2
    play(env, "5r")  # player 2, who passed before, plays again on the same trick
    d = st(env)
    assert d["table"] == ["5r"] and d["hands"][2] == ["2r", "4r", "6y"]


def test_all_others_pass_the_table_is_discarded_and_the_last_player_leads():
    env = make()
    load(env, hands=["1o 2o", "6g 7g", "3y 4y", "6p 7p"], current=1, table=["5r"], last_player=0)
    play(env, "6g")
    for seat in (2, 3, 0):
        assert to_move(env) == seat and st(env)["table"] == ["6g"]
        act(env, "pass")
    d = st(env)
    assert d["table"] == [] and d["last_player"] == -1 and d["discarded"] == ["6g"]
    assert to_move(env) == 1
    assert legal(env) == {"select 5r", "select 7g"}  # a lead: one card, no pass
    obs = env.observe("player_1")["observation"]
    assert obs[odin.OBS_LEAD] == 1.0 and obs[odin.OBS_DISCARDED + odin_card_id("6g")] == 1.0


def test_two_players_one_pass_clears_the_table():
    env = make(2)
    load(env, hands=["1o 2o 3o", "6g 7g"], current=1, table=["5r"], last_player=0)
    play(env, "7g")
    act(env, "pass")
    d = st(env)
    assert d["table"] == [] and to_move(env) == 1 and d["discarded"] == ["7g"]


def test_passed_since_feature():
    env = make()
    load(env, hands=["1o 2o", "6g 7g", "3y 4y", "6p 7p"], current=1, table=["5r"], last_player=0)
    play(env, "6g")
    act(env, "pass")  # player 2
    act(env, "pass")  # player 3
    obs = env.observe("player_0")["observation"]  # seats relative to player 0
    block = obs[odin.OBS_SEATS :].reshape(odin.MAX_PLAYERS, odin.SEAT_FEATURES)
    assert block[:4, 6].tolist() == [0, 0, 1, 1]  # players 2 and 3 passed since player 1 played
    assert block[:4, 3].tolist() == [0, 1, 0, 0]  # player 1 made the table play
    assert block[:4, 4].tolist() == [1, 0, 0, 0]  # player 0 is to move
    assert block[:4, 1].tolist() == [2, 2, 2, 2]
    assert (block[4:] == 0).all()


# --------------------------------------------------------------------------- scoring and the match
def end_round_scenario(env, scores, **extra):
    """Player 1 goes out with its last card; hands of 2, 0, 3, 4 cards are left."""
    load(
        env,
        hands=["1o 2o", "9g", "3y 4y 5y", "6p 7p 8p 9p"],
        current=1,
        scores=scores,
        **extra,
    )
    play(env, "9g")


def test_match_ends_at_the_target_lowest_total_wins():
    env = make()
    end_round_scenario(env, [10, 14, 12, 11])  # -> 12 14 15 15
    d = st(env)
    assert d["scores"] == [12, 14, 15, 15] and d["phase"] == "over" and all(env.terminations.values())
    assert rewards(env) == pytest.approx([1.0, -1 / 3, -1 / 3, -1 / 3])
    assert env.legal_actions() == []


def test_match_tie_is_shared():
    env = make()
    end_round_scenario(env, [12, 14, 13, 13])  # -> 14 14 16 17
    assert st(env)["scores"] == [14, 14, 16, 17]
    assert rewards(env) == pytest.approx([0.5, 0.5, -0.5, -0.5])
    env = make(2)  # not reachable in play (the match would have ended at 15): refused
    with pytest.raises(ValueError, match=r"scores\[1\] must be 0\.\.14 while the match runs"):
        load(env, hands=["1o 2o", "9g"], current=1, scores=[13, 15])


def test_match_goes_on_below_the_target():
    env = make()
    end_round_scenario(env, [0, 14, 11, 10], round_leader=2)  # -> 2 14 14 14
    d = st(env)
    assert d["scores"] == [2, 14, 14, 14] and d["phase"] == "play" and not any(env.terminations.values())
    assert d["round"] == 2 and d["round_leader"] == 3 and to_move(env) == 3
    assert rewards(env) == [0.0] * 4


@pytest.mark.parametrize("target", [10, 20, 30])
def test_target_score_option(target):
    env = make(target_score=target)
    end_round_scenario(env, [target - 3, 0, 0, 0])  # target - 1: the match goes on
    assert st(env)["phase"] == "play" and st(env)["scores"][0] == target - 1
    env2 = make(target_score=target)
    end_round_scenario(env2, [target - 2, 0, 0, 0])  # exactly the target ends it
    assert all(env2.terminations.values())
    assert env.observe("player_0")["observation"][odin.OBS_TARGET] == target


def test_reaching_the_target_exactly_ends_the_match():
    env = make(target_score=10)
    end_round_scenario(env, [0, 0, 7, 0])  # 7 + 3 = 10
    assert st(env)["scores"] == [2, 0, 10, 4] and all(env.terminations.values())
    assert rewards(env) == pytest.approx([-1 / 3, 1.0, -1 / 3, -1 / 3])


def test_single_round():
    env = make(single_round=True)
    end_round_scenario(env, [0, 0, 0, 0])
    assert all(env.terminations.values()) and st(env)["scores"] == [2, 0, 3, 4]
    assert rewards(env) == pytest.approx([-1 / 3, 1.0, -1 / 3, -1 / 3])
    assert env.observe("player_0")["observation"][odin.OBS_TARGET] == 0


def test_round_reward_mode():
    env = make(reward_mode="round")
    end_round_scenario(env, [0, 0, 0, 0])
    assert rewards(env) == [-2.0, 0.0, -3.0, -4.0] and not any(env.terminations.values())
    env = make(reward_mode="round")
    end_round_scenario(env, [14, 0, 0, 0])
    assert rewards(env) == [-2.0, 0.0, -3.0, -4.0] and all(env.terminations.values())  # no outcome reward


def test_max_steps_truncates():
    env = make(max_steps=5)
    env.reset(seed=3)
    for _ in range(5):
        env.step(env.legal_actions()[0])
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert rewards(env) == [0.0] * 4


# --------------------------------------------------------------------------- scenarios
def test_scenario_errors():
    env = make()
    with pytest.raises(ValueError, match="table and last_player"):
        load(env, hands=["1o", "2o", "3o", "4o"], table=["5r"])
    with pytest.raises(ValueError, match="one colour or one value"):
        load(env, hands=["1o", "2o", "3o", "4o"], table=["5r", "6g"], last_player=0, current=1)
    with pytest.raises(ValueError, match="does not hold"):
        load(env, hands=["1o", "2o", "3o", "4o"], known=[["2o"], [], [], []])
    with pytest.raises(ValueError, match="holds no card"):
        load(env, hands=["1o", [], "3o", "4o"])
    with pytest.raises(ValueError, match="cannot have made the table play"):
        load(env, hands=["1o", "2o", "3o", "4o"], table=["5r"], last_player=1, current=1)
    with pytest.raises(ValueError, match="cannot become a legal play"):
        load(env, hands=["1o", "3o 4g", "7o", "8o"], table=["5r"], last_player=0, current=1, selected=["2r"])
    # a selection in progress loads and continues
    load(env, hands=["1o", "2o 6r", "3o", "4o"], table=["5r", "4r"], last_player=0, current=1, selected=["7r"])
    assert legal(env) == {"select 6r"}


def test_partial_scenario_puts_the_rest_aside():
    env = make()
    load(env, hands=["1o 2o", "6g 7g", "3y 4y", "6p 7p"], current=1, table=["5r"], last_player=0)
    d = st(env)
    assert len(d["aside"]) == 54 - 9 and d["discarded"] == []
    obs = env.observe("player_1")["observation"]
    # set-aside cards appear nowhere in the observation
    seen = obs[: odin.OBS_TABLE_COUNT].reshape(-1, 54).sum(axis=0)
    assert all(seen[odin_card_id(c)] == 0 for c in d["aside"])


# --------------------------------------------------------------------------- mask exactness
def test_mask_exact_on_random_tables():
    """Random uniform tables of 1 to 6 cards against random hands, half of them drawn
    from two colours and two values (so that many multi-card plays exist)."""
    rng = np.random.default_rng(0)
    env = make(3)
    kernel = OneGame(odin_driver)
    nodes = plays = 0
    for trial in range(2000):
        n = int(rng.integers(1, 7))
        if rng.random() < 0.5:  # one colour
            pool = list(int(rng.integers(6)) * 9 + rng.permutation(9))
        else:  # one value
            pool = list(rng.permutation(6) * 9 + int(rng.integers(9)))
        table = pool[:n]
        rest = np.setdiff1d(np.arange(54), table)
        size = int(rng.integers(1, 10))
        if rng.random() < 0.5:
            cols, vals = rng.choice(6, 1), rng.choice(9, 2, replace=False)
            rich = [c for c in rest if c // 9 in cols or c % 9 in vals]
            hand = rng.choice(rich, min(size, len(rich)), replace=False)
        else:
            hand = rng.choice(rest, size, replace=False)
        load(env, seed=trial, hands=[strs(hand), None, None], table=strs(table), last_player=2, current=0)
        nodes += check_exact(env._state, kernel)
        plays += len(reachable_plays(env._state, kernel)[0])
    assert nodes > 6000 and plays > 3000


def test_mask_exact_on_positions_from_random_play():
    kernel = OneGame(odin_driver)
    checked = 0
    for P in (2, 4, 6):
        venv = cardenvs.make_vec("odin_v1", num_envs=40, seed=P, num_players=P)
        sample = RandomSampler(P)
        state = venv.reset()
        for step in range(300):
            if step % 7 == 0:
                for i in np.flatnonzero(venv.states["sel_count"] == 0)[:4]:
                    checked += 1
                    check_exact(venv.states[i : i + 1].copy(), kernel)
            state = venv.step(sample(state.legal_action_mask))
    assert checked > 400


# --------------------------------------------------------------------------- random play invariants
def check_states(venv) -> None:
    s = venv.states
    P = venv.num_players
    colours = s["colours"].astype(np.int64)
    deck = (np.arange(54)[None, :] < colours[:, None] * 9).astype(np.int64)
    hands = s["hands"].astype(np.int64)
    total = hands[:, :P].sum(axis=1) + s["table"] + s["selected"] + s["discarded"] + s["aside"]
    assert (total == deck).all()  # every card exactly once
    assert (hands[:, P:] == 0).all() and (s["known"][:, P:] == 0).all()
    assert (s["known"] <= s["hands"]).all()  # known cards are held
    held = hands.sum(axis=2)
    assert (held[:, :P] <= 9).all()  # a hand never grows
    assert (s["held"] == held).all()
    live = s["phase"] == odin.PHASE_PLAY
    # the derived bit masks agree with the card arrays
    weights = np.left_shift(np.int64(1), np.arange(54, dtype=np.int64))
    assert (s["hand_bits"] == (hands * weights).sum(axis=2)).all()
    assert (s["table_bits"] == (s["table"].astype(np.int64) * weights).sum(axis=1)).all()
    assert (s["sel_bits"] == (s["selected"].astype(np.int64) * weights).sum(axis=1)).all()
    assert (s["disc_bits"] == (s["discarded"].astype(np.int64) * weights).sum(axis=1)).all()
    assert (s["table_count"] == s["table"].sum(axis=1)).all()
    assert (s["sel_count"] == s["selected"].sum(axis=1)).all()
    # while a round goes on every player holds a card (the one selecting may hold only the selection)
    cur = s["current"].astype(np.int64)
    rows = np.arange(len(s))
    in_hand = held[:, :P].copy()
    in_hand[rows, cur] += s["sel_count"]
    assert (in_hand > 0)[live].all()
    # the table play is one colour or one value, by someone other than the player to move
    t = s["table"].reshape(len(s), 6, 9)
    by_colour = (t.sum(axis=2) > 0).sum(axis=1)
    by_value = (t.sum(axis=1) > 0).sum(axis=1)
    on_table = s["table_count"] > 0
    assert ((by_colour == 1) | (by_value == 1))[on_table].all()
    assert ((s["last_player"] >= 0) == on_table).all()
    assert (s["last_player"] != s["current"])[on_table & live].all()


def run_matches(num_players: int, num_envs: int, seed: int, **options) -> tuple[int, int]:
    """Random play until every match is over (no auto-reset), with checks after every step."""
    venv = cardenvs.make_vec(
        "odin_v1", num_envs=num_envs, seed=seed, auto_reset=False, num_players=num_players, **options
    )
    P = num_players
    target = options.get("target_score", 15)
    single = options.get("single_round", False)
    sample = RandomSampler(seed)
    state = venv.reset()
    check_states(venv)
    ended = np.zeros(num_envs, dtype=bool)
    rounds = 0
    run = np.zeros(num_envs, dtype=np.int64)  # consecutive decisions of the same player
    round_steps = np.zeros(num_envs, dtype=np.int64)
    steps = 0
    while not ended.all():
        s = venv.states
        live = s["phase"] == odin.PHASE_PLAY
        assert (state.legal_action_mask.any(axis=1) == live).all()  # a move whenever not over
        prev_scores = s["scores"][:, :P].astype(np.int64).copy()
        prev_cur = state.current_player.copy()
        prev_held = s["held"][:, :P].astype(np.int64).copy()
        actions = sample(state.legal_action_mask)
        state = venv.step(actions)
        steps += 1
        assert not state.illegal.any() and not state.truncated.any()
        check_states(venv)
        s = venv.states
        scores = s["scores"][:, :P].astype(np.int64)
        # turns are bounded: a player makes at most 9 selections and a commit in a row
        same = (state.current_player == prev_cur) & ~state.round_ended & live
        run = np.where(same, run + 1, 0)
        assert run.max() <= 9
        round_steps = np.where(state.round_ended, 0, round_steps + live)
        assert round_steps.max() < 2000
        # round ends: one player out, the others score their cards
        rnd = np.flatnonzero(state.round_ended)
        rounds += rnd.size
        pts = s["round_points"][rnd, :P].astype(np.int64)
        assert ((pts == 0).sum(axis=1) == 1).all()
        assert (pts == prev_held[rnd]).all()  # the one going out had every card selected
        assert (scores[rnd] == prev_scores[rnd] + pts).all()
        quiet = ~state.round_ended
        assert (scores[quiet] == prev_scores[quiet]).all()
        go_on = rnd[~state.terminated[rnd]]
        assert (s["current"][go_on] == s["round_leader"][go_on]).all()
        assert (s["held"][go_on, :P] == 9).all()
        # rewards: only at the match end, zero-sum, the lowest total(s) share +1
        new_end = state.terminated & ~ended
        assert (state.round_ended[new_end]).all()
        r = state.rewards.astype(np.float64)
        assert (r[~new_end] == 0).all()
        for i in np.flatnonzero(new_end):
            assert single or (scores[i].max() >= target and prev_scores[i].max() < target)
            win = scores[i] == scores[i].min()
            assert abs(r[i].sum()) < 1e-5
            if win.all():
                assert (r[i] == 0).all()
            else:
                assert np.allclose(r[i][win], 1 / win.sum()) and np.allclose(r[i][~win], -1 / (~win).sum())
        ended |= state.terminated
    return rounds, steps


@pytest.mark.parametrize("num_players,num_envs", [(2, 600), (3, 500), (4, 500), (6, 400)])
def test_random_matches_keep_every_invariant(num_players, num_envs):
    rounds, _ = run_matches(num_players, num_envs, seed=50 + num_players)
    assert rounds >= 3 * num_envs


def test_random_single_rounds_and_options():
    run_matches(5, 400, seed=1, single_round=True)
    run_matches(2, 300, seed=2, two_player_colours=6, target_score=10)


def test_round_rewards_with_auto_reset():
    P = 3
    venv = cardenvs.make_vec("odin_v1", num_envs=200, seed=3, num_players=P, reward_mode="round")
    sample = RandomSampler(3)
    state = venv.reset()
    totals = np.zeros((200, P))
    matches = 0
    for _ in range(3000):
        assert state.legal_action_mask.any(axis=1).all()
        state = venv.step(sample(state.legal_action_mask))
        r = state.rewards.astype(np.float64)
        assert (r[~state.round_ended] == 0).all()
        assert ((r[state.round_ended] == 0).sum(axis=1) >= 1).all()
        totals -= r
        done = np.flatnonzero(state.terminated)
        for i in done:
            assert totals[i].max() >= 15
            assert venv.states["round"][i] == 1 and (venv.states["scores"][i] == 0).all()
        totals[done] = 0
        matches += done.size
        live = ~state.terminated
        assert (totals[live] == venv.states["scores"][live, :P]).all()
    assert matches > 100


# --------------------------------------------------------------------------- hidden information
def test_hidden_cards_do_not_change_observations():
    """Swapping an opponent's unknown card with a set-aside card, or between two
    opponents, changes no one's observation but the owners'."""
    rng = np.random.default_rng(1)
    env, twin = make(3), make(3)
    checked = 0
    for seed in range(30):
        env.reset(seed=seed)
        for _ in range(int(rng.integers(0, 150))):
            if any(env.terminations.values()):
                break
            env.step(int(rng.choice(env.legal_actions())))
        if any(env.terminations.values()):
            continue
        d = env.state_dict()
        viewer = d["current"]
        a, b = [p for p in range(3) if p != viewer]
        free_a = [c for c in d["hands"][a] if c not in d["known"][a]]
        free_b = [c for c in d["hands"][b] if c not in d["known"][b]]
        if not free_a or not free_b or not d["aside"]:
            continue
        new = {k: (list(v) if isinstance(v, list) else v) for k, v in d.items()}
        hands = [list(h) for h in d["hands"]]
        x, y, z = free_a[0], free_b[0], d["aside"][0]
        hands[a][hands[a].index(x)] = y  # a gets b's card, b gets a set-aside card, x is set aside
        hands[b][hands[b].index(y)] = z
        new["hands"] = hands
        new["aside"] = sorted(set(d["aside"]) - {z} | {x})
        twin.reset(seed=99, options={"scenario": new})
        for p in range(3):
            o1 = env.observe(f"player_{p}")["observation"]
            o2 = twin.observe(f"player_{p}")["observation"]
            assert np.array_equal(o1, o2) == (p not in (a, b)), p
        assert np.array_equal(
            env.observe(f"player_{viewer}")["action_mask"], twin.observe(f"player_{viewer}")["action_mask"]
        )
        checked += 1
    assert checked >= 10


def test_observation_layout():
    env = make()
    load(
        env,
        hands=["1o 2o", "6g 7g 8g", "3y 4y", "6p 7p"],
        current=1,
        table=["5r", "4r"],
        last_player=0,
        scores=[1, 2, 3, 4],
        known=[[], ["7g"], [], ["6p"]],
        discarded=["9b"],
        round_leader=2,
    )
    act(env, "select 8g")
    obs = env.observe("player_1")["observation"]
    assert obs.shape == (odin.OBS_SIZE,) == (539,)
    hand = obs[odin.OBS_HAND : odin.OBS_HAND + 54]
    assert names(np.flatnonzero(hand)) == {"6g", "7g"}  # the selected 8g is out of the hand
    assert names(np.flatnonzero(obs[odin.OBS_SELECTED : odin.OBS_SELECTED + 54])) == {"8g"}
    assert names(np.flatnonzero(obs[odin.OBS_TABLE : odin.OBS_TABLE + 54])) == {"5r", "4r"}
    assert names(np.flatnonzero(obs[odin.OBS_DISCARDED : odin.OBS_DISCARDED + 54])) == {"9b"}
    known = obs[odin.OBS_KNOWN : odin.OBS_TABLE_COUNT].reshape(5, 54)  # per opponent, relative seats 1..5
    assert names(np.flatnonzero(known[1])) == {"6p"}  # player 3 (two seats on) took 6p
    assert not known[[0, 2, 3, 4]].any()  # player 1's own 7g is in its hand block, not here
    old = odin_text.observation_v0(obs[None])[0]  # odin_v0's layout: one merged block, for its policies
    assert old.shape == (323,) and names(np.flatnonzero(old[odin.OBS_KNOWN : odin.OBS_KNOWN + 54])) == {"6p"}
    assert (old[: odin.OBS_KNOWN] == obs[: odin.OBS_KNOWN]).all()
    assert (old[odin.OBS_KNOWN + 54 :] == obs[odin.OBS_TABLE_COUNT :]).all()
    assert obs[odin.OBS_TABLE_COUNT] == 2 and obs[odin.OBS_SEL_COUNT] == 1 and obs[odin.OBS_LEAD] == 0
    assert obs[odin.OBS_TARGET] == 15 and obs[odin.OBS_COLOURS] == 6
    seats = obs[odin.OBS_SEATS :].reshape(6, 8)
    assert seats[:4, 0].tolist() == [1, 1, 1, 1] and (seats[4:] == 0).all()
    assert seats[:4, 1].tolist() == [2, 2, 2, 2]  # held, the selection not counted
    assert seats[:4, 2].tolist() == [2, 3, 4, 1]
    assert seats[:4, 3].tolist() == [0, 0, 0, 1]  # player 0 made the table play
    assert seats[:4, 4].tolist() == [1, 0, 0, 0]
    assert seats[:4, 5].tolist() == [0, 1, 0, 0]  # player 2 led this round
    assert seats[:4, 7].tolist() == [1, 0, 1, 0]  # publicly known cards held: 7g (player 1), 6p (player 3)
    lo, hi = odin_text.observation_bounds(odin_text.make_template())
    assert lo == 0 and obs.max() <= hi


def test_heuristic_beats_random():
    from cardenvs.agents.evaluate import evaluate
    from cardenvs.agents.heuristics.odin import OdinHeuristic
    from cardenvs.agents.random_agent import RandomAgent

    spec = cardenvs.get_spec("odin")
    agents = [OdinHeuristic(spec)] + [RandomAgent(spec, seed=k) for k in range(1, 4)]
    res = evaluate(spec, agents, 200, seed=7, options={"num_players": 4})
    assert res[0].win_rate > 0.5  # a fair share is 0.25


def test_docs_example():
    """The scenario example of docs/games/odin.md, with its printed results."""
    env = cardenvs.make_raw("odin_v1", num_players=3, single_round=True)
    scenario = {
        "hands": [["1b", "2b", "3b", "8y"], ["4r", "9g"], ["5o", "6o", "7o"]],
        "table": ["9r", "8r"],
        "last_player": 2,
        "current": 0,
    }
    env.reset(seed=0, options={"scenario": scenario})
    assert [env.action_to_str(a) for a in env.legal_actions()] == ["pass", "select 3b"]
    env.step(env.str_to_action("select 3b"))
    env.step(env.str_to_action("select 2b"))
    assert [env.action_to_str(a) for a in env.legal_actions()] == ["select 1b"]
    env.step(env.str_to_action("select 1b"))
    assert [env.action_to_str(a) for a in env.legal_actions()] == ["take 8r", "take 9r"]
    env.step(env.str_to_action("take 9r"))
    s = env.state_dict()
    assert (s["hands"][0], s["table"], s["discarded"], s["known"][0]) == (
        ["9r", "8y"], ["1b", "2b", "3b"], ["8r"], ["9r"]
    )
    assert env.agent_selection == "player_1" and [env.action_to_str(a) for a in env.legal_actions()] == ["pass"]
    env.step(env.str_to_action("pass"))
    for a in odin_text.play_actions(["5o", "6o", "7o"]):
        env.step(a)
    assert env.state_dict()["round_points"] == [2, 2, 0]
    assert env.rewards == {"player_0": -0.5, "player_1": -0.5, "player_2": 1.0}


def test_a_policy_trained_on_odin_v0_plays_odin_v1_through_its_observation_layout():
    """An odin_v0 policy file (323 inputs) is an agent on odin_v1: PPOAgent converts each
    observation with odin_text.observation_v0 and plays only legal moves."""
    import cardenvs
    from cardenvs.agents.ppo import POLICY_FORMAT, PolicyNetwork, PPOAgent

    rng = np.random.default_rng(0)
    weights = [rng.normal(size=(323, 16)).astype(np.float32), np.zeros(16, np.float32),
               rng.normal(size=(16, odin.NUM_ACTIONS)).astype(np.float32), np.zeros(odin.NUM_ACTIONS, np.float32)]
    meta = {"format": POLICY_FORMAT, "env_id": "odin_v0", "num_players": 4, "options": {}, "activation": "tanh",
            "layers": 2}
    policy = PolicyNetwork(meta, np.zeros(323, np.float32), np.ones(323, np.float32), weights)
    spec = cardenvs.get_spec("odin")
    agent = PPOAgent(spec, policy=policy)
    env = cardenvs.make_vec("odin", 16, seed=3, illegal_action="raise")
    st = env.reset()
    for _ in range(200):  # the env raises on an illegal action
        st = env.step(agent.act_batch(st.observation, st.legal_action_mask))
    logits = policy.logits(odin_text.observation_v0(st.observation))
    logits[~st.legal_action_mask] = -np.inf
    np.testing.assert_array_equal(agent.act_batch(st.observation, st.legal_action_mask), logits.argmax(axis=1))
