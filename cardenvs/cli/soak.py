"""``cardenvs soak``: a long run of random legal play with the env's invariants checked at
every step (the checks are :mod:`cardenvs.soak`'s)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from cardenvs.cli.common import CliError, game_and_options, game_command


def add_parser(sub: Any, epilog: str | None) -> None:
    """``soak GAME``: how many matches, threads and the seed."""
    so = game_command(
        sub,
        "soak",
        epilog,
        help="long random-play run with the invariants checked",
        description="Random legal play through the vector env, checking at every step that a live game has a "
        "legal action, the player to move is a seat, observations are within bounds, rewards are finite and "
        "zero-sum over a match, and (every 200 steps, a few games) that the state survives state_dict and a "
        "load. Exit code 1 when an invariant broke.",
    )
    so.add_argument("--matches", type=int, default=10_000, help="matches to play (default 10000)")
    so.add_argument("--threads", type=int, default=1, help="numba threads for the vector env (default 1)")
    so.add_argument("--seed", type=int, default=0, help="seed (default 0)")


def cmd_soak(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run the soak; its exit code (1 when an invariant broke)."""
    from cardenvs.soak import main_soak

    spec, options = game_and_options(args)
    if args.matches < 1 or args.threads < 1 or args.seed < 0:
        raise CliError("--matches and --threads must be at least 1, --seed at least 0")
    try:
        return main_soak(spec.env_id, args.matches, seed=args.seed, threads=args.threads, options=options,
                         out=out, err=err)
    except (ValueError, TypeError) as e:
        raise CliError(str(e)) from None
