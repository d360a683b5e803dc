"""Président (trou de cul): the rules as numba kernels over a record per game.

Reads like the rule book (the rules as ``docs/games/president.md`` gives them):
state layout, deal, legal actions, apply an action, scoring, observation, the hooks
of the batch step (core/step_driver.py binds the game's driver to them). The player-facing page is
``docs/games/president.md``.

Suits carry no meaning in Président once the first lead (which must hold the 3♣)
is made, so a play is named by its rank and its number of cards; the cards leave
the hand lowest suit first (clubs, diamonds, hearts, spades), which always puts
the 3♣ into a lead of threes.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from cardenvs.core.cards import RANKS
from cardenvs.core.rng import rand_below, shuffle, shuffle_by_keys, shuffled_pool
from cardenvs.core.seats import count_clear, next_seat
from cardenvs.core.step_driver import bind

# --------------------------------------------------------------------------- layout
MAX_PLAYERS = 10
NUM_CARDS = 52  # card types; two decks hold each twice
NUM_RANKS = 13
MAX_PER_RANK = 8  # two decks
# President rank order, weakest first; index 12 is the 2, which is not ranked.
PRES_RANKS = "3456789TJQKA2"
TWO = 12
# standard rank index (A=0, 2=1, ..., K=12) of each president rank
_STD_RANK = np.array([RANKS.index(r) for r in PRES_RANKS], dtype=np.int64)

# Action encoding (see docs/games/president.md):
PASS = 0  # pass, or decline an out-of-turn completion
PLAY0 = 1  # PLAY0 + rank * 8 + (count - 1): play `count` cards of president rank `rank`
GIVE0 = PLAY0 + NUM_RANKS * MAX_PER_RANK  # GIVE0 + rank: the president returns a card to trou A
NUM_ACTIONS = GIVE0 + NUM_RANKS

# Phases
PHASE_PLAY = 0  # the current player plays or passes
PHASE_OFFER = 1  # the current player may complete a four out of turn (play) or decline (pass)
PHASE_EXCHANGE = 2  # the president chooses the card to return to trou A
PHASE_OVER = 3  # the match is over
PHASE_NAMES = ("play", "offer", "exchange", "over")

REWARD_MATCH = 0  # zero-sum match outcome when the match ends
REWARD_ROUND = 1  # each round's points when the round ends
REWARD_MODES = ("match", "round")

# Who is asked to complete a four out of turn (option completion_offers)
OFFER_PUBLIC = 0  # every player in play who could, by public information: asking reveals nothing
OFFER_HOLDERS = 1  # only players holding exactly the missing cards: fewer decisions, but the offer reveals them
OFFER_MODES = ("public", "holders")

STATE_DTYPE = np.dtype(
    [
        ("rng", np.uint64),
        # options, copied from the template at every reset
        ("num_players", np.int8),
        ("decks", np.int8),
        ("target_score", np.int16),
        ("single_round", np.bool_),
        ("reward_mode", np.int8),
        ("two_is_highest", np.bool_),
        ("completion_offers", np.int8),
        ("max_steps", np.int32),
        # match
        ("scores", np.int16, (MAX_PLAYERS,)),
        ("round", np.int16),
        ("dealer", np.int8),
        ("president", np.int8),  # first place of the previous round, -1 in round 1
        ("trou", np.int8),  # last place of the previous round, -1 in round 1
        ("num_steps", np.int32),
        ("terminated", np.bool_),
        ("truncated", np.bool_),
        ("rewards", np.float32, (MAX_PLAYERS,)),
        # round
        ("hands", np.uint8, (MAX_PLAYERS, NUM_CARDS)),
        ("played", np.uint8, (NUM_CARDS,)),  # cards out of the hands this round, pile included
        ("phase", np.int8),
        ("current", np.int8),
        ("first_lead", np.bool_),  # the next play is the match's first lead: it holds the 3♣
        ("pile_rank", np.int8),  # president rank of the top play, -1 when the pile is empty
        ("pile_count", np.int8),  # cards in the top play
        ("run_count", np.int8),  # cards in the latest consecutive plays of pile_rank
        ("last_player", np.int8),  # who made the top play, -1 when the pile is empty
        ("matched", np.bool_),  # the top play matched the one before: skip the next player
        ("out", np.uint8, (MAX_PLAYERS,)),  # gone out, or stuck with only 2s
        ("finish_order", np.int8, (MAX_PLAYERS,)),  # seats that went out, in order
        ("num_finished", np.int8),
        ("stuck_order", np.int8, (MAX_PLAYERS,)),  # seats stuck with only 2s, in order
        ("num_stuck", np.int8),
        ("received", np.int8, (MAX_PLAYERS,)),  # card id received in this round's exchange
        ("given", np.int8, (MAX_PLAYERS,)),  # card id given in this round's exchange
        ("last_places", np.int8, (MAX_PLAYERS,)),  # place (1 = president) of the last round
        # derived from hands (kept in step for speed, recounted after a scenario load)
        ("rank_counts", np.uint8, (MAX_PLAYERS, NUM_RANKS)),  # cards held per president rank
        ("held", np.uint8, (MAX_PLAYERS,)),  # cards held
        ("legal", np.uint8, (NUM_ACTIONS,)),  # the current player's legal actions
    ]
)

# Observation layout (float32), seen from the observer's seat (seat 0 = the observer)
OBS_HAND = 0  # 13 counts of own cards by president rank
OBS_PILE_RANK = OBS_HAND + NUM_RANKS  # 13: one-hot rank of the top play
OBS_PILE_COUNT = OBS_PILE_RANK + NUM_RANKS  # cards in the top play
OBS_RUN_COUNT = OBS_PILE_COUNT + 1  # cards in the latest run of that rank
OBS_PLAYED = OBS_RUN_COUNT + 1  # 13: cards of each rank played this round
OBS_PHASE = OBS_PLAYED + NUM_RANKS  # 3: play, offer, exchange
OBS_FIRST_LEAD = OBS_PHASE + 3  # the lead must contain the 3♣
OBS_RECEIVED = OBS_FIRST_LEAD + 1  # 13: one-hot rank received in this round's exchange
OBS_GIVEN = OBS_RECEIVED + NUM_RANKS  # 13: one-hot rank given in this round's exchange
OBS_TARGET = OBS_GIVEN + NUM_RANKS  # target score
OBS_SEATS = OBS_TARGET + 1  # per relative seat, SEAT_FEATURES values
SEAT_FEATURES = 8  # present, cards held, in play, stuck, finish place, score, last to play, to move
OBS_SIZE = OBS_SEATS + MAX_PLAYERS * SEAT_FEATURES
OBS_DTYPE = np.float32


# --------------------------------------------------------------------------- helpers
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _pres_rank(card):
    """President rank of a card id (3 -> 0, ..., A -> 11, 2 -> 12)."""
    return (card // 4 + NUM_RANKS - 2) % NUM_RANKS


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def play_action(rank, count):
    return PLAY0 + rank * MAX_PER_RANK + count - 1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def rank_count(s, p, rank):
    return np.int64(s.rank_counts[p, rank])


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def hand_size(s, p):
    return np.int64(s.held[p])


@njit(cache=True, no_cfunc_wrapper=True)
def recount(s):
    """Rebuild the derived per-rank counts from the hands."""
    for p in range(MAX_PLAYERS):
        n = 0
        for r in range(NUM_RANKS):
            c = _STD_RANK[r] * 4
            k = s.hands[p, c] + s.hands[p, c + 1] + s.hands[p, c + 2] + s.hands[p, c + 3]
            s.rank_counts[p, r] = k
            n += k
        s.held[p] = n


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _add_card(s, p, card):
    s.hands[p, card] += 1
    s.rank_counts[p, _pres_rank(card)] += 1
    s.held[p] += 1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _take_card(s, p, rank, lowest_first):
    """Remove one card of ``rank`` from p's hand (lowest or highest suit); return its id."""
    base = _STD_RANK[rank] * 4
    for i in range(4):
        c = base + i if lowest_first else base + 3 - i
        if s.hands[p, c] > 0:
            s.hands[p, c] -= 1
            s.rank_counts[p, rank] -= 1
            s.held[p] -= 1
            return c
    return -1


