"""What the commands share: the usage error and exit codes, the game, options and agents
read from the command line, the subcommand about one game, and plain-text output (tables,
a progress bar)."""

from __future__ import annotations

import argparse
import math
import os
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from cardenvs.core.protocol import GameSpec, options_schema
from cardenvs.core.registry import get_spec
from cardenvs.core.rng import check_seed

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
HELP_WIDTH = 98  # the descriptions of --help, as argparse wraps the rest on a 100-column screen

# Upper bounds the CLI sets where nothing below it does and a larger value would fail later
# (out of memory, an overflow) rather than run: matches stepped together (--batch,
# --num-envs), threads (torch's overflow at 2**31), seconds to wait (--delay, --turn-seconds:
# time.sleep and select overflow near 2**33 s)
MAX_TOGETHER = 65_536
MAX_THREADS = 1024
MAX_SECONDS = 86_400  # a day


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


# --------------------------------------------------------------------------- numbers
def check_count(flag: str, value: int | None, low: int | None = 1, high: int | None = None) -> None:
    """An integer flag (None: not given) within ``low .. high`` (None: no bound there), else
    a CliError naming it."""
    if value is None:
        return
    if low is not None and value < low:
        raise CliError(f"{flag} must be at least {low}, got {value}")
    if high is not None and value > high:
        raise CliError(f"{flag} must be at most {high:,}, got {value}")


def check_number(flag: str, value: float | None, low: float = 0.0, high: float = math.inf,
                 positive: bool = False) -> None:
    """A decimal flag (None: not given): a finite number in ``low .. high`` (above ``low``
    when ``positive``), else a CliError naming it; nan and inf are no numbers here."""
    if value is None:
        return
    if not (math.isfinite(value) and low <= value <= high and not (positive and value == low)):
        bound = f"> {low:g}" if positive else f">= {low:g}"
        top = f" and at most {high:g}" if high < math.inf else ""
        raise CliError(f"{flag} must be a number {bound}{top}, got {value}")


def check_seconds(flag: str, value: float | None) -> None:
    """A wait in seconds (``--delay``, ``--turn-seconds``): 0 .. a day."""
    check_number(flag, value, 0.0, MAX_SECONDS)


def check_seed_flag(seed: int | None, series: int = 1, count_flag: str = "--games") -> None:
    """``--seed`` (None: not given) must be a seed of the envs (``check_seed``: 0 .. 2**64 - 1),
    and so must the last of the ``series`` seeds ``seed, seed + 1, ...`` a command deals
    its matches from."""
    if seed is None:
        return
    if seed < 0:
        raise CliError(f"--seed must be >= 0, got {seed}")
    try:
        check_seed(seed)
    except ValueError:
        raise CliError(f"--seed must be below 2**64, got {seed}") from None
    try:
        check_seed(seed + series - 1)
    except ValueError:
        raise CliError(f"--seed {seed} with {count_flag} {series}: the last match's seed, {seed + series - 1}, "
                       f"passes 2**64 - 1; the most --seed can be is {2**64 - series}") from None


# --------------------------------------------------------------------------- output folders
def check_out_folder(folder: str, flag: str, holds_run: Callable[[Path], None]) -> None:
    """A new run's output folder, before anything is built: a folder (or one that can be
    made) that the run can write, holding no run (``holds_run`` raises ValueError saying
    so: each trainer's own test)."""
    if not folder:
        raise CliError(f"{flag} must name a folder, got {folder!r}")
    path = Path(folder)
    try:
        if path.exists() and not path.is_dir():
            raise CliError(f"{flag} {folder!r} is a file, not a folder")
        try:
            holds_run(path)
        except ValueError as e:
            raise CliError(f"{flag}: {e}") from None
        base = path.absolute()
        while not base.exists() and base != base.parent:  # the nearest folder there is: the run makes the rest
            base = base.parent
        if not base.is_dir():
            raise CliError(f"{flag} {folder!r} cannot be made: {str(base)!r} is a file")
        if not os.access(base, os.W_OK | os.X_OK):
            raise CliError(f"{flag} {folder!r} cannot be written: {str(base)!r} is not writable")
    except (OSError, ValueError) as e:  # a name too long, a NUL ...
        raise CliError(f"{flag} {folder!r} is no usable folder: {getattr(e, 'strerror', None) or e}") from None


# --------------------------------------------------------------------------- options
OPTION_FLAGS = ("--option", "--optio", "--opti", "--opt", "--op")  # the flag and its abbreviations


def split_option_values(argv: Sequence[str]) -> list[str]:
    """``--option a=1 b=2`` as ``--option a=1 --option b=2``, the parser's form (one
    KEY=VALUE a flag): the words after the flag's value that hold a ``=`` are options too,
    and the first one without (the game: ``play --option single_round=true president``)
    ends them. Nothing after ``--`` is touched."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        out.append(word)
        i += 1
        if word == "--":
            out.extend(argv[i:])
            break
        flag, eq, _ = word.partition("=")
        if flag not in OPTION_FLAGS:
            continue
        if not eq:  # the flag's own value, whatever it is (argparse says what is wrong with it)
            if i < len(argv):
                out.append(argv[i])
                i += 1
        while i < len(argv) and "=" in argv[i] and not argv[i].startswith("-"):
            out += ["--option", argv[i]]
            i += 1
    return out


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
        if key in options:
            raise CliError(f"--option {key} is given twice")
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
    """The agents of the seats, in the order listed, the last one filling the remaining
    seats (``heuristic,random`` for 5: h, r, r, r, r), as ``play`` and ``eval`` both seat
    them. A person plays only the seats they list: a list that would leave ``human`` to
    fill seats, or that names more agents than seats, is a CliError saying so."""
    if not names:
        raise CliError("--agents needs at least one agent name")
    if len(names) > num_players:
        raise CliError(f"--agents names {len(names)} agents for {num_players} seats: list one agent per seat, "
                       "or fewer (the last fills the remaining seats)")
    if names[-1] == "human" and len(names) < num_players:
        filled = num_players - len(names)
        raise CliError(f"--agents {','.join(names)} would seat you at {filled} more seat{'s' if filled > 1 else ''} "
                       f"than listed ({num_players} seats): list one agent per seat, for example "
                       f"--agents {','.join([*names, *['heuristic'] * filled])}")
    return [*names, *[names[-1]] * (num_players - len(names))]


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
            from cardenvs.agents.rami51_scorer import ScorerNetwork, shipped_scorer

            if spec.name != "rami51":
                raise ValueError(f"the card scorer plays rami51, not {spec.name!r}")
            meta = ScorerNetwork.load(path or shipped_scorer(options)).meta
        else:
            from cardenvs.agents.ppo import PolicyNetwork, baseline_path

            meta = PolicyNetwork.load(path or baseline_path(spec)).meta
    except ValueError as e:
        raise CliError(str(e)) from None
    added = {}
    trained_single = bool(meta.get("options", {}).get("single_round", False))
    # a whole-match card scorer plays any table of 2 to 4 (a match's shrinks as players go out)
    any_table = trained.startswith("scorer") and not trained_single
    if "num_players" not in options and meta.get("num_players") and not any_table:
        added["num_players"] = int(meta["num_players"])
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
    # one KEY=VALUE a flag: main() reads `--option a=1 b=2` as `--option a=1 --option b=2`
    # (split_option_values), so that a game named after the options is the game
    cmd.add_argument("--option", action="append", metavar="KEY=VALUE",
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
