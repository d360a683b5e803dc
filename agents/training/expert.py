"""Expert iteration: a rollout search labels positions, a residual policy learns from it
(``cardenvs train search GAME``).

PPO on its own finds it hard to improve on a good rule-based player: a better move shows
up only in the noise of whole rounds. A search shows it directly. In each position a
one-step search over the heuristic player (:mod:`cardenvs.agents.search`, which the agent
``search`` plays by too):

- deals the cards the seat cannot see anew, ``samples`` times (the game's
  ``deal_unseen_batch``: only deals the seat cannot tell apart from the true one);
- tries every legal action in every deal, and plays the round out with the heuristic at
  every seat (the same deals for every action, so their differences are less noisy);
- values each action by the mean over the deals of (the seat's round reward - the
  others' mean).

A match of one round (``single_round``) is valued by its outcome, the game's match rewards
(the win); a longer one by each round's rewards (its points). Ties go to the heuristic's move.

What the search reads (``SearchConfig.hands``): "sampled" (the default) deals every card the
seat cannot see anew, uniformly, and the seat plays the search's move. "true" keeps the
other hands as they are and deals only the cards no one holds (a rummy's stock), and the
seat plays the heuristic's move (the search is then no fair player, so it only labels).
The fit still sees the observation alone: over many positions that look the same to the
seat it learns the values' mean, over hands as they occur in play, where a uniform deal
gives the other players hands that heuristic players would not hold (Rami 51's keep the
cards that meld, so they are nearer to going out than a random hand).

The search reads the game's state (the agent ``search`` plays by it, fed the state by the
front ends); what it teaches plays from the observation alone. Worker
processes play matches, one seat by the search and the others by the heuristic, and
record every decision of the search seat: the observation, the mask, the heuristic's move
and the value of every legal action. A residual policy (the network of ``cardenvs
train``, reading the observation and the heuristic's move) then learns those values as
advantages over the heuristic's move, by least squares over the legal actions. It keeps
the heuristic's move unless another one's learned advantage is above a margin (the
policy's ``hint_bonus``). The positions of a tenth of the matches are held out (whole
matches: see :func:`held_out_split`): after each epoch the fit measures, on them, the
search's value of the moves the policy would choose with each margin; it keeps the epoch
and the margin that gain most there. (The best of several choices is a little
optimistic: the figure guides the fit, the evaluation in matches measures the policy.) The policy
plays from its observation alone, like any ``ppo:PATH`` agent.

The run writes into its folder: ``labels/`` (the recorded positions), ``fit.csv`` (the
fit's epochs: training loss, the held-out positions' agreement with the search and the
advantage of the policy's moves by the search's values), ``margin.csv``, ``eval.csv`` and
``policy.npz``. Its budget covers everything but the final evaluation: labelling until
``minutes - fit_minutes``, then the fit (which always completes its first epoch).
"""

from __future__ import annotations

import contextlib
import copy
import csv
import json
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from cardenvs.agents.search import deal_unseen as deal_unseen
from cardenvs.agents.search import has_redeal
from cardenvs.agents.search import rollout_values as rollout_values
from cardenvs.agents.search import search_values as search
from cardenvs.core.protocol import check_options
from cardenvs.core.registry import get_spec

SHARD_SECONDS = 600.0  # a worker writes its positions this often (a crash loses less)
MIN_POSITIONS = 100  # below this the held-out tenth says nothing
# margins tried for the heuristic's move (in the search's value units); the last keeps it always
MARGINS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0, 1e9)