# --------------------------------------------------------------------------- deal
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _deal(s):
    """Shuffle the decks and deal every card, one at a time, from the dealer's left."""
    P = s.num_players
    n = NUM_CARDS * s.decks
    deck = np.empty(n, dtype=np.int64)
    for i in range(n):
        deck[i] = i % NUM_CARDS
    shuffle(s, deck, n)
    s.hands[:] = 0
    for i in range(n):
        s.hands[(s.dealer + 1 + i) % P, deck[i]] += 1
    recount(s)
    s.played[:] = 0
    s.pile_rank = -1
    s.pile_count = 0
    s.run_count = 0
    s.last_player = -1
    s.matched = False
    s.out[:] = 0
    s.num_finished = 0
    s.num_stuck = 0
    s.finish_order[:] = -1
    s.stuck_order[:] = -1
    s.received[:] = -1
    s.given[:] = -1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _start_round(s):
    """Deal a round. Round 1: the first holder of 3♣ from the dealer's left leads it.
    Later rounds: trou A deals and gives the president their highest card, then the
    president chooses a card to return (an action), then leads."""
    s.round += 1
    _deal(s)
    P = s.num_players
    if s.president < 0:
        s.first_lead = True
        s.phase = PHASE_PLAY
        three_clubs = _STD_RANK[0] * 4  # 3c
        for i in range(1, P + 1):
            q = (s.dealer + i) % P
            if s.hands[q, three_clubs] > 0:
                s.current = q
                break
        return
    s.first_lead = False
    # trou A's highest card: a 2 if any (option two_is_highest), else the highest rank;
    # among equal ranks the highest suit.
    top = TWO if s.two_is_highest else TWO - 1
    card = -1
    for r in range(top, -1, -1):
        if rank_count(s, s.trou, r) > 0:
            card = _take_card(s, s.trou, r, np.bool_(False))
            break
    _add_card(s, s.president, card)
    s.given[s.trou] = card
    s.received[s.president] = card
    s.phase = PHASE_EXCHANGE
    s.current = s.president


