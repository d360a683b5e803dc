"""Frime: the rules as numba kernels over a record per game.

Reads like the rule book (``docs/games/frime.md`` gives the rules in full): state layout,
deal, legal actions, apply an action, the end of a round and of the match, observation,
then the hooks of the batch step (core/step_driver.py binds the game's driver to them). The table, the
deal and the draw/discard mechanics are the rummy layer's (:mod:`cardenvs.rummy.table`);
whether a hand can be laid entirely is :func:`cardenvs.rummy.split.split_all`.

A turn is draw (stock top, discard top, or buy the card under the discard top), then one
discard. Then, while nobody has gone out this round, a player whose every card left
splits into melds may go out: the cards are laid as melds of the player's choice, built
card by card (a run from its lowest position up, a set by suit then its frimes). Once
somebody is out, each other player has one last turn: draw, discard, then lay melds of
their own and add cards to the first player's melds, as they like. The masks are exact:
a step is legal only when what it starts can be finished (a going out laying every
card, a meld reaching three cards).
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from cardenvs.core.borrow import keep_alive
from cardenvs.core.cards import JOKER
from cardenvs.core.protocol import EVENT_REWARD
from cardenvs.core.rng import rand_below
from cardenvs.core.step_driver import bind
from cardenvs.rummy import melds as M
from cardenvs.rummy import table as T
from cardenvs.rummy.melds import ACE_HIGH, KIND_RUN, KIND_SET, card_at, frime_penalty
from cardenvs.rummy.split import SPLIT_DTYPE, split_all

# --------------------------------------------------------------------------- layout
MAX_PLAYERS = 6
NUM_FACES = 52
NUM_TYPES = 53
MAX_CARDS = 108  # two decks with their jokers
MAX_MELDS = 36  # 108 cards make at most 36 melds
SLOTS = 20  # a set holds at most 8 naturals and 12 frimes; a run at most 12 positions (3 .. A)
NUM_ROUNDS = 11  # round r deals r + 2 cards: 3 .. 13
DOUBLED_FROM = 8  # rounds 8..11 (10 to 13 cards) count double and cost double to buy in
RULES = M.rules_frime()
LOW_POS = 2  # runs go from the 3 (position 2) to the ace (position 13)
NONE = np.int64(-1)
# Plain constants for calls between kernels: a literal argument (True, KIND_RUN) makes numba
# compile the callee once more per value (see cardenvs.rummy.melds.TRUE)
TRUE = M.TRUE
FALSE = M.FALSE
RUN = np.int64(KIND_RUN)
SET = np.int64(KIND_SET)
START_MONEY = 500  # cents
ANTE = 50
BUY_PRICE = 10  # 20 in doubled rounds
FLOCON_CENTS = 10  # settlement: per flocon of difference
POINT_CENTS = 1  # ... and per point of difference

# Action encoding (see docs/games/frime.md)
DRAW_STOCK = 0  # draw the top of the stock
TAKE_DISCARD = 1  # take the top of the discard pile
BUY = 2  # buy the card under the discard top (the top stays)
DISCARD0 = 3  # DISCARD0 + c: discard card c (0..52)
GO_OUT = DISCARD0 + NUM_TYPES  # lay the whole hand as melds
END_TURN = GO_OUT + 1  # end the turn here (not going out; or done laying in a last turn)
NEW_SET = END_TURN + 1  # start building a set
NEW_RUN = NEW_SET + 1  # start building a run
LAYOFF0 = NEW_RUN + 1  # LAYOFF0 + m: add a card to table meld m (the card comes next)
ADD0 = LAYOFF0 + MAX_MELDS  # ADD0 + c: the natural card c
FRIME0 = ADD0 + NUM_FACES  # FRIME0 + c: a frime standing for c (in a set: c = rank * 4, clubs)
CLOSE = FRIME0 + NUM_FACES  # lay the meld being built
NUM_ACTIONS = CLOSE + 1  # 201

# Phases
PHASE_DRAW = 0
PHASE_DISCARD = 1
PHASE_CHOOSE = 2  # the hand splits into melds: go out, or end the turn
PHASE_LAY = 3  # going out, or a last turn: new melds (and lay-offs in a last turn)
PHASE_BUILD = 4  # a meld is being built
PHASE_LAYOFF = 5  # a table meld was picked: the card comes next
PHASE_OVER = 6
PHASE_NAMES = ("draw", "discard", "choose", "lay", "build", "layoff", "over")

REWARD_MATCH = 0
REWARD_ROUND = 1
REWARD_MODES = ("match", "round")

STATE_DTYPE = np.dtype(
    [
        ("rng", np.uint64),
        # options
        ("num_players", np.int8),
        ("first_round", np.int8),
        ("single_round", np.bool_),
        ("reward_mode", np.int8),
        ("max_steps", np.int32),
        ("max_turns_per_round", np.int32),
        # match
        ("scores", np.int32, (MAX_PLAYERS,)),  # points totals
        ("flocons", np.int16, (MAX_PLAYERS,)),
        ("money", np.int32, (MAX_PLAYERS,)),  # cents
        ("pot", np.int32),
        ("round", np.int8),
        ("dealer", np.int8),
        ("num_steps", np.int32),
        ("turns", np.int32),  # turns completed in this round
        ("terminated", np.bool_),
        ("truncated", np.bool_),
        ("rewards", np.float32, (MAX_PLAYERS,)),
        ("round_points", np.int32, (MAX_PLAYERS,)),  # points of the last finished round
        ("void_rounds", np.int8),  # rounds of this match that ended void
        # round
        *T.table_fields(MAX_PLAYERS, MAX_CARDS, MAX_MELDS, SLOTS),
        T.known_field(MAX_PLAYERS),  # cards seen to go into a hand and not seen to leave it
        # the player's last turn ended straight after its discard (no "choose"): the table saw
        # that its hand could not be laid out; cleared at its next draw
        ("no_split", np.uint8, (MAX_PLAYERS,)),
        ("out_player", np.int8),  # the first player out this round, -1
        ("last_turns", np.int8),  # last turns still to play after the going out
        # turn
        ("phase", np.int8),
        ("current", np.int8),
        ("going_out", np.bool_),  # the player to move is laying the whole hand
        ("build_kind", np.int8),  # KIND_SET, KIND_RUN, 0
        ("build_rep", np.int8, (SLOTS,)),
        ("build_phys", np.int8, (SLOTS,)),
        ("build_n", np.int8),
        ("target", np.int8),
        # derived
        ("held", np.uint8, (MAX_PLAYERS,)),
        ("legal", np.uint8, (NUM_ACTIONS,)),
    ]
)

# Observation layout, seen from the observer's seat (seat 0 = the observer); money, the
# pot and the price of a buy in cents.
# Every entry is a count, a flag, a position, points or cents, so it is stored exactly as
# int16: half the bytes of float32 (writing the observation was half a step's cost).
# Values saturate at +-OBS_MAX (money at -327.67 dollars: far past any real match).
OBS_DTYPE = np.int16
OBS_MAX = 32767
OBS_HAND = 0  # 53: own cards
OBS_TOP = OBS_HAND + NUM_TYPES  # 53: one-hot top of the discard pile
OBS_UNDER = OBS_TOP + NUM_TYPES  # 53: one-hot card under it (the one to buy)
OBS_PILE = OBS_UNDER + NUM_TYPES  # 53: cards in the discard pile
OBS_TABLE = OBS_PILE + NUM_TYPES  # 53: cards on the table
OBS_MELDS = OBS_TABLE + NUM_TYPES  # MAX_MELDS x MELD_FEATURES
# per meld: the layer's 12 (set, run, key, lo, hi, cards, owner, frimes, a set's naturals per
# suit) and the run positions that hold a frime (bit p for position p)
MELD_FEATURES = T.MELD_FEATURES + 1
OBS_PHASE = OBS_MELDS + MAX_MELDS * MELD_FEATURES  # 6: draw .. layoff
OBS_BUILD = OBS_PHASE + 6  # 52: natural cards of the meld being built
OBS_BUILD_FRIMES = OBS_BUILD + NUM_FACES  # 52: the cards its frimes stand for (a set's: its rank, clubs)
OBS_BUILD_INFO = OBS_BUILD_FRIMES + NUM_FACES  # set, run, frimes in it, going out
OBS_TARGET = OBS_BUILD_INFO + 4  # 36: one-hot table meld picked for a lay-off
OBS_ROUND = OBS_TARGET + MAX_MELDS  # round, cards dealt, doubled, pot, buy price, stock, pile, turns, someone out
OBS_SEATS = OBS_ROUND + 9
SEAT_FEATURES = 10  # present, held, money, flocons, score, out first, last turn to come, to move, dealer, last round
OBS_SIZE = OBS_SEATS + MAX_PLAYERS * SEAT_FEATURES


# The step's work arrays, one record per batch call (the step driver owns it: new_workspace): the split
# search's (cardenvs.rummy.split.SPLIT_DTYPE), a hand's counts, the meld search's stack
# and a meld's extensions. The mask and search kernels take it as one pointer and
# allocate nothing, so they compile without numba's reference counting (``_nrt=False``):
# the counts of the arrays they passed around, and the allocations in every split
# search, were about a third of a step.
WORKSPACE_DTYPE = np.dtype(
    [
        ("split", SPLIT_DTYPE),
        ("H", np.int64, (NUM_TYPES,)),  # a hand's counts, changed freely by the searches
        ("took", np.int64, (32,)),  # _next_ok: the card taken at each depth
        ("choice", np.int64, (32,)),  # _next_ok: the next choice at each depth
        ("ext", np.int64, (16, 2)),  # (card, slot) extensions of a table meld
    ]
)


# --------------------------------------------------------------------------- rounds
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def cards_dealt(rnd):
    return np.int64(rnd) + 2


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def doubled(rnd):
    return rnd >= DOUBLED_FROM


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def _reset_turn(s):
    s.going_out = False
    s.build_kind = 0
    s.target = -1
    T.clear_build(s)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _start_round(s, rnd):
    """Deal round ``rnd`` (rnd + 2 cards each, one turned up, the rest the stock); the
    player left of the dealer moves first."""
    s.round = rnd
    skip = np.zeros(MAX_PLAYERS, dtype=np.uint8)
    T.deal(s, np.int64(2), np.int64(2), cards_dealt(rnd), s.dealer, s.num_players, skip)
    s.known[:] = 0
    s.no_split[:] = 0
    s.out_player = -1
    s.last_turns = 0
    s.turns = 0
    _reset_turn(s)
    s.phase = PHASE_DRAW
    s.current = (s.dealer + 1) % s.num_players


@njit(cache=True, no_cfunc_wrapper=True)
def new_match(s):
    """Every player starts with 500 cents and pays 50 into the pot; round 1 (or
    ``first_round``) is dealt by a dealer drawn at random."""
    P = s.num_players
    s.scores[:] = 0
    s.flocons[:] = 0
    s.money[:] = 0
    s.round_points[:] = 0
    s.void_rounds = 0
    for p in range(P):
        s.money[p] = START_MONEY - ANTE
    s.pot = ANTE * P
    s.num_steps = 0
    s.terminated = False
    s.truncated = False
    s.rewards[:] = 0.0
    s.dealer = rand_below(s, np.int64(P))
    _start_round(s, np.int64(s.first_round))


# --------------------------------------------------------------------------- can a meld be finished?
# A meld under construction is extended in canonical order: a run position by position
# upwards (the natural card there or a frime), a set by its naturals in suit order, then
# frimes. ``need_all``: the cards left after the meld must split into melds too (going
# out); otherwise the meld only has to reach three cards (a last turn).
#
# Compile time shapes these functions (see docs/adding-a-game.md, "Keeping the cold
# compile short"): every compiled function that calls the split search, directly or
# not, compiles the search again inside itself. So the search is reached through few,
# wide functions (``_splits``, ``_next_ok`` for both meld kinds, ``_mask``) rather than a
# tower of small ones, and small helpers are inlined (``inline="always"``).
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def _wilds(H):
    return np.int64(H[JOKER]) + np.int64(H[4]) + np.int64(H[5]) + np.int64(H[6]) + np.int64(H[7])


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _splits(H, empty_ok, ws):
    """Can the cards H be laid entirely as melds? (No card left: ``empty_ok``.) The search
    checks cheap necessary conditions at each of its nodes first (most hands fail them: the
    search was once 97 % of a discard's cost)."""
    n = 0
    for c in range(NUM_TYPES):
        n += H[c]
    if n == 0:
        return empty_ok
    return split_all(RULES, H, ws.split)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def _take_wild(H):
    """Take one frime from the counts H (jokers first, then the 2s by suit); returns it."""
    if H[JOKER] > 0:
        H[JOKER] -= 1
        return JOKER
    for c in range(4, 8):
        if H[c] > 0:
            H[c] -= 1
            return c
    return -1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def _build_state(s):
    """(key, next suit or position, frimes started) of the meld being built."""
    n = s.build_n
    if n == 0:
        return -1, -1, False
    if s.build_kind == KIND_RUN:
        c0 = np.int64(s.build_rep[0])
        return c0 % 4, T.run_pos(RULES, c0, FALSE) + n, False
    frimes = M.is_wild(RULES, np.int64(s.build_phys[n - 1]))
    return np.int64(s.build_rep[0]) // 4, np.int64(s.build_rep[n - 1]) % 4, frimes


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _next_ok(s, kind, rep, wild, ws):
    """With the card rep (a frime standing for it when ``wild``) added to the meld of
    ``kind`` being built (taken out of the hand's counts ``ws.H``), can the meld still be
    finished? A run goes on at each position up from rep's (the natural card there, or a
    frime); a set takes naturals of rep's rank in the suits from rep's on (none once it
    holds a frime), then frimes. Depth-first with an explicit stack: numba's cache cannot
    reload a recursive function (a cached recursive kernel crashed on its next load)."""
    H = ws.H
    need_all = s.going_out
    n = np.int64(s.build_n) + 1  # the meld's cards, rep included
    if wild:
        w = _take_wild(H)
        if w < 0:
            return False
    else:
        if H[rep] == 0:
            return False
        H[rep] -= 1
        w = np.int64(rep)
    ok = n >= 3 and (not need_all or _splits(H, TRUE, ws))
    if not ok:
        # the choice at depth d: a run's 0 (the natural at position pos + d) or 1 (a
        # frime); a set's 0..3 (a natural of that suit, suits in order) or 4 (a frime,
        # and only frimes after it)
        run = kind == KIND_RUN
        suit = rep % 4
        pos = T.run_pos(RULES, np.int64(rep), FALSE) + 1
        rank = rep // 4
        took = ws.took
        choice = ws.choice
        choice[0] = 0 if run else (4 if wild else suit)
        d = 0
        while d >= 0:
            ch = choice[d]
            if (ch > 1 or pos + d > ACE_HIGH) if run else (ch > 4 or d >= 31):
                d -= 1
                if d >= 0:
                    H[took[d]] += 1
                continue
            choice[d] += 1
            natural = ch == 0 if run else ch < 4
            if natural:
                c = card_at(suit, pos + d) if run else rank * 4 + ch
                if H[c] == 0:
                    continue
                H[c] -= 1
                took[d] = c
            else:
                got = _take_wild(H)
                if got < 0:
                    continue
                took[d] = got
            if n + d + 1 >= 3 and (not need_all or _splits(H, TRUE, ws)):
                for i in range(d + 1):
                    H[took[i]] += 1
                ok = True
                break
            d += 1
            choice[d] = 0 if run else ch
    H[w] += 1
    return ok


# --------------------------------------------------------------------------- legal actions
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _layoff_cards(s, p, m, ext, write):
    """Cards of p that extend table meld m (written to the mask when ``write``); returns
    how many."""
    n = T.table_extensions(RULES, s, m, ext)
    found = 0
    wild_done = False
    wilds = _wilds(s.hands[p])
    for i in range(n):
        c = ext[i, 0]
        if s.hands[p, c] > 0:
            found += 1
            if write:
                s.legal[ADD0 + c] = 1
        if wilds > 0 and not wild_done:
            rep = c if s.meld_kind[m] == KIND_RUN else (c // 4) * 4
            if s.meld_kind[m] == KIND_SET:
                wild_done = True  # a frime in a set stands for the rank: one action
            found += 1
            if write:
                s.legal[FRIME0 + rep] = 1
    return found


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _mask(s, ws):
    """The legal actions of the player to move, into ``s.legal``. Returns how many there
    are in the lay phase (apply_action ends a last turn whose only one is END_TURN), 0 in
    the other phases. The hand's counts go to ``ws.H`` for the searches."""
    H = ws.H
    for k in range(NUM_ACTIONS):
        s.legal[k] = 0
    n = 0
    if s.phase == PHASE_OVER:
        return n
    p = np.int64(s.current)
    if s.phase == PHASE_DRAW:
        if s.stock_n > 0 or s.pile_n >= 2:
            s.legal[DRAW_STOCK] = 1
        if s.pile_n >= 1:
            s.legal[TAKE_DISCARD] = 1
        if s.pile_n >= 2:
            s.legal[BUY] = 1
    elif s.phase == PHASE_DISCARD:
        for c in range(NUM_TYPES):
            s.legal[DISCARD0 + c] = s.hands[p, c] != 0
    elif s.phase == PHASE_CHOOSE:
        s.legal[GO_OUT] = 1
        s.legal[END_TURN] = 1
    elif s.phase == PHASE_LAY:
        # new melds (and, in a last turn, lay-offs on the first player's melds and END_TURN)
        T.hand_of(s, p, H)
        if s.num_melds < MAX_MELDS:
            run_ok = False
            set_ok = False
            for c in range(NUM_FACES):
                r = c // 4
                if r == 1 or run_ok and set_ok:
                    continue
                # a run from c (a natural or a frime there)
                if not run_ok and r != 0 and (_next_ok(s, RUN, np.int64(c), FALSE, ws)
                                              or _next_ok(s, RUN, np.int64(c), TRUE, ws)):
                    run_ok = True
                # a set of c's rank, started by a natural of it (its lowest suit first) or a frime
                if not set_ok and c % 4 == 0:
                    for t in range(4):
                        if not set_ok and H[r * 4 + t] > 0 and _next_ok(s, SET, np.int64(r * 4 + t), FALSE, ws):
                            set_ok = True
                    if not set_ok and _next_ok(s, SET, np.int64(c), TRUE, ws):
                        set_ok = True
            s.legal[NEW_RUN] = run_ok
            s.legal[NEW_SET] = set_ok
            n += np.int64(run_ok) + np.int64(set_ok)
        if not s.going_out:
            s.legal[END_TURN] = 1
            n += 1
            ext = ws.ext
            for m in range(s.num_melds):
                if s.meld_owner[m] == s.out_player and _layoff_cards(s, p, np.int64(m), ext, FALSE) > 0:
                    s.legal[LAYOFF0 + m] = 1
                    n += 1
    elif s.phase == PHASE_BUILD:
        # the cards that may come next in the meld being built, and closing it
        T.hand_of(s, p, H)
        kind = np.int64(s.build_kind)
        n = np.int64(s.build_n)
        key, nxt, frimes = _build_state(s)
        if kind == KIND_RUN:
            if n == 0:
                for c in range(NUM_FACES):
                    if c // 4 == 0 or c // 4 == 1:
                        continue  # a run starts at the 3 .. the queen (the ace is only high)
                    if _next_ok(s, kind, np.int64(c), FALSE, ws):
                        s.legal[ADD0 + c] = 1
                    if _next_ok(s, kind, np.int64(c), TRUE, ws):
                        s.legal[FRIME0 + c] = 1
            elif nxt <= ACE_HIGH:
                c = card_at(key, nxt)
                if _next_ok(s, kind, c, FALSE, ws):
                    s.legal[ADD0 + c] = 1
                if _next_ok(s, kind, c, TRUE, ws):
                    s.legal[FRIME0 + c] = 1
        else:
            if n == 0:
                for c in range(NUM_FACES):
                    if c // 4 == 1:
                        continue
                    if _next_ok(s, kind, np.int64(c), FALSE, ws):
                        s.legal[ADD0 + c] = 1
                    if c % 4 == 0 and _next_ok(s, kind, np.int64(c), TRUE, ws):
                        s.legal[FRIME0 + c] = 1
            else:
                if not frimes:
                    for t in range(nxt, 4):
                        c = key * 4 + t
                        if _next_ok(s, kind, c, FALSE, ws):
                            s.legal[ADD0 + c] = 1
                if _next_ok(s, kind, key * 4, TRUE, ws):
                    s.legal[FRIME0 + key * 4] = 1
        if n >= 3 and (not s.going_out or _splits(H, TRUE, ws)):
            s.legal[CLOSE] = 1
    elif s.phase == PHASE_LAYOFF:
        _layoff_cards(s, p, np.int64(s.target), ws.ext, TRUE)
    return n


# --------------------------------------------------------------------------- apply an action
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def _buy_price(s):
    return BUY_PRICE * (2 if doubled(s.round) else 1)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=True)
def _end_turn(s):
    """The turn of the player to move ends: the next player's turn, a last turn, or the
    end of the round. Returns True when a round ended. (It allocates when a round ends,
    so it keeps numba's reference counting, ``_nrt=True``, said explicitly: a callee
    takes the option of its caller otherwise, and apply_action has none.)"""
    p = np.int64(s.current)
    s.turns += 1
    if s.out_player >= 0 and p != s.out_player:
        s.last_turns -= 1
    if s.out_player >= 0 and s.last_turns <= 0:
        _finish_round(s)
        return True
    if s.out_player < 0 and s.max_turns_per_round > 0 and s.turns >= s.max_turns_per_round:
        _void_round(s)  # a stalled round (once somebody is out, it ends within a lap anyway)
        return True
    s.current = (p + 1) % s.num_players
    _reset_turn(s)
    s.phase = PHASE_DRAW
    return False


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def _settle_round(s, pts, flocons):
    """Round rewards: the pairwise settlement of this round's flocons and points."""
    P = s.num_players
    fsum = 0
    psum = 0
    for q in range(P):
        fsum += flocons[q]
        psum += pts[q]
    for q in range(P):
        cents = FLOCON_CENTS * (P * flocons[q] - fsum) + POINT_CENTS * (psum - P * pts[q])
        s.rewards[q] += cents / 100.0


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def _finish_round(s):
    """Score the round: every hand's points (doubled in rounds of 10-13 cards); then the
    next round or the end of the match."""
    P = s.num_players
    mult = 2 if doubled(s.round) else 1
    pts = np.zeros(MAX_PLAYERS, dtype=np.int64)
    fl = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for q in range(P):
        v = 0
        for c in range(NUM_TYPES):
            v += frime_penalty(c) * np.int64(s.hands[q, c])
        pts[q] = v * mult
        s.round_points[q] = pts[q]
        s.scores[q] += pts[q]
    if s.out_player >= 0:
        fl[s.out_player] = mult  # earned when going out (see _close)
    if s.reward_mode == REWARD_ROUND:
        _settle_round(s, pts, fl)
    _next_round(s)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def _void_round(s):
    """A round that stalled: nobody scores (the buys made in it stay paid); the next
    round is dealt, or the match ends after the last one. A single-round match is
    truncated."""
    s.round_points[:] = 0
    s.void_rounds += 1
    if s.single_round:  # the round is the match: cut short, as by a time limit (then paid out)
        s.truncated = True
        s.phase = PHASE_OVER
        return
    _next_round(s)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def _next_round(s):
    """The dealer moves left and deals the next round; after round 11 (or the one round
    of ``single_round``) the match ends."""
    if s.single_round or s.round >= NUM_ROUNDS:
        _finish_match(s)
        return
    s.dealer = (s.dealer + 1) % s.num_players
    _start_round(s, np.int64(s.round) + 1)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _pay_out(s):
    """Pairwise settlement, then the pot to the lowest score (more flocons break a tie;
    still tied, shared, an indivisible cent going in seat order from seat 0). Also run
    on the totals so far when a match is truncated, so that every match ends paid out."""
    P = s.num_players
    fsum = 0
    psum = 0
    for q in range(P):
        fsum += np.int64(s.flocons[q])
        psum += np.int64(s.scores[q])
    settle = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for q in range(P):
        settle[q] = (FLOCON_CENTS * (P * np.int64(s.flocons[q]) - fsum)
                     + POINT_CENTS * (psum - P * np.int64(s.scores[q])))
    best = 0
    for q in range(1, P):
        if s.scores[q] < s.scores[best] or (s.scores[q] == s.scores[best] and s.flocons[q] > s.flocons[best]):
            best = q
    k = 0
    for q in range(P):
        if s.scores[q] == s.scores[best] and s.flocons[q] == s.flocons[best]:
            k += 1
    share = np.int64(s.pot) // k
    extra = np.int64(s.pot) - share * k
    pot_share = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for q in range(P):
        if s.scores[q] == s.scores[best] and s.flocons[q] == s.flocons[best]:
            pot_share[q] = share
            if extra > 0:
                pot_share[q] += 1
                extra -= 1
    s.pot = 0
    for q in range(P):
        s.money[q] += settle[q] + pot_share[q]
        if s.reward_mode == REWARD_MATCH:
            s.rewards[q] += (s.money[q] - START_MONEY) / 100.0
        else:  # the rounds paid the settlement and the buys: the ante and the pot remain
            s.rewards[q] += (pot_share[q] - ANTE) / 100.0


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def _pay_out_truncated(s):
    """A truncated match is paid out on its finished rounds: the unfinished round scores
    nothing (the flocon of its going out is withdrawn)."""
    if s.out_player >= 0:
        s.flocons[s.out_player] -= 2 if doubled(s.round) else 1
        s.out_player = -1
    _pay_out(s)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def _finish_match(s):
    _pay_out(s)
    s.terminated = True
    s.phase = PHASE_OVER


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def _close(s, p):
    """Lay the meld being built; a going out that laid the last card is complete."""
    T.lay_meld(RULES, s, p, np.int64(s.build_kind), s.build_rep, s.build_phys, s.build_n)
    T.clear_build(s)
    s.build_kind = 0
    s.phase = PHASE_LAY
    if s.going_out and s.held[p] == 0:
        s.out_player = p
        s.flocons[p] += 2 if doubled(s.round) else 1
        s.last_turns = s.num_players - 1
        s.going_out = False
        return _end_turn(s)
    return False


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def apply_action(s, a, ws):
    """Apply a legal action of the player to move; returns True when a round ended. A
    last turn ends at once when ending it is the only legal action left (``_mask`` <= 1)."""
    H = ws.H
    p = np.int64(s.current)
    if a <= BUY:
        s.no_split[p] = 0  # a new hand: what the table saw of the last one is past
    if a == DRAW_STOCK:
        T.draw_stock(s, p)
        s.phase = PHASE_DISCARD
        return False
    if a == TAKE_DISCARD:
        T.taken_in_sight(s, p, T.take_discard(s, p))
        s.phase = PHASE_DISCARD
        return False
    if a == BUY:
        price = _buy_price(s)
        T.taken_in_sight(s, p, T.buy_under_top(s, p))
        s.money[p] -= price
        s.pot += price
        if s.reward_mode == REWARD_ROUND:
            s.rewards[p] -= price / 100.0
        s.phase = PHASE_DISCARD
        return False
    if a < GO_OUT:
        T.discard_card(s, p, a - DISCARD0)
        T.left_in_sight(s, p, a - DISCARD0)
        if s.out_player < 0:
            T.hand_of(s, p, H)
            if _splits(H, FALSE, ws):
                s.phase = PHASE_CHOOSE
                return False
            s.no_split[p] = 1
            return _end_turn(s)
        s.phase = PHASE_LAY
        if _mask(s, ws) <= 1:
            return _end_turn(s)
        return False
    if a == GO_OUT:
        s.going_out = True
        s.phase = PHASE_LAY
        return False
    if a == END_TURN:
        return _end_turn(s)
    if a == NEW_SET or a == NEW_RUN:
        s.build_kind = KIND_SET if a == NEW_SET else KIND_RUN
        T.clear_build(s)
        s.phase = PHASE_BUILD
        return False
    if a < ADD0:
        s.target = a - LAYOFF0
        s.phase = PHASE_LAYOFF
        return False
    if a < CLOSE:
        wild = a >= FRIME0
        rep = a - FRIME0 if wild else a - ADD0
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
        ext = ws.ext
        k = T.table_extensions(RULES, s, m, ext)
        for i in range(k):
            if ext[i, 0] == rep or (s.meld_kind[m] == KIND_SET and wild):
                T.place(s, m, ext[i, 1], phys)
                break
        s.target = -1
        s.phase = PHASE_LAY
        if s.held[p] == 0 or _mask(s, ws) <= 1:
            return _end_turn(s)
        return False
    # CLOSE
    ended = _close(s, p)
    if not ended and s.phase == PHASE_LAY and not s.going_out and (s.held[p] == 0 or _mask(s, ws) <= 1):
        return _end_turn(s)
    return ended


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def penalise(s, offender):
    """An illegal action under ``illegal_action="penalty"``: the game ends, -1 to the offender."""
    s.rewards[offender] = -1.0
    s.terminated = True
    s.phase = PHASE_OVER


# --------------------------------------------------------------------------- observation
@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def observe(s, viewer, out):
    """What ``viewer`` sees: own hand, the discard pile (its top and the card to buy),
    the table, the turn in progress, public seat data; never another hand or the stock."""
    out[:] = 0
    P = s.num_players
    for c in range(NUM_TYPES):
        out[OBS_HAND + c] = s.hands[viewer, c]
    for i in range(s.pile_n):
        out[OBS_PILE + s.pile[i]] += 1
    if s.pile_n > 0:
        out[OBS_TOP + s.pile[s.pile_n - 1]] = 1
    if s.pile_n > 1:
        out[OBS_UNDER + s.pile[s.pile_n - 2]] = 1
    T.observe_table(RULES, s, viewer, out, OBS_MELDS, MELD_FEATURES, OBS_TABLE)
    for m in range(s.num_melds):  # and the run positions holding a frime
        if s.meld_kind[m] == KIND_RUN:
            bits = 0
            for q in range(s.meld_lo[m], s.meld_hi[m] + 1):
                c = s.meld_slot[m, q]
                if c >= 0 and M.is_wild(RULES, np.int64(c)):
                    bits |= 1 << q
            out[OBS_MELDS + m * MELD_FEATURES + T.MELD_FEATURES] = bits
    if s.phase < PHASE_OVER:
        out[OBS_PHASE + s.phase] = 1
    for i in range(s.build_n):
        if not M.is_wild(RULES, np.int64(s.build_phys[i])):
            out[OBS_BUILD + s.build_rep[i]] += 1
        else:
            out[OBS_BUILD_FRIMES + s.build_rep[i]] += 1
            out[OBS_BUILD_INFO + 2] += 1
    out[OBS_BUILD_INFO] = s.build_kind == KIND_SET
    out[OBS_BUILD_INFO + 1] = s.build_kind == KIND_RUN
    out[OBS_BUILD_INFO + 3] = s.going_out
    if s.target >= 0:
        out[OBS_TARGET + s.target] = 1
    out[OBS_ROUND] = s.round
    out[OBS_ROUND + 1] = cards_dealt(np.int64(s.round))
    out[OBS_ROUND + 2] = doubled(s.round)
    out[OBS_ROUND + 3] = min(np.int64(s.pot), OBS_MAX)
    out[OBS_ROUND + 4] = _buy_price(s)
    out[OBS_ROUND + 5] = s.stock_n
    out[OBS_ROUND + 6] = s.pile_n
    out[OBS_ROUND + 7] = min(np.int64(s.turns), OBS_MAX)
    out[OBS_ROUND + 8] = s.out_player >= 0
    live = s.phase != PHASE_OVER
    q = np.int64(viewer)
    for j in range(P):
        o = OBS_SEATS + j * SEAT_FEATURES
        out[o] = 1
        out[o + 1] = s.held[q]
        out[o + 2] = max(-OBS_MAX, min(np.int64(s.money[q]), OBS_MAX))
        out[o + 3] = s.flocons[q]
        out[o + 4] = min(np.int64(s.scores[q]), OBS_MAX)
        out[o + 5] = q == s.out_player
        out[o + 6] = _has_last_turn(s, q)
        out[o + 7] = live and q == s.current
        out[o + 8] = q == s.dealer
        out[o + 9] = min(np.int64(s.round_points[q]), OBS_MAX)
        q += 1
        if q == P:
            q = 0


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _has_last_turn(s, q):
    """Seat q still has its last turn to play (somebody is out; q is not, and comes
    within the last turns left, counted from the player to move)."""
    if s.out_player < 0 or q == s.out_player or s.phase == PHASE_OVER:
        return False
    P = np.int64(s.num_players)
    d = (np.int64(q) - np.int64(s.current)) % P
    return d < (np.int64(s.out_player) - np.int64(s.current)) % P


# --------------------------------------------------------------------------- unseen cards
UNSEEN_KEYS = MAX_CARDS + 1  # random keys per game that deal_unseen_batch may use


@njit(cache=True, no_cfunc_wrapper=True)
def deal_unseen_batch(states, seats, keys, keep_hands):
    """Deal anew, in game i, the cards seat ``seats[i]`` cannot see: the stock and the
    other hands, but the cards known to be in them (``known``: taken from the discard pile
    or bought, and not seen to leave). Every hand and the stock keep their sizes, the
    discard pile and the table stay; ``keys[i]`` (uniform in [0, 1), UNSEEN_KEYS of them)
    drive the shuffle. ``keep_hands`` deals the stock alone. The caller refreshes the
    states (``refresh_batch``). Returns a flag per game, False for a deal that breaks what
    the table saw (the caller deals again): a player to move deciding whether to go out
    ("choose") holds a hand that can be laid entirely; a player whose last turn ended
    straight after its discard (``no_split``) holds one that cannot."""
    n = states.shape[0]
    ok = np.ones(n, dtype=np.bool_)
    known = np.zeros((MAX_PLAYERS, NUM_TYPES), dtype=np.int64)
    work = np.zeros(1, dtype=WORKSPACE_DTYPE)
    ws = work[0]
    for i in range(n):
        s = states[i]
        if s.phase == PHASE_OVER:
            continue
        seat = seats[i]
        T.redeal_unseen_known(s, seat, keep_hands, known, keys[i])
        cur = np.int64(s.current)
        if s.phase == PHASE_CHOOSE and cur != seat:
            T.hand_of(s, cur, ws.H)
            ok[i] = _splits(ws.H, FALSE, ws)
        for q in range(s.num_players):
            if ok[i] and q != seat and s.no_split[q] and s.held[q] > 0:
                T.hand_of(s, q, ws.H)
                ok[i] = not _splits(ws.H, FALSE, ws)
    keep_alive(work)  # numba frees work after its last use: its record's arrays must not outlive it
    return ok


# --------------------------------------------------------------------------- the step driver's hooks
# The batch driver (cardenvs/core/step_driver.py, the same for every game: holds, resets,
# finished matches, penalties, forced moves, outputs) steps a batch of games around these,
# each called with the driver's parameters (used or not). The driver takes the rows of its
# outputs without reference counts ("borrow_outputs", core/borrow.py) and brings the next
# game's record (2.2 KB, read at scattered offsets) into the caches while it steps one
# ("prefetch"): about a tenth of a decision in a batch of 1,024.
DRIVER_OPTIONS = ("borrow_outputs", "prefetch")
refresh = T.recount  # ACT_REFRESH: a state loaded from outside gets its derived counts back
apply_legal_action = apply_action  # True when a round ended


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def start_match(s, ws):
    """ACT_RESET, and a finished match restarted (MODE_AUTO_RESET)."""
    new_match(s)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def legal_mask(s, ws, trusted):
    """The legal actions of the player to move, into ``s.legal``."""
    _mask(s, ws)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def new_workspace():
    """The step's work arrays (WORKSPACE_DTYPE), one record reused by every game of a batch.
    The split search's 17.8 KB are left as allocated: ``split_all`` writes each of its rows
    before it reads it (its stack level by level), and zeroing them was a fifth of an
    AEC step's compiled work. The small arrays are zeroed."""
    owner = np.empty(1, dtype=WORKSPACE_DTYPE)
    ws = owner[0]
    ws.H[:] = 0
    ws.took[:] = 0
    ws.choice[:] = 0
    ws.ext[:] = 0
    return owner


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def after_close(s, rewards_row):
    """A match cut short by ``max_steps`` is paid out all the same: the pay-out's rewards
    are added to the step's (``close_step`` has added the rest). Returns EVENT_REWARD
    when it gave any."""
    ev = 0
    if s.truncated and s.pot > 0:
        before = np.empty(MAX_PLAYERS, dtype=np.float32)  # rare: once in a truncated match
        for q in range(MAX_PLAYERS):
            before[q] = s.rewards[q]
        _pay_out_truncated(s)
        for q in range(s.num_players):
            rewards_row[q] += s.rewards[q] - before[q]
            if s.rewards[q] != before[q]:
                ev |= EVENT_REWARD
    return ev


# The batch step: core's one driver, bound to the hooks above.
step_batch, step_batch_parallel, observe_batch, mask_batch, reset_batch, refresh_batch = bind(sys.modules[__name__])