@dataclass
class SearchConfig:
    """Everything that defines a search-labelled run (saved in its folder)."""

    game: str
    num_players: int | None = None
    single_round: bool = False  # the game is one round (labelled, fitted and evaluated so)
    options: dict[str, Any] = field(default_factory=dict)  # other game options
    minutes: float = 60.0  # the whole budget: labelling, then the fit
    fit_minutes: float = 8.0  # the part of it kept for the fit
    samples: int = 8  # deals of the unseen cards per searched position
    # "sampled": each deal one the seat cannot tell from the true one (the other hands dealt
    # anew); "true": the other hands as they are, the undrawn cards dealt anew, and the seat
    # plays the heuristic's move (see "What the search reads" in the module docstring)
    hands: str = "sampled"
    workers: int = 2  # labelling processes
    batch: int = 64  # matches each worker plays side by side
    seed: int = 0
    out: str = "runs/search"
    hidden: tuple[int, ...] = (256, 256)
    epochs: int = 8  # at most: the fit keeps the epoch best on held-out positions
    learning_rate: float = 1e-3
    minibatch: int = 1024
    torch_threads: int | None = None  # default: every core (the labelling is over by then)
    eval_matches: int = 2000
    method: str = "search"  # what trained the run (the method of ``cardenvs train METHOD``)

    def game_options(self, players: int) -> dict[str, Any]:
        """The game the policy is for (``players`` seats)."""
        opts = {**self.options, "num_players": players}
        if self.single_round:
            opts["single_round"] = True
        return opts


def has_search(spec: Any) -> bool:
    """Whether the game can deal the unseen cards anew (what the search needs)."""
    return has_redeal(spec)


