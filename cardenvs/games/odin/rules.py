"""Odin: the rules as numba kernels over a record per game.

Reads like the rule book (the rules as ``docs/games/odin.md`` gives them): state
layout, deal, legal actions, apply an action, scoring, observation, the hooks of the
batch step (core/step_driver.py binds the game's driver to them). The player-facing page is
``docs/games/odin.md``.

A play is a set of cards, so one decision per play would need an action per legal
subset. Instead the player to move builds the play card by card: ``select c`` adds
card c to the selection (always in decreasing card id, one canonical order per
play), then ``play`` commits it, or ``take c`` commits it and keeps card c of the
covered play (when that play has several cards and the hand is not emptied). The
mask is exact: a select is legal only if the selection can still be completed to a
legal play, and a commit only when the selection is a legal play.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from cardenvs.core.bits import bit, bits_of, low_index, popcount
from cardenvs.core.cards import NUM_ODIN, ODIN_COLOURS, ODIN_VALUES
from cardenvs.core.rng import rand_below, shuffle, shuffled_pool
from cardenvs.core.step_driver import bind

# --------------------------------------------------------------------------- layout
MAX_PLAYERS = 6
NUM_COLOURS = len(ODIN_COLOURS)  # r o y g b p
NUM_VALUES = ODIN_VALUES  # 1..9
NUM_CARDS = NUM_ODIN  # 54, id = colour * 9 + value - 1
HAND_SIZE = 9
NO_CARD = NUM_CARDS  # sel_min when nothing is selected
VALUE_BITS = (1 << NUM_VALUES) - 1  # one colour's 9 cards in a hand bit mask

# Action encoding (see docs/games/odin.md):
PASS = 0  # pass (only with cards on the table and nothing selected)
PLAY = 1  # commit the selection (nothing to choose: a lead, a one-card table, or the hand is emptied)
SELECT0 = 2  # SELECT0 + c: add card c to the selection (c below every card already selected)
TAKE0 = SELECT0 + NUM_CARDS  # TAKE0 + c: commit the selection and keep card c of the covered play
NUM_ACTIONS = TAKE0 + NUM_CARDS  # 110

# Phases
PHASE_PLAY = 0  # the current player selects, commits or passes
PHASE_OVER = 1  # the match is over
PHASE_NAMES = ("play", "over")

REWARD_MATCH = 0  # zero-sum match outcome when the match ends
REWARD_ROUND = 1  # minus each round's points when the round ends
REWARD_MODES = ("match", "round")
TARGET_SCORES = (10, 15, 20, 30)

STATE_DTYPE = np.dtype(
    [
        ("rng", np.uint64),
        # options, copied from the template at every reset
        ("num_players", np.int8),
        ("two_player_colours", np.int8),
        ("target_score", np.int16),
        ("single_round", np.bool_),
        ("reward_mode", np.int8),
        ("max_steps", np.int32),
        # match
        ("scores", np.int16, (MAX_PLAYERS,)),
        ("round", np.int16),
        ("round_leader", np.int8),  # who led (leads) the first trick of this round
        ("num_steps", np.int32),
        ("terminated", np.bool_),
        ("truncated", np.bool_),
        ("rewards", np.float32, (MAX_PLAYERS,)),
        ("round_points", np.int16, (MAX_PLAYERS,)),  # points of the last finished round
        # round
        ("hands", np.uint8, (MAX_PLAYERS, NUM_CARDS)),  # without the cards being selected
        ("table", np.uint8, (NUM_CARDS,)),  # the play to beat (empty: the next play leads)
        ("selected", np.uint8, (NUM_CARDS,)),  # the current player's play being built
        ("discarded", np.uint8, (NUM_CARDS,)),  # out of the round, seen by everybody
        ("aside", np.uint8, (NUM_CARDS,)),  # not dealt, unseen
        ("known", np.uint8, (MAX_PLAYERS, NUM_CARDS)),  # taken from the table and still held (public)
        ("phase", np.int8),
        ("current", np.int8),
        ("last_player", np.int8),  # who made the table play, -1 when the table is empty
        # derived (kept in step for speed, recounted after a scenario load)
        ("colours", np.int8),  # colours in the deck: two_player_colours with 2 players, else 6
        ("held", np.uint8, (MAX_PLAYERS,)),
        # the card sets above as bit masks (bit c: card c)
        ("hand_bits", np.int64, (MAX_PLAYERS,)),
        ("known_bits", np.int64, (MAX_PLAYERS,)),
        ("table_bits", np.int64),
        ("sel_bits", np.int64),
        ("disc_bits", np.int64),
        ("table_count", np.int8),
        ("table_value", np.int64),  # the table play's digits, largest first (2 and 6: 62)
        ("sel_count", np.int8),
        ("sel_min", np.int8),  # lowest id selected (the last one), NO_CARD when none
        ("sel_value", np.int64),  # the selection's digits, largest first
        ("sel_colour", np.int8),  # colour shared by every selected card, else -1
        ("sel_rank", np.int8),  # value shared by every selected card, else -1
        # the current player's legal actions: PASS and PLAY flags, select and take card sets
        ("legal_pass", np.int8),
        ("legal_play", np.int8),
        ("legal_select", np.int64),
        ("legal_take", np.int64),
    ]
)

# Observation layout (int16, as the rummies'), seen from the observer's seat (seat 0 = the observer)
OBS_HAND = 0  # 54: own cards (not counting the selection)
OBS_SELECTED = OBS_HAND + NUM_CARDS  # 54: the play being built by the player to move
OBS_TABLE = OBS_SELECTED + NUM_CARDS  # 54: the play to beat
OBS_DISCARDED = OBS_TABLE + NUM_CARDS  # 54: cards discarded this round
# 5 x 54: per opponent (relative seat 1 .. 5, at OBS_KNOWN + (j - 1) * 54), the cards they
# took back from the table and still hold: public, and which opponent holds them matters
OBS_KNOWN = OBS_DISCARDED + NUM_CARDS
OBS_TABLE_COUNT = OBS_KNOWN + (MAX_PLAYERS - 1) * NUM_CARDS  # cards on the table
OBS_SEL_COUNT = OBS_TABLE_COUNT + 1  # cards selected
OBS_LEAD = OBS_SEL_COUNT + 1  # 1: the table is empty, the player to move leads
OBS_TARGET = OBS_LEAD + 1  # target score (0 in a single-round match)
OBS_COLOURS = OBS_TARGET + 1  # colours in the deck (6, or two_player_colours with 2 players)
OBS_SEATS = OBS_COLOURS + 1  # per relative seat, SEAT_FEATURES values
SEAT_FEATURES = 8  # present, held, score, made the table play, to move, led this round, passed since, known
OBS_SIZE = OBS_SEATS + MAX_PLAYERS * SEAT_FEATURES  # 539
OBS_DTYPE = np.int16  # every value is a small count or flag: half the bytes of float32 to write


# --------------------------------------------------------------------------- helpers
# The kernels are compiled without numba's reference counting (``_nrt=False``): each view of
# a record's array field would otherwise cost a call that LLVM cannot see through
# (docs/adding-a-game.md, "Keeping the step fast"). Such a kernel cannot allocate; ``_deal``,
# which makes its deck, says ``_nrt=True`` itself. Inlined hooks take their caller's setting.
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _uniform(bits):
    """The cards of ``bits`` are all one colour or all one value (an empty set is too)."""
    if bits == 0:
        return True
    colours = 0
    values = np.int64(0)
    for col in range(NUM_COLOURS):
        row = (bits >> np.int64(col * NUM_VALUES)) & VALUE_BITS
        if row:
            colours += 1
            values |= row
    return colours == 1 or popcount(values) == 1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _digits(cards):
    """The value of a set of cards (uint8 vector): its digits, largest first."""
    v = np.int64(0)
    for d in range(NUM_VALUES, 0, -1):
        for col in range(NUM_COLOURS):
            if cards[col * NUM_VALUES + d - 1]:
                v = v * 10 + d
    return v


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def recount(s):
    """Rebuild every derived field from the cards."""
    P = s.num_players
    s.colours = s.two_player_colours if P == 2 else NUM_COLOURS
    for p in range(MAX_PLAYERS):
        s.hand_bits[p] = bits_of(s.hands[p], np.int64(0), NUM_CARDS)
        s.known_bits[p] = bits_of(s.known[p], np.int64(0), NUM_CARDS)
        s.held[p] = popcount(s.hand_bits[p])
    s.table_bits = bits_of(s.table, np.int64(0), NUM_CARDS)
    s.sel_bits = bits_of(s.selected, np.int64(0), NUM_CARDS)
    s.disc_bits = bits_of(s.discarded, np.int64(0), NUM_CARDS)
    s.table_count = popcount(s.table_bits)
    s.table_value = _digits(s.table)
    s.sel_count = 0
    s.sel_min = NO_CARD
    s.sel_value = 0
    s.sel_colour = -1
    s.sel_rank = -1
    for c in range(NUM_CARDS - 1, -1, -1):  # the canonical order: decreasing id
        if s.selected[c]:
            _note_selected(s, c)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _note_selected(s, c):
    """Derived selection fields after card c (below every card selected) joins it."""
    col = c // NUM_VALUES
    v = c % NUM_VALUES + 1
    if s.sel_count == 0:
        s.sel_colour = col
        s.sel_rank = v
    else:
        if s.sel_colour != col:
            s.sel_colour = -1
        if s.sel_rank != v:
            s.sel_rank = -1
    s.sel_count += 1
    s.sel_min = c
    s.sel_value = s.sel_value * 10 + v


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _add_card(s, p, c):
    s.hands[p, c] = 1
    s.hand_bits[p] |= bit(c)
    s.held[p] += 1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _remove_card(s, p, c):
    s.hands[p, c] = 0
    s.hand_bits[p] &= ~bit(c)
    s.held[p] -= 1


# --------------------------------------------------------------------------- deal
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _clear_selection(s):
    s.selected[:] = 0
    s.sel_bits = 0
    s.sel_count = 0
    s.sel_min = NO_CARD
    s.sel_value = 0
    s.sel_colour = -1
    s.sel_rank = -1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _clear_table(s):
    s.table[:] = 0
    s.table_bits = 0
    s.table_count = 0
    s.table_value = 0
    s.last_player = -1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=True)
def _deal(s):
    """Shuffle the deck (the first ``colours`` colours) and deal 9 cards each; the rest is set aside."""
    P = s.num_players
    n = s.colours * NUM_VALUES
    deck = np.empty(n, dtype=np.int64)
    for i in range(n):
        deck[i] = i
    shuffle(s, deck, n)
    s.hands[:] = 0
    s.aside[:] = 0
    for i in range(n):
        if i < P * HAND_SIZE:
            s.hands[i // HAND_SIZE, deck[i]] = 1
        else:
            s.aside[deck[i]] = 1
    s.discarded[:] = 0
    s.known[:] = 0
    s.disc_bits = 0
    s.known_bits[:] = 0
    _clear_table(s)
    _clear_selection(s)
    recount(s)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _start_round(s):
    """Deal a round; the round's leader (moving left every round) leads."""
    s.round += 1
    _deal(s)
    s.phase = PHASE_PLAY
    s.current = s.round_leader


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def new_match(s, ws):
    """Reset every match field (options and rng are kept) and deal round 1. (``ws``: the
    step driver's work arrays, which Odin does not use.)"""
    P = s.num_players
    s.colours = s.two_player_colours if P == 2 else NUM_COLOURS
    s.scores[:] = 0
    s.round_points[:] = 0
    s.round = 0
    s.round_leader = rand_below(s, P)
    s.num_steps = 0
    s.terminated = False
    s.truncated = False
    s.rewards[:] = 0.0
    _start_round(s)


