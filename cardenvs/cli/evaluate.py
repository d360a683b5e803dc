"""``cardenvs eval``: many matches on the vector env, seats rotated every match, each seat's
share of the wins with a 95 % confidence interval and its mean score."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from cardenvs.agents import make_agent
from cardenvs.cli import common
from cardenvs.cli.replay import check_save_dir, write_match

HELP = "measure agents against each other on the vector env"
DESCRIPTION = (
    "Play many matches on the vector env with the seats rotated every match, and report each "
    "seat's share of the wins with a 95 % confidence interval and its mean score. Matches cut short by "
    "max_steps are counted apart."
)


def add_parser(sub: Any, epilog: str | None) -> None:
    """``eval GAME --agents ...``: the agents, how many matches and how many at once."""
    ev = common.game_command(sub, "eval", epilog, help=HELP, description=DESCRIPTION)
    ev.add_argument("--agents", required=True,
                    help="comma-separated agents, the last one filling the remaining seats: random, heuristic, ppo "
                    "(the shipped baseline), ppo:PATH (a policy.npz or checkpoint.pt), ppo-sample:PATH, search, "
                    "search:K, search:K:DEPTH (determinised search over the heuristic: K deals of the unseen cards a "
                    "decision, default per game, rollouts to the round's end or cut after DEPTH decisions; games "
                    "that can deal their unseen cards anew; slow: see docs/cli.md); rami51 also "
                    "scorer (its shipped card scorer), scorer:PATH (a scorer.npz)")
    ev.add_argument("--matches", type=int, default=4000, help="number of matches (default 4000)")
    ev.add_argument("--seed", type=int, default=0, help="seed of the first match (default 0)")
    ev.add_argument("--batch", type=int, default=1000,
                    help=f"matches played together (default 1000, at most {common.MAX_TOGETHER:,})")
    ev.add_argument("--save-every", type=int, metavar="K",
                    help="save every K-th match (K, 2K, ...) for `cardenvs replay`, as DIR/match-0004.json ...")
    ev.add_argument("--save-dir", default="matches", metavar="DIR",
                    help="the folder of --save-every's matches, made if missing (default: matches)")


def cmd_eval(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Play ``--matches`` matches in batches of ``--batch``, then each seat's figures."""
    from cardenvs.agents.evaluate import evaluate

    # the numbers and the agents' names first, before a game is built
    common.check_count("--matches", args.matches)
    common.check_count("--batch", args.batch, high=common.MAX_TOGETHER)
    common.check_seed_flag(args.seed)  # the matches' seeds are drawn from its stream: one seed
    save_every = getattr(args, "save_every", None)
    if save_every is not None:
        common.check_count("--save-every", save_every)
        if save_every > args.matches:
            raise common.CliError(f"--save-every {save_every} saves every {save_every}th match, more than --matches "
                                  f"{args.matches}: nothing would be saved")
        check_save_dir("--save-dir", args.save_dir)
    elif args.save_dir != "matches":
        print("note: --save-dir is the folder of --save-every's matches; without --save-every nothing is saved",
              file=err)
    wanted = common.agent_list(args.agents)
    if not wanted:
        raise common.CliError("--agents needs at least one agent name")
    if "human" in wanted:
        raise common.CliError("eval plays its matches unseen, with no person at the table: take human out of --agents "
                       "(cardenvs play GAME --agents human,... seats you)")
    spec, options = common.game_and_options(args)
    common.policy_setup(spec, wanted, options, out)
    try:  # the options checked by the game before anything is played
        from cardenvs.core.vector import VecEnv

        num_players = VecEnv(spec, 1, **options).num_players
    except (ValueError, TypeError) as e:
        raise common.CliError(str(e)) from None
    names = common.seat_names(wanted, num_players)  # the last agent fills the remaining seats, as in play
    slots = []
    for k, name in enumerate(names):
        try:
            slots.append(make_agent(name, spec, seed=args.seed * 1000 + k, options=options))
        except ValueError as e:
            raise common.CliError(str(e)) from None
    print(f"{spec.env_id}: {num_players} players, seats {','.join(names)} (rotated every match); "
          f"{args.matches} matches from seed {args.seed}", file=out)
    start = time.perf_counter()
    done = 0
    results = None
    batch = min(args.batch, args.matches)
    saved: list[Path] = []

    def save(match: int, record: Any) -> None:
        # the CLI's names (ppo:PATH) rather than the agents' kinds; seat s of match m is slot (s + m) % P
        record.agents = [names[(seat + match) % num_players] for seat in range(num_players)]
        path = Path(args.save_dir) / f"match-{match + 1:0{max(3, len(str(args.matches)))}d}.json"
        write_match(record, path, "--save-every")
        saved.append(path)

    if save_every is not None:
        try:
            Path(args.save_dir).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise common.CliError(f"--save-dir {args.save_dir!r} cannot be made: {e.strerror or e}") from None
    try:
        while done < args.matches:
            n = min(batch, args.matches - done)
            part = evaluate(spec, slots, n, seed=args.seed, options=options, batch_size=n, first_match=done,
                            record_every=save_every or 0, on_record=save if save_every else None)
            results = part if results is None else [_merge(a, b) for a, b in zip(results, part, strict=True)]
            done += n
            common.progress(done, args.matches, err)
    except (ValueError, TypeError) as e:
        raise common.CliError(str(e)) from None
    elapsed = time.perf_counter() - start
    assert results is not None
    truncated = results[0].truncated
    finished = done - truncated
    print(f"\n{done} matches in {elapsed:.1f} s: {finished} finished, {truncated} cut short by max_steps "
          f"(left out of the figures below); fair share {1 / num_players:.1%}", file=out)
    rows = []
    for k, r in enumerate(results):
        low, high = r.interval95
        share = f"{r.win_rate:.1%} ({100 * low:.1f}-{100 * high:.1f})" if r.finished else "-"
        score = "-" if np.isnan(r.mean_score) else f"{r.mean_score:.2f}"
        rows.append([str(k + 1), names[k], f"{r.wins:.1f}", share, score])
    header = ["seat", "agent", "wins", "win share (95 % interval)", "mean score"]
    print(common.format_table(header, rows, right=(2, 3, 4)), file=out)
    print(f"win share: ties shared, with its Wilson score interval; score: the game's match score, "
          f"{spec.score_sense} is better", file=out)
    if save_every is not None:
        print(f"saved {len(saved)} match{'es' if len(saved) != 1 else ''} (every {save_every}) in {args.save_dir}"
              + (f": {saved[0].name} .. {saved[-1].name}" if saved else "") + "; cardenvs replay FILE shows one",
              file=out)
    return 0


def _merge(a: Any, b: Any) -> Any:
    """One seat's figures over two batches of matches."""
    from cardenvs.agents.evaluate import SlotResult

    finished = a.finished + b.finished
    parts = [(r.mean_score, r.finished) for r in (a, b) if r.finished]  # a chunk of cut matches has no mean
    mean = (np.nan if not parts or any(np.isnan(m) for m, _ in parts)
            else sum(m * f for m, f in parts) / finished)
    return SlotResult(a.name, a.matches + b.matches, a.wins + b.wins, mean, a.truncated + b.truncated,
                      a.wins_sq + b.wins_sq)