def label_positions(game_name: str, players: int, samples: int, seconds: float, seed: int, batch: int,
                    out: str | None, max_matches: int | None = None, log: TextIO | None = None, *,
                    options: dict[str, Any] | None = None, hands: str = "sampled", control: bool = False,
                    true_deal: bool = False, play_search: bool = False) -> dict[str, Any]:
    """Play matches for ``seconds`` (or ``max_matches``): one seat (rotated) by the search,
    the others by the heuristic; record every decision of the search seat with more than
    one legal action. Writes ``{out}.{k}.npz`` shards (obs, mask, hint: the heuristic's
    move, q: the search's action values, NaN where illegal, best: the search's move,
    match: the seed of the position's match) when
    ``out`` is given; returns the counts, the search seat's wins (ties shared) and how
    many of its moves were not the heuristic's. ``options``: the game's other options
    (checked by the caller). ``hands``: see :class:`SearchConfig`. For measurements:
    ``control`` plays the heuristic's move after each search, ``true_deal`` searches the
    true deal (not fair), ``play_search`` plays the search's move even when it reads the
    other hands (``hands="true"``: not fair either)."""
    from cardenvs.agents import make_agent
    from cardenvs.core.vector import VecEnv

    spec = get_spec(game_name)
    game = spec.module
    opts = {**(options or {}), "num_players": players}
    heuristic = make_agent("heuristic", spec, options=opts)
    # a match of one round is valued by its outcome (its match rewards: the win), a longer one
    # by each round's rewards (its points: the win of a round says too little about a match)
    value_mode = "match" if opts.get("single_round") else "round"
    round_mode = game.make_template(**{**opts, "reward_mode": value_mode})["reward_mode"][0]
    rng = np.random.default_rng([seed, 7])
    true_hands = hands == "true"
    # a search that reads the other hands is no fair player: it only labels (unless measured)
    control = control or (true_hands and not play_search)
    first = seed * 10_000_000  # the match seeds of this worker
    unlike = 0
    rec: dict[str, list] = {k: [] for k in ("obs", "mask", "hint", "q", "best", "match")}
    t0 = last_save = time.perf_counter()
    played = labels = shard = 0
    wins = 0.0

    def save() -> None:
        nonlocal shard, rec
        if out is not None and rec["obs"]:
            np.savez_compressed(f"{out}.{shard}.npz", obs=np.array(rec["obs"]), mask=np.array(rec["mask"]),
                     hint=np.array(rec["hint"], np.int16), q=np.array(rec["q"], np.float16),
                     best=np.array(rec["best"], np.int16), match=np.array(rec["match"], np.int64))
            shard += 1
        rec = {k: [] for k in rec}

    while time.perf_counter() - t0 < seconds and (max_matches is None or played < max_matches):
        n = batch
        venv = VecEnv(spec, n, auto_reset=False, auto_play_forced=True, **opts)
        st = venv.reset(seeds=np.arange(first + played, first + played + n))
        seat = (np.arange(n) + played) % players
        total = np.zeros((n, players))
        done = np.zeros(n, bool)
        while not done.all():
            acts = heuristic.act_batch(st.observation, st.legal_action_mask).astype(np.int64)
            rows = np.flatnonzero(~done & (st.current_player == seat) & (st.legal_action_mask.sum(1) > 1))
            if rows.size:
                values = search(game, heuristic, venv.states[rows], seat[rows], st.legal_action_mask[rows],
                                samples, players, round_mode, None if true_deal else rng, true_hands)
                for i, v in zip(rows, values, strict=True):
                    legal = np.flatnonzero(st.legal_action_mask[i])
                    q = np.full(game.NUM_ACTIONS, np.nan, np.float32)
                    q[legal] = v
                    # ties (common when the value is the win) go to the heuristic's move
                    best = int(acts[i]) if v[legal == acts[i]][0] >= v.max() else int(legal[int(np.argmax(v))])
                    rec["obs"].append(st.observation[i].astype(np.float16))
                    rec["mask"].append(st.legal_action_mask[i])
                    rec["hint"].append(acts[i])
                    rec["q"].append(q)
                    rec["best"].append(best)
                    rec["match"].append(first + played + i)
                    unlike += best != acts[i]
                    if not control:
                        acts[i] = best
                labels += rows.size
            acts[done] = 0  # a finished match ignores its action
            st = venv.step(acts)
            total += st.rewards
            done |= st.terminated | st.truncated
        for i in range(n):
            winners = np.flatnonzero(total[i] == total[i].max())
            wins += (seat[i] in winners) / len(winners)
        played += n
        if time.perf_counter() - last_save > SHARD_SECONDS:
            save()
            last_save = time.perf_counter()
        if log is not None:
            elapsed = time.perf_counter() - t0
            half = 1.96 * math.sqrt(wins / played * (1 - wins / played) / played)
            print(f"{played} matches, {labels} positions ({unlike / max(labels, 1):.0%} unlike the heuristic's "
                  f"move), search seat's win share {wins / played:.3f} +- {half:.3f}, {elapsed:.0f} s, "
                  f"{labels / max(elapsed, 1e-9):.0f}/s", file=log, flush=True)
    save()
    return {"matches": played, "positions": labels, "search_wins": wins, "unlike_heuristic": unlike,
            "seconds": time.perf_counter() - t0}


# --------------------------------------------------------------------------- the fit
def load_labels(paths: list[Path]) -> dict[str, np.ndarray]:
    """The recorded positions of every shard, concatenated (with each position's match
    when every shard records it: shards of older runs do not)."""
    parts = [np.load(p) for p in paths]
    if not parts:
        raise ValueError("no labelled positions to learn from")
    keys = ["obs", "mask", "hint", "q", "best"]
    if all("match" in p.files for p in parts):
        keys.append("match")
    # each array filled shard by shard (np.concatenate would hold every shard and the whole
    # at once: twice the memory, 20 GB for Frime's observations of 5M positions)
    hints = [p["hint"] for p in parts]
    sizes = [len(h) for h in hints]
    data = {}
    for k in keys:
        first = hints[0] if k == "hint" else parts[0][k]
        whole = np.empty((sum(sizes), *first.shape[1:]), first.dtype)
        at = 0
        for i, (p, size) in enumerate(zip(parts, sizes, strict=True)):
            part = first if i == 0 else hints[i] if k == "hint" else p[k]
            if part.dtype != first.dtype or part.shape != (size, *first.shape[1:]):
                raise ValueError(f"label shard {paths[i]}: {k} is {part.dtype} {part.shape}, the first shard's "
                                 f"{first.dtype} {first.shape}: shards of different runs or versions")
            whole[at:at + size] = part
            at += size
        data[k] = whole
    return data