# --------------------------------------------------------------------------- legal actions
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _best_colour_play(prefix, lower, need):
    """``prefix`` followed by the ``need`` highest values of the 9-bit set ``lower``."""
    v = prefix
    d = NUM_VALUES
    while need > 0:
        if (lower >> np.int64(d - 1)) & 1:
            v = v * 10 + d
            need -= 1
        d -= 1
    return v


# Per card: its colour, its value, and the cards below it that could follow it in a play
# (same colour and a lower value; same value and a lower colour), so that the mask's test of
# each candidate card is a few table reads and popcounts instead of divisions and loops.
_COLOUR_OF = np.array([c // NUM_VALUES for c in range(NUM_CARDS)], dtype=np.int64)
_VALUE_OF = np.array([c % NUM_VALUES + 1 for c in range(NUM_CARDS)], dtype=np.int64)
_COLOUR_BELOW = np.array([sum(1 << (c - j - 1) for j in range(c % NUM_VALUES)) for c in range(NUM_CARDS)],
                         dtype=np.int64)
_VALUE_BELOW = np.array([sum(1 << (q * NUM_VALUES + c % NUM_VALUES) for q in range(c // NUM_VALUES))
                         for c in range(NUM_CARDS)], dtype=np.int64)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _completable(H, c, n, k, sel_colour, sel_rank, sel_value, table_value):
    """Following: can the selection (``k - 1`` cards, their colour, value and digits) plus
    card c (below the selection) still become a legal play with cards of ``H`` below c?
    Sizes n or n+1 of the table's n, one colour or one value, and a higher value for size
    n; the best completion of a size adds the highest cards left of that colour (of a
    value, any: the digits are equal)."""
    col = _COLOUR_OF[c]
    v = _VALUE_OF[c]
    same_colour = k == 1 or sel_colour == col
    same_value = k == 1 or sel_rank == v
    if k > n + 1 or not (same_colour or same_value):
        return False
    if k == n + 1:
        return True  # one card more than the table always reads higher
    prefix = sel_value * 10 + v
    need = n - k  # cards still to add for a play of n cards (one more for n + 1)
    if same_colour:
        lower = H & _COLOUR_BELOW[c]
        a = popcount(lower)
        if a > need:
            return True
        if a == need and _best_colour_play(prefix, lower >> np.int64(col * NUM_VALUES), need) > table_value:
            return True
    if same_value:
        a = popcount(H & _VALUE_BELOW[c])
        if a > need:
            return True
        if a == need:
            val = prefix
            for _ in range(need):
                val = val * 10 + v
            if val > table_value:
                return True
    return False


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def legal_sets(s):
    """Compute the current player's legal actions into ``legal_pass``, ``legal_play``,
    ``legal_select`` and ``legal_take``."""
    s.legal_pass = 0
    s.legal_play = 0
    s.legal_select = 0
    s.legal_take = 0
    if s.phase == PHASE_OVER:
        return
    H = s.hand_bits[s.current]
    k = s.sel_count
    if s.table_count == 0:
        # ---- lead: one card, or the whole hand when it is one colour or one value
        if k == 0:
            s.legal_select = H
            return
        if k == 1 or H == 0:
            s.legal_play = 1
        if H != 0:
            top = NUM_CARDS - 1
            while not (H >> np.int64(top)) & 1:
                top -= 1
            if top < s.sel_min and _uniform(H | s.sel_bits):
                s.legal_select = bit(top)
        return
    # ---- follow
    n = s.table_count
    if k == 0:
        s.legal_pass = 1
    elif k == n + 1 or (k == n and s.sel_value > s.table_value):
        if H == 0 or n == 1:
            s.legal_play = 1  # emptying the hand takes nothing; a one-card table is taken back
        else:
            s.legal_take = s.table_bits
    if k > n:
        return
    cand = H & (bit(s.sel_min) - 1)  # canonical order: below every selected card
    legal = np.int64(0)
    n = np.int64(n)
    k1 = np.int64(k) + 1
    sel_colour, sel_rank = np.int64(s.sel_colour), np.int64(s.sel_rank)
    sel_value, table_value = s.sel_value, s.table_value
    while cand:
        c = low_index(cand)
        if _completable(H, c, n, k1, sel_colour, sel_rank, sel_value, table_value):
            legal |= bit(c)
        cand &= cand - 1
    s.legal_select = legal


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def is_legal(s, a):
    """Whether action ``a`` is in the legal set computed by :func:`legal_sets`."""
    if a == PASS:
        return s.legal_pass != 0
    if a == PLAY:
        return s.legal_play != 0
    if SELECT0 <= a < TAKE0:
        return (s.legal_select >> np.int64(a - SELECT0)) & 1 != 0
    if TAKE0 <= a < NUM_ACTIONS:
        return (s.legal_take >> np.int64(a - TAKE0)) & 1 != 0
    return False


# --------------------------------------------------------------------------- apply an action
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _pass_turn(s, p):
    """The next player moves; when everybody else passed, the table is discarded and
    the player who made it leads."""
    q = (p + 1) % s.num_players
    if q == s.last_player:
        for c in range(NUM_CARDS):
            if s.table[c]:
                s.discarded[c] = 1
        s.disc_bits |= s.table_bits
        _clear_table(s)
    s.current = q


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _select(s, p, c):
    _remove_card(s, p, c)
    s.known[p, c] = 0
    s.known_bits[p] &= ~bit(c)
    s.selected[c] = 1
    s.sel_bits |= bit(c)
    _note_selected(s, c)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _commit(s, p, take):
    """The selection becomes the table. The covered play: card ``take`` (if >= 0)
    goes to the hand, the rest is discarded. Returns True when the hand is empty."""
    emptied = s.held[p] == 0
    covered = s.table_bits
    while covered:
        c = low_index(covered)
        covered &= covered - 1
        s.table[c] = 0
        if c == take and not emptied:
            _add_card(s, p, c)
            s.known[p, c] = 1
            s.known_bits[p] |= bit(c)
        else:
            s.discarded[c] = 1
            s.disc_bits |= bit(c)
    played = s.sel_bits
    while played:
        s.table[low_index(played)] = 1
        played &= played - 1
    s.table_bits = s.sel_bits
    s.table_count = s.sel_count
    s.table_value = s.sel_value
    s.last_player = p
    _clear_selection(s)
    return emptied


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _end_round(s):
    """Every card left in a hand is a point; end the match or deal the next round."""
    P = s.num_players
    best = 1 << 30
    worst = 0
    for p in range(P):
        pts = np.int64(s.held[p])
        s.round_points[p] = pts
        s.scores[p] += pts
        if s.reward_mode == REWARD_ROUND:
            s.rewards[p] -= pts
        best = min(best, np.int64(s.scores[p]))
        worst = max(worst, np.int64(s.scores[p]))
    if s.single_round or worst >= s.target_score:
        s.terminated = True
        s.phase = PHASE_OVER
        if s.reward_mode == REWARD_MATCH:
            _match_outcome(s, best)
        return
    s.round_leader = (s.round_leader + 1) % P
    _start_round(s)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _match_outcome(s, best):
    """Zero-sum outcome: the lowest totals share +1, the others share -1 (all tied: 0)."""
    P = s.num_players
    winners = 0
    for p in range(P):
        if s.scores[p] == best:
            winners += 1
    if winners == P:
        return
    for p in range(P):
        if s.scores[p] == best:
            s.rewards[p] += 1.0 / winners
        else:
            s.rewards[p] -= 1.0 / (P - winners)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def apply_action(s, a, ws):
    """Apply a legal action of the current player; return True when a round ended."""
    p = s.current
    if a == PASS:
        _pass_turn(s, p)
        return False
    if a < TAKE0 and a >= SELECT0:
        _select(s, p, a - SELECT0)
        return False
    take = -1
    if a >= TAKE0:
        take = a - TAKE0
    elif s.table_count == 1:
        take = low_index(s.table_bits)
    if _commit(s, p, take):
        _end_round(s)
        return True
    s.current = (p + 1) % s.num_players
    return False


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def penalise(s, offender):
    """An illegal action under ``illegal_action="penalty"``: the game ends, -1 to the offender."""
    s.rewards[offender] = -1.0
    s.terminated = True
    s.phase = PHASE_OVER


# --------------------------------------------------------------------------- observation
# A card set's block of the observation (and of the mask) is written 8 cards at a time, each
# byte of its bits looked up in a table of 8 values, instead of being zeroed and then written
# card by card: the observation costs half as much (it was the largest part of a step).
_BYTE_VALUES = np.array([[(b >> t) & 1 for t in range(8)] for b in range(256)], dtype=np.int16)
# the mask's flags as bytes: a bool read from an array is compared with 0 and stored with a
# setne, flag by flag; bytes copied as they are merge into one 8-byte move per table row
_BYTE_FLAGS = _BYTE_VALUES.astype(np.uint8)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def _write_set(out, base, bits, table):
    """``out[base + c]`` = ``table[1]``'s value for the cards c of ``bits``, else 0, for every c
    of the NUM_CARDS ids (``table``: ``_BYTE_VALUES`` or ``_BYTE_FLAGS``)."""
    for k in range((NUM_CARDS + 7) // 8):
        byte = (bits >> np.int64(8 * k)) & 255
        for t in range(8):
            if 8 * k + t < NUM_CARDS:  # constant bounds: decided when compiled
                out[base + 8 * k + t] = table[byte, t]


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def observe(s, viewer, out):
    """What ``viewer`` sees, into ``out`` (OBS_DTYPE, OBS_SIZE): own hand, the selection,
    the table, the discards, the cards each opponent is known to hold (taken from the
    table), public seat data; never another player's unknown cards or the set-aside ones."""
    P = s.num_players
    _write_set(out, np.int64(OBS_HAND), s.hand_bits[viewer], _BYTE_VALUES)
    _write_set(out, np.int64(OBS_SELECTED), s.sel_bits, _BYTE_VALUES)
    _write_set(out, np.int64(OBS_TABLE), s.table_bits, _BYTE_VALUES)
    _write_set(out, np.int64(OBS_DISCARDED), s.disc_bits, _BYTE_VALUES)
    q = np.int64(viewer)
    for j in range(1, MAX_PLAYERS):  # every opponent block, empty past the last seat
        q += 1
        if q == P:
            q = 0
        known = s.known_bits[q] if j < P else np.int64(0)
        _write_set(out, np.int64(OBS_KNOWN + (j - 1) * NUM_CARDS), known, _BYTE_VALUES)
    for k in range(OBS_TABLE_COUNT, OBS_SIZE):
        out[k] = 0
    out[OBS_TABLE_COUNT] = s.table_count
    out[OBS_SEL_COUNT] = s.sel_count
    live = s.phase != PHASE_OVER
    out[OBS_LEAD] = live and s.table_count == 0
    out[OBS_TARGET] = 0 if s.single_round else s.target_score
    out[OBS_COLOURS] = s.colours
    # seats that passed since the table play: strictly between its player and the one to move
    last = np.int64(s.last_player)
    behind = np.int64(s.current) - last
    if behind < 0:
        behind += P
    passing = live and s.table_count > 0
    q = np.int64(viewer)
    for j in range(P):
        o = OBS_SEATS + j * SEAT_FEATURES
        out[o] = 1
        out[o + 1] = s.held[q]
        out[o + 2] = s.scores[q]
        if q == last:
            out[o + 3] = 1
        if live and q == s.current:
            out[o + 4] = 1
        if q == s.round_leader:
            out[o + 5] = 1
        if passing:
            d = q - last
            if d < 0:
                d += P
            if 0 < d < behind:
                out[o + 6] = 1
        out[o + 7] = popcount(s.known_bits[q])
        q += 1
        if q == P:
            q = 0


# --------------------------------------------------------------------------- unseen cards
UNSEEN_KEYS = 4 * NUM_CARDS  # random keys per game that deal_unseen_batch may use


@njit(cache=True, no_cfunc_wrapper=True)
def deal_unseen_batch(states, seats, keys, keep_hands):
    """Deal anew, in game i, the cards seat ``seats[i]`` cannot see: the other hands
    (but the cards known to be in them, taken from the table) and the cards set aside.
    Every hand keeps its size; ``keys[i]`` (uniform in [0, 1), UNSEEN_KEYS of them) drive
    the shuffle. What the seat observes is unchanged: this samples the deals it cannot
    tell apart (a rollout search's determinisation). ``keep_hands`` leaves the other
    hands as they are: the set-aside cards have no order, so nothing changes. The caller
    refreshes the states (``refresh_batch``) before stepping them. Returns a flag per game,
    True: every deal here is consistent with the seat's view (Odin needs no check beyond
    the player to move being able to go on, which the caller checks)."""
    ok = np.ones(states.shape[0], dtype=np.bool_)
    pool = np.empty(UNSEEN_KEYS, dtype=np.int64)
    unseen = np.zeros(NUM_CARDS, dtype=np.int64)
    for i in range(states.shape[0] * (not keep_hands)):
        s = states[i]
        P = s.num_players
        seat = seats[i]
        for c in range(NUM_CARDS):  # the unseen cards: set aside, or in another hand and not known there
            unseen[c] = s.aside[c]
            for q in range(P):
                if q != seat:
                    # int64: uint8 - uint8 is unsigned in numba (a known card is always held)
                    unseen[c] += np.int64(s.hands[q, c]) - np.int64(s.known[q, c])
        m = shuffled_pool(unseen, pool, keys[i])
        k = 0
        for q in range(P):
            if q != seat:
                n = 0
                for c in range(NUM_CARDS):
                    n += np.int64(s.hands[q, c]) - np.int64(s.known[q, c])
                    s.hands[q, c] = s.known[q, c]
                for _ in range(n):
                    s.hands[q, pool[k]] += 1
                    k += 1
        s.aside[:] = 0
        while k < m:
            s.aside[pool[k]] += 1
            k += 1
    return ok


# --------------------------------------------------------------------------- the step driver's hooks
# The batch driver (cardenvs/core/step_driver.py, the same for every game: holds, resets,
# finished matches, penalties, forced moves, outputs) steps a batch of games around these,
# each called with the driver's parameters (used or not). Odin keeps its legal actions as
# card bits (``legal_sets``), not as a row of flags, so it says how to read and write them.
# The driver takes the rows of its outputs without reference counts ("borrow_outputs",
# core/borrow.py).
DRIVER_OPTIONS = ("borrow_outputs",)
start_match = new_match  # ACT_RESET, and a finished match restarted (MODE_AUTO_RESET)
refresh = recount  # ACT_REFRESH: a state loaded from outside gets its derived fields back
apply_legal_action = apply_action  # True when a round ended


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def legal_mask(s, ws, trusted):
    """The legal actions of the player to move, as card bits in the state."""
    legal_sets(s)


# is_legal(s, a) (above): is the action in the legal sets


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def only_legal_action(s):
    """The one legal action computed by :func:`legal_sets`, or -1 when there are none or
    several (MODE_AUTO_FORCED plays it for the player)."""
    n = np.int64(s.legal_pass) + s.legal_play + popcount(s.legal_select) + popcount(s.legal_take)
    if n != 1:
        return -1
    if s.legal_pass:
        return PASS
    if s.legal_play:
        return PLAY
    if s.legal_select:
        return SELECT0 + low_index(s.legal_select)
    return TAKE0 + low_index(s.legal_take)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def write_mask(s, mask_row):
    """The legal sets as the mask row the agents see (inlined into the driver: a few stores;
    every entry written: PASS, PLAY, then the select and take blocks)."""
    mask_row[PASS] = s.legal_pass != 0
    mask_row[PLAY] = s.legal_play != 0
    flags = mask_row.view(np.uint8)  # the same bytes (see _BYTE_FLAGS; the driver's masks are bool)
    _write_set(flags, np.int64(SELECT0), s.legal_select, _BYTE_FLAGS)
    _write_set(flags, np.int64(TAKE0), s.legal_take, _BYTE_FLAGS)


@njit(cache=True, no_cfunc_wrapper=True)
def legal_sets_batch(states):
    """Recompute the legal mask of every game in place (for measuring the mask's cost)."""
    n = 0
    for i in range(states.shape[0]):
        legal_sets(states[i])
        n += states[i].legal_play
    return n


# The batch step: core's one driver, bound to the hooks above.
step_batch, step_batch_parallel, observe_batch, mask_batch, reset_batch, refresh_batch = bind(sys.modules[__name__])
