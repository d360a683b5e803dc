"""Classes: the ten-contract rummy, as numba kernels over a record per game.

Reads like the rule book (``docs/games/classes.md`` gives the rules in full): state
layout, deal, legal actions, apply an action, the end of a round and of the match,
observation, then the hooks of the batch step (core/step_driver.py binds the game's driver to them). The
table, the deal and the draw/discard mechanics are the rummy layer's
(:mod:`cardenvs.rummy.table`); whether a hand holds a contract, and whether a contract or
meld being built can be finished, is :func:`cardenvs.rummy.contract.contract_search`.

Each player works through ten classes, each a contract (two brelans, a séquence of four
and a brelan, ...). A turn is: draw (stock top or discard top), lay down, discard. The
contract of the player's class is laid whole in one turn, meld after meld, each built
card by card (a run from its lowest position up, a set by its natural cards in suit
order, then its 2s). From then on, that turn included, the player may lay further melds
and add cards to any meld on the table. A player whose hand becomes empty ends the
round. The masks are exact: a step is legal only when what it starts can be finished
(the whole contract, a meld reaching its size with a natural card).
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from cardenvs.core.borrow import keep_alive
from cardenvs.core.rng import rand_below
from cardenvs.core.step_driver import bind
from cardenvs.rummy import melds as M
from cardenvs.rummy import table as T
from cardenvs.rummy.contract import (
    CONTRACT_ITEMS,
    CONTRACTS,
    STACK_SIZE,
    contract_search,
    meld_within_reach,
    run_cards_mask,
)
from cardenvs.rummy.melds import ACE_HIGH, KIND_RUN, KIND_SET, card_at, classes_penalty

# --------------------------------------------------------------------------- layout
MAX_PLAYERS = 6
NUM_FACES = 52
NUM_TYPES = 53  # the layer's card types; Classes has no joker (type 52 is never dealt)
MAX_CARDS = 156  # three decks
MAX_MELDS = 52  # 156 cards make at most 52 melds
SLOTS = 24  # a set holds at most 12 naturals and 12 twos; a run at most 12 positions (3 .. A)
NUM_CLASSES = 10
LOW_POS = 2  # runs go from the 3 (position 2) to the ace (position 13)
# the meld rules, by option run_same_suit (row 1: runs of one suit, row 0: mixed suits); the
# kernels index it where they need it (numba returns no view of a global array)
RULES_BY_SUIT = np.stack([M.rules_classes(False), M.rules_classes(True)])
# Plain constants for calls between kernels: a literal argument (True, KIND_RUN) makes numba
# compile the callee once more per value (see cardenvs.rummy.melds.TRUE)
TRUE = M.TRUE
FALSE = M.FALSE
RUN = np.int64(KIND_RUN)
SET = np.int64(KIND_SET)
NONE = np.int64(-1)
ZERO_I = np.int64(0)
FREE_MELD_SIZE = 3  # a meld beyond the contract: a set or a run of 3+
MAX_ROUND = 30000  # the last round a match deals (int16 counters): one more is truncated instead
MAX_SCORE = 10**8  # a scenario's points (int32 in the record)

# Action encoding (see docs/games/classes.md)
DRAW_STOCK = 0  # draw the top of the stock
TAKE_DISCARD = 1  # take the top of the discard pile
DISCARD0 = 2  # DISCARD0 + c: discard card c (0..51); the turn ends
CONTRACT = DISCARD0 + NUM_FACES  # start laying the contract of the player's class
NEW_SET = CONTRACT + 1  # start building a set (once the contract is laid)
NEW_RUN = NEW_SET + 1  # start building a run
LAYOFF0 = NEW_RUN + 1  # LAYOFF0 + m: add a card to table meld m (the card comes next)
ADD0 = LAYOFF0 + MAX_MELDS  # ADD0 + c: the natural card c
WILD0 = ADD0 + NUM_FACES  # WILD0 + c: a 2 standing for c (in a set, or a run of mixed suits: c = rank * 4)
CLOSE = WILD0 + NUM_FACES  # lay the meld being built
NUM_ACTIONS = CLOSE + 1  # 214

# Phases
PHASE_DRAW = 0
PHASE_PLAY = 1  # lay down (the contract, then melds and lay-offs) or discard
PHASE_BUILD = 2  # a meld is being built (a contract's, or a further one)
PHASE_LAYOFF = 3  # a table meld was picked: the card comes next
PHASE_OVER = 4
PHASE_NAMES = ("draw", "play", "build", "layoff", "over")

REWARD_MATCH = 0
REWARD_ROUND = 1
REWARD_MODES = ("match", "round")

STATE_DTYPE = np.dtype(
    [
        ("rng", np.uint64),
        # options
        ("num_players", np.int8),
        ("run_same_suit", np.bool_),
        ("same_rank_sets", np.bool_),
        ("contract_when_able", np.bool_),  # the contract is laid in the first turn it can be
        ("first_class", np.int8),
        ("single_round", np.bool_),
        ("reward_mode", np.int8),
        ("max_steps", np.int32),
        ("max_turns_per_round", np.int32),
        # match
        ("scores", np.int32, (MAX_PLAYERS,)),  # points totals
        ("level", np.int8, (MAX_PLAYERS,)),  # the class each player is playing (1..10)
        ("laid", np.uint8, (MAX_PLAYERS,)),  # contract laid this round (numba records hold no bool arrays)
        ("winners", np.uint8, (MAX_PLAYERS,)),  # set when the match ends
        ("round", np.int16),
        ("dealer", np.int8),
        ("num_steps", np.int32),
        ("turns", np.int32),  # turns completed in this round
        ("terminated", np.bool_),
        ("truncated", np.bool_),
        ("rewards", np.float32, (MAX_PLAYERS,)),
        ("round_points", np.int32, (MAX_PLAYERS,)),  # points of the last finished round
        ("void_rounds", np.int16),  # rounds of this match that ended void
        # round
        *T.table_fields(MAX_PLAYERS, MAX_CARDS, MAX_MELDS, SLOTS),
        T.known_field(MAX_PLAYERS),  # cards seen to go into a hand and not seen to leave it
        # turn
        ("phase", np.int8),
        ("current", np.int8),
        ("build_kind", np.int8),  # KIND_SET, KIND_RUN, 0
        ("build_rep", np.int8, (SLOTS,)),
        ("build_phys", np.int8, (SLOTS,)),
        ("build_n", np.int8),
        ("item", np.int8),  # the contract's meld being built (0..), -1: a further meld
        ("target", np.int8),
        # derived
        ("held", np.uint8, (MAX_PLAYERS,)),
        ("legal", np.uint8, (NUM_ACTIONS,)),
    ]
)

# Observation layout, seen from the observer's seat (seat 0 = the observer). Every entry
# is a count, a flag, a position or points, stored exactly as int16.
OBS_DTYPE = np.int16
OBS_MAX = 32767
OBS_HAND = 0  # 52: own cards
OBS_TOP = OBS_HAND + NUM_FACES  # 52: one-hot top of the discard pile
OBS_PILE = OBS_TOP + NUM_FACES  # 52: cards in the discard pile
OBS_TABLE = OBS_PILE + NUM_FACES  # 53: cards on the table (the layer's card types)
OBS_MELDS = OBS_TABLE + NUM_TYPES  # MAX_MELDS x MELD_FEATURES
# per meld: the layer's 12 (set, run, key (-1: mixed suits), lo, hi, cards, owner, 2s, a
# set's naturals per suit) and the run positions that hold a 2 (bit p for position p)
MELD_FEATURES = T.MELD_FEATURES + 1
OBS_PHASE = OBS_MELDS + MAX_MELDS * MELD_FEATURES  # 4: draw .. layoff
OBS_BUILD = OBS_PHASE + 4  # 52: natural cards of the meld being built
OBS_BUILD_WILDS = OBS_BUILD + NUM_FACES  # 52: the cards its 2s stand for (a set's: its rank, clubs)
OBS_BUILD_INFO = OBS_BUILD_WILDS + NUM_FACES  # set, run, 2s in it, contract meld + 1 (0: a further meld), size to reach
OBS_TARGET = OBS_BUILD_INFO + 5  # 52: one-hot table meld picked for a lay-off
OBS_CONTRACT = OBS_TARGET + MAX_MELDS  # 6: the observer's contract, (kind, size) per meld
OBS_ROUND = OBS_CONTRACT + 2 * CONTRACT_ITEMS  # round, decks, stock, pile, turns, runs of one suit, same-rank sets
OBS_SEATS = OBS_ROUND + 7
SEAT_FEATURES = 9  # present, held, class, laid, score, to move, dealer, last round's points, melds laid
OBS_SIZE = OBS_SEATS + MAX_PLAYERS * SEAT_FEATURES
_HALF_OBS = OBS_SIZE // 2  # see observe


# --------------------------------------------------------------------------- rounds
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def num_decks(num_players):
    """Two 52-card decks for 2-4 players, three for 5-6."""
    return np.int64(2) if num_players <= 4 else np.int64(3)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _reset_turn(s):
    s.build_kind = 0
    s.item = -1
    s.target = -1
    T.clear_build(s)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _start_round(s, rnd):
    """Deal 13 cards each (one turned up to start the discard pile, the rest the stock);
    the player left of the dealer moves first. Past MAX_ROUND rounds (only a turn cap of a
    few turns gets there) the match is truncated instead."""
    if rnd > MAX_ROUND:
        s.truncated = True
        s.phase = PHASE_OVER
        return
    s.round = rnd
    skip = np.zeros(MAX_PLAYERS, dtype=np.uint8)
    T.deal(s, num_decks(s.num_players), np.int64(0), np.int64(13), s.dealer, s.num_players, skip)
    s.known[:] = 0
    s.laid[:] = 0
    s.turns = 0
    _reset_turn(s)
    s.phase = PHASE_DRAW
    s.current = (s.dealer + 1) % s.num_players


@njit(cache=True, no_cfunc_wrapper=True)
def new_match(s):
    """Everyone starts at class ``first_class`` (1) with 0 points; round 1 is dealt by a
    dealer drawn at random."""
    P = s.num_players
    s.scores[:] = 0
    s.round_points[:] = 0
    s.void_rounds = 0
    s.level[:] = 0
    s.winners[:] = 0
    for p in range(P):
        s.level[p] = s.first_class
    s.num_steps = 0
    s.terminated = False
    s.truncated = False
    s.rewards[:] = 0.0
    s.dealer = rand_below(s, P)
    _start_round(s, np.int64(1))


# --------------------------------------------------------------------------- can it be finished?
# A meld in progress is described by (kind, key, lo, n, has_nat): a run of suit ``key``
# (-1: mixed suits) from position ``lo`` holding n cards, or a set of rank ``key`` holding
# n cards; ``has_nat``: it holds a natural card. It is finished when it reaches its size
# (the contract item's, or 3) with a natural card, and, in a contract, the contract's
# later melds must still come out of the hand. contract_search answers both at once.
# The searches' scratch arrays, rows of one workspace ``ws`` allocated once per batch call:
# natural cards, demands (specific cards, any card of a rank, a set's next cards), the
# melds' natural cards, the ranks of sets taken, the search's stack, the contract's melds
# left to place
WS_N, WS_D, WS_A, WS_R, WS_WIN, WS_USED, WS_STACK, WS_ITEMS = range(8)
WS_ROWS = WS_ITEMS + CONTRACT_ITEMS
assert STACK_SIZE <= NUM_TYPES  # the search's stack is one row
# The step's work arrays as one record (see new_workspace): a hand's counts ``H``, changed
# freely by apply_action and the masks, the searches' ``rows``, and a table meld's
# extensions ``ext`` (the masks' lay-offs, and apply_action's lay-off)
WORKSPACE_DTYPE = np.dtype([("H", np.int64, (NUM_TYPES,)), ("rows", np.int64, (WS_ROWS, NUM_TYPES)),
                            ("ext", np.int64, (16, 2))])


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _contract_rows(s, p):
    """Number of melds in p's contract."""
    n = 0
    for i in range(CONTRACT_ITEMS):
        if CONTRACTS[s.level[p] - 1, i, 1] > 0:
            n += 1
    return n


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _meld_size(s, p, item):
    return np.int64(CONTRACTS[s.level[p] - 1, item, 1]) if item >= 0 else np.int64(FREE_MELD_SIZE)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _used_ranks(s, item):
    """Ranks of the sets of the contract laid so far this turn (the last ``item`` melds)."""
    used = 0
    for m in range(s.num_melds - item, s.num_melds):
        if s.meld_kind[m] == KIND_SET:
            used |= 1 << np.int64(s.meld_key[m])
    return used


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _twos(H):
    """The 2s (the wild cards) in the hand counts H."""
    return np.int64(H[4]) + np.int64(H[5]) + np.int64(H[6]) + np.int64(H[7])


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _finishable(s, p, H, item, kind, key, lo, n, has_nat, next_suit, ws):
    """With the hand H (the meld's cards out of it), can the meld in progress be
    finished, and (``item`` >= 0) the contract's melds after it laid too? A set takes
    its next natural cards from suit ``next_suit`` up (4: only 2s now)."""
    rules = RULES_BY_SUIT[np.int64(s.run_same_suit)]
    scr_N = ws[WS_N]
    scr_D = ws[WS_D]
    scr_A = ws[WS_A]
    scr_R = ws[WS_R]
    scr_win = ws[WS_WIN]
    scr_used = ws[WS_USED]
    scr_items = ws[WS_ITEMS:WS_ITEMS + CONTRACT_ITEMS, 0:2]
    W = _twos(H)
    for c in range(NUM_FACES):
        scr_N[c] = 0 if c // 4 == 1 else H[c]
        scr_D[c] = 0
    for r in range(13):
        scr_A[r] = 0
    scr_R[0] = -1
    scr_R[2] = 0
    distinct = not s.same_rank_sets and item >= 0
    scr_used[0] = _used_ranks(s, item) if distinct else 0
    size = _meld_size(s, p, item)
    nwin = 0
    nitems = ZERO_I  # not a literal 0: numba would compile contract_search for it too
    if item >= 0:
        for i in range(item + 1, CONTRACT_ITEMS):
            if CONTRACTS[s.level[p] - 1, i, 1] > 0:
                scr_items[nitems, 0] = CONTRACTS[s.level[p] - 1, i, 0]
                scr_items[nitems, 1] = CONTRACTS[s.level[p] - 1, i, 1]
                nitems += 1
    if kind == KIND_RUN:
        # the run reaches up to hi: its size at least, and further while it still needs a
        # natural card (2=8s 2=9s 2=Ts Js is a run from the 8 whose natural comes 4th)
        hi = max(lo + size - 1, lo + n - 1)
        if hi > ACE_HIGH:
            return False
        last_hi = ACE_HIGH if not has_nat else hi
        q0 = lo + n
        for q in range(q0, hi + 1):
            if key >= 0:
                scr_D[card_at(key, q)] += 1
            else:
                scr_A[M.pos_rank(q)] += 1
        while hi <= last_hi:
            if has_nat:
                nwin = 0
            elif hi >= q0:
                scr_win[0] = run_cards_mask(rules, key, q0, hi)
                nwin = 1
            if (has_nat or hi >= q0) and contract_search(rules, scr_N, W, scr_items, nitems, scr_D, scr_A, scr_R,
                                                          scr_win, np.int64(nwin), scr_used, distinct, ws[WS_STACK]):
                return True
            hi += 1
            if hi > ACE_HIGH:
                break
            if key >= 0:
                scr_D[card_at(key, hi)] += 1
            else:
                scr_A[M.pos_rank(hi)] += 1
        return False
    else:
        if n < size:
            scr_R[0] = key
            scr_R[1] = next_suit
            scr_R[2] = size - n
        if not has_nat:
            scr_win[0] = np.int64(15) << np.int64(key * 4)
            nwin = 1
        if distinct:
            if (scr_used[0] >> np.int64(key)) & 1:
                return False  # a contract's sets have different ranks
            scr_used[0] |= 1 << np.int64(key)
    return contract_search(rules, scr_N, W, scr_items, nitems, scr_D, scr_A, scr_R, scr_win, np.int64(nwin),
                           scr_used, distinct, ws[WS_STACK])


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _take_wild(H):
    """Take one 2 from the counts H (by suit: 2c first); returns it, -1 if none."""
    for c in range(4, 8):
        if H[c] > 0:
            H[c] -= 1
            return c
    return -1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _build_now(s):
    """(key, lo, n, has_nat, last suit, 2s started) of the meld being built."""
    n = np.int64(s.build_n)
    if n == 0:
        return NONE, NONE, n, False, np.int64(0), False
    c0 = np.int64(s.build_rep[0])
    has_nat = False
    for i in range(n):
        if not M.is_wild(RULES_BY_SUIT[np.int64(s.run_same_suit)], np.int64(s.build_phys[i])):
            has_nat = True
    last = np.int64(s.build_rep[n - 1])
    wilds_started = M.is_wild(RULES_BY_SUIT[np.int64(s.run_same_suit)], np.int64(s.build_phys[n - 1]))
    if s.build_kind == KIND_RUN:
        key = c0 % 4 if s.run_same_suit else NONE
        return key, T.run_pos(RULES_BY_SUIT[np.int64(s.run_same_suit)], c0, FALSE), n, has_nat, last % 4, False
    return c0 // 4, NONE, n, has_nat, last % 4, wilds_started


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _next_ok(s, p, H, item, kind, rep, wild, ws):
    """With the card rep (a 2 standing for it when ``wild``) added to the meld being built
    (a new one of ``kind`` when none is), can it still be finished?"""
    if wild:
        w = _take_wild(H)
        if w < 0:
            return False
    else:
        if H[rep] == 0:
            return False
        H[rep] -= 1
        w = np.int64(rep)
    key, lo, n, has_nat, last_suit, wilds_started = _build_now(s)
    next_suit = np.int64(4) if wild or wilds_started else np.int64(rep) % 4
    if n == 0:
        lo = T.run_pos(RULES_BY_SUIT[np.int64(s.run_same_suit)], np.int64(rep), FALSE)
        if kind == KIND_RUN:
            key = np.int64(rep) % 4 if s.run_same_suit else NONE
        else:
            key = np.int64(rep) // 4
    ok = _finishable(s, p, H, item, kind, key, lo, n + 1, has_nat or not wild, next_suit, ws)
    H[w] += 1
    return ok


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _holds(s, p, H, contract, kind, ws):
    """Does the hand H hold p's whole contract (``contract``), or else one meld of
    ``kind``? One search, where asking each first card would take dozens."""
    rules = RULES_BY_SUIT[np.int64(s.run_same_suit)]
    scr_N = ws[WS_N]
    scr_items = ws[WS_ITEMS:WS_ITEMS + CONTRACT_ITEMS, 0:2]
    W = _twos(H)
    for c in range(NUM_FACES):
        scr_N[c] = 0 if c // 4 == 1 else H[c]
        ws[WS_D, c] = 0
    for r in range(13):
        ws[WS_A, r] = 0
    ws[WS_R, 0] = -1
    ws[WS_R, 2] = 0
    ws[WS_USED, 0] = 0
    n = 0
    if contract:
        for want in (KIND_RUN, KIND_SET):  # runs first: their specific demands prune sooner
            for i in range(CONTRACT_ITEMS):
                if CONTRACTS[s.level[p] - 1, i, 1] > 0 and CONTRACTS[s.level[p] - 1, i, 0] == want:
                    scr_items[n, 0] = want
                    scr_items[n, 1] = CONTRACTS[s.level[p] - 1, i, 1]
                    n += 1
    else:
        scr_items[0, 0] = kind
        scr_items[0, 1] = FREE_MELD_SIZE
        n = 1
    return contract_search(rules, scr_N, W, scr_items, np.int64(n), ws[WS_D], ws[WS_A], ws[WS_R], ws[WS_WIN], ZERO_I,
                           ws[WS_USED], contract and not s.same_rank_sets, ws[WS_STACK])


