"""The person at the table: one match on the AEC env, narrated, where a person reads their
hand and the legal moves and types a move (card notation, a whole play, or ``#N``), within
the game's turn timer where it has one.

A game tells the console how a whole play typed on one line opens and ends through
optional attributes of its package (or its ``text`` module): ``LINE_FINISHER`` (the move
that commits a play, added when the line stops before it: ``play``, ``close``) and
``LINE_OPENER`` (the move that opens a meld where the first card needs it). The rummies
give more, and their lines are read against the game (:func:`read_card_line`):
``str_to_actions`` (every move a typed word may stand for), ``LINE_STARTERS`` (the moves
that may be added before a card: a new meld, a lay-off), ``BARE_CARD_FALLBACK`` (what a
card typed alone is when it cannot be laid: ``discard``) and ``named_card`` (the card of
the hand a word lays, checked to be held).

What the table is told between moves is :class:`TableTalk`'s, over the games' narration
(:mod:`cardenvs.core.narration`).
"""

from __future__ import annotations

import ast
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from cardenvs.agents import Agent
from cardenvs.core import narration
from cardenvs.core.narration import plural
from cardenvs.core.outcome import win_shares

LEGAL_LIST_WIDTH = 100
MAX_MOVE_DIGITS = 6  # the N of #N: no list of moves is longer, and int() of thousands of digits is refused
ECHO_CHARS = 60  # the most of a typed line a message quotes back (a line may be megabytes, from the browser)


class QuitRequested(Exception):
    """The human typed ``q`` (or closed stdin)."""


@dataclass
class MatchResult:
    returns: list[float]  # total reward of each seat over the match
    scores: list[float] | None  # the game's match score per seat, when its infos carry one
    shares: list[float]  # each seat's share of the win
    truncated: bool = False  # cut short by max_steps: no winner


def table_text(env: Any, viewer: int | None) -> str:
    """The table as the game renders it, every hand shown (viewer None) or one seat's view."""
    return env.unwrapped.render_text(viewer)


# --------------------------------------------------------------------------- the turn timer
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


def readable_stdin() -> None:
    """Let ``sys.stdin`` read bytes that are not UTF-8 (as lone surrogates, which
    :func:`ask_human` refuses) instead of failing on them: a decoding error would lose the
    rest of what was read with the bad line. Left as it is where it cannot be changed."""
    try:
        sys.stdin.reconfigure(errors="surrogateescape")  # type: ignore[union-attr]
    except (AttributeError, OSError, ValueError):  # not a text file, or read from already
        pass


