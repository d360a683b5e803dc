"""Rami 51 by a card scorer fitted to exact rollouts (``cardenvs train scorer rami51``).

A player that reads the whole observation learns the deals it was trained on before it
learns how to play Rami 51 (see ``docs/training.md``). This method trains the card scorer
of :mod:`cardenvs.agents.rami51_scorer` instead: a small network that values each legal
action from numbers that carry from one card to another. ``iterations`` times (5 by
default) it labels positions, then fits the scorer to them; then it evaluates:

1. **Label** (on ``workers`` processes). Single rounds are played, heuristic players in
   every seat but the labelled one (rotated): in the first iteration that seat is a
   heuristic player too, in the later ones the previous iteration's scorer, so that the
   scorer learns in the positions its own play leads to (``labelled_seat="heuristic"``, a
   trial's setting: the seat plays the heuristic's moves and the previous scorer's move is
   played out besides; it did not gain over the iterations, ``docs/notes/rami51-scorer.md``). A worker
   plays ``batch`` rounds together: the rollouts of a step go to the rules' kernels in one
   call. At each decision of that seat
   with more than one legal action, the move played, ``actions_per_position`` other
   legal actions drawn at random (1 by default; 0: every one) and, where the scorer
   played another move than the heuristic's, the heuristic's move are labelled: each
   valued by its rollout, played to the round's end on the true deal, every card as it
   is and the stock in its order, with heuristic players after it. All is deterministic,
   so the move played needs no rollout of its own: its rollout follows the round up to
   the seat's next position where the round's move is not the heuristic's, and from
   there it is the rollout of the heuristic's move, played out there; with no such
   position, it is the round itself. A position costs the drawn actions' rollouts and,
   where the moves differ, the heuristic move's. One or two actions drawn from each of three
   to six times as many positions taught the scorer more than every action of fewer
   positions, at the same cost (``docs/notes/rami51-scorer.md``). Each rollout gives two figures: the win (1 for the
   winner, -1/(P-1) for the others: -1/3 at 4 players; 0 in a void round) and the penalty
   points the seat holds when the round ends (0 when it wins). The rollouts read every
   card, but the scorer does not: it sees the seat's observation, so over positions that
   look alike it learns the mean over the deals that occur in play.
2. **Fit.** The scorer learns each labelled action's target minus the played move's, by
   least squares: the target is the win minus ``points_weight`` × the points / 100. A
   win or a loss says little about one move (most moves do not change who wins the
   rollout); the points say how near the seat came to going out, a figure that moves
   with almost every move, so the fit needs fewer positions to rank the moves. The points
   are a training target only: the evaluation measures the win. The last fit of a run of
   several iterations weighs them by ``last_points_weight`` (0.1 by default): at the
   defaults it reads three iterations' labels over its longer budget, and a fit that
   leans on the win itself there won more in trials (``docs/notes/rami51-scorer.md``). The later iterations'
   fits go on from the previous scorer, on the labels of the last ``fit_window``
   iterations (3 by default: its own and the two before): in trials the scorer's gain
   followed the positions each fit saw (``docs/notes/rami51-scorer.md``). The fit plans its
   minibatches from the pace of its first steps (the last epoch may be part of one), so
   that its learning rate falls to its floor within its part of the budget. The
   positions of a tenth of the matches are held out (whole
   matches, see :func:`cardenvs.agents.training.expert.held_out_split`; chosen by their round seed, so
   a match is held out of every fit of the run or of none);
   after each epoch the fit measures on them the win value of the moves the scorer ranks
   first among the labelled actions, over the moves played.
3. **Evaluate.** Each iteration's scorer against three heuristic players and against
   three random ones, and the heuristic against three heuristic players on the same deals.

**Whole matches** (``whole_matches``). A match runs until one player is left under the
elimination score, so it is won by the points held round after round. The labels are the
same single rounds, but the points weights default to ``MATCH_POINTS_WEIGHT`` in every fit,
the evaluations play whole matches (the last scorer also at the other tables of 2 to 4
players: a match's table shrinks as players are eliminated), and the run keeps the
iteration whose scorer won most as ``scorer.npz`` (the earliest on a tie; the last is then
``scorer-{n}.npz``): a long last fit played whole matches worse than the scorers before it
in the shipped run. The kept figures are the best of several on the same deals: measure
the kept scorer on other deals (``benchmarks/baselines.py measure``).

The budget ``minutes`` holds the labelling and the fits (``fit_minutes`` of it, a third
by default); the first
iteration has ``first_share`` of the labelling, the later ones the rest in equal parts
(by default, each iteration an equal part). The last fit has ``last_fit_share`` of
``fit_minutes`` (half, by default: it goes on longest, over the last iterations' labels),
the earlier ones the rest in the labelling's proportions. The run
writes into its folder: ``config.json``, ``labels/iteration{k}/`` (each worker's rows:
the scorer's inputs for every labelled action of every labelled position, the two figures,
the move played), ``scorer-{k}.npz`` (the other iterations' scorers), ``fit.csv``,
``eval.csv``, ``summary.json`` and ``scorer.npz`` (play it as ``scorer:PATH``).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from cardenvs.agents.search import ROUND_OVER
from cardenvs.agents.search import step_once as _step
from cardenvs.agents.training.expert import (
    _positive_int,
    check_new_folder,
    check_run_settings,
    run_workers,
    worker_seed,
)
from cardenvs.core.protocol import ACT_HOLD, check_options
from cardenvs.core.registry import get_spec

#: kinds of action (see ``rami51_scorer.KINDS``) -> network: one network for all (a network
#: of their own for the discards did no better in trials)
DEFAULT_GROUPS = (0, 0, 0, 0, 0, 0, 0, 0)
MAX_SCORER_PLAYERS = 4  # the scorer's inputs read the next three seats
EVAL_SEED = 1_000_003  # the evaluation's deals (as cardenvs.agents.training.expert's)
SHARD_SECONDS = 600.0  # a worker writes its rows this often (a crash loses less)
SHARD_POSITIONS = 400_000  # or when it holds this many positions (about 1.1 GB with their masks and figures)
WORKER_ROUNDS = 10_000_000  # the round seeds of labelling seed k: k * WORKER_ROUNDS onwards
LABELLED_SEATS = ("heuristic", "scorer")  # who plays the labelled seat's moves in the later iterations
MAX_BATCH = 65_536  # rounds a worker plays together, at most
FIRST_BATCH = 512  # rounds of a worker's first batch, at most


@dataclass
class ScorerConfig:
    """A card-scorer run (``cardenvs train scorer rami51``)."""

    game: str = "rami51"
    num_players: int = 4
    options: dict[str, Any] = field(default_factory=dict)
    minutes: float = 60.0  # labelling and fit; the evaluation comes after
    # of ``minutes``, kept for the fits (None: a third of it; each fit runs its first PACE_STEPS minibatches)
    fit_minutes: float | None = None
    last_fit_share: float | None = 0.5  # the last fit's part of ``fit_minutes`` (None: as its iteration's share)
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)
    seed: int = 0
    out: str = "runs/rami51-scorer-0"
    # the fits' target: the win minus this × the points held at the end / 100 (None: 0.5 for
    # single rounds, MATCH_POINTS_WEIGHT for whole matches, set when the config is made)
    points_weight: float | None = None
    # the last fit's points weight, with more than one iteration (None: 0.1 for single
    # rounds, points_weight for whole matches)
    last_points_weight: float | None = None
    groups: tuple[int, ...] = DEFAULT_GROUPS
    hidden: tuple[int, ...] = (64, 64)
    epochs: int = 6  # at most (the learning rate falls to 5 % over them)
    learning_rate: float = 1e-3
    minibatch: int = 4096
    batch: int = 4096  # rounds a worker plays together (the rollouts of a step go together: larger batches step faster)
    torch_threads: int | None = None  # default: every core (the labelling is over by then)
    eval_matches: int = 4000
    iterations: int = 5  # the later ones label the positions of the previous scorer's play
    first_share: float | None = None  # the first iteration's part of the labelling (None: each iteration an equal part)
    warm_learning_rate: float = 3e-4  # the later iterations' fits go on from the previous scorer
    actions_per_position: int = 1  # labelled besides the move played, drawn at random (0: every legal action)
    fit_window: int = 3  # a fit reads the labels of this many iterations, its own and the ones before
    labelled_seat: str = "scorer"  # the later iterations' labelled seat plays the previous scorer's moves
    # ("heuristic": it plays the heuristic's, and the previous scorer's move is labelled besides)
    method: str = "scorer"
    # a scorer for whole matches (to the elimination score): labelled on single rounds as
    # ever, its fits weighing the points held at each round's end heavily (a match is won
    # by the last player under the elimination score), evaluated on whole matches, its best
    # iteration kept, and its file says it plays them (docs/notes/rami51-scorer.md)
    whole_matches: bool = False

    def __post_init__(self) -> None:
        # the points weights of the episode, where not given (checked by check_config)
        if self.points_weight is None:
            self.points_weight = MATCH_POINTS_WEIGHT if self.whole_matches is True else ROUND_POINTS_WEIGHT
        if self.last_points_weight is None:
            self.last_points_weight = self.points_weight if self.whole_matches is True else ROUND_LAST_POINTS_WEIGHT

    def game_options(self) -> dict[str, Any]:
        """The game the scorer is for: ``num_players``, and single rounds or whole matches."""
        return {**self.options, "num_players": self.num_players, "single_round": not self.whole_matches}


#: the points weights by default: a single-round scorer's fits, its last fit, a whole-match
#: scorer's fits (the win counts little beside the points there)
ROUND_POINTS_WEIGHT, ROUND_LAST_POINTS_WEIGHT, MATCH_POINTS_WEIGHT = 0.5, 0.1, 5.0


# --------------------------------------------------------------------------- labels
def seat_win(winner: np.ndarray, seat: np.ndarray, players: int) -> np.ndarray:
    """The win figure of ``seat`` in rounds won by ``winner``: 1, -1/(P-1) for a loss, 0
    for a void round (no winner, -1)."""
    return np.where(winner == seat, 1.0, np.where(winner < 0, 0.0, -1.0 / (players - 1)))


def rollout_figures(game: Any, heuristic: Any, states: np.ndarray, actions: np.ndarray,
                    seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each state after its action, played to the round's end by heuristic players: the
    seat's win (1, -1/(P-1) for a loss, 0 for a void round) and the points it then holds."""
    n = len(states)
    players = int(states["num_players"][0])
    win = np.zeros(n, np.float32)
    points = np.zeros(n, np.float32)
    ids = np.arange(n)  # the try each row of ``states`` is
    alive = np.ones(n, bool)
    a = actions
    while True:
        obs, masks, _, events, _ = _step(game, states, a)
        over = alive & ((events & ROUND_OVER) != 0)
        if over.any():
            rows = np.flatnonzero(over)
            s = seats[rows]
            win[ids[rows]] = seat_win(states["winner"][rows], s, players)
            points[ids[rows]] = states["round_points"][rows, s]
        alive &= ~over
        if not alive.any():
            return win, points
        if alive.mean() < 0.75:  # step only the tries still going
            states, ids, seats, obs, masks = states[alive], ids[alive], seats[alive], obs[alive], masks[alive]
            alive = alive[alive]
        a = heuristic.act_batch(obs, masks).astype(np.int64)
        a[~alive] = ACT_HOLD


