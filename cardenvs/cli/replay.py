"""``cardenvs replay``: a saved match in the terminal (each move, the table at a step, from
everyone's view or one seat's), or as a self-contained replay page; and the saving of
matches for ``play --save`` and ``eval --save-every``."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, TextIO

from cardenvs.cli.common import CliError, check_out_folder
from cardenvs.replay import MatchRecord, load_match, replay, replay_html, save_match

HELP = "show a saved match, move by move, or write its replay page"
DESCRIPTION = (
    "Show a match saved by `cardenvs play --save` or `cardenvs eval --save-every`: each move's text and the table "
    "at a step (the last one unless --step), seen by everyone or by one seat (--seat). --html writes a replay "
    "page instead, which opens in any browser with no server and holds every step and every seat's view (so it "
    "takes neither --seat nor --step). A match saved by another version of its game is refused."
)


def add_parser(sub: Any) -> None:
    """``replay MATCH.json [--seat N] [--step K] [--html OUT.html]``."""
    rp = sub.add_parser("replay", help=HELP, description=DESCRIPTION)
    rp.add_argument("match", help="a match file (JSON)")
    rp.add_argument("--seat", type=int, metavar="N",
                    help="show what seat N saw: its own hand, the others' moves as they saw them (default: everyone, "
                    "every hand; not with --html)")
    rp.add_argument("--step", type=int, metavar="K",
                    help="show the moves up to step K and the table there (0: the start; default: the last step; "
                    "not with --html)")
    rp.add_argument("--html", metavar="OUT.html",
                    help="write a self-contained replay page instead (step slider, play and pause, every seat's "
                    "view): it holds every step and view, so --seat and --step are refused with it")


# --------------------------------------------------------------------------- saving
def numbered_paths(path: str, count: int) -> list[Path]:
    """Where ``count`` matches saved as ``path`` go: ``path`` itself for one match; for more,
    a number before the suffix, ``match.json`` -> ``match-001.json``, ``match-002.json`` ...
    (at least three digits, as many as ``count`` has)."""
    p = Path(path)
    if count == 1:
        return [p]
    width = max(3, len(str(count)))
    return [p.with_name(f"{p.stem}-{g:0{width}d}{p.suffix}") for g in range(1, count + 1)]


def check_save_path(flag: str, path: str) -> None:
    """A match file to write: a file name in a folder that exists and can be written."""
    if not path or path.endswith(("/", os.sep)):
        raise CliError(f"{flag} must name a file, got {path!r}")
    try:
        target = Path(path)
        if target.is_dir():
            raise CliError(f"{flag} {path!r} is a folder; name a file such as match.json")
        folder = target.absolute().parent
        if not folder.is_dir():
            raise CliError(f"{flag} {path!r}: the folder {str(folder)!r} does not exist")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise CliError(f"{flag} {path!r}: the folder {str(folder)!r} is not writable")
    except (OSError, ValueError) as e:  # a name too long, a NUL ...
        raise CliError(f"{flag} {path!r} is no usable file name: {getattr(e, 'strerror', None) or e}") from None


def check_save_dir(flag: str, folder: str) -> None:
    """A folder to save matches in: one that exists or can be made, and can be written (the
    check of every command's output folder; saved matches may join earlier ones there)."""
    check_out_folder(folder, flag, holds_run=lambda path: None)


def write_match(record: MatchRecord, path: Path, flag: str) -> None:
    """Save one match; a file that cannot be written is a one-line error."""
    try:
        save_match(record, path)
    except OSError as e:
        raise CliError(f"{flag}: cannot write {str(path)!r}: {e.strerror or e}") from None


# --------------------------------------------------------------------------- the command
def _read(path: str) -> MatchRecord:
    try:
        return load_match(path)
    except ValueError as e:
        raise CliError(str(e)) from None
    except OSError as e:
        raise CliError(f"cannot read {path!r}: {e.strerror or e}") from None


def cmd_replay(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the match (or write its page with ``--html``). Every check comes first: a
    refused run prints nothing on stdout."""
    if args.html is not None:
        given = [flag for flag, value in (("--seat", args.seat), ("--step", args.step)) if value is not None]
        if given:
            raise CliError(f"{' and '.join(given)} cannot go with --html: the page holds every step and every "
                           f"seat's view (choose them in the page); leave {' and '.join(given)} out")
        check_save_path("--html", args.html)
    if args.step is not None and args.step < 0:
        raise CliError(f"--step must be at least 0, got {args.step}")
    record = _read(args.match)
    players = record.num_players
    if args.seat is not None and not 0 <= args.seat < players:
        raise CliError(f"--seat must be a seat 0..{players - 1} of this {players}-player match, got {args.seat}")
    if args.html is not None:
        try:
            page = replay_html(record)
        except ValueError as e:  # a match too long for a page
            raise CliError(str(e)) from None
        write_page(page, args.html, out)
        return 0
    viewer = args.seat
    agents = record.agents or [""] * players
    seat_names = [f"player_{s}" + (f" ({agents[s]})" if agents[s] else "") for s in range(players)]
    lines: list[str] = []
    table = ""
    last = 0
    for st in replay(record):  # to the end, past --step: every move is checked, and the end known
        last = st.index
        if st.index and (args.step is None or st.index <= args.step):
            forced = " (forced)" if st.forced else ""
            lines.append(f"{st.index:5d}  {seat_names[st.seat]}: {st.move_seen_by(viewer)}{forced}")
        if args.step is None or st.index == args.step:
            table = st.env.render_text(viewer)
    if args.step is not None and args.step > last:
        raise CliError(f"--step {args.step} is past the end of this match: its steps are 0..{last}")
    head = f"{record.env_id}: {players} players, {', '.join(seat_names)}"
    head += f"; seed {record.seed}" if record.seed is not None else ""
    opts = ", ".join(f"{k}={v}" for k, v in record.options.items())
    head += f"; options {opts}" if opts else ""
    header = [head + f"; saved by cardenvs {record.cardenvs_version}",
              "seen by " + ("everyone (every hand)" if viewer is None else f"player_{viewer} (its own hand)")]
    result = _result_line(record) if args.step is None or args.step == last else None
    show_match(header, lines, last if args.step is None else args.step, table, result, out)
    return 0


def write_page(page: str, path: str, out: TextIO) -> None:
    """Write the replay page (every check done: what is left is the writing)."""
    try:
        Path(path).write_text(page, encoding="utf-8")
    except OSError as e:
        raise CliError(f"--html: cannot write {path!r}: {e.strerror or e}") from None
    print(f"wrote {path} ({len(page) // 1024 + 1} kB): open it in a browser", file=out)


def show_match(header: list[str], lines: list[str], step: int, table: str, result: str | None,
               out: TextIO) -> None:
    """Print the header, the moves, the table at ``step`` and, at the last step, the result
    (every check done: what is left is the printing)."""
    for line in header:
        print(line, file=out)
    print("\n".join(lines) if lines else "(no move)", file=out)
    print(f"\nthe table at step {step}:", file=out)
    print(table, file=out)
    if result is not None:
        print(result, file=out)


def _result_line(record: MatchRecord) -> str:
    result = record.result
    if result is None:
        return f"match not finished when saved ({len(record.actions)} actions)"
    if result["truncated"]:
        return f"match cut short (max_steps): no winner; returns {[round(r, 3) for r in result['returns']]}"
    winners = [f"player_{s}" for s, place in enumerate(result["places"]) if place == 1]
    line = f"match over: winner {' and '.join(winners)}"
    if result["scores"] is not None:
        line += f"; scores {[int(x) if float(x).is_integer() else x for x in result['scores']]}"
    return line + f"; returns {[round(r, 3) for r in result['returns']]}"
