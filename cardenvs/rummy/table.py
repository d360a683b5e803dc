"""The table and the turn mechanics every rummy shares, as leaf kernels over a game's
state record, plus their Python side (the table's scenario codec and text).

**Fields a rummy record holds** (each game's ``STATE_DTYPE`` takes them from
:func:`table_fields`, with its own sizes; the kernels read the sizes from the arrays):

=================== ========================================================================
``hands[P, 53]``    cards held by type (several decks: counts above 1); ``held[P]`` their sum
``stock``/``stock_n`` the stock, bottom first: the top is ``stock[stock_n - 1]``
``pile``/``pile_n`` the discard pile, bottom first
``meld_kind[M]``    0 (free slot), ``KIND_SET`` or ``KIND_RUN``; ``num_melds`` slots in use
``meld_key[M]``     a set's rank, a run's suit (-1: a run of mixed suits, Classes' option)
``meld_lo/hi[M]``   a run's lowest and highest position (0 ace low, 1 the 2 ... 13 ace high)
``meld_slot[M, S]`` the physical card in each slot, -1 empty (see below)
``meld_owner[M]``   the seat that laid it
=================== ========================================================================

**Where a card sits in a meld** (``meld_slot``). A run files its cards by position, so a
wild card (a joker, a 2 where 2s are wild) keeps the position it was laid at, and the card
it stands for is the run's suit at that position. A set of distinct suits (Rami 51) files
its cards by suit, so a wild keeps the suit it stands for. Any other set (duplicates
allowed, no upper size: Frime, Classes) lists its cards in the order they were laid; its
wild cards stand for its rank. ``S`` is 14 for games whose sets have distinct suits, and
at least the largest set otherwise (20 in Frime: 8 naturals and 12 wilds).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from cardenvs.core.cards import JOKER, RANKS, card_id, card_str
from cardenvs.core.rng import shuffle, shuffled_pool
from cardenvs.rummy.melds import (
    ACE_HIGH,
    ACE_LOW,
    KIND_RUN,
    KIND_SET,
    NUM_FACES,
    NUM_TYPES,
    R_JOKER_WILD,
    R_MIN_NATURAL,
    R_POS_LO,
    R_SET_DISTINCT,
    R_TWOS_WILD,
    TRUE,
    ZERO,
    card_at,
    extension_options,
    is_wild,
)


def table_fields(max_players: int, max_cards: int, max_melds: int, slots: int) -> list[tuple]:
    """The record fields of the table (the hands, the stock, the discard pile and the
    melds on the table), for a game's ``STATE_DTYPE``: the table above, in this order."""
    return [
        ("hands", np.uint8, (max_players, NUM_TYPES)),
        ("stock", np.uint8, (max_cards,)),  # bottom first; the top is stock[stock_n - 1]
        ("stock_n", np.int16),
        ("pile", np.uint8, (max_cards,)),  # the discard pile, bottom first; the top is pile[pile_n - 1]
        ("pile_n", np.int16),
        ("meld_kind", np.int8, (max_melds,)),  # 0 empty slot, KIND_SET, KIND_RUN
        ("meld_key", np.int8, (max_melds,)),  # set: rank; run: suit
        ("meld_lo", np.int8, (max_melds,)),  # run: lowest position
        ("meld_hi", np.int8, (max_melds,)),  # run: highest position
        ("meld_slot", np.int8, (max_melds, slots)),  # the card in each slot, -1 empty
        ("meld_owner", np.int8, (max_melds,)),
        ("num_melds", np.int8),
    ]


def known_field(max_players: int) -> tuple:
    """The record field ``known[P, 53]`` of a rummy whose players keep, past their turn,
    a card taken in sight of the table (Frime, Classes): cards of each type everyone saw
    go into a hand (the discard pile's top taken, a card bought) and has not seen leave it
    since (a card of that type discarded or laid: which copy left is not seen, so one
    fewer is known). What re-dealing a seat's unseen cards keeps in place."""
    return ("known", np.uint8, (max_players, NUM_TYPES))


