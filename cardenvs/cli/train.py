"""``cardenvs train METHOD GAME``: the three ways to train an agent, one subcommand each.

    cardenvs train ppo president --minutes 60 --out runs/president
    cardenvs train ppo --resume runs/president --minutes 120
    cardenvs train search odin --minutes 60
    cardenvs train scorer rami51 --minutes 60

Each method's parser takes only the flags that method reads, so argparse refuses another
method's flag; a flag several methods take is defined once (``SHARED_FLAGS``), with each
method's default in its help. The trainers need torch: they are imported when a run starts.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, TextIO

from cardenvs.cli.common import (
    MAX_THREADS,
    MAX_TOGETHER,
    CliError,
    check_count,
    check_number,
    check_out_folder,
    check_seed_flag,
    game_and_options,
    game_command,
)

METHODS = ("ppo", "search", "scorer")
MAX_EVAL_MATCHES = 10_000_000  # an evaluation's match seeds are drawn at once (8 bytes each)
MAX_SAMPLES = 1024  # a searched position's deals are stepped together

# The flags more than one method takes: (flag, add_argument settings, help for each method
# that takes it). A method missing from a flag's helps does not take the flag.
SHARED_FLAGS: list[tuple[str, dict[str, Any], dict[str, str]]] = [
    ("--minutes", {"type": float, "metavar": "M"}, {
        "ppo": "wall-clock budget (default 60 unless --decisions is given)",
        "search": "wall-clock budget: the labelling, then the fit (default 60)",
        "scorer": "wall-clock budget: labelling and fits, the evaluation after (default 60)",
    }),
    ("--fit-minutes", {"type": float, "metavar": "M"}, {
        "search": "the part of the budget kept for the fit (default 8)",
        "scorer": "the part of the budget kept for the fits (default a third; half of it for the last "
                  "fit, the rest shared as the labelling is)",
    }),
    ("--single-round", {"action": "store_true"}, {
        "ppo": "the game is one round (trained and evaluated so)",
        "search": "the game is one round (labelled, fitted and evaluated so)",
    }),
    # no default here: --resume tells a --seed given from none (the default, 0, is the run's)
    ("--seed", {"type": int}, {method: "seed of the run (default 0)" for method in METHODS}),
    ("--out", {}, {
        "ppo": "output folder (default runs/GAME-SEED)",
        "search": "output folder (default runs/GAME-search-SEED)",
        "scorer": "output folder (default runs/rami51-scorer-SEED)",
    }),
    ("--threads", {"type": int, "metavar": "N"}, {
        "ppo": "torch threads (default 1 on a 2-core machine, else 2)",
        "search": "torch threads (default one per core)",
        "scorer": "torch threads (default one per core)",
    }),
    ("--eval-matches", {"type": int, "metavar": "N"}, {
        "ppo": "matches per evaluation (default 400)",
        "search": "matches of the final evaluation (default 2000)",
        "scorer": "rounds per evaluation (default 4000)",
    }),
    ("--workers", {"type": int, "metavar": "K"}, {
        "ppo": "sample on K worker processes sharing the matches, the update on this one (default 1)",
        "search": "K labelling processes (default one per core)",
        "scorer": "K labelling processes (default one per core)",
    }),
]


PPO_HELP = "self-play masked PPO, any game"
PPO_DESCRIPTION = (
    "Self-play masked PPO on the vector env: one policy at every seat it is given, tables of "
    "self-play, heuristic opponents and a pool of past snapshots. Writes metrics.csv, eval.csv, curve.png, "
    "checkpoint.pt and policy.npz into the output folder."
)
SEARCH_HELP = "a rollout search labels positions, a residual policy learns them (every game)"
SEARCH_DESCRIPTION = (
    "A rollout search over the heuristic labels positions and a residual policy learns its "
    "action values (every game: each can deal the cards a seat cannot see anew). Writes policy.npz "
    "(play it as ppo:PATH), fit.csv, margin.csv, eval.csv, summary.json and config.json."
)
SCORER_HELP = "Rami 51: a card scorer fitted to exact rollouts"
SCORER_DESCRIPTION = (
    "Rami 51 single rounds: a card scorer fitted to exact rollouts of the moves played and of "
    "drawn legal actions, labelled and fitted in iterations. Writes scorer.npz (play it as scorer:PATH), "
    "fit.csv, eval.csv, summary.json and config.json."
)


def add_shared_flags(cmd: argparse.ArgumentParser, method: str) -> None:
    """Add to ``cmd`` the shared flags that ``method`` takes."""
    for flag, settings, helps in SHARED_FLAGS:
        if method in helps:
            cmd.add_argument(flag, help=helps[method], **settings)


# --------------------------------------------------------------------------- the parsers
def add_parser(sub: Any, epilog: str | None) -> None:
    """``train`` and its methods; ``epilog`` lists the named game's options."""
    train = sub.add_parser(
        "train",
        help="train an agent: ppo, search or scorer (needs torch)",
        description="Train an agent for a game, by one of three methods; "
        "`cardenvs train METHOD --help` lists a method's flags.",
    )
    methods = train.add_subparsers(dest="method", metavar="METHOD", required=True)
    add_ppo_parser(methods, epilog)
    add_search_parser(methods, epilog)
    add_scorer_parser(methods, epilog)


