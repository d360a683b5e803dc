"""Rami 51: the rules as numba kernels over a record per game. (One concern, kept whole past
1,000 lines: the rule book of a turn whose masks are exact reads in one place.)

Reads like the rule book (the rules as ``docs/games/rami51.md`` gives them): state
layout, deal, legal actions, apply an action, scoring, observation, then the hooks of
the batch step (core/step_driver.py binds the game's driver to them). The player-facing page is
``docs/games/rami51.md``.

A turn is a short sequence of atomic actions by the same player: draw (stock or the
discard top), then any number of melds and lay-offs, then a discard. A new meld is
built card by card in a canonical order (runs from their lowest position up, sets by
suit c d h s), a joker placed with the card it stands for; a lay-off picks a table meld,
then one card. The masks are exact: a step is legal only when the turn can still be
finished legally after it (the meld completed, the opening reaching 51 with a clean run,
the card taken from the discard used, a card kept to discard). The search behind them is
Rami 51's turn planner, :mod:`cardenvs.games.rami51.plan`, over the meld primitives
of the rummy layer (:mod:`cardenvs.rummy`).
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from cardenvs.core.cards import JOKER
from cardenvs.core.rng import rand_below
from cardenvs.core.seats import count_clear, next_seat
from cardenvs.core.step_driver import bind
from cardenvs.games.rami51 import plan as P
from cardenvs.games.rami51.plan import (
    B_HI,
    B_JOKER,
    B_KIND,
    B_LO,
    B_N,
    B_PTS_RUN,
    B_PTS_SET,
    B_RANK,
    B_SUIT,
    B_SUITS,
    BK_EMPTY,
    BK_ONE,
    BK_RUN,
    BK_SET,
    rami_penalty,
    rank_value,
    run_value,
)
from cardenvs.rummy import melds as M
from cardenvs.rummy import table as T
from cardenvs.rummy.melds import FALSE, KIND_RUN, KIND_SET, TRUE, card_at, run_window_ok

# --------------------------------------------------------------------------- layout
MAX_PLAYERS = 6
MAX_ROUND = 30000  # a match that would deal round 30,001 is truncated (int16 round counters)
NUM_FACES = 52
NUM_TYPES = 53  # 52 faces + the joker type
HAND_SIZE = 14
MAX_CARDS = 108  # two decks with their jokers
MAX_MELDS = 36  # 108 cards make at most 36 melds: every meld has a slot
NUM_POS = 14  # run positions: 0 ace low, 1 the 2, ..., 12 the king, 13 ace high
RULES = M.rules_rami51()
NONE = np.int64(-1)  # a plain -1 for calls between kernels (see melds.TRUE)

# Action encoding (see docs/games/rami51.md):
DRAW_STOCK = 0  # draw the top of the stock
TAKE_DISCARD = 1  # take the top of the discard pile (it must be laid this turn)
NEW_MELD = 2  # start a new meld
LAYOFF0 = 3  # LAYOFF0 + m: lay off a card on table meld m (the card comes next)
ADD0 = LAYOFF0 + MAX_MELDS  # ADD0 + c: put the natural card c on the meld being built / the table meld
JOKER0 = ADD0 + NUM_FACES  # JOKER0 + c: put a joker there, standing for card c
CLOSE = JOKER0 + NUM_FACES  # lay the meld being built on the table
DISCARD0 = CLOSE + 1  # DISCARD0 + c: discard card c (0..52), ending the turn
NUM_ACTIONS = DISCARD0 + NUM_TYPES  # 197

# Phases
PHASE_DRAW = 0  # the player to move draws
PHASE_PLAY = 1  # melds, lay-offs, or the discard
PHASE_BUILD = 2  # a new meld is being built
PHASE_LAYOFF = 3  # a table meld was picked: the card to lay off comes next
PHASE_OVER = 4
PHASE_NAMES = ("draw", "play", "build", "layoff", "over")

REWARD_MATCH = 0
REWARD_ROUND = 1
REWARD_MODES = ("match", "round")

STATE_DTYPE = np.dtype(
    [
        ("rng", np.uint64),
        # options, copied from the template at every reset
        ("num_players", np.int8),
        ("decks", np.int8),
        ("opening_points", np.int16),
        ("single_round", np.bool_),
        ("reward_mode", np.int8),
        ("max_steps", np.int32),
        ("max_turns_per_round", np.int32),
        ("elimination_score", np.int32),
        # match
        ("scores", np.int32, (MAX_PLAYERS,)),  # penalty totals
        ("eliminated", np.uint8, (MAX_PLAYERS,)),
        ("round", np.int16),
        ("dealer", np.int8),
        ("num_steps", np.int32),
        ("turns", np.int32),  # turns completed in this round
        ("terminated", np.bool_),
        ("truncated", np.bool_),
        ("rewards", np.float32, (MAX_PLAYERS,)),
        ("round_points", np.int32, (MAX_PLAYERS,)),  # penalties of the last finished round
        ("winner", np.int8),  # who won the last finished round (-1: none yet, or a void round)
        ("void_rounds", np.int16),  # rounds of this match that ended void
        # round
        *T.table_fields(MAX_PLAYERS, MAX_CARDS, MAX_MELDS, NUM_POS),
        ("opened", np.uint8, (MAX_PLAYERS,)),
        # turn
        ("phase", np.int8),
        ("current", np.int8),
        ("turn_points", np.int16),  # points of the melds laid this turn (for the opening)
        ("turn_clean", np.bool_),  # a clean run was laid this turn
        ("turn_melds", np.int8),  # melds laid this turn
        ("pending", np.int8),  # card taken from the discard this turn, -1 if none
        ("pending_used", np.bool_),  # ... and laid already
        ("drawn", np.int8),  # card drawn from the stock this turn, -1 if none
        ("build_rep", np.int8, (NUM_POS,)),  # the meld being built: card each card stands for
        ("build_phys", np.int8, (NUM_POS,)),  # ... and the card itself (52: a joker)
        ("build_n", np.int8),
        ("target", np.int8),  # table meld picked for a lay-off, -1
        # derived (recounted after a scenario load)
        ("held", np.uint8, (MAX_PLAYERS,)),
        ("legal", np.uint8, (NUM_ACTIONS,)),
        # search cache (CACHE_FIELDS): first cards of new melds that the last search
        # proved legal (see _keep_witnesses); a loaded state starts without it
        ("wit_nat", np.int64),
        ("wit_wild", np.int64),
        ("wit_valid", np.bool_),
    ]
)

# Fields that only speed up the masks (what earlier steps proved): a state loaded from a
# scenario starts without them and computes the same masks; state_dict leaves them out.
CACHE_FIELDS = ("wit_nat", "wit_wild", "wit_valid")

# Observation layout, seen from the observer's seat (seat 0 = the observer). Every entry
# is a count, a flag, a position or points, so it is stored exactly as int16: half the bytes
# of float32, and writing the observation is a fifth of a step's cost. Scores, points, round
# and turn numbers saturate at OBS_MAX (reached only with options far past the defaults).
OBS_DTYPE = np.int16
OBS_MAX = 32767
OBS_HAND = 0  # 53: own cards
OBS_TOP = OBS_HAND + NUM_TYPES  # 53: one-hot top of the discard pile
OBS_PILE = OBS_TOP + NUM_TYPES  # 53: cards in the discard pile
OBS_TABLE = OBS_PILE + NUM_TYPES  # 53: cards on the table
OBS_MELDS = OBS_TABLE + NUM_TYPES  # MAX_MELDS x MELD_FEATURES
# per meld: set, run, key, lo, hi, cards, owner (relative seat + 1), jokers, and a set's 4 suits
# (1 natural, 2 joker). Where a joker stands inside a run changes no play: the run's ends do.
MELD_FEATURES = T.MELD_FEATURES
OBS_PHASE = OBS_MELDS + MAX_MELDS * MELD_FEATURES  # 4: draw, play, build, layoff
OBS_BUILD = OBS_PHASE + 4  # 52: cards the meld being built stands for (1 natural, 2 joker)
OBS_TARGET = OBS_BUILD + NUM_FACES  # 36: one-hot table meld picked for a lay-off
OBS_PENDING = OBS_TARGET + MAX_MELDS  # 53: one-hot card taken from the discard, still to lay
OBS_TURN = OBS_PENDING + NUM_TYPES  # turn points, clean run laid, melds laid, opening points, stock, pile, round, turns
OBS_SEATS = OBS_TURN + 8  # per relative seat, SEAT_FEATURES values
SEAT_FEATURES = 8  # present, cards held, opened, score, eliminated, to move, dealer, last round's points
OBS_SIZE = OBS_SEATS + MAX_PLAYERS * SEAT_FEATURES


# --------------------------------------------------------------------------- deal
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _deal(s):
    """Shuffle the decks (52 cards and 2 jokers each); 14 cards to every player still in
    the match, one at a time from the dealer's left; the next card turned up starts the
    discard pile; the rest is the stock."""
    T.deal(s, s.decks, 2, HAND_SIZE, s.dealer, s.num_players, s.eliminated)
    s.opened[:] = 0
    s.turns = 0


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _reset_turn(s):
    s.turn_points = 0
    s.turn_clean = False
    s.turn_melds = 0
    s.pending = -1
    s.pending_used = False
    s.drawn = -1
    s.target = -1
    T.clear_build(s)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _start_round(s):
    """Deal; the player left of the dealer moves first (no checks yet: see _enter_turn).
    Past MAX_ROUND rounds (only a turn cap of a few turns or a huge elimination score gets
    there) the match is truncated instead."""
    if s.round >= MAX_ROUND:
        s.truncated = True
        s.phase = PHASE_OVER
        return
    s.round += 1
    _deal(s)
    _reset_turn(s)
    s.phase = PHASE_DRAW
    s.current = next_seat(s.eliminated, s.dealer, s.num_players)


@njit(cache=True, no_cfunc_wrapper=True)
def new_match(s):
    """Reset every match field (options and rng are kept) and deal round 1."""
    P = s.num_players
    s.scores[:] = 0
    s.eliminated[:] = 0
    s.round = 0
    s.dealer = rand_below(s, P)
    s.num_steps = 0
    s.terminated = False
    s.truncated = False
    s.rewards[:] = 0.0
    s.round_points[:] = 0
    s.winner = -1
    s.void_rounds = 0
    _start_round(s)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def _enter_turn(s, p, ws):
    """Give the turn to p. A player who cannot draw at all (the stock is empty and cannot
    be rebuilt from the discard pile, and the discard top cannot be used) makes the round
    void: it is scored as such and the next one dealt. Returns True when a round ended."""
    ended = False
    s.current = p
    while True:
        if s.phase == PHASE_OVER and (s.terminated or s.truncated):
            return ended
        _reset_turn(s)
        s.phase = PHASE_DRAW
        if s.stock_n > 0 or s.pile_n >= 2 or (s.pile_n > 0 and _take_ok(s, np.int64(s.current), ws)):
            return ended
        ended = True
        if _finish_round(s, NONE):
            return ended


# --------------------------------------------------------------------------- the turn planner, per game
# The masks' work arrays as one record (see melds.PLAN_DTYPE): ws[0] the planner's record,
# ws[1] natural counts, ws[2] the meld summary, ws[3] extensions, ws[4] a candidate row's
# cards and values kept aside, ws[5]/ws[6] the candidate melds chained by first card,
# ws[7] the cards that may come next in a meld being built.
WORKSPACE_DTYPE = np.dtype(
    [
        ("plan", P.PLAN_DTYPE),
        ("N", np.int64, (NUM_TYPES,)),
        ("binfo", np.int64, (P.B_FIELDS,)),
        ("ext", np.int64, (16, 2)),
        ("row", np.int64, (2, NUM_POS)),
        ("first", np.int64, (NUM_TYPES,)),
        ("after", np.int64, (P.MAX_WINDOWS + 3,)),
        ("nxt", np.int64, (64,)),
    ]
)


@njit(cache=True, no_cfunc_wrapper=True)
def workspace():
    """The masks' work arrays: a one-record array of WORKSPACE_DTYPE. The kernels take its
    record ``owner[0]``, passed as one pointer; the caller keeps ``owner`` alive."""
    owner = np.empty(1, dtype=WORKSPACE_DTYPE)
    ws = owner[0]
    P.clear_plan_buffers(ws.plan)
    ws.N[:] = 0
    ws.binfo[:] = 0
    ws.ext[:] = 0
    ws.row[:] = 0
    ws.first[:] = 0
    ws.nxt[:] = 0  # ``after`` is written for every row it chains (_index_first_cards) before it is read
    return owner


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def _hand_nw(s, p, N):
    """Natural counts of p's hand into N; returns the jokers held."""
    for c in range(NUM_FACES):
        N[c] = s.hands[p, c]
    N[JOKER] = 0
    return np.int64(s.hands[p, JOKER])


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _clear_binfo(b):
    for f in range(P.B_FIELDS):  # constant bounds: a few stores, not a memset call
        b[f] = 0


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _binfo(s, b):
    """Summary of the meld being built (see melds.B_*)."""
    _clear_binfo(b)
    n = s.build_n
    if n == 0:
        b[B_KIND] = BK_EMPTY
        return
    c0 = np.int64(s.build_rep[0])
    b[B_N] = n
    for i in range(n):
        if s.build_phys[i] == JOKER:
            b[B_JOKER] = 1
    if n == 1:
        r = c0 // 4
        p = 0 if r == 0 else r
        b[B_KIND] = BK_ONE
        b[B_RANK] = r
        b[B_SUIT] = c0 % 4
        b[B_SUITS] = np.int64(1) << (c0 % 4)
        b[B_LO] = p
        b[B_HI] = p
        if s.build_phys[0] != JOKER:
            b[B_PTS_RUN] = run_value(p)
            b[B_PTS_SET] = rank_value(r)
        return
    c1 = np.int64(s.build_rep[1])
    if c1 // 4 == c0 // 4:
        b[B_KIND] = BK_SET
        b[B_RANK] = c0 // 4
        b[B_LO] = c0 % 4
        b[B_HI] = s.build_rep[n - 1] % 4
        pts = 0
        suits = 0
        for i in range(n):
            suits |= np.int64(1) << np.int64(s.build_rep[i] % 4)
            if s.build_phys[i] != JOKER:
                pts += rank_value(c0 // 4)
        b[B_PTS_SET] = pts
        b[B_SUITS] = suits
    else:
        lo = T.run_pos(RULES, c0, True)
        b[B_KIND] = BK_RUN
        b[B_SUIT] = c0 % 4
        b[B_LO] = lo
        b[B_HI] = lo + n - 1
        pts = 0
        for i in range(n):
            if s.build_phys[i] != JOKER:
                pts += run_value(lo + i)
        b[B_PTS_RUN] = pts


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _needs(s, p):
    """(points still needed for the opening, a clean run still needed)."""
    if s.opened[p]:
        return 0, False
    return max(0, np.int64(s.opening_points) - np.int64(s.turn_points)), not s.turn_clean


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def _x_open(s):
    """The card taken from the discard, while it still has to be laid (else -1)."""
    if s.pending >= 0 and not s.pending_used:
        return np.int64(s.pending)
    return np.int64(-1)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _quick_opening(s, N, W, need_pts, need_clean, X, budget):
    """Cheap necessary conditions for an opening: the cards some meld could hold are worth
    the points still needed, X (when it must be laid) is one of them or can go on a table
    meld, and three consecutive natural cards of a suit make the clean run."""
    cover = P.coverage(RULES, N, W)
    if X >= 0 and X != JOKER and not (cover >> np.int64(X)) & 1 and not _chain_quick(s, N, W, X, budget):
        return False
    if P.points_potential(N, cover) < need_pts:
        return False
    return not need_clean or P.run_starts(P.with_high_aces(P.natural_bits(N)), M.ZERO) != 0


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _lay_x_quick(s, N, W, X, budget):
    """An opened player with nothing else to do: can the natural card X (in N) be laid,
    in a meld of 3 (longer ones hold a 3-card meld with X) or on a table meld?"""
    if budget >= 3:
        r = X // 4
        t = X % 4
        # a run of 3 through X
        for xp in (r if r > 0 else 0, r if r > 0 else 13):
            for lo in range(xp - 2, xp + 1):
                if lo < 0 or lo + 2 > 13 or (lo == 0 and lo + 2 == 13):
                    continue
                miss = 0
                for q in range(lo, lo + 3):
                    if q != xp and N[card_at(t, q)] == 0:
                        miss += 1
                if miss <= W:
                    return True
            if r > 0:
                break
        # a set of 3 with X
        k = 0
        for u in range(4):
            if u != t and N[r * 4 + u] > 0:
                k += 1
        if k + W >= 2:
            return True
    # a lay-off chain onto a table meld
    return _chain_quick(s, N, W, X, budget)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _chain_quick(s, N, W, X, budget):
    r = X // 4
    t = X % 4
    for m in range(s.num_melds):
        if s.meld_kind[m] == KIND_SET:
            if s.meld_key[m] == r and s.meld_slot[m, t] < 0:
                return True
        elif s.meld_kind[m] == KIND_RUN and s.meld_key[m] == t:
            lo = np.int64(s.meld_lo[m])
            hi = np.int64(s.meld_hi[m])
            for xp in (r if r > 0 else 0, r if r > 0 else 13):
                if xp > hi:
                    a, b = hi + 1, xp
                    if not run_window_ok(RULES, lo, xp):
                        continue
                elif xp < lo:
                    a, b = xp, lo - 1
                    if not run_window_ok(RULES, xp, hi):
                        continue
                else:
                    continue
                if b - a + 1 > budget:
                    continue
                miss = 0
                for q in range(a, b + 1):
                    c = card_at(t, q)
                    if c != X and N[c] == 0:
                        miss += 1
                if miss <= W:
                    return True
    return False


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _any_meld_quick(N, W):
    """Does the hand hold any meld (3 cards; longer ones hold one)?"""
    if W >= 3:
        return True
    h = P.natural_bits(N)
    return P.run_starts(P.with_high_aces(h), W) != 0 or (P.ranks_with_suits(h, np.int64(3) - W) & h) != 0


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _own_run_takes_joker(N, X, need_pts, need_clean):
    """May a taken joker X be laid off on the clean run the opening still has to lay?
    Laid off after the run, it leaves the run clean (in the run it would not be). Any
    clean run but one of 13 cards has a free end. A plan must use 13 naturals of a suit in
    one run only if the hand holds them all and the points need it: with at most 15
    cards, the suit alone is then the plan, and its best run short of 13 cards (3 .. A)
    is worth 93."""
    if X != JOKER or not need_clean:
        return False
    for t in range(4):
        whole = True
        for r in range(13):
            if N[r * 4 + t] == 0:
                whole = False
                break
        if whole and need_pts > 93:
            return False
    return True


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _plan(s, p, N, W, X, binfo, min_win, K, ws, total, srem):
    """Can p finish the turn from here (hand N/W, the meld being built binfo, the card X
    still to lay, the table as it is), given the candidate rows cw[:K]? ``total``: the
    cards in N and W when known; ``srem``: their points potential when known."""
    pb = ws[0]
    need_pts, need_clean = _needs(s, p)
    if total < 0:
        total = W
        for c in range(NUM_FACES):
            total += N[c]
    budget = total - 1
    if budget < 0:
        return False
    need_x = X >= 0
    Kc = K
    if need_x:
        Kc = P.plan_chains(RULES, N, W, X, s.meld_kind, s.meld_key, s.meld_lo, s.meld_hi, s.meld_slot,
                           s.num_melds, pb, K, _own_run_takes_joker(N, X, need_pts, need_clean))
    last_x = P.last_x_row(pb[0], Kc) if need_x else -1
    return P.plan_feasible(RULES, N, W, budget, need_pts, need_clean, X, need_x, min_win, binfo, pb, Kc, last_x,
                           srem)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _take_ok(s, p, ws):
    """May p take the top of the discard pile? It must be laid this turn (opening with
    it when p has not opened), keeping a card to discard."""
    if s.pile_n == 0:
        return False
    X = np.int64(s.pile[s.pile_n - 1])
    N = ws[1]
    binfo = ws[2]
    W = _hand_nw(s, p, N)
    if X == JOKER:
        W += 1
    else:
        N[X] += 1
    total = np.int64(s.held[p]) + 1
    if s.opened[p]:
        if X != JOKER:
            return _lay_x_quick(s, N, W, X, total - 1)
    elif not _quick_opening(s, N, W, np.int64(s.opening_points), TRUE, X, total - 1):
        return False
    K = P.plan_windows(RULES, N, W, X, ws[0], FALSE)
    _clear_binfo(binfo)
    return _plan(s, p, N, W, X, binfo, M.ZERO, K, ws, NONE, NONE)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _keep_witnesses(s, ws, found):
    """Keep the witnesses of the search just run (see melds.record_witnesses) in the state,
    and stop recording. They are the first cards of the melds of a plan that finishes the
    turn from the position searched, so each may start a new meld there: the first-card
    mask of the next meld uses them while the position is unchanged, that is, only through
    the actions that leave it so (the draw mask's plan is used after ``take``, the play
    mask's after ``meld``, a close check's after ``close`` and ``meld``: see apply_action)."""
    scratch = ws[0][7]
    s.wit_valid = found
    s.wit_nat = scratch[P.SC_WIT_NAT] if found else 0
    s.wit_wild = scratch[P.SC_WIT_WILD] if found else 0
    P.record_witnesses(ws[0], FALSE)


# --------------------------------------------------------------------------- legal actions
# The mask of each phase; legal_mask (a hook of the step driver, at the end) picks the phase's.
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False, inline="always")
def _mask_play(s, p, ws, trusted):
    """Discards, a new meld, lay-offs. ``trusted``: the position was reached by legal
    actions, so it is no dead end; False for positions loaded from outside, which are
    searched in full."""
    N = ws[1]
    binfo = ws[2]
    X = _x_open(s)
    if trusted and not s.opened[p] and (X >= 0 or s.turn_melds > 0):
        # An opening under way (or the discard taken up) leaves a single way on: a new
        # meld. A position reached by masked-in steps always has a way to finish the turn,
        # so that meld is legal without searching for it again.
        s.legal[NEW_MELD] = 1
        return
    # the discard ends the turn: only with every obligation met
    if (s.opened[p] or s.turn_melds == 0) and X < 0:
        for c in range(NUM_TYPES):  # a store per card, no branch: a few vector instructions
            s.legal[DISCARD0 + c] = s.hands[p, c] != 0
    W = _hand_nw(s, p, N)
    need_pts, need_clean = _needs(s, p)
    _clear_binfo(binfo)
    if s.num_melds < MAX_MELDS and s.held[p] >= 4:
        if s.opened[p] and X < 0:
            if _any_meld_quick(N, W):
                s.legal[NEW_MELD] = 1
        else:
            found = False
            if s.opened[p] or _quick_opening(s, N, W, need_pts, need_clean, X, np.int64(s.held[p]) - 1):
                K = P.plan_windows(RULES, N, W, X, ws[0], FALSE)
                P.record_witnesses(ws[0], TRUE)
                found = _plan(s, p, N, W, X, binfo, M.ONE, K, ws, NONE, NONE)
                _keep_witnesses(s, ws, found)
            if found:
                s.legal[NEW_MELD] = 1
    if s.opened[p] and s.held[p] >= 2:
        ext = ws[3]
        for m in range(np.int64(s.num_melds)):
            n = T.table_extensions(RULES, s, m, ext)
            for i in range(n):
                c = ext[i, 0]
                if (s.hands[p, c] and _layoff_ok(s, p, m, c, ext[i, 1], FALSE, ws)) or (
                    s.hands[p, JOKER] and _layoff_ok(s, p, m, c, ext[i, 1], TRUE, ws)
                ):
                    s.legal[LAYOFF0 + m] = 1
                    break


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _layoff_ok(s, p, m, c, pos, joker, ws):
    """May p lay card c (a joker standing for c) at ``pos`` of table meld m, and still
    finish the turn (a card kept, the card taken from the discard laid)?"""
    if s.held[p] < 2:
        return False
    X = _x_open(s)
    if X < 0 or (not joker and c == X) or (joker and X == JOKER):
        return True
    N = ws[1]
    binfo = ws[2]
    lo = s.meld_lo[m]
    hi = s.meld_hi[m]
    phys = JOKER if joker else c
    T.place(s, m, pos, phys)
    T.remove_card(s, p, phys)
    W = _hand_nw(s, p, N)
    K = P.plan_windows(RULES, N, W, X, ws[0], FALSE)
    _clear_binfo(binfo)
    ok = _plan(s, p, N, W, X, binfo, M.ZERO, K, ws, NONE, NONE)
    T.add_card(s, p, phys)
    T.unplace(s, m, pos, lo, hi)
    return ok


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _next_cards(s, out):
    """Cards that may come next in the meld being built (canonical order); -1: any."""
    n = s.build_n
    if n == 0:
        return -1
    k = 0
    c0 = np.int64(s.build_rep[0])
    last = np.int64(s.build_rep[n - 1])
    r = c0 // 4
    if n == 1:
        p = T.run_pos(RULES, c0, True)
        if p + 1 <= 13 and not (p == 0 and p + 1 == 13):
            out[k] = card_at(c0 % 4, p + 1)
            k += 1
        for t in range(c0 % 4 + 1, 4):
            out[k] = r * 4 + t
            k += 1
        return k
    c1 = np.int64(s.build_rep[1])
    if c1 // 4 == r:
        if n < 4:
            for t in range(last % 4 + 1, 4):
                out[k] = r * 4 + t
                k += 1
        return k
    lo = T.run_pos(RULES, c0, True)
    hi = lo + n - 1
    if hi + 1 <= 13 and run_window_ok(RULES, lo, hi + 1) or (hi + 1 <= 13 and hi + 1 - lo + 1 < 3):
        out[k] = card_at(c0 % 4, hi + 1)
        k += 1
    return k


