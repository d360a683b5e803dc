"""Classes: scripted scenarios with exact outcomes for the rules, brute-force checks that
the masks reach exactly every legal contract and every legal laying (and never a dead
end), random-play invariants, and hidden information.

Positions are built with scenarios and driven with ``str_to_action``; the card a player
draws is set by taking the discard top. Seats play to the left: 0 -> 1 -> 2 -> 3 -> 0.
Rules: ``docs/games/classes.md``.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

import cardenvs
import cardenvs.games.classes as GD
from cardenvs.core.vector import RandomSampler
from cardenvs.games.classes import rules as G
from cardenvs.games.classes import text as GT
from cardenvs.rummy import melds as M
from cardenvs.rummy.contract import CONTRACTS
from tests.games.table import OneGame, act, legal, st


def make(**options):
    return cardenvs.make_raw("classes_v2", **options)


def load(env, seed: int = 0, **scenario):
    env.reset(seed=seed, options={"scenario": _reachable(scenario)})
    return env


def _reachable(scenario: dict) -> dict:
    """A short-hand position made reachable (the loader refuses positions no play reaches):
    a class above 1 or points need rounds played (``round`` set to enough when not given),
    and a player who laid the contract has a meld on the table (a set added for it)."""
    if "round" not in scenario and ("level" in scenario or "scores" in scenario):
        by_points = [1 + -(-s // GT.ROUND_POINTS_CAP) for s in scenario.get("scores", [])]
        rounds = max(scenario.get("level", [1]) + by_points)
        scenario = {**scenario, "round": rounds}
    if "laid" in scenario and "hands" in scenario:  # a player who laid the contract has a meld on the table
        melds = list(scenario.get("melds", []))
        owners = {m["owner"] for m in melds}
        used = Counter(c for key in ("pile", "stock") for c in scenario.get(key, []))
        used.update(c for h in scenario["hands"] if h for c in h)
        for m in melds:
            used.update(c.split("=")[0] for c in m["cards"])
        copies = 2 if len(scenario["hands"]) <= 4 else 3
        for q, laid in enumerate(scenario["laid"]):
            if laid is True and q not in owners:
                for rank in "89TJQ3467":
                    free = [c for c in (rank + s for s in "cdhs") for _ in range(copies - used[c])]
                    if len(free) >= 3:
                        melds.append({"kind": "set", "owner": q, "cards": free[:3]})
                        used.update(free[:3])
                        break
        scenario = {**scenario, "melds": melds}
    return scenario


def hands(*hs: str) -> list[list[str] | None]:
    return [h.split() if h else None for h in hs]


JUNK = "Kh Js Ad Tc Qd 8s 5h 3s Jh 9d 6h Kc Qs"  # 13 cards, no contract 1 (no two brelans)
JUNK2 = "Kd Jd As Th Qc 8h 5s 3c Jc 9s 6d Ks Qh"  # the other copies (two decks): three pairs, no brelan
CONTRACT_1 = "7c 7d 7h 9c 9c 9s 3h 4h 5h 6h Jc Qd Ks"  # two brelans (and a séquence of 4)


def _laid_position(hand0: str = CONTRACT_1, top: str = "Kd", **kw):
    """Seat 0 to move, having taken ``top``; the others hold junk."""
    env = make(**kw.pop("options", {}))
    load(env, hands=hands(hand0, JUNK, None, None), current=0, phase="draw", pile=[top], **kw)
    act(env, "take")
    return env


# --------------------------------------------------------------------------- deal
@pytest.mark.parametrize("players,decks", [(2, 2), (4, 2), (5, 3), (6, 3)])
def test_deal_13_cards_from_two_or_three_decks(players, decks):
    env = make(num_players=players)
    env.reset(seed=3)
    d = st(env)
    assert [len(h) for h in d["hands"]] == [13] * players
    assert len(d["pile"]) == 1
    assert len(d["stock"]) == 52 * decks - 13 * players - 1
    assert d["current"] == (d["dealer"] + 1) % players
    assert d["level"] == [1] * players and d["phase"] == "draw"
    all_cards = sum(d["hands"], []) + d["stock"] + d["pile"]
    assert all(all_cards.count(c) == decks for c in set(all_cards)) and len(set(all_cards)) == 52


def test_a_turn_is_draw_then_discard_and_the_next_player_moves():
    env = make()
    load(env, hands=hands(JUNK, JUNK, None, None), current=0, phase="draw", pile=["4d"])
    assert legal(env) == {"draw", "take"}
    act(env, "take")
    assert "contract" not in legal(env)  # no contract in hand
    assert legal(env) == {f"discard {c}" for c in JUNK.split() + ["4d"]}
    act(env, "discard 4d")
    d = st(env)
    assert d["current"] == 1 and d["phase"] == "draw" and d["pile"][-1] == "4d" and len(d["hands"][0]) == 13


# --------------------------------------------------------------------------- the contract
def test_the_contract_is_laid_whole_meld_by_meld_in_the_listed_order():
    env = _laid_position()
    assert "contract" in legal(env)
    assert not {"set", "run"} & legal(env) and not any(a.startswith("layoff") for a in legal(env))
    act(env, "contract")
    assert legal(env) == {"add 7c", "add 9c"}  # a set by its natural cards in suit order: 7d 7h alone fall short
    act(env, "7c", "7d", "7h")
    assert legal(env) == {"close"}
    act(env, "close")
    assert st(env)["phase"] == "build" and st(env)["item"] == 1  # no discard before the second brelan
    assert "discard Kd" not in legal(env)
    act(env, "9c", "9c", "9s", "close")
    d = st(env)
    assert d["laid"][0] and d["phase"] == "play"
    assert [m["cards"] for m in d["melds"]] == [["7c", "7d", "7h"], ["9c", "9c", "9s"]]
    # that turn included: further melds (a séquence 3h 4h 5h 6h) and then a discard
    assert "run" in legal(env)
    act(env, "run", "3h", "4h", "5h")
    assert {"close", "add 6h"} <= legal(env)
    act(env, "6h", "close", "discard Kd")
    d = st(env)
    assert d["current"] == 1 and len(d["hands"][0]) == 3


def test_a_contract_that_can_be_laid_is_laid_that_turn():
    # "dès qu'un joueur a ce qu'il faut pour réussir son année, il dépose": no discard
    # while the contract in hand is not laid
    env = _laid_position()
    assert legal(env) == {"contract"}
    env = _laid_position(options={"contract_when_able": False})  # the player's choice
    assert "contract" in legal(env) and "discard Kd" in legal(env)
    act(env, "discard Kd")
    assert st(env)["current"] == 1 and not st(env)["laid"][0]


def test_without_the_contract_in_hand_the_turn_ends_with_a_discard_as_before():
    env = _laid_position(JUNK)
    assert "contract" not in legal(env) and "discard Kd" in legal(env)


def test_contract_when_able_is_checked_and_travels_with_the_state():
    with pytest.raises(TypeError, match="option contract_when_able must be True or False"):
        make(contract_when_able="false")
    env = make(contract_when_able=False)
    env.reset(seed=1)
    assert st(env)["contract_when_able"] is False


def test_a_contract_meld_may_be_longer_than_asked_and_uses_2s_with_a_natural():
    env = _laid_position("3h 4h 5h 6h 7h 9c 9s 2d Jc Qd Ks Ad 8s", top="9d", level=[2, 1, 1, 1])
    act(env, "contract")  # contract 2: a séquence of four and a brelan
    assert "add 3h" in legal(env) and "add *=3h" in legal(env)
    act(env, "3h", "4h", "5h", "6h")
    assert {"close", "add 7h", "add *=7h"} <= legal(env)
    act(env, "7h", "close")
    # the brelan: 9c 9d 9s, or with the 2
    assert {"add 9c", "add 9d"} <= legal(env)
    act(env, "9c", "9d", "*=9", "close")
    d = st(env)
    assert d["melds"][0]["cards"] == ["3h", "4h", "5h", "6h", "7h"] and d["melds"][1]["cards"] == ["9c", "9d", "2d=9"]
    assert d["laid"][0]


def test_the_2s_are_wild_but_every_meld_needs_a_natural_card():
    env = make()
    hand = "2c 2d 2h Kh Js Ad"
    load(env, hands=hands(hand, JUNK, None, None), current=0, phase="play", laid=[True, False, False, False])
    act(env, "run")
    counts = np.bincount([cardenvs.core.cards.card_id(c) for c in hand.split()], minlength=53)
    first = {("add *=" if cells[0][1] == WILD else "add ") + cardenvs.core.cards.card_str(_card(cells[0][0], suit))
             for (kind, suit, cells), _, _ in _ref_melds(counts, False) if kind == "run"}
    assert legal(env) == first and "add *=3c" not in first and "add Js" in first and "add *=Jd" in first
    act(env, "*=Jh", "*=Qh")
    assert legal(env) == {"add Kh"}  # three 2s and no natural card is no meld
    act(env, "Kh", "close")
    assert st(env)["melds"][-1]["cards"] == ["2c=Jh", "2d=Qh", "Kh"]
    load(env, hands=hands(hand, JUNK, None, None), current=0, phase="play", laid=[True, False, False, False])
    act(env, "set")
    assert legal(env) == {"add Kh", "add Js", "add Ad"}  # a set starts with a natural card, its 2s come last
    act(env, "Ad")
    assert legal(env) == {"add *=Ac"}  # a 2 in a set stands for its rank (written with clubs)


@pytest.mark.parametrize("hand,mixed,set_,run", [
    ("5h 6s 7d Kc", False, False, False),
    ("5h 6s 7d Kc", True, False, True),  # runs of mixed suits: 5h 6s 7d
    ("5h 6h 8h Kc", False, False, False),  # a gap and no 2 to fill it
    ("5h 6h 8h 2c", False, False, True),  # 5h 6h 2c=7h (or 8h after it); 5h and the 2 are two cards
    ("5h 6s 8d 2c", True, False, True),
    ("Kc Ks 2d 9h", False, True, False),
    ("Kc 2d 2h 5s", False, True, True),  # one natural and two 2s: a set, and a run (Kc with the 2s below it)
    ("Ah 2c 2d", False, True, True),  # the run Q K A: the ace is high
    ("2c 2d 2h 2s", False, False, False),  # no natural card: no meld
])
def test_a_further_meld_is_offered_exactly_when_the_hand_holds_one(hand, mixed, set_, run):
    """Once the contract is laid, 'set' and 'run' are legal exactly when the hand holds
    such a meld of 3 (the brute-force reference agrees with each case)."""
    env = make(run_same_suit=not mixed)
    load(env, hands=hands(hand, JUNK, None, None), current=0, phase="play", laid=[True, False, False, False])
    counts = np.bincount([cardenvs.core.cards.card_id(c) for c in hand.split()], minlength=53)
    ref = {meld[0] for meld, _, _ in _ref_melds(counts, mixed)}
    assert ("set" in ref, "run" in ref) == (set_, run)
    assert ("set" in legal(env), "run" in legal(env)) == (set_, run)


def test_aces_are_only_high_and_runs_start_at_the_three():
    # A 2 3 4 is no séquence (the ace is not low, and a 2 is never the 2 of a run)
    env = _laid_position("Ah 2c 3h 4h 9c 9s 9d Jc 7s 8c 6c Kd Qs", top="Td", level=[2, 1, 1, 1])
    assert "contract" not in legal(env)
    env = _laid_position("Jh Qh Kh Ah 3d 4d 9c 9s 9d Jc 7s 8c 6c", top="Kd", level=[2, 1, 1, 1])
    act(env, "contract")
    assert legal(env) == {"add Jh"}  # the séquence of four can only be J Q K A
    act(env, "Jh", "Qh", "Kh", "Ah")
    assert legal(env) == {"close"}  # nothing above the ace


def test_runs_of_mixed_suits_with_the_option():
    hand = "3h 4c 5d 6s 9c 9s 9d Jc Qd Ks Ad 8s 7h"
    env = _laid_position(hand, top="Kd", level=[2, 1, 1, 1])
    assert "contract" not in legal(env)
    env = _laid_position(hand, top="Kd", level=[2, 1, 1, 1], options={"run_same_suit": False})
    act(env, "contract", "3h", "4c", "5d", "6s", "close", "9c", "9d", "9s", "close")
    d = st(env)
    assert d["melds"][0]["cards"] == ["3h", "4c", "5d", "6s"] and d["laid"][0]
    act(env, "layoff 0")
    assert legal(env) == {"add 7h"}  # a 7 of any suit above; nothing below the 3


def test_same_rank_sets_option():
    hand = "7c 7d 7h 7c 7s 7s Jc Qd Ks Ad 8s 4h 3d"
    env = _laid_position(hand, top="Kd")
    assert "contract" in legal(env)
    env = _laid_position(hand, top="Kd", options={"same_rank_sets": False})
    assert "contract" not in legal(env)


def test_before_the_contract_no_meld_and_no_layoff():
    melds = [{"kind": "set", "owner": 1, "cards": ["5c", "5d", "5s"]}]
    env = make()
    load(env, hands=hands(JUNK, "Kh Js Ad Tc Qd 8s 9h 3s Jh 9d 6c Kc", None, None), current=0, phase="draw",
         pile=["5h"], melds=melds, laid=[False, True, False, False])
    act(env, "take")
    assert not any(a.startswith("layoff") for a in legal(env))
    assert "contract" not in legal(env)


def test_layoffs_on_any_meld_once_the_contract_is_laid():
    melds = [{"kind": "set", "owner": 1, "cards": ["5c", "5d", "5s"]},
             {"kind": "run", "owner": 1, "cards": ["2c=8h", "9h", "Th"]}]
    env = make()
    load(env, hands=hands("5h 7h Jh 2s Kc", "Kh Js Ad Tc", None, None), current=0, phase="draw", pile=["Qs"],
         melds=melds, laid=[True, True, False, False])
    act(env, "take")
    assert {"layoff 0", "layoff 1"} <= legal(env)
    act(env, "layoff 1")
    assert legal(env) == {"add 7h", "add Jh", "add *=7h", "add *=Jh"}
    act(env, "*=Jh")
    assert st(env)["melds"][1]["cards"] == ["2c=8h", "9h", "Th", "2s=Jh"]
    act(env, "layoff 0", "5h")
    assert st(env)["melds"][0]["cards"] == ["5c", "5d", "5s", "5h"]
    # a 2 keeps the place it was laid at: Jh cannot replace it, Qh? no; 7h below still fits
    act(env, "layoff 1")
    assert legal(env) == {"add 7h"}


def test_going_out_by_discarding_the_last_card_scores_and_classes_advance():
    junk_pts = 10 + 10 + 15 + 10 + 10 + 5 + 5 + 5 + 10 + 5 + 5 + 10 + 10  # JUNK: Kh Js Ad Tc Qd 8s 5h 3s Jh 9d 6h Kc Qs
    junk2_pts = junk_pts  # JUNK2 holds the same ranks
    seat2 = "2c 2d 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Ac"
    melds = [{"kind": "set", "owner": 0, "cards": ["5d", "5d", "5s", "5h"]}]
    env = make()
    load(env, hands=hands("Kc", JUNK, seat2, JUNK2), current=0, phase="draw", pile=["4d"], melds=melds,
         laid=[True, False, False, False])
    act(env, "take", "discard 4d")  # one card kept: the turn passes
    assert st(env)["current"] == 1 and st(env)["round"] == 1
    env = make()
    load(env, hands=hands("Kc", JUNK, seat2, JUNK2), current=0, phase="play", pile=["Kd"], melds=melds,
         laid=[True, False, False, False], level=[3, 1, 2, 9], dealer=2, scores=[5, 0, 0, 0], round=9)
    act(env, "discard Kc")
    d = st(env)
    assert d["round"] == 10 and d["level"] == [4, 1, 2, 9]  # only seat 0 laid: it advances, the others repeat
    assert d["round_points"] == [0, junk_pts, 20 + 20 + 5 * 7 + 10 * 3 + 15, junk2_pts]
    assert d["scores"] == [5, junk_pts, 120, junk2_pts]
    assert d["dealer"] == 3 and d["current"] == 0 and d["melds"] == [] and not any(d["laid"])
    assert [len(h) for h in d["hands"]] == [13] * 4


def test_laying_the_last_cards_goes_out_without_a_discard():
    env = make()
    load(env, hands=hands("8c 8d", JUNK, JUNK2, None), current=0, phase="draw", pile=["8h"],
         laid=[True, False, False, False], melds=[{"kind": "set", "owner": 0, "cards": ["5d", "5d", "5s", "5h"]}])
    act(env, "take", "set", "8c", "8d", "8h", "close")
    d = st(env)
    assert d["round"] == 2 and d["round_points"][0] == 0


def test_the_match_ends_after_class_10_fewest_points_among_those_who_completed_it():
    contract10 = "3h 4h 5h 6h 7h 8h 9h Jc Jd Js Jh Kc Qs"  # contract 10: a séquence of seven and a carré
    env = make()
    load(env, hands=hands(contract10, JUNK, "Qh Td", JUNK2), current=0,
         phase="draw", pile=["Kd"], laid=[False, False, True, False], level=[10, 4, 10, 10],
         scores=[100, 0, 30, 0], melds=[{"kind": "set", "owner": 2, "cards": ["5d", "5d", "5s"]}])
    act(env, "take", "contract", *"3h 4h 5h 6h 7h 8h 9h".split(), "close", "Jc", "Jd", "Jh", "Js", "close")
    act(env, "discard Kd")
    d = st(env)
    assert d["laid"][0] and not d["terminated"] and d["current"] == 1  # the round goes on until a hand is empty
    env = make()
    load(env, hands=hands("Kc", JUNK, "Qh", JUNK2), current=0, phase="play", pile=["Kd"],
         laid=[True, False, True, False], level=[10, 4, 10, 10], scores=[100, 0, 30, 0],
         melds=[{"kind": "set", "owner": 2, "cards": ["5d", "5d", "5s"]}])
    env.step(env.str_to_action("discard Kc"))
    d = st(env)
    assert d["terminated"] and d["winners"] == [False, False, True, False]  # 30 + 10 < 100 + 0
    assert np.allclose([env.rewards[f"player_{q}"] for q in range(4)], [-1 / 3, -1 / 3, 1.0, -1 / 3])
    assert not d["winners"][3]  # class 10 not completed: seat 3 did not lay it
    # a tie is shared
    env = make()
    load(env, hands=hands("Kc", JUNK, "Qh", JUNK2), current=0, phase="play", pile=["Kd"],
         laid=[True, False, True, False], level=[10, 4, 10, 10], scores=[40, 0, 30, 0],
         melds=[{"kind": "set", "owner": 2, "cards": ["5d", "5d", "5s"]}])
    env.step(env.str_to_action("discard Kc"))
    assert st(env)["winners"] == [True, False, True, False]
    assert np.allclose([env.rewards[f"player_{q}"] for q in range(4)], [0.5, -0.5, 0.5, -0.5])


def test_round_rewards():
    env = make(reward_mode="round")
    load(env, hands=hands("Kc", JUNK, "Qh", JUNK2), current=0, phase="play", pile=["Kd"],
         laid=[True, False, True, False], level=[3, 4, 5, 6],
         melds=[{"kind": "set", "owner": 2, "cards": ["5d", "5d", "5s"]}])
    env.step(env.str_to_action("discard Kc"))
    junk = 110  # JUNK and JUNK2
    assert np.allclose([env.rewards[f"player_{q}"] for q in range(4)], [1.0, -junk / 100, 1 - 0.10, -junk / 100])


def test_single_round_winner_is_who_went_out():
    env = make(single_round=True)
    load(env, hands=hands("Kc", JUNK, "Qh", JUNK2), current=0, phase="play", pile=["Kd"],
         laid=[True, False, True, False], melds=[{"kind": "set", "owner": 2, "cards": ["5d", "5d", "5s"]}])
    env.step(env.str_to_action("discard Kc"))
    assert st(env)["winners"] == [True, False, False, False]
    assert np.allclose([env.rewards[f"player_{q}"] for q in range(4)], [1, -1 / 3, -1 / 3, -1 / 3])


def test_empty_stock_is_rebuilt_from_the_discards_but_the_top():
    env = make()
    base = st(env.reset(seed=0) or env)
    pile = base["stock"] + base["pile"]
    load(env, hands=base["hands"], stock=[], pile=pile, current=base["current"], phase="draw")
    act(env, "draw")
    d = st(env)
    assert d["pile"] == [pile[-1]] and len(d["stock"]) == len(pile) - 2


def test_a_round_at_the_turn_cap_is_void():
    """Nobody scores a void round or moves up a class, even with the contract laid; the
    next dealer deals round 2. A single-round match is truncated there: no winners, no rewards."""
    venv = cardenvs.make_vec("classes_v2", num_envs=64, seed=2, max_turns_per_round=20, auto_reset=False)
    s = venv.reset()
    sample = RandomSampler(1)
    dealer = venv.states["dealer"].copy()
    voided = np.zeros(64, dtype=bool)
    for _ in range(400):
        before = venv.states.copy()
        s = venv.step(sample(s.legal_action_mask))
        now = venv.states
        void = (now["void_rounds"] == 1) & (before["void_rounds"] == 0)
        voided |= void
        assert not s.truncated.any() and not s.terminated.any()
        for i in np.flatnonzero(void):
            assert before[i]["round"] == 1 and before[i]["turns"] == 19 and now[i]["round"] == 2
            assert (now[i]["scores"] == 0).all() and (now[i]["round_points"] == 0).all()
            assert (now[i]["level"] == before[i]["level"]).all() and not now[i]["laid"].any()
            assert now[i]["dealer"] == (dealer[i] + 1) % 4 and now[i]["turns"] == 0
            assert (s.rewards[i] == 0).all() and s.round_ended[i]
        if voided.sum() >= 8:
            break
    assert voided.sum() >= 8
    single = cardenvs.make_vec("classes_v2", num_envs=64, seed=2, max_turns_per_round=20, auto_reset=False,
                               single_round=True)
    s = single.reset()
    done = np.zeros(64, dtype=bool)
    total = np.zeros((64, 4))
    while not done.all():
        s = single.step(np.where(done, 0, sample(s.legal_action_mask)))
        total += np.where(done[:, None], 0, s.rewards)
        done |= s.terminated | s.truncated
    cut = single.states["void_rounds"] == 1  # a single round at the cap: truncated, no outcome
    assert cut.any() and (single.states["truncated"] == cut).all() and not single.states["terminated"][cut].any()
    assert (single.states["winners"][cut] == 0).all() and (total[cut] == 0).all()


# --------------------------------------------------------------------------- exact masks: brute force
WILD = -1  # a 2, whichever it is
RUN_POSITIONS = range(2, 14)  # 3 .. K A


def _card(q: int, t: int) -> int:
    return (0 if q == 13 else q) * 4 + t


def _ref_melds(counts, mixed: bool, min_size: int = 3):
    """Every meld (>= min_size cards, one natural at least) of the cards: (meld, naturals, 2s)."""
    wilds = int(sum(counts[4:8]))
    out = []
    for lo in RUN_POSITIONS:
        for hi in range(lo + min_size - 1, 14):
            cells = list(range(lo, hi + 1))
            options = [[WILD] + [_card(q, t) for t in range(4) if counts[_card(q, t)]] for q in cells]
            if sum(len(o) == 1 for o in options) > wilds:
                continue
            for choice in itertools.product(*options):
                nat = [c for c in choice if c != WILD]
                if not nat or len(choice) - len(nat) > wilds:
                    continue
                if not mixed and len({c % 4 for c in nat}) > 1:
                    continue
                if any(nat.count(c) > counts[c] for c in nat):
                    continue
                suit = -1 if mixed else nat[0] % 4
                meld = ("run", suit, tuple(zip(cells, choice, strict=True)))
                out.append((meld, nat, len(choice) - len(nat)))
    for r in [0] + list(range(2, 13)):
        avail = [int(counts[r * 4 + t]) for t in range(4)]
        for k in np.ndindex(*(a + 1 for a in avail)):
            nat = [r * 4 + t for t in range(4) for _ in range(k[t])]
            if not nat:
                continue
            for w in range(wilds + 1):
                if len(nat) + w >= min_size:
                    out.append((("set", r, tuple(sorted(nat)) + (WILD,) * w), nat, w))
    return out


def _use(left, nat, w):
    rest = dict(left)
    for c in nat:
        rest[c] = rest.get(c, 0) - 1
        if rest[c] < 0:
            return None
    rest[WILD] = rest.get(WILD, 0) - w
    return rest if rest[WILD] >= 0 else None


def _left(counts):
    d = {c: int(counts[c]) for c in range(52) if counts[c] and c // 4 != 1}
    d[WILD] = int(sum(counts[4:8]))
    return d


def _ref_contracts(counts, level: int, mixed: bool, same_rank_sets: bool):
    """Every way to lay the contract: the melds in the contract's order."""
    items = [(int(k), int(n)) for k, n in CONTRACTS[level - 1] if n > 0]
    melds = _ref_melds(counts, mixed)
    results = set()

    def go(i, left, chosen, ranks):
        if i == len(items):
            results.add(tuple(chosen))
            return
        kind, size = items[i]
        for meld, nat, w in melds:
            if (meld[0] == "set") != (kind == M.KIND_SET) or len(nat) + w < size:
                continue
            if meld[0] == "set" and not same_rank_sets and meld[1] in ranks:
                continue
            rest = _use(left, nat, w)
            if rest is not None:
                go(i + 1, rest, chosen + [meld], ranks | ({meld[1]} if meld[0] == "set" else set()))

    go(0, _left(counts), [], frozenset())
    return results