# --------------------------------------------------------------------------- hands
@njit(cache=True, no_cfunc_wrapper=True)
def recount(s):
    """``held`` from ``hands`` (after a deal or a scenario load)."""
    for p in range(s.hands.shape[0]):
        n = 0
        for c in range(NUM_TYPES):
            n += s.hands[p, c]
        s.held[p] = n


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def hand_of(s, p, H):
    """Copy p's card counts into H (a search's scratch, changed freely)."""
    for c in range(NUM_TYPES):
        H[c] = s.hands[p, c]


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def add_card(s, p, c):
    s.hands[p, c] += 1
    s.held[p] += 1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def remove_card(s, p, c):
    s.hands[p, c] -= 1
    s.held[p] -= 1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def taken_in_sight(s, p, c):
    """Card c went into p's hand in sight of the table (``known``, see known_field)."""
    s.known[p, c] += 1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def left_in_sight(s, p, c):
    """A card of type c left p's hand face up: one fewer such card is known there."""
    if s.known[p, c] > 0:
        s.known[p, c] -= 1


# --------------------------------------------------------------------------- deal
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def deal(s, decks, jokers_per_deck, hand_size, dealer, num_players, skip):
    """Shuffle ``decks`` decks (52 cards and ``jokers_per_deck`` jokers each); deal
    ``hand_size`` cards to every seat not in ``skip``, one at a time from the dealer's
    left; the next card turned up starts the discard pile; the rest is the stock. Clears
    the table."""
    n = (NUM_FACES + jokers_per_deck) * decks
    deck = np.empty(n, dtype=np.int64)
    for i in range(NUM_FACES * decks):
        deck[i] = i % NUM_FACES
    for i in range(NUM_FACES * decks, n):
        deck[i] = JOKER
    shuffle(s, deck, n)
    s.hands[:] = 0
    k = 0
    for _ in range(hand_size):
        q = dealer
        for _ in range(num_players):
            q = (q + 1) % num_players
            if skip[q]:
                continue
            s.hands[q, deck[k]] += 1
            k += 1
    s.pile[:] = 0
    s.pile[0] = deck[k]
    s.pile_n = 1
    k += 1
    s.stock[:] = 0
    s.stock_n = n - k
    for i in range(n - k):
        s.stock[i] = deck[k + i]
    clear_table(s)
    recount(s)


# --------------------------------------------------------------------------- what a seat cannot see
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def redeal_unseen(s, seat, known, keys):
    """Deal anew the cards ``seat`` cannot see: the stock and the other hands (but
    ``known[q, c]`` cards of type c in hand q, which stay). Every hand and the stock keep
    their sizes; ``keys`` (uniform in [0, 1), one per card of the stock and the other
    hands, and one more) drive the shuffle, the last one reseeds ``s.rng`` (the stock's
    later rebuilds are unknown too). The discard pile and the table are seen, and stay."""
    P = s.hands.shape[0]
    unseen = np.zeros(NUM_TYPES, dtype=np.int64)
    for i in range(s.stock_n):
        unseen[s.stock[i]] += 1
    for q in range(P):
        if q != seat:
            for c in range(NUM_TYPES):
                # int64: uint8 - uint8 is unsigned in numba (a known card is always held)
                unseen[c] += np.int64(s.hands[q, c]) - np.int64(known[q, c])
    pool = np.empty(s.stock.shape[0], dtype=np.int64)
    shuffled_pool(unseen, pool, keys)
    k = 0
    for q in range(P):
        if q != seat:
            n = 0
            for c in range(NUM_TYPES):
                n += np.int64(s.hands[q, c]) - np.int64(known[q, c])
                s.hands[q, c] = known[q, c]
            for _ in range(n):
                s.hands[q, pool[k]] += 1
                k += 1
    for i in range(s.stock_n):
        s.stock[i] = pool[k]
        k += 1
    s.rng = np.uint64(min(keys[keys.shape[0] - 1], 1.0 - 2.0**-53) * 2.0**53)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def redeal_unseen_known(s, seat, keep_hands, known, keys):
    """:func:`redeal_unseen` for a rummy whose record keeps ``known`` (see known_field):
    the cards seen going into a hand stay there; ``keep_hands`` keeps every hand and deals
    the stock alone. ``known``: scratch rows (P, 53). Recounts ``held``."""
    for q in range(known.shape[0]):
        for c in range(NUM_TYPES):
            known[q, c] = s.hands[q, c] if keep_hands else s.known[q, c]
    redeal_unseen(s, seat, known, keys)
    recount(s)