# --------------------------------------------------------------------------- legal actions
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _first_cards(s, p, H, item, kind, ws):
    """Mark the cards that may start the meld being built. A run starts at the 3 .. the
    queen (the ace is only high), with a natural card or a 2; a set starts with a natural
    card (its 2s come last)."""
    size = _meld_size(s, p, item)
    for c in range(NUM_FACES):
        r = c // 4
        if r == 1 or (kind == KIND_RUN and r == 0):
            continue
        if H[c] > 0 and _start_within_reach(s, H, kind, size, np.int64(c), FALSE) and _next_ok(
                s, p, H, item, kind, np.int64(c), FALSE, ws):
            s.legal[ADD0 + c] = 1
        if (kind == KIND_RUN and (s.run_same_suit or c % 4 == 0) and _start_within_reach(s, H, kind, size,
                                                                                          np.int64(c), TRUE)
                and _next_ok(s, p, H, item, kind, np.int64(c), TRUE, ws)):
            s.legal[WILD0 + c] = 1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _start_within_reach(s, H, kind, size, c, wild):
    """May a meld of ``size`` cards or more start with c (a 2 standing for c when
    ``wild``), on the hand's counts H alone? A necessary condition, checked before the
    search of each start (dozens a position, two thirds of them hopeless):
    - a set holds naturals of c's rank from c's suit up (it is built in suit order), and
      2s for the rest;
    - a run covers the positions above c up to its size, each with a natural card of its
      suit (any suit when runs mix suits) or a 2; a run started by a 2 also needs a
      natural card, and every position between c and its first natural is a 2 too."""
    W = _twos(H)
    if wild:
        if W == 0:
            return False
        W -= 1  # the 2 standing for c
    r = c // 4
    if kind == KIND_SET:
        n = W
        for t in range(c % 4, 4):
            n += H[r * 4 + t]
        return n >= size
    lo = r  # a run's start is never an ace: the position is the rank
    if lo + size - 1 > ACE_HIGH:
        return False
    first = ACE_HIGH + 1  # the lowest position above c with a natural card held
    missing = 0
    for q in range(lo + 1, ACE_HIGH + 1):
        held = False
        for t in range(4):
            if (not s.run_same_suit or t == c % 4) and H[card_at(t, q)] > 0:
                held = True
        if held and q < first:
            first = q
        if not held and q < lo + size:
            missing += 1
        if q >= lo + size - 1 and q >= first:
            break
    if missing > W:
        return False
    return not wild or (first <= ACE_HIGH and first - lo - 1 <= W)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _mask_build(s, p, H, ws):
    """The cards that may come next in the meld being built, and closing it."""
    T.hand_of(s, p, H)
    item = np.int64(s.item)
    kind = np.int64(s.build_kind)
    key, lo, n, has_nat, last_suit, wilds_started = _build_now(s)
    if n == 0:
        _first_cards(s, p, H, item, kind, ws)
    elif kind == KIND_RUN:
        q = lo + n
        if q <= ACE_HIGH:
            for t in range(4):
                if key >= 0 and t != key:
                    continue
                c = card_at(t, q)
                if _next_ok(s, p, H, item, kind, c, FALSE, ws):
                    s.legal[ADD0 + c] = 1
            c = card_at(max(key, 0), q)
            if _next_ok(s, p, H, item, kind, c, TRUE, ws):
                s.legal[WILD0 + c] = 1
    else:
        if not wilds_started:
            for t in range(last_suit, 4):
                c = key * 4 + t
                if _next_ok(s, p, H, item, kind, c, FALSE, ws):
                    s.legal[ADD0 + c] = 1
        if _next_ok(s, p, H, item, kind, key * 4, TRUE, ws):
            s.legal[WILD0 + key * 4] = 1
    if n >= _meld_size(s, p, item) and has_nat and _finishable(s, p, H, item, kind, key, lo, n, has_nat, last_suit,
                                                                 ws):
        s.legal[CLOSE] = 1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _layoff_cards(s, p, m, ext, write):
    """Cards of p that extend table meld m (written to the mask when ``write``); returns
    how many ways."""
    wilds = np.int64(s.hands[p, 4]) + np.int64(s.hands[p, 5]) + np.int64(s.hands[p, 6]) + np.int64(s.hands[p, 7])
    if s.meld_kind[m] == KIND_SET and wilds == 0:
        # a set takes a card of its rank (or a 2): none held, none to look for on the table
        r = np.int64(s.meld_key[m]) * 4
        if s.hands[p, r] == 0 and s.hands[p, r + 1] == 0 and s.hands[p, r + 2] == 0 and s.hands[p, r + 3] == 0:
            return 0
    n = T.table_extensions(RULES_BY_SUIT[np.int64(s.run_same_suit)], s, m, ext)
    found = 0
    for i in range(n):
        c = ext[i, 0]
        if s.hands[p, c] > 0:
            found += 1
            if write:
                s.legal[ADD0 + c] = 1
        # a 2 stands for a position of a run (one action per end), for the rank of a set
        # or of a mixed run's position (the clubs card of that rank: ext lists clubs first)
        if wilds > 0 and (s.meld_kind[m] == KIND_RUN and s.meld_key[m] >= 0 or c % 4 == 0):
            found += 1
            if write:
                s.legal[WILD0 + c] = 1
    return found


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _contract_within_reach(s, p, H):
    """May the hand H hold p's contract? A necessary condition before its search (which
    fails at about nineteen in twenty of the positions where it is asked): each of its
    melds within reach on its own. (The hand's 14 cards always outnumber the contract's.)"""
    rules = RULES_BY_SUIT[np.int64(s.run_same_suit)]
    for i in range(CONTRACT_ITEMS):
        size = np.int64(CONTRACTS[s.level[p] - 1, i, 1])
        if size > 0 and not meld_within_reach(rules, np.int64(CONTRACTS[s.level[p] - 1, i, 0]), size, H,
                                              _twos(H)):
            return False
    return True


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _free_meld_within_reach(s, H, kind):
    """May the hand H hold a further meld of ``kind`` (3 cards)? The search's first test,
    before its set-up: once its contract is laid a hand is small, and most hold none."""
    return meld_within_reach(RULES_BY_SUIT[np.int64(s.run_same_suit)], kind, np.int64(FREE_MELD_SIZE), H, _twos(H))


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _mask_play(s, p, H, ws, ext):
    """Discards; the contract while it is not laid; once it is, new melds and lay-offs."""
    for c in range(NUM_FACES):
        if s.hands[p, c] > 0:
            s.legal[DISCARD0 + c] = 1
    T.hand_of(s, p, H)
    if not s.laid[p]:
        if (s.num_melds + _contract_rows(s, p) <= MAX_MELDS and _contract_within_reach(s, p, H)
                and _holds(s, p, H, TRUE, SET, ws)):
            s.legal[CONTRACT] = 1
            if s.contract_when_able:  # "dès qu'un joueur a ce qu'il faut": no discard before it
                for c in range(NUM_FACES):
                    s.legal[DISCARD0 + c] = 0
        return
    if s.num_melds < MAX_MELDS:
        if _free_meld_within_reach(s, H, SET) and _holds(s, p, H, FALSE, SET, ws):
            s.legal[NEW_SET] = 1
        if _free_meld_within_reach(s, H, RUN) and _holds(s, p, H, FALSE, RUN, ws):
            s.legal[NEW_RUN] = 1
    for m in range(np.int64(s.num_melds)):  # int64 as the other call's: one compiled _layoff_cards
        if _layoff_cards(s, p, m, ext, FALSE) > 0:
            s.legal[LAYOFF0 + m] = 1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _mask(s, H, ws, ext):
    for k in range(NUM_ACTIONS):
        s.legal[k] = 0
    if s.phase == PHASE_OVER:
        return
    p = np.int64(s.current)
    if s.phase == PHASE_DRAW:
        if s.stock_n > 0 or s.pile_n >= 2:
            s.legal[DRAW_STOCK] = 1
        if s.pile_n >= 1:
            s.legal[TAKE_DISCARD] = 1
        return
    if s.phase == PHASE_LAYOFF:
        _layoff_cards(s, p, np.int64(s.target), ext, TRUE)
        return
    if s.phase == PHASE_PLAY:
        _mask_play(s, p, H, ws, ext)
    else:
        _mask_build(s, p, H, ws)


