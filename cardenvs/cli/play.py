"""``cardenvs play``: matches between agents, or with a person at the table, on the AEC env.

Seats take the agents in the order given, the last one filling the remaining seats (as in
``eval``; a person plays only the seats listed as ``human``), and rotate by one between
matches so that no agent keeps a seat. The winner of a match is the seat
(or seats) with the highest total reward over the match; a tie shares the win. The score
column is the game's match score (``infos[agent]["scores"]``).
"""

from __future__ import annotations

import argparse
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from cardenvs.agents import Agent, has_heuristic, make_agent
from cardenvs.agents.base import one_blas_thread
from cardenvs.cli.common import (
    EXIT_INTERRUPTED,
    CliError,
    agent_list,
    check_count,
    check_seconds,
    check_seed_flag,
    format_table,
    game_and_options,
    game_command,
    policy_setup,
    progress,
    seat_names,
)
from cardenvs.cli.console import QuitRequested, play_match, readable_stdin
from cardenvs.cli.replay import check_save_path, numbered_paths, write_match
from cardenvs.envs import make

HELP = "play matches between agents (or you)"
DESCRIPTION = (
    "Play matches on the AEC env. Seats rotate by one between matches. The winner of a "
    "match is the seat (or seats, sharing) with the highest total reward; the score is the game's "
    "match score (infos['scores'])."
)


def add_parser(sub: Any, epilog: str | None) -> None:
    """``play GAME``: its agents, matches and what a person at the table sees."""
    play = game_command(sub, "play", epilog, help=HELP, description=DESCRIPTION)
    play.add_argument(
        "--agents",
        help="comma-separated agents, one a seat, the last one filling the remaining seats (human only plays "
        "the seats it is listed at): random, heuristic, human, ppo (the shipped baseline), ppo:PATH (a trained "
        "policy), search, search:K, search:K:DEPTH (determinised search over the heuristic: K deals of the "
        "unseen cards a decision, rollouts cut after DEPTH decisions; games that can "
        "deal their unseen cards anew); rami51 also scorer (its shipped card scorer), scorer:PATH "
        "(default: heuristic where the game has one, else random)",
    )
    play.add_argument("--games", type=int, default=1, help="number of matches (default 1)")
    play.add_argument("--seed", type=int, help="seed of the first match (match g uses seed+g); random if omitted")
    play.add_argument("--render", action="store_true", help="play one match, printing the table after every move")
    play.add_argument("--delay", type=float, default=0.0, metavar="SECONDS",
                      help="with --render: pause this long after each move")
    play.add_argument("--step", action="store_true", help="with --render: wait for Enter after each move")
    play.add_argument("--turn-seconds", type=float, metavar="SECONDS",
                      help="a person's time for a turn before the game plays it for them (0: no timer; default: "
                      "the game's own: 30 s in Rami 51, none in the other games; Frime and Classes take one)")
    play.add_argument("--save", metavar="MATCH.json",
                      help="save each match for `cardenvs replay`; with --games N > 1 the matches are numbered: "
                      "match.json -> match-001.json, match-002.json ... (a match quit halfway is saved as played)")


@dataclass
class Tally:
    seats: int = 0
    wins: float = 0.0
    score_sum: float = 0.0
    scored: int = 0


def results_table(tallies: dict[str, Tally]) -> str:
    """Seats, wins, win rate and mean score of each agent over the matches played."""
    rows = []
    for name, t in tallies.items():
        rate = f"{t.wins / t.seats:.1%}" if t.seats else "-"
        score = f"{t.score_sum / t.scored:.2f}" if t.scored else "-"
        rows.append([name, str(t.seats), f"{t.wins:.1f}", rate, score])
    return format_table(["agent", "seats", "wins", "win rate", "mean score"], rows, right=(1, 2, 3, 4))


def render_pause(args: argparse.Namespace, input_fn: Callable[[str], str]) -> Callable[[], None] | None:
    """What ``--render`` waits for after each move: Enter (``--step``), a delay, or nothing.
    A closed input (end of file) at the step's pause quits, as it does at a person's seat."""
    if getattr(args, "step", False):
        def step() -> None:
            try:
                input_fn("[Enter: next move] ")
            except EOFError:
                raise QuitRequested from None
            except UnicodeDecodeError:  # any line goes on, readable or not
                pass

        return step
    delay = getattr(args, "delay", 0.0) or 0.0
    check_seconds("--delay", delay)
    return (lambda: time.sleep(delay)) if delay else None