def unreadable(text: str) -> bool:
    """A line holding bytes that were not UTF-8 (read as lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _timeout_action(env: Any) -> int:
    """The next step the game plays for a person whose turn timer ran out."""
    raw = env.unwrapped
    actions = raw.game.timeout_actions(raw.state_record()[0])
    return int(actions[0]) if actions else raw.legal_actions()[0]


# --------------------------------------------------------------------------- reading a move
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


def quoted(text: str) -> str:
    """``text`` as a message quotes it back: its ``repr``, cut after ``ECHO_CHARS``
    characters (marked ``...``)."""
    return repr(text) if len(text) <= ECHO_CHARS else repr(text[:ECHO_CHARS] + "...")


# a Python string literal as ``repr`` writes one, either quote
_QUOTED = re.compile(r"'[^'\\\n]*(?:\\.[^'\\\n]*)*'|\"[^\"\\\n]*(?:\\.[^\"\\\n]*)*\"")


def _short_echoes(message: str, text: str) -> str:
    """``message`` with every long quote of the typed ``text`` (the whole line or a part of
    it, as the games' readers quote what they could not read) cut to ``quoted``'s length."""
    if len(message) <= 2 * ECHO_CHARS:
        return message

    def cut(match: re.Match[str]) -> str:
        literal = match.group(0)
        if len(literal) <= ECHO_CHARS + 2:
            return literal
        try:
            inner = ast.literal_eval(literal)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return literal
        return quoted(inner) if isinstance(inner, str) and inner in text else literal

    return _QUOTED.sub(cut, message)


def _move_number(text: str) -> bool:
    """``text`` reads as the N of a ``#N``: a few ASCII digits."""
    return 0 < len(text) <= MAX_MOVE_DIGITS and text.isascii() and text.isdigit()


def parse_human_line(raw: Any, text: str, legal: Sequence[int]) -> list[int]:
    """The moves a line stands for, each legal in turn (checked on a copy of the game):
    ``#N`` is move N of the list; otherwise card notation, one move (``77``, ``take 7h``)
    or a whole play (``7p 7b`` in Odin, ``6c 7c 8c`` in Rami 51). ValueError explains, in
    one line that quotes at most ``ECHO_CHARS`` characters of what was typed."""
    try:
        return _read_line(raw, text, legal)
    except ValueError as e:
        raise ValueError(_short_echoes(str(e), text)) from None


def _read_line(raw: Any, text: str, legal: Sequence[int]) -> list[int]:
    text = text.strip()
    if text.startswith("#"):
        n = text[1:].strip()
        if not _move_number(n) or int(n) >= len(legal):
            raise ValueError(f"{quoted(text)}: choose #0 .. #{len(legal) - 1}")
        return [legal[int(n)]]
    if _game_attr(raw, "LINE_STARTERS") is not None:  # the rummies: cards read by what the mask allows
        return read_card_line(raw, text, legal)
    try:
        action = raw.str_to_action(text)
    except ValueError as whole_error:
        tokens = text.replace(",", " ").split()
        if len(tokens) < 2:
            if _move_number(text):
                raise ValueError(f"{whole_error}; to pick move {text} of the list, type #{text}") from None
            raise
        return _as_whole_play(raw, tokens) or _expand_line(raw, tokens)
    verb = raw.action_to_str(action).split(" ", 1)[0]
    if _line_finisher(raw) is not None and text.split(" ", 1)[0].lower() != verb:
        return _expand_line(raw, [text])  # bare cards: a whole play of one card
    if action not in legal:
        raise ValueError(f"{raw.action_to_str(action)!r} is not legal now; choose a listed move (#0 .. "
                         f"#{len(legal) - 1})")
    return [action]


def _as_whole_play(raw: Any, tokens: list[str]) -> list[int] | None:
    """A game whose plays are sets of cards built in a fixed order (Odin's
    ``play_actions``): the cards in any order, then ``take C`` or ``play`` (added when
    legal if left out). None when the line is not such a play, or not a legal one."""
    make = getattr(raw.spec.module, "play_actions", None)
    if make is None:
        return None
    words = [w.lower() for w in tokens]
    take = tokens[-1] if len(tokens) >= 2 and words[-2] == "take" else None
    cards = tokens[:-2] if take is not None else tokens[:-1] if words[-1] == "play" else tokens
    try:
        moves = make(cards, take)
    except (ValueError, IndexError):
        return None
    sim = raw.clone()
    for k, a in enumerate(moves):
        if a not in sim.legal_actions():
            closing = k == len(moves) - 1 and take is None and words[-1] != "play"
            return moves[:k] if closing and k > 0 else None  # the play not typed: left to choose
        sim.step(a)
    return moves


def _line_opener(raw: Any) -> str | None:
    return getattr(raw.spec.module, "LINE_OPENER", None)


def _line_finisher(raw: Any) -> str | None:
    return getattr(raw.spec.module, "LINE_FINISHER", None)


def _expand_line(raw: Any, tokens: list[str]) -> list[int]:
    """Read tokens as a sequence of moves (the longest readable span first), on a copy."""
    opener_text, finisher_text = _line_opener(raw), _line_finisher(raw)
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
            raise ValueError(f"cannot read {quoted(tokens[i])} in that line")
        if action not in legal_now() and opener_text is not None:
            opener = raw.str_to_action(opener_text)
            if opener in legal_now() and not plan[-1:] == [opener]:
                play(opener)
        if action not in legal_now():
            done = " ".join(raw.action_to_str(a) for a in plan) or "nothing"
            raise ValueError(f"{raw.action_to_str(action)!r} is not legal after {done}")
        play(action)
        i = j
    if finisher_text is not None:
        last = raw.str_to_action(finisher_text)
        if plan[-1] != last and last in legal_now():
            play(last)
    return plan


# --------------------------------------------------------------------------- a rummy's line
# A line of cards typed in a rummy is read against the game itself: each word stands for
# the moves its game's ``str_to_actions`` lists (``Qs``: add it or discard it; ``2s`` where
# 2s are wild: any card), the moves ``LINE_STARTERS`` names (a new meld, a lay-off) may come
# before a card, ``LINE_FINISHER`` may close a meld, and cards typed alone side by side may
# come in any order. Every reading is played out on copies of the game, so only legal ones
# are left; the mask decides, never a rule written here. Of those left, the ones that read
# fewest cards as ``BARE_CARD_FALLBACK`` (a discard: a card that can be laid is laid), then
# add fewest moves, then keep the typed order best win; one left is played, several are
# listed.
MAX_READING_COPIES = 3000  # copies of the game one line may try (a long line of cards in any order)
READINGS_LISTED = 4


def _game_attr(raw: Any, name: str) -> Any:
    """An optional attribute of the game's package, or of its ``text`` module."""
    module = raw.spec.module
    found = getattr(module, name, None)
    return found if found is not None else getattr(getattr(module, "text", None), name, None)


@dataclass(frozen=True)
class _Word:
    text: str
    actions: tuple[int, ...]
    bare: bool  # a card typed alone: its place among the cards beside it is free


def _line_words(raw: Any, tokens: list[str]) -> list[_Word]:
    """The line's words, each the longest span of up to 3 tokens that reads as a move."""
    read = _game_attr(raw, "str_to_actions") or (lambda t: [raw.str_to_action(t)])
    words: list[_Word] = []
    i = 0
    while i < len(tokens):
        for j in range(min(len(tokens), i + 3), i, -1):
            span = " ".join(tokens[i:j])
            try:
                actions = read(span)
                break
            except ValueError:
                continue
        else:
            try:
                read(tokens[i])
            except ValueError as e:
                if _move_number(tokens[i]) and len(tokens) == 1:
                    raise ValueError(f"{e}; to pick move {tokens[i]} of the list, type #{tokens[i]}") from None
                raise
            raise AssertionError("unreachable")  # pragma: no cover
        verbs = {raw.action_to_str(a).split(" ", 1)[0].lower() for a in actions}
        words.append(_Word(span, tuple(dict.fromkeys(actions)), span.split(" ", 1)[0].lower() not in verbs))
        i = j
    _check_held(raw, words)
    return words


def _check_held(raw: Any, words: list[_Word]) -> None:
    """The cards a line lays or discards are in the hand of the seat to move, as often as
    typed (a wild card too: ``X=7h`` needs a joker, where the mask only knows of some wild
    card); ValueError saying which is not."""
    named = _game_attr(raw, "named_card")
    if named is None:
        return
    seat = raw.possible_agents.index(raw.agent_selection)
    held = Counter(raw.state_dict()["hands"][seat])
    typed = Counter(c for c in (named(w.text) for w in words) if c is not None)
    for card, n in typed.items():
        if n > held[card]:
            have = f"only {plural(held[card], card)}" if held[card] else f"no {card}"
            raise ValueError(f"you hold {have}" + (f", not {n}" if held[card] else ""))


class _TooManyReadings(Exception):
    pass


def read_card_line(raw: Any, text: str, legal: Sequence[int]) -> list[int]:
    """The moves a rummy line stands for (see above): the one reading the game allows, or
    a ValueError listing the readings left, or saying where the line stops being legal."""
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise ValueError("type a move: cards, a whole play, or #N from the list")
    words = _line_words(raw, tokens)
    starters = tuple(v.lower() for v in _game_attr(raw, "LINE_STARTERS") or ())
    finisher_text = _line_finisher(raw)
    finisher = raw.str_to_action(finisher_text) if finisher_text else None
    fallback = (_game_attr(raw, "BARE_CARD_FALLBACK") or "").lower()
    seat = raw.agent_selection
    # groups of words in order; the cards typed alone side by side form one group, in any order
    groups: list[list[int]] = []
    for k, w in enumerate(words):
        if w.bare and groups and words[groups[-1][0]].bare:
            groups[-1].append(k)
        else:
            groups.append([k])
    found: dict[tuple[int, ...], tuple[int, int, int]] = {}  # moves: (discards, moves added, words moved)
    deepest: tuple[int, list[int], list[int]] = (-1, [], [])  # words played, moves, words left
    half_built: list[int] = []  # a reading of every word that leaves a meld it began unfinished
    copies = 0

    def verb(a: int) -> str:
        return raw.action_to_str(a).split(" ", 1)[0].lower()

    def stepped(sim: Any, a: int) -> Any:
        nonlocal copies
        copies += 1
        if copies > MAX_READING_COPIES:
            raise _TooManyReadings
        nxt = sim.clone()
        nxt.step(a)
        return nxt

    def ours(sim: Any) -> bool:
        return sim.agent_selection == seat and not (sim.terminations[seat] or sim.truncations[seat])

    def prefixes(sim: Any) -> list[tuple[list[int], Any]]:
        """The moves the line may add before a word: none, a starter, or a finisher then a starter."""
        out: list[tuple[list[int], Any]] = [([], sim)]
        now = sim.legal_actions()
        for a in now:
            if verb(a) in starters:
                out.append(([a], stepped(sim, a)))
        if finisher is not None and finisher in now:
            closed = stepped(sim, finisher)
            out.append(([finisher], closed))
            if ours(closed):
                out += [([finisher, a], stepped(closed, a)) for a in closed.legal_actions() if verb(a) in starters]
        return out

    def finish(sim: Any, moves: list[int], cost: tuple[int, int, int], opened: bool) -> None:
        # a line that began laying closes its last meld where it may; one built a card a line is left open
        begun = any(verb(a) in starters for a in moves)
        if begun and ours(sim) and finisher is not None and finisher in sim.legal_actions():
            sim = stepped(sim, finisher)
            moves, cost, opened = [*moves, finisher], (cost[0], cost[1] + 1, cost[2]), False
        if opened and ours(sim) and not any(verb(a) in starters or verb(a) == fallback
                                            for a in sim.legal_actions()):
            half_built[:] = half_built or moves
            return  # a meld the line began is left half built
        key = tuple(moves)
        if key not in found or cost < found[key]:
            found[key] = cost

    def visit(sim: Any, g: int, left: list[int], moves: list[int], cost: tuple[int, int, int], opened: bool,
              played: int) -> None:
        nonlocal deepest
        if not left:
            if g == len(groups):
                finish(sim, moves, cost, opened)
                return
            left, g = groups[g], g + 1
        if played > deepest[0]:
            rest = [k for grp in groups[g:] for k in grp]
            deepest = (played, moves, [*left, *rest])
        if not ours(sim):
            return
        tried: set[str] = set()
        for k in left:
            word = words[k]
            if word.text in tried:  # the same card twice: one order is enough
                continue
            tried.add(word.text)
            rest = [x for x in left if x != k]
            moved = sum(x < k for x in left)  # words typed before this one, still to play
            for added, before in prefixes(sim):
                if not ours(before):
                    continue
                now = set(before.legal_actions())
                for a in word.actions:
                    if a not in now:
                        continue
                    spare = int(word.bare and verb(a) == fallback)
                    began = (opened or any(verb(x) in starters for x in added)) and a != finisher
                    visit(stepped(before, a), g, rest, [*moves, *added, a],
                          (cost[0] + spare, cost[1] + len(added), cost[2] + moved), began and verb(a) != fallback,
                          played + 1)

    try:
        visit(raw.clone(), 0, [], [], (0, 0, 0), False, 0)
    except _TooManyReadings:
        raise ValueError("that line can be read in too many ways to check; type it in shorter parts "
                         "(a meld at a time)") from None
    if not found and half_built:
        done = " ".join(raw.action_to_str(a) for a in half_built)
        raise ValueError(f"{quoted(text.strip())} leaves the meld it begins unfinished ({done}): type its cards "
                         "together, or the move that begins it first to build it a card at a time")
    if not found:
        played, moves, left = deepest
        if played <= 0:
            raise ValueError(f"{quoted(text.strip())} is not legal now; choose a listed move (#0 .. #{len(legal) - 1})")
        done = " ".join(raw.action_to_str(a) for a in moves)
        rest = " ".join(words[k].text for k in left)
        raise ValueError(f"{quoted(rest)} cannot be played after {done}")
    best = min(found.values())
    readings = [list(m) for m, c in found.items() if c == best]
    if len(readings) == 1:
        return readings[0]
    shown = " | ".join(", ".join(raw.action_to_str(a) for a in r) for r in readings[:READINGS_LISTED])
    more = f" and {len(readings) - READINGS_LISTED} more" if len(readings) > READINGS_LISTED else ""
    raise ValueError(f"{quoted(text.strip())} reads {len(readings)} ways: {shown}{more}; type the moves you mean")


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
        text: str | None
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
        except UnicodeDecodeError:  # bytes that are not UTF-8, where stdin reads them strictly
            text = None
        if text is None or unreadable(text):
            print("  cannot read that line (it is not UTF-8 text); type the move again", file=out)
            continue
        if text in ("q", "quit", "exit"):  # lower case only: "Q" is a queen
            raise QuitRequested
        if not text:
            continue
        try:
            return parse_human_line(raw, text, legal)
        except ValueError as e:
            print(f"  {e}", file=out)


# --------------------------------------------------------------------------- what the table hears
class TableTalk:
    """What a person at the table (``viewer``; None: an onlooker who sees every hand) is
    told: a seat's moves in a row as one line ("player_1 (heuristic): takes the discard,
    lays 5c 6c 7c and discards Qs"), said when another seat moves or a person is asked,
    with the events after it; and at a round's end who went out, the places or points,
    the scores and the table. ``each_move``: a line a move (``--render`` prints the table
    after each)."""

    def __init__(self, raw: Any, names: Sequence[str], viewer: int | None, out: TextIO,
                 each_move: bool = False) -> None:
        self.raw, self.names, self.viewer, self.out, self.each_move = raw, names, viewer, out, each_move
        self.game = raw.spec.name
        self.seat: int | None = None
        self.moves: list[str] = []
        self.events: list[str] = []
        self.forced = ""

    def flush(self, events: bool = True) -> None:
        """Say the moves gathered, in one line, and (``events``) their events."""
        if self.moves and self.seat is not None:
            line = narration.summary(self.game, self.moves)
            forced = self.forced if len(self.moves) == 1 else ""
            print(f"{self.raw.possible_agents[self.seat]} ({self.names[self.seat]}): {line}{forced}", file=self.out)
        if events:
            for line in self.events:
                print(f"  {line}", file=self.out)
            self.events = []
        self.seat, self.moves, self.forced = None, [], ""

    def moved(self, seat: int, action: int, before: dict, forced: bool, table_before: str) -> None:
        """Seat played ``action`` from the state ``before`` (with one legal move: ``forced``);
        ``table_before``: the table as the viewer saw it then (a round's last table)."""
        raw, viewer = self.raw, self.viewer
        if seat != self.seat:
            self.flush()
        self.seat = seat
        move = raw.action_to_str(action) if viewer in (None, seat) else raw.public_action_str(action)
        after = raw.state_dict()
        if not narration.quiet(self.game, before, seat, viewer, move, forced):
            self.moves.append(move + narration.move_note(self.game, before, seat, move))
            self.forced = narration.forced_note(seat, viewer, forced)
        self.events += narration.events(self.game, before, after, seat, viewer, move)
        if after["round"] != before["round"] or after.get("terminated", False):
            self.round_over(seat, before, after, table_before)
        elif self.each_move or not narration.grouped(self.game):
            self.flush()

    def round_over(self, seat: int, before: dict, after: dict, table_before: str) -> None:
        """A round ended with seat's move: who went out and the points or places, the
        scores, and the round's last table (at the match's end the final one; between
        rounds the next round is dealt at once, so the table before the last move); then
        the events of the move (a new round's exchange)."""
        self.flush(events=False)
        number = before["round"]
        if after.get("void_rounds", 0) > before.get("void_rounds", 0):
            print(f"-- round {number} void: nobody scores it; scores {after['scores']}", file=self.out)
        else:
            said = narration.round_end(self.game, before, after, seat, self.viewer)
            scores = [f"scores {after['scores']}"] if "scores" in after else []
            print(f"-- round {number} over: " + "; ".join([*said, *scores]), file=self.out)
            if after.get("terminated", False):
                if not self.each_move:  # --render prints the table after every move
                    print(self.raw.render_text(self.viewer), file=self.out)
            elif not self.each_move:
                print(f"the table before the round's last move:\n{table_before}", file=self.out)
        self.flush()


# --------------------------------------------------------------------------- one match
def _agent_action(raw: Any, agent: Agent, observation: np.ndarray, mask: np.ndarray) -> int:
    """The agent's move; one that reads the state (the search) gets a copy of the AEC env's
    one-game record too (it deals that copy anew from its seat's view: the env's own record
    is never changed)."""
    if agent.reads_state:
        return int(agent.act_states(raw._env_records(), observation[None], mask[None])[0])
    return int(agent.act(observation, mask))


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
    talk = TableTalk(raw, names, viewer, out, each_move=render)
    timer = turn_seconds(env, timer_seconds) if humans else 0.0
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
        agent = agents[seat]
        legal = raw.legal_actions()
        before = raw.state_dict() if narrate else None
        table_before = table_text(env, viewer) if narrate else ""
        hint = narration.phase_hint(game, before, seat) if agent.is_human else None
        if agent.is_human and not (pending and pending_seat == seat and pending[0] in legal) and len(legal) > 1:
            talk.flush()  # what happened since this person last chose, before they choose
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
                talk.flush()
                print(f"{name} (you): time is up ({timer:g} s a turn): {raw.action_to_str(action)} played for you",
                      file=out)
            else:
                action, pending, pending_seat = plan[0], plan[1:], seat
        elif agent.is_human:
            action, *pending = ask_human(env, seat, input_fn, out, hint=hint)
            pending_seat = seat
        else:
            turn_key = None
            action = _agent_action(raw, agent, obs["observation"], obs["action_mask"].astype(np.bool_))
        env.step(action)
        if narrate:
            talk.moved(seat, action, before, len(legal) == 1, table_before)
        if render:
            print(table_text(env, viewer) + "\n", file=out)
            if pause is not None and not agent.is_human:
                pause()
    scores = final_info.get("scores")
    result = MatchResult(returns, list(scores) if scores is not None else None, win_shares([returns])[0].tolist(), cut)
    talk.flush()
    if narrate and cut:
        print(f"match cut short (max_steps): no winner; scores {scores}", file=out)
    elif narrate:
        winners = [f"{raw.possible_agents[s]} ({names[s]})" for s, x in enumerate(result.shares) if x > 0]
        print(
            f"match over: winner {' and '.join(winners)}; scores {scores}; rewards {[round(r, 3) for r in returns]}",
            file=out,
        )
    return result