@njit(cache=True, no_cfunc_wrapper=True)
def new_match(s, ws):
    """Reset every match field (options and rng are kept) and deal round 1. (``ws``: the
    step driver's work arrays, which Président does not use.)"""
    P = s.num_players
    s.scores[:] = 0
    s.round = 0
    s.dealer = rand_below(s, P)
    s.president = -1
    s.trou = -1
    s.num_steps = 0
    s.terminated = False
    s.truncated = False
    s.rewards[:] = 0.0
    s.last_places[:] = 0
    _start_round(s)


# --------------------------------------------------------------------------- legal actions
@njit(cache=True, no_cfunc_wrapper=True)
def legal_mask(s, ws, trusted):
    """Compute the current player's legal actions into ``s.legal`` (``ws``, ``trusted``: the
    step driver's, unused: no work arrays, nothing kept between steps)."""
    mask = s.legal
    mask[:] = 0
    if s.phase == PHASE_OVER:
        return
    p = s.current
    if s.phase == PHASE_EXCHANGE:
        for r in range(NUM_RANKS):
            if rank_count(s, p, r) > 0:
                mask[GIVE0 + r] = 1
        return
    if s.phase == PHASE_OFFER:
        mask[PASS] = 1
        if rank_count(s, p, s.pile_rank) == 4 - s.run_count:
            mask[play_action(s.pile_rank, 4 - s.run_count)] = 1
        return
    held = hand_size(s, p)
    empty = s.pile_rank < 0
    if not empty:
        mask[PASS] = 1
    for r in range(NUM_RANKS):
        n = rank_count(s, p, r)
        if n == 0:
            continue
        if s.first_lead and r != 0:
            continue  # the first lead must contain the 3 of clubs
        for k in range(1, n + 1):
            if r == TWO:
                ok = k < held  # a 2 may go on anything, but nobody goes out on a 2
            elif empty:
                ok = True
            else:
                ok = k > s.pile_count or (k == s.pile_count and r >= s.pile_rank)
            if ok:
                mask[play_action(r, k)] = 1


