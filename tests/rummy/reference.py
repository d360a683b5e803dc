"""Independent Python references for the rummy layer and Rami 51's planner, written straight
from the rules (every sub-multiset, every meld template, every partition), and the small
helpers the tests build hands with."""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np

from cardenvs.core.cards import JOKER, card_id
from cardenvs.rummy import melds as M

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