def add_ppo_parser(methods: Any, epilog: str | None) -> None:
    ppo = game_command(methods, "ppo", epilog, game_nargs="?", help=PPO_HELP, description=PPO_DESCRIPTION)
    ppo.add_argument("--resume", metavar="FOLDER", help="continue the run in FOLDER (budgets are totals)")
    ppo.add_argument("--decisions", type=int, metavar="N", help="budget in the policy's decisions")
    add_shared_flags(ppo, "ppo")
    ppo.add_argument("--train-episodes", choices=("match", "round"),
                     help="train on whole matches (default) or on single rounds")
    ppo.add_argument("--train-reward", choices=("match", "round"),
                     help="the game's reward mode used for training (evaluation uses the match outcome)")
    ppo.add_argument("--heuristic-input", action="store_true",
                     help="a residual policy: the network also reads the heuristic's move in each position")
    ppo.add_argument("--privileged-critic", action="store_true",
                     help="the critic reads every seat's view (all the hands) while training; the policy "
                     "still plays from its own observation")
    ppo.add_argument("--teacher-until", type=float, metavar="F",
                     help="the pull toward the heuristic's move falls to 0 at this fraction of the budget "
                     "(default 1: over the whole run; 0 turns it off)")
    ppo.add_argument("--num-envs", type=int, metavar="N",
                     help="matches stepped together (default 256)")
    ppo.add_argument("--eval-every", type=float, metavar="M",
                     help="minutes between evaluations (default 5, or a tenth of a shorter --minutes)")
    ppo.add_argument("--ray", nargs="?", const="local", metavar="ADDRESS",
                     help="run the workers on Ray: a local instance, or the cluster at ADDRESS (auto, HOST:6379, "
                     "ray://HOST:10001); needs cardenvs[ray]")


def add_search_parser(methods: Any, epilog: str | None) -> None:
    search = game_command(methods, "search", epilog, help=SEARCH_HELP, description=SEARCH_DESCRIPTION)
    add_shared_flags(search, "search")
    search.add_argument("--samples", type=int, metavar="N", help="deals of the unseen cards per position (default 8)")
    search.add_argument("--hands", choices=("sampled", "true"),
                        help="deal the other hands anew in each sample (sampled, the default), or search with "
                        "them as they are and label the heuristic's matches (true)")


