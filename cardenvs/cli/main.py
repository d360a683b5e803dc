"""``cardenvs``: list the games, and play matches between agents (or against a person).

    cardenvs list
    cardenvs play president --players 5 --agents heuristic,random --games 200
    cardenvs play president --agents human,heuristic --option single_round=true
    cardenvs play president --render --option single_round=true
    cardenvs eval president --agents ppo,heuristic --matches 4000
    cardenvs train president --minutes 60 --out runs/president

``play`` seats the agents in the order given, repeating the list to fill the table,
and rotates the seats by one between matches so that no agent keeps a seat. The
winner of a match is the seat (or seats) with the highest total reward over the
match; a tie shares the win. The score column is the game's match score
(``infos[agent]["scores"]``). Matches go through the public AEC env (``cardenvs.make``).
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from cardenvs import __version__
from cardenvs.agents import Agent, has_heuristic, make_agent
from cardenvs.core import narration
from cardenvs.core.outcome import win_shares
from cardenvs.core.protocol import GameSpec
from cardenvs.core.registry import get_spec, list_games
from cardenvs.envs import make, rules_page

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class CliError(Exception):
    """A bad game, agent or option: one line on stderr, exit code 2."""


class QuitRequested(Exception):
    """The human typed ``q`` (or closed stdin)."""


# --------------------------------------------------------------------------- list
def format_table(header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> str:
    """Plain-text table; columns in ``right`` are right-aligned (numbers)."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=False)]

    def line(cells: Sequence[str]) -> str:
        cols = enumerate(zip(cells, widths, strict=True))
        return "  ".join(str(c).rjust(w) if i in right else str(c).ljust(w) for i, (c, w) in cols).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def cmd_list(out: TextIO) -> int:
    """One block per game, under 80 columns: id, title, players, then the summary wrapped."""
    import textwrap

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
    """Print the game's rules page."""
    try:
        text = rules_page(args.game)
    except (ValueError, FileNotFoundError) as e:
        raise CliError(str(e)) from None
    out.write(text if text.endswith("\n") else text + "\n")
    return 0


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
    from cardenvs.core.protocol import options_schema

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


def game_and_options(args: argparse.Namespace) -> tuple[GameSpec, dict[str, Any]]:
    """The game named on the command line and its ``--players``/``--option`` settings."""
    try:
        spec = get_spec(args.game)
    except ValueError as e:
        raise CliError(str(e)) from None
    return spec, parse_options(spec, args.option or [], args.players)


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


# --------------------------------------------------------------------------- one match
@dataclass
class MatchResult:
    returns: list[float]  # total reward of each seat over the match
    scores: list[float] | None  # the game's match score per seat, when its infos carry one
    shares: list[float]  # each seat's share of the win
    truncated: bool = False  # cut short by max_steps: no winner


def table_text(env: Any, viewer: int | None) -> str:
    """The table as the game renders it, every hand shown (viewer None) or one seat's view."""
    return env.unwrapped.render_text(viewer)


def turn_seconds(env: Any, wanted: float | None = None) -> float:
    """The turn timer for people: ``wanted`` seconds (``--turn-seconds``; 0: none), else the
    game's traditional one (its module's ``TURN_SECONDS``). Only a game that says what to
    play when time runs out (``timeout_actions(state)``) has a timer; it is not part of
    the game state."""
    game = env.unwrapped.game
    if getattr(game, "timeout_actions", None) is None:
        return 0.0
    return float(wanted) if wanted is not None else float(getattr(game, "TURN_SECONDS", 0.0))


def timed_input(prompt: str, seconds: float) -> str | None:
    """``input()`` that gives up after ``seconds`` (None). Waits on stdin with ``select``
    where the platform allows it; elsewhere reads without a limit."""
    import select

    print(prompt, end="", flush=True)
    try:
        ready, _, _ = select.select([sys.stdin], [], [], max(seconds, 0.0))
    except (OSError, ValueError, TypeError):  # no selectable stdin (Windows consoles, some test runners)
        return input()
    if not ready:
        print()
        return None
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


def _timeout_action(env: Any) -> int:
    """The next step the game plays for a person whose turn timer ran out."""
    raw = env.unwrapped
    actions = raw.game.timeout_actions(raw._state[0])
    return int(actions[0]) if actions else raw.legal_actions()[0]


# a person may type a whole play on one line; the CLI adds the step that opens a meld (Rami 51:
# `meld`) when the first card needs it, and the step that commits the play (`play`, `close`)
# when the line stops before it
LINE_OPENERS = {"rami51": "meld"}
LINE_FINISHERS = {"odin": "play", "rami51": "close", "frime": "close", "classes": "close"}
LEGAL_LIST_WIDTH = 100


def legal_moves_text(raw: Any, legal: Sequence[int], width: int = LEGAL_LIST_WIDTH) -> str:
    """``#0 draw   #1 take 7h ...`` wrapped between items, never inside one."""
    items = [f"#{i} {raw.action_to_str(a)}" for i, a in enumerate(legal)]
    lines, line = [], "legal moves:"
    for item in items:
        if len(line) + 3 + len(item) > width and line.strip() != "legal moves:":
            lines.append(line)
            line = "            "
        line += "   " + item
    lines.append(line)
    return "\n".join(lines)


