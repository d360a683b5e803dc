"""``cardenvs soak``: a long run of random legal play with the env's invariants checked at
every step (the checks are :mod:`cardenvs.soak`'s)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from cardenvs.cli import common

HELP = "long random-play run with the invariants checked"
DESCRIPTION = (
    "Random legal play through the vector env, checking at every step that a live game has a "
    "legal action, the player to move is a seat, observations are within bounds, rewards are finite and "
    "zero-sum over a match, and (every 200 steps, a few games) that the state survives state_dict and a "
    "load. Exit code 1 when an invariant broke."
)


def add_parser(sub: Any, epilog: str | None) -> None:
    """``soak GAME``: how many matches, threads and the seed."""
    so = common.game_command(sub, "soak", epilog, help=HELP, description=DESCRIPTION)
    so.add_argument("--matches", type=int, default=10_000, help="matches to play (default 10000)")
    so.add_argument("--threads", type=int, default=1, help="threads for the vector env's step (default 1)")
    so.add_argument("--seed", type=int, default=0, help="seed (default 0)")


def cmd_soak(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run the soak; its exit code (1 when an invariant broke)."""
    from cardenvs.soak import main_soak

    common.check_count("--matches", args.matches)
    common.check_count("--threads", args.threads, high=common.MAX_THREADS)
    common.check_seed_flag(args.seed)  # the run's seed: its matches are drawn from its stream
    spec, options = common.game_and_options(args)
    if "illegal_action" in options:
        raise common.CliError("soak sets illegal_action itself (penalty: a match found without a legal action is "
                       "reported, and the run goes on): drop --option illegal_action")
    try:  # the options checked by the game before the run
        from cardenvs.core.vector import VecEnv

        VecEnv(spec, 1, **options)
    except (ValueError, TypeError) as e:
        raise common.CliError(str(e)) from None
    try:
        return main_soak(spec.env_id, args.matches, seed=args.seed, threads=args.threads, options=options,
                         out=out, err=err)
    except (ValueError, TypeError) as e:
        raise common.CliError(str(e)) from None