# --------------------------------------------------------------------------- apply an action
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _end_turn(s):
    """The turn ends with a discard: the next player's turn, or, at the turn cap, the
    round ends void. Returns True when a round ended."""
    s.turns += 1
    if s.max_turns_per_round > 0 and s.turns >= s.max_turns_per_round:
        _void_round(s)
        return True
    s.current = (s.current + 1) % s.num_players
    _reset_turn(s)
    s.phase = PHASE_DRAW
    return False


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _void_round(s):
    """A round that stalled: nobody scores or moves up a class, even with a contract laid;
    the next round is dealt. A single-round match is truncated (cut short, as by a time
    limit: no winners, no outcome)."""
    s.round_points[:] = 0
    s.void_rounds += 1
    if s.single_round:
        s.truncated = True
        s.phase = PHASE_OVER
        return
    s.dealer = (s.dealer + 1) % s.num_players
    _start_round(s, np.int64(s.round) + 1)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _finish_round(s):
    """Someone's hand is empty: everyone adds the cards left in hand to their points;
    those who laid their contract advance one class. After the round in which someone
    completed class 10 (or the one round of ``single_round``), the match ends."""
    P = s.num_players
    s.turns += 1
    done = False
    for q in range(P):
        v = 0
        for c in range(NUM_FACES):
            v += classes_penalty(c) * np.int64(s.hands[q, c])
        s.round_points[q] = v
        s.scores[q] += v
        if s.laid[q] and s.level[q] == NUM_CLASSES:
            done = True
        if s.reward_mode == REWARD_ROUND:
            s.rewards[q] += (1.0 if s.laid[q] else 0.0) - v / 100.0
    if done or s.single_round:
        _finish_match(s)
        return
    for q in range(P):
        if s.laid[q]:
            s.level[q] += 1
    s.dealer = (s.dealer + 1) % P
    _start_round(s, np.int64(s.round) + 1)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _finish_match(s):
    """The winners: among the players who completed class 10 in the last round, the
    fewest points; a tie is shared. A single round: the fewest points of the round among
    those who laid their contract (the player who went out, who alone scores 0).
    Match reward: the winners share +1, the others -1."""
    P = s.num_players
    best = -1
    for q in range(P):
        pts = s.round_points[q] if s.single_round else s.scores[q]
        if s.laid[q] and (s.single_round or s.level[q] == NUM_CLASSES):
            if best < 0 or pts < best:
                best = pts
    k = 0
    for q in range(P):
        s.winners[q] = 0
        pts = s.round_points[q] if s.single_round else s.scores[q]
        if s.laid[q] and (s.single_round or s.level[q] == NUM_CLASSES) and pts == best:
            s.winners[q] = 1
            k += 1
    if s.reward_mode == REWARD_MATCH and k < P:
        for q in range(P):
            s.rewards[q] += 1.0 / k if s.winners[q] else -1.0 / (P - k)
    s.terminated = True
    s.phase = PHASE_OVER


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _after_lay(s, p):
    """After a card left the hand for the table: an empty hand ends the round."""
    if s.held[p] == 0:
        _finish_round(s)
        return True
    s.phase = PHASE_PLAY
    return False


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _start_build(s, kind, item):
    s.build_kind = kind
    s.item = item
    T.clear_build(s)
    s.phase = PHASE_BUILD


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _close(s, p):
    """Lay the meld being built; the contract's next meld follows, or the contract is laid."""
    rules = RULES_BY_SUIT[np.int64(s.run_same_suit)]
    m = T.lay_meld(rules, s, p, np.int64(s.build_kind), s.build_rep, s.build_phys, s.build_n)
    if s.build_kind == KIND_RUN and not s.run_same_suit:
        s.meld_key[m] = -1
    item = np.int64(s.item)
    T.clear_build(s)
    s.build_kind = 0
    s.item = -1
    if item >= 0:
        if item + 1 < _contract_rows(s, p):
            _start_build(s, np.int64(CONTRACTS[s.level[p] - 1, item + 1, 0]), item + 1)
            return False
        s.laid[p] = 1
    return _after_lay(s, p)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def apply_action(s, a, H, ext):
    """Apply a legal action of the player to move; returns True when a round ended. ``H``
    and ``ext`` are work arrays (the workspace's: the mask's calls of the table's
    functions take the same types, so they compile once)."""
    p = np.int64(s.current)
    if a == DRAW_STOCK:
        T.draw_stock(s, p)
        s.phase = PHASE_PLAY
        return False
    if a == TAKE_DISCARD:
        T.taken_in_sight(s, p, T.take_discard(s, p))
        s.phase = PHASE_PLAY
        return False
    if a < CONTRACT:
        T.discard_card(s, p, a - DISCARD0)
        T.left_in_sight(s, p, a - DISCARD0)
        if s.held[p] == 0:
            _finish_round(s)
            return True
        return _end_turn(s)
    if a == CONTRACT:
        _start_build(s, np.int64(CONTRACTS[s.level[p] - 1, 0, 0]), np.int64(0))
        return False
    if a == NEW_SET or a == NEW_RUN:
        _start_build(s, SET if a == NEW_SET else RUN, NONE)
        return False
    if a < ADD0:
        s.target = a - LAYOFF0
        s.phase = PHASE_LAYOFF
        return False
    if a < CLOSE:
        wild = a >= WILD0
        rep = a - WILD0 if wild else a - ADD0
        if wild:
            T.hand_of(s, p, H)
            phys = _take_wild(H)
        else:
            phys = rep
        T.remove_card(s, p, phys)
        T.left_in_sight(s, p, phys)
        if s.phase == PHASE_BUILD:
            n = s.build_n
            s.build_rep[n] = rep
            s.build_phys[n] = phys
            s.build_n = n + 1
            return False
        m = np.int64(s.target)
        k = T.table_extensions(RULES_BY_SUIT[np.int64(s.run_same_suit)], s, m, ext)
        for i in range(k):
            if ext[i, 0] == rep:
                T.place(s, m, ext[i, 1], phys)
                break
        s.target = -1
        return _after_lay(s, p)
    return _close(s, p)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def penalise(s, offender):
    """An illegal action under ``illegal_action="penalty"``: the game ends, -1 to the offender."""
    s.rewards[offender] = -1.0
    s.terminated = True
    s.phase = PHASE_OVER


