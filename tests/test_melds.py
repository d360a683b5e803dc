"""The rummy layer's meld primitives (cardenvs/rummy/), its split and contract searches,
and Rami 51's planner: scripted cases per rule set, and brute-force cross-checks on small
random hands against independent Python references written straight from the rules (every sub-multiset, every meld
template, every partition)."""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pytest

from cardenvs.core.cards import JOKER, card_id, card_str
from cardenvs.games.rami51 import plan as P
from cardenvs.rummy import contract as C
from cardenvs.rummy import melds as M
from cardenvs.rummy import split as S

RAMI = M.rules_rami51()
FRIME = M.rules_frime()
CLASSES = M.rules_classes()
CLASSES_MIXED = M.rules_classes(run_same_suit=False)


def ids(text: str) -> list[int]:
    return [card_id(c) for c in text.split()]


def counts(text_or_ids) -> np.ndarray:
    return M.hand_counts(text_or_ids if not isinstance(text_or_ids, str) else ids(text_or_ids))


def kinds(rules, text):
    return {row[0] for row in M.meld_interpretations(rules, ids(text))}


# --------------------------------------------------------------------------- references
def wild(rules, c: int) -> bool:
    if c == JOKER:
        return bool(rules[M.R_JOKER_WILD])
    return c // 4 == 1 and bool(rules[M.R_TWOS_WILD])


def ref_templates(rules, size: int):
    """Every meld of ``size`` cards as slots: a slot is a card id, or ('rank', r) for
    any card of rank r. Yields (row_key, slots, positions)."""
    smax = rules[M.R_SET_MAX] or 99
    if rules[M.R_SET_MIN] <= size <= smax:
        for r in range(13):
            if wild(rules, r * 4):
                continue
            if rules[M.R_SET_DISTINCT]:
                for suits in itertools.combinations(range(4), size):
                    yield ("set", r, suits), [r * 4 + t for t in suits], list(suits)
            else:
                yield ("set", r, None), [("rank", r)] * size, [None] * size
    if size >= rules[M.R_RUN_MIN]:
        for lo in range(14):
            hi = lo + size - 1
            if lo < rules[M.R_POS_LO] or hi > rules[M.R_POS_HI] or (lo == 0 and hi == 13):
                continue
            positions = list(range(lo, hi + 1))
            rank = [0 if p == 13 else p for p in positions]
            if rules[M.R_RUN_SUIT]:
                for s in range(4):
                    yield ("run", s, lo, hi), [r * 4 + s for r in rank], positions
            else:
                yield ("run", -1, lo, hi), [("rank", r) for r in rank], positions


def ref_fills(rules, cards: list[int], slots) -> list[frozenset]:
    """The ways the cards fill the slots (each natural on a slot it matches, wilds on the
    others): the set of slot indices left to wilds, for each way."""
    nat = [c for c in cards if not wild(rules, c)]
    if len(cards) != len(slots) or len(nat) < rules[M.R_MIN_NATURAL]:
        return []
    ways = set()

    def match(c, slot):
        return slot == c if isinstance(slot, int) else slot[1] == c // 4

    def go(i, used):
        if i == len(nat):
            ways.add(frozenset(range(len(slots))) - used)
            return
        for k, slot in enumerate(slots):
            if k not in used and match(nat[i], slot):
                go(i + 1, used | {k})

    go(0, frozenset())
    return list(ways)


def ref_interpretations(rules, cards: list[int]) -> set[tuple]:
    out = set()
    nat = [c for c in cards if not wild(rules, c)]
    if not nat:
        if len(nat) >= rules[M.R_MIN_NATURAL] and len(cards) >= min(rules[M.R_SET_MIN], rules[M.R_RUN_MIN]):
            out.add((M.KIND_WILD, len(cards), 0, 0, 0))
        return out
    for key, slots, positions in ref_templates(rules, len(cards)):
        for wild_slots in ref_fills(rules, cards, slots):
            if key[0] == "set":
                mask = sum(1 << positions[k] for k in wild_slots) if rules[M.R_SET_DISTINCT] else 0
                out.add((M.KIND_SET, key[1], mask, 0, 0))
            else:
                mask = sum(1 << positions[k] for k in wild_slots)
                out.add((M.KIND_RUN, key[1], key[2], key[3], mask))
    return out