def check_actions_per_position(value: Any) -> None:
    """ValueError unless ``value`` is a count of Rami 51's actions (0: every legal action)."""
    from cardenvs.games.rami51 import NUM_ACTIONS

    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < NUM_ACTIONS:
        raise ValueError(f"actions_per_position must be an integer in 0..{NUM_ACTIONS - 1} (0: every legal action), "
                         f"got {value!r}")


def _fill_hint_figures(win: np.ndarray, points: np.ndarray, hint: np.ndarray, heuristic_move: np.ndarray,
                       game: np.ndarray, seat: np.ndarray, states: np.ndarray, players: int) -> None:
    """The figures of the move played in each position (``hint``; rows of ``win`` and
    ``points``, in the order the batch met them; ``game``: each one's round): the figures
    of the heuristic's move at the seat's next position in that round where the move
    played is another (its rollout is that of the move played, from there on), or of the
    round's end (``states``: the batch's finished rounds) where there is none."""
    order = np.argsort(game, kind="stable")  # each round's positions together, in the order played
    g = game[order]
    at = np.arange(len(order))
    differs = (heuristic_move != hint)[order]
    # for each position, the next position of the same round where they differ (or none)
    next_differs = np.minimum.accumulate(np.where(differs, at, len(at))[::-1])[::-1]
    next_differs = np.append(next_differs[1:], len(at))
    chained = next_differs < np.searchsorted(g, g, side="right")  # within the round
    rows, source = order[chained], order[next_differs[chained]]
    win[rows, hint[rows]] = win[source, heuristic_move[source]]
    points[rows, hint[rows]] = points[source, heuristic_move[source]]
    rows = order[~chained]
    q = seat[game[rows]]
    win[rows, hint[rows]] = seat_win(states["winner"][game[rows]], q, players)
    points[rows, hint[rows]] = states["round_points"][game[rows], q]