# --------------------------------------------------------------------------- apply an action
@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _clear_pile(s):
    s.pile_rank = -1
    s.pile_count = 0
    s.run_count = 0
    s.last_player = -1
    s.matched = False


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _lead_after_clear(s, seat):
    """After the pile clears the same player leads again, or the next one in play."""
    _clear_pile(s)
    s.phase = PHASE_PLAY
    s.current = seat if not s.out[seat] else next_seat(s.out, seat, s.num_players)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _pass_turn(s, seat, skips):
    """Move the turn on from ``seat``, skipping ``skips`` players in play. When the
    turn comes back to the player who made the top play the pile clears and they
    lead (or, if they are out, the next player in play)."""
    P = s.num_players
    q = seat
    for _ in range(2 * P + 2):
        q = (q + 1) % P
        if q == s.last_player:
            _lead_after_clear(s, q)
            return
        if s.out[q]:
            continue
        if skips > 0:
            skips -= 1
            continue
        s.phase = PHASE_PLAY
        s.current = q
        return


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _next_offer(s, after):
    """Next seat after ``after`` (before the last player, clockwise from their left)
    to be asked whether they complete the four on the pile; -1 if none.

    By default (OFFER_PUBLIC) the question goes round only when enough cards of the
    rank are still out of play, and then to every player in play holding at least
    the missing number of cards: who is asked depends on public information only,
    and only a player holding exactly the missing cards can accept."""
    P = s.num_players
    need = 4 - s.run_count
    public = s.completion_offers == OFFER_PUBLIC
    if public:
        base = _STD_RANK[s.pile_rank] * 4
        in_hands = 4 * s.decks - (s.played[base] + s.played[base + 1] + s.played[base + 2] + s.played[base + 3])
        if in_hands < need:
            return -1
    q = after
    while True:
        q = (q + 1) % P
        if q == s.last_player:
            return -1
        if s.out[q]:
            continue
        if (public and s.held[q] >= need) or (not public and rank_count(s, q, s.pile_rank) == need):
            return q


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _end_round(s):
    """Rank the players, score +2 president and +1 vice, and end the match or deal again."""
    P = s.num_players
    places = np.empty(P, dtype=np.int64)
    n = 0
    for i in range(s.num_finished):
        places[n] = s.finish_order[i]
        n += 1
    for p in range(P):
        if not s.out[p]:
            places[n] = p  # the last player still holding cards
            n += 1
    for i in range(s.num_stuck - 1, -1, -1):
        places[n] = s.stuck_order[i]  # stuck players rank last; the first one stuck is trou A
        n += 1
    for i in range(P):
        s.last_places[places[i]] = i + 1
    # +2 to the first player out (president), +1 to the second (vice-president)
    for i in range(min(2, s.num_finished)):
        s.scores[s.finish_order[i]] += 2 - i
        if s.reward_mode == REWARD_ROUND:
            s.rewards[s.finish_order[i]] += 2.0 - i
    s.president = places[0]
    s.trou = places[P - 1]
    best = 0
    for p in range(P):
        best = max(best, s.scores[p])
    if s.single_round or best >= s.target_score:
        s.terminated = True
        s.phase = PHASE_OVER
        if s.reward_mode == REWARD_MATCH:
            _match_outcome(s, best)
        return
    s.dealer = s.trou
    _start_round(s)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _match_outcome(s, best):
    """Zero-sum outcome: the winners share +1, the others share -1 (all tied: 0)."""
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


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _play(s, p, rank, count):
    """Player p plays ``count`` cards of ``rank`` (in turn or completing a four)."""
    for _ in range(count):
        s.played[_take_card(s, p, rank, np.bool_(True))] += 1
    s.first_lead = False
    cleared = False
    if rank == TWO:
        cleared = True  # 2s clear the pile
    else:
        s.matched = s.pile_rank == rank and s.pile_count == count
        s.run_count = s.run_count + count if s.pile_rank == rank else count
        s.pile_rank = rank
        s.pile_count = count
        s.last_player = p
        if s.run_count >= 4:
            cleared = True  # four of a kind on the pile clears it
    held = hand_size(s, p)
    if held == 0:
        s.out[p] = 1
        s.finish_order[s.num_finished] = p
        s.num_finished += 1
    elif rank_count(s, p, np.int64(TWO)) == held:
        s.out[p] = 1  # only 2s left: stuck, ranks last
        s.stuck_order[s.num_stuck] = p
        s.num_stuck += 1
    if count_clear(s.out, s.num_players) <= 1:
        _end_round(s)
        return True
    if cleared:
        _lead_after_clear(s, p)
        return False
    q = _next_offer(s, p)
    if q >= 0:
        s.phase = PHASE_OFFER
        s.current = q
    else:
        _pass_turn(s, p, 1 if s.matched else 0)
    return False


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def apply_action(s, a, ws):
    """Apply a legal action of the current player; return True when a round ended."""
    p = s.current
    if s.phase == PHASE_EXCHANGE:
        card = _take_card(s, p, a - GIVE0, np.bool_(True))
        _add_card(s, s.trou, card)
        s.given[p] = card
        s.received[s.trou] = card
        s.phase = PHASE_PLAY  # the president leads
        return False
    if a == PASS:
        if s.phase == PHASE_OFFER:
            q = _next_offer(s, p)
            if q >= 0:
                s.current = q
            else:
                _pass_turn(s, s.last_player, 1 if s.matched else 0)
        else:
            _pass_turn(s, p, np.int64(0))
        return False
    rank = (a - PLAY0) // MAX_PER_RANK
    count = (a - PLAY0) % MAX_PER_RANK + 1
    return _play(s, p, rank, count)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def penalise(s, offender):
    """An illegal action under ``illegal_action="penalty"``: the game ends, -1 to the offender."""
    s.rewards[offender] = -1.0
    s.terminated = True
    s.phase = PHASE_OVER