# --------------------------------------------------------------------------- stock and discard pile
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def rebuild_stock(s):
    """An empty stock is rebuilt from the discard pile but its top card, shuffled."""
    n = s.pile_n - 1
    top = s.pile[n]
    for i in range(n):
        s.stock[i] = s.pile[i]
    s.stock_n = n
    shuffle(s, s.stock, n)
    s.pile[:] = 0
    s.pile[0] = top
    s.pile_n = 1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def draw_stock(s, p):
    """p draws the top of the stock (rebuilt first when empty); returns the card."""
    if s.stock_n == 0:
        rebuild_stock(s)
    c = s.stock[s.stock_n - 1]
    s.stock[s.stock_n - 1] = 0
    s.stock_n -= 1
    add_card(s, p, c)
    return c


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def take_discard(s, p):
    """p takes the top of the discard pile; returns the card."""
    c = s.pile[s.pile_n - 1]
    s.pile[s.pile_n - 1] = 0
    s.pile_n -= 1
    add_card(s, p, c)
    return c


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def buy_under_top(s, p):
    """p takes the card just under the discard top (the top stays); returns the card."""
    n = s.pile_n
    c = s.pile[n - 2]
    s.pile[n - 2] = s.pile[n - 1]
    s.pile[n - 1] = 0
    s.pile_n = n - 1
    add_card(s, p, c)
    return c


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def discard_card(s, p, c):
    """p puts card c on the discard pile."""
    remove_card(s, p, c)
    s.pile[s.pile_n] = c
    s.pile_n += 1