def label_rows(players: int, options: dict[str, Any], seconds: float, seed: int, batch: int, out: str,
               log: TextIO | None = None, max_rounds: int | None = None, policy: Any = None,
               first_round: int = 0, actions_per_position: int = 0, policy_plays: bool = True) -> dict[str, Any]:
    """Play rounds for ``seconds`` (or ``max_rounds``) and label one seat's decisions
    (module docstring, step 1); that seat plays ``policy``'s moves when given (an agent:
    a scorer of an earlier iteration), heuristic ones otherwise. Besides the move played
    (and the heuristic's, where the policy played another), ``actions_per_position``
    legal actions of each position are labelled, drawn at random (seeded by ``seed`` and
    ``first_round``; the draws follow the positions in the order the batches of ``batch``
    rounds meet them), or every one (0, the default here; ``ScorerConfig`` draws one).
    With ``policy_plays`` False the seat plays the heuristic's moves instead, and the
    policy's move is labelled besides where it is another. The drawn actions are none of
    these moves. The round seeds start at
    ``seed`` × 10**7 + ``first_round``. Writes ``{out}.{k}.npz`` shards: per row (a
    labelled action of a position) ``x`` (the scorer's inputs, float16), ``win``,
    ``points``, ``position`` (its position in the shard) and ``action``; per position
    ``hint`` (the move the seat played) and ``match`` (its round's seed)."""
    from cardenvs.agents import make_agent
    from cardenvs.agents.rami51_scorer import rows_of
    from cardenvs.core.vector import VecEnv

    spec = get_spec("rami51")
    game = spec.module
    opts = {**options, "num_players": players, "single_round": True}
    heuristic = make_agent("heuristic", spec, options=opts)
    if isinstance(first_round, bool) or not isinstance(first_round, (int, np.integer)) or not (
            0 <= first_round and first_round + (max_rounds or 0) <= WORKER_ROUNDS):
        raise ValueError(f"first_round must be an integer in 0..{WORKER_ROUNDS} - max_rounds, got {first_round!r}")
    check_actions_per_position(actions_per_position)
    rng = np.random.default_rng([seed, first_round])  # the actions drawn
    first = seed * WORKER_ROUNDS + first_round  # the round seeds of this worker
    rec: dict[str, list] = {k: [] for k in ("obs", "mask", "hint", "win", "points", "match")}
    t0 = last_save = time.perf_counter()
    played = positions = shard = rows = 0

    def save() -> None:
        nonlocal shard, rec, rows
        if not rec["obs"]:
            return
        block = {k: np.concatenate(v) for k, v in rec.items()}  # each step's positions, in order
        x, pos, act = rows_of(block["obs"], block["mask"])
        np.savez(f"{out}.{shard}.npz", x=x.astype(np.float16), win=block["win"][pos, act].astype(np.float16),
                 points=block["points"][pos, act].astype(np.int16), position=pos.astype(np.int32),
                 action=act.astype(np.int16), hint=block["hint"].astype(np.int16),
                 match=block["match"].astype(np.int64))
        rows += len(x)
        shard += 1
        rec = {k: [] for k in rec}

    while time.perf_counter() - t0 < seconds and (max_rounds is None or played < max_rounds):
        # the first batch at most FIRST_BATCH rounds: a short budget is not overrun by a whole batch
        n = min(batch, FIRST_BATCH) if played == 0 else batch
        if max_rounds is not None:
            n = min(n, max_rounds - played)
        venv = VecEnv(spec, n, auto_reset=False, auto_play_forced=True, **opts)
        st = venv.reset(seeds=np.arange(first + played, first + played + n))
        seat = (np.arange(n) + played) % players
        done = np.zeros(n, bool)
        batch_blocks = len(rec["obs"])  # rec's blocks before this batch's
        games: list[np.ndarray] = []  # per block of this batch: the game of each position
        heuristic_moves: list[np.ndarray] = []  # and the heuristic's move there
        picks = np.full(n, -1, np.int64)  # the policy's move where the seat plays the heuristic's (else -1)
        while not done.all():
            acts = heuristic.act_batch(st.observation, st.legal_action_mask).astype(np.int64)
            mine = np.flatnonzero(~done & (st.current_player == seat))
            heuristic_move = acts[mine]
            if policy is not None and mine.size:
                if policy_plays:  # the labelled seat plays the policy's moves
                    acts[mine] = policy.act_batch(st.observation[mine], st.legal_action_mask[mine])
                else:
                    picks[mine] = policy.act_batch(st.observation[mine], st.legal_action_mask[mine])
            several = st.legal_action_mask[mine].sum(1) > 1
            chosen = mine[several]
            if chosen.size:
                # The labelled actions (every legal one, or a draw of them besides the move
                # played and the heuristic's) are played out, with heuristic players after
                # them. The move played needs no rollout of its own (all is deterministic):
                # its rollout follows the round until the seat's next position where the
                # round's move is not the heuristic's, and from there it is that heuristic
                # move's rollout, played out there; or, with no such position, it is the
                # round itself. Where the seat plays the heuristic's moves, that is the round.
                # So a position costs the drawn actions' rollouts, and the heuristic move's
                # where the policy played another (labelled too). Its figures are filled in at
                # the round's end (below). One array operation a step for all positions.
                row = np.arange(chosen.size)
                hint, pick, heur = acts[chosen], picks[chosen], heuristic_move[several]
                drawn = st.legal_action_mask[chosen].astype(np.bool_, copy=False)  # what may be drawn
                for excluded in (hint, pick, heur):
                    drawn[row[excluded >= 0], excluded[excluded >= 0]] = False
                if actions_per_position:  # the k smallest of uniform keys: k drawn without replacement
                    keys = np.where(drawn, rng.random(drawn.shape), 2.0)
                    smallest = np.argpartition(keys, actions_per_position - 1, axis=1)[:, :actions_per_position]
                    kept = np.zeros_like(drawn)
                    kept[row[:, None], smallest] = True
                    drawn &= kept
                played_out = drawn  # (one buffer: then the rows written, with the hint)
                other = heur != hint  # the policy played another move than the heuristic's
                played_out[row[other], heur[other]] = True
                if policy is not None and not policy_plays:  # the policy's move besides, where another
                    other = pick != hint
                    played_out[row[other], pick[other]] = True
                at, action = np.nonzero(played_out)  # by position, then by action
                win, points = rollout_figures(game, heuristic, venv.states[chosen[at]], action.astype(np.int64),
                                              seat[chosen[at]])
                w = np.zeros(played_out.shape, np.float16)  # 1, -1/3, 0: exact enough
                p = np.zeros(played_out.shape, np.int16)
                w[at, action], p[at, action] = win, points
                labelled = played_out
                labelled[row, hint] = True
                rec["obs"].append(st.observation[chosen])
                rec["mask"].append(labelled)
                rec["hint"].append(hint)
                rec["win"].append(w)
                rec["points"].append(p)
                rec["match"].append(first + played + chosen)
                games.append(chosen)
                heuristic_moves.append(heur)
                positions += chosen.size
            acts[done] = 0  # a finished round ignores its action
            st = venv.step(acts)
            done |= st.terminated | st.truncated
        if games:  # the figures of the moves played (this batch's blocks merged into one)
            for k in rec:
                rec[k][batch_blocks:] = [np.concatenate(rec[k][batch_blocks:])]
            _fill_hint_figures(rec["win"][-1], rec["points"][-1], rec["hint"][-1], np.concatenate(heuristic_moves),
                               np.concatenate(games), seat, venv.states, players)
        played += n
        if time.perf_counter() - last_save > SHARD_SECONDS or sum(map(len, rec["obs"])) >= SHARD_POSITIONS:
            save()
            last_save = time.perf_counter()
        if log is not None:
            elapsed = time.perf_counter() - t0
            print(f"{played} rounds, {positions} positions, {elapsed:.0f} s, {positions / max(elapsed, 1e-9):.0f}/s",
                  file=log, flush=True)
    save()
    return {"rounds": played, "positions": positions, "rows": rows, "seconds": time.perf_counter() - t0}