# --------------------------------------------------------------------------- observation
@njit(cache=True, no_cfunc_wrapper=True)
def observe(s, viewer, out):
    """What ``viewer`` sees, into ``out`` (float32, OBS_SIZE): own hand, the pile, the
    cards played, public seat data; never another player's cards."""
    out[:] = 0.0
    P = s.num_players
    for r in range(NUM_RANKS):
        out[OBS_HAND + r] = s.rank_counts[viewer, r]
        base = _STD_RANK[r] * 4
        out[OBS_PLAYED + r] = s.played[base] + s.played[base + 1] + s.played[base + 2] + s.played[base + 3]
    if s.pile_rank >= 0:
        out[OBS_PILE_RANK + s.pile_rank] = 1.0
        out[OBS_PILE_COUNT] = s.pile_count
        out[OBS_RUN_COUNT] = s.run_count
    if s.phase < PHASE_OVER:
        out[OBS_PHASE + s.phase] = 1.0
    out[OBS_FIRST_LEAD] = s.first_lead
    if s.received[viewer] >= 0:
        out[OBS_RECEIVED + _pres_rank(s.received[viewer])] = 1.0
    if s.given[viewer] >= 0:
        out[OBS_GIVEN + _pres_rank(s.given[viewer])] = 1.0
    out[OBS_TARGET] = s.target_score
    for j in range(P):
        q = (viewer + j) % P
        o = OBS_SEATS + j * SEAT_FEATURES
        out[o] = 1.0
        out[o + 1] = hand_size(s, q)
        out[o + 2] = not s.out[q]
        out[o + 3] = False
        for i in range(s.num_stuck):
            if s.stuck_order[i] == q:
                out[o + 3] = True
        for i in range(s.num_finished):
            if s.finish_order[i] == q:
                out[o + 4] = i + 1
        out[o + 5] = s.scores[q]
        out[o + 6] = s.last_player == q
        out[o + 7] = s.current == q and s.phase != PHASE_OVER