@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def _build_ok(s, p, rep, joker, K, ws, N, W, total, srem, u0):
    """After adding rep (a joker standing for it) to the meld being built, can the turn
    still be finished? N/W: the hand now (restored on return); ``srem`` its points
    potential over the candidates' cards ``u0``."""
    binfo = ws[2]
    phys = JOKER if joker else rep
    n = s.build_n
    s.build_rep[n] = rep
    s.build_phys[n] = phys
    s.build_n = n + 1
    X = _x_open(s)
    if X >= 0 and phys == X:
        X = -1
    if joker:
        W2 = W - 1
        sr = srem
    else:
        N[rep] -= 1
        W2 = W
        sr = srem - (rank_value(rep // 4) if (u0 >> np.int64(rep)) & 1 else 0)
    _binfo(s, binfo)
    ok = _plan(s, p, N, W2, X, binfo, M.ZERO, K, ws, total - 1, sr)
    if not joker:
        N[rep] += 1
    s.build_n = n
    s.build_rep[n] = -1
    s.build_phys[n] = -1
    return ok


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _meld_value(s, binfo):
    """(kind, points, clean) of the meld being built if it were laid now; kind 0 if it is
    not a valid meld yet. ``binfo``: a work array (see _binfo)."""
    n = s.build_n
    if n < 3:
        return 0, 0, False
    _binfo(s, binfo)
    if binfo[B_KIND] == BK_SET:
        return KIND_SET, binfo[B_PTS_SET], False
    if not run_window_ok(RULES, binfo[B_LO], binfo[B_HI]):
        return 0, 0, False
    return KIND_RUN, binfo[B_PTS_RUN], binfo[B_JOKER] == 0


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _first_card_bound(c, joker, N, W, K, ws, need):
    """Most opening points a turn can reach when its meld being built starts with c (a
    joker standing for c): over the candidate melds starting with c (longer melds split
    into these) and every placement of jokers on them (a joker may stand where the hand
    holds the natural, which then stays for other melds), and a meld of jokers only, the
    meld's points plus the joker-aware bound of the rest of the hand (``melds._root_bound``).
    -1 when no candidate meld starting with c can be filled from the hand: then no plan
    starts a meld with c, opened or not. The caller asks only whether it reaches ``need``
    (0 once the points are made): the first placement that does ends the count (the rows
    are as they were on every return)."""
    pb = ws[0]
    cw, undo, low_ace, scratch = pb[0], pb[5], pb[6], pb[7]
    u0 = scratch[P.SC_U0]
    best = np.int64(-1)
    cards = ws[4][0]
    vals = ws[4][1]
    if joker and W >= 3:
        # a meld of jokers only (no candidate row holds it): worth 0, two more jokers gone
        if need <= 0:
            return M.ZERO
        best = P._root_bound(pb, K, N, W - 3)
        if best >= need:
            return best
    if (joker and W == 0) or (not joker and N[c] == 0):
        return best
    first, after = ws[5], ws[6]
    j = first[c]
    while j >= 0:
        L = cw[j, P.CW_LEN]
        for i in range(L):
            cards[i] = cw[j, P.CW_CARD + i]
            vals[i] = cw[j, P.CW_VAL + i]
        cw[j, P.CW_BAN] = 0
        # jokers forced on natural positions: the first one by the candidate, others free
        for m in range(1 << L):
            if joker != ((m & 1) == 1):
                continue
            forced = 0
            skip = False
            for i in range(L):
                if (m >> i) & 1:
                    if N[cards[i]] == 0 and i > 0:
                        skip = True  # a missing card is a joker anyway: counted with m's bit clear
                    forced += 1
            if skip or forced > W:
                continue
            for i in range(L):
                if (m >> i) & 1:
                    cw[j, P.CW_CARD + i] = -1
                    cw[j, P.CW_VAL + i] = 0
            used, gained, drop = P._take(cw, j, N, W, low_ace, FALSE, FALSE, undo[0], u0)
            # the row back as it was before bounding the rest: the same cards may form it
            # again, all natural (jokers standing where the hand holds the naturals)
            for i in range(L):
                cw[j, P.CW_CARD + i] = cards[i]
                cw[j, P.CW_VAL + i] = vals[i]
            if used >= 0:
                if need <= 0:  # no points asked: that the meld can be filled is enough
                    P._untake(cw, j, L, N, low_ace, undo[0])
                    return M.ZERO
                rest = P._root_bound(pb, K, N, W - used)
                P._untake(cw, j, L, N, low_ace, undo[0])
                best = max(best, gained + rest)
                if best >= need:
                    return best
        j = after[j]
    return best


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _index_first_cards(cw, K, first, after):
    """Chain the candidate melds by their first card: ``first[c]`` is the first row starting
    with card c (-1: none), ``after[j]`` the next one (rows in increasing order)."""
    for c in range(NUM_TYPES):
        first[c] = -1
    for j in range(K - 1, -1, -1):
        kind = cw[j, P.CW_KIND]
        c = cw[j, P.CW_CARD]
        if (kind == KIND_RUN or kind == KIND_SET) and c >= 0:
            after[j] = first[c]
            first[c] = j


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False, inline="always")
def _mask_build(s, p, ws, trusted):
    """The cards that may come next in the meld being built (a joker with the card it
    stands for), and closing it. ``trusted``: the position was reached by legal actions
    (the witnesses kept in the state may be used)."""
    N = ws[1]
    nxt = ws[7]
    X = _x_open(s)
    W = _hand_nw(s, p, N)
    total = np.int64(s.held[p])
    K = P.plan_windows(RULES, N, W, X, ws[0], FALSE)
    u0 = ws[0][7][P.SC_U0]
    srem = P.points_potential(N, u0) if not s.opened[p] else np.int64(0)
    k = _next_cards(s, nxt)
    if k < 0:
        # the first card: a natural some meld could hold, or a joker standing for a card
        # that two more cards at hand could follow; only if a candidate meld starting with
        # it can be filled from the hand (the search completes a meld from its first card
        # as one of them: a run of 3 to 5, a set of up to 4, or three jokers), and when
        # opening, only if that meld and the rest of the hand may still reach the points
        # (_first_card_bound: -1 when no such meld can be filled)
        # Each plan found also proves the first cards of its other melds (witnesses): those
        # are legal without a search of their own.
        cover = P.coverage(RULES, N, W)
        need, _ = _needs(s, p)
        scratch = ws[0][7]
        _index_first_cards(ws[0][0], K, ws[5], ws[6])
        P.record_witnesses(ws[0], TRUE)
        if trusted and s.wit_valid:
            scratch[P.SC_WIT_NAT] = s.wit_nat
            scratch[P.SC_WIT_WILD] = s.wit_wild
        for c in range(NUM_FACES):
            if N[c] and (cover >> np.int64(c)) & 1:
                if (scratch[P.SC_WIT_NAT] >> np.int64(c)) & 1:
                    s.legal[ADD0 + c] = 1
                    continue
                if _first_card_bound(c, FALSE, N, W, K, ws, need) < need:
                    continue
                if _build_ok(s, p, c, FALSE, K, ws, N, W, total, srem, u0):
                    s.legal[ADD0 + c] = 1
        if W:
            for c in range(NUM_FACES):
                if _first_joker_possible(s, p, c):
                    if (scratch[P.SC_WIT_WILD] >> np.int64(c)) & 1:
                        s.legal[JOKER0 + c] = 1
                        continue
                    if _first_card_bound(c, TRUE, N, W, K, ws, need) < need:
                        continue
                    if _build_ok(s, p, c, TRUE, K, ws, N, W, total, srem, u0):
                        s.legal[JOKER0 + c] = 1
        P.record_witnesses(ws[0], FALSE)
        return
    s.wit_valid = False  # a close check below may find new ones
    for i in range(k):
        c = nxt[i]
        if N[c] and _build_ok(s, p, c, FALSE, K, ws, N, W, total, srem, u0):
            s.legal[ADD0 + c] = 1
        if W and _build_ok(s, p, c, TRUE, K, ws, N, W, total, srem, u0):
            s.legal[JOKER0 + c] = 1
    # close: the meld is valid as it is, and the turn can still be finished once it is laid
    kind, pts, clean = _meld_value(s, ws[2])
    if kind == 0 or s.held[p] < 1:
        return
    opened = s.opened[p] != 0
    tp = np.int64(s.turn_points) + pts
    tc = s.turn_clean or clean
    if not opened and tp >= s.opening_points and tc:
        opened = True
    if opened and X < 0:
        s.legal[CLOSE] = 1
        return
    # the closed meld's effect on the opening, and the meld on the table (the card taken
    # from the discard may be laid off on it after), then a search for the rest of the turn
    keep_tp = s.turn_points
    keep_tc = s.turn_clean
    keep_op = s.opened[p]
    s.turn_points = tp
    s.turn_clean = tc
    s.opened[p] = 1 if opened else 0
    binfo = ws[2]
    _clear_binfo(binfo)
    T.lay_meld(RULES, s, p, np.int64(kind), s.build_rep, s.build_phys, s.build_n)
    P.record_witnesses(ws[0], TRUE)
    found = _plan(s, p, N, W, X, binfo, M.ZERO, K, ws, NONE, NONE)
    _keep_witnesses(s, ws, found)
    T.take_back_last_meld(s)
    if found:
        s.legal[CLOSE] = 1
    s.turn_points = keep_tp
    s.turn_clean = keep_tc
    s.opened[p] = keep_op


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _first_joker_possible(s, p, c):
    """Cheap filter for a meld opened by a joker standing for c: two more cards must be
    at hand (naturals or the other jokers) for a run up from c or a set of c's rank with
    higher suits."""
    W = np.int64(s.hands[p, JOKER]) - 1
    r = c // 4
    t = c % 4
    have = 0
    for u in range(t + 1, 4):
        if s.hands[p, r * 4 + u]:
            have += 1
    if min(have + W, 3 - t) >= 2:
        return True
    pos = 0 if r == 0 else r
    if pos + 2 > 13:
        return False
    have = 0
    for q in (pos + 1, pos + 2):
        if s.hands[p, card_at(t, q)]:
            have += 1
    return have + W >= 2


# --------------------------------------------------------------------------- apply an action
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def _close(s, p, ws):
    """Lay the meld being built in the first free slot; count it for the opening."""
    kind, pts, clean = _meld_value(s, ws[2])
    T.lay_meld(RULES, s, p, kind, s.build_rep, s.build_phys, s.build_n)
    s.turn_points += pts
    s.turn_melds += 1
    if clean:
        s.turn_clean = True
    if not s.opened[p] and s.turn_points >= s.opening_points and s.turn_clean:
        s.opened[p] = 1
    T.clear_build(s)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _finish_round(s, winner):
    """Score the round (the winner 0, the others their cards; a void round scores
    nothing), eliminate players at the elimination score, end the match or deal again.
    Returns True when the match ended."""
    P = s.num_players
    s.winner = winner
    s.round_points[:] = 0
    if winner < 0:
        s.void_rounds += 1
    if winner >= 0:
        for p in range(P):
            if s.eliminated[p] or p == winner:
                continue
            pts = 0
            for c in range(NUM_TYPES):
                pts += rami_penalty(c) * np.int64(s.hands[p, c])
            s.round_points[p] = pts
            s.scores[p] += pts
            if s.reward_mode == REWARD_ROUND:
                s.rewards[p] -= pts / 100.0
    for p in range(P):
        if not s.eliminated[p] and s.scores[p] >= s.elimination_score:
            s.eliminated[p] = 1
    if s.single_round or count_clear(s.eliminated, s.num_players) <= 1:
        s.terminated = True
        s.phase = PHASE_OVER
        if s.reward_mode == REWARD_MATCH:
            best = winner if s.single_round else next_seat(s.eliminated, P - 1, s.num_players)
            if best >= 0:
                for p in range(P):
                    s.rewards[p] += 1.0 if p == best else -1.0 / (P - 1)
        return True
    s.dealer = next_seat(s.eliminated, s.dealer, s.num_players)
    _start_round(s)
    return False


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, _nrt=False)
def apply_action(s, a, ws):
    """Apply a legal action of the current player (``ws``: the work arrays). Returns (a
    round ended, the seat whose turn starts now or -1); starting that turn
    (:func:`_enter_turn`) is the caller's."""
    p = s.current
    if a != TAKE_DISCARD and a != NEW_MELD and a != CLOSE:
        s.wit_valid = False  # the position changes: the witnesses kept are for the old one
    if a == DRAW_STOCK:
        s.drawn = T.draw_stock(s, p)
        s.phase = PHASE_PLAY
        return False, NONE
    if a == TAKE_DISCARD:
        s.pending = T.take_discard(s, p)
        s.pending_used = False
        s.phase = PHASE_PLAY
        return False, NONE
    if a == NEW_MELD:
        s.phase = PHASE_BUILD
        T.clear_build(s)
        return False, NONE
    if a < ADD0:
        s.target = a - LAYOFF0
        s.phase = PHASE_LAYOFF
        return False, NONE
    if a < CLOSE:
        joker = a >= JOKER0
        rep = a - JOKER0 if joker else a - ADD0
        phys = JOKER if joker else rep
        T.remove_card(s, p, phys)
        if s.pending >= 0 and phys == s.pending:
            s.pending_used = True
        if s.phase == PHASE_BUILD:
            n = s.build_n
            s.build_rep[n] = rep
            s.build_phys[n] = phys
            s.build_n = n + 1
        else:
            m = np.int64(s.target)
            ext = ws[3]
            k = T.table_extensions(RULES, s, m, ext)
            for i in range(k):
                if ext[i, 0] == rep:
                    T.place(s, m, ext[i, 1], phys)
                    break
            s.target = -1
            s.phase = PHASE_PLAY
        return False, NONE
    if a == CLOSE:
        _close(s, p, ws)
        s.phase = PHASE_PLAY
        return False, NONE
    # discard: the turn ends; discarding the last card wins the round
    c = a - DISCARD0
    T.discard_card(s, p, c)
    s.turns += 1
    if s.held[p] == 0:
        if _finish_round(s, np.int64(p)):
            return True, NONE
        return True, np.int64(s.current)  # the next round's first player
    if s.max_turns_per_round > 0 and s.turns >= s.max_turns_per_round:  # a stalled round: void
        if s.single_round:  # the round is the match: cut short, as by a time limit
            s.void_rounds += 1
            s.truncated = True
            s.phase = PHASE_OVER
            return False, NONE
        if _finish_round(s, NONE):
            return True, NONE
        return True, np.int64(s.current)
    return False, np.int64(next_seat(s.eliminated, p, s.num_players))


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def penalise(s, offender):
    """An illegal action under ``illegal_action="penalty"``: the game ends, -1 to the offender."""
    s.rewards[offender] = -1.0
    s.terminated = True
    s.phase = PHASE_OVER