def held_out_split(data: dict[str, np.ndarray], rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The positions held out (about a tenth) and the positions to train on, both shuffled.
    Whole matches are held out when the positions record theirs: the positions of one
    match look alike and share its outcome, so a fit that saw some of them can recall the
    others' values without having learnt anything that carries to other matches (on Rami
    51 a fit's gain on held-out positions of its own matches was positive while on other
    matches it was negative). Without match records, single positions are held out."""
    n = len(data["obs"])
    if "match" not in data:
        order = rng.permutation(n)
        cut = max(n // 10, 1)
        return order[:cut], order[cut:]
    matches = np.unique(data["match"])
    chosen = rng.permutation(matches)[: max(len(matches) // 10, 1)]
    is_held = np.isin(data["match"], chosen)
    held, train = np.flatnonzero(is_held), np.flatnonzero(~is_held)
    return rng.permutation(held), rng.permutation(train)


def fit_policy(data: dict[str, np.ndarray], spec: Any, players: int, cfg: SearchConfig, seconds: float,
               log: TextIO | None = None, folder: Path | None = None):
    """Fit the residual policy to the search's values (see the module docstring) for up to
    ``seconds`` (the first epoch always completes); returns the
    :class:`cardenvs.agents.ppo.PolicyNetwork` with its margin, and a summary."""
    from cardenvs.agents.networks import _torch, build_networks
    from cardenvs.agents.ppo import policy_network
    from cardenvs.agents.training.running_stats import RunningStats

    torch = _torch()
    torch.set_num_threads(cfg.torch_threads or os.cpu_count() or 1)
    torch.manual_seed(cfg.seed)
    t0 = time.perf_counter()
    game = spec.module
    A = game.NUM_ACTIONS
    n = len(data["obs"])
    if n < MIN_POSITIONS:
        raise ValueError(f"{n} labelled positions are too few to fit a policy (at least {MIN_POSITIONS}): "
                         "give the labelling more time")
    obs = torch.from_numpy(data["obs"])  # float16, normalised a minibatch at a time (memory)
    stats = RunningStats(game.OBS_SIZE)
    for s in range(0, n, 65536):  # a chunk at a time: a float64 copy of millions of rows would not fit
        stats.update(data["obs"][s:s + 65536])
    mean, std = stats.mean.astype(np.float32), stats.std()
    mean_t, std_t = torch.from_numpy(mean), torch.from_numpy(std)
    masks = torch.from_numpy(data["mask"])
    hints = torch.from_numpy(data["hint"].astype(np.int64))
    best = torch.from_numpy(data["best"].astype(np.int64))
    adv = torch.from_numpy(_advantages(data["q"], data["hint"], data["mask"]))
    eye = torch.eye(A)

    def inputs(idx: Any) -> Any:
        x = ((obs[idx].float() - mean_t) / std_t).clamp_(-5.0, 5.0)
        return torch.cat([x, eye[hints[idx]]], dim=1)

    actor, _ = build_networks(game.OBS_SIZE, A, tuple(cfg.hidden), "tanh", heuristic_input=True)
    opt = torch.optim.Adam(actor.parameters(), lr=cfg.learning_rate)
    rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 3]))
    held, train = held_out_split(data, rng)  # the margin and the epoch are chosen on the held-out positions
    if train.size == 0:
        raise ValueError(f"the {n} labelled positions come from one match: give the labelling more time")
    steps = cfg.epochs * math.ceil(train.size / cfg.minibatch)
    step = 0
    rows = []
    kept = None  # (best margin's row, every margin's rows, weights, epoch) of the best epoch so far
    for epoch in range(cfg.epochs):
        if epoch and time.perf_counter() - t0 > seconds:  # the first epoch always runs
            break
        rng.shuffle(train)
        losses = []
        for s in range(0, train.size, cfg.minibatch):
            if epoch and time.perf_counter() - t0 > seconds:
                break
            for group in opt.param_groups:
                group["lr"] = cfg.learning_rate * max(1.0 - step / steps, 0.02)
            step += 1
            idx = torch.from_numpy(train[s:s + cfg.minibatch])
            m = masks[idx]
            loss = (((actor(inputs(idx)) - adv[idx].float()) ** 2) * m).sum() / m.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        margins, agreement = _held_out(actor, inputs, held, masks, hints, best, adv)
        top = max(margins, key=lambda r: r["advantage"])
        rows.append({"epoch": epoch, "loss": float(np.mean(losses)), "agreement": agreement,
                     "advantage": margins[0]["advantage"], "best_margin": top["margin"],
                     "advantage_at_best_margin": top["advantage"], "seconds": time.perf_counter() - t0})
        if kept is None or top["advantage"] > kept[0]["advantage"]:  # early stopping on the held-out positions
            kept = (top, margins, copy.deepcopy(actor.state_dict()), epoch)
        if log is not None:
            print(f"fit epoch {epoch}: loss {rows[-1]['loss']:.4f}, held-out agreement with the search "
                  f"{agreement:.3f}; advantage per position {margins[0]['advantage']:+.4f}, "
                  f"{top['advantage']:+.4f} with margin {top['margin']:g} ({time.perf_counter() - t0:.0f} s)",
                  file=log, flush=True)
    top, margins, weights, kept_epoch = kept
    actor.load_state_dict(weights)
    margin = top["margin"]
    if folder is not None:
        _write_csv(folder / "fit.csv", rows)
        _write_csv(folder / "margin.csv", margins)
    meta = {"env_id": spec.env_id, "num_players": players, "options": cfg.game_options(players),
            "activation": "tanh", "heuristic_input": True, "hint_bonus": float(margin)}
    policy = policy_network(actor, mean, std, meta)
    return policy, {"positions": n, "epochs": rows, "kept_epoch": kept_epoch, "margin": margin,
                    "held_out_advantage": top["advantage"], "fit_seconds": time.perf_counter() - t0}


def _advantages(q: np.ndarray, hints: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Each legal action's value over the heuristic's move (``q`` less the hint's value), 0
    where illegal, as float16 like the labels: computed a chunk at a time in float32 (a
    float32 copy of every position's values, with its temporaries, would not fit beside
    millions of observations)."""
    adv = np.empty(q.shape, np.float16)
    for s in range(0, len(q), 65536):
        chunk = np.nan_to_num(q[s:s + 65536].astype(np.float32), nan=0.0)
        hint_value = chunk[np.arange(len(chunk)), hints[s:s + 65536].astype(np.int64)]
        adv[s:s + 65536] = (chunk - hint_value[:, None]) * masks[s:s + 65536]
    return adv