def load_rows(paths: list[Path], points_weight: float) -> dict[str, np.ndarray]:
    """The rows of every shard: inputs ``x`` (float16), the fit's target ``y`` (the win
    minus ``points_weight`` x the points / 100; the fit learns its differences within a
    position) and the win ``win`` of each row, its position ``pos`` (numbered across the shards), the row of the
    move played in its position ``hint_row``, and each position's ``match``."""
    if not paths:
        raise ValueError("no labelled positions to learn from")
    parts: dict[str, list] = {k: [] for k in ("x", "y", "win", "pos", "hint_row", "match")}
    row_base = pos_base = 0
    for path in paths:
        with np.load(path) as d:
            pos, act, hint = d["position"].astype(np.int64), d["action"].astype(np.int64), d["hint"].astype(np.int64)
            win = d["win"].astype(np.float32)
            parts["x"].append(d["x"])
            parts["y"].append(win - np.float32(points_weight / 100.0) * d["points"].astype(np.float32))
            parts["win"].append(win)
            parts["match"].append(d["match"])
        is_hint = act == hint[pos]
        hint_row = np.full(len(hint), -1, np.int64)
        hint_row[pos[is_hint]] = np.flatnonzero(is_hint)
        if (hint_row < 0).any():
            raise ValueError(f"{path}: a position without the row of the move played")
        parts["pos"].append(pos + pos_base)
        parts["hint_row"].append(hint_row[pos] + row_base)
        row_base += len(pos)
        pos_base += len(hint)
    return {k: np.concatenate(v) for k, v in parts.items()}


# --------------------------------------------------------------------------- the fit
def is_held_match(match: np.ndarray, seed: int) -> np.ndarray:
    """Whether each round seed's positions are held out of the fit: about a tenth of the
    rounds, whole rounds (their positions look alike and share one outcome: a fit that saw
    some of them would recall the others), by a hash of the round seed and ``seed`` alone,
    so that a round held out of one fit is held out of every fit of the run (a fit reads
    the labels of several iterations, and goes on from the previous one)."""
    from cardenvs.core.rng import _GOLDEN, _mix

    with np.errstate(over="ignore"):  # splitmix64 (the rules' generator's mix, in numpy): wrapping uint64
        z = np.asarray(match, np.int64).astype(np.uint64) + np.uint64(seed % (1 << 32)) * _GOLDEN
        return _mix.py_func(z) % np.uint64(10) == 0


PACE_STEPS = 50  # minibatches timed before the fit plans its epochs
EPOCH_OVERHEAD = 1.1  # an epoch's time over its minibatches' (the held-out scores, the shuffle)