def ref_points(rules, row, cards) -> int:
    """Rami opening points of a meld interpretation: naturals only."""
    nat = [c for c in cards if not wild(rules, c)]
    if row[0] == M.KIND_SET:
        return sum(11 if c // 4 == 0 else min(c // 4 + 1, 10) for c in nat)
    if row[0] == M.KIND_RUN:
        lo = row[2]
        total = 0
        for c in nat:
            r = c // 4
            if r == 0:
                total += 1 if lo == 0 else 11
            else:
                total += min(r + 1, 10)
        return total
    return 0


def submultisets(cards: list[int]):
    """Every sub-multiset (as a sorted tuple), once."""
    c = sorted(cards)
    seen = set()
    for k in range(1, len(c) + 1):
        for comb in itertools.combinations(c, k):
            if comb not in seen:
                seen.add(comb)
                yield comb


def ref_melds(rules, hand: list[int]):
    """Every (sub-multiset, interpretation) that is a meld."""
    out = []
    for sub in submultisets(hand):
        for row in ref_interpretations(rules, list(sub)):
            out.append((sub, row))
    return out


def remove(hand: tuple, sub: tuple):
    h = list(hand)
    for c in sub:
        if c not in h:
            return None
        h.remove(c)
    return tuple(h)


def ref_opening(rules, hand: list[int], threshold: int, x: int, max_cards: int) -> bool:
    """Disjoint melds from the hand: points >= threshold, a clean run, X laid, <= max_cards."""
    melds = ref_melds(rules, hand)
    melds = [(sub, row, ref_points(rules, row, sub), row[0] == M.KIND_RUN and row[4] == 0) for sub, row in melds]
    if x >= 0 and x not in hand:
        return False

    def go(start, left, used, pts, clean, xin):
        if pts >= threshold and clean and (x < 0 or xin) and used > 0:
            return True
        for i in range(start, len(melds)):
            sub, row, p, cl = melds[i]
            if used + len(sub) > max_cards:
                continue
            rest = remove(left, sub)
            if rest is None:
                continue
            if go(i, rest, used + len(sub), pts + p, clean or cl, xin or (x in sub)):
                return True
        return False

    return go(0, tuple(sorted(hand)), 0, 0, False, False)


def ref_split(rules, hand: list[int]) -> bool:
    @cache
    def go(left: tuple) -> bool:
        if not left:
            return True
        first = left[0]
        rest = left[1:]
        # the first card is in some meld: choose its other cards
        for k in range(0, len(rest) + 1):
            for comb in set(itertools.combinations(rest, k)):
                group = (first,) + comb
                if ref_interpretations(rules, list(group)) and go(remove(left, group)):
                    return True
        return False

    return bool(hand) and go(tuple(sorted(hand)))


def ref_contract(rules, hand: list[int], items, distinct_ranks: bool = False) -> bool:
    """Disjoint melds of the items' kinds and sizes (with ``distinct_ranks``, sets of
    different ranks). A meld of n+ cards holds one of exactly n cards with a natural
    card (drop cards from the ends, keeping a natural), so exact sizes suffice."""
    items = [(int(k), int(n)) for k, n in items if n > 0]
    sizes = {n for _, n in items}
    melds = [(sub, {row[0] for row in ref_interpretations(rules, list(sub))})
             for sub in submultisets(hand) if len(sub) in sizes]
    melds = [(sub, ks) for sub, ks in melds if ks]

    def go(i, left, ranks):
        if i == len(items):
            return True
        kind, n = items[i]
        for sub, ks in melds:
            if len(sub) >= n and kind in ks:
                rank = next(c // 4 for c in sub if not wild(rules, c)) if kind == M.KIND_SET else -1
                if distinct_ranks and rank >= 0 and rank in ranks:
                    continue
                rest = remove(left, sub)
                if rest is not None and go(i + 1, rest, ranks | {rank}):
                    return True
        return False

    return go(0, tuple(sorted(hand)), frozenset())


def random_hand(rng, size, ranks, suits, decks=2, jokers=0, twos=True):
    pool = [r * 4 + s for r in ranks for s in suits] * decks
    if not twos:
        pool = [c for c in pool if c // 4 != 1]
    pool += [JOKER] * jokers
    idx = rng.choice(len(pool), size=size, replace=False)
    return [pool[i] for i in idx]


def random_meld(rules, rng) -> list[int]:
    """A random valid meld: a template filled with naturals, a few wilds."""
    size = int(rng.integers(3, 6))
    templates = list(ref_templates(rules, size))
    while not templates:
        size = int(rng.integers(3, 6))
        templates = list(ref_templates(rules, size))
    _, slots, _ = templates[int(rng.integers(len(templates)))]
    wild_card = JOKER if rules[M.R_JOKER_WILD] else card_id("2c")
    cards = []
    for slot in slots:
        if rng.random() < 0.2:
            cards.append(wild_card)
        elif isinstance(slot, int):
            cards.append(slot)
        else:
            cards.append(slot[1] * 4 + int(rng.integers(4)))
    if all(wild(rules, c) for c in cards):
        cards[0] = slots[0] if isinstance(slots[0], int) else slots[0][1] * 4
    return cards


def meld_rich_hand(rules, rng, size) -> list[int]:
    """One or two random melds, then random cards (two decks), ``size`` cards in all."""
    hand = random_meld(rules, rng)
    if rng.random() < 0.6:
        hand += random_meld(rules, rng)
    hand = hand[:size]
    while len(hand) < size:
        hand.append(int(rng.integers(52)) if rng.random() < 0.9 else JOKER)
    # at most two of each card (two decks), jokers as the rules have them
    fixed = []
    for c in hand:
        if fixed.count(c) >= (4 if c == JOKER else 2) or (c == JOKER and not rules[M.R_JOKER_WILD]):
            c = int(rng.integers(52))
            while fixed.count(c) >= 2:
                c = int(rng.integers(52))
        fixed.append(c)
    return fixed


# --------------------------------------------------------------------------- rami51: melds
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


# --------------------------------------------------------------------------- rami51: openings
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


def ref_coverage(rules, hand: list[int], wilds: int) -> int:
    """Cards of the hand some meld of at most ``wilds`` wilds could hold: a natural card
    is covered when a minimal meld through it (3 cards: a run window or a set) lacks at
    most ``wilds`` cards of the hand (longer melds hold such a minimal one)."""
    held = {c for c in hand if c < 52 and not wild(rules, c)}
    lo, hi = int(rules[M.R_POS_LO]), int(rules[M.R_POS_HI])
    cover = 0
    for c in held:
        r, t = c // 4, c % 4
        ok = False
        positions = [0, 13] if r == 0 else [r]
        for p in positions:
            for start in range(p - 2, p + 1):
                if start < lo or start + 2 > hi:
                    continue
                window = [M.card_at(t, q) for q in range(start, start + 3)]
                ok |= sum(x not in held for x in window) <= wilds
        mates = [r * 4 + u for u in range(4) if u != t and r * 4 + u in held and not wild(rules, r * 4 + u)]
        if rules[M.R_SET_DISTINCT]:
            ok |= len(mates) + wilds >= 2
        else:
            ok |= sum(hand.count(m) for m in mates) + hand.count(c) - 1 + wilds >= 2
        if ok:
            cover |= 1 << c
    return cover


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


# --------------------------------------------------------------------------- frime
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


@pytest.mark.parametrize("seed", range(3))
def test_frime_split_brute_force(seed):
    rng = np.random.default_rng(200 + seed)
    seen = [0, 0]
    for _ in range(150):
        hand = random_hand(rng, int(rng.integers(3, 8)), ranks=[0, 1, 2, 3, 4, 12], suits=[0, 1], jokers=1)
        got = S.hand_splits(FRIME, counts(hand))
        want = ref_split(FRIME, hand)
        assert got == want, [card_str(c) for c in hand]
        seen[want] += 1
    assert min(seen) > 10


def test_split_other_rules_brute_force():
    """split_all is parameterised: rami51's and classes' rules too."""
    rng = np.random.default_rng(5)
    for rules in (RAMI, CLASSES):
        seen = [0, 0]
        for _ in range(150):
            hand = meld_rich_hand(rules, rng, int(rng.integers(3, 8)))
            got = S.hand_splits(rules, counts(hand))
            want = ref_split(rules, hand)
            assert got == want, [card_str(c) for c in hand]
            seen[want] += 1
        assert min(seen) > 5


# --------------------------------------------------------------------------- classes
def test_classes_melds():
    assert kinds(CLASSES, "7c 7c 2d") == {M.KIND_SET}
    assert kinds(CLASSES, "2c 2d 2h") == set()  # one natural card at least
    assert kinds(CLASSES, "3h 4h 5h") == {M.KIND_RUN}
    assert kinds(CLASSES, "3h 4s 5h") == set()
    assert kinds(CLASSES_MIXED, "3h 4s 5h") == {M.KIND_RUN}  # option run_same_suit=False


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


def test_penalty_tables():
    assert [P.rami_penalty(c) for c in ids("Ah 2h 9h Th Kh")] + [P.rami_penalty(JOKER)] == [11, 2, 9, 10, 10, 20]
    assert [M.frime_penalty(c) for c in ids("Ah 2h 9h Th Kh")] + [M.frime_penalty(JOKER)] == [1, 0, 9, 10, 10, 0]
    assert [M.classes_penalty(c) for c in ids("Ah 2h 3h 9h Th Kh")] == [15, 20, 5, 5, 10, 10]
