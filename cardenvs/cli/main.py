"""``cardenvs``: the parser and the dispatch to the commands, one module each.

    cardenvs list
    cardenvs rules president
    cardenvs play president --players 5 --agents heuristic,random --games 200
    cardenvs play president --agents human,heuristic --option single_round=true
    cardenvs eval president --agents ppo,heuristic --matches 4000
    cardenvs league odin --agents random,heuristic,search,ppo --players 4 --plot odin.png
    cardenvs train ppo president --minutes 60 --out runs/president
    cardenvs warmup odin
    cardenvs soak president --matches 10000
    cardenvs play president --agents heuristic --save match.json
    cardenvs replay match.json --seat 0 --step 12
    cardenvs replay match.json --html match.html
    cardenvs serve
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from cardenvs import __version__
from cardenvs.cli import catalog, evaluate, league, play, replay, serve, soak, train, warmup
from cardenvs.cli.common import EXIT_INTERRUPTED, EXIT_USAGE, CliError, game_options_help, split_option_values

GAME_COMMANDS = ("play", "eval", "league", "train", "soak")  # their --help lists the options of a game named with it


def build_parser(help_game: str | None = None) -> argparse.ArgumentParser:
    """The CLI's parser; ``help_game`` adds that game's options to the commands' help."""
    epilog = game_options_help(help_game)
    parser = argparse.ArgumentParser(
        prog="cardenvs", description="Card-game environments: list games, play matches, evaluate and train agents."
    )
    parser.add_argument("--version", action="version", version=f"cardenvs {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    catalog.add_parsers(sub)
    play.add_parser(sub, epilog)
    evaluate.add_parser(sub, epilog)
    league.add_parser(sub, epilog)
    warmup.add_parser(sub)
    soak.add_parser(sub, epilog)
    train.add_parser(sub, epilog)
    serve.add_parser(sub)
    replay.add_parser(sub)
    return parser


def help_game(argv: Sequence[str]) -> str | None:
    """The game named in a ``--help`` request of a game command (``play odin --help``,
    ``train ppo odin --help``), whose options the help then lists."""
    if not {"-h", "--help"} & set(argv) or len(argv) < 2 or argv[0] not in GAME_COMMANDS:
        return None
    words = argv[2:] if argv[0] == "train" else argv[1:]  # train: after the method
    # the first word that names a game: not a flag, nor a flag's value (--option KEY=VALUE, --players 5)
    return next((a for a in words if not a.startswith("-") and game_options_help(a) is not None), None)


def main(
    argv: Sequence[str] | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    input_fn: Callable[[str], str] | None = None,
) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 bad usage, 130 interrupted)."""
    out = out or sys.stdout
    err = err or sys.stderr
    argv = split_option_values(sys.argv[1:] if argv is None else argv)
    parser = build_parser(help_game(argv))
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            return catalog.cmd_list(out)
        if args.command == "rules":
            return catalog.cmd_rules(args, out)
        if args.command == "play":
            return play.cmd_play(args, out, err, input_fn or input)
        if args.command == "eval":
            return evaluate.cmd_eval(args, out, err)
        if args.command == "league":
            return league.cmd_league(args, out, err)
        if args.command == "warmup":
            return warmup.cmd_warmup(args, out)
        if args.command == "soak":
            return soak.cmd_soak(args, out, err)
        if args.command == "train":
            return train.cmd_train(args, out, err)
        if args.command == "replay":
            return replay.cmd_replay(args, out, err)
        if args.command == "serve":
            return serve.cmd_serve(args, out, err)
        parser.print_help(out)
        return EXIT_USAGE
    except CliError as e:
        print(f"cardenvs: error: {e}", file=err)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\ninterrupted", file=err)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. `cardenvs play ... | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