# --------------------------------------------------------------------------- unseen cards
# What a seat knows of the other hands (docs/games/president.md, "What a seat cannot see"):
# their sizes; every card played; a player stuck with only 2s holds 2s alone; before the
# match's first lead, the player to move holds a 3 of clubs and (two decks) the players
# before it from the dealer's left hold none; a player in play holds a card other than a
# 2 (else it would be stuck). The exchange is seen by its two players only: the president
# knows the card it gave back is in trou A's hand until that card is played, and that
# trou A's other cards rank at most as high as the card trou A gave (trou A's highest);
# trou A knows the card it gave is in the president's hand until it is played (unless
# the president gave it straight back). A seat outside the exchange does not know which
# cards it moved: its re-deal forgets them (``given``/``received`` of those two cleared),
# since the cards they name may now lie anywhere.
UNSEEN_KEYS = 4 * NUM_CARDS  # random keys per game: two shuffles of up to 104 cards
_THREE_CLUBS = int(_STD_RANK[0]) * 4  # card id of the 3 of clubs


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _give_key(card, two_is_highest):
    """Where a card stands in trou A's choice of its highest card: rank, then suit (2s
    below every rank when they are not the highest)."""
    r = _pres_rank(card)
    if r == TWO and not two_is_highest:
        return np.int64(-1)
    return np.int64(r * 4 + card % 4)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _known_to(s, v, known, allowed, restricted):
    """What seat v knows of the other hands: ``known[q, c]`` cards of type c that stay in
    hand q, and, for the hands marked ``restricted``, the cards they may hold
    (``allowed[q, c]``; every restricted hand here shares one such set). A card is counted
    known only where the hand holds it (always, in a position reached by play)."""
    P = s.num_players
    known[:] = 0
    restricted[:] = False
    for q in range(P):
        if q != v and s.out[q] and s.held[q] > 0:  # stuck: its 2s were seen
            for c in range(NUM_CARDS):
                known[q, c] = s.hands[q, c]
    if s.first_lead:
        cur = np.int64(s.current)
        if cur != v and s.decks == 1:
            known[cur, _THREE_CLUBS] = 1  # the one 3 of clubs (two decks: checked after the deal)
        q = (s.dealer + 1) % P
        while q != cur:  # the first holder leads: the players before it hold no 3 of clubs
            if q != v:
                restricted[q] = True
                allowed[q, :] = True
                allowed[q, _THREE_CLUBS] = False
            q = (q + 1) % P
        return
    pres, trou = np.int64(s.president), np.int64(s.trou)
    if pres < 0 or trou < 0 or pres == trou:
        return
    if v == pres and s.received[v] >= 0 and not s.out[trou]:
        back = np.int64(s.given[v])  # -1 while the president is choosing it
        back_known = back >= 0 and s.played[back] == 0 and s.hands[trou, back] > known[trou, back]
        if back_known:
            known[trou, back] += 1
        top = _give_key(np.int64(s.received[v]), s.two_is_highest)
        restricted[trou] = True
        for c in range(NUM_CARDS):
            # another copy of the card given back may be the one it holds once a copy was played
            allowed[trou, c] = _give_key(c, s.two_is_highest) <= top or (c == back and not back_known)
    if v == trou and s.given[v] >= 0 and not s.out[pres]:
        gave = np.int64(s.given[v])
        if s.played[gave] == 0 and s.received[v] != gave and s.hands[pres, gave] > known[pres, gave]:
            known[pres, gave] += 1


