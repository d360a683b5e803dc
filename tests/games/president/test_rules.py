"""President: scripted scenarios, one exact expected outcome per rule clause.

Positions are built with scenarios (``env.reset(seed=..., options={"scenario": d})``)
and driven with ``str_to_action``. Seats play to the left: 0 -> 1 -> 2 -> 3 -> 0.
Cards a scenario does not place are in ``played``. Rules:
``docs/games/president.md``.
"""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs
from cardenvs.games.president import rules as pres
from tests.games.table import legal, st

RANK_ORDER = "3456789TJQKA2"
SUIT_ORDER = "cdhs"


# --------------------------------------------------------------------------- helpers
def make(num_players: int = 4, **options):
    return cardenvs.make_raw("president_v0", num_players=num_players, **options)


def load(env, seed: int = 0, **scenario):
    """Reset ``env`` into a scenario; the first-lead flag is off unless given."""
    scenario.setdefault("first_lead", False)
    if "scores" in scenario and "round" not in scenario:  # points need rounds played (2 and 1 a round)
        s = scenario["scores"]
        scenario["round"] = 1 + max(-(-max(s) // 2), -(-sum(s) // 3))
    env.reset(seed=seed, options={"scenario": scenario})
    env.loaded_round = scenario.get("round", 1)
    return env


def pile(top: str, by: int, run: int | None = None, matched: bool = False) -> dict:
    """Scenario keys for a pile whose top play is ``top`` (e.g. ``"77"``) made by seat ``by``."""
    return {
        "pile_rank": top[0],
        "pile_count": len(top),
        "run_count": len(top) if run is None else run,
        "last_player": by,
        "matched": matched,
    }


def act(env, text: str) -> None:
    env.step(env.unwrapped.str_to_action(text))


def to_move(env) -> int:
    """Seat to move, checked against the AEC agent selection."""
    cur = st(env)["current"]
    assert env.agent_selection == f"player_{cur}"
    return cur


def pile_state(env) -> tuple:
    d = st(env)
    return d["pile_rank"], d["pile_count"], d["run_count"], d["last_player"]


EMPTY = (None, 0, 0, -1)


def plays_of(hand: list[str], allow_all_twos: bool = False) -> set[str]:
    """Every lead a hand allows on an empty pile (2-plays never empty the hand)."""
    out = set()
    for r in RANK_ORDER:
        n = sum(1 for c in hand if c[0] == r)
        for k in range(1, n + 1):
            if r == "2" and k >= len(hand) and not allow_all_twos:
                continue
            out.add(r * k)
    return out


def card_key(card: str, two_is_highest: bool = True) -> tuple[int, int]:
    r = RANK_ORDER.index(card[0])
    if card[0] == "2" and not two_is_highest:
        r = -1
    return r, SUIT_ORDER.index(card[1])


def rewards(env) -> list[float]:
    return [env.rewards[a] for a in env.agents]


# --------------------------------------------------------------------------- encoding
def test_action_encoding():
    env = make()
    s2a = env.unwrapped.str_to_action
    assert s2a("pass") == 0 and s2a("decline") == 0
    assert s2a("77") == 1 + RANK_ORDER.index("7") * 8 + 1
    assert s2a("7h 7s") == s2a("77")
    assert s2a("3") == 1
    assert s2a("2222") == 1 + 12 * 8 + 3
    assert s2a("give 3") == 105 and s2a("give K") == 105 + RANK_ORDER.index("K")
    assert pres.NUM_ACTIONS == 105 + 13
    for a in range(pres.NUM_ACTIONS):
        assert s2a(env.action_to_str(a)) == a
    for bad in ("7 8", "", "give Z", "9999999999"):
        with pytest.raises(ValueError):
            s2a(bad)


# --------------------------------------------------------------------------- first lead
@pytest.mark.parametrize("seed", range(8))
def test_first_round_lead_is_threes_from_the_3c_holder(seed):
    env = make()
    env.reset(seed=seed)
    d = st(env)
    cur = to_move(env)
    assert d["first_lead"] and d["phase"] == "play" and d["round"] == 1
    assert "3c" in d["hands"][cur]
    threes = sum(c[0] == "3" for c in d["hands"][cur])
    assert legal(env) == {"3" * k for k in range(1, threes + 1)}
    # the deal: 13 cards each, every card once
    assert sorted(c for h in d["hands"] for c in h) == sorted(r + s for r in RANK_ORDER for s in SUIT_ORDER)
    act(env, "3")
    d = st(env)
    assert d["played"] == ["3c"] and not d["first_lead"]


def test_first_lead_mask_only_threes_and_holds_3c():
    env = make()
    hands = ["Kc Kd", "Ac", "3h 3s 3c 4c 2c 2d", "5c 5d"]
    load(env, hands=hands, current=2, first_lead=True)
    assert legal(env) == {"3", "33", "333"}
    before = st(env)["played"]
    act(env, "33")
    d = st(env)
    new = list(d["played"])
    for c in before:
        new.remove(c)
    assert sorted(new) == ["3c", "3h"]  # lowest suits first: the 3c is in the lead
    assert d["hands"][2] == ["2c", "2d", "3s", "4c"]
    assert to_move(env) == 3 and not d["first_lead"]
    assert legal(env) == {"pass", "55"}


# --------------------------------------------------------------------------- beating the pile
def test_more_cards_beat_fewer_any_rank():
    env = make()
    load(env, hands=["Jc Qc", "3c 3d 5h Kh Ac 2c", "4c 6c", "8c 9c"], current=1, **pile("K", by=0))
    assert legal(env) == {"pass", "33", "K", "A", "2"}
    act(env, "33")
    assert pile_state(env) == ("3", 2, 2, 1)
    assert to_move(env) == 2
    assert legal(env) == {"pass"}


def test_triple_beats_any_pair_same_count_needs_equal_or_higher():
    env = make()
    hand = "4c 4d 4h 5c 5d Kc Kd"
    load(env, hands=["9c", hand, "6c", "7c"], current=1, **pile("AA", by=0))
    assert legal(env) == {"pass", "444"}
    load(env, hands=["9c", hand, "6c", "7c"], current=1, **pile("55", by=0))
    assert legal(env) == {"pass", "55", "KK", "444"}
    load(env, hands=["9c", hand, "6c", "7c"], current=1, **pile("QQQ", by=0))
    assert legal(env) == {"pass"}


# --------------------------------------------------------------------------- matching
def test_matching_skips_the_next_player():
    env = make()
    load(env, hands=["Kc Ac", "7c Jc", "8c 9c", "Tc Qc"], current=1, **pile("7", by=0))
    act(env, "7")
    d = st(env)
    assert d["matched"] and pile_state(env) == ("7", 1, 2, 1)
    assert to_move(env) == 3  # seat 2 is skipped
    assert d["hands"][2] == ["8c", "9c"]
    assert legal(env) == {"pass", "T", "Q"}


def test_non_matching_play_does_not_skip():
    env = make()
    load(env, hands=["Kc Ac", "8c Jc", "8d 9c", "Tc Qc"], current=1, **pile("7", by=0))
    act(env, "8")
    assert not st(env)["matched"]
    assert to_move(env) == 2


def test_matching_skips_over_players_who_are_out():
    env = make()
    load(
        env,
        hands=["Kc Ac", "7c Jc", [], "Tc Qc"],
        current=1,
        out=[False, False, True, False],
        finish_order=[2],
        **pile("7", by=0),
    )
    act(env, "7")
    assert to_move(env) == 0  # seat 2 is out, seat 3 (next in play) is skipped


def test_matching_with_two_in_play_gives_the_lead_back():
    env = make()
    load(
        env,
        hands=["Kc Ac", "7c Jc", [], []],
        current=1,
        out=[False, False, True, True],
        finish_order=[3, 2],
        **pile("7", by=0),
    )
    act(env, "7")
    # seat 0 is skipped, the turn is back at seat 1, who made the top play: the pile clears
    assert pile_state(env) == EMPTY
    assert to_move(env) == 1
    assert legal(env) == {"J"}


# --------------------------------------------------------------------------- 2s
def test_twos_clear_and_the_player_leads_again():
    env = make()
    load(env, hands=["Jc Qc", "2c 2d 5c", "8c 9c", "Tc Kc"], current=1, **pile("KK", by=0))
    assert legal(env) == {"pass", "2", "22"}
    act(env, "2")
    d = st(env)
    assert pile_state(env) == EMPTY and "2c" in d["played"]
    assert to_move(env) == 1
    assert legal(env) == {"2", "5"}  # leading: no pass; one 2 may lead, the 5 may too
    act(env, "2")  # a 2 led clears at once as well
    assert pile_state(env) == EMPTY and to_move(env) == 1
    assert legal(env) == {"5"}
    act(env, "5")
    d = st(env)
    assert d["finish_order"] == [1] and d["out"][1]  # going out on a 5 after 2s is fine


def test_twos_go_on_a_bigger_play():
    env = make()
    load(env, hands=["2c 2d 4c", "Jc", "8c 9c", "Tc Kc"], current=0, **pile("QQQ", by=3))
    assert legal(env) == {"pass", "2", "22"}
    act(env, "22")
    assert pile_state(env) == EMPTY and to_move(env) == 0
    assert legal(env) == {"4"}


def test_cannot_go_out_on_a_two():
    env = make()
    # a hand of only 2s is never in play: such a player is stuck, and a scenario says so
    with pytest.raises(ValueError, match="only 2s"):
        load(env, hands=["2c 2d", "Jc", "8c 9c", "Tc Kc"], current=0, **pile("5", by=3))
    load(env, hands=["2c 2d Jd", "Jc", "8c 9c", "Tc Kc"], current=0, **pile("5", by=3))
    assert legal(env) == {"pass", "2", "22", "J"}
    load(env, hands=["2c 2d 2h 6c", "Jc", "8c 9c", "Tc Kc"], current=0, **pile("5", by=3))
    assert legal(env) == {"pass", "2", "22", "222", "6"}


def test_stuck_with_only_twos_ranks_last_in_stuck_order():
    env = make()
    load(env, hands=["5c Ac", "6c 2c", "7c 2d", "8c 9c 9d"], current=0, scores=[0, 4, 0, 0])
    act(env, "5")
    assert to_move(env) == 1
    assert legal(env) == {"pass", "6", "2"}
    act(env, "6")  # left with 2c only: stuck, out at once
    d = st(env)
    assert d["out"] == [False, True, False, False]
    assert d["stuck_order"] == [1] and d["finish_order"] == []
    assert to_move(env) == 2
    act(env, "7")  # stuck too, after seat 1
    d = st(env)
    assert d["stuck_order"] == [1, 2]
    assert to_move(env) == 3
    assert legal(env) == {"pass", "8", "9", "99"}
    act(env, "8")
    assert to_move(env) == 0  # seats 1 and 2 are out
    act(env, "A")  # seat 0 goes out; seat 3 is the last holder: the round ends
    d = st(env)
    # places: 0 (out first), 3 (last holder), 2 (stuck last), 1 (stuck first: trou A,
    # "devient automatiquement le trou A")
    assert d["last_places"] == [1, 4, 3, 2]
    # +2 to the first out; nobody else went out, so there is no vice-president point
    assert d["scores"] == [2, 4, 0, 0]
    assert d["round"] == env.loaded_round + 1 and d["president"] == 0 and d["trou"] == 1 and d["dealer"] == 1
    assert d["phase"] == "exchange" and to_move(env) == 0
    assert env.infos["player_0"]["last_places"] == [1, 4, 3, 2]
    assert env.infos["player_0"]["scores"] == [2, 4, 0, 0]


# --------------------------------------------------------------------------- four of a kind
def test_four_of_a_kind_in_one_play_clears():
    env = make()
    load(env, hands=["Jc Qc", "9c 9d 9h 9s 4c Kc", "8c Ac", "Tc Kd"], current=1, **pile("7", by=0))
    assert legal(env) == {"pass", "9", "99", "999", "9999", "K"}
    act(env, "9999")
    assert pile_state(env) == EMPTY
    assert to_move(env) == 1
    assert legal(env) == {"4", "K"}


def test_four_of_a_kind_with_the_last_cards_next_in_play_leads():
    env = make()
    load(env, hands=["Jc Qc", "9c 9d 9h 9s", "8c Ac", "Tc Kd"], current=1, **pile("7", by=0))
    act(env, "9999")
    d = st(env)
    assert d["finish_order"] == [1] and pile_state(env) == EMPTY
    assert to_move(env) == 2
    assert legal(env) == {"8", "A"}


def test_four_of_a_kind_led_clears():
    env = make()
    load(env, hands=["Jc Qc", "9c 9d 9h 9s 4c", "8c Ac", "Tc Kd"], current=1)
    act(env, "9999")
    assert pile_state(env) == EMPTY and to_move(env) == 1
    assert legal(env) == {"4"}


def test_four_completed_by_consecutive_plays_clears():
    env = make()
    load(env, hands=["Jc Qc", "7h 7s Kc", "8c Ac", "Tc Kd"], current=1, **pile("77", by=0))
    act(env, "77")  # a match, but the four clears: no skip, seat 1 leads
    assert pile_state(env) == EMPTY
    assert to_move(env) == 1
    assert legal(env) == {"K"}


def test_four_or_more_over_consecutive_plays_two_decks():
    env = make(8, completion_offers="holders")
    hands = ["Jc", "7c 7d Qc", "8c 8d", "7h 7h 7s 5c", "Ac", "Kc", "Kd", "Qd"]
    load(env, hands=hands, current=1, **pile("7", by=0))
    act(env, "77")  # run of 3; seat 3 holds three 7s, not exactly one: no offer
    d = st(env)
    assert d["phase"] == "play" and pile_state(env) == ("7", 2, 3, 1)
    assert to_move(env) == 2
    act(env, "pass")
    assert to_move(env) == 3
    assert legal(env) == {"pass", "77", "777"}
    act(env, "777")  # run of 6: clears
    assert pile_state(env) == EMPTY and to_move(env) == 3
    assert legal(env) == {"5"}


# --------------------------------------------------------------------------- out-of-turn completion
def test_completion_offer_accepted_clears_and_completer_leads():
    env = make()
    load(env, hands=["9c Kc Ac", "Tc Jc", "9d 9h 9s 4c", "Qc Qd"], current=0)
    act(env, "9")
    d = st(env)
    assert d["phase"] == "offer" and to_move(env) == 2  # seat 1 holds no 9
    assert legal(env) == {"pass", "999"}
    act(env, "999")
    d = st(env)
    assert d["phase"] == "play" and pile_state(env) == EMPTY
    assert to_move(env) == 2
    assert legal(env) == {"4"}
    assert d["hands"][1] == ["Tc", "Jc"] and d["hands"][3] == ["Qc", "Qd"]  # never moved


def test_completion_declined_then_normal_turn():
    env = make(completion_offers="holders")
    load(env, hands=["9c Kc Ac", "Tc Jc", "9d 9h 9s 4c", "Qc Qd"], current=0)
    act(env, "9")
    assert st(env)["phase"] == "offer" and to_move(env) == 2
    act(env, "decline")
    d = st(env)
    assert d["phase"] == "play" and to_move(env) == 1  # the lead did not match: no skip
    assert pile_state(env) == ("9", 1, 1, 0)
    assert legal(env) == {"pass", "T", "J"}
    act(env, "pass")
    assert to_move(env) == 2 and st(env)["phase"] == "play"
    assert legal(env) == {"pass", "9", "99", "999"}
    act(env, "9")  # matched: run of 2; seat 2 itself now holds two 9s but made the play
    d = st(env)
    assert d["phase"] == "play" and pile_state(env) == ("9", 1, 2, 2)
    assert to_move(env) == 0  # seat 3 skipped


def test_completion_declined_then_normal_turn_with_skip():
    env = make(completion_offers="holders")
    load(env, hands=["9c Kc", "Tc Jc", "9d 9h 4c", "Qc Qd"], current=0, **pile("9", by=3))
    act(env, "9")  # matches: run of 2, seat 2 holds exactly two 9s
    d = st(env)
    assert d["phase"] == "offer" and d["matched"] and to_move(env) == 2
    assert legal(env) == {"pass", "99"}
    act(env, "pass")
    d = st(env)
    assert d["phase"] == "play"
    assert to_move(env) == 2  # seat 1 skipped (the match), seat 2's normal turn
    assert legal(env) == {"pass", "9", "99"}


def test_completion_asked_in_turn_order_from_the_last_players_left_exactly_four_minus_n():
    env = make(8, completion_offers="holders")
    # two decks: eight 9s. Seat 5 leads 99 (9c 9c); exactly two 9s: seats 7 and 2; seat 0 has one.
    hands = ["9s Ac", "Kc Kd", "9d 9h 4c", "Qc Qd", "Jc Jd", "9c 9c Tc", "8c 8d", "9d 9h 5c"]
    load(env, hands=hands, current=5)
    act(env, "99")
    assert pile_state(env) == ("9", 2, 2, 5)
    assert st(env)["phase"] == "offer" and to_move(env) == 7
    assert legal(env) == {"pass", "99"}
    act(env, "decline")
    assert st(env)["phase"] == "offer" and to_move(env) == 2  # 0 (one 9) and 1 (none) not asked
    assert legal(env) == {"pass", "99"}
    act(env, "decline")
    assert st(env)["phase"] == "play" and to_move(env) == 6  # everyone declined: normal turn
    assert pile_state(env) == ("9", 2, 2, 5)

    load(env, hands=hands, current=5)
    act(env, "99")
    act(env, "pass")
    assert to_move(env) == 2
    act(env, "99")  # seat 2 completes the four
    assert pile_state(env) == EMPTY and st(env)["phase"] == "play"
    assert to_move(env) == 2 and legal(env) == {"4"}


def test_completion_needs_exactly_the_missing_count():
    env = make(8, completion_offers="holders")
    # seat 5 plays 999: one 9 is missing; seats 6 and 7 hold two and three: nobody is asked
    hands = ["Ac", "Kc Kd", "4c", "Qc Qd", "Jc Jd", "9c 9c 9d Tc", "9d 9h 8c", "9h 9s 9s 5c"]
    load(env, hands=hands, current=5)
    act(env, "999")
    assert st(env)["phase"] == "play" and to_move(env) == 6
    assert legal(env) == {"pass"}


def test_completion_with_the_last_cards_goes_out():
    env = make()
    load(env, hands=["9c Kc", "Tc Jc", "9d 9h 9s", "Qc Qd"], current=0)
    act(env, "9")
    assert st(env)["phase"] == "offer" and to_move(env) == 2
    act(env, "999")
    d = st(env)
    assert d["out"] == [False, False, True, False] and d["finish_order"] == [2]
    assert pile_state(env) == EMPTY
    assert to_move(env) == 3  # the completer is out: the next player in play leads
    assert legal(env) == {"Q", "QQ"}


def test_completion_leaving_only_twos_is_stuck():
    env = make()
    load(env, hands=["9c Kc", "Tc Jc", "9d 9h 9s 2c", "Qc Qd"], current=0)
    act(env, "9")
    act(env, "999")
    d = st(env)
    assert d["stuck_order"] == [2] and d["finish_order"] == [] and d["out"][2]
    assert pile_state(env) == EMPTY and to_move(env) == 3


def test_completion_offer_ends_the_round_when_one_is_left():
    env = make()
    load(
        env,
        hands=["9c Kc", [], "9d 9h 9s", []],
        current=0,
        out=[False, True, False, True],
        finish_order=[3, 1],
        scores=[0, 0, 0, 0],
    )
    act(env, "9")
    assert to_move(env) == 2 and st(env)["phase"] == "offer"
    act(env, "999")  # seat 2 goes out third; seat 0 is the last holder
    d = st(env)
    assert d["last_places"] == [4, 2, 3, 1]
    assert d["scores"] == [0, 1, 0, 2]
    assert d["round"] == env.loaded_round + 1


# --------------------------------------------------------------------------- passing
def test_passing_does_not_lock_a_player_out():
    env = make()
    load(env, hands=["5c 7c Kc", "8c 9c", "4c Jc", "6c Qc"], current=0)
    assert "pass" not in legal(env)  # no pass on an empty pile
    act(env, "5")
    act(env, "pass")
    act(env, "pass")
    assert to_move(env) == 3
    act(env, "6")
    assert to_move(env) == 0
    act(env, "7")
    assert to_move(env) == 1
    assert legal(env) == {"pass", "8", "9"}
    act(env, "8")
    assert pile_state(env) == ("8", 1, 1, 1)


def test_pile_clears_when_the_turn_returns_to_the_last_player():
    env = make()
    load(env, hands=["Kc 4c 8c", "5c 5d", "6c 6d", "7c 7d"], current=0)
    act(env, "K")
    for seat, pair in ((1, "55"), (2, "66"), (3, "77")):
        assert to_move(env) == seat and legal(env) == {"pass", pair}
        act(env, "pass")
    assert pile_state(env) == EMPTY
    assert to_move(env) == 0
    assert legal(env) == {"4", "8"}


def test_pile_clears_after_a_pass_round_even_with_plays_in_between():
    env = make()
    load(env, hands=["5c 4c", "6c 6d", "8c 8d", "7c 7d"], current=0)
    act(env, "5")
    act(env, "6")
    act(env, "8")  # seat 2 on top
    act(env, "pass")  # 3
    act(env, "pass")  # 0
    act(env, "pass")  # 1
    assert pile_state(env) == EMPTY and to_move(env) == 2
    assert legal(env) == {"8"}


def test_last_player_out_next_in_play_leads():
    env = make()
    load(
        env,
        hands=["Kc", [], "6c 6d", "7c 7d"],
        current=0,
        out=[False, True, False, False],
        finish_order=[1],
    )
    act(env, "K")  # seat 0 goes out on the K
    d = st(env)
    assert d["finish_order"] == [1, 0]
    assert to_move(env) == 2
    act(env, "pass")
    assert to_move(env) == 3
    act(env, "pass")  # back at seat 0 (out): pile clears, seat 1 is out too, seat 2 leads
    assert pile_state(env) == EMPTY
    assert to_move(env) == 2
    assert legal(env) == {"6", "66"}


# --------------------------------------------------------------------------- round end and scoring
def finish_round(env, scores, finish_order=(0, 1), seed=0, **scenario):
    """Seats in ``finish_order`` are out; the other two hold Ac and Kc, the first of them
    (in seat order) leads the ace and goes out: places are finish_order, that seat, the other."""
    P = 4
    rest = [p for p in range(P) if p not in finish_order]
    hands = [[] for _ in range(P)]
    hands[rest[0]] = ["Ac"]
    hands[rest[1]] = ["Kc"]
    out = [p in finish_order for p in range(P)]
    load(
        env,
        seed=seed,
        hands=hands,
        current=rest[0],
        out=out,
        finish_order=list(finish_order),
        scores=list(scores),
        **scenario,
    )
    act(env, "A")


def test_round_end_scores_two_and_one():
    env = make()
    load(
        env,
        hands=["Ac", "3c 4c", [], "5c"],
        current=0,
        out=[False, False, True, False],
        finish_order=[2],
        scores=[3, 0, 5, 1],
    )
    act(env, "A")  # seat 0 out second
    assert to_move(env) == 1 and legal(env) == {"pass"}
    act(env, "pass")
    act(env, "pass")  # seat 3; back at seat 0 (out): seat 1 leads
    assert to_move(env) == 1 and pile_state(env) == EMPTY
    act(env, "3")
    act(env, "5")  # seat 3 goes out third; seat 1 is trou A
    d = st(env)
    assert d["last_places"] == [2, 4, 1, 3]
    assert d["scores"] == [4, 0, 7, 1]
    assert env.infos["player_3"] == {"round": env.loaded_round + 1, "scores": [4, 0, 7, 1],
                                     "last_places": [2, 4, 1, 3]}
    assert d["president"] == 2 and d["trou"] == 1 and d["dealer"] == 1
    assert d["phase"] == "exchange" and to_move(env) == 2
    assert not any(env.terminations.values())
    assert rewards(env) == [0.0] * 4  # match rewards come only at the match end


def check_trou_gave_highest(d, two_is_highest):
    trou, pres_ = d["trou"], d["president"]
    given = d["given"][trou]
    assert given is not None and d["received"][pres_] == given
    assert given in d["hands"][pres_]
    assert len(d["hands"][pres_]) == 14 and len(d["hands"][trou]) == 12
    key = card_key(given, two_is_highest)
    assert all(card_key(c, two_is_highest) < key for c in d["hands"][trou])
    return given


def test_trou_gives_the_president_the_highest_card_two_counts_highest():
    env = make()
    gave = set()
    for seed in range(12):
        finish_round(env, [0, 0, 0, 0], finish_order=(2, 0), seed=seed)
        d = st(env)
        assert d["president"] == 2 and d["trou"] == 3 and d["dealer"] == 3
        assert d["phase"] == "exchange" and to_move(env) == 2
        gave.add(check_trou_gave_highest(d, True)[0])
    assert "2" in gave  # a trou holding a 2 gives it (most deals)


def test_trou_gives_highest_card_two_not_highest_option():
    env = make(two_is_highest=False)
    gave = set()
    for seed in range(12):
        finish_round(env, [0, 0, 0, 0], finish_order=(2, 0), seed=seed)
        d = st(env)
        gave.add(check_trou_gave_highest(d, False)[0])
    assert "2" not in gave


def test_president_returns_a_card_of_their_choice_then_leads_anything():
    env = make()
    finish_round(env, [0, 0, 0, 0], finish_order=(2, 0), seed=5)
    d = st(env)
    p, t = d["president"], d["trou"]
    hand = d["hands"][p]
    held_ranks = {c[0] for c in hand}
    assert legal(env) == {f"give {r}" for r in held_ranks}
    assert "pass" not in legal(env)
    low = min(hand, key=card_key)  # the president's lowest card: the lowest suit of the lowest rank
    act(env, f"give {low[0]}")
    d2 = st(env)
    assert d2["given"][p] == low and d2["received"][t] == low
    assert low in d2["hands"][t] and len(d2["hands"][t]) == 13 and len(d2["hands"][p]) == 13
    assert d2["phase"] == "play" and to_move(env) == p and not d2["first_lead"]
    assert pile_state(env) == EMPTY
    assert legal(env) == plays_of(d2["hands"][p])  # any lead, not only 3s


# --------------------------------------------------------------------------- match end and rewards
def test_match_ends_at_target_score_winner_takes_all():
    env = make()
    finish_round(env, [9, 0, 0, 0], finish_order=(0, 1))
    d = st(env)
    assert d["scores"] == [11, 1, 0, 0]
    assert d["terminated"] and d["phase"] == "over"
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert rewards(env) == pytest.approx([1.0, -1 / 3, -1 / 3, -1 / 3])
    assert sum(rewards(env)) == pytest.approx(0.0, abs=1e-6)
    assert env.legal_actions() == []


def test_match_goes_on_below_target():
    env = make()
    finish_round(env, [8, 9, 0, 0], finish_order=(0, 1))
    d = st(env)
    assert d["scores"] == [10, 10, 0, 0] and not d["terminated"] and d["round"] == env.loaded_round + 1
    assert rewards(env) == [0.0] * 4


def test_match_tie_is_shared():
    env = make()
    finish_round(env, [10, 9, 0, 0], finish_order=(1, 0))
    d = st(env)
    assert d["scores"] == [11, 11, 0, 0] and d["terminated"]
    assert rewards(env) == pytest.approx([0.5, 0.5, -0.5, -0.5])


def test_highest_score_wins_when_two_pass_the_target():
    env = make()
    finish_round(env, [10, 10, 0, 0], finish_order=(0, 1))
    assert st(env)["scores"] == [12, 11, 0, 0]
    assert rewards(env) == pytest.approx([1.0, -1 / 3, -1 / 3, -1 / 3])


def test_all_tied_match_rewards_zero():
    # all tied at the end is out of reach (those who score nothing would be at the target
    # already): such a position is refused; all tied in a single round (nobody scores) is not
    env = make()
    with pytest.raises(ValueError, match="scores"):
        finish_round(env, [9, 10, 11, 11], finish_order=(0, 1))


def test_target_score_option():
    env = make(target_score=2)
    finish_round(env, [0, 0, 0, 0], finish_order=(1, 0))
    assert st(env)["terminated"] and st(env)["scores"] == [1, 2, 0, 0]
    assert rewards(env) == pytest.approx([-1 / 3, 1.0, -1 / 3, -1 / 3])


def test_round_reward_mode():
    env = make(reward_mode="round")
    finish_round(env, [0, 0, 0, 0], finish_order=(2, 0))
    assert rewards(env) == [1.0, 0.0, 2.0, 0.0]
    assert not st(env)["terminated"]
    finish_round(env, [9, 0, 0, 5], finish_order=(0, 3))
    assert st(env)["terminated"]
    assert rewards(env) == [2.0, 0.0, 0.0, 1.0]  # no match outcome on top


def test_single_round():
    env = make(single_round=True)
    finish_round(env, [0, 0, 0, 0], finish_order=(3, 1))
    d = st(env)
    assert d["terminated"] and d["round"] == 1 and d["scores"] == [0, 1, 0, 2]
    assert rewards(env) == pytest.approx([-1 / 3, -1 / 3, -1 / 3, 1.0])


def test_single_round_from_a_real_deal():
    env = make(single_round=True)
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    steps = 0
    while not any(env.terminations.values()):
        env.step(int(rng.choice(env.legal_actions())))
        steps += 1
        assert steps < 1000
    d = st(env)
    assert d["round"] == 1 and sum(d["scores"]) == 3 and sorted(d["scores"]) == [0, 0, 1, 2]
    assert sum(rewards(env)) == pytest.approx(0.0, abs=1e-6)


# --------------------------------------------------------------------------- two decks
@pytest.mark.parametrize("num_players", [4, 5, 7, 8, 9, 10])
def test_deal_from_the_dealers_left_and_first_lead(num_players):
    n = 60
    venv = cardenvs.make_vec("president_v0", num_envs=n, seed=num_players, num_players=num_players)
    state = venv.reset()
    decks = 1 if num_players <= 7 else 2
    assert (venv.states["decks"] == decks).all()
    P = num_players
    total = 52 * decks
    two_holders = 0
    for i in range(n):
        s = venv.states[i]
        hands = s["hands"][:P].astype(int)
        assert (hands.sum(axis=0) == decks).all() and s["played"].sum() == 0
        dealer = int(s["dealer"])
        sizes = hands.sum(axis=1)
        order = [(dealer + 1 + j) % P for j in range(P)]
        big, small = total // P + 1, total // P
        extra = total % P
        assert [int(sizes[q]) for q in order] == [big] * extra + [small] * (P - extra)
        holders = [q for q in order if hands[q, 8] > 0]  # 3c is card id 8
        two_holders += len(holders) == 2
        cur = int(state.current_player[i])
        assert cur == holders[0] and s["first_lead"]
        threes = int(hands[cur, 8:12].sum())
        want = set(range(1, threes + 1))  # playing k threes is action k
        assert set(np.flatnonzero(state.legal_action_mask[i])) == want
    if decks == 2:
        assert two_holders > n // 2  # the two 3c in two hands: the one nearer the dealer's left leads


def test_seven_players_one_deck_eight_two_decks():
    env = make(7)
    env.reset(seed=1)
    d = st(env)
    assert d["decks"] == 1 and sorted(len(h) for h in d["hands"]) == [7, 7, 7, 7, 8, 8, 8]
    env = make(8)
    env.reset(seed=1)
    d = st(env)
    assert d["decks"] == 2 and sum(len(h) for h in d["hands"]) == 104
    assert [len(h) for h in d["hands"]] == [13] * 8
    env = make(4, decks=2)
    env.reset(seed=1)
    assert [len(h) for h in st(env)["hands"]] == [26] * 4
    for bad in ({"num_players": 3}, {"num_players": 11}, {"num_players": 4, "decks": 3}):
        with pytest.raises(ValueError):
            cardenvs.make_raw("president_v0", **bad)


# --------------------------------------------------------------------------- truncation and illegal actions
def test_max_steps_truncates():
    env = make(max_steps=5)
    env.reset(seed=2)
    for i in range(5):
        assert not any(env.truncations.values())
        env.step(env.legal_actions()[0])
        assert st(env)["num_steps"] == i + 1
    d = st(env)
    assert d["truncated"] and not d["terminated"] and d["phase"] == "over"
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert rewards(env) == [0.0] * 4


def test_illegal_action_raises_and_changes_nothing():
    env = make()
    env.reset(seed=4)
    before = st(env)
    agent = env.agent_selection
    with pytest.raises(ValueError, match=r"illegal action 0 \('pass'\).*legal now: 1 '3'"):
        act(env, "pass")
    with pytest.raises(ValueError, match=r"'A'"):
        act(env, "A")
    assert st(env) == before and env.agent_selection == agent
    load(env, hands=["Jc Qc", "7c Kc", "8c Ac", "Tc Kd"], current=1, **pile("9", by=0))
    before = st(env)
    with pytest.raises(ValueError, match=r"'7'.*legal now: 0 'pass'"):
        act(env, "7")
    assert st(env) == before


def test_illegal_action_penalty_ends_the_game():
    env = make(illegal_action="penalty")
    env.reset(seed=4)
    offender = to_move(env)
    act(env, "A")
    d = st(env)
    assert d["terminated"] and d["phase"] == "over"
    assert all(env.terminations.values())
    expected = [0.0] * 4
    expected[offender] = -1.0
    assert rewards(env) == expected


# --------------------------------------------------------------------------- scenarios
def test_bad_scenarios_raise():
    env = make()
    with pytest.raises(ValueError):
        load(env, hands=["Ac Ac", "Kc", "Qc", "Jc"], current=0)  # a card twice in one deck
    with pytest.raises(ValueError):
        load(env, hands=["Ac", [], "Qc", "Jc"], current=0)  # empty hand still in play
    with pytest.raises(ValueError):
        load(env, hands=["Ac", "Kc", "Qc", "Jc"], current=0, pile_rank="2", pile_count=1, run_count=1, last_player=1)
    with pytest.raises(ValueError, match="offer phase"):  # offered a four without the cards
        load(env, hands=["9c Kc", "Tc Jc", "4c", "Qc Qd"], current=1, phase="offer", **pile("9", by=0))
    with pytest.raises(ValueError, match="offer phase"):  # nothing on the pile to complete
        load(env, hands=["9c Kc", "Tc Jc", "4c", "Qc Qd"], current=1, phase="offer")
    with pytest.raises(ValueError, match="exchange phase"):  # trou A cannot be the one to return a card
        load(env, hands=["9c Kc", "Tc Jc", "4c", "Qc Qd"], current=1, phase="exchange", president=0, trou=1)
    with pytest.raises(ValueError):
        load(env, num_players=5)
    with pytest.raises(ValueError):
        load(env, bogus=1)


def test_partial_scenario_keeps_the_seeded_deal():
    env = make()
    env.reset(seed=9)
    dealt = st(env)
    load(env, seed=9, hands=[None, "3c 4c", None, None], current=1)
    d = st(env)
    assert d["hands"][1] == ["3c", "4c"]
    for p in (0, 2, 3):
        assert len(d["hands"][p]) == len(dealt["hands"][p])
    all_cards = sorted(c for h in d["hands"] for c in h) + d["played"]
    assert sorted(all_cards) == sorted(r + s for r in RANK_ORDER for s in SUIT_ORDER)


def test_a_finished_match_state_loads_back():
    """The last play of a match may make a four that never clears (the round ended first);
    the final state_dict must still load as a scenario."""
    env = make(single_round=True)
    load(env, hands=["9c Kc", [], "9d 9h 9s", []], current=0, out=[False, True, False, True], finish_order=[3, 1])
    act(env, "9")
    act(env, "999")
    d = st(env)
    assert d["phase"] == "over" and d["run_count"] == 4 and d["last_places"] == [4, 2, 3, 1]
    twin = make(single_round=True)
    twin.reset(seed=1, options={"scenario": d})
    assert twin.state_dict() == d
    assert all(twin.terminations.values()) and twin.legal_actions() == []


def test_offer_and_exchange_states_load_back():
    env = make()
    load(env, hands=["9c Kc Ac", "Tc Jc", "9d 9h 9s 4c", "Qc Qd"], current=0)
    act(env, "9")
    d = st(env)
    assert d["phase"] == "offer"
    twin = make()
    twin.reset(seed=3, options={"scenario": d})
    assert twin.state_dict() == d and legal(twin) == {"pass", "999"}
    finish_round(env, [0, 0, 0, 0], finish_order=(2, 0), seed=5)
    d = st(env)
    assert d["phase"] == "exchange"
    twin.reset(seed=3, options={"scenario": d})
    assert twin.state_dict() == d and legal(twin) == legal(env)


# --------------------------------------------------------------------------- completion offers reveal nothing
def test_public_offers_ask_every_player_who_could_hold_the_missing_cards():
    env = make()  # completion_offers="public" is the default
    load(env, hands=["9c Kh 5d", "Qd Qs 4h", "4c 9h 9s 9d", "5h Jc Jd 8c"], current=0, **pile("8", by=3))
    act(env, "9")  # three 9s are still in hands: everyone in play with 3+ cards is asked
    assert to_move(env) == 1 and st(env)["phase"] == "offer"
    assert legal(env) == {"pass"}  # player 1 holds no 9: can only decline
    act(env, "pass")
    assert to_move(env) == 2 and legal(env) == {"pass", "999"}
    act(env, "pass")
    assert to_move(env) == 3 and legal(env) == {"pass"}
    act(env, "pass")
    assert st(env)["phase"] == "play" and to_move(env) == 1  # the normal turn resumes


def test_public_offers_skip_players_with_too_few_cards_and_need_cards_out_of_play():
    env = make()
    # the 8s: only 8c is out of play besides the pile's, so no question goes round for a run of 1
    # 8h and 8s are placed nowhere, so they count as played
    load(env, hands=["8d Kh 5d", "Qd", "4c 9h 9s 9d", "5h Jc Jd 8c"], current=0, **pile("7", by=3))
    act(env, "8")  # needs three more 8s, one is out of play
    assert st(env)["phase"] == "play" and to_move(env) == 1
    env2 = make()
    load(env2, hands=["9c Kh 5d", "Qd", "4c 9h 9s 9d", "5h Jc Jd 8c"], current=0, **pile("8", by=3))
    act(env2, "9")  # player 1 holds one card, fewer than the three missing: not asked
    assert to_move(env2) == 2 and st(env2)["phase"] == "offer"


def test_who_moves_next_does_not_depend_on_hidden_cards():
    """Two deals that differ only in which opponent holds 9d (player 2, who could then
    complete, or player 3) give player 1 the same players to move and observations."""
    base = {"current": 0, "first_lead": False, "pile_rank": "8", "pile_count": 1, "run_count": 1, "last_player": 3}
    views = []
    deals = ((["4c", "9h", "9s", "9d"], ["5h", "Jc", "Jd", "Td"]), (["4c", "9h", "9s", "Td"], ["5h", "Jc", "Jd", "9d"]))
    for h2, h3 in deals:
        env = make()
        hands = [["9c", "Kh", "5d"], ["Qd", "Qs", "4h"], h2, h3]
        env.reset(seed=0, options={"scenario": dict(base, hands=hands)})
        seen = []
        for text in ("9", "pass", "pass", "pass"):
            seen.append((env.agent_selection, env.observe("player_1")["observation"].tolist()))
            env.step(env.str_to_action(text))
        views.append(seen)
    assert views[0] == views[1]


def test_holders_mode_asks_only_the_holders():
    env = make(completion_offers="holders")
    load(env, hands=["9c Kh 5d", "Qd Qs 4h", "4c 9h 9s 9d", "5h Jc Jd 8c"], current=0, **pile("8", by=3))
    act(env, "9")
    assert to_move(env) == 2 and legal(env) == {"pass", "999"}