def parse_human_line(raw: Any, text: str, legal: Sequence[int]) -> list[int]:
    """The moves a line stands for, each legal in turn (checked on a copy of the game):
    ``#N`` is move N of the list; otherwise card notation, one move (``77``, ``take 7h``)
    or a whole play (``7p 7b`` in Odin, ``6c 7c 8c`` in Rami 51). ValueError explains."""
    text = text.strip()
    if text.startswith("#"):
        n = text[1:].strip()
        if not n.isdigit() or int(n) >= len(legal):
            raise ValueError(f"{text!r}: choose #0 .. #{len(legal) - 1}")
        return [legal[int(n)]]
    try:
        action = raw.str_to_action(text)
    except ValueError as whole_error:
        tokens = text.replace(",", " ").split()
        if len(tokens) < 2:
            if text.isdigit():
                raise ValueError(f"{whole_error}; to pick move {text} of the list, type #{text}") from None
            raise
        return _expand_line(raw, tokens)
    verb = raw.action_to_str(action).split(" ", 1)[0]
    if raw.spec.name in LINE_FINISHERS and text.split(" ", 1)[0].lower() != verb:
        return _expand_line(raw, [text])  # bare cards: a whole play of one card
    if action not in legal:
        raise ValueError(f"{raw.action_to_str(action)!r} is not legal now; choose a listed move (#0 .. "
                         f"#{len(legal) - 1})")
    return [action]


def _expand_line(raw: Any, tokens: list[str]) -> list[int]:
    """Read tokens as a sequence of moves (the longest readable span first), on a copy."""
    game = raw.spec.name
    sim = raw.clone()
    plan: list[int] = []

    def legal_now() -> list[int]:
        return sim.legal_actions()

    def play(a: int) -> None:
        plan.append(a)
        sim.step(a)

    i = 0
    while i < len(tokens):
        for j in range(min(len(tokens), i + 3), i, -1):  # the longest span that reads as a move
            try:
                action = raw.str_to_action(" ".join(tokens[i:j]))
                break
            except ValueError:
                continue
        else:
            raise ValueError(f"cannot read {tokens[i]!r} in that line")
        if action not in legal_now() and game in LINE_OPENERS:
            opener = raw.str_to_action(LINE_OPENERS[game])
            if opener in legal_now() and not plan[-1:] == [opener]:
                play(opener)
        if action not in legal_now():
            done = " ".join(raw.action_to_str(a) for a in plan) or "nothing"
            raise ValueError(f"{raw.action_to_str(action)!r} is not legal after {done}")
        play(action)
        i = j
    finisher = LINE_FINISHERS.get(game)
    if finisher is not None:
        last = raw.str_to_action(finisher)
        if plan[-1] != last and last in legal_now():
            play(last)
    return plan


def ask_human(
    env: Any, seat: int, input_fn: Callable[[str], str], out: TextIO, deadline: float | None = None,
    hint: str | None = None,
) -> list[int] | None:
    """Show seat's hand and the numbered legal moves; read card notation (one move or a
    whole play) or ``#N``. Returns the moves to play in turn. With a ``deadline``
    (``time.monotonic()``), None when the turn's time ran out (an answer typed too late
    does not count)."""
    raw = env.unwrapped
    legal = raw.legal_actions()
    if len(legal) == 1:  # nothing to choose (say, declining a four you cannot complete)
        return [legal[0]]
    print(f"\n=== your turn: {raw.possible_agents[seat]} ===", file=out)
    print(table_text(env, seat), file=out)
    if hint:
        print(hint, file=out)
    print(legal_moves_text(raw, legal), file=out)
    while True:
        prompt = "your move (cards, a whole play, or #N from the list; q to quit): "
        try:
            if deadline is None:
                text = input_fn(prompt).strip()
            else:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                prompt = f"your move ({left:.0f} s left; cards or #N, q to quit): "
                reply = timed_input(prompt, left) if input_fn is input else input_fn(prompt)
                if reply is None or time.monotonic() > deadline:
                    return None
                text = reply.strip()
        except TimeoutError:
            return None
        except EOFError:
            raise QuitRequested from None
        if text in ("q", "quit", "exit"):  # lower case only: "Q" is a queen
            raise QuitRequested
        if not text:
            continue
        try:
            return parse_human_line(raw, text, legal)
        except ValueError as e:
            print(f"  {e}", file=out)