def _advantage_logits(actor: Any, inputs: Any, held: np.ndarray, hints: Any) -> Any:
    """The policy's outputs on the held-out positions, as advantages over the heuristic's move."""
    import torch

    with torch.no_grad():
        logits = torch.cat([actor(inputs(torch.from_numpy(held[s:s + 8192]))) for s in range(0, held.size, 8192)])
    return logits - logits.gather(1, hints[held][:, None])


def _choose(logits: Any, held: np.ndarray, masks: Any, hints: Any, margin: float) -> Any:
    """The move with the highest output, the heuristic's move counting ``margin`` more."""
    import torch

    logits = logits.clone()
    logits[torch.arange(held.size), hints[held]] += margin
    return logits.masked_fill(~masks[held], -1e9).argmax(1)


def _held_out(actor, inputs, held, masks, hints, best, adv) -> tuple[list[dict[str, float]], float]:
    """On the held-out positions: for each margin, how often the policy leaves the
    heuristic's move and the search's value of its moves (advantage per position over the
    heuristic's; the fit never saw those values, though it picks the best of several
    epochs and margins on them, so the best figure is a little optimistic); and how often
    the policy with no margin plays the search's own move."""
    logits = _advantage_logits(actor, inputs, held, hints)
    rows = []
    agreement = 0.0
    for margin in MARGINS:
        chosen = _choose(logits, held, masks, hints, margin)
        if margin == 0.0:
            agreement = float((chosen == best[held]).float().mean())
        rows.append({"margin": margin, "deviations": float((chosen != hints[held]).float().mean()),
                     "advantage": float(adv[held].gather(1, chosen[:, None]).float().mean())})
    return rows, agreement


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


