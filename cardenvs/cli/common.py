"""What the commands share: the usage error and exit codes, the game, options and agents
read from the command line, the subcommand about one game, and plain-text output (tables,
a progress bar)."""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Sequence
from typing import Any, TextIO

from cardenvs.core.protocol import GameSpec, options_schema
from cardenvs.core.registry import get_spec

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
HELP_WIDTH = 98  # the descriptions of --help, as argparse wraps the rest on a 100-column screen


class CliError(Exception):
    """A bad game, agent or option: one line on stderr, exit code 2."""


# --------------------------------------------------------------------------- output
def format_table(header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> str:
    """Plain-text table; columns in ``right`` are right-aligned (numbers)."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=False)]

    def line(cells: Sequence[str]) -> str:
        cols = enumerate(zip(cells, widths, strict=True))
        return "  ".join(str(c).rjust(w) if i in right else str(c).ljust(w) for i, (c, w) in cols).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def progress(done: int, total: int, err: TextIO, width: int = 30) -> None:
    """A progress bar of matches on ``err``, redrawn in place; a newline when done."""
    filled = width * done // total
    err.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} matches")
    if done == total:
        err.write("\n")
    err.flush()


# --------------------------------------------------------------------------- options
def parse_value(text: str) -> Any:
    """``true``/``false`` -> bool, integers -> int, decimals -> float, ``none`` -> None, else the string."""
    low = text.strip().lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("none", "null"):
        return None
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def parse_options(spec: GameSpec, pairs: Sequence[str], players: int | None) -> dict[str, Any]:
    """Constructor options from ``key=value`` pairs, read by the game's options schema."""
    schema = options_schema(spec.module)
    known = [*schema, "illegal_action"]  # the env's own option
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise CliError(f"--option expects key=value, got {pair!r}")
        if key not in known:
            raise CliError(f"unknown option {key!r} for {spec.name}; options: {', '.join(known)}")
        parsed = parse_value(value)
        if key in schema and schema[key].kind == "str" and not isinstance(parsed, str) and parsed is not None:
            parsed = value.strip()  # a string option keeps what was typed
        if key in schema and schema[key].kind == "bool" and not isinstance(parsed, bool):
            raise CliError(f"option {key} takes true or false, got {value!r}")
        options[key] = parsed
    if players is not None:
        if options.get("num_players", players) != players:
            raise CliError(f"--players {players} contradicts --option num_players={options['num_players']}")
        options["num_players"] = players
    return options


def game_and_options(args: argparse.Namespace) -> tuple[GameSpec, dict[str, Any]]:
    """The game named on the command line and its ``--players``/``--option`` settings."""
    try:
        spec = get_spec(args.game)
    except ValueError as e:
        raise CliError(str(e)) from None
    return spec, parse_options(spec, args.option or [], args.players)


# --------------------------------------------------------------------------- agents
def agent_list(text: str) -> list[str]:
    """``--agents`` as names: lower case, except the paths of ``ppo:PATH`` and ``scorer:PATH``."""
    out = []
    for item in text.split(","):
        kind, sep, rest = item.strip().partition(":")
        if kind:
            out.append(kind.lower() + sep + rest)
    return out


def seat_names(names: Sequence[str], num_players: int) -> list[str]:
    """The agent list repeated to fill the table: ``heuristic,random`` for 5 -> h, r, h, r, h."""
    return [names[i % len(names)] for i in range(num_players)]


def policy_setup(spec: GameSpec, names: Sequence[str], options: dict[str, Any], out: TextIO) -> None:
    """Where a trained policy plays and the options leave the setup open, use the one it was
    trained for (players, single rounds), and say so."""
    trained = next((n for n in names if n in ("ppo", "scorer") or n.startswith(("ppo:", "ppo-sample:", "scorer:"))),
                   None)
    if trained is None:
        return
    path = trained.partition(":")[2] or None
    try:
        if trained.startswith("scorer"):
            from cardenvs.agents.rami51_scorer import SHIPPED, ScorerNetwork

            if spec.name != "rami51":
                raise ValueError(f"the card scorer plays rami51, not {spec.name!r}")
            meta = ScorerNetwork.load(path or SHIPPED).meta
        else:
            from cardenvs.agents.ppo import PolicyNetwork, baseline_path

            meta = PolicyNetwork.load(path or baseline_path(spec)).meta
    except ValueError as e:
        raise CliError(str(e)) from None
    added = {}
    if "num_players" not in options and meta.get("num_players"):
        added["num_players"] = int(meta["num_players"])
    trained_single = bool(meta.get("options", {}).get("single_round", False))
    if "single_round" not in options and trained_single:
        added["single_round"] = True
    if added:
        options.update(added)
        print("the policy's setup: " + ", ".join(f"{k}={v}" for k, v in added.items()), file=out)


# --------------------------------------------------------------------------- parsers
def game_command(sub: Any, name: str, epilog: str | None, game_nargs: str | None = None,
                 players_help: str = "number of players (the game's default otherwise)",
                 **kwargs: Any) -> argparse.ArgumentParser:
    """A subcommand about one game: its help lists that game's options (``epilog``), and it
    takes the game, ``--players`` and ``--option KEY=VALUE``."""
    if "description" in kwargs:  # the raw formatter (for the epilog's columns) leaves the description unwrapped
        kwargs["description"] = textwrap.fill(kwargs["description"], HELP_WIDTH, break_on_hyphens=False)
    cmd = sub.add_parser(name, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)
    cmd.add_argument("game", nargs=game_nargs, help="env id or name, e.g. president_v0 or president"
                     + (" (not with --resume)" if game_nargs else ""))
    cmd.add_argument("--players", type=int, help=players_help)
    cmd.add_argument("--option", nargs="+", action="extend", metavar="KEY=VALUE",
                     help="game option, e.g. single_round=true target_score=5")
    return cmd


def game_options_help(game: str | None) -> str | None:
    """The options of ``game`` for ``--help`` (kind and default of each), None if unknown."""
    try:
        spec = get_spec(game) if game else None
    except ValueError:
        return None
    if spec is None:
        return None
    lines = [f"options of {spec.env_id} (--option KEY=VALUE; meanings: cardenvs rules {spec.name}):"]
    for opt in options_schema(spec.module).values():
        kind = opt.kind + (" or none" if opt.optional else "")
        lines.append(f"  {opt.name:22s} {kind:14s} default {opt.default!r}")
    return "\n".join(lines)