def play_match(
    env: Any,
    agents: Sequence[Agent],
    names: Sequence[str],
    seed: int,
    out: TextIO,
    render: bool = False,
    input_fn: Callable[[str], str] = input,
    pause: Callable[[], None] | None = None,
    timer_seconds: float | None = None,
) -> MatchResult:
    """One match on the AEC env; ``agents[s]`` plays seat s. With ``render`` the table is
    printed after every move; with a human seated the other players' moves are printed.
    ``timer_seconds``: a person's turn timer (None: the game's own, 0: none)."""
    raw = env.unwrapped
    game = raw.spec.name
    index = {a: i for i, a in enumerate(raw.possible_agents)}
    humans = [s for s, a in enumerate(agents) if a.is_human]
    viewer = humans[0] if humans else None  # never show a human the other hands
    narrate = render or bool(humans)
    env.reset(seed=seed)
    for agent in agents:
        agent.reset()
    returns = [0.0] * len(agents)
    final_info: dict[str, Any] = {}
    last_round = None
    timer = turn_seconds(env, timer_seconds) if humans else 0.0
    voids = 0
    turn_key: tuple | None = None  # (seat, round) of the person whose turn clock runs
    deadline = 0.0
    cut = False  # the match was cut short (max_steps)
    pending: list[int] = []  # the rest of a whole play a person typed
    pending_seat = -1
    if render:
        print(table_text(env, viewer), file=out)
    for name in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        seat = index[name]
        returns[seat] += float(reward)
        if terminated or truncated:
            final_info = info
            cut = cut or bool(truncated and not terminated)
            env.step(None)
            continue
        if narrate and info.get("round") != last_round:
            if last_round is not None and info.get("void_rounds", 0) > voids:
                voids = info["void_rounds"]
                print(f"-- round {last_round} void: nobody scores it; scores {info['scores']}", file=out)
            elif last_round is not None and "scores" in info:
                print(f"-- round {last_round} over; scores {info['scores']}", file=out)
            last_round = info.get("round")
        agent = agents[seat]
        legal = raw.legal_actions()
        before = raw.state_dict() if narrate else None
        hint = narration.phase_hint(game, before, seat) if agent.is_human else None
        if agent.is_human and pending and pending_seat == seat and pending[0] in legal:
            action = pending.pop(0)  # the next step of the play typed whole
        elif agent.is_human and timer > 0:
            pending = []
            # the turn timer runs from the first decision of the turn to the last
            if turn_key != (seat, info.get("round")):
                turn_key = (seat, info.get("round"))
                deadline = time.monotonic() + timer
            plan = ask_human(env, seat, input_fn, out, deadline, hint) if time.monotonic() < deadline else None
            if plan is None:
                action = _timeout_action(env)
                print(f"{name} (you): time is up ({timer:g} s a turn): {raw.action_to_str(action)} played for you",
                      file=out)
            else:
                action, pending, pending_seat = plan[0], plan[1:], seat
        elif agent.is_human:
            action, *pending = ask_human(env, seat, input_fn, out, hint=hint)
            pending_seat = seat
        else:
            turn_key = None
            action = int(agent.act(obs["observation"], obs["action_mask"].astype(np.bool_)))
        env.step(action)
        if narrate:
            move = raw.action_to_str(action) if viewer in (None, seat) else raw.public_action_str(action)
            forced = narration.forced_note(seat, viewer, len(legal) == 1)
            if not narration.quiet(game, before, seat, viewer, move, len(legal) == 1):
                note = narration.move_note(game, before, seat, move)
                print(f"{name} ({names[seat]}): {move}{note}{forced}", file=out)
            for line in narration.events(game, before, raw.state_dict(), seat, viewer, move):
                print(f"  {line}", file=out)
        if render:
            print(table_text(env, viewer) + "\n", file=out)
            if pause is not None and not agent.is_human:
                pause()
    scores = final_info.get("scores")
    result = MatchResult(returns, list(scores) if scores is not None else None, win_shares([returns])[0].tolist(), cut)
    if narrate and cut:
        print(f"match cut short (max_steps): no winner; scores {scores}", file=out)
    elif narrate:
        winners = [f"{raw.possible_agents[s]} ({names[s]})" for s, x in enumerate(result.shares) if x > 0]
        print(
            f"match over: winner {' and '.join(winners)}; scores {scores}; rewards {[round(r, 3) for r in returns]}",
            file=out,
        )
    return result


# --------------------------------------------------------------------------- many matches
@dataclass
class Tally:
    seats: int = 0
    wins: float = 0.0
    score_sum: float = 0.0
    scored: int = 0


def results_table(tallies: dict[str, Tally]) -> str:
    rows = []
    for name, t in tallies.items():
        rate = f"{t.wins / t.seats:.1%}" if t.seats else "-"
        score = f"{t.score_sum / t.scored:.2f}" if t.scored else "-"
        rows.append([name, str(t.seats), f"{t.wins:.1f}", rate, score])
    return format_table(["agent", "seats", "wins", "win rate", "mean score"], rows, right=(1, 2, 3, 4))


def progress(done: int, total: int, err: TextIO, width: int = 30) -> None:
    filled = width * done // total
    err.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} matches")
    if done == total:
        err.write("\n")
    err.flush()