# --------------------------------------------------------------------------- observation
@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def observe(s, viewer, out):
    """What ``viewer`` sees: own hand, the discard pile, the table, the turn in progress,
    public seat data; never another hand or the stock."""
    # cleared in two halves: the whole (2,234 bytes) is past the 2 KiB from which glibc's
    # memset switches to ``rep stosb``, which cleared it about 30 ns slower when measured
    out[:_HALF_OBS] = 0
    out[_HALF_OBS:] = 0
    P = s.num_players
    rules = RULES_BY_SUIT[np.int64(s.run_same_suit)]
    for c in range(NUM_FACES):
        out[OBS_HAND + c] = s.hands[viewer, c]
    for i in range(s.pile_n):
        out[OBS_PILE + s.pile[i]] += 1
    if s.pile_n > 0:
        out[OBS_TOP + s.pile[s.pile_n - 1]] = 1
    T.observe_table(rules, s, viewer, out, OBS_MELDS, MELD_FEATURES, OBS_TABLE)
    for m in range(s.num_melds):  # and the run positions holding a 2
        if s.meld_kind[m] == KIND_RUN:
            bits = 0
            for q in range(s.meld_lo[m], s.meld_hi[m] + 1):
                c = s.meld_slot[m, q]
                if c >= 0 and M.is_wild(rules, np.int64(c)):
                    bits |= 1 << q
            out[OBS_MELDS + m * MELD_FEATURES + T.MELD_FEATURES] = bits
    if s.phase < PHASE_OVER:
        out[OBS_PHASE + s.phase] = 1
    for i in range(s.build_n):
        if not M.is_wild(rules, np.int64(s.build_phys[i])):
            out[OBS_BUILD + s.build_rep[i]] += 1
        else:
            out[OBS_BUILD_WILDS + s.build_rep[i]] += 1
            out[OBS_BUILD_INFO + 2] += 1
    out[OBS_BUILD_INFO] = s.build_kind == KIND_SET
    out[OBS_BUILD_INFO + 1] = s.build_kind == KIND_RUN
    if s.build_kind != 0:
        out[OBS_BUILD_INFO + 3] = s.item + 1
        out[OBS_BUILD_INFO + 4] = _meld_size(s, np.int64(s.current), np.int64(s.item))
    if s.target >= 0:
        out[OBS_TARGET + s.target] = 1
    for i in range(CONTRACT_ITEMS):
        out[OBS_CONTRACT + 2 * i] = CONTRACTS[s.level[viewer] - 1, i, 0]
        out[OBS_CONTRACT + 2 * i + 1] = CONTRACTS[s.level[viewer] - 1, i, 1]
    out[OBS_ROUND] = min(np.int64(s.round), OBS_MAX)
    out[OBS_ROUND + 1] = num_decks(s.num_players)
    out[OBS_ROUND + 2] = s.stock_n
    out[OBS_ROUND + 3] = s.pile_n
    out[OBS_ROUND + 4] = min(np.int64(s.turns), OBS_MAX)
    out[OBS_ROUND + 5] = s.run_same_suit
    out[OBS_ROUND + 6] = s.same_rank_sets
    live = s.phase != PHASE_OVER
    q = np.int64(viewer)
    for j in range(P):
        o = OBS_SEATS + j * SEAT_FEATURES
        out[o] = 1
        out[o + 1] = s.held[q]
        out[o + 2] = s.level[q]
        out[o + 3] = s.laid[q]
        out[o + 4] = min(np.int64(s.scores[q]), OBS_MAX)
        out[o + 5] = live and q == s.current
        out[o + 6] = q == s.dealer
        out[o + 7] = min(np.int64(s.round_points[q]), OBS_MAX)
        q += 1
        if q == P:
            q = 0
    for m in range(s.num_melds):  # melds laid, per seat: one pass over the table
        rel = np.int64(s.meld_owner[m]) - np.int64(viewer)
        if rel < 0:
            rel += P
        out[OBS_SEATS + rel * SEAT_FEATURES + 8] += 1


