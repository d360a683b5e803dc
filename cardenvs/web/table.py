"""One match in the browser: a person's seat and the agents in the others, stepped on the
AEC env by the server, with the table's events narrated as the terminal narrates them.

Nothing here decides a rule: the legal moves, their strings, the reading of a typed line
and the narration all come from the env and the game's modules. A ``Table`` needs no web
library, so it is tested without a server.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardenvs.agents import Agent, make_agent
from cardenvs.core import narration
from cardenvs.core.outcome import win_shares
from cardenvs.core.protocol import GameSpec
from cardenvs.envs import make

# reads a typed line into the moves it stands for, each legal in turn (ValueError explains):
# the terminal's reader, handed in by the command that starts the server
LineReader = Callable[[Any, str, Sequence[int]], list[int]]


@dataclass
class Event:
    """A line of the table's story: a seat's moves in a row (``move``), what came with
    them (``event``), the end of a round (``round``, with the round's last table as the
    person saw it: the final table for the match's last round), the end of the match
    (``match``), or a remark (``note``)."""

    kind: str
    text: str
    svg: str | None = None


@dataclass
class Outcome:
    winners: list[int]
    scores: list[float] | None
    returns: list[float]
    truncated: bool


@dataclass
class Table:
    """A match between a person at ``seat`` and ``agents`` in the other seats (``names[s]``
    says what plays seat s). Build it with :func:`open_table`; :meth:`play` takes the
    person's line and plays on until it is their turn again or the match is over."""

    spec: GameSpec
    env: Any
    seat: int
    agents: list[Agent]
    names: list[str]
    seed: int
    read_line: LineReader
    events: list[Event] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    outcome: Outcome | None = None
    moves_played: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    _pending: list[int] = field(default_factory=list)  # the rest of a whole play the person sent
    _last_info: dict = field(default_factory=dict)
    _waiting: bool = False  # env.last() read for the seat to move, who is the person
    # what the table hears, gathered as the terminal gathers it: a seat's moves in a row are
    # said in one line when another seat moves, the person is asked, or a round ends
    _talk_seat: int | None = None
    _talk_moves: list[str] = field(default_factory=list)
    _talk_events: list[str] = field(default_factory=list)
    _talk_forced: str = ""
    _obs: Any = None  # that observation (read once: env.last() adds the reward it returns)

    @property
    def raw(self) -> Any:
        return self.env.unwrapped

    @property
    def over(self) -> bool:
        return self.outcome is not None

    @property
    def your_turn(self) -> bool:
        return self._waiting and not self.over

    def legal_moves(self) -> list[int]:
        """The person's legal moves now (none when it is not their turn)."""
        return self.raw.legal_actions() if self.your_turn else []

    def hint(self) -> str | None:
        """What the decision is, where it is not plain (the game's narration)."""
        if not self.your_turn:
            return None
        return narration.phase_hint(self.spec.name, self.raw.state_dict(), self.seat)

    # ------------------------------------------------------------------ the person's move
    def play(self, line: str) -> list[str]:
        """Read ``line`` as the terminal does (one move, a whole play, or ``#N`` of the legal
        moves) and play it, then the other seats until the person's next turn. ValueError
        (the reader's message) leaves the table as it was. Returns the moves played for the
        person."""
        if not isinstance(line, str):
            raise TypeError(f"a move is a line of text, got {type(line).__name__}")
        if self.over:
            raise ValueError("the match is over; start a new one")
        if not self.your_turn:
            raise ValueError("it is not your turn")
        text = line.strip()
        if not text:
            raise ValueError("the move is empty: click cards or a move, or type one")
        legal = self.raw.legal_actions()
        plan = self.read_line(self.raw, text, legal)  # checked on a copy: nothing changes on a ValueError
        if not plan or plan[0] not in legal:  # the reader's own check, made again here
            raise ValueError(f"{text!r} is not a legal move now")
        played = [self.raw.action_to_str(a) for a in plan]
        self._pending = list(plan)
        self._run()
        return played

    # ------------------------------------------------------------------ the loop
    def _run(self) -> None:
        """Step the env until the person must choose or the match ends: the agents' moves,
        the rest of the person's whole play, and the seats' end-of-match steps."""
        env, raw = self.env, self.raw
        while env.agents:
            name = env.agent_selection
            seat = raw.possible_agents.index(name)
            if not self._waiting:
                obs, reward, terminated, truncated, info = env.last()
                self.returns[seat] += float(reward)
                self._last_info = info
                if terminated or truncated:
                    env.step(None)
                    continue
                self._obs = obs
            self._waiting = False
            legal = raw.legal_actions()
            if seat == self.seat:
                if self._pending and self._pending[0] in legal:
                    self._step(self._pending.pop(0), seat, len(legal) == 1)
                    continue
                self._pending = []
                if len(legal) == 1:  # nothing to choose: played for the person, as in the terminal
                    self._step(legal[0], seat, True)
                    continue
                self._flush()  # what happened since the person last chose, before they choose
                self._waiting = True
                return
            agent = self.agents[seat]
            obs = self._obs
            mask = obs["action_mask"].astype(np.bool_)
            if agent.reads_state:
                action = int(agent.act_states(raw._env_records(), obs["observation"][None], mask[None])[0])
            else:
                action = int(agent.act(obs["observation"], mask))
            self._step(action, seat, len(legal) == 1)
        self._finish()

    def _step(self, action: int, seat: int, forced: bool) -> None:
        """Play ``action`` for ``seat`` and gather what the person is told of it."""
        raw, game, viewer = self.raw, self.spec.name, self.seat
        before = raw.state_dict()
        record_before = raw.state_record()  # the round's last table, if this move ends the round
        self.env.step(action)
        self.moves_played += 1
        if seat != self._talk_seat:
            self._flush()
        self._talk_seat = seat
        move = raw.action_to_str(action) if seat == viewer else raw.public_action_str(action)
        after = raw.state_dict()
        if not narration.quiet(game, before, seat, viewer, move, forced):
            self._talk_moves.append(move + narration.move_note(game, before, seat, move))
            self._talk_forced = narration.forced_note(seat, viewer, forced)
        self._talk_events += narration.events(game, before, after, seat, viewer, move)
        if after["round"] != before["round"] or after.get("terminated", False):
            self._round_over(seat, before, after, record_before)
        elif not narration.grouped(game):
            self._flush()

    def _flush(self, events: bool = True) -> None:
        """Say the moves gathered in one line (the game's summary of them) and their events."""
        if self._talk_moves and self._talk_seat is not None:
            line = narration.summary(self.spec.name, self._talk_moves)
            forced = self._talk_forced if len(self._talk_moves) == 1 else ""
            who = f"{self.raw.possible_agents[self._talk_seat]} ({self.names[self._talk_seat]})"
            self._say("move", f"{who}: {line}{forced}")
        if events:
            for line in self._talk_events:
                self._say("event", line)
            self._talk_events = []
        self._talk_seat, self._talk_moves, self._talk_forced = None, [], ""

    def _round_over(self, seat: int, before: dict, after: dict, record_before: np.ndarray) -> None:
        """A round ended with seat's move: who went out, the places or points, the scores,
        and the round's last table (the final one at the match's end; between rounds the
        next round is dealt at once, so the table before the last move)."""
        from cardenvs.core.picture import table_svg

        self._flush(events=False)
        number = before["round"]
        scores = _numbers(after["scores"]) if "scores" in after else None
        if after.get("void_rounds", 0) > before.get("void_rounds", 0):
            text = f"round {number} void: nobody scores it; scores {scores}"
        else:
            said = narration.round_end(self.spec.name, before, after, seat, self.seat)
            text = f"round {number} over: " + "; ".join([*said, *([f"scores {scores}"] if scores else [])])
        final = after.get("terminated", False)
        record = self.raw.state_record() if final else record_before
        self._say("round", text, table_svg(self.spec, record[0], self.seat))
        self._flush()

    def _finish(self) -> None:
        info = self._last_info
        scores = info.get("scores")
        truncated = bool(self.raw.state_dict().get("truncated")) and not bool(self.raw.state_dict().get("terminated"))
        shares = win_shares([self.returns])[0]
        winners = [s for s, x in enumerate(shares) if x > 0]
        self.outcome = Outcome(winners, _numbers(scores) if scores is not None else None,
                               [round(r, 6) for r in self.returns], truncated)
        if truncated:
            self._say("match", f"match cut short (max_steps): no winner; scores {self.outcome.scores}")
            return
        self._flush()
        names = [f"{self.raw.possible_agents[s]} ({self.names[s]})" for s in winners]
        self._say("match", f"match over: winner {' and '.join(names)}; scores {self.outcome.scores}")

    def _say(self, kind: str, text: str, svg: str | None = None) -> None:
        self.events.append(Event(kind, text, svg))


def _numbers(values: Any) -> list[float]:
    """Scores as plain numbers (ints where whole) for JSON."""
    out = []
    for v in np.asarray(values).tolist():
        out.append(int(v) if float(v).is_integer() else float(v))
    return out


def open_table(spec: GameSpec, options: dict[str, Any], seat: int, opponents: Sequence[str], seed: int,
               read_line: LineReader, labels: Sequence[str] | None = None) -> Table:
    """A new match: the person at ``seat``, ``opponents[k]`` (an agent name for
    ``make_agent``) in the k-th other seat, shown as ``labels[k]`` (default: the name),
    dealt from ``seed``; the agents play up to the person's first turn. Seat k's agent
    gets the seed ``cardenvs play`` gives it. ValueError/TypeError name a bad value."""
    env = make(spec.env_id, **options)
    players = env.unwrapped.num_players
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players:
        raise ValueError(f"seat must be one of 0 .. {players - 1}, got {seat!r}")
    if len(opponents) != players - 1:
        raise ValueError(f"{players} players need {players - 1} agents for the other seats, got {len(opponents)}")
    labels = list(opponents if labels is None else labels)
    kinds = list(opponents[:seat]) + ["human"] + list(opponents[seat:])
    names = labels[:seat] + ["you"] + labels[seat:]
    agents: list[Agent] = []
    notes: list[str] = []
    for k, kind in enumerate(kinds):
        agent_seed = int(np.random.SeedSequence([seed, k]).generate_state(1)[0])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            agents.append(make_agent(kind, spec, seed=agent_seed, options=options))
        notes += [f"{names[k]} in seat {k}: {w.message}" for w in caught]
    env.reset(seed=seed)
    for agent in agents:
        agent.reset()
    table = Table(spec, env, seat, agents, names, seed, read_line, returns=[0.0] * players)
    for note in notes:
        table._say("note", note)
    table._run()
    return table


# --------------------------------------------------------------------------- what the page shows
def table_picture(table: Table) -> dict[str, str]:
    """The table from the person's seat: ``{"svg": ...}``, the package's drawing."""
    from cardenvs.core.picture import table_svg

    return {"svg": table_svg(table.spec, table.raw.state_record()[0], table.seat)}


def view(table: Table, since: int = 0) -> dict[str, Any]:
    """What the page shows a person, as JSON: only what their seat may see (their own hand,
    the public table, the events narrated for them). The events' tables (a round's last)
    come for the events from index ``since`` on: the page keeps those it has."""
    raw = table.raw
    hand = [str(c) for c in raw.state_dict()["hands"][table.seat]]
    held = set(hand)
    moves = []
    for a in table.legal_moves():
        text = raw.action_to_str(a)
        # a move naming a card of the hand is made by clicking the card; the rest are buttons
        moves.append({"text": text, "cards": any(word in held for word in text.split())})
    outcome = table.outcome
    return {
        "game": table.spec.name,
        "env_id": table.spec.env_id,
        "title": table.spec.title,
        "seat": table.seat,
        "seats": [{"name": raw.possible_agents[s], "plays": table.names[s]} for s in range(len(table.names))],
        "picture": table_picture(table),
        "hand": hand,
        "your_turn": table.your_turn,
        "moves_played": table.moves_played,  # every seat's: a move request sends it back as "expect"
        "moves": moves,
        "hint": table.hint(),
        "events": [{"kind": e.kind, "text": e.text, **({"svg": e.svg} if e.svg and k >= since else {})}
                   for k, e in enumerate(table.events)],
        "over": outcome is not None,
        "outcome": None if outcome is None else {
            "winners": outcome.winners, "scores": outcome.scores, "returns": outcome.returns,
            "truncated": outcome.truncated, "you_won": table.seat in outcome.winners and not outcome.truncated,
        },
    }