def _meld_outcome(rec, m, mixed):
    kind = int(rec["meld_kind"][m])
    slots = [int(x) for x in rec["meld_slot"][m]]
    if kind == M.KIND_RUN:
        cells = tuple((q, WILD if GT._is_wild(c) else c) for q, c in enumerate(slots) if c >= 0)
        return ("run", -1 if mixed else int(rec["meld_key"][m]), cells)
    nat = sorted(c for c in slots if c >= 0 and not GT._is_wild(c))
    w = sum(1 for c in slots if c >= 0 and GT._is_wild(c))
    return ("set", int(rec["meld_key"][m]), tuple(nat) + (WILD,) * w)


def _contract_outcomes(env):
    """Every contract the masks reach from the play phase (no dead end on the way)."""
    walker = OneGame(GD)
    outs = set()
    mixed = not bool(env._state[0]["run_same_suit"])
    n0 = int(env._state[0]["num_melds"])

    def dfs(state):
        rec = state[0]
        if rec["laid"][0]:
            outs.add(tuple(_meld_outcome(rec, m, mixed) for m in range(n0, int(rec["num_melds"]))))
            return
        legal_ = np.flatnonzero(rec["legal"])
        assert legal_.size, GT.render_text(rec)
        for a in legal_:
            if int(rec["phase"]) == G.PHASE_PLAY and a != G.CONTRACT:
                continue  # the discards
            dfs(walker.stepped(state, a))

    dfs(env._state.copy())
    return outs


