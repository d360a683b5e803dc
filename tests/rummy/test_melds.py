"""The rummy layer's meld primitives (cardenvs/rummy/), its split and contract searches:
scripted cases per rule set, and brute-force cross-checks on small random hands against the
independent references of tests/rummy/reference.py."""

from __future__ import annotations

import numpy as np
import pytest

from cardenvs.core.cards import JOKER, card_str
from cardenvs.rummy import contract as C
from cardenvs.rummy import melds as M
from cardenvs.rummy import split as S
from tests.rummy.reference import (
    CLASSES,
    CLASSES_MIXED,
    FRIME,
    RAMI,
    counts,
    ids,
    kinds,
    meld_rich_hand,
    random_hand,
    random_meld,
    ref_contract,
    ref_interpretations,
    ref_split,
    wild,
)


def test_rami_sets_and_runs():
    assert kinds(RAMI, "7c 7d 7h") == {M.KIND_SET}
    assert kinds(RAMI, "7c 7d 7h 7s") == {M.KIND_SET}
    assert kinds(RAMI, "7c 7d 7d") == set()  # suits must differ
    assert kinds(RAMI, "7c 7d") == set()  # three at least
    assert kinds(RAMI, "5h 6h 7h") == {M.KIND_RUN}
    assert kinds(RAMI, "5h 6h 7s") == set()  # one suit
    assert kinds(RAMI, "Ah 2h 3h") == {M.KIND_RUN}  # ace low
    assert kinds(RAMI, "Qh Kh Ah") == {M.KIND_RUN}  # ace high
    assert kinds(RAMI, "Kh Ah 2h") == set()  # never K-A-2
    assert kinds(RAMI, "2h 3h 4h") == {M.KIND_RUN}  # 2s are natural
    # thirteen hearts: the ace is low or high (not both)
    assert set(M.meld_interpretations(RAMI, ids("Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh"))) == {
        (M.KIND_RUN, 2, 0, 12, 0),
        (M.KIND_RUN, 2, 1, 13, 0),
    }


def test_rami_joker_positions():
    # a joker with 5h 6h (positions 4 and 5) stands for 4h or 7h
    assert set(M.meld_interpretations(RAMI, ids("5h 6h") + [JOKER])) == {
        (M.KIND_RUN, 2, 3, 5, 1 << 3),
        (M.KIND_RUN, 2, 4, 6, 1 << 6),
    }
    # in a set it stands for a missing suit
    assert set(M.meld_interpretations(RAMI, ids("7c 7d") + [JOKER])) == {
        (M.KIND_SET, 6, 0b0100, 0, 0),
        (M.KIND_SET, 6, 0b1000, 0, 0),
    }
    # Q X A: the joker is the king; 2 X as the ace below
    assert M.meld_interpretations(RAMI, ids("Qh Ah") + [JOKER]) == [(M.KIND_RUN, 2, 11, 13, 1 << 12)]
    assert (M.KIND_RUN, 2, 0, 2, 1) in M.meld_interpretations(RAMI, ids("2h 3h") + [JOKER])
    # jokers only: a meld that names its cards (allowed in rami51, see docs)
    assert M.meld_interpretations(RAMI, [JOKER] * 3) == [(M.KIND_WILD, 3, 0, 0, 0)]


@pytest.mark.parametrize("rules", [RAMI, FRIME, CLASSES, CLASSES_MIXED], ids=["rami51", "frime", "classes", "mixed"])
def test_meld_options_brute_force(rules):
    rng = np.random.default_rng(1)
    jokers = 2 if rules[M.R_JOKER_WILD] else 0
    for _ in range(500):
        size = int(rng.integers(1, 6))
        hand = random_hand(rng, size, ranks=[0, 1, 2, 3, 4, 11, 12], suits=[0, 1, 2], jokers=jokers)
        got = set(M.meld_interpretations(rules, hand))
        assert got == ref_interpretations(rules, hand), [card_str(c) for c in hand]


@pytest.mark.parametrize("rules", [RAMI, FRIME, CLASSES], ids=["rami51", "frime", "classes"])
def test_extension_options_brute_force(rules):
    """A card extends a table meld exactly when the meld plus that card (at that place)
    is again a meld of the same kind and key."""
    out = np.zeros((16, 2), dtype=np.int64)
    rng = np.random.default_rng(2)
    checked = 0
    for _ in range(150):
        hand = random_meld(rules, rng)
        for row in ref_interpretations(rules, hand):
            kind, key = row[0], row[1]
            if kind == M.KIND_SET:
                occ = sum(1 << (c % 4) for c in hand if not wild(rules, c)) | row[2]
                n = M.extension_options(rules, kind, key, 0, 0, occ, len(hand), out)
                got = {int(c) for c in out[:n, 0]}
                want = set()
                for c in range(52):
                    if c // 4 == key and not wild(rules, c):
                        rows = ref_interpretations(rules, hand + [c])
                        if any(r[0] == M.KIND_SET and r[1] == key and (not rules[M.R_SET_DISTINCT] or r[2] == row[2])
                               for r in rows):
                            want.add(c)
                assert got == want
            elif kind == M.KIND_RUN:
                lo, hi = row[2], row[3]
                n = M.extension_options(rules, kind, key, lo, hi, 0, len(hand), out)
                got = {(int(c), int(p)) for c, p in out[:n]}
                want = set()
                for c in range(52):
                    if wild(rules, c):
                        continue
                    for r in ref_interpretations(rules, hand + [c]):
                        if r[0] == M.KIND_RUN and r[1] == key and r[4] == row[4] and {r[2], r[3]} & {lo, hi}:
                            if (r[2], r[3]) in ((lo - 1, hi), (lo, hi + 1)):
                                want.add((c, r[2] if r[2] == lo - 1 else r[3]))
                assert got == want, (hand, row)
            checked += 1
    assert checked > 40