def render_pause(args: argparse.Namespace, input_fn: Callable[[str], str]) -> Callable[[], None] | None:
    """What ``--render`` waits for after each move: Enter (``--step``), a delay, or nothing."""
    if getattr(args, "step", False):
        return lambda: input_fn("[Enter: next move] ") and None
    delay = getattr(args, "delay", 0.0) or 0.0
    if delay < 0:
        raise CliError(f"--delay must be >= 0, got {delay}")
    return (lambda: time.sleep(delay)) if delay else None


def cmd_play(args: argparse.Namespace, out: TextIO, err: TextIO, input_fn: Callable[[str], str]) -> int:
    spec, options = game_and_options(args)
    if args.agents:
        policy_setup(spec, agent_list(args.agents), options, out)
    try:
        env = make(spec.env_id, **options)
    except (ValueError, TypeError) as e:
        raise CliError(str(e)) from None
    num_players = env.unwrapped.num_players
    if args.agents:
        wanted = agent_list(args.agents)
        if not wanted:
            raise CliError("--agents needs at least one agent name")
    else:
        wanted = ["heuristic" if has_heuristic(spec) else "random"]
    names = seat_names(wanted, num_players)
    if names.count("human") > 1:
        seats = ", ".join(str(s) for s, n in enumerate(names) if n == "human")
        print(f"note: the agent list repeats to fill {num_players} seats: you play seats {seats}", file=out)
    if args.seed is not None and args.seed < 0:
        raise CliError(f"--seed must be >= 0, got {args.seed}")
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    slots: list[Agent] = []
    for k, name in enumerate(names):
        agent_seed = int(np.random.SeedSequence([seed, k]).generate_state(1)[0])
        try:
            slots.append(make_agent(name, spec, seed=agent_seed, options=options))
        except ValueError as e:
            raise CliError(str(e)) from None
    if args.games < 1:
        raise CliError(f"--games must be at least 1, got {args.games}")
    if args.turn_seconds is not None and not 0 <= args.turn_seconds < float("inf"):
        raise CliError(f"--turn-seconds must be a number >= 0, got {args.turn_seconds}")
    if args.turn_seconds is not None and getattr(spec.module, "timeout_actions", None) is None:
        print(f"note: {spec.title} has no turn timer; --turn-seconds is ignored", file=err)
    games = args.games
    if args.render and games > 1:
        print("--render plays a single match", file=err)
        games = 1
    interactive = args.render or any(a.is_human for a in slots)
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
    try:
        for g in range(games):
            # rotate: in match g seat s is played by slot (s + g) % P
            order = [(s + g) % num_players for s in range(num_players)]
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
            if games > 1 and not interactive:
                progress(played, games, err)
    except QuitRequested:
        print("\nquit", file=out)
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
        print(
            "winner: the seat(s) with the highest total reward of the match, ties shared; "
            f"score: the game's match score (infos['scores']), {spec.score_sense} is better",
            file=out,
        )
    return status