# --------------------------------------------------------------------------- observation
@njit(cache=True, no_cfunc_wrapper=True, _nrt=False)
def observe(s, viewer, out):
    """What ``viewer`` sees, into ``out`` (OBS_DTYPE, OBS_SIZE): own hand, the discard pile,
    the table melds, the turn in progress, public seat data; never another player's
    cards or the stock order."""
    out[:] = 0
    P = s.num_players
    for c in range(NUM_TYPES):
        out[OBS_HAND + c] = s.hands[viewer, c]
    for i in range(s.pile_n):
        out[OBS_PILE + s.pile[i]] += 1
    if s.pile_n > 0:
        out[OBS_TOP + s.pile[s.pile_n - 1]] = 1
    T.observe_table(RULES, s, viewer, out, OBS_MELDS, MELD_FEATURES, OBS_TABLE)
    if s.phase < PHASE_OVER:
        out[OBS_PHASE + s.phase] = 1
    for i in range(s.build_n):
        out[OBS_BUILD + s.build_rep[i]] = 2 if s.build_phys[i] == JOKER else 1
    if s.target >= 0:
        out[OBS_TARGET + s.target] = 1
    if s.pending >= 0 and not s.pending_used:
        out[OBS_PENDING + s.pending] = 1
    out[OBS_TURN] = s.turn_points
    out[OBS_TURN + 1] = s.turn_clean
    out[OBS_TURN + 2] = s.turn_melds
    out[OBS_TURN + 3] = s.opening_points
    out[OBS_TURN + 4] = s.stock_n
    out[OBS_TURN + 5] = s.pile_n
    out[OBS_TURN + 6] = min(np.int64(s.round), OBS_MAX)
    out[OBS_TURN + 7] = min(np.int64(s.turns), OBS_MAX)
    live = s.phase != PHASE_OVER
    q = np.int64(viewer)
    for j in range(P):
        o = OBS_SEATS + j * SEAT_FEATURES
        out[o] = 1
        out[o + 1] = s.held[q]
        out[o + 2] = s.opened[q]
        out[o + 3] = min(np.int64(s.scores[q]), OBS_MAX)
        out[o + 4] = s.eliminated[q]
        out[o + 5] = live and q == s.current
        out[o + 6] = q == s.dealer
        out[o + 7] = min(np.int64(s.round_points[q]), OBS_MAX)
        q += 1
        if q == P:
            q = 0