# --------------------------------------------------------------------------- the run
def _worker(game: str, players: int, options: dict[str, Any], hands: str, samples: int, seconds: float, seed: int,
            batch: int, out: str, log_path: str) -> dict[str, Any]:
    with open(log_path, "a") as log:
        return label_positions(game, players, samples, seconds, seed, batch, out, log=log, options=options,
                               hands=hands)


def _last_line(path: Path) -> str:
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return ""
    return lines[-1] if lines else ""


#: one thread of linear algebra a labelling process: with every process's threads fighting
#: for the cores, the card scorer's small layer products ran several times slower
BLAS_THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def run_workers(target: Any, jobs: list[tuple], labels: Path, seconds: float, t0: float,
                err: TextIO) -> list[Any]:
    """``target(*args)`` for each ``args`` of ``jobs``, each in its own new process (spawned:
    no numba or torch state shared), with a progress line until all are done: the part of
    ``seconds`` gone, the minutes since ``t0`` and each worker's last log line
    (``labels/worker{k}.log``); returns their results."""
    ctx = multiprocessing.get_context("spawn")
    saved = {k: os.environ.get(k) for k in BLAS_THREADS}
    os.environ.update({k: "1" for k in BLAS_THREADS})  # the children read it as they start
    try:
        pool = ctx.Pool(len(jobs))
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    start = time.perf_counter()
    with pool, _terminate_as_exit():
        running = [pool.apply_async(target, args) for args in jobs]
        while not all(j.ready() for j in running):
            time.sleep(5.0)
            done = min((time.perf_counter() - start) / max(seconds, 1e-9), 1.0)
            status = "; ".join(x for x in (_last_line(labels / f"worker{k}.log") for k in range(len(jobs))) if x)
            err.write(f"\r[{'#' * int(24 * done)}{'.' * (24 - int(24 * done))}] {(time.perf_counter() - t0) / 60:5.1f} "
                      f"min  {status[:150]}   ")
            err.flush()
        results = [j.get() for j in running]
    err.write("\n")
    return results