def add_scorer_parser(methods: Any, epilog: str | None) -> None:
    scorer = game_command(methods, "scorer", epilog, players_help="number of players: 2, 3 or 4 (default 4)",
                          help=SCORER_HELP, description=SCORER_DESCRIPTION)
    add_shared_flags(scorer, "scorer")
    scorer.add_argument("--iterations", type=int, metavar="N",
                        help="label and fit N times (1 to 20), the later ones in the positions of the previous "
                        "scorer's play, each an equal part of the labelling (default 5)")
    scorer.add_argument("--last-fit-share", type=float, metavar="F",
                        help="the last iteration's part of --fit-minutes (default 0.5; 1 / --iterations shares "
                        "them equally; with one iteration its fit has them all)")
    scorer.add_argument("--whole-matches", action="store_true",
                        help="a scorer for whole matches (to the elimination score; it plays 2 to 4 players): "
                        "labelled on single rounds, its fits weigh the points (both weights 5 unless given), "
                        "evaluated on whole matches")
    scorer.add_argument("--points-weight", type=float, metavar="W",
                        help="the fits' target: the win minus W x the penalty points held at the round's end "
                        "/ 100 (default 0.5, 5 with --whole-matches; the last of several fits: "
                        "--last-points-weight)")
    scorer.add_argument("--last-points-weight", type=float, metavar="W",
                        help="the last iteration's points weight, with several iterations (default 0.1, 5 with "
                        "--whole-matches)")
    scorer.add_argument("--labelled-seat", choices=("scorer", "heuristic"),
                        help="the later iterations' labelled seat plays the previous scorer's moves (scorer, "
                        "the default) or the heuristic's, the scorer's move played out besides (heuristic: an "
                        "experimental setting, weaker)")
    scorer.add_argument("--fit-window", type=int, metavar="N",
                        help="each fit reads N iterations' labels, its own and those before (default 3)")
    scorer.add_argument("--actions-per-position", type=int, metavar="N",
                        help="legal actions of a position played out besides the move played, drawn at random "
                        "(default 1; 0: every one)")


# --------------------------------------------------------------------------- the checks
def check_numbers(args: argparse.Namespace) -> None:
    """The numbers, before anything is built, each refused naming its flag where the
    trainers' own checks leave it open or come late: the seed's range, the bounds above of
    what sizes memory (matches stepped together, evaluated, deals searched) or overflows
    (torch's threads), finite budgets. The trainers' checks (``check_run``, ``Trainer``)
    refuse the rest, naming the setting."""
    method = args.method
    check_seed_flag(args.seed)
    # search and scorer check --threads >= 1 before their run; the PPO trainer hands it to
    # torch before its checks
    check_count("--threads", args.threads, low=1 if method == "ppo" else None, high=MAX_THREADS)
    check_count("--eval-matches", args.eval_matches, low=None, high=MAX_EVAL_MATCHES)
    if method == "ppo":
        check_count("--num-envs", args.num_envs, low=None, high=MAX_TOGETHER)
        check_number("--minutes", args.minutes, positive=True)  # inf: the trainer would take it
        check_number("--eval-every", args.eval_every, positive=True)  # no check below the CLI
    if method == "search":
        check_count("--samples", args.samples, low=None, high=MAX_SAMPLES)


def single_round(args: argparse.Namespace, options: dict[str, Any]) -> bool:
    """``--single-round`` or ``--option single_round=...`` (taken out of ``options``); the
    two must agree."""
    option = options.pop("single_round", None)
    if args.single_round and option is False:
        raise CliError("--single-round contradicts --option single_round=false")
    return bool(option) or args.single_round


def check_out(args: argparse.Namespace, folder: str, holds_run: Any) -> None:
    """The output folder (``--out``, or the default ``folder``) before anything is built."""
    check_out_folder(folder, "--out" if args.out is not None else "the output folder (--out)", holds_run)