# --------------------------------------------------------------------------- the table
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def clear_table(s):
    s.meld_kind[:] = 0
    s.meld_key[:] = 0
    s.meld_lo[:] = 0
    s.meld_hi[:] = 0
    s.meld_slot[:] = -1
    s.meld_owner[:] = -1
    s.num_melds = 0


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def run_pos(rules, rep, first):
    """Run position of card ``rep``: an ace is low when it starts a run and runs may
    start below the 2, else high."""
    r = rep // 4
    if r == 0:
        return ACE_LOW if first and rules[R_POS_LO] == ACE_LOW else ACE_HIGH
    return r


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def table_extensions(rules, s, m, ext):
    """(card, slot) pairs that extend table meld m by one card (a natural of that card,
    or a wild standing for it): a run's positions below and above, a set's missing suits
    (distinct suits) or any suit in its next free slot."""
    occ = ZERO
    size = ZERO
    if s.meld_kind[m] == KIND_SET:
        if rules[R_SET_DISTINCT]:
            for t in range(4):  # filed by suit
                if s.meld_slot[m, t] >= 0:
                    occ |= 1 << t
                    size += 1
        else:
            # listed in laying order from the first slot: its size is its first empty slot
            # (``occ`` stays 0: only a set of distinct suits reads it)
            while size < s.meld_slot.shape[1] and s.meld_slot[m, size] >= 0:
                size += 1
    n = extension_options(rules, np.int64(s.meld_kind[m]), np.int64(s.meld_key[m]), np.int64(s.meld_lo[m]),
                          np.int64(s.meld_hi[m]), occ, size, ext)
    # the ace fits both ends of 2..K: one way (below) is enough, both give the same meld
    if n == 2 and ext[0, 0] == ext[1, 0]:
        n = 1
    if s.meld_kind[m] == KIND_SET and not rules[R_SET_DISTINCT]:
        if size >= s.meld_slot.shape[1]:
            return 0
        for i in range(n):
            ext[i, 1] = size  # a listed set: the next free slot
    return n


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def place(s, m, pos, phys):
    """Put card ``phys`` in slot ``pos`` of table meld m (a run: the position, which may
    extend it; a set: the slot ``table_extensions`` gave)."""
    s.meld_slot[m, pos] = phys
    if s.meld_kind[m] == KIND_RUN:
        if pos < s.meld_lo[m]:
            s.meld_lo[m] = pos
        else:
            s.meld_hi[m] = pos


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def unplace(s, m, pos, lo, hi):
    """Undo :func:`place` (``lo``/``hi``: the run's ends before)."""
    s.meld_slot[m, pos] = -1
    s.meld_lo[m] = lo
    s.meld_hi[m] = hi


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def lay_meld(rules, s, p, kind, reps, physs, n):
    """Lay a new meld of ``n`` cards (``physs[i]`` standing for ``reps[i]``, in canonical
    order: a run from its lowest position up, a set by suit) in the first free slot for
    seat p; returns the slot."""
    m = s.num_melds
    c0 = np.int64(reps[0])
    s.meld_kind[m] = kind
    s.meld_owner[m] = p
    s.meld_slot[m, :] = -1
    if kind == KIND_SET:
        s.meld_key[m] = c0 // 4
        s.meld_lo[m] = 0
        s.meld_hi[m] = 0
        for i in range(n):
            s.meld_slot[m, reps[i] % 4 if rules[R_SET_DISTINCT] else i] = physs[i]
    else:
        lo = run_pos(rules, c0, TRUE)
        s.meld_key[m] = c0 % 4
        s.meld_lo[m] = lo
        s.meld_hi[m] = lo + n - 1
        for i in range(n):
            s.meld_slot[m, lo + i] = physs[i]
    s.num_melds = m + 1
    return m


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def take_back_last_meld(s):
    """Undo :func:`lay_meld` (a search that looked at the table with the meld on it)."""
    m = s.num_melds - 1
    for q in range(s.meld_slot.shape[1]):
        s.meld_slot[m, q] = -1
    s.meld_kind[m] = 0
    s.meld_key[m] = 0
    s.meld_lo[m] = 0
    s.meld_hi[m] = 0
    s.meld_owner[m] = -1
    s.num_melds = m


# --------------------------------------------------------------------------- a meld being built
# A new meld is built card by card in canonical order (a run from its lowest position up,
# a set by suit), in ``build_rep[i]`` (the card the i-th card stands for), ``build_phys[i]``
# (the card itself) and ``build_n``.
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def clear_build(s):
    for i in range(s.build_rep.shape[0]):
        s.build_rep[i] = -1
        s.build_phys[i] = -1
    s.build_n = 0


# --------------------------------------------------------------------------- observation
MELD_FEATURES = 12  # per meld, see observe_table


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def observe_table(rules, s, viewer, out, o_melds, stride, o_table):
    """The table seen by ``viewer``: per meld slot (from ``o_melds``, ``stride`` >=
    MELD_FEATURES entries each; a game may put more features after the first 12)
    set, run, key, lo, hi, cards, owner (seat relative to the viewer + 1), wild cards,
    and a set's suits: with distinct suits 1 natural, 2 wild per suit, else the natural
    cards of each suit; and from ``o_table`` the count of each card type on the table.
    Where a wild stands inside a run is not shown here (a game that needs it adds it)."""
    P = s.num_players
    S = s.meld_slot.shape[1]
    for m in range(s.num_melds):
        o = o_melds + m * stride
        kind = s.meld_kind[m]
        out[o] = kind == KIND_SET
        out[o + 1] = kind == KIND_RUN
        out[o + 2] = s.meld_key[m]
        out[o + 3] = s.meld_lo[m]
        out[o + 4] = s.meld_hi[m]
        rel = s.meld_owner[m] - viewer
        if rel < 0:
            rel += P
        out[o + 6] = rel + 1
        n = 0
        wilds = 0
        distinct = rules[R_SET_DISTINCT] != 0
        lo, hi = (0, (3 if distinct else S - 1)) if kind == KIND_SET else (np.int64(s.meld_lo[m]),
                                                                           np.int64(s.meld_hi[m]))
        for q in range(lo, hi + 1):
            c = s.meld_slot[m, q]
            if c < 0 and kind == KIND_SET and not distinct:
                break  # a listed set's cards fill its first slots
            if c >= 0:
                n += 1
                out[o_table + c] += 1
                wild = is_wild(rules, np.int64(c))
                if wild:
                    wilds += 1
                if kind == KIND_SET:
                    if distinct:
                        out[o + 8 + q] = 2 if wild else 1
                    elif not wild:
                        out[o + 8 + c % 4] += 1
        out[o + 5] = n
        out[o + 7] = wilds