def test_frime_melds():
    assert kinds(FRIME, "7c 7c 7d") == {M.KIND_SET}  # duplicates allowed
    assert kinds(FRIME, "7c 7c 7d 7h 7s 7s") == {M.KIND_SET}  # no upper size
    assert kinds(FRIME, "Qh Kh Ah") == {M.KIND_RUN}
    assert kinds(FRIME, "Ah 3h") == set()
    assert M.KIND_RUN not in kinds(FRIME, "Ah 3h 4h")  # the ace is high only
    assert M.meld_interpretations(FRIME, ids("3h 4h 2c")) == [(M.KIND_RUN, 2, 2, 4, 1 << 4)]  # a 2 is a frime
    assert kinds(FRIME, "2c 2d 2h") == {M.KIND_WILD}  # frimes only
    h = ids("2c") + [JOKER, JOKER]
    assert kinds(FRIME, " ".join(card_str(c) for c in h)) == {M.KIND_WILD}


def test_frime_split_scripted():
    assert S.hand_splits(FRIME, counts("3h 4h 5h 7c 7c 7d"))
    assert not S.hand_splits(FRIME, counts("3h 4h 5h 7c 7d"))
    assert S.hand_splits(FRIME, counts("3h 4h 5h 7c 7d 2s"))  # the frime completes the sevens
    assert S.hand_splits(FRIME, counts("3h 4h 5h 2s 2c"))  # frimes absorbed by the run (2 3 4 5 / 3 4 5 6 7)
    assert S.hand_splits(FRIME, counts("3h 4h 5h 2s 2c 2d"))  # or as their own meld
    assert not S.hand_splits(FRIME, counts("Ah 2h 3h"))  # ace high only: A 2 3 is no run... but
    assert S.hand_splits(FRIME, counts("Kh Ah 2h"))  # K A + frime: Q K A


def _splits_agree_with_brute_force(rules, hands, least: int) -> None:
    """hand_splits against the brute-force reference on each hand; both answers (a split
    or none) seen more than ``least`` times."""
    seen = [0, 0]
    for hand in hands:
        want = ref_split(rules, hand)
        assert S.hand_splits(rules, counts(hand)) == want, [card_str(c) for c in hand]
        seen[want] += 1
    assert min(seen) > least


@pytest.mark.parametrize("seed", range(3))
def test_frime_split_brute_force(seed):
    rng = np.random.default_rng(200 + seed)
    hands = [random_hand(rng, int(rng.integers(3, 8)), ranks=[0, 1, 2, 3, 4, 12], suits=[0, 1], jokers=1)
             for _ in range(150)]
    _splits_agree_with_brute_force(FRIME, hands, 10)


def test_split_other_rules_brute_force():
    """split_all is parameterised: rami51's and classes' rules too."""
    rng = np.random.default_rng(5)
    for rules in (RAMI, CLASSES):
        _splits_agree_with_brute_force(rules, [meld_rich_hand(rules, rng, int(rng.integers(3, 8)))
                                               for _ in range(150)], 5)


def _wild_lines(rules, hand) -> bool:
    c = counts(hand)
    return bool(S.wild_lines_ok(rules, c, np.int64(sum(int(c[x]) for x in range(53) if wild(rules, x)))))


def test_wild_lines_bound_scripted():
    """The split search's bound: each natural that no meld without a wild can hold needs a
    wild, and the wilds' melds each hold one rank (a set) or one suit (a run)."""
    assert _wild_lines(FRIME, "3h 4h 5h 7c 7c 7d")  # no card needs a wild
    assert _wild_lines(FRIME, "3h 4h 5h 7c 7d 2s")  # the sevens' set lacks one card
    assert not _wild_lines(FRIME, "3h 4h 5h 7c 9d 2s")  # the 7 and the 9: two melds, two wilds
    assert _wild_lines(FRIME, "3h 4h 5h 7c 9d 2s 2c")  # passes the bound (it does not split: 9d lacks two)
    assert _wild_lines(FRIME, "3h 4h 5h 7c 9c 2s")  # one run of clubs: 7 8 9
    assert not _wild_lines(FRIME, "3h 4h 5h 7c")  # the 7 needs a wild, and there is none
    assert _wild_lines(FRIME, "7c 9c 5d 5h 2s 2c")  # the clubs' run and the fives' set: one wild each
    assert not _wild_lines(FRIME, "7c 9c 5d 5h 2s")
    assert _wild_lines(FRIME, "Qh Kh Ah 7c 7d 2s")  # the ace high closes Q K A: only the sevens need a wild
    assert _wild_lines(CLASSES_MIXED, "3h 4h 5h 7c 9d")  # runs of mixed suits: no bound