def check_resume(folder: str) -> None:
    """``--resume FOLDER``: a folder holding a run's checkpoint, where the run can write."""
    try:
        if not (Path(folder) / "checkpoint.pt").is_file():
            raise CliError(f"--resume {folder!r}: no checkpoint.pt to resume there")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise CliError(f"--resume {folder!r} cannot be written: the run goes on there")
    except (OSError, ValueError) as e:  # a name too long, a NUL ...
        raise CliError(f"--resume {folder!r} is no usable folder: {getattr(e, 'strerror', None) or e}") from None


# --------------------------------------------------------------------------- the runs
def default_eval_every(minutes: float | None) -> float:
    """Minutes between a PPO run's evaluations unless given: every 5 minutes, or a tenth of
    a shorter budget (a 10-minute run draws its curve from 10 points)."""
    return 5.0 if minutes is None else min(5.0, minutes / 10)


def cmd_train(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run the method named on the command line."""
    run = {"ppo": cmd_train_ppo, "search": cmd_train_search, "scorer": cmd_train_scorer}[args.method]
    check_numbers(args)
    return run(args, out, err)


def cmd_train_ppo(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``cardenvs train ppo``: self-play masked PPO (cardenvs.agents.training.trainer), a new
    run or one continued with ``--resume``."""
    if bool(args.game) == bool(args.resume):
        raise CliError("train needs a game, or --resume FOLDER (not both)")
    if args.resume:
        ignored = [flag for flag, value in (("--players", args.players), ("--option", args.option),
                                            ("--out", args.out), ("--threads", args.threads),
                                            ("--seed", args.seed), ("--num-envs", args.num_envs),
                                            ("--single-round", args.single_round or None),
                                            ("--train-episodes", args.train_episodes),
                                            ("--train-reward", args.train_reward),
                                            ("--heuristic-input", args.heuristic_input or None),
                                            ("--privileged-critic", args.privileged_critic or None),
                                            ("--teacher-until", args.teacher_until is not None or None),
                                            ("--eval-matches", args.eval_matches),
                                            ("--eval-every", args.eval_every)) if value is not None]
        if ignored:
            raise CliError(f"--resume continues a run with its own settings: drop {', '.join(ignored)}")
        check_resume(args.resume)
    else:
        spec, options = game_and_options(args)
        seed = 0 if args.seed is None else args.seed
        folder = args.out if args.out is not None else f"runs/{spec.name}-{seed}"
    try:
        from cardenvs.agents.training.trainer import TrainConfig, Trainer, check_new_folder
    except ImportError as e:  # pragma: no cover - depends on the install
        raise CliError(str(e)) from None
    if not args.resume:
        check_out(args, folder, check_new_folder)
    try:
        if args.resume:
            # where the run goes on is this command line's to say, never the checkpoint's
            trainer = Trainer.resume(args.resume, minutes=args.minutes, decisions=args.decisions, out=out, err=err,
                                     workers=1 if args.workers is None else args.workers, ray=args.ray)
        else:
            players = options.pop("num_players", None)
            single = single_round(args, options)
            config = TrainConfig(
                game=spec.env_id, num_players=players, single_round=single, options=options,
                minutes=args.minutes if args.minutes is not None or args.decisions is not None else 60.0,
                decisions=args.decisions, seed=seed, out=folder,
                train_single_round=args.train_episodes == "round",
                train_reward_mode=args.train_reward,
                num_envs=256 if args.num_envs is None else args.num_envs, torch_threads=args.threads,
                eval_matches=400 if args.eval_matches is None else args.eval_matches,
                eval_every_minutes=default_eval_every(args.minutes) if args.eval_every is None else args.eval_every,
                workers=1 if args.workers is None else args.workers, ray=args.ray,
                heuristic_input=args.heuristic_input, privileged_critic=args.privileged_critic,
                **({} if args.teacher_until is None else {"teacher_until": args.teacher_until}),
            )
            trainer = Trainer(config, out=out, err=err)
        if trainer.cfg.ray:  # join the Ray instance now: an unreachable one is a clear error, not a traceback
            from cardenvs.agents.training.distributed import connect_ray

            connect_ray(None if trainer.cfg.ray == "local" else str(trainer.cfg.ray))
    except (ValueError, TypeError, ImportError) as e:
        raise CliError(str(e)) from None
    trainer.train()
    return 0


def _labelling_run(args: argparse.Namespace, module: str, kind: str,
                   result: str) -> tuple[Any, Any, dict[str, Any], dict[str, Any]]:
    """What ``train search`` and ``train scorer`` start alike: the method's module (its
    trainer needs torch), the game and its options, the output folder (default
    ``runs/GAME-KIND-SEED``, checked before anything is built, ``result`` the file a run
    leaves there) and the shared settings of its config. Returns the module, the spec,
    the options left and the config's shared settings."""
    import importlib

    try:
        trainer = importlib.import_module(f"cardenvs.agents.training.{module}")
    except ImportError as e:  # pragma: no cover - depends on the install
        raise CliError(str(e)) from None
    spec, options = game_and_options(args)
    seed = 0 if args.seed is None else args.seed
    folder = args.out if args.out is not None else f"runs/{spec.name}-{kind}-{seed}"
    check_out(args, folder, lambda path: trainer.check_new_folder(path, result))
    shared = {"game": spec.env_id, "seed": seed, "out": folder,
              "workers": (os.cpu_count() or 1) if args.workers is None else args.workers}
    return trainer, spec, options, shared


def _check_and_run(trainer: Any, run: str, config: Any, out: TextIO, err: TextIO) -> int:
    try:  # every setting is checked before the run starts; what fails later is no usage error
        trainer.check_run(config)
    except (ValueError, TypeError) as e:
        raise CliError(str(e)) from None
    getattr(trainer, run)(config, out=out, err=err)
    return 0


def cmd_train_search(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``cardenvs train search``: search-labelled training (cardenvs.agents.training.expert)."""
    trainer, spec, options, shared = _labelling_run(args, "expert", "search", "policy.npz")
    players = options.pop("num_players", None)
    single = single_round(args, options)
    settings = {"samples": args.samples, "hands": args.hands, "fit_minutes": args.fit_minutes,
                "eval_matches": args.eval_matches, "minutes": args.minutes, "torch_threads": args.threads}
    config = trainer.SearchConfig(num_players=players, single_round=single, options=options, **shared,
                                  **{k: v for k, v in settings.items() if v is not None})
    return _check_and_run(trainer, "run_search", config, out, err)


def cmd_train_scorer(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``cardenvs train scorer``: Rami 51's card scorer fitted to exact rollouts
    (cardenvs.agents.training.card_scorer)."""
    trainer, spec, options, shared = _labelling_run(args, "card_scorer", "scorer", "scorer.npz")
    players = options.pop("num_players", None)
    given = options.pop("single_round", None)
    if given is False and not args.whole_matches:
        raise CliError("the card scorer is labelled on single rounds: drop single_round=false, or give "
                       "--whole-matches for a scorer of whole matches")
    if given is True and args.whole_matches:
        raise CliError("--whole-matches contradicts --option single_round=true")
    settings = {"whole_matches": args.whole_matches or None,
                "fit_minutes": args.fit_minutes, "eval_matches": args.eval_matches, "minutes": args.minutes,
                "torch_threads": args.threads, "points_weight": args.points_weight, "num_players": players,
                "iterations": args.iterations, "actions_per_position": args.actions_per_position,
                "fit_window": args.fit_window, "labelled_seat": args.labelled_seat,
                "last_fit_share": args.last_fit_share, "last_points_weight": args.last_points_weight}
    config = trainer.ScorerConfig(options=options, **shared, **{k: v for k, v in settings.items() if v is not None})
    return _check_and_run(trainer, "run_scorer", config, out, err)