@contextlib.contextmanager
def _terminate_as_exit() -> Any:
    """SIGTERM (``kill``, a job scheduler's stop) ends the run like Ctrl-C: as an exception,
    so that the pool's exit terminates the workers. SIGTERM's default ended this process
    alone and left its workers labelling until their time was up."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set a handler
        return
    previous = signal.getsignal(signal.SIGTERM)

    def stop(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def worker_seed(seed: int, worker: int) -> int:
    """The labelling seed of worker ``worker`` of a run seeded ``seed`` (workers < 1000:
    runs of different seeds label different matches)."""
    return seed * 1000 + 1 + worker


def run_search(cfg: SearchConfig, out: TextIO | None = None, err: TextIO | None = None) -> dict[str, Any]:
    """Label, fit, evaluate (see the module docstring); returns the figures. Call it under
    ``if __name__ == "__main__":`` in a script: the workers are new processes that import it."""
    out, err = out or sys.stdout, err or sys.stderr
    spec = check_run(cfg)
    players = cfg.num_players or spec.default_players
    folder = Path(cfg.out)
    labels = folder / "labels"
    labels.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(asdict(cfg), indent=2) + "\n")
    t0 = time.perf_counter()
    label_seconds = (cfg.minutes - cfg.fit_minutes) * 60
    print(f"training {spec.env_id} ({players} players{', single round' if cfg.single_round else ''}) by search "
          f"labels into {folder}: "
          f"{label_seconds / 60:g} min of labelling on {cfg.workers} workers, then up to "
          f"{cfg.fit_minutes:g} min of fit", file=out)
    results = run_workers(_worker, [(spec.name, players, cfg.game_options(players), cfg.hands, cfg.samples,
                                     label_seconds, worker_seed(cfg.seed, k), cfg.batch, str(labels / f"worker{k}"),
                                     str(labels / f"worker{k}.log")) for k in range(cfg.workers)],
                          labels, label_seconds, t0, err)
    positions = sum(r["positions"] for r in results)
    matches = sum(r["matches"] for r in results)
    share = sum(r["search_wins"] for r in results) / max(matches, 1)
    print(f"labelled {positions:,} positions in {matches:,} matches (the search seat won {share:.1%} of them)",
          file=out)
    data = load_labels(sorted(labels.glob("worker*.npz")))
    # the rest of the budget (the fit always completes its first epoch)
    fit_seconds = max(cfg.minutes * 60 - (time.perf_counter() - t0), 0.0)
    policy, summary = fit_policy(data, spec, players, cfg, fit_seconds, log=err, folder=folder)
    del data
    policy.save(folder / "policy.npz")
    elapsed = time.perf_counter() - t0
    print(f"fitted in {summary['fit_seconds']:.0f} s; margin {summary['margin']:g}; "
          f"training took {elapsed / 60:.1f} min", file=out)
    res = evaluate_policy(spec, policy, cfg.eval_matches, folder)
    from cardenvs.agents.training.trainer import share_text

    print(f"greedy policy, {cfg.eval_matches} matches each: {share_text(res, 'heuristic', players)}; "
          f"{share_text(res, 'random', players)}", file=out)
    print(f"policy: {folder / 'policy.npz'} (play it as ppo:{folder / 'policy.npz'})", file=out)
    figures = {"positions": positions, "matches": matches, "search_share": share, "elapsed": elapsed,
               "margin": summary["margin"], **res}
    (folder / "summary.json").write_text(json.dumps(figures, indent=2) + "\n")
    return figures


def evaluate_policy(spec: Any, policy: Any, matches: int, folder: Path) -> dict[str, float]:
    """The greedy policy against heuristic players and against random players; into eval.csv."""
    from cardenvs.agents.training.trainer import evaluate_greedy

    res = evaluate_greedy(spec, policy, policy.meta["options"], matches, seed=1_000_003)
    with open(folder / "eval.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["matches", "vs_heuristic", "vs_heuristic_ci95", "vs_heuristic_truncated", "vs_random",
                    "vs_random_ci95", "vs_random_truncated"])
        w.writerow([matches, f"{res['vs_heuristic']:.4f}", f"{res['vs_heuristic_ci']:.4f}",
                    res["vs_heuristic_truncated"], f"{res['vs_random']:.4f}", f"{res['vs_random_ci']:.4f}",
                    res["vs_random_truncated"]])
    return res


def _positive_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1


def check_config(cfg: SearchConfig) -> Any:
    """Every setting of ``cfg``, checked before anything runs (ValueError/TypeError naming
    it); returns the game's spec, and ``cfg.game`` becomes its env id."""
    if not isinstance(cfg.game, str):
        raise TypeError(f"game must be a game name or env id, got {cfg.game!r}")
    spec = get_spec(cfg.game)
    cfg.game = spec.env_id
    if not has_search(spec):
        raise ValueError(f"{spec.name} cannot deal its unseen cards anew yet: train it with PPO")
    from cardenvs.agents import has_heuristic

    if not has_heuristic(spec):
        raise ValueError(f"{spec.name} has no heuristic player for the search to play")
    if cfg.hands not in ("sampled", "true"):
        raise ValueError(f"hands must be 'sampled' or 'true', got {cfg.hands!r}")
    if cfg.method != "search":
        raise ValueError(f"method must be 'search', got {cfg.method!r}")
    check_run_settings(cfg, ("samples",), ("num_players", "single_round", "reward_mode"))
    if cfg.num_players is not None and not (
            _positive_int(cfg.num_players) and spec.min_players <= cfg.num_players <= spec.max_players):
        raise ValueError(f"num_players must be an integer in {spec.min_players}..{spec.max_players}, "
                         f"got {cfg.num_players!r}")
    if not isinstance(cfg.single_round, (bool, np.bool_)):
        raise ValueError(f"single_round must be True or False, got {cfg.single_round!r}")
    # the options' kinds and storable ranges (as every env checks them), then the game checks the rest
    opts = check_options(spec.name, spec.module, cfg.game_options(cfg.num_players or spec.default_players))
    spec.module.make_template(**opts)
    return spec