UNSEEN_KEYS = MAX_CARDS + 1  # random keys per game that deal_unseen_batch may use


@njit(cache=True, no_cfunc_wrapper=True)
def deal_unseen_batch(states, seats, keys, keep_hands):
    """Deal anew, in game i, the cards seat ``seats[i]`` cannot see: the stock and the
    other hands, but the card the player to move took from the discard pile and has not
    laid yet (everyone saw it taken). Every hand and the stock keep their sizes, the
    discard pile and the table stay; ``keys[i]`` (uniform in [0, 1), UNSEEN_KEYS of them)
    drive the shuffle and reseed the game's random stream (the stock's later rebuilds).
    What the seat observes is unchanged: this samples the deals it cannot tell apart (a
    rollout search's determinisation). ``keep_hands`` leaves the other hands as they are
    (the stock alone is shuffled). The caller refreshes the states (``refresh_batch``)
    before stepping them. Returns a flag per game, True: every deal is consistent with
    the seat's view beyond the player to move being able to go on (the caller's check)."""
    ok = np.ones(states.shape[0], dtype=np.bool_)
    known = np.zeros((MAX_PLAYERS, NUM_TYPES), dtype=np.int64)
    for i in range(states.shape[0]):
        s = states[i]
        seat = seats[i]
        known[:] = 0
        cur = s.current
        if keep_hands:
            for q in range(MAX_PLAYERS):
                for c in range(NUM_TYPES):
                    known[q, c] = s.hands[q, c]
        elif s.phase != PHASE_OVER and cur != seat:
            if s.pending >= 0 and not s.pending_used:
                known[cur, s.pending] = 1
            s.drawn = -1  # which card it drew is not seen (only a timeout's default reads it)
        T.redeal_unseen(s, seat, known, keys[i])
        s.wit_valid = False  # the mover's hand may have changed: its masks are searched anew
    return ok


