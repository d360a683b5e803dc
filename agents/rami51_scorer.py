"""Rami 51's card scorer: a trained player that values each legal action from a few numbers.

Where a network over the whole observation learns the deals it was trained on, this one
sees an action through numbers that carry from one card to another:

- the action's kind: draw, take the discard, start a meld, pick a table meld, add a card,
  lay a joker, close the meld, discard;
- the card it moves (or takes) and how that card sits in the hand: other cards of its
  rank, of its suit one and two positions away, a duplicate, its penalty, whether a meld
  of the hand could hold it (with no joker, one, the jokers held), what melds could hold
  without it (cards, and points toward the opening), whether it fits
  a table meld and whether the next player or anyone else who has opened could lay it
  there, the copies already seen on the table and in the pile; its rank;
- the copies of the card's partners (its rank, its suit one and two positions away)
  that nobody has shown; for a table meld picked, its size, whether it is a run or the
  seat's own, and how many cards of the hand fit it; whether a joker is laid;
- the position: who has opened, the hand sizes, the stock, the phase of the turn, the
  meld being built and the points laid this turn;
- the hand as a whole and the turn so far: what the melds of the hand are worth (with
  and without jokers), its penalty, the cards no meld could hold, the jokers held,
  whether a clean run and how many melds were laid this turn, the points still missing
  for the opening, a card taken from
  the discard still to lay, the discard pile's size, the smallest hand of the others,
  the melds on the table and the points of the meld being built;
- the hand the action leaves (the card given up, the discard top taken, a joker laid):
  the cards no meld of it could hold and their penalty, and how many cards its melds
  could hold with no joker and with one.

One set of weights per group of kinds (``groups`` in the file) scores every action of
those kinds, so what is learnt of one card holds for the others. The agent plays the
legal action it scores highest (ties: the lowest action id); with one legal action it
plays that. ``cardenvs train scorer rami51`` trains one
(:mod:`cardenvs.agents.training.card_scorer`); ``make_agent("scorer", spec)`` loads the one
shipped with the package for the table's episode (:func:`shipped_scorer`: whole matches or
single rounds) and ``make_agent("scorer:PATH", spec)`` one written by training.

File format (``cardenvs-scorer/3``, an ``.npz``; version 1 files had the first 61
inputs only and version 2 files the first 82, and both are refused): ``meta`` (a JSON
string: ``format``,
``env_id``, ``num_players``, ``options``, ``groups``: one group index per kind,
``layers``), ``mean`` and ``std`` (``NUM_FEATURES`` float32: the input is
``(x - mean) / std``) and, for each group ``g``, ``g{g}_w{k}``, ``g{g}_b{k}``: dense
layers ``x @ w + b`` with tanh between them, the last one giving one value.

The numbers are read off the observation alone (what the seat sees), by numba kernels.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from cardenvs.agents.base import Agent, check_mask, observations_as
from cardenvs.agents.ppo import save_npz
from cardenvs.core.bits import popcount
from cardenvs.core.protocol import GameSpec
from cardenvs.games.rami51 import rules as R
from cardenvs.games.rami51.plan import CARD_VALUE, coverage, points_potential, rami_penalty

SCORER_FORMAT = "cardenvs-scorer/3"
#: the files shipped with the package: ``make_agent("scorer", spec)`` plays the one for the
#: table's episode (:func:`shipped_scorer`): single rounds (4 players), or whole matches
SHIPPED = Path(__file__).resolve().parent / "baselines" / "rami51-scorer.npz"
SHIPPED_MATCHES = Path(__file__).resolve().parent / "baselines" / "rami51-scorer-matches.npz"
MATCH_PLAYERS = (2, 4)  # a whole-match scorer's table: it shrinks as players are eliminated


def shipped_scorer(options: dict[str, Any] | None) -> Path:
    """The shipped scorer for a table with these options: whole matches (the game's
    default) or single rounds (``single_round=True``)."""
    return SHIPPED if (options or {}).get("single_round", False) is True else SHIPPED_MATCHES

# observation offsets and action ids (constants of the compiled kernels)
O_HAND, O_TOP, O_PILE, O_TABLE, O_MELDS = R.OBS_HAND, R.OBS_TOP, R.OBS_PILE, R.OBS_TABLE, R.OBS_MELDS
O_PHASE, O_BUILD, O_PENDING, O_TURN, O_SEATS = R.OBS_PHASE, R.OBS_BUILD, R.OBS_PENDING, R.OBS_TURN, R.OBS_SEATS
MELD_F, MAX_MELDS, SEAT_F = R.MELD_FEATURES, R.MAX_MELDS, R.SEAT_FEATURES
A_STOCK, A_TAKE, A_MELD, A_ADD, A_JOKER, A_CLOSE, A_DISCARD = (
    R.DRAW_STOCK, R.TAKE_DISCARD, R.NEW_MELD, R.ADD0, R.JOKER0, R.CLOSE, R.DISCARD0)
JOKER = 52
RULES = R.RULES
CARD_FEATURES = 24  # how a card sits in the hand and on the table (card_features)
CONTEXT_FEATURES = 9  # the position (context)
HAND_FEATURES = 13  # the hand as a whole and the turn so far (hand_features)
ACTION_FEATURES = 8  # the card's unseen partners, the table meld picked, a joker laid (action_features)
AFTER_FEATURES = 4  # the hand the action leaves (hand_after)
#: rows of the hand-after table (card_features): 0..52 one card c given up (52: a joker),
#: then the hand as it is, and the hand with the discard top taken
AFTER_ROWS, AFTER_KEEP, AFTER_TAKE = 55, 53, 54
#: the kinds of action, in the order of their one-hot input
KINDS = ("draw", "take", "meld", "pick meld", "add", "joker", "close", "discard")
#: the input of the network: card, its rank (14: the joker last), context, kind, phase (4),
#: the meld being built and the points laid this turn, the hand, the action's extras, the hand after it
NUM_FEATURES = (CARD_FEATURES + 14 + CONTEXT_FEATURES + len(KINDS) + 4 + 2 + HAND_FEATURES + ACTION_FEATURES
                + AFTER_FEATURES)
#: where the kind's one-hot starts in a row
KIND_OFFSET = CARD_FEATURES + 14 + CONTEXT_FEATURES


@njit(cache=True, no_cfunc_wrapper=True)
def fits_meld(o, m, c):
    """Whether natural card c looks layable on table meld m (a set missing its suit, a run
    it extends): an input of the scorer, not a rule (the mask says what is legal)."""
    r, t = c // 4, c % 4
    b = O_MELDS + m * MELD_F
    if o[b] == 1:  # a set: key is its rank, suits from b + 8
        return o[b + 2] == r and o[b + 8 + t] == 0 and o[b + 5] < 4
    if o[b + 1] == 1 and o[b + 2] == t:  # a run of suit t, positions lo..hi (the ace is 0 or 13)
        lo, hi = o[b + 3], o[b + 4]
        return r == lo - 1 or r == hi + 1 or (r == 0 and hi == 12 and lo > 0)
    return False


@njit(cache=True, no_cfunc_wrapper=True)
def fits_table(o, c):
    """Whether natural card c looks layable on some table meld (fits_meld)."""
    for m in range(MAX_MELDS):
        if fits_meld(o, m, c):
            return 1
    return 0


@njit(cache=True, no_cfunc_wrapper=True)
def hand_after(N, cover_w, cover0, cover1, out):
    """The hand an action leaves (naturals ``N``; ``cover_w``, ``cover0``, ``cover1``: the
    cards its melds could hold with its jokers (two at most), none, one): the cards no meld
    could hold, their penalty, and how many cards melds could hold with no joker, one."""
    dead = penalty = 0
    for c in range(52):
        if N[c] > 0 and (cover_w & (np.int64(1) << np.int64(c))) == 0:
            dead += N[c]
            penalty += rami_penalty(c) * N[c]
    out[0] = dead / 14.0
    out[1] = penalty / 100.0
    out[2] = popcount(cover0) / 14.0
    out[3] = popcount(cover1) / 14.0


@njit(cache=True, no_cfunc_wrapper=True)
def card_features(o, F, hand, after, only=-1):
    """For every card type the hand holds: how it fits the hand and the table (rows of F);
    hand_features into ``hand`` (from the same coverage of the hand); and hand_after of the
    hand as it is and with one card given up (rows of ``after``, AFTER_ROWS). With
    ``only`` >= 0: card ``only``'s row of F and the hand as it is, no more (the rest of F
    and ``after`` is left zero)."""
    F[:] = 0.0
    # the hand's naturals and jokers, and the cards some meld of the hand could hold
    N = np.zeros(53, np.int64)
    for c in range(52):
        N[c] = o[O_HAND + c]
    W = np.int64(o[O_HAND + JOKER])
    cover0 = coverage(RULES, N, np.int64(0))
    cover1 = coverage(RULES, N, np.int64(1))
    cover_w = coverage(RULES, N, min(W, np.int64(2)))
    potential = points_potential(N, cover0)
    hand_features(o, hand, N, W, cover_w, potential)
    after[:] = 0.0
    hand_after(N, cover_w, cover0, cover1, after[AFTER_KEEP])
    if W > 0 and only < 0:  # a joker laid or discarded
        hand_after(N, coverage(RULES, N, min(W - 1, np.int64(2))), cover0, cover1, after[JOKER])
    opened_self = o[O_SEATS + 2]
    opp_opened = o[O_SEATS + SEAT_F + 2] + o[O_SEATS + 2 * SEAT_F + 2] + o[O_SEATS + 3 * SEAT_F + 2]
    next_opened = o[O_SEATS + SEAT_F + 2]
    for c in range(53):
        if o[O_HAND + c] == 0 or (only >= 0 and c != only):
            continue
        f = F[c]
        if c == JOKER:
            f[11] = 1.0
            continue
        r, t = c // 4, c % 4
        same_rank = 0
        rank_seen = 0
        for u in range(4):
            if u != t:
                same_rank += o[O_HAND + r * 4 + u] > 0
                rank_seen += o[O_PILE + r * 4 + u] + o[O_TABLE + r * 4 + u]
        near = gap = near_seen = 0
        for d in (-2, -1, 1, 2):
            # run positions: the ace is 0 (below the 2) and 13 (above the king)
            q = (13 if r == 0 and d < 0 else 0) + r + d
            if q < 0 or q > 13:
                continue
            k = (0 if q == 13 else q) * 4 + t
            if o[O_HAND + k] > 0:
                if d == -1 or d == 1:
                    near += 1
                else:
                    gap += 1
            if d == -1 or d == 1:
                near_seen += o[O_PILE + k] + o[O_TABLE + k]
        ft = fits_table(o, c)
        p = rami_penalty(c) / 10.0
        f[0] = same_rank
        f[1] = o[O_HAND + c] >= 2
        f[2] = near
        f[3] = gap
        f[4] = p
        f[5] = ft
        f[6] = ft * next_opened
        f[7] = ft * (opp_opened > 0)
        f[8] = (rami_penalty(c) >= 10) * (1 - opened_self)
        f[9] = rank_seen / 4.0
        f[10] = near_seen / 4.0
        f[12] = (o[O_PILE + c] + o[O_TABLE + c]) / 2.0
        f[13] = p * opened_self
        f[14] = same_rank + near + gap == 0
        f[15] = same_rank * opened_self
        f[16] = near * opened_self
        f[17] = p * (o[O_TURN + 4] < 30)
        # what a meld of the hand could hold, with the card and without it
        bit = np.int64(1) << np.int64(c)
        f[18] = (cover0 & bit) != 0
        f[19] = (cover1 & bit) != 0
        f[20] = (cover_w & bit) != 0
        N[c] -= 1
        without = coverage(RULES, N, min(W, np.int64(2)))
        without0 = coverage(RULES, N, np.int64(0))
        f[21] = popcount(without) / 14.0
        f[22] = (potential - points_potential(N, without0)) / 51.0
        hand_after(N, without, without0, coverage(RULES, N, np.int64(1)), after[c])  # c added or discarded
        N[c] += 1
        f[23] = potential / 51.0


@njit(cache=True, no_cfunc_wrapper=True)
def context(o, out):
    """Who has opened, the hand sizes, the stock."""
    out[:] = 0.0
    out[0] = o[O_SEATS + 2]
    for j in range(1, 4):
        out[j] = o[O_SEATS + j * SEAT_F + 2]
        out[3 + j] = o[O_SEATS + j * SEAT_F + 1] / 14.0
    out[7] = o[O_TURN + 4] / 100.0
    out[8] = o[O_SEATS + 1] / 14.0


@njit(cache=True, no_cfunc_wrapper=True)
def hand_features(o, out, N, W, cover_w, potential):
    """The hand as a whole and the turn so far: what melds of the hand are worth (without
    jokers and with them), its penalty, the cards no meld could hold, the jokers; whether
    a clean run was laid this turn, the melds laid this turn, the points still missing
    for the opening, a card taken from the discard still to lay; the discard pile's size,
    the smallest hand of the others, the table melds, the points of the meld being built
    (each card at its best value: an approximation for an ace low in a run). ``N``: the
    hand's naturals, ``W``: its jokers, ``cover_w`` and ``potential`` as card_features
    has them."""
    out[:] = 0.0
    penalty = rami_penalty(JOKER) * W
    for c in range(52):
        penalty += rami_penalty(c) * N[c]
    out[0] = potential / 51.0
    out[1] = points_potential(N, cover_w) / 51.0
    out[2] = penalty / 100.0
    dead = 0
    for c in range(52):
        if N[c] > 0 and (cover_w & (np.int64(1) << np.int64(c))) == 0:
            dead += N[c]
    out[3] = dead / 14.0
    out[4] = W / 2.0
    out[5] = o[O_TURN + 1]
    out[6] = o[O_TURN + 2] / 3.0
    if o[O_SEATS + 2] == 0:
        out[7] = max(o[O_TURN + 3] - o[O_TURN], 0) / 51.0
    for c in range(53):
        out[8] += o[O_PENDING + c]
    out[9] = o[O_TURN + 5] / 30.0
    smallest = 14
    for j in range(1, 4):
        if o[O_SEATS + j * SEAT_F] > 0 and o[O_SEATS + j * SEAT_F + 1] < smallest:
            smallest = o[O_SEATS + j * SEAT_F + 1]
    out[10] = smallest / 14.0
    melds = 0
    for m in range(MAX_MELDS):
        melds += o[O_MELDS + m * MELD_F] + o[O_MELDS + m * MELD_F + 1]
    out[11] = melds / 10.0
    build = 0
    for c in range(52):
        if o[O_BUILD + c] > 0:
            build += CARD_VALUE[c]
    out[12] = build / 30.0


@njit(cache=True, no_cfunc_wrapper=True)
def unseen_partners(o, c, x):
    """Copies of card c's partners nobody has shown (not in the hand, the pile or on the
    table; two decks at 4 players): of its rank (other suits), of its suit one and two
    positions away."""
    decks = 2 if o[O_SEATS + 3 * SEAT_F] > 0 else 1  # as the deal: two decks from 4 players
    r, t = c // 4, c % 4
    same = 0
    for u in range(4):
        if u != t:
            k = r * 4 + u
            same += max(decks - o[O_HAND + k] - o[O_PILE + k] - o[O_TABLE + k], 0)
    near = gap = 0
    for d in (-2, -1, 1, 2):
        q = (13 if r == 0 and d < 0 else 0) + r + d
        if q < 0 or q > 13:
            continue
        k = (0 if q == 13 else q) * 4 + t
        left = max(decks - o[O_HAND + k] - o[O_PILE + k] - o[O_TABLE + k], 0)
        if d == -1 or d == 1:
            near += left
        else:
            gap += left
    x[0] = same / 6.0
    x[1] = near / 4.0
    x[2] = gap / 4.0


@njit(cache=True, no_cfunc_wrapper=True)
def position_features(o, F, ctx, hand, after):
    """card_features, context and hand_features of one observation; the discard top is
    scored as if held, and the hand with it taken is row AFTER_TAKE of ``after``. Returns
    the discard top (-1: none)."""
    # `only` and `top` typed int64 from the start: a default, a literal -1 and an int64
    # would each compile card_features again
    card_features(o, F, hand, after, np.int64(-1))
    top = np.int64(-1)
    for c in range(53):
        if o[O_TOP + c] > 0:
            top = c
    if top >= 0 and o[O_HAND + top] == 0:
        o2 = o.copy()
        o2[O_HAND + top] = 1
        F2 = np.zeros_like(F)
        after2 = np.zeros_like(after)
        card_features(o2, F2, np.zeros_like(hand), after2, top)  # the top's row, the hand with it
        F[top] = F2[top]
        after[AFTER_TAKE] = after2[AFTER_KEEP]
    elif top >= 0:  # a second copy (or joker) taken
        N = np.zeros(53, np.int64)
        for c in range(52):
            N[c] = o[O_HAND + c]
        W = np.int64(o[O_HAND + JOKER])
        if top == JOKER:
            W += 1
        else:
            N[top] += 1
        hand_after(N, coverage(RULES, N, min(W, np.int64(2))), coverage(RULES, N, np.int64(0)),
                   coverage(RULES, N, np.int64(1)), after[AFTER_TAKE])
    context(o, ctx)
    return top


@njit(cache=True, no_cfunc_wrapper=True)
def action_features(o, F, ctx, hand, after, top, a, x):
    """The scorer's input for action a (``x``: NUM_FEATURES values)."""
    x[:] = 0.0
    c = -1
    left = AFTER_KEEP  # the row of ``after``: the hand the action leaves
    if a == A_STOCK:
        kind = 0
    elif a == A_TAKE:
        kind, c, left = 1, top, AFTER_TAKE
    elif a == A_MELD:
        kind = 2
    elif a < A_ADD:
        kind = 3
    elif a < A_JOKER:
        kind, c = 4, a - A_ADD
        left = c
    elif a < A_CLOSE:
        kind, c, left = 5, a - A_JOKER, JOKER  # a joker laid for card c: c's numbers when c is held, and c's rank
    elif a == A_CLOSE:
        kind = 6
    else:
        kind, c = 7, a - A_DISCARD
        left = c
    if c >= 0:
        x[:CARD_FEATURES] = F[c]
        x[CARD_FEATURES + (13 if c == JOKER else c // 4)] = 1.0
    b = CARD_FEATURES + 14
    x[b:b + CONTEXT_FEATURES] = ctx
    b += CONTEXT_FEATURES
    x[b + kind] = 1.0
    b += 8
    for ph in range(4):
        x[b + ph] = o[O_PHASE + ph]
    building = 0
    for cc in range(52):
        building += o[O_BUILD + cc] > 0
    x[b + 4] = building / 5.0
    x[b + 5] = o[O_TURN] / 51.0
    b += 6
    x[b:b + HAND_FEATURES] = hand
    b += HAND_FEATURES
    if c >= 0 and c < JOKER:
        unseen_partners(o, c, x[b:b + 3])
    if kind == 3:  # the table meld picked: its cards, a run, the seat's own, the hand's cards that fit it
        m = a - A_MELD - 1
        mb = O_MELDS + m * MELD_F
        x[b + 3] = o[mb + 5] / 13.0
        x[b + 4] = o[mb + 1]
        x[b + 5] = o[mb + 6] == 1
        fit = 0
        for k in range(52):
            if o[O_HAND + k] > 0 and fits_meld(o, m, k):
                fit += 1
        x[b + 6] = fit / 4.0
    x[b + 7] = kind == 5  # a joker laid (as the kind's one-hot: kept, the shipped scorer reads it)
    b += ACTION_FEATURES
    x[b:b + AFTER_FEATURES] = after[left]


@njit(cache=True, no_cfunc_wrapper=True)
def feature_rows(obs, masks, X, row_pos, row_action):
    """One input row per action set in the mask, for every observation with more than one; returns
    the count (``row_pos``: the observation of each row, ``row_action``: its action)."""
    F = np.zeros((53, CARD_FEATURES))
    ctx = np.zeros(CONTEXT_FEATURES)
    hand = np.zeros(HAND_FEATURES)
    after = np.zeros((AFTER_ROWS, AFTER_FEATURES))
    k = 0
    for i in range(obs.shape[0]):
        if masks[i].sum() < 2:
            continue
        top = position_features(obs[i], F, ctx, hand, after)
        for a in range(masks.shape[1]):
            if masks[i, a]:
                action_features(obs[i], F, ctx, hand, after, top, a, X[k])
                row_pos[k] = i
                row_action[k] = a
                k += 1
    return k


def rows_of(observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The input rows of every action set in the masks (the legal ones, or those
    labelled), for the observations with more than one: (rows,
    their observation, their action). The kernels read fixed offsets and take the values
    as int16: shapes and values are checked here (ValueError)."""
    observations = np.asarray(observations)
    masks = np.asarray(masks)
    if observations.ndim != 2 or observations.shape[1] != R.OBS_SIZE:
        raise ValueError(f"observations must have shape (n, {R.OBS_SIZE}), got {observations.shape}")
    if masks.shape != (observations.shape[0], R.NUM_ACTIONS):
        raise ValueError(f"action masks must have shape ({observations.shape[0]}, {R.NUM_ACTIONS}), "
                         f"got {masks.shape}")
    observations = observations_as(observations, np.int16)
    masks = np.ascontiguousarray(masks, dtype=np.bool_)
    m = int(masks.sum())
    X = np.zeros((m, NUM_FEATURES), np.float32)
    pos = np.zeros(m, np.int64)
    act = np.zeros(m, np.int64)
    k = feature_rows(observations, masks, X, pos, act)
    return X[:k], pos[:k], act[:k]


def best_rows(scores: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """The row of each position's best score (``pos``: the position of each row, in
    nondecreasing order; ties: the first row)."""
    order = np.lexsort((-scores, pos))
    return order[np.r_[True, pos[order][1:] != pos[order][:-1]]]


def group_of_rows(X: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """The group of each row (its kind's)."""
    return groups[X[:, KIND_OFFSET:KIND_OFFSET + len(KINDS)].argmax(1)]


class ScorerNetwork:
    """The weights of a card scorer and its input scaling (numpy)."""

    def __init__(self, meta: dict[str, Any], mean: np.ndarray, std: np.ndarray, weights: list[list[np.ndarray]]):
        if not isinstance(meta, dict):
            raise ValueError("scorer: meta must be a mapping")
        if meta.get("format") in ("cardenvs-scorer/1", "cardenvs-scorer/2"):
            raise ValueError(f"a card scorer of an earlier version ({meta['format']}, with fewer inputs): "
                             "train it again with this version")
        if meta.get("format") != SCORER_FORMAT:
            raise ValueError(f"not a card scorer (format {meta.get('format')!r}, expected {SCORER_FORMAT!r})")
        groups = meta.get("groups")
        if (not isinstance(groups, list) or len(groups) != len(KINDS)
                or not all(isinstance(g, int) and not isinstance(g, bool) and 0 <= g < len(weights) for g in groups)):
            raise ValueError(f"scorer: groups must be {len(KINDS)} group indices below {len(weights)}, got {groups!r}")
        if not isinstance(meta.get("env_id"), str):
            raise ValueError(f"scorer: env_id must be a string, got {meta.get('env_id')!r}")
        players = meta.get("num_players")
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= R.MAX_PLAYERS:
            raise ValueError(f"scorer: num_players must be an integer in 2..{R.MAX_PLAYERS}, got {players!r}")
        if not isinstance(meta.get("options", {}), dict):
            raise ValueError(f"scorer: options must be a mapping, got {meta.get('options')!r}")

        def numbers(a: Any, what: str) -> np.ndarray:
            a = np.asarray(a)
            if a.dtype.kind not in "biuf" or not np.isfinite(a).all():
                raise ValueError(f"scorer: {what} must be finite real numbers")
            return a.astype(np.float32)

        mean, std = numbers(mean, "mean"), numbers(std, "std")
        if mean.shape != (NUM_FEATURES,) or std.shape != (NUM_FEATURES,) or not (std > 0).all():
            raise ValueError(f"scorer: mean and std must be {NUM_FEATURES} numbers (std positive)")
        weights = [[numbers(w, "weights") for w in layers] for layers in weights]
        for layers in weights:
            width = NUM_FEATURES
            if not layers or len(layers) % 2:
                raise ValueError("scorer: each group needs weight and bias pairs")
            for w, b in zip(layers[::2], layers[1::2], strict=True):
                if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],):
                    raise ValueError("scorer: the layers' shapes do not chain")
                width = w.shape[1]
            if width != 1:
                raise ValueError("scorer: the last layer must give one value")
        self.meta = meta
        self.groups = np.asarray(groups, np.int64)
        self.mean, self.std = mean, std
        self.weights = weights

    @property
    def env_id(self) -> str:
        return str(self.meta.get("env_id", ""))

    def scores(self, X: np.ndarray) -> np.ndarray:
        """The value of each input row."""
        x = (X - self.mean) / self.std
        group = group_of_rows(X, self.groups)
        out = np.zeros(len(X), np.float32)
        for g, layers in enumerate(self.weights):
            rows = np.flatnonzero(group == g)
            if rows.size == 0:
                continue
            h = x[rows]
            for k in range(0, len(layers), 2):
                h = h @ layers[k] + layers[k + 1]
                if k + 2 < len(layers):
                    h = np.tanh(h)
            out[rows] = h[:, 0]
        return out

    def save(self, path: str | os.PathLike) -> None:
        arrays = {f"g{g}_{'w' if k % 2 == 0 else 'b'}{k // 2}": w
                  for g, layers in enumerate(self.weights) for k, w in enumerate(layers)}
        save_npz(path, self.meta, mean=self.mean, std=self.std, **arrays)

    @classmethod
    def load(cls, path: str | os.PathLike) -> ScorerNetwork:
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"no card scorer file at {str(path)!r}")
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                if not isinstance(meta, dict):
                    raise ValueError("meta is not a mapping")
                weights = []
                g = 0
                while f"g{g}_w0" in data.files:
                    layers, k = [], 0
                    while f"g{g}_w{k}" in data.files:
                        layers += [data[f"g{g}_w{k}"], data[f"g{g}_b{k}"]]
                        k += 1
                    weights.append(layers)
                    g += 1
                return cls(meta, data["mean"], data["std"], weights)
        except Exception as e:  # a corrupt archive, missing arrays, bad meta ...
            raise ValueError(f"cannot read the card scorer file {str(path)!r}: {e}") from None