def check_run_settings(cfg: Any, counts: tuple[str, ...], reserved: tuple[str, ...]) -> None:
    """The settings a labelling-and-fit run has (``cardenvs train search`` and ``scorer``): the
    positive integers (``counts`` besides the common ones), the budgets, the seed, the
    network, the game options (none of ``reserved``, which the run sets) and the folder."""
    for name in (*counts, "workers", "batch", "epochs", "minibatch", "eval_matches"):
        v = getattr(cfg, name)
        if not _positive_int(v):
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    if cfg.workers >= 1000:
        raise ValueError(f"workers must be below 1000, got {cfg.workers!r}")
    for name in ("minutes", "fit_minutes", "learning_rate"):
        v = getattr(cfg, name)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < math.inf:
            raise ValueError(f"{name} must be a positive number, got {v!r}")
    if cfg.fit_minutes >= cfg.minutes:
        raise ValueError(f"fit_minutes ({cfg.fit_minutes}) must be less than minutes ({cfg.minutes})")
    # the workers' match seeds, worker_seed(seed, k) * 10**7 + match, stay within int64
    if isinstance(cfg.seed, bool) or not isinstance(cfg.seed, (int, np.integer)) or not 0 <= cfg.seed < 2**20:
        raise ValueError(f"seed must be an integer in 0..2**20-1, got {cfg.seed!r}")
    if cfg.torch_threads is not None and not _positive_int(cfg.torch_threads):
        raise ValueError(f"torch_threads must be a positive integer or None, got {cfg.torch_threads!r}")
    if not (isinstance(cfg.hidden, (tuple, list)) and cfg.hidden and all(_positive_int(h) for h in cfg.hidden)):
        raise ValueError(f"hidden must be a non-empty sequence of positive layer sizes, got {cfg.hidden!r}")
    if not isinstance(cfg.options, dict):
        raise TypeError(f"options must be a dict of game options, got {cfg.options!r}")
    taken = sorted(set(reserved) & set(cfg.options))
    if taken:  # set by the run: players and single rounds have fields of their own
        raise ValueError(f"options may not set {', '.join(taken)}")
    if not isinstance(cfg.out, (str, os.PathLike)):
        raise TypeError(f"out must be a folder path, got {cfg.out!r}")


def check_new_folder(folder: Path, product: str) -> None:
    """A run's folder must not hold another run (``product``: the file a run writes; labels
    left by a run that stopped early would mix with the new ones)."""
    labels = folder / "labels"
    if (folder / product).exists() or (labels.is_dir() and any(labels.iterdir())):
        raise ValueError(f"{str(folder)!r} holds a run already: train into another folder")


def check_run(cfg: SearchConfig) -> Any:
    """:func:`check_config`, and the output folder must not hold a run (its labels would
    mix with the new ones); returns the game's spec."""
    spec = check_config(cfg)
    check_new_folder(Path(cfg.out), "policy.npz")
    return spec