def cmd_play(args: argparse.Namespace, out: TextIO, err: TextIO, input_fn: Callable[[str], str]) -> int:
    """Play ``--games`` matches (one with ``--render``), then the table of each agent's wins."""
    # the numbers first, before a game is built
    check_count("--games", args.games)
    check_seconds("--delay", args.delay)
    check_seconds("--turn-seconds", args.turn_seconds)
    games = 1 if args.render else args.games
    check_seed_flag(args.seed, games)
    save_paths = None
    if getattr(args, "save", None) is not None:
        check_save_path("--save", args.save)
        save_paths = numbered_paths(args.save, games)
    wanted = agent_list(args.agents) if args.agents is not None else None  # given, even empty
    if wanted == []:
        raise CliError("--agents needs at least one agent name")
    spec, options = game_and_options(args)
    if wanted is not None:
        policy_setup(spec, wanted, options, out)
    try:
        env = make(spec.env_id, **options)
    except (ValueError, TypeError) as e:
        raise CliError(str(e)) from None
    num_players = env.unwrapped.num_players
    if wanted is None:
        wanted = ["heuristic" if has_heuristic(spec) else "random"]
    names = seat_names(wanted, num_players)  # the last agent fills the remaining seats, as in eval
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    slots: list[Agent] = []
    for k, name in enumerate(names):
        agent_seed = int(np.random.SeedSequence([seed, k]).generate_state(1)[0])
        try:
            slots.append(make_agent(name, spec, seed=agent_seed, options=options))
        except ValueError as e:
            raise CliError(str(e)) from None
    if args.turn_seconds is not None and getattr(spec.module, "timeout_actions", None) is None:
        print(f"note: {spec.title} has no turn timer; --turn-seconds is ignored", file=err)
    if not args.render and (args.step or args.delay):
        print("note: --step and --delay pace --render; without it they are ignored", file=err)
    if args.render and args.games > 1:
        print("--render plays a single match", file=err)
    interactive = args.render or any(a.is_human for a in slots)
    if input_fn is input and (any(a.is_human for a in slots) or (args.render and args.step)):
        readable_stdin()  # a line that is not UTF-8 is read, and refused, rather than fatal
    tallies = {n: Tally() for n in dict.fromkeys(names)}
    opts = ", ".join(f"{k}={v}" for k, v in options.items())
    print(
        f"{spec.env_id}: {num_players} players, seats {','.join(names)}; seed {seed}"
        + (f"; options {opts}" if opts else ""),
        file=out,
    )
    start = time.perf_counter()
    played = 0
    cut_short = 0
    status = 0
    seated: list[str] = []  # who sits where in the match being played, for --save

    def save(g: int) -> None:
        if save_paths is not None:
            try:
                record = env.unwrapped.match_record()
            except ValueError as e:  # an illegal move penalised (illegal_action=penalty)
                raise CliError(f"--save: {e}") from None
            record.agents = seated
            write_match(record, save_paths[g], "--save")

    with one_blas_thread():  # the agents' small matrix products: threads only wait on each other
        try:
            for g in range(games):
                # rotate: in match g seat s is played by slot (s + g) % P
                order = [(s + g) % num_players for s in range(num_players)]
                seated = [names[k] for k in order]
                res = play_match(
                    env,
                    [slots[k] for k in order],
                    [names[k] for k in order],
                    seed + g,
                    out,
                    render=args.render,
                    input_fn=input_fn,
                    pause=render_pause(args, input_fn),
                    timer_seconds=args.turn_seconds,
                )
                if res.truncated:
                    cut_short += 1
                else:
                    for s, k in enumerate(order):
                        t = tallies[names[k]]
                        t.seats += 1
                        t.wins += res.shares[s]
                        if res.scores is not None:
                            t.score_sum += res.scores[s]
                            t.scored += 1
                played += 1
                save(g)
                if games > 1 and not interactive:
                    progress(played, games, err)
        except QuitRequested:
            print("\nquit", file=out)
            if save_paths is not None and seated:
                save(played)
                print(f"the match so far is saved in {save_paths[played]}", file=out)
        except KeyboardInterrupt:
            if games > 1 and not interactive:
                err.write("\n")
            print(f"interrupted after {played} of {games} matches", file=err)
            status = EXIT_INTERRUPTED
    if played:
        elapsed = time.perf_counter() - start
        print(
            f"\n{played} match{'es' if played > 1 else ''} in {elapsed:.1f} s; "
            f"fair share {1 / num_players:.1%} of the wins per seat"
            + (f"; {cut_short} cut short by max_steps, left out of the table" if cut_short else ""),
            file=out,
        )
        print(results_table(tallies), file=out)
        if save_paths is not None:
            where = save_paths[0] if games == 1 else f"{save_paths[0]} .. {save_paths[played - 1]}"
            print(f"saved: {where} (cardenvs replay FILE shows a match)", file=out)
        print(
            "winner: the seat(s) with the highest total reward of the match, ties shared; "
            f"score: the game's match score (infos['scores']), {spec.score_sense} is better",
            file=out,
        )
    return status