POOL = [r * 4 + t for r in (2, 3, 4, 5, 6) for t in (0, 1)] * 2  # 3..7 of clubs and diamonds, two decks
ISOLATED = "Js Ah"  # far from the pool and from each other: no meld without two 2s, even of mixed suits


@pytest.mark.parametrize("seed", range(4))
def test_contract_masks_reach_exactly_every_contract(seed):
    """From random hands, the contracts the masks reach are exactly the ways to lay the
    player's contract (brute force from the rules: every meld, longer melds, the 2s'
    positions, identical cards in sets), with or without each option."""
    rng = np.random.default_rng(seed)
    checked = [0, 0]
    for it in range(60):
        pool = list(POOL)
        rng.shuffle(pool)
        n_wild = int(rng.integers(0, 2))
        hand = pool[: 12 - n_wild] + [4] * n_wild  # a 2c, or not
        hand = [cardenvs.core.cards.card_str(c) for c in hand] + ISOLATED.split()
        level = int(rng.choice([1, 2, 3, 4, 5, 6, 7, 8, 9]))
        mixed = bool(rng.random() < 0.3)
        same = bool(rng.random() < 0.7)
        env = make(run_same_suit=not mixed, same_rank_sets=same)
        load(env, seed=it, hands=hands(" ".join(hand), JUNK, None, None), current=0, phase="play",
             level=[level, 1, 1, 1])
        counts = np.bincount([cardenvs.core.cards.card_id(c) for c in hand], minlength=53)
        ref = _ref_contracts(counts, level, mixed, same)
        if "contract" not in legal(env):
            assert not ref, (hand, level)
            checked[0] += 1
            continue
        got = _contract_outcomes(env)
        assert got == ref, (hand, level, mixed, same, sorted(got ^ ref)[:3])
        checked[1] += 1
        if checked[1] >= 5:
            break
    assert checked[1] >= 3