# --------------------------------------------------------------------------- the step driver's hooks
# The batch driver (cardenvs/core/step_driver.py, the same for every game: holds, resets,
# finished matches, penalties, forced moves, outputs) steps a batch of games around these,
# each called with the driver's parameters (used or not). numba links, re-optimises and
# emits every callee into each compiled function that calls it, so each layer above the
# turn planner costs seconds of cold compile: the hooks that reach the planner are
# inlined into the driver (``inline="always"``), which is then the one function above it.
# The big record is read at scattered offsets: the driver fetches the next game's record
# ahead ("prefetch") and takes its output rows without reference counts ("borrow_outputs").
DRIVER_OPTIONS = ("borrow_outputs", "prefetch")
new_workspace = workspace  # the planner's work arrays: one record


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def start_match(s, ws):
    """A new match (ACT_RESET, MODE_AUTO_RESET), whose first turn starts with its check."""
    new_match(s)
    _enter_turn(s, np.int64(s.current), ws)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def refresh(s):
    """ACT_REFRESH: a state loaded from outside gets its derived counts back; the witnesses
    it may carry are not believed (the driver's ``trusted`` is False for its mask)."""
    T.recount(s)
    s.wit_valid = False


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def apply_legal_action(s, a, ws):
    """Apply the action, then start the next player's turn here, not in ``apply_action``:
    its check uses the planner, which would compile once more inside ``apply_action``.
    Returns True when a round ended."""
    ended, q = apply_action(s, a, ws)
    if q >= 0 and _enter_turn(s, q, ws):
        ended = True
    return ended


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def legal_mask(s, ws, trusted):
    """The legal actions of the player to move, into ``s.legal``. ``trusted``: the
    witnesses kept in the state by earlier steps may be used (not after ACT_REFRESH).
    The draw and lay-off phases' masks are written here, in the driver, rather than in
    a function of their own above the planner."""
    for k in range(NUM_ACTIONS):  # constant bounds: stores, not a memset call
        s.legal[k] = 0
    p = np.int64(s.current)
    if s.phase == PHASE_DRAW:
        if s.stock_n > 0 or s.pile_n >= 2:  # an empty stock is rebuilt when drawn from
            s.legal[DRAW_STOCK] = 1
        P.record_witnesses(ws[0], TRUE)
        found = _take_ok(s, p, ws)
        _keep_witnesses(s, ws, found)
        if found:
            s.legal[TAKE_DISCARD] = 1
    elif s.phase == PHASE_PLAY:
        _mask_play(s, p, ws, trusted)
    elif s.phase == PHASE_BUILD:
        _mask_build(s, p, ws, trusted)
    elif s.phase == PHASE_LAYOFF:  # the cards (a joker standing for one) that extend the meld
        m = np.int64(s.target)
        ext = ws[3]
        for e in range(T.table_extensions(RULES, s, m, ext)):
            c = ext[e, 0]
            if s.hands[p, c] and _layoff_ok(s, p, m, c, ext[e, 1], FALSE, ws):
                s.legal[ADD0 + c] = 1
            if s.hands[p, JOKER] and _layoff_ok(s, p, m, c, ext[e, 1], TRUE, ws):
                s.legal[JOKER0 + c] = 1


# The batch step: core's one driver, bound to the hooks above.
step_batch, step_batch_parallel, observe_batch, mask_batch, reset_batch, refresh_batch = bind(sys.modules[__name__])