# --------------------------------------------------------------------------- Python side: cards as text
def wild_token(phys: int, rep_text: str) -> str:
    """A wild card on the table: ``X=6h`` (a joker standing for 6h), ``2c=6h`` (a 2 where
    2s are wild), ``X=7`` (standing for a set's rank)."""
    return f"{card_str(phys)}={rep_text}"


def meld_tokens(rules: np.ndarray, rec, m: int) -> list[str]:
    """Table meld m as card strings, in slot order (a run from its lowest position up)."""
    out = []
    kind = int(rec["meld_kind"][m])
    key = int(rec["meld_key"][m])
    for q in range(rec["meld_slot"].shape[1]):
        c = int(rec["meld_slot"][m, q])
        if c < 0:
            continue
        wild = bool(is_wild(rules, c))
        if kind == KIND_RUN:
            rep = card_str(card_at(key, q)) if key >= 0 else "A23456789TJQKA"[q]  # key -1: a run of mixed suits
        elif rules[R_SET_DISTINCT]:
            rep = card_str(key * 4 + q)
        else:
            rep = "A23456789TJQK"[key]
        out.append(wild_token(c, rep) if wild else card_str(c))
    return out


def hand_cards(counts) -> list[str]:
    """Cards by suit then rank, jokers last."""
    out = []
    for t in range(4):
        for r in range(13):
            out += [card_str(r * 4 + t)] * int(counts[r * 4 + t])
    out += ["X"] * int(counts[JOKER])
    return out


def parse_table_tokens(tokens, where: str) -> tuple[list[int], list[int]]:
    """Cards of a scenario's meld in Rami 51's form (``['5h', 'X=6h', '7h']``): the card
    each stands for, and the physical card (the joker for ``X=``)."""
    if not isinstance(tokens, (list, tuple)):
        raise ValueError(f"scenario {where}: expected a list of cards like ['5h', 'X=6h', '7h'], got {tokens!r}")
    reps, phys = [], []
    for tok in tokens:
        t = str(tok).strip()
        if t.upper().startswith("X="):
            rep = card_id(t[2:])
            reps.append(rep)
            phys.append(JOKER)
        else:
            c = card_id(t)
            if c == JOKER:
                raise ValueError(f"scenario {where}: a joker on the table names its card: write 'X=7h', not 'X'")
            reps.append(c)
            phys.append(c)
        if reps[-1] >= NUM_FACES:
            raise ValueError(f"scenario {where}: {t!r} does not name a card")
    return reps, phys




