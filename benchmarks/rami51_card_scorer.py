"""How far a card scorer fitted to exact rollout values takes Rami 51 (single rounds).

A measurement of a way to train Rami 51 that is not in the package yet. Three steps:

1. **Label.** Worker processes play rounds at 4 players with heuristic players at every
   seat. At each decision with more than one legal action of one seat (rotated), every
   legal action is played out on the true deal, every card as it is, the stock's order
   too, with heuristic players after it: one exact rollout per action, valued by the
   win (``cardenvs.expert.label_positions`` with ``true_deal``). The labels read every
   card; what learns from them sees only the seat's observation, so over positions that
   look alike it learns the values' mean over the deals that occur in play. One rollout
   per action is 64 times cheaper than a search over 64 deals.
2. **Fit.** One small network (64-64 tanh) scores each legal action from a few numbers:
   its kind (draw, take the discard, start a meld, pick a table meld, add a card, a
   joker, close the meld, discard), the card it moves and how that card sits in the hand
   (other cards of its rank, of its suit one and two positions away, a duplicate, its
   penalty, whether it fits a table meld and who could lay it there, copies already
   seen), and the position (who has opened, the hand sizes, the stock). The same weights
   score every action and every card, so what is learnt of one card carries to the
   others. It learns each legal action's value minus the heuristic move's, by least
   squares. The positions of a tenth of the matches are held out (whole matches: the
   positions of one match share its outcome).
3. **Play.** The action the scorer ranks first, at every decision with a choice. It is
   played against three heuristic players, seats rotated, and so is the heuristic itself
   on the same deals.

The figures in ``docs/training.md`` ("Rami 51 by search: what was measured") come from

    python benchmarks/rami51_card_scorer.py --workers 2 --label-minutes 30 --curve --seed 2 --eval-seed 4242
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

from cardenvs.expert import held_out_split, label_positions, load_labels
from cardenvs.games import rami51 as R
from cardenvs.games.rami51_plan import rami_penalty
from cardenvs.registry import get_spec

OPTIONS = {"num_players": 4, "single_round": True}

# observation offsets and action ids (numba reads them as constants when it compiles)
O_HAND, O_TOP, O_PILE, O_TABLE, O_MELDS = R.OBS_HAND, R.OBS_TOP, R.OBS_PILE, R.OBS_TABLE, R.OBS_MELDS
O_PHASE, O_BUILD, O_TURN, O_SEATS = R.OBS_PHASE, R.OBS_BUILD, R.OBS_TURN, R.OBS_SEATS
MELD_F, MAX_MELDS, SEAT_F = R.MELD_FEATURES, R.MAX_MELDS, R.SEAT_FEATURES
A_STOCK, A_TAKE, A_MELD, A_ADD, A_JOKER, A_CLOSE, A_DISCARD = (
    R.DRAW_STOCK, R.TAKE_DISCARD, R.NEW_MELD, R.ADD0, R.JOKER0, R.CLOSE, R.DISCARD0)
JOKER = 52
CARD_F = 18  # how a card sits in the hand (card_features)
CONTEXT_F = 9  # the position (context)
KINDS = 8
NUM_F = CARD_F + 14 + CONTEXT_F + KINDS + 4 + 2  # + the card's rank one-hot, the phase, the meld being built


@njit(cache=False)
def fits_table(o, c):
    """Whether natural card c looks layable on a table meld (a set missing its suit, a run
    it extends): an input of the scorer read off the observation, not a rule (the mask
    says what is legal)."""
    r, t = c // 4, c % 4
    for m in range(MAX_MELDS):
        b = O_MELDS + m * MELD_F
        if o[b] == 1:  # a set: key is its rank, suits from b + 8
            if o[b + 2] == r and o[b + 8 + t] == 0 and o[b + 5] < 4:
                return 1
        elif o[b + 1] == 1 and o[b + 2] == t:  # a run of suit t, positions lo..hi (the ace is 0 or 13)
            lo, hi = o[b + 3], o[b + 4]
            if r == lo - 1 or r == hi + 1 or (r == 0 and hi == 12 and lo > 0):
                return 1
    return 0


@njit(cache=False)
def card_features(o, F):
    """For every card type the hand holds: how it fits the hand and the table (rows of F)."""
    F[:] = 0.0
    opened_self = o[O_SEATS + 2]
    opp_opened = o[O_SEATS + SEAT_F + 2] + o[O_SEATS + 2 * SEAT_F + 2] + o[O_SEATS + 3 * SEAT_F + 2]
    next_opened = o[O_SEATS + SEAT_F + 2]
    for c in range(53):
        if o[O_HAND + c] == 0:
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


@njit(cache=False)
def context(o, out):
    out[:] = 0.0
    out[0] = o[O_SEATS + 2]  # opened
    for j in range(1, 4):
        out[j] = o[O_SEATS + j * SEAT_F + 2]  # the others have opened
        out[3 + j] = o[O_SEATS + j * SEAT_F + 1] / 14.0  # their hand sizes
    out[7] = o[O_TURN + 4] / 100.0  # the stock
    out[8] = o[O_SEATS + 1] / 14.0  # own hand size


@njit(cache=False)
def position_features(o, F, ctx):
    """card_features and context of one observation; the discard top is scored as if held."""
    card_features(o, F)
    top = -1
    for c in range(53):
        if o[O_TOP + c] > 0:
            top = c
    if top >= 0 and o[O_HAND + top] == 0:
        o2 = o.copy()
        o2[O_HAND + top] = 1
        F2 = np.zeros_like(F)
        card_features(o2, F2)
        F[top] = F2[top]
    context(o, ctx)
    return top


@njit(cache=False)
def action_features(o, F, ctx, top, a, x):
    """The scorer's input for action a (x, NUM_F values)."""
    x[:] = 0.0
    c = -1
    if a == A_STOCK:
        kind = 0
    elif a == A_TAKE:
        kind, c = 1, top
    elif a == A_MELD:
        kind = 2
    elif a < A_ADD:
        kind = 3  # pick a table meld to lay off on
    elif a < A_JOKER:
        kind, c = 4, a - A_ADD
    elif a < A_CLOSE:
        kind, c = 5, a - A_JOKER  # a joker laid for card c: c's numbers say where it goes
    elif a == A_CLOSE:
        kind = 6
    else:
        kind, c = 7, a - A_DISCARD
    if c >= 0:
        x[:CARD_F] = F[c]
        x[CARD_F + (13 if c == JOKER else c // 4)] = 1.0
    b = CARD_F + 14
    x[b:b + CONTEXT_F] = ctx
    b += CONTEXT_F
    x[b + kind] = 1.0
    b += KINDS
    for ph in range(4):
        x[b + ph] = o[O_PHASE + ph]
    building = 0
    for cc in range(52):
        building += o[O_BUILD + cc] > 0
    x[b + 4] = building / 5.0
    x[b + 5] = o[O_TURN] / 51.0


@njit(cache=False)
def rows_of(obs, masks, X, row_pos, row_action):
    """One input row per legal action of every observation with a choice; returns the count."""
    F = np.zeros((53, CARD_F))
    ctx = np.zeros(CONTEXT_F)
    k = 0
    for i in range(obs.shape[0]):
        if masks[i].sum() < 2:
            continue
        top = position_features(obs[i], F, ctx)
        for a in range(masks.shape[1]):
            if masks[i, a]:
                action_features(obs[i], F, ctx, top, a, X[k])
                row_pos[k] = i
                row_action[k] = a
                k += 1
    return k


def training_rows(data: dict[str, np.ndarray], positions: np.ndarray):
    """Inputs, targets (value minus the heuristic move's) and the heuristic move's row."""
    obs = data["obs"][positions].astype(np.int16)
    masks = data["mask"][positions]
    m = int(masks.sum())
    X = np.zeros((m, NUM_F), np.float32)
    pos = np.zeros(m, np.int64)
    act = np.zeros(m, np.int64)
    k = rows_of(obs, masks, X, pos, act)
    X, pos, act = X[:k], pos[:k], act[:k]
    q = data["q"][positions].astype(np.float32)
    hint = data["hint"][positions].astype(np.int64)
    y = q[pos, act] - q[pos, hint[pos]]
    first = np.searchsorted(pos, np.arange(len(positions)))  # each position's first row
    # the heuristic move's row: its position's first row + the legal actions before it
    before = (masks & (np.arange(masks.shape[1])[None, :] < hint[:, None])).sum(1)
    hint_row = first[pos] + before[pos]
    assert (act[hint_row] == hint[pos]).all()
    return X, y.astype(np.float32), hint_row, pos, act


def best_rows(scores: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """The row of each position's best score (``pos``: the position of each row)."""
    order = np.lexsort((-scores, pos))
    return order[np.r_[True, pos[order][1:] != pos[order][:-1]]]


class Scorer:
    """The fitted network, with the input scaling, as an agent of the evaluation."""

    name = "card-scorer"

    def __init__(self, net, mean, std, torch):
        self.net, self.mean, self.std, self.torch = net, mean, std, torch

    def scores(self, X: np.ndarray) -> np.ndarray:
        with self.torch.no_grad():
            x = (self.torch.from_numpy(X) - self.mean) / self.std
            return self.net(x).squeeze(-1).numpy()

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks, dtype=np.bool_)
        out = np.full(len(masks), -1, np.int64)
        legal_rows = np.flatnonzero(masks.any(1))
        out[legal_rows] = masks[legal_rows].argmax(1)  # a forced move (or the only one)
        m = int(masks.sum())
        X = np.zeros((m, NUM_F), np.float32)
        pos = np.zeros(m, np.int64)
        act = np.zeros(m, np.int64)
        k = rows_of(np.asarray(observations).astype(np.int16), masks, X, pos, act)
        if k:
            best = best_rows(self.scores(X[:k]), pos[:k])
            out[pos[best]] = act[best]
        return out

    def reset(self) -> None:
        pass


def rows_by_shard(shards: list[Path], seed: int):
    """The training rows and the held-out rows of every shard, built a shard at a time (a
    shard's observations are larger than its rows). Held out: the positions of a tenth of
    the matches."""
    matches = np.concatenate([np.load(p)["match"] for p in shards])
    held, _ = held_out_split({"obs": matches, "match": matches}, np.random.default_rng(seed))
    held_matches = np.unique(matches[held])
    train_parts, held_parts = [], []
    positions = 0
    for path in shards:
        data = load_labels([path])
        positions += len(data["obs"])
        is_held = np.isin(data["match"], held_matches)
        for parts, chosen in ((train_parts, ~is_held), (held_parts, is_held)):
            X, y, hint_row, pos, _ = training_rows(data, np.flatnonzero(chosen))
            parts.append((X, y, hint_row, pos))
        del data
    out = []
    for parts in (train_parts, held_parts):
        # rows and positions numbered across the shards
        row_off = np.cumsum([0] + [len(x[0]) for x in parts[:-1]])
        pos_off = np.cumsum([0] + [int(x[3].max()) + 1 if len(x[3]) else 0 for x in parts[:-1]])
        out.append((np.concatenate([x[0] for x in parts]), np.concatenate([x[1] for x in parts]),
                    np.concatenate([x[2] + o for x, o in zip(parts, row_off, strict=True)]),
                    np.concatenate([x[3] + o for x, o in zip(parts, pos_off, strict=True)])))
    return out[0], out[1], positions


def fit(shards: list[Path], epochs: int, seed: int, threads: int, log) -> tuple[Scorer, list[dict]]:
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    (X, y, hint_row, _), (Xh, yh, _, pos_h), positions = rows_by_shard(shards, seed)
    print(f"fit: {positions:,} positions, {len(X):,} training rows, {len(Xh):,} held out", file=log, flush=True)
    Xt, yt, ht = torch.from_numpy(X), torch.from_numpy(y), torch.from_numpy(hint_row)
    # the inputs' scaling, a chunk at a time (a whole-array temporary would double the memory)
    total, total_sq = np.zeros(NUM_F), np.zeros(NUM_F)
    for s in range(0, len(X), 1 << 20):
        chunk = X[s:s + (1 << 20)].astype(np.float64)
        total += chunk.sum(0)
        total_sq += (chunk ** 2).sum(0)
    mean_np = total / len(X)
    std_np = np.sqrt(np.maximum(total_sq / len(X) - mean_np ** 2, 0.0)) + 1e-3
    mean, std = torch.from_numpy(mean_np.astype(np.float32)), torch.from_numpy(std_np.astype(np.float32))
    net = torch.nn.Sequential(torch.nn.Linear(NUM_F, 64), torch.nn.Tanh(), torch.nn.Linear(64, 64), torch.nn.Tanh(),
                              torch.nn.Linear(64, 1))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    scorer = Scorer(net, mean, std, torch)
    batch = 4096
    steps = max(epochs * (len(X) // batch), 1)
    step = 0
    rows = []
    t0 = time.perf_counter()
    for epoch in range(epochs):
        perm = torch.randperm(len(X))
        total = 0.0
        for s in range(0, len(X) - batch + 1, batch):
            for group in opt.param_groups:
                group["lr"] = 1e-3 * max(1.0 - step / steps, 0.05)
            step += 1
            idx = perm[s:s + batch]
            out = net((Xt[idx] - mean) / std).squeeze(-1) - net((Xt[ht[idx]] - mean) / std).squeeze(-1)
            loss = ((out - yt[idx]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        # held-out matches: the mean value (over the heuristic's move) of the moves the scorer ranks first
        chosen = yh[best_rows(scorer.scores(Xh), pos_h)]
        gain = float(chosen.mean())
        changed = float((chosen != 0).mean())
        rows.append({"epoch": epoch, "loss": total / max(len(X) // batch, 1), "held_out_gain": gain,
                     "seconds": time.perf_counter() - t0})
        print(f"fit epoch {epoch}: loss {rows[-1]['loss']:.4f}, held-out matches: value of the scorer's moves "
              f"over the heuristic's {gain:+.4f} a position ({changed:.0%} with another value) "
              f"({rows[-1]['seconds']:.0f} s)", file=log, flush=True)
    return scorer, rows


def _label(seed: int, seconds: float, out: str) -> dict:
    with open(out + ".log", "w") as log:
        return label_positions("rami51", 4, 1, seconds, seed, 512, out, log=log, options=dict(OPTIONS),
                               control=True, true_deal=True)


def play(scorer: Scorer, matches: int, seed: int) -> dict[str, dict[str, float]]:
    """The scorer and the heuristic, each against three heuristic players on the same deals."""
    from cardenvs.agents import make_agent
    from cardenvs.agents.evaluate import evaluate

    spec = get_spec("rami51")
    out = {}
    for name, agent in (("card scorer", scorer), ("heuristic", make_agent("heuristic", spec, options=OPTIONS))):
        others = [make_agent("heuristic", spec, seed=i, options=OPTIONS) for i in range(3)]
        r = evaluate(spec, [agent, *others], matches, seed=seed, options=OPTIONS)[0]
        out[name] = {"win_share": r.win_rate, "ci95": r.ci95, "finished": r.finished, "truncated": r.truncated}
        print(f"{name}: {r.win_rate:.1%} ± {r.ci95:.1%} of {r.finished} rounds against three heuristic players"
              f" ({r.truncated} cut short at the turn limit)", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--label-minutes", type=float, default=10.0)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--matches", type=int, default=4000, help="evaluation rounds (each side)")
    ap.add_argument("--seed", type=int, default=1, help="labelling and fit")
    ap.add_argument("--eval-seed", type=int, default=777, help="the evaluation's deals")
    ap.add_argument("--curve", action="store_true",
                    help="also fit and play on the labels of the first 10, 20, ... minutes (each worker "
                         "writes its labels every 10 minutes)")
    ap.add_argument("--folder", type=Path, help="keep the labels there (default: a temporary folder)")
    args = ap.parse_args()
    if args.epochs < 1 or args.workers < 1 or args.matches < 1 or args.label_minutes <= 0:
        ap.error("--epochs, --workers, --matches and --label-minutes must be positive")

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.folder or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(args.workers) as pool:
            jobs = [pool.apply_async(_label, (args.seed * 1000 + k, args.label_minutes * 60, str(folder / f"w{k}")))
                    for k in range(args.workers)]
            results = [j.get() for j in jobs]
        labelled = time.perf_counter() - t0
        print(f"labelled {sum(r['positions'] for r in results):,} positions of "
              f"{sum(r['matches'] for r in results):,} rounds in {labelled / 60:.1f} min on {args.workers} workers",
              flush=True)
        shards = sorted(folder.glob("w*.npz"))
        counts = sorted({int(p.name.split(".")[1]) + 1 for p in shards})
        for k in (counts if args.curve else counts[-1:]):
            t1 = time.perf_counter()
            part = [p for p in shards if int(p.name.split(".")[1]) < k]
            last = k == counts[-1]
            print(f"-- the labels of {'all' if last else f'the first {10 * k}'} minutes", flush=True)
            scorer, rows = fit(part, args.epochs, args.seed, args.workers, sys.stdout)
            fit_minutes = (time.perf_counter() - t1) / 60
            shares = play(scorer, args.matches, args.eval_seed)
            print(json.dumps({"label_minutes": labelled / 60 if last else 10.0 * k, "workers": args.workers,
                              "fit_minutes": fit_minutes, "fit": rows[-1], **shares,
                              "seed": args.seed, "eval_seed": args.eval_seed}), flush=True)


if __name__ == "__main__":
    main()