# --------------------------------------------------------------------------- unseen cards
UNSEEN_KEYS = MAX_CARDS + 1  # random keys per game that deal_unseen_batch may use


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _had_a_turn(s, q):
    """Has q ended a turn in this round? (The round's first turn is the dealer's left's.)"""
    return np.int64(s.turns) > (q - np.int64(s.dealer) - 1) % np.int64(s.num_players)


@njit(cache=True, no_cfunc_wrapper=True)
def deal_unseen_batch(states, seats, keys, keep_hands):
    """Deal anew, in game i, the cards seat ``seats[i]`` cannot see: the stock and the
    other hands, but the cards known to be in them (``known``: taken from the discard pile
    and not seen to leave). Every hand and the stock keep their sizes, the discard pile
    and the table stay; ``keys[i]`` (uniform in [0, 1), UNSEEN_KEYS of them) drive the
    shuffle. ``keep_hands`` deals the stock alone. The caller refreshes the states
    (``refresh_batch``). Returns a flag per game, False for a deal that breaks what the
    table saw: with ``contract_when_able``, a player who ended a turn of this round
    without laying its contract did not hold it, nor does it now (its hand has not
    changed since; the player to move, once it has drawn, is not checked: which card it
    drew is not seen). The caller deals again."""
    n = states.shape[0]
    ok = np.ones(n, dtype=np.bool_)
    known = np.zeros((MAX_PLAYERS, NUM_TYPES), dtype=np.int64)
    work = np.zeros(1, dtype=WORKSPACE_DTYPE)
    H = work[0].H
    rows = work[0].rows
    for i in range(n):
        s = states[i]
        if s.phase == PHASE_OVER:
            continue
        seat = seats[i]
        T.redeal_unseen_known(s, seat, keep_hands, known, keys[i])
        if not s.contract_when_able or keep_hands:
            continue
        cur = np.int64(s.current)
        for q in range(s.num_players):
            if q == seat or s.laid[q] or not _had_a_turn(s, q) or (q == cur and s.phase != PHASE_DRAW):
                continue
            T.hand_of(s, q, H)
            if s.num_melds + _contract_rows(s, q) <= MAX_MELDS and _holds(s, q, H, TRUE, SET, rows):
                ok[i] = False
                break
    keep_alive(work)  # numba frees work after its last use: its record's arrays must not outlive it
    return ok