class CardScorerAgent(Agent):
    """Plays the legal action the card scorer values highest (deterministic)."""

    name = "scorer"

    def __init__(self, spec: GameSpec, seed: int | None = None, options: dict[str, Any] | None = None,
                 scorer: ScorerNetwork | str | os.PathLike | None = None):
        super().__init__(spec, seed, options)
        if spec.name != "rami51":
            raise ValueError(f"the card scorer plays rami51, not {spec.name!r}")
        if scorer is None:
            scorer = shipped_scorer(self.options)
        if not isinstance(scorer, ScorerNetwork):
            scorer = ScorerNetwork.load(scorer)
        same_obs = scorer.env_id in spec.earlier_versions and spec.earlier_versions[scorer.env_id] is None
        if scorer.env_id != spec.env_id and not same_obs:  # an earlier version with these observations plays
            raise ValueError(f"the card scorer was trained on {scorer.env_id or 'another game'}, not {spec.env_id}")
        matches = scorer.meta.get("options", {}).get("single_round", False) is False
        low, high = MATCH_PLAYERS
        for key in ("num_players", "single_round"):  # trained for one setup of the game
            trained = scorer.meta.get(key) if key == "num_players" else scorer.meta.get("options", {}).get(key, False)
            given = self.options.get(key, spec.default_players if key == "num_players" else False)
            whole_number = isinstance(given, (int, np.integer)) and not isinstance(given, bool)
            if key == "num_players" and matches and whole_number and low <= given <= high:
                continue  # a match's table shrinks as players go out: a whole-match scorer plays 2 to 4
            if trained is not None and given != trained:
                warnings.warn(f"the card scorer was trained with {key}={trained}, and plays with {key}={given}",
                              stacklevel=2)
        self.scorer = scorer

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = check_mask(action_mask)
        return int(self.act_batch(np.asarray(observation)[None], mask[None])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        X, pos, act = rows_of(observations, action_masks)  # checks the shapes and values
        masks = np.asarray(action_masks, dtype=np.bool_)
        out = np.full(len(masks), -1, np.int64)
        live = np.flatnonzero(masks.any(1))
        out[live] = masks[live].argmax(1)  # the only legal action, where there is one
        if len(X):
            best = best_rows(self.scorer.scores(X), pos)
            out[pos[best]] = act[best]
        return out
