"""``cardenvs list`` and ``cardenvs rules``: the registered games, and a game's rules page."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any, TextIO

from cardenvs.cli.common import CliError
from cardenvs.core.registry import list_games
from cardenvs.envs import rules_page


def add_parsers(sub: Any) -> None:
    """``list`` (no arguments) and ``rules GAME``."""
    sub.add_parser("list", help="the registered games", description="The registered games.")
    ru = sub.add_parser("rules", help="print a game's rules page",
                        description="Print a game's rules page (Markdown): the rules as implemented, the action "
                        "encoding, the observation, the options and the rewards.")
    ru.add_argument("game", help="env id or name, e.g. president_v0 or president")


def cmd_list(out: TextIO) -> int:
    """One block per game, under 80 columns: id, title, players, then the summary wrapped."""
    for spec in list_games():
        players = str(spec.min_players)
        if spec.max_players != spec.min_players:
            players += f"-{spec.max_players}"
        print(f"{spec.env_id:14s} {spec.title} ({players} players)", file=out)
        for line in textwrap.wrap(spec.summary, 64):
            print(f"{'':14s} {line}", file=out)
        print(f"{'':14s} rules: cardenvs rules {spec.name}", file=out)
        print(f"{'':14s} options: cardenvs play {spec.name} --help", file=out)
    return 0


def cmd_rules(args: argparse.Namespace, out: TextIO) -> int:
    """Print the game's rules page, through the pager on a terminal (``$PAGER``, else
    ``less``/``more``: the standard library's ``pydoc.pager`` picks it), as a whole into a
    file or a pipe."""
    try:
        text = rules_page(args.game)
    except (ValueError, FileNotFoundError) as e:
        raise CliError(str(e)) from None
    text = text if text.endswith("\n") else text + "\n"
    if out is sys.stdout and _is_terminal(out):
        import pydoc

        pydoc.pager(text)
    else:
        out.write(text)
    return 0


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False