@njit(cache=True, no_cfunc_wrapper=True)
def deal_unseen_batch(states, seats, keys, keep_hands):
    """Deal anew, in game i, the cards seat ``seats[i]`` cannot see (the other hands but
    the cards known to be in them; see "unseen cards" above), uniformly among the deals
    that keep every fact that seat knows. The hands restricted to some cards take theirs
    first, from the shuffled pool in its order (a uniform choice among the cards they may
    hold); the cards left are shuffled again (their order after the first pass is not
    uniform: the cards passed over sit in front) and fill the other hands. Every hand keeps
    its size; ``keys[i]`` (uniform in [0, 1), UNSEEN_KEYS of them: one block a shuffle)
    drive it. ``keep_hands`` leaves every hand as it is (President has no stock). The
    caller refreshes the states (``refresh_batch``). Returns a flag per game, False for a
    deal to draw again: a player in play left with only 2s, or (two decks) the player to
    make the first lead without a 3 of clubs."""
    n = states.shape[0]
    ok = np.ones(n, dtype=np.bool_)
    known = np.zeros((MAX_PLAYERS, NUM_CARDS), dtype=np.int64)
    allowed = np.ones((MAX_PLAYERS, NUM_CARDS), dtype=np.bool_)
    restricted = np.zeros(MAX_PLAYERS, dtype=np.bool_)
    unseen = np.zeros(NUM_CARDS, dtype=np.int64)
    free = np.zeros(MAX_PLAYERS, dtype=np.int64)
    half = UNSEEN_KEYS // 2
    pool = np.empty(half, dtype=np.int64)
    rest = np.empty(half, dtype=np.int64)
    used = np.zeros(half, dtype=np.bool_)
    for i in range(n * (not keep_hands)):
        s = states[i]
        if s.phase == PHASE_OVER:
            continue
        P = s.num_players
        v = np.int64(seats[i])
        _known_to(s, v, known, allowed, restricted)
        unseen[:] = 0
        for q in range(P):
            if q != v:
                free[q] = 0
                for c in range(NUM_CARDS):
                    # int64: uint8 - uint8 is unsigned in numba (a known card is always held)
                    k = np.int64(s.hands[q, c]) - known[q, c]
                    unseen[c] += k
                    free[q] += k
                    s.hands[q, c] = known[q, c]
        m = shuffled_pool(unseen, pool, keys[i, :half])
        used[:m] = False
        for q in range(P):  # the restricted hands first: the first cards they may hold
            if q != v and restricted[q]:
                need = free[q]
                for j in range(m):
                    if need == 0:
                        break
                    if not used[j] and allowed[q, pool[j]]:
                        used[j] = True
                        s.hands[q, pool[j]] += 1
                        need -= 1
                if need > 0:
                    ok[i] = False  # never for a state reached by play
        r = 0
        for j in range(m):  # the cards left, shuffled again, for the other hands
            if not used[j]:
                rest[r] = pool[j]
                r += 1
        shuffle_by_keys(rest, r, keys[i, half:])
        j = 0
        for q in range(P):
            if q != v and not restricted[q]:
                for _ in range(free[q]):
                    s.hands[q, rest[j]] += 1
                    j += 1
        recount(s)
        for q in range(P):
            if q != v and not s.out[q] and s.held[q] > 0 and s.rank_counts[q, TWO] == s.held[q]:
                ok[i] = False
        if s.first_lead and s.hands[s.current, _THREE_CLUBS] == 0:
            ok[i] = False
        pres, trou = np.int64(s.president), np.int64(s.trou)
        if pres >= 0 and trou >= 0 and v != pres and v != trou:
            s.given[pres] = -1  # the exchange's cards, unknown to this seat, may lie anywhere now
            s.received[pres] = -1
            s.given[trou] = -1
            s.received[trou] = -1
    return ok


# --------------------------------------------------------------------------- the step driver's hooks
# The batch driver (cardenvs/core/step_driver.py, the same for every game: holds, resets,
# finished matches, penalties, forced moves, outputs) steps a batch of games around these,
# each called with the driver's parameters (used or not). Président needs no work arrays and
# keeps its mask in ``s.legal``, so the rest is the driver's default.
start_match = new_match  # ACT_RESET, and a finished match restarted (MODE_AUTO_RESET)
refresh = recount  # ACT_REFRESH: a state loaded from outside gets its derived counts back
apply_legal_action = apply_action  # True when a round ended
# legal_mask(s, ws, trusted) (above): the legal actions of the player to move, into s.legal


# The driver prefetches the next game's record while it steps one: a President record is
# nearly 1 kB, and the best batch (8,192 games, 8 MB of records) is stepped from memory, not
# from the caches (measured: a quarter less time per decision at that batch). It takes the
# rows of its outputs without reference counts ("borrow_outputs", core/borrow.py).
DRIVER_OPTIONS = ("borrow_outputs", "prefetch")

# The batch step: core's one driver, bound to the hooks above.
step_batch, step_batch_parallel, observe_batch, mask_batch, reset_batch, refresh_batch = bind(sys.modules[__name__])