# --------------------------------------------------------------------------- eval
def cmd_eval(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cardenvs.agents.evaluate import evaluate

    spec, options = game_and_options(args)
    policy_setup(spec, agent_list(args.agents), options, out)
    try:  # the options checked by the game before anything is played
        from cardenvs.core.vector import VecEnv

        num_players = VecEnv(spec, 1, **options).num_players
    except (ValueError, TypeError) as e:
        raise CliError(str(e)) from None
    wanted = agent_list(args.agents)
    if not wanted:
        raise CliError("--agents needs at least one agent name")
    if len(wanted) > num_players:
        raise CliError(f"{len(wanted)} agents for {num_players} seats")
    names = wanted + [wanted[-1]] * (num_players - len(wanted))  # the last agent fills the table
    if args.matches < 1:
        raise CliError(f"--matches must be at least 1, got {args.matches}")
    if args.seed < 0:
        raise CliError(f"--seed must be >= 0, got {args.seed}")
    slots = []
    for k, name in enumerate(names):
        try:
            slots.append(make_agent(name, spec, seed=args.seed * 1000 + k, options=options))
        except ValueError as e:
            raise CliError(str(e)) from None
    print(f"{spec.env_id}: {num_players} players, seats {','.join(names)} (rotated every match); "
          f"{args.matches} matches from seed {args.seed}", file=out)
    start = time.perf_counter()
    done = 0
    results = None
    batch = max(1, min(args.batch, args.matches))
    try:
        while done < args.matches:
            n = min(batch, args.matches - done)
            part = evaluate(spec, slots, n, seed=args.seed, options=options, batch_size=n, first_match=done)
            results = part if results is None else [_merge(a, b) for a, b in zip(results, part, strict=True)]
            done += n
            progress(done, args.matches, err)
    except (ValueError, TypeError) as e:
        raise CliError(str(e)) from None
    elapsed = time.perf_counter() - start
    assert results is not None
    truncated = results[0].truncated
    finished = done - truncated
    print(f"\n{done} matches in {elapsed:.1f} s: {finished} finished, {truncated} cut short by max_steps "
          f"(left out of the figures below); fair share {1 / num_players:.1%}", file=out)
    rows = []
    for k, r in enumerate(results):
        share = f"{r.win_rate:.1%} ± {r.ci95:.1%}" if r.finished > 1 else "-"
        score = "-" if np.isnan(r.mean_score) else f"{r.mean_score:.2f}"
        rows.append([str(k + 1), names[k], f"{r.wins:.1f}", share, score])
    print(format_table(["seat", "agent", "wins", "win share (95 % CI)", "mean score"], rows, right=(2, 3, 4)),
          file=out)
    print(f"win share: ties shared; score: the game's match score, {spec.score_sense} is better", file=out)
    return 0


def _merge(a: Any, b: Any) -> Any:
    from cardenvs.agents.evaluate import SlotResult

    finished = a.finished + b.finished
    parts = [(r.mean_score, r.finished) for r in (a, b) if r.finished]  # a chunk of cut matches has no mean
    mean = (np.nan if not parts or any(np.isnan(m) for m, _ in parts)
            else sum(m * f for m, f in parts) / finished)
    return SlotResult(a.name, a.matches + b.matches, a.wins + b.wins, mean, a.truncated + b.truncated,
                      a.wins_sq + b.wins_sq)


# --------------------------------------------------------------------------- warmup
def cmd_warmup(args: argparse.Namespace, out: TextIO) -> int:
    """Compile (or load from the cache) every kernel a game uses, timing each game."""
    from cardenvs.core.vector import RandomSampler, VecEnv

    try:
        specs = [get_spec(g) for g in args.games] if args.games else list_games()
    except ValueError as e:
        raise CliError(str(e)) from None
    total = time.perf_counter()
    for spec in specs:
        t = time.perf_counter()
        sampler = RandomSampler(0)
        threads = [1, 2] if args.threads else [1]
        for n_threads in threads:
            venv = VecEnv(spec, 4, num_threads=n_threads, parallel_threshold=1, auto_play_forced=True,
                          final_observation=True)
            st = venv.reset()
            for _ in range(40):
                st = venv.step(sampler(st.legal_action_mask))
            venv.observe(0)
        env = make(spec.env_id)
        env.reset(seed=0)
        for _ in range(20):
            obs = env.observe(env.agent_selection)
            if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
                break
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if has_heuristic(spec):
            make_agent("heuristic", spec).act_batch(st.observation, st.legal_action_mask)
        print(f"{spec.env_id}: ready in {time.perf_counter() - t:.1f} s", file=out, flush=True)
    print(f"all kernels ready in {time.perf_counter() - total:.1f} s (compiled code is cached: later runs load it)",
          file=out)
    return 0


# --------------------------------------------------------------------------- soak
def cmd_soak(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cardenvs.soak import main_soak

    spec, options = game_and_options(args)
    if args.matches < 1 or args.threads < 1 or args.seed < 0:
        raise CliError("--matches and --threads must be at least 1, --seed at least 0")
    try:
        return main_soak(spec.env_id, args.matches, seed=args.seed, threads=args.threads, options=options,
                         out=out, err=err)
    except (ValueError, TypeError) as e:
        raise CliError(str(e)) from None


# --------------------------------------------------------------------------- train
def cmd_train(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.method == "search":
        return cmd_train_search(args, out, err)
    if args.method == "scorer":
        return cmd_train_scorer(args, out, err)
    ignored = [flag for flag, value in (("--samples", args.samples), ("--hands", args.hands)) if value is not None]
    if ignored:
        raise CliError(f"{', '.join(ignored)} go with --method search")
    if args.fit_minutes is not None:
        raise CliError("--fit-minutes goes with --method search or scorer")
    refuse_scorer_flags(args)
    try:
        from cardenvs.agents.training.trainer import TrainConfig, Trainer
    except ImportError as e:  # pragma: no cover - depends on the install
        raise CliError(str(e)) from None
    try:
        if args.resume:
            ignored = [flag for flag, value in (("--players", args.players), ("--option", args.option),
                                                ("--out", args.out), ("--threads", args.threads),
                                                ("--single-round", args.single_round or None),
                                                ("--heuristic-input", args.heuristic_input or None),
                                                ("--teacher-until", args.teacher_until is not None or None),
                                                ("--workers", args.workers), ("--ray", args.ray),
                                                ("--eval-matches", args.eval_matches)) if value is not None]
            if ignored:
                raise CliError(f"--resume continues a run with its own settings: drop {', '.join(ignored)}")
            trainer = Trainer.resume(args.resume, minutes=args.minutes, decisions=args.decisions, out=out, err=err)
        else:
            spec, options = game_and_options(args)
            players = options.pop("num_players", None)
            single = bool(options.pop("single_round", False)) or args.single_round
            config = TrainConfig(
                game=spec.env_id, num_players=players, single_round=single, options=options,
                minutes=args.minutes if args.minutes is not None or args.decisions is not None else 60.0,
                decisions=args.decisions, seed=args.seed,
                out=args.out or f"runs/{spec.name}-{args.seed}",
                train_single_round=args.train_episodes == "round",
                train_reward_mode=args.train_reward,
                num_envs=args.num_envs, torch_threads=args.threads,
                eval_matches=400 if args.eval_matches is None else args.eval_matches,
                eval_every_minutes=args.eval_every,
                workers=1 if args.workers is None else args.workers, ray=args.ray,
                heuristic_input=args.heuristic_input,
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


def ppo_only_flags(args: argparse.Namespace) -> list[str]:
    """The PPO trainer's flags given on the command line (other methods refuse them)."""
    return [flag for flag, value in (
        ("--resume", args.resume), ("--decisions", args.decisions),
        ("--train-episodes", args.train_episodes != "match" or None), ("--train-reward", args.train_reward),
        ("--heuristic-input", args.heuristic_input or None), ("--teacher-until", args.teacher_until),
        ("--num-envs", args.num_envs != 256 or None), ("--eval-every", args.eval_every != 5.0 or None),
        ("--ray", args.ray)) if value is not None]


def refuse_scorer_flags(args: argparse.Namespace) -> None:
    """The card scorer's flags are refused by the other methods."""
    given = [flag for flag, value in (("--points-weight", args.points_weight), ("--iterations", args.iterations),
                                      ("--actions-per-position", args.actions_per_position),
                                      ("--fit-window", args.fit_window),
                                      ("--labelled-seat", args.labelled_seat),
                                      ("--last-fit-share", args.last_fit_share),
                                      ("--last-points-weight", args.last_points_weight)) if value is not None]
    if given:
        raise CliError(f"{', '.join(given)} {'goes' if len(given) == 1 else 'go'} with --method scorer")


def cmd_train_search(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``cardenvs train GAME --method search``: search-labelled training (cardenvs.agents.training.expert)."""
    ppo_only = ppo_only_flags(args)
    if ppo_only:
        raise CliError(f"--method search takes none of {', '.join(ppo_only)} (they are PPO's)")
    refuse_scorer_flags(args)
    if args.game is None:
        raise CliError("train needs a game")
    try:
        from cardenvs.agents.training.expert import SearchConfig, check_run, run_search
    except ImportError as e:  # pragma: no cover - depends on the install
        raise CliError(str(e)) from None
    spec, options = game_and_options(args)
    players = options.pop("num_players", None)
    single = bool(options.pop("single_round", False)) or args.single_round
    settings = {"samples": args.samples, "hands": args.hands, "fit_minutes": args.fit_minutes,
                "eval_matches": args.eval_matches,
                "minutes": args.minutes, "torch_threads": args.threads}
    config = SearchConfig(
        game=spec.env_id, num_players=players, single_round=single, options=options, seed=args.seed,
        out=args.out or f"runs/{spec.name}-search-{args.seed}",
        workers=(os.cpu_count() or 1) if args.workers is None else args.workers,
        **{k: v for k, v in settings.items() if v is not None},
    )
    try:  # every setting is checked before the run starts; what fails later is no usage error
        check_run(config)
    except (ValueError, TypeError) as e:
        raise CliError(str(e)) from None
    run_search(config, out=out, err=err)
    return 0


def cmd_train_scorer(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``cardenvs train rami51 --method scorer``: a card scorer fitted to exact rollouts
    (cardenvs.agents.training.card_scorer)."""
    not_scorer = ppo_only_flags(args) + [flag for flag, value in (("--samples", args.samples),
                                                                  ("--hands", args.hands)) if value is not None]
    if not_scorer:
        raise CliError(f"--method scorer takes none of {', '.join(not_scorer)}")
    if args.game is None:
        raise CliError("train needs a game")
    try:
        from cardenvs.agents.training.card_scorer import ScorerConfig, check_run, run_scorer
    except ImportError as e:  # pragma: no cover - depends on the install
        raise CliError(str(e)) from None
    spec, options = game_and_options(args)
    players = options.pop("num_players", None)
    if options.pop("single_round", True) is not True:
        raise CliError("the card scorer plays single rounds: drop single_round=false")
    settings = {"fit_minutes": args.fit_minutes, "eval_matches": args.eval_matches, "minutes": args.minutes,
                "torch_threads": args.threads, "points_weight": args.points_weight, "num_players": players,
                "iterations": args.iterations, "actions_per_position": args.actions_per_position,
                "fit_window": args.fit_window, "labelled_seat": args.labelled_seat,
                "last_fit_share": args.last_fit_share, "last_points_weight": args.last_points_weight}
    config = ScorerConfig(
        game=spec.env_id, options=options, seed=args.seed, out=args.out or f"runs/{spec.name}-scorer-{args.seed}",
        workers=(os.cpu_count() or 1) if args.workers is None else args.workers,
        **{k: v for k, v in settings.items() if v is not None},
    )
    try:  # every setting is checked before the run starts; what fails later is no usage error
        check_run(config)
    except (ValueError, TypeError) as e:
        raise CliError(str(e)) from None
    run_scorer(config, out=out, err=err)
    return 0


# --------------------------------------------------------------------------- entry point
def _game_command(sub: Any, name: str, epilog: str | None, game_nargs: str | None = None, **kwargs: Any) -> Any:
    """A subcommand about one game: its help lists that game's options (``epilog``), and it
    takes the game, ``--players`` and ``--option KEY=VALUE``."""
    cmd = sub.add_parser(name, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)
    cmd.add_argument("game", nargs=game_nargs, help="env id or name, e.g. president_v0 or president"
                     + (" (not with --resume)" if game_nargs else ""))
    cmd.add_argument("--players", type=int, help="number of players (the game's default otherwise)")
    cmd.add_argument("--option", nargs="+", action="extend", metavar="KEY=VALUE",
                     help="game option, e.g. single_round=true target_score=5")
    return cmd


def game_options_help(game: str | None) -> str | None:
    """The options of ``game`` for ``--help`` (kind and default of each), None if unknown."""
    from cardenvs.core.protocol import options_schema

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


def build_parser(help_game: str | None = None) -> argparse.ArgumentParser:
    """The CLI's parser; ``help_game`` adds that game's options to the commands' help."""
    epilog = game_options_help(help_game)
    parser = argparse.ArgumentParser(
        prog="cardenvs", description="Card-game environments: list games, play matches, evaluate and train agents."
    )
    parser.add_argument("--version", action="version", version=f"cardenvs {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("list", help="the registered games", description="The registered games.")
    ru = sub.add_parser("rules", help="print a game's rules page",
                        description="Print a game's rules page (Markdown): the rules as implemented, the action "
                        "encoding, the observation, the options and the rewards.")
    ru.add_argument("game", help="env id or name, e.g. president_v0 or president")
    play = _game_command(
        sub,
        "play",
        epilog,
        help="play matches between agents (or you)",
        description="Play matches on the AEC env. Seats rotate by one between matches. The winner of a "
        "match is the seat (or seats, sharing) with the highest total reward; the score is the game's "
        "match score (infos['scores']).",
    )
    play.add_argument(
        "--agents",
        help="comma-separated agents repeated to fill the seats: random, heuristic, human, ppo (the shipped "
        "baseline), ppo:PATH (a trained policy); rami51 also scorer (its shipped card scorer), scorer:PATH "
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
                      "the game's traditional timer, 30 s in the rummies, none in the other games)")
    ev = _game_command(
        sub,
        "eval",
        epilog,
        help="measure agents against each other on the vector env",
        description="Play many matches on the vector env with the seats rotated every match, and report each "
        "seat's share of the wins with a 95 % confidence interval and its mean score. Matches cut short by "
        "max_steps are counted apart.",
    )
    ev.add_argument("--agents", required=True,
                    help="comma-separated agents, the last one filling the remaining seats: random, heuristic, ppo "
                    "(the shipped baseline), ppo:PATH (a policy.npz or checkpoint.pt), ppo-sample:PATH; rami51 also "
                    "scorer (its shipped card scorer), scorer:PATH (a scorer.npz)")
    ev.add_argument("--matches", type=int, default=4000, help="number of matches (default 4000)")
    ev.add_argument("--seed", type=int, default=0, help="seed of the first match (default 0)")
    ev.add_argument("--batch", type=int, default=1000, help="matches played together (default 1000)")
    wu = sub.add_parser(
        "warmup",
        help="compile the kernels ahead of the first use",
        description="Compile every kernel of the given games (default: all) into numba's cache, so that the "
        "first env, match or training run starts at once. Later runs load the compiled code.",
    )
    wu.add_argument("games", nargs="*", help="env ids or names (default: every game)")
    wu.add_argument("--threads", action="store_true", help="also the threaded step (num_threads > 1)")
    so = _game_command(
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
    tr = _game_command(
        sub,
        "train",
        epilog,
        game_nargs="?",
        help="train a masked-PPO agent by self-play (needs torch)",
        description="Self-play masked PPO on the vector env: one policy at every seat it is given, tables of "
        "self-play, heuristic opponents and a pool of past snapshots. Writes metrics.csv, eval.csv, curve.png, "
        "checkpoint.pt and policy.npz into the output folder.",
    )
    tr.add_argument("--method", choices=("ppo", "search", "scorer"), default="ppo",
                    help="ppo (default): self-play masked PPO; search: a rollout search over the heuristic "
                    "labels positions and a residual policy learns its action values (games that can deal "
                    "their unseen cards anew: odin, rami51); scorer: Rami 51 single rounds (4 players unless --players "
                    "says 2 or 3), a card scorer fitted to exact rollouts of the moves played and of drawn "
                    "legal actions (play it as scorer:PATH)")
    tr.add_argument("--points-weight", type=float,
                    help="--method scorer: the fits' target is the win minus this x the penalty points held at "
                    "the round's end / 100 (default 0.5; the last of several fits: --last-points-weight)")
    tr.add_argument("--last-points-weight", type=float, metavar="W",
                    help="--method scorer: the points weight of the last iteration's fit, with more than one "
                    "iteration (default 0.1)")
    tr.add_argument("--iterations", type=int,
                    help="--method scorer: label and fit this many times (1 to 20), the later times in the "
                    "positions of the previous scorer's play, each with an equal part of the labelling (default 5)")
    tr.add_argument("--labelled-seat", choices=("scorer", "heuristic"),
                    help="--method scorer: in the later iterations the labelled seat plays the previous scorer's "
                    "moves (scorer, the default), or the heuristic's, the previous scorer's move played out "
                    "besides (heuristic: a trial's setting, weaker)")
    tr.add_argument("--fit-window", type=int,
                    help="--method scorer: each fit reads the labels of this many iterations, its own and the ones "
                    "before (default 3)")
    tr.add_argument("--actions-per-position", type=int,
                    help="--method scorer: the legal actions of a position played out besides the move played, "
                    "drawn at random (default 1; 0: every one)")
    tr.add_argument("--samples", type=int, help="--method search: deals of the unseen cards per position (default 8)")
    tr.add_argument("--hands", choices=("sampled", "true"),
                    help="--method search: deal the other hands anew in each sample (sampled, the default), or "
                    "search with them as they are and label the heuristic's matches (true)")
    tr.add_argument("--fit-minutes", type=float,
                    help="--method search: the part of the budget kept for the fit (default 8; "
                    "--method scorer: a third of --minutes, half of it for the last iteration's fit, the rest shared "
                    "by the others as their labelling is)")
    tr.add_argument("--last-fit-share", type=float, metavar="F",
                    help="--method scorer: the last iteration's part of --fit-minutes (default 0.5; "
                    "1 / --iterations shares the fit minutes equally; with one iteration its fit has them all)")
    tr.add_argument("--minutes", type=float, help="wall-clock budget (default 60 unless --decisions is given)")
    tr.add_argument("--decisions", type=int, help="budget in the policy's decisions")
    tr.add_argument("--single-round", action="store_true", help="the game is one round (trained and evaluated so)")
    tr.add_argument("--train-episodes", choices=("match", "round"), default="match",
                    help="train on whole matches (default) or on single rounds")
    tr.add_argument("--train-reward", choices=("match", "round"),
                    help="the game's reward mode used for training (evaluation uses the match outcome)")
    tr.add_argument("--heuristic-input", action="store_true",
                    help="a residual policy: the network also reads the heuristic's move in each position")
    tr.add_argument("--teacher-until", type=float, metavar="F",
                    help="the pull toward the heuristic's move falls to 0 at this fraction of the budget "
                    "(default 0.25; 0 turns it off)")
    tr.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    tr.add_argument("--out", help="output folder (default runs/GAME-SEED)")
    tr.add_argument("--resume", metavar="FOLDER", help="continue the run in FOLDER (budgets are totals)")
    tr.add_argument("--num-envs", type=int, default=256, help="matches stepped together (default 256)")
    tr.add_argument("--threads", type=int, help="torch threads (default 1 on a 2-core machine, else 2; "
                    "--method search and scorer: one per core)")
    tr.add_argument("--eval-matches", type=int,
                    help="matches per evaluation (default 400 for each periodic one; 2000 for the final one "
                    "of --method search; 4000 rounds for --method scorer)")
    tr.add_argument("--eval-every", type=float, default=5.0, help="minutes between evaluations (default 5)")
    tr.add_argument("--workers", type=int, metavar="K",
                    help="sample on K worker processes sharing the matches, the update on this one (default 1; "
                    "--method search and scorer: K labelling processes, default one per core)")
    tr.add_argument("--ray", nargs="?", const="local", metavar="ADDRESS",
                    help="run the workers on Ray: a local instance, or the cluster at ADDRESS (auto, HOST:6379, "
                    "ray://HOST:10001); needs cardenvs[ray]")
    return parser


def main(
    argv: Sequence[str] | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    input_fn: Callable[[str], str] | None = None,
) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 bad usage, 130 interrupted)."""
    out = out or sys.stdout
    err = err or sys.stderr
    argv = list(sys.argv[1:] if argv is None else argv)
    help_game = None
    if {"-h", "--help"} & set(argv) and len(argv) >= 2 and argv[0] in ("play", "eval", "train", "soak"):
        help_game = next((a for a in argv[1:] if not a.startswith("-")), None)
    parser = build_parser(help_game)
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            return cmd_list(out)
        if args.command == "rules":
            return cmd_rules(args, out)
        if args.command == "play":
            return cmd_play(args, out, err, input_fn or input)
        if args.command == "eval":
            return cmd_eval(args, out, err)
        if args.command == "warmup":
            return cmd_warmup(args, out)
        if args.command == "soak":
            return cmd_soak(args, out, err)
        if args.command == "train":
            if bool(args.game) == bool(args.resume):
                raise CliError("train needs a game, or --resume FOLDER (not both)")
            return cmd_train(args, out, err)
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