@pytest.mark.parametrize("rules", [RAMI, FRIME, CLASSES, CLASSES_MIXED], ids=["rami51", "frime", "classes", "mixed"])
def test_wild_lines_bound_never_rejects_a_split(rules):
    """Against the brute-force reference: every hand that splits passes the bound, and it
    rejects hands that do not (where runs keep one suit)."""
    rng = np.random.default_rng(31)
    rejected = 0
    for _ in range(200):
        hand = meld_rich_hand(rules, rng, int(rng.integers(3, 8)))
        ok = _wild_lines(rules, hand)
        if ref_split(rules, hand):
            assert ok, [card_str(c) for c in hand]
        rejected += not ok
    assert (rejected == 0) if rules is CLASSES_MIXED else (rejected >= 10)


def test_classes_melds():
    assert kinds(CLASSES, "7c 7c 2d") == {M.KIND_SET}
    assert kinds(CLASSES, "2c 2d 2h") == set()  # one natural card at least
    assert kinds(CLASSES, "3h 4h 5h") == {M.KIND_RUN}
    assert kinds(CLASSES, "3h 4s 5h") == set()
    assert kinds(CLASSES_MIXED, "3h 4s 5h") == {M.KIND_RUN}  # option run_same_suit=False


@pytest.mark.slow  # the contract search compiled on its own: long
def test_classes_contracts_scripted():
    K = C.CONTRACTS
    assert C.contract_feasible(CLASSES, counts("7c 7d 7h 9c 9c 9s 3h"), K[0], False)  # two brelans
    assert not C.contract_feasible(CLASSES, counts("7c 7d 7h 9c 9s 3h 4h"), K[0], False)
    assert C.contract_feasible(CLASSES, counts("7c 7d 7h 9c 9s 2h 4h"), K[0], False)  # a 2 completes
    assert C.contract_feasible(CLASSES, counts("3h 4h 5h 6h 9c 9s 9d"), K[1], False)  # séquence of 4 + brelan
    assert not C.contract_feasible(CLASSES, counts("3h 4h 5h 9c 9s 9d Kc"), K[1], False)
    assert C.contract_feasible(CLASSES, counts("3h 4h 5h 6h 7h Jc Jd Js Jh"), K[6], False)  # séquence of 5 + carré
    assert not C.contract_feasible(CLASSES, counts("3h 4h 5h 6h 7h Jc Jd Js 9h"), K[6], False)
    # séquence of 7 + carré
    assert C.contract_feasible(CLASSES, counts("3h 4h 5h 6h 7h 8h 9h Jc Jd Js 2c"), K[9], False)
    assert not C.contract_feasible(CLASSES, counts("2c 2d 2h 2s 5h 6h 7h"), K[3], False)  # two séquences of 4: 8 cards
    assert C.contract_feasible(CLASSES, counts("2c 2d 2h 2s 5h 6h 7h 8h"), K[3], False)  # 2 2 5h 6h / 7h 8h 2 2
    # three brelans: 4 twos for 4 naturals is one wild short
    assert not C.contract_feasible(CLASSES, counts("2c 2d 2h 2s 5h 6h 7h 8h"), K[4], False)
    assert C.contract_feasible(CLASSES, counts("2c 2d 2h 5c 5h 6h 7h 8h"), K[3], False)  # 5c + 3 twos... + 5h6h7h8h
    # two brelans of one rank: allowed unless the contract's sets must differ in rank
    assert C.contract_feasible(CLASSES, counts("7c 7d 7h 7c 7s 7s 3h"), K[0], False)
    assert not C.contract_feasible(CLASSES, counts("7c 7d 7h 7c 7s 7s 3h"), K[0], True)


@pytest.mark.slow
@pytest.mark.parametrize("contract", range(10))
def test_classes_contracts_brute_force(contract):
    rng = np.random.default_rng(300 + contract)
    items = C.CONTRACTS[contract]
    need = int(items[:, 1].sum())
    seen = [0, 0]
    rules = CLASSES_MIXED if contract % 3 == 2 else CLASSES
    for _ in range(40):
        size = need + int(rng.integers(0, 2))
        hand = random_hand(rng, size, ranks=[1, 2, 3, 4, 5, 6, 7, 12], suits=[0, 1], decks=2)
        for distinct in (False, True):
            got = C.contract_feasible(rules, counts(hand), items, distinct)
            want = ref_contract(rules, hand, items, distinct)
            assert got == want, ([card_str(c) for c in hand], contract, distinct)
            seen[want] += 1
    assert seen[0] > 0
