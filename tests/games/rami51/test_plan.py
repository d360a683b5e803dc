"""Rami 51's turn planner (cardenvs/games/rami51/plan.py): the opening, the ace swap, the
coverage of a hand, the penalty table; scripted cases and brute-force cross-checks against
the independent references of tests/rummy/reference.py."""

from __future__ import annotations

import numpy as np
import pytest

from cardenvs.core.cards import JOKER, card_id, card_str
from cardenvs.games.rami51 import plan as P
from cardenvs.rummy import melds as M
from tests.rummy.reference import (
    CLASSES,
    FRIME,
    RAMI,
    counts,
    ids,
    meld_rich_hand,
    ref_coverage,
    ref_opening,
)


@pytest.mark.slow  # the opening search compiled on its own: long
def test_opening_scripted():
    X = JOKER
    # 51 exactly: clean run JQK of hearts (30) + three kings (30)... 60
    assert P.opening_feasible(RAMI, counts("Jh Qh Kh Kc Kd Ks 4c"), 51, -1, 6)
    # 50 points is not enough
    assert not P.opening_feasible(RAMI, counts("Th Jh Qh 5c 5d 5s 4c"), 51, -1, 7)  # 30 + 15 = 45
    assert P.opening_feasible(RAMI, counts("Th Jh Qh 7c 7d 7s 4c"), 51, -1, 7)  # 30 + 21 = 51
    assert not P.opening_feasible(RAMI, counts("Th Jh Qh 7c 7d 6s 4c"), 51, -1, 7)
    # a joker counts 0: 9h Th Jh + 7c 7d X = 29 + 14 = 43; with a natural 7s it is 51
    h = counts("9h Th Jh 7c 7d 2c")
    h[X] = 1
    assert not P.opening_feasible(RAMI, h, 51, -1, 6)
    # no clean run: sets only are refused, however many points
    assert not P.opening_feasible(RAMI, counts("Kc Kd Ks Qc Qd Qs 4c"), 51, -1, 6)
    # a run with a joker is not clean
    h = counts("Jh Qh Kc Kd Ks Qc Qd Qs 3c")
    h[X] = 1
    assert not P.opening_feasible(RAMI, h, 51, -1, 9)
    # ace low counts 1, high 11
    assert not P.opening_feasible(RAMI, counts("Ah 2h 3h Kc Kd Ks Qs"), 51, -1, 6)  # 6 + 30
    assert P.opening_feasible(RAMI, counts("Qh Kh Ah Kc Kd Ks 3s"), 51, -1, 6)  # 31 + 30
    # X must be laid; keeping a card: at most max_cards cards
    assert P.opening_feasible(RAMI, counts("Jh Qh Kh Kc Kd Ks 4c"), 51, card_id("Kc"), 6)
    assert not P.opening_feasible(RAMI, counts("Jh Qh Kh Kc Kd Ks 4c"), 51, card_id("4c"), 6)
    assert not P.opening_feasible(RAMI, counts("Jh Qh Kh Kc Kd Ks"), 51, -1, 5)


@pytest.mark.slow
def test_opening_ace_swap():
    """Two melds want the same ace and one joker fills in: the joker takes the low ace."""
    h = counts("Ah 2h 3h Ac Ad Qs 4c")  # A23h (6) + Ac Ad Ah (33) needs the Ah twice
    h[JOKER] = 1
    # best: A(joker) 2h 3h = 5 ... + Ac Ad Ah = 33 -> 38, not clean; clean A23h + Ac Ad X = 6 + 22
    assert P.opening_feasible(RAMI, h, 28, -1, 7)
    assert not P.opening_feasible(RAMI, h, 29, -1, 7)
    h2 = counts("Ah 2h 3h 4h Ac Ad Qs")
    h2[JOKER] = 1
    # clean 2h3h4h (9) + X(Ah low?) no: clean 2h 3h 4h + Ac Ad Ah = 9 + 33 = 42
    assert P.opening_feasible(RAMI, h2, 42, -1, 7)
    assert not P.opening_feasible(RAMI, h2, 43, -1, 7)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_opening_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    checked = [0, 0]
    for _ in range(150):
        hand = meld_rich_hand(RAMI, rng, int(rng.integers(4, 9)))
        size = len(hand)
        threshold = int(rng.choice([10, 20, 30, 40, 51]))
        x = int(rng.choice(hand)) if rng.random() < 0.4 else -1
        if x == JOKER:
            x = -1
        max_cards = int(rng.integers(3, size + 1))
        got = P.opening_feasible(RAMI, counts(hand), threshold, x, max_cards)
        want = ref_opening(RAMI, hand, threshold, x, max_cards)
        assert got == want, ([card_str(c) for c in hand], threshold, x, max_cards)
        checked[want] += 1
    assert min(checked) > 10


@pytest.mark.parametrize("rules", [RAMI, FRIME, CLASSES], ids=["rami51", "frime", "classes"])
def test_coverage_brute_force(rules):
    """melds.coverage (card bits for rami51's rules, per suit and rank otherwise) against
    the definition, on random hands from two decks with 0 to 3 wilds."""
    rng = np.random.default_rng(7)
    deck = [c for c in range(52) for _ in range(2)]
    for _ in range(3000):
        hand = [int(c) for c in rng.choice(deck, size=int(rng.integers(1, 16)), replace=False)]
        for wilds in range(4):
            got = int(P.coverage(rules, counts(hand), wilds))
            assert got == ref_coverage(rules, hand, wilds), ([card_str(c) for c in hand], wilds)


def test_penalty_tables():
    assert [P.rami_penalty(c) for c in ids("Ah 2h 9h Th Kh")] + [P.rami_penalty(JOKER)] == [11, 2, 9, 10, 10, 20]
    assert [M.frime_penalty(c) for c in ids("Ah 2h 9h Th Kh")] + [M.frime_penalty(JOKER)] == [1, 0, 9, 10, 10, 0]
    assert [M.classes_penalty(c) for c in ids("Ah 2h 3h 9h Th Kh")] == [15, 20, 5, 5, 10, 10]