# --------------------------------------------------------------------------- Python side: wild cards named
# Frime and Classes write a wild card on the table with what it stands for, PHYS=REP:
# ``X=7h`` / ``2c=7h`` in a run of one suit, ``2c=7`` in a set or in a run of mixed suits
# (a rank). The meld being built (``build``) is written the same way.
def is_wild_card(rules: np.ndarray, c: int) -> bool:
    return (c == JOKER and bool(rules[R_JOKER_WILD])) or (c // 4 == 1 and c != JOKER and bool(rules[R_TWOS_WILD]))


def parse_wild_tokens(rules: np.ndarray, tokens, kind: int, mixed: bool, where: str) -> tuple[list[int], list[int]]:
    """(card each stands for, physical card) of a meld written as ``state_dict`` writes it."""
    if not isinstance(tokens, (list, tuple)):
        raise ValueError(f"scenario {where}: expected a list of cards like ['5h', '2c=6h', '7h'], got {tokens!r}")
    reps, phys = [], []
    for tok in tokens:
        t = str(tok).strip()
        if "=" in t:
            left, right = t.split("=", 1)
            ph = card_id(left)
            if not is_wild_card(rules, ph):
                raise ValueError(f"scenario {where}: {t!r}: only a wild card stands for another card")
            if kind == KIND_SET or mixed:
                if len(right) != 1 or right.upper() not in RANKS:
                    raise ValueError(f"scenario {where}: this wild card stands for a rank: write "
                                     f"'{left}=7', not {t!r}")
                rep = RANKS.index(right.upper()) * 4
            else:
                rep = card_id(right)
        else:
            ph = card_id(t)
            if is_wild_card(rules, ph):
                raise ValueError(f"scenario {where}: a wild card on the table names what it stands for: "
                                 f"'{t}=7h', not {t!r}")
            rep = ph
        if rep >= NUM_FACES or rep // 4 == 1:
            raise ValueError(f"scenario {where}: {t!r} does not stand for a natural card (3..K, A)")
        reps.append(rep)
        phys.append(ph)
    return reps, phys


def _run_lo(rep: int) -> int:
    return ACE_HIGH if rep // 4 == 0 else rep // 4


def check_meld_cards(rules: np.ndarray, kind: int, reps: list[int], phys: list[int], mixed: bool, partial: bool,
                     slots: int, where: str) -> None:
    """The cards in canonical order: a run from its lowest position up (3 .. K A; one
    suit unless ``mixed``), a set of one rank by its naturals in suit order, then its
    wild cards; a finished meld holds 3 or more cards (and the rules' natural card).
    ``partial``: a meld being built."""
    n = len(reps)
    wilds = [is_wild_card(rules, ph) for ph in phys]
    need_natural = bool(rules[R_MIN_NATURAL])
    if n < 3 and not partial:
        raise ValueError(f"scenario {where}: a meld holds at least 3 cards")
    if n > slots:
        raise ValueError(f"scenario {where}: at most {slots} cards")
    if need_natural and not partial and all(wilds):
        raise ValueError(f"scenario {where}: a meld holds at least one natural card")
    if n == 0:
        return
    if kind == KIND_RUN:
        lo = _run_lo(reps[0])
        for i, c in enumerate(reps):
            q = lo + i
            if q > ACE_HIGH or c // 4 != (0 if q == ACE_HIGH else q) or (not mixed and c % 4 != reps[0] % 4):
                raise ValueError(f"scenario {where}: a run is of consecutive cards{'' if mixed else ' of one suit'}, "
                                 f"from its lowest card up (3 .. K A)")
    else:
        if any(c // 4 != reps[0] // 4 for c in reps):
            raise ValueError(f"scenario {where}: a set is of one rank")
        keys = [(4 if w else c % 4) for c, w in zip(reps, wilds, strict=True)]
        if partial and (keys != sorted(keys) or (need_natural and wilds[0])):
            raise ValueError(f"scenario {where}: a set is built by its natural cards in suit order (c d h s), "
                             f"then its wild cards")


def melds_to_dict(rules: np.ndarray, rec) -> list[dict]:
    return [{"kind": "set" if int(rec["meld_kind"][m]) == KIND_SET else "run", "owner": int(rec["meld_owner"][m]),
             "cards": meld_tokens(rules, rec, m)} for m in range(int(rec["num_melds"]))]


def build_to_dict(rules: np.ndarray, rec, mixed: bool) -> dict:
    kind = int(rec["build_kind"])
    out = []
    for i in range(int(rec["build_n"])):
        rep, ph = int(rec["build_rep"][i]), int(rec["build_phys"][i])
        if is_wild_card(rules, ph):
            out.append(wild_token(ph, RANKS[rep // 4] if kind == KIND_SET or mixed else card_str(rep)))
        else:
            out.append(card_str(ph))
    return {"kind": {0: None, KIND_SET: "set", KIND_RUN: "run"}[kind], "cards": out}


def melds_from_dict(rules: np.ndarray, rec, value, mixed: bool) -> None:
    """The scenario's table (``melds``) into the record: each meld checked, a run filed by
    position (key -1 when ``mixed``), a set in laying order."""
    P = int(rec["num_players"])
    max_melds, slots = rec["meld_slot"].shape
    if not isinstance(value, (list, tuple)) or len(value) > max_melds:
        raise ValueError(f"scenario 'melds': expected a list of at most {max_melds} melds, got {value!r}")
    clear_table_record(rec)
    for m, meld in enumerate(value):
        where = f"melds[{m}]"
        if not isinstance(meld, dict) or set(meld) - {"kind", "owner", "cards"} or "cards" not in meld:
            raise ValueError(f"scenario {where}: expected {{'kind': 'set' or 'run', 'owner': seat, 'cards': [...]}}")
        kind = {"set": KIND_SET, "run": KIND_RUN}.get(meld.get("kind"))
        if kind is None:
            raise ValueError(f"scenario {where}: kind must be 'set' or 'run', got {meld.get('kind')!r}")
        owner = meld.get("owner", 0)
        if isinstance(owner, bool) or not isinstance(owner, int) or not 0 <= owner < P:
            raise ValueError(f"scenario {where}: owner must be a seat 0..{P - 1}, got {owner!r}")
        reps, phys = parse_wild_tokens(rules, meld["cards"], kind, mixed, where)
        check_meld_cards(rules, kind, reps, phys, mixed, False, slots, where)
        rec["meld_kind"][m] = kind
        rec["meld_owner"][m] = owner
        if kind == KIND_SET:
            rec["meld_key"][m] = reps[0] // 4
            for i, ph in enumerate(phys):
                rec["meld_slot"][m, i] = ph
        else:
            lo = _run_lo(reps[0])
            rec["meld_key"][m] = -1 if mixed else reps[0] % 4
            rec["meld_lo"][m] = lo
            rec["meld_hi"][m] = lo + len(reps) - 1
            for i, ph in enumerate(phys):
                rec["meld_slot"][m, lo + i] = ph
    rec["num_melds"] = len(value)


def build_from_dict(rules: np.ndarray, rec, value, mixed: bool) -> None:
    """The scenario's meld being built (``build``: kind and cards) into the record."""
    if not isinstance(value, dict) or set(value) - {"kind", "cards"}:
        raise ValueError(f"scenario 'build': expected {{'kind': 'set', 'run' or None, 'cards': [...]}}, got {value!r}")
    kind = {"set": KIND_SET, "run": KIND_RUN, None: 0}.get(value.get("kind"), -1)
    if kind < 0:
        raise ValueError(f"scenario 'build': kind must be 'set', 'run' or None, got {value.get('kind')!r}")
    reps, phys = parse_wild_tokens(rules, value.get("cards", []), kind, mixed, "'build'")
    if reps and kind == 0:
        raise ValueError("scenario 'build': cards need a kind ('set' or 'run')")
    check_meld_cards(rules, kind, reps, phys, mixed, True, rec["build_rep"].shape[0], "'build'")
    rec["build_kind"] = kind
    write_build(rec, reps, phys)


# --------------------------------------------------------------------------- Python side: scenarios
def table_codec(rules_of: Callable[[Any], tuple[np.ndarray, bool]]) -> tuple[Callable, Callable]:
    """A game's ``custom_to_dict`` and ``custom_from_dict`` for its ``"melds"`` and
    ``"build"`` fields, written with the codec above. ``rules_of(rec)``: the game's rules
    array and whether its runs may mix suits, in that state (an option may decide)."""

    def custom_to_dict(rec, name: str):
        rules, mixed = rules_of(rec)
        if name == "melds":
            return melds_to_dict(rules, rec)
        if name == "build":
            return build_to_dict(rules, rec, mixed)
        raise AssertionError(name)

    def custom_from_dict(rec, name: str, value) -> None:
        rules, mixed = rules_of(rec)
        if name == "melds":
            melds_from_dict(rules, rec, value, mixed)
        elif name == "build":
            build_from_dict(rules, rec, value, mixed)
        else:
            raise AssertionError(name)

    return custom_to_dict, custom_from_dict


def table_card_counts(rec, name: str) -> np.ndarray:
    """Card counts of the table ('melds') or of the meld being built ('build'), for card
    conservation (a game's ``custom_counts``)."""
    counts = np.zeros(NUM_TYPES, dtype=np.int64)
    if name == "melds":
        for m in range(int(rec["num_melds"])):
            for c in rec["meld_slot"][m]:
                if c >= 0:
                    counts[int(c)] += 1
    elif name == "build":
        for i in range(int(rec["build_n"])):
            counts[int(rec["build_phys"][i])] += 1
    return counts


def clear_table_record(rec) -> None:
    """An empty table in a record (before a scenario's melds are written)."""
    rec["meld_kind"] = 0
    rec["meld_key"] = 0
    rec["meld_lo"] = 0
    rec["meld_hi"] = 0
    rec["meld_slot"] = -1
    rec["meld_owner"] = -1


def write_build(rec, reps: list[int], phys: list[int]) -> None:
    """The meld being built in a record: the card each card stands for, and the card."""
    rec["build_rep"] = -1
    rec["build_phys"] = -1
    for i, (rep, ph) in enumerate(zip(reps, phys, strict=True)):
        rec["build_rep"][i] = rep
        rec["build_phys"][i] = ph
    rec["build_n"] = len(reps)


def prepare_scenario(rec, scenario: dict) -> None:
    """Before card conservation: a scenario that does not give the discard pile gets one
    card turned up from the stock (see complete_scenario), not the dealt one."""
    if "pile" not in scenario:
        rec["pile"] = 0
        rec["pile_n"] = 0


def complete_scenario(rec, scenario: dict) -> None:
    """Without 'pile' (and without 'stock'), the top of the stock is turned up to start
    the discard pile."""
    if "pile" not in scenario and "stock" not in scenario and rec["stock_n"] > 0:
        n = int(rec["stock_n"]) - 1
        rec["pile"][0] = rec["stock"][n]
        rec["pile_n"] = 1
        rec["stock"][n] = 0
        rec["stock_n"] = n


def check_void_rounds(rec, first_round: int = 1) -> None:
    """A loaded scenario's ``void_rounds`` counts rounds of this match that ended void: at
    most the rounds finished (those before ``round``, and the current one once the match
    is over)."""
    over = bool(rec["terminated"] or rec["truncated"])
    most = int(rec["round"]) - first_round + (1 if over else 0)
    if not 0 <= int(rec["void_rounds"]) <= most:
        raise ValueError(f"scenario: void_rounds must be 0..{most} at round {int(rec['round'])}, "
                         f"got {int(rec['void_rounds'])}")


def check_known(rec) -> None:
    """A loaded scenario's ``known`` cards (see known_field) are held by their player."""
    P = int(rec["num_players"])
    over = np.asarray(rec["known"][:P]).astype(np.int64) > np.asarray(rec["hands"][:P]).astype(np.int64)
    if over.any():
        p, c = (int(x) for x in np.argwhere(over)[0])
        raise ValueError(f"scenario: known[{p}] lists {card_str(c)}, which player {p} does not hold "
                         f"(as many times)")