def _laying_outcomes(env):
    """Every table the masks reach from the play phase laying further melds only."""
    walker = OneGame(GD)
    outs = set()
    mixed = not bool(env._state[0]["run_same_suit"])

    def dfs(state):
        rec = state[0]
        if int(rec["phase"]) == G.PHASE_PLAY:
            outs.add(tuple(sorted(_meld_outcome(rec, m, mixed) for m in range(int(rec["num_melds"])))))
        legal_ = np.flatnonzero(rec["legal"])
        assert legal_.size or rec["held"][0] == 0, GT.render_text(rec)
        for a in legal_:
            if G.DISCARD0 <= a < G.CONTRACT or G.LAYOFF0 <= a < G.ADD0:
                continue
            dfs(walker.stepped(state, a))

    dfs(env._state.copy())
    return outs


def _ref_layings(counts, mixed):
    melds = _ref_melds(counts, mixed)
    results = set()

    def go(start, left, chosen):
        results.add(tuple(sorted(chosen)))
        for i in range(start, len(melds)):
            meld, nat, w = melds[i]
            rest = _use(left, nat, w)
            if rest is not None and sum(rest.values()) > 0:  # the hand never empties here (isolated cards)
                go(i, rest, chosen + [meld])

    go(0, _left(counts), [])
    return results


