"""``cardenvs league``: a round robin of seat-rotated matches between agents, and their
ratings on the Elo scale with 95 % intervals, as a table and a plot (docs/league.md)."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any, TextIO

from cardenvs.cli import common

HELP = "rate agents in a round robin of seat-rotated matches"
DESCRIPTION = (
    "Play every table of the listed agents (every set of PLAYERS agents, or every way of seating fewer agents "
    "with each at least once), --matches matches each with the seats rotated, and fit their ratings on the "
    "Elo scale (Bradley-Terry, by the choix library) with 95 % bootstrap intervals; heuristic (else random, "
    "else the first agent) is rated 1000. The league extra: pip install 'cardenvs[league]'."
)
DEFAULT_MATCHES = 240  # a multiple of 2, 3, 4, 5 and 6 players
PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def add_parser(sub: Any, epilog: str | None) -> None:
    """``league GAME --agents a,b,c``: the agents, the matches per table, the plot."""
    lg = common.game_command(sub, "league", epilog, help=HELP, description=DESCRIPTION,
                             players_help="seats at each table (the game's default otherwise)")
    lg.add_argument("--agents", required=True,
                    help="comma-separated agents, at least two, each once: random, heuristic, ppo, ppo:PATH, "
                    "search, search:K, search:K:DEPTH; rami51 also scorer, scorer:PATH (as in cardenvs eval)")
    lg.add_argument("--matches", type=int, default=DEFAULT_MATCHES,
                    help=f"matches at each table, a multiple of the players (default {DEFAULT_MATCHES})")
    lg.add_argument("--seed", type=int, default=0, help="seed of the league's matches and agents (default 0)")
    lg.add_argument("--batch", type=int, default=1000,
                    help=f"matches played together (default 1000, at most {common.MAX_TOGETHER:,})")
    lg.add_argument("--bootstrap", type=int, default=400,
                    help="draws of the Bayesian bootstrap over the matches for the 95 %% intervals "
                    "(default 400, at most 100,000)")
    lg.add_argument("--plot", metavar="FILE", help="draw the ratings to FILE (.png, .svg or .pdf; needs matplotlib)")


def check_plot_path(path: str) -> None:
    """``--plot``: a file name with a known suffix in a folder that is there and writable."""
    if not path or not path.strip():
        raise common.CliError(f"--plot must name a file, got {path!r}")
    try:
        target = Path(path)
        if target.suffix.lower() not in PLOT_SUFFIXES:
            raise common.CliError(f"--plot {path!r}: the picture's kind comes from its suffix: "
                                  f"{', '.join(PLOT_SUFFIXES)}")
        if target.is_dir():
            raise common.CliError(f"--plot {path!r} is a folder")
        folder = target.absolute().parent
        if not folder.is_dir():
            raise common.CliError(f"--plot {path!r}: its folder {str(folder)!r} is not there")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise common.CliError(f"--plot {path!r}: its folder {str(folder)!r} is not writable")
        if len(target.name.encode()) > 255:
            raise common.CliError(f"--plot {path!r}: the file name is too long")
    except (OSError, ValueError, UnicodeError) as e:
        raise common.CliError(f"--plot {path!r} is no usable file name: {getattr(e, 'strerror', None) or e}") from None


def cmd_league(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Check every flag, play the league with a progress bar, print the ratings, draw them."""
    common.check_count("--matches", args.matches)
    common.check_count("--batch", args.batch, high=common.MAX_TOGETHER)
    common.check_count("--bootstrap", args.bootstrap, high=100_000)
    common.check_seed_flag(args.seed)
    if args.plot is not None:
        check_plot_path(args.plot)
    try:
        from cardenvs.agents import league
        league._choix()
        if args.plot is not None:
            import matplotlib  # noqa: F401
    except ImportError as e:
        missing = "matplotlib" if "matplotlib" in str(e) else "choix"
        raise common.CliError(f"cardenvs league needs {missing}: pip install 'cardenvs[league]'") from None
    names = common.agent_list(args.agents)
    spec, options = common.game_and_options(args)
    common.policy_setup(spec, names, options, out)
    try:
        from cardenvs.core.vector import VecEnv

        num_players = VecEnv(spec, 1, **options).num_players  # the game checks its options
        league.check_league(names, num_players, args.matches)
        for k, name in enumerate(names):  # each name built once before anything is played
            league.make_agent(name, spec, seed=k, options={**options, "num_players": num_players})
    except (ValueError, TypeError) as e:
        raise common.CliError(str(e)) from None
    tables = league.league_tables(len(names), num_players)
    print(f"{spec.env_id}: {num_players} players, agents {','.join(names)}; {len(tables)} "
          f"table{'s' if len(tables) != 1 else ''} x {args.matches} matches = {len(tables) * args.matches} matches "
          f"from seed {args.seed}, seats rotated", file=out)
    start = time.perf_counter()
    try:
        result = league.play_league(spec, names, args.matches, seed=args.seed, options=options,
                                    batch_size=args.batch, bootstrap=args.bootstrap,
                                    on_progress=lambda done, total: common.progress(done, total, err))
    except (ValueError, TypeError) as e:
        raise common.CliError(str(e)) from None
    elapsed = time.perf_counter() - start
    print(f"\n{result.matches} matches in {elapsed:.1f} s"
          + (f"; {result.truncated} cut short by max_steps, left out of the fit" if result.truncated else ""),
          file=out)
    rows = []
    for r in result.ratings:
        interval = "anchor" if r.name == result.anchor else f"{r.low:.0f} .. {r.high:.0f}"
        share = f"{r.win_share:.1%}" if r.seats else "-"
        rows.append([r.name, f"{r.rating:.0f}", interval, str(r.seats), share])
    print(common.format_table(["agent", "rating", "95 % interval", "matches", "win share"], rows,
                              right=(1, 2, 3, 4)), file=out)
    print(f"rating: Elo scale, {result.anchor} = {league.ANCHOR_RATING:.0f}; a lead of 400 points is odds of 10 to 1 "
          f"of winning a match that both play. Interval: {result.bootstrap} draws of a Bayesian bootstrap over the "
          f"matches. Matches: seats played (twice where it sat twice); win share: its wins there, ties shared; "
          f"fair share {1 / num_players:.1%}", file=out)
    if args.plot is not None:
        try:
            league.plot_ratings(result, args.plot,
                                title=f"{spec.env_id}: {num_players} players, {result.matches} matches")
        except (OSError, ValueError) as e:
            raise common.CliError(f"--plot {args.plot!r} could not be written: {e}") from None
        print(f"plot: {args.plot}", file=out)
    return 0