def fit_scorer(data: dict[str, np.ndarray], cfg: ScorerConfig, env_id: str, players: int, seconds: float,
               log: TextIO | None = None, init: Any = None) -> tuple[Any, list[dict[str, float]]]:
    """The card scorer fitted to ``data`` (:func:`load_rows`) for at most ``cfg.epochs``
    epochs, and no more than fit in ``seconds`` (the first ``PACE_STEPS`` minibatches
    always run); returns it (a ``ScorerNetwork``) and the epochs' figures (the last epoch
    may be part of one). With ``init`` (a ``ScorerNetwork`` of the same layers) the fit
    goes on from it, its input scaling kept, at ``cfg.warm_learning_rate``. The
    minibatches are planned after the first ``PACE_STEPS`` (or the first epoch's, if
    fewer): as many as the rest of ``seconds`` holds at their pace (``cfg.epochs``
    epochs at most); the learning rate falls linearly over them to 5 % (those first
    ones ran on the schedule of ``cfg.epochs``: a budget that holds little more than
    them ends the fit at a higher rate). After each epoch the plan is made again at the
    pace so far, the epochs' held-out scores included (the first steps can run faster
    than the later ones), so that the fit keeps its budget but for the epoch under way."""
    import torch

    from cardenvs.agents.rami51_scorer import KIND_OFFSET, KINDS, NUM_FEATURES, SCORER_FORMAT, best_rows

    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.torch_threads or os.cpu_count() or 1)
    t0 = time.perf_counter()
    held = is_held_match(data["match"], cfg.seed)[data["pos"]]
    train_rows, held_rows = np.flatnonzero(~held), np.flatnonzero(held)
    if len(train_rows) == 0 or len(held_rows) == 0:
        raise ValueError("too few labelled positions to fit and hold out")
    x = data["x"]
    # the inputs' scaling over the training rows, a chunk at a time (float64 sums)
    total, total_sq = np.zeros(NUM_FEATURES), np.zeros(NUM_FEATURES)
    for s in range(0, len(train_rows), 1 << 20):
        chunk = x[train_rows[s:s + (1 << 20)]].astype(np.float64)
        total += chunk.sum(0)
        total_sq += (chunk ** 2).sum(0)
    mean = total / len(train_rows)
    std = np.sqrt(np.maximum(total_sq / len(train_rows) - mean ** 2, 0.0)) + 1e-3
    if init is not None:  # go on from a scorer: its scaling too
        mean, std = init.mean.astype(np.float64), init.std.astype(np.float64)
    groups = np.asarray(cfg.groups, np.int64)
    group_of_kind = torch.from_numpy(groups)
    xt = torch.from_numpy(x)
    kinds = torch.from_numpy(x[:, KIND_OFFSET:KIND_OFFSET + len(KINDS)].argmax(1).astype(np.int64))
    mean_t, std_t = torch.from_numpy(mean.astype(np.float32)), torch.from_numpy(std.astype(np.float32))
    nets = torch.nn.ModuleList()
    for _ in range(int(groups.max()) + 1):
        layers: list[Any] = []
        width = NUM_FEATURES
        for h in cfg.hidden:
            layers += [torch.nn.Linear(width, h), torch.nn.Tanh()]
            width = h
        nets.append(torch.nn.Sequential(*layers, torch.nn.Linear(width, 1)))
    if init is not None:
        shapes = [[tuple(a.shape) for a in layers] for layers in init.weights]
        wanted = [[tuple(p.shape[::-1]) if p.ndim == 2 else tuple(p.shape) for p in net.parameters()] for net in nets]
        if shapes != wanted:
            raise ValueError(f"init: the scorer's layers {shapes} are not those of the fit's networks {wanted}")
        with torch.no_grad():
            for net, arrays in zip(nets, init.weights, strict=True):
                lins = [m for m in net if isinstance(m, torch.nn.Linear)]
                for k, lin in enumerate(lins):
                    lin.weight.copy_(torch.from_numpy(arrays[2 * k].T.copy()))
                    lin.bias.copy_(torch.from_numpy(arrays[2 * k + 1]))

    def score(rows: Any) -> Any:
        inp = (xt[rows].float() - mean_t) / std_t
        grp = group_of_kind[kinds[rows]]
        out = torch.zeros(len(rows))
        for g, net in enumerate(nets):
            sel = torch.nonzero(grp == g).squeeze(1)
            if len(sel):
                out = out.index_put((sel,), net(inp[sel]).squeeze(1))
        return out

    y = torch.from_numpy(data["y"])
    hint_row = torch.from_numpy(data["hint_row"])
    learning_rate = cfg.learning_rate if init is None else cfg.warm_learning_rate
    opt = torch.optim.Adam(nets.parameters(), lr=learning_rate)
    train_t = torch.from_numpy(train_rows)
    per_epoch = max(len(train_rows) // cfg.minibatch, 1)
    epochs = cfg.epochs  # planned anew from the pace of the first steps, so that the rate falls within the budget
    steps = epochs * per_epoch  # the minibatches, planned likewise
    plan_at = min(PACE_STEPS, per_epoch)
    t_steps = t0
    step = 0
    figures = []
    generator = torch.Generator().manual_seed(cfg.seed)
    epoch = 0
    while epoch < epochs:
        total_loss = 0.0
        batches = 0
        perm = train_t[torch.randperm(len(train_t), generator=generator)]
        for b in range(per_epoch):
            if step == 0:
                t_steps = time.perf_counter()
            for group in opt.param_groups:  # linear decay to 5 %
                group["lr"] = learning_rate * max(1.0 - step / steps, 0.05)
            step += 1
            rows = perm[b * cfg.minibatch:(b + 1) * cfg.minibatch]
            hints = hint_row[rows]
            # each action's target over the move played's, in the same position
            loss = ((score(rows) - score(hints) - (y[rows] - y[hints])) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total_loss += loss.item()
            batches += 1
            if step == plan_at:  # the minibatches that fit in what is left of ``seconds`` at this pace
                step_seconds = (time.perf_counter() - t_steps) / step * EPOCH_OVERHEAD
                left = seconds - (t_steps - t0)
                steps = int(min(cfg.epochs * per_epoch, max(plan_at, left / max(step_seconds, 1e-9))))
                epochs = -(-steps // per_epoch)
            if step == steps:  # a last epoch in part: the budget is kept, the run's end with it
                break
        with torch.no_grad():
            held_scores = torch.cat([score(torch.from_numpy(held_rows[s:s + (1 << 18)]))
                                     for s in range(0, len(held_rows), 1 << 18)]).numpy()
        best = held_rows[best_rows(held_scores, data["pos"][held_rows])]
        gain = data["win"][best] - data["win"][data["hint_row"][best]]
        figures.append({"epoch": epoch, "share_of_epoch": batches / per_epoch, "loss": total_loss / batches,
                        "held_out_win_gain": float(gain.mean()),
                        "held_out_changed": float((best != data["hint_row"][best]).mean()),
                        "learning_rate": opt.param_groups[0]["lr"], "seconds": time.perf_counter() - t0})
        if step < steps:  # replan at the pace so far, the epochs' ends included: the fit keeps its budget
            f = figures[-1]
            step_seconds = (f["seconds"] - (t_steps - t0)) / step
            more = (seconds - f["seconds"]) / max(step_seconds, 1e-9)  # inf with no budget: the plan stays
            steps = max(min(steps, step + int(min(more, steps))), step)
            epochs = -(-steps // per_epoch)
        if log is not None:
            f = figures[-1]
            print(f"fit epoch {epoch}: loss {f['loss']:.4f}; held-out matches: the scorer's moves win "
                  f"{f['held_out_win_gain']:+.4f} a position over the moves played ({f['held_out_changed']:.0%} "
                  f"of them another move) ({f['seconds']:.0f} s)", file=log, flush=True)
        epoch += 1
    meta = {"format": SCORER_FORMAT, "env_id": env_id, "num_players": players,
            "options": {**cfg.options, "single_round": not cfg.whole_matches}, "groups": [int(g) for g in groups],
            "layers": len(cfg.hidden) + 1, "points_weight": cfg.points_weight}
    return scorer_network(nets, meta, mean, std), figures


def scorer_network(nets: Any, meta: dict[str, Any], mean: np.ndarray, std: np.ndarray) -> Any:
    """The numpy ``ScorerNetwork`` of torch networks (one ``Sequential`` of ``Linear`` and
    ``Tanh`` layers per group): ``x @ w + b`` with ``w`` the transposed torch weight."""
    import torch

    from cardenvs.agents.rami51_scorer import ScorerNetwork

    weights = [[w for lin in net if isinstance(lin, torch.nn.Linear)
                for w in (lin.weight.detach().numpy().T.copy(), lin.bias.detach().numpy().copy())] for net in nets]
    return ScorerNetwork(meta, mean, std, weights)


# --------------------------------------------------------------------------- the run
MAX_ITERATIONS = 20


def _worker(players: int, options: dict[str, Any], seconds: float, seed: int, batch: int, out: str,
            log_path: str, policy_path: str | None, iteration: int, actions_per_position: int,
            rounds_per_iteration: int, policy_plays: bool) -> dict[str, Any]:
    # the previous iteration's scorer: its moves in the labelled seat (policy_plays)
    policy = None if policy_path is None else labelling_scorer(policy_path, players, options)
    with open(log_path, "a") as log:
        return label_rows(players, options, seconds, seed, batch, out, log=log, policy=policy,
                          max_rounds=rounds_per_iteration, first_round=iteration * rounds_per_iteration,
                          actions_per_position=actions_per_position, policy_plays=policy_plays)


def labelling_scorer(path: str | os.PathLike, players: int, options: dict[str, Any]) -> Any:
    """The agent of a scorer file for the labelling's single rounds; a whole-match scorer
    plays them too (a match is its rounds), without warning that it was trained for matches."""
    from cardenvs.agents.rami51_scorer import CardScorerAgent, ScorerNetwork

    scorer = ScorerNetwork.load(path)
    scorer.meta["options"] = {**scorer.meta.get("options", {}), "single_round": True}
    return CardScorerAgent(get_spec("rami51"), options={**options, "num_players": players, "single_round": True},
                           scorer=scorer)


def check_config(cfg: ScorerConfig) -> Any:
    """Every setting of ``cfg``, checked before anything runs (ValueError/TypeError naming
    it); returns the game's spec, and ``cfg.game`` becomes its env id."""
    if not isinstance(cfg.game, str):
        raise TypeError(f"game must be a game name or env id, got {cfg.game!r}")
    spec = get_spec(cfg.game)
    if spec.name != "rami51":
        raise ValueError(f"the card scorer is Rami 51's (its inputs read Rami 51's observation), not {spec.name}'s: "
                         "train other games with `cardenvs train ppo` or `cardenvs train search`")
    cfg.game = spec.env_id
    if cfg.method != "scorer":
        raise ValueError(f"method must be 'scorer', got {cfg.method!r}")
    if not isinstance(cfg.whole_matches, bool):
        raise TypeError(f"whole_matches must be True or False, got {cfg.whole_matches!r}")
    if cfg.fit_minutes is None and isinstance(cfg.minutes, (int, float)) and not isinstance(cfg.minutes, bool):
        cfg.fit_minutes = cfg.minutes / 3  # (a bad minutes is named by check_run_settings, before fit_minutes)
    # a truncated rollout would read as a void round: no max_steps
    check_run_settings(cfg, (), ("num_players", "single_round", "reward_mode", "max_steps"))
    if "decks" in cfg.options:  # the scorer counts unseen copies: two decks from 4 players, one below
        raise ValueError("options may not set decks: the card scorer's inputs assume the game's own deck count")
    if not (_positive_int(cfg.iterations) and cfg.iterations <= MAX_ITERATIONS):
        raise ValueError(f"iterations must be an integer in 1..{MAX_ITERATIONS}, got {cfg.iterations!r}")
    for name, high in (("first_share", 1), ("last_fit_share", 1), ("warm_learning_rate", 1e6)):
        v = getattr(cfg, name)
        if (v is not None or name == "warm_learning_rate") and (
                isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < high):
            raise ValueError(f"{name} must be a number in (0, {high:g}), got {v!r}")
    check_actions_per_position(cfg.actions_per_position)
    if cfg.labelled_seat not in LABELLED_SEATS:
        raise ValueError(f"labelled_seat must be one of {', '.join(LABELLED_SEATS)}, got {cfg.labelled_seat!r}")
    if cfg.batch > MAX_BATCH:  # a positive integer already (check_run_settings)
        raise ValueError(f"batch must be at most {MAX_BATCH}, got {cfg.batch!r}")
    if not (_positive_int(cfg.fit_window) and cfg.fit_window <= MAX_ITERATIONS):
        raise ValueError(f"fit_window must be an integer in 1..{MAX_ITERATIONS}, got {cfg.fit_window!r}")
    for name in ("points_weight", "last_points_weight"):
        v = getattr(cfg, name)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < 1e6:
            raise ValueError(f"{name} must be a number in [0, 1e6), got {v!r}")
    from cardenvs.agents.rami51_scorer import KINDS

    g = cfg.groups
    if not (isinstance(g, (tuple, list)) and len(g) == len(KINDS)
            and all(isinstance(k, (int, np.integer)) and not isinstance(k, bool) and 0 <= k < len(KINDS) for k in g)
            and set(g) == set(range(max(g) + 1))):
        raise ValueError(f"groups must give each of the {len(KINDS)} kinds of action ({', '.join(KINDS)}) a group, "
                         f"numbered from 0 without gaps, got {g!r}")
    if not (_positive_int(cfg.num_players) and spec.min_players <= cfg.num_players <= MAX_SCORER_PLAYERS):
        raise ValueError(f"num_players must be an integer in {spec.min_players}..{MAX_SCORER_PLAYERS} (the "
                         f"scorer's inputs read the next three seats), got {cfg.num_players!r}")
    # the options' kinds and storable ranges (as every env checks them), then the game checks the rest
    spec.module.make_template(**check_options(spec.name, spec.module,
                                              {**cfg.options, "num_players": cfg.num_players, "single_round": True}))
    return spec


def check_run(cfg: ScorerConfig) -> Any:
    """:func:`check_config`, and the output folder must not hold a run (its labels would
    mix with the new ones); returns the game's spec."""
    spec = check_config(cfg)
    check_new_folder(Path(cfg.out), "scorer.npz")
    return spec


def evaluate_scorer(spec: Any, agent: Any, players: int, options: dict[str, Any], matches: int,
                    folder: Path | None) -> dict[str, float]:
    """The scorer against heuristic and random players, and the heuristic against heuristic
    players on the same deals; into ``folder``'s eval.csv when given."""
    from cardenvs.agents import make_agent
    from cardenvs.agents.evaluate import evaluate
    from cardenvs.agents.training.trainer import EVAL_MAX_STEPS, evaluate_greedy

    res = evaluate_greedy(spec, agent, options, matches, seed=EVAL_SEED)
    opts = {"max_steps": EVAL_MAX_STEPS, **options}  # as evaluate_greedy plays them
    others = [make_agent("heuristic", spec, seed=10_000 + k, options=opts) for k in range(1, players)]
    ref = evaluate(spec, [make_agent("heuristic", spec, options=opts), *others], matches, seed=EVAL_SEED,
                   options=opts)[0]
    res.update({"heuristic_vs_heuristic": ref.win_rate, "heuristic_vs_heuristic_ci": ref.ci95})
    if folder is not None:
        write_eval_csv(folder, matches, res)
    return res


def write_eval_csv(folder: Path, matches: int, res: dict[str, Any]) -> None:
    """The figures of :func:`evaluate_scorer` as the run's eval.csv."""
    with open(folder / "eval.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["matches", "vs_heuristic", "vs_heuristic_ci95", "vs_heuristic_truncated", "vs_random",
                    "vs_random_ci95", "vs_random_truncated", "heuristic_vs_heuristic", "heuristic_vs_heuristic_ci95"])
        w.writerow([matches, f"{res['vs_heuristic']:.4f}", f"{res['vs_heuristic_ci']:.4f}",
                    res["vs_heuristic_truncated"], f"{res['vs_random']:.4f}", f"{res['vs_random_ci']:.4f}",
                    res["vs_random_truncated"], f"{res['heuristic_vs_heuristic']:.4f}",
                    f"{res['heuristic_vs_heuristic_ci']:.4f}"])


def iteration_shares(cfg: ScorerConfig) -> list[float]:
    """Each iteration's part of the labelling time (and of the fits', but see
    :func:`fit_shares`): the first one ``first_share``, the later ones the rest in equal
    parts; all equal when ``first_share`` is None."""
    if cfg.iterations == 1:
        return [1.0]
    if cfg.first_share is None:
        return [1.0 / cfg.iterations] * cfg.iterations
    return [cfg.first_share] + [(1.0 - cfg.first_share) / (cfg.iterations - 1)] * (cfg.iterations - 1)


def fit_shares(cfg: ScorerConfig) -> list[float]:
    """Each iteration's part of ``fit_minutes``: the last fit ``last_fit_share``, the
    earlier ones the rest in the proportions of :func:`iteration_shares`; with
    ``last_fit_share`` None (or one iteration), those proportions alone. A longer last fit
    over the last iterations' labels gained about 0.3 points in trials (docs/notes/rami51-scorer.md)."""
    shares = iteration_shares(cfg)
    if cfg.iterations == 1 or cfg.last_fit_share is None:
        return shares
    earlier = sum(shares[:-1])
    return [x / earlier * (1.0 - cfg.last_fit_share) for x in shares[:-1]] + [cfg.last_fit_share]


def _label(cfg: ScorerConfig, players: int, seconds: float, labels: Path, policy_path: Path | None,
           iteration: int, t0: float, err: TextIO) -> list[dict[str, Any]]:
    """One iteration's labelling on ``cfg.workers`` processes, with a progress line."""
    policy = None if policy_path is None else str(policy_path)
    return run_workers(_worker, [(players, cfg.options, seconds, worker_seed(cfg.seed, k), cfg.batch,
                                  str(labels / f"worker{k}"), str(labels / f"worker{k}.log"), policy, iteration,
                                  cfg.actions_per_position, WORKER_ROUNDS // cfg.iterations,
                                  cfg.labelled_seat == "scorer")
                                 for k in range(cfg.workers)], labels, seconds, t0, err)


def _plain(value: Any) -> Any:
    """A numpy number of the config as a JSON number (the checks take numpy integers)."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def run_scorer(cfg: ScorerConfig, out: TextIO | None = None, err: TextIO | None = None) -> dict[str, Any]:
    """Label, fit, evaluate (see the module docstring); returns the figures. Call it under
    ``if __name__ == "__main__":`` in a script: the workers are new processes that import it."""
    from cardenvs.agents.rami51_scorer import MATCH_PLAYERS, CardScorerAgent, ScorerNetwork
    from cardenvs.agents.training.trainer import share_text

    out, err = out or sys.stdout, err or sys.stderr
    spec = check_run(cfg)
    players = cfg.num_players
    options = cfg.game_options()  # what the scorer is evaluated on (it is labelled on single rounds)
    episode = "whole matches" if cfg.whole_matches else "single rounds"
    folder = Path(cfg.out)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(asdict(cfg), indent=2, default=_plain) + "\n")
    t0 = time.perf_counter()
    n = cfg.iterations
    label_plan = np.asarray(iteration_shares(cfg)) * (cfg.minutes - cfg.fit_minutes)  # minutes
    fit_plan = np.asarray(fit_shares(cfg)) * cfg.fit_minutes
    ends = np.cumsum(label_plan + fit_plan) * 60  # when each iteration's labelling and fit are to be over
    # when each labelling is to be over (from the run's start: a late iteration leaves the
    # next one less, an early one more, and the run keeps its budget)
    label_ends = ends - fit_plan * 60
    workers = f"{cfg.workers} worker{'s' if cfg.workers > 1 else ''}"
    plan = ", ".join(f"{a:.3g} + {b:.3g}" for a, b in zip(label_plan, fit_plan, strict=True))
    print(f"training a card scorer for {spec.env_id} ({players} players, {episode}) into {folder}: "
          f"{n} iteration{'s' if n > 1 else ''} of labelling on {workers} + fit ({plan} min)", file=out, flush=True)
    scorer = None
    scorer_path: Path | None = None
    figures: list[dict[str, Any]] = []
    iterations: list[dict[str, Any]] = []
    for it in range(n):
        labels = folder / "labels" / f"iteration{it + 1}"
        labels.mkdir(parents=True, exist_ok=True)
        if n > 1:
            if it == 0:
                who = "heuristic players"
            elif cfg.labelled_seat == "scorer":
                who = f"iteration {it}'s scorer in the labelled seat"
            else:
                who = f"heuristic players and iteration {it}'s scorer's moves"
            print(f"iteration {it + 1}: labelling with {who}", file=out, flush=True)
        results = _label(cfg, players, max(label_ends[it] - (time.perf_counter() - t0), 1.0), labels, scorer_path,
                         it, t0, err)
        positions = sum(r["positions"] for r in results)
        rounds = sum(r["rounds"] for r in results)
        print(f"labelled {positions:,} positions ({sum(r['rows'] for r in results):,} labelled actions) in "
              f"{rounds:,} rounds", file=out, flush=True)
        if any(r["rounds"] >= WORKER_ROUNDS // cfg.iterations for r in results):
            print(f"a worker played all the {WORKER_ROUNDS // cfg.iterations:,} round seeds of its block before its "
                  "labelling time was over: fewer --iterations give each a larger block", file=err, flush=True)
        window = [folder / "labels" / f"iteration{k + 1}" for k in range(max(it + 1 - cfg.fit_window, 0), it + 1)]
        fit_cfg = cfg
        if it == n - 1 and n > 1:
            fit_cfg = replace(cfg, points_weight=cfg.last_points_weight)
        data = load_rows([p for d in window for p in sorted(d.glob("worker*.npz"))], fit_cfg.points_weight)
        fit_positions = len(data["match"])
        first_fitted = it + 2 - len(window)
        print(f"fit over {fit_positions:,} positions (iteration{'s' if len(window) > 1 else ''} "
              f"{first_fitted}{f' to {it + 1}' if len(window) > 1 else ''})", file=out, flush=True)
        fit_seconds = max(ends[it] - (time.perf_counter() - t0), 0.0)
        scorer, fit = fit_scorer(data, fit_cfg, spec.env_id, players, fit_seconds, log=err, init=scorer)
        del data
        figures += [{"iteration": it + 1, **f} for f in fit]
        scorer_path = folder / ("scorer.npz" if it == n - 1 else f"scorer-{it + 1}.npz")
        scorer.save(scorer_path)
        epochs_run = round(sum(f["share_of_epoch"] for f in fit), 3)
        iterations.append({"iteration": it + 1, "positions": positions, "rounds": rounds, "epochs": epochs_run,
                           "fit_positions": fit_positions, "fit_iterations": [first_fitted, it + 1],
                           "minutes": (time.perf_counter() - t0) / 60, "fit": fit[-1]})
        print(f"fitted in {fit[-1]['seconds']:.0f} s ({epochs_run:.3g} epochs); "
              f"{iterations[-1]['minutes']:.1f} min so far",
              file=out, flush=True)
    with open(folder / "fit.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(figures[0]))
        w.writeheader()
        w.writerows(figures)
    elapsed = time.perf_counter() - t0
    print(f"training took {elapsed / 60:.1f} min", file=out, flush=True)
    for it in range(n - 1):  # the earlier iterations' scorers, for the curve (evaluation is not training)
        earlier = CardScorerAgent(spec, options=options, scorer=folder / f"scorer-{it + 1}.npz")
        iterations[it].update(evaluate_scorer(spec, earlier, players, options, cfg.eval_matches, None))
        print(f"iteration {it + 1}'s scorer: {share_text(iterations[it], 'heuristic', players)}", file=out, flush=True)
    agent = CardScorerAgent(spec, options=options, scorer=scorer)
    res = evaluate_scorer(spec, agent, players, options, cfg.eval_matches, None)
    iterations[-1].update(res)
    kept = n
    if cfg.whole_matches and n > 1:
        # a whole-match run keeps its best iteration's scorer: a long last fit can play whole
        # matches worse than the scorers before it (docs/notes/rami51-scorer.md)
        kept = 1 + int(np.argmax([x["vs_heuristic"] for x in iterations]))
        if kept != n:
            os.replace(folder / "scorer.npz", folder / f"scorer-{n}.npz")
            shutil.copyfile(folder / f"scorer-{kept}.npz", folder / "scorer.npz")
            scorer = ScorerNetwork.load(folder / "scorer.npz")
            res = {k: iterations[kept - 1][k] for k in res}
            print(f"the last scorer: {share_text(iterations[-1], 'heuristic', players)}; iteration {kept}'s "
                  f"won more and is kept as scorer.npz (the last is scorer-{n}.npz)", file=out, flush=True)
    write_eval_csv(folder, cfg.eval_matches, res)
    print(f"card scorer, {cfg.eval_matches} {'matches' if cfg.whole_matches else 'rounds'} each: "
          f"{share_text(res, 'heuristic', players)}; "
          f"{share_text(res, 'random', players)} (the heuristic itself vs {players - 1} heuristic: "
          f"{res['heuristic_vs_heuristic']:.1%} ± {res['heuristic_vs_heuristic_ci']:.1%} on the same deals)", file=out)
    others: dict[str, Any] = {}
    if cfg.whole_matches:  # a whole-match scorer plays any table of 2 to 4: the others measured too
        for p in range(MATCH_PLAYERS[0], MATCH_PLAYERS[1] + 1):
            if p == players:
                continue
            opts = {**options, "num_players": p}
            others[str(p)] = evaluate_scorer(spec, CardScorerAgent(spec, options=opts, scorer=scorer), p, opts,
                                             cfg.eval_matches, None)
            print(f"at {p} players, {cfg.eval_matches} matches each: {share_text(others[str(p)], 'heuristic', p)}; "
                  f"{share_text(others[str(p)], 'random', p)} (the heuristic itself vs {p - 1} heuristic: "
                  f"{others[str(p)]['heuristic_vs_heuristic']:.1%})", file=out, flush=True)
    print(f"scorer: {folder / 'scorer.npz'} (play it as scorer:{folder / 'scorer.npz'})", file=out)
    summary = {"positions": sum(x["positions"] for x in iterations), "rounds": sum(x["rounds"] for x in iterations),
               "elapsed": elapsed, "epochs": round(sum(f["share_of_epoch"] for f in figures), 3),
               "fit": figures[-1], **res, "kept_iteration": kept, "iterations": iterations,
               "other_players": others}
    (folder / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    plot_curve(folder, summary, f"{spec.env_id}, {players} players, {episode}", players, err)
    return summary


def plot_curve(folder: Path, summary: dict[str, Any], title: str, players: int, err: TextIO) -> None:
    """``curve.png`` (with matplotlib): each iteration's scorer against three heuristic
    players (with the heuristic's own share on the same deals) and against random ones,
    over the run's minutes, each point marked with the positions labelled so far."""
    from cardenvs.agents.training.trainer import pyplot_or_none

    plt = pyplot_or_none(err, "summary.json")
    if plt is None:
        return
    try:
        _draw_curve(folder, summary, title, players, plt)
    except Exception as e:  # the run's files are written: a plot that fails says so and no more
        plt.close("all")
        print(f"no curve.png: {e}", file=err)


def _draw_curve(folder: Path, summary: dict[str, Any], title: str, players: int, plt: Any) -> None:
    its = summary["iterations"]
    minutes = [x["minutes"] for x in its]
    labelled = np.cumsum([x["positions"] for x in its])
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, name in zip(axes, ("heuristic", "random"), strict=True):
        y = np.array([r[f"vs_{name}"] for r in its])
        ci = np.array([r[f"vs_{name}_ci"] for r in its])
        ax.plot(minutes, y, marker="o", label=f"the scorer vs {players - 1} {name}")
        ax.fill_between(minutes, y - ci, y + ci, alpha=0.2)
        for x, v, n in zip(minutes, y, labelled, strict=True):
            mark = f"{n / 1e6:.1f}M" if n >= 1e5 else f"{n:,}"
            ax.annotate(mark, (x, v), textcoords="offset points", xytext=(0, 8), ha="center", fontsize=8)
        if name == "heuristic":
            ax.axhline(summary["heuristic_vs_heuristic"], color="C1", linestyle=":",
                       label=f"the heuristic vs {players - 1} heuristic")
            ax.axhline(1 / players, color="grey", linestyle="--", label="fair share")
        ax.set_xlabel("run time at the iteration's end (min)")
        ax.set_ylabel("win share")
        ax.grid(alpha=0.3)
        ax.legend(loc="center right" if name == "heuristic" else "lower right")
    fig.suptitle(f"{title} (marks: positions labelled so far)")
    fig.tight_layout()
    fig.savefig(folder / "curve.png", dpi=100)
    plt.close(fig)