@pytest.mark.parametrize("seed", range(3))
def test_further_melds_masks_reach_exactly_every_laying(seed):
    rng = np.random.default_rng(10 + seed)
    for it in range(4):
        pool = list(POOL)
        rng.shuffle(pool)
        hand = [cardenvs.core.cards.card_str(c) for c in pool[:6]] + (["2h"] if it % 2 else []) + ISOLATED.split()
        mixed = it == 3
        env = make(run_same_suit=not mixed)
        load(env, seed=it, hands=hands(" ".join(hand), JUNK, None, None), current=0, phase="play",
             laid=[True, False, False, False])
        counts = np.bincount([cardenvs.core.cards.card_id(c) for c in hand], minlength=53)
        got = _laying_outcomes(env)
        base = set(min(got, key=len))  # the meld seat 0 laid with its contract (load() adds one)
        got = {tuple(m for m in t if m not in base) for t in got}
        ref = _ref_layings(counts, mixed)
        assert got == ref, (hand, sorted(got ^ ref)[:3])


# --------------------------------------------------------------------------- random play
def _meld_ok(rec, m, mixed):
    slots = [int(c) for c in rec["meld_slot"][m] if c >= 0]
    nat = [c for c in slots if not GT._is_wild(c)]
    if len(slots) < 3 or not nat:
        return False
    if int(rec["meld_kind"][m]) == M.KIND_SET:
        return len({c // 4 for c in nat}) == 1 and nat[0] // 4 == int(rec["meld_key"][m])
    lo, hi = int(rec["meld_lo"][m]), int(rec["meld_hi"][m])
    cells = [int(rec["meld_slot"][m, q]) for q in range(lo, hi + 1)]
    return 2 <= lo and hi <= 13 and all(c >= 0 for c in cells) and all(
        GT._is_wild(c) or (c // 4 == (0 if q == 13 else q) and (mixed or c % 4 == int(rec["meld_key"][m])))
        for q, c in zip(range(lo, hi + 1), cells, strict=True))


@pytest.mark.parametrize("options", [{"num_players": 4}, {"num_players": 5, "run_same_suit": False},
                                     {"num_players": 2, "same_rank_sets": False, "first_class": 7}])
def test_random_play_invariants(options):
    n = 64
    venv = cardenvs.make_vec("classes_v2", num_envs=n, seed=4, **options)
    s = venv.reset()
    sample = RandomSampler(5)
    P = venv.num_players
    mixed = not options.get("run_same_suit", True)
    deck = GT.deck_counts(venv.states[0])
    rounds = ended = 0
    for _ in range(2500):
        s = venv.step(sample(s.legal_action_mask))
        assert s.legal_action_mask.any(axis=1).all()
        rounds += int(s.round_ended.sum())
        if s.terminated.any():
            ended += int(s.terminated.sum())
            assert np.allclose(s.rewards[s.terminated].sum(axis=1), 0.0, atol=1e-5)
        for i in range(0, n, 8):
            rec = venv.states[i]
            counts = rec["hands"][:P].sum(axis=0).astype(np.int64)
            counts += np.bincount(rec["stock"][: rec["stock_n"]], minlength=53)
            counts += np.bincount(rec["pile"][: rec["pile_n"]], minlength=53)
            counts += GT.custom_counts(rec, "melds") + GT.custom_counts(rec, "build")
            assert (counts == deck).all()
            for m in range(int(rec["num_melds"])):
                assert _meld_ok(rec, m, mixed) or int(rec["phase"]) == G.PHASE_BUILD, GT.render_text(rec)
                assert rec["laid"][rec["meld_owner"][m]] or rec["meld_owner"][m] == rec["current"]
            sizes = rec["hands"][:P].sum(axis=1)
            for q in range(P):
                if not rec["laid"][q] and q != rec["current"]:
                    assert sizes[q] == 13
    assert rounds > 20


def test_hidden_cards_do_not_change_the_observation():
    env = make()
    env.reset(seed=5)
    d = st(env)
    viewer = d["current"]
    other = (viewer + 1) % 4
    obs = env.observe(f"player_{viewer}")["observation"].copy()
    h = [list(x) for x in d["hands"]]
    stock = list(d["stock"])
    j = next(i for i, c in enumerate(stock) if c != h[other][0])
    h[other][0], stock[j] = stock[j], h[other][0]
    env.reset(seed=5, options={"scenario": dict(d, hands=h, stock=stock[::-1])})
    assert (env.observe(f"player_{viewer}")["observation"] == obs).all()
    # and the observation does see one's own cards
    h2 = [list(x) for x in d["hands"]]
    stock2 = list(d["stock"])
    j = next(i for i, c in enumerate(stock2) if c != h2[viewer][0])
    h2[viewer][0], stock2[j] = stock2[j], h2[viewer][0]
    env.reset(seed=5, options={"scenario": dict(d, hands=h2, stock=stock2)})
    assert (env.observe(f"player_{viewer}")["observation"] != obs).any()


def test_scenario_round_trip_and_move_strings():
    env = _laid_position()
    act(env, "contract", "7c", "7d")
    d = st(env)
    env2 = make()
    env2.reset(seed=1, options={"scenario": d})
    assert st(env2) == d
    assert legal(env2) == legal(env)
    for a in range(G.NUM_ACTIONS):
        assert GT.str_to_action(GT.action_to_str(a)) == a
    assert GT.str_to_action("*=7") == G.WILD0 + 6 * 4


def test_scenarios_that_break_the_rules_are_refused_and_change_nothing():
    env = make()
    env.reset(seed=0)
    d = st(env)
    without_stock = {k: v for k, v in d.items() if k != "stock"}  # the stock takes the cards left
    junk_hands = hands(JUNK, JUNK2, None, None)
    for bad, match in (
        ({"level": [11, 1, 1, 1]}, "level"),
        ({"phase": "play"}, "14 cards"),
        ({"hands": [d["hands"][0] + d["stock"][:1]] + d["hands"][1:]}, "13 cards"),
        ({"melds": [{"kind": "set", "owner": 1, "cards": ["5c", "5d", "5s"]}], "hands": junk_hands},
         "laid their contract"),
        ({"melds": [{"kind": "set", "owner": 1, "cards": ["2c=5", "2d=5", "2s=5"]}], "hands": junk_hands,
          "laid": [True, True, True, True]}, "natural"),
        ({"phase": "over"}, "over"),
        ({"item": 0}, "item"),
        ({"current": 9}, "current"),
        ({"hands": [["X"] + d["hands"][0][1:]] + d["hands"][1:]}, "X"),
    ):
        with pytest.raises(ValueError, match=match):
            env.reset(seed=0, options={"scenario": dict(without_stock, **bad)})
    assert st(env) == d  # each failed load left the env as it was


def test_the_docs_example_prints_what_the_page_says():
    """The scenario example of docs/games/classes.md, with its printed results."""
    env = make(num_players=4)
    env.reset(seed=0, options={"scenario": {
        "hands": [["7c", "7d", "7h", "9c", "9c", "9s", "3h", "4h", "5h", "6h", "Jc", "Qd", "Ks"], None, None, None],
        "pile": ["Kd"], "current": 0, "phase": "draw",
    }})
    env.step(env.str_to_action("take"))
    for text in ["contract", "7c", "7d", "7h", "close", "9c", "9c", "9s", "close"]:
        env.step(env.str_to_action(text))
    assert env.state_dict()["laid"] == [True, False, False, False]
    for text in ["run", "3h", "4h", "5h", "6h", "close", "discard Kd"]:
        env.step(env.str_to_action(text))
    assert env.state_dict()["hands"][0] == ["Jc", "Qd", "Ks"]


def test_a_contracts_sets_of_one_rank_only_with_the_option():
    """With same_rank_sets=False no set of the contract may repeat an earlier set's rank,
    also while it is being built (a review finding)."""
    hand = "Kd Qs 9d Ad Qs Ks Td As Ts As Ad 2h 2s 2d"
    env = make(same_rank_sets=False)
    load(env, hands=hands(hand, None, None, None), current=0, phase="play", level=[1, 1, 1, 1])
    act(env, "contract", "Ad", "*=A", "*=A", "close")
    assert not {"add Ad", "add As"} & legal(env)
    counts = np.bincount([cardenvs.core.cards.card_id(c) for c in hand.split()], minlength=53)
    for same in (True, False):
        env = make(same_rank_sets=same)
        load(env, hands=hands(hand, None, None, None), current=0, phase="play", level=[1, 1, 1, 1])
        got = _contract_outcomes(env)
        assert got == _ref_contracts(counts, 1, False, same)
        assert any(m[0][1] == m[1][1] for m in got) == same


def test_review_findings_on_scenarios():
    env = make()
    # a contract in progress must have its first melds on the table, and the builder its 14 cards
    with pytest.raises(ValueError, match="item"):
        load(env, hands=hands("8c 8d 8h 9c Jc Qd Ks Ad 4s 5s 6s Tc 3d", JUNK, None, None), current=0,
             phase="build", level=[5, 1, 1, 1], item=2, build={"kind": "set", "cards": []})
    with pytest.raises(ValueError, match="14 cards"):
        load(env, hands=hands("7c 7d 7h 9c 9d 9s", JUNK, None, None), current=0, phase="build",
             level=[1, 1, 1, 1], item=0, build={"kind": "set", "cards": []})
    # a build that holds the last cards of the hand reloads from its own state_dict
    load(env, hands=hands("8c 8d", JUNK, JUNK2, None), current=0, phase="draw", pile=["8h"],
         laid=[True, False, False, False], melds=[{"kind": "set", "owner": 0, "cards": ["5d", "5d", "5s", "5h"]}])
    act(env, "take", "set", "8c", "8d", "8h")
    d = st(env)
    env2 = make()
    env2.reset(seed=1, options={"scenario": d})
    assert st(env2) == d and legal(env2) == {"close"}
    env.reset(seed=0)
    base = {k: v for k, v in st(env).items() if k != "stock"}
    for bad, match in (({"round": 32767}, "round"), ({"turns": -5}, "turns"), ({"target": -3}, "target"),
                       ({"laid": ["no", False, False, False]}, "true or false")):
        with pytest.raises(ValueError, match=match):
            env.reset(seed=0, options={"scenario": dict(base, **bad)})
    # a single round's winner is the player who went out, whatever the totals loaded
    env = make(single_round=True)
    load(env, hands=hands("Kc", JUNK, "Qh", JUNK2), current=0, phase="play", pile=["Kd"], scores=[100, 0, 0, 0],
         laid=[True, False, True, False], melds=[{"kind": "set", "owner": 2, "cards": ["5d", "5d", "5s"]}])
    act(env, "discard Kc")
    assert st(env)["winners"] == [True, False, False, False]