# --------------------------------------------------------------------------- the step driver's hooks
# The batch driver (cardenvs/core/step_driver.py, the same for every game: holds, resets,
# finished matches, penalties, forced moves, outputs) steps a batch of games around these,
# each called with the driver's parameters (used or not). The driver takes the rows of its
# outputs without reference counts ("borrow_outputs", core/borrow.py) and brings the next
# game's record (2.9 KB, read at scattered offsets) into the caches while it steps one
# ("prefetch"): about a tenth of a decision in a batch of 1,024.
DRIVER_OPTIONS = ("borrow_outputs", "prefetch")
refresh = T.recount  # ACT_REFRESH: a state loaded from outside gets its derived counts back


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def new_workspace():
    """The step's work arrays (WORKSPACE_DTYPE), one record reused by every game of a batch.
    The searches' ``rows`` (4.2 KB) are left as allocated: ``_finishable`` and ``_holds``
    set every row they hand to the contract search, and the search writes its stack
    depth by depth, before anything reads them (zeroing them cost a tenth of an AEC
    step's compiled work). The hand's counts and the extensions are zeroed."""
    owner = np.empty(1, dtype=WORKSPACE_DTYPE)
    ws = owner[0]
    ws.H[:] = 0
    ws.ext[:] = 0
    return owner


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def start_match(s, ws):
    """ACT_RESET, and a finished match restarted (MODE_AUTO_RESET)."""
    new_match(s)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def apply_legal_action(s, a, ws):
    """Apply the action (``ws.H``, ``ws.ext``: work arrays); True when a round ended."""
    return apply_action(s, a, ws.H, ws.ext)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def legal_mask(s, ws, trusted):
    """The legal actions of the player to move, into ``s.legal``."""
    _mask(s, ws.H, ws.rows, ws.ext)


# The batch step: core's one driver, bound to the hooks above.
step_batch, step_batch_parallel, observe_batch, mask_batch, reset_batch, refresh_batch = bind(sys.modules[__name__])
