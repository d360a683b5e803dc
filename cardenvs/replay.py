"""Saved matches: a match's record as a JSON file, checked on load, and played again.

A :class:`MatchRecord` comes from an env (``env.unwrapped.match_record()``,
``venv.match_record(i)``, ``venv.finished_matches()``) or from :func:`load_match`.
:func:`replay` plays it again on a fresh env, move by move, from the state the match
started in (which holds the random stream: the replay is exact, seed or not), and checks
each action against the legal ones. :func:`replay_html` writes a page that replays it in
a browser, without a server. The file format is described in ``docs/envs.md``.

Everything in a file is checked before it is used, and a bad file raises ValueError
naming what is wrong. A file never names a path or an address that anything here opens.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import math
import os
import re
import secrets
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cardenvs.games  # noqa: F401  (registers every game)
from cardenvs.core.aec import CardGameEnv
from cardenvs.core.match_record import (
    FORMAT_NAME,
    FORMAT_VERSION,
    RESULT_TOLERANCE,
    MatchRecord,
    match_result,
    package_version,
    places_of,
)
from cardenvs.core.protocol import GameSpec, check_options
from cardenvs.core.registry import GAMES, list_games
from cardenvs.core.rng import check_seed

__all__ = ["MatchRecord", "ReplayStep", "FORMAT_NAME", "FORMAT_VERSION", "save_match", "load_match",
           "parse_match", "match_to_json", "check_record", "replay", "replay_html"]

MAX_FILE_BYTES = 64 * 2**20  # far above any match (a long Rami 51 match is a few hundred kB)
MAX_ACTIONS = 1_000_000
MAX_NAME = 200  # an agent's name, as the CLI prints it
# a replay page draws every step from every seat (about 1 ms a picture): a few minutes at most
MAX_PAGE_STEPS = 20_000
REQUIRED_KEYS = ("format", "format_version", "cardenvs_version", "env_id", "options", "num_players", "start",
                 "actions")
OPTIONAL_KEYS = ("seed", "auto_play_forced", "agents", "result")
RESULT_KEYS = ("returns", "scores", "places", "truncated")


# --------------------------------------------------------------------------- checks
def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _game_of(env_id: Any, saved_by: str) -> GameSpec:
    """The registered game of ``env_id``; a game this package plays at another version, or
    does not know, is refused saying which version saved the file and which one is here."""
    if not isinstance(env_id, str):
        raise ValueError(f"env_id must be a string such as 'president_v0', got {env_id!r}")
    if env_id in GAMES:
        return GAMES[env_id]
    name = re.sub(r"_v\d+$", "", env_id)
    for spec in list_games():
        if name == spec.name or env_id in spec.earlier_versions:
            raise ValueError(f"this match was saved by {env_id} (cardenvs {saved_by}); this package plays "
                             f"{spec.env_id}, whose rules or moves differ, so it cannot replay it: open it with "
                             f"the cardenvs version that saved it")
    known = ", ".join(sorted(GAMES))
    raise ValueError(f"this match is of a game this package does not know, {env_id!r} (saved by cardenvs "
                     f"{saved_by}); it plays {known}")


def check_record(data: Any) -> MatchRecord:
    """A :class:`MatchRecord` from a dict as :func:`match_to_json` writes it (or a record),
    every field checked: types, ranges, the format and its version, the game and its
    version, the options, the seats. The moves themselves are checked by :func:`replay`
    (which :func:`load_match` and :func:`parse_match` run). ValueError naming the field."""
    if isinstance(data, MatchRecord):
        data = asdict(data)
    if not isinstance(data, dict):
        raise ValueError(f"a match file holds a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT_NAME:
        raise ValueError(f"not a cardenvs match: 'format' must be {FORMAT_NAME!r}, got {data.get('format')!r}")
    version = data.get("format_version")
    if not _is_int(version) or version < 1:
        raise ValueError(f"format_version must be a whole number >= 1, got {version!r}")
    saved_by = data.get("cardenvs_version")
    if not isinstance(saved_by, str) or not 0 < len(saved_by) <= 64:
        raise ValueError(f"cardenvs_version must be a version string, got {saved_by!r}")
    if version > FORMAT_VERSION:
        raise ValueError(f"this match file is of format version {version}, saved by cardenvs {saved_by}; this "
                         f"package (cardenvs {package_version()}) reads version {FORMAT_VERSION}: upgrade cardenvs")
    missing = [k for k in REQUIRED_KEYS if k not in data]
    if missing:
        raise ValueError(f"the match file misses {', '.join(missing)}")
    unknown = sorted(str(k) for k in data if k not in REQUIRED_KEYS + OPTIONAL_KEYS)
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(unknown)} in the match file")
    spec = _game_of(data["env_id"], saved_by)
    options = data["options"]
    if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
        raise ValueError(f"options must be an object of the game's options, got {options!r}")
    try:
        options = check_options(spec.name, spec.module, options)
        template = spec.module.make_template(**options)
    except (ValueError, TypeError) as e:
        raise ValueError(f"options: {e}") from None
    players = data["num_players"]
    if not _is_int(players) or players != int(template["num_players"][0]):
        raise ValueError(f"num_players must be the options' number of players, {int(template['num_players'][0])}, "
                         f"got {players!r}")
    seed = data.get("seed")
    if seed is not None:
        if not _is_int(seed):
            raise ValueError(f"seed must be a whole number or null, got {seed!r}")
        try:
            check_seed(seed)
        except (ValueError, TypeError) as e:
            raise ValueError(f"seed: {e}") from None
    forced = data.get("auto_play_forced", False)
    if not isinstance(forced, bool):
        raise ValueError(f"auto_play_forced must be true or false, got {forced!r}")
    start = data["start"]
    if not isinstance(start, dict):
        raise ValueError(f"start must be a state as state_dict() writes it, got {type(start).__name__}")
    if start.get("game") != spec.name:
        raise ValueError(f"start is a state of {start.get('game')!r}, not of {spec.name!r}")
    absent = [f.name for f in spec.module.STATE_FIELDS if f.name not in start]
    if absent:  # a partial state would be completed at random: the replay would not be the match
        raise ValueError(f"start must be a whole state (state_dict()); it misses {', '.join(absent)}")
    actions = data["actions"]
    if not isinstance(actions, list) or len(actions) > MAX_ACTIONS:
        raise ValueError(f"actions must be a list of at most {MAX_ACTIONS:,} action numbers")
    n_actions = spec.module.NUM_ACTIONS
    for k, a in enumerate(actions):
        if not _is_int(a) or not 0 <= a < n_actions:
            raise ValueError(f"actions[{k}] must be an action number 0..{n_actions - 1}, got {a!r}")
    agents = data.get("agents")
    if agents is not None:
        if (not isinstance(agents, list) or len(agents) != players
                or not all(isinstance(n, str) and 0 < len(n) <= MAX_NAME and n.isprintable() for n in agents)):
            raise ValueError(f"agents must be null or {players} names (one a seat), got {agents!r}")
    result = data.get("result")
    if result is not None:
        _check_result(result, players)
    return MatchRecord(
        env_id=spec.env_id, options=options, num_players=players, start=start, actions=list(actions), seed=seed,
        auto_play_forced=forced, agents=None if agents is None else list(agents),
        result=None if result is None else dict(result), cardenvs_version=saved_by, format=FORMAT_NAME,
        format_version=version,
    )


def _check_result(result: Any, players: int) -> None:
    if not isinstance(result, dict) or sorted(result) != sorted(RESULT_KEYS):
        raise ValueError(f"result must be null or an object with {', '.join(RESULT_KEYS)}, got {result!r}")
    returns, scores, places = result["returns"], result["scores"], result["places"]
    if not isinstance(returns, list) or len(returns) != players or not all(_is_number(x) for x in returns):
        raise ValueError(f"result.returns must be {players} numbers, got {returns!r}")
    if scores is not None and (not isinstance(scores, list) or len(scores) != players
                               or not all(_is_number(x) for x in scores)):
        raise ValueError(f"result.scores must be null or {players} numbers, got {scores!r}")
    if not isinstance(places, list) or places != places_of(returns):
        raise ValueError(f"result.places must be the places of the returns, {places_of(returns)}, got {places!r}")
    if not isinstance(result["truncated"], bool):
        raise ValueError(f"result.truncated must be true or false, got {result['truncated']!r}")


# --------------------------------------------------------------------------- files
def match_to_json(record: MatchRecord) -> str:
    """The record as the text of a match file (checked first: ValueError for a bad one):
    one field a line, each value compact."""
    record = check_record(record)
    data = asdict(record)
    order = ["format", "format_version", "cardenvs_version", *REQUIRED_KEYS[3:], *OPTIONAL_KEYS]
    lines = [f"  {json.dumps(k)}: {json.dumps(data[k], separators=(', ', ': '), allow_nan=False)}" for k in order]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def save_match(record: MatchRecord, path: str | os.PathLike) -> None:
    """Write the record to ``path`` as JSON (a whole file or none: written aside, then
    moved in place). The record is checked first (ValueError)."""
    text = match_to_json(record)
    path = Path(path)
    # beside the target, so that the move is atomic; made with open(), so the umask sets its mode as for any file
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "x", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON may hold")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"the field {k!r} is given twice")
        out[k] = v
    return out


def strict_loads(text: str | bytes) -> Any:
    """JSON read as a match file is read: a key given twice, or NaN or Infinity, is a
    ValueError naming it (other errors as ``json.loads`` raises them)."""
    return json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_no_duplicates)


def parse_match(text: str | bytes) -> MatchRecord:
    """A match file's text as a record: the JSON, every field (:func:`check_record`),
    every move and the result (played again, :func:`replay`) checked. ValueError saying
    what is wrong."""
    if isinstance(text, bytes):
        if len(text) > MAX_FILE_BYTES:
            raise ValueError(f"a match file is at most {MAX_FILE_BYTES // 2**20} MiB; this one has {len(text):,} bytes")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"a match file is UTF-8 text: {e}") from None
    if not isinstance(text, str):
        raise TypeError(f"a match file's text is a str or bytes, got {type(text).__name__}")
    if len(text) > MAX_FILE_BYTES:
        raise ValueError(f"a match file is at most {MAX_FILE_BYTES // 2**20} MiB")
    try:
        data = strict_loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"not JSON: {e}") from None
    except RecursionError:
        raise ValueError("not a match file: JSON nested too deep") from None
    record = check_record(data)
    for _ in replay(record):  # every move legal, from a start that loads
        pass
    return record


def load_match(path: str | os.PathLike) -> MatchRecord:
    """Read and check a match file (:func:`parse_match`); ValueError naming the file and
    what is wrong with it (OSError if it cannot be read)."""
    path = Path(path)
    with open(path, "rb") as f:
        raw = f.read(MAX_FILE_BYTES + 1)
    try:
        return parse_match(raw)
    except ValueError as e:
        raise ValueError(f"{path.name}: {e}") from None


# --------------------------------------------------------------------------- replay
@dataclass
class ReplayStep:
    """One position of a replay: step 0 is the start, step k the position after the k-th
    move. ``env`` is the replaying env at that position (the same object at every step:
    copy what you keep, e.g. ``env.state_dict()``); ``seat``, ``action``, ``move`` (the
    action's text), ``public_move`` (as the other seats saw it) and ``forced`` (played by
    the env: the player had a single legal action) describe the move that led here, None
    at step 0. ``action_index`` is the move's place in the record's ``actions`` (None for
    a forced move the env played)."""

    index: int
    env: CardGameEnv
    seat: int | None = None
    action: int | None = None
    move: str | None = None
    public_move: str | None = None
    forced: bool = False
    action_index: int | None = None

    def move_seen_by(self, viewer: int | None) -> str | None:
        """The move as seat ``viewer`` saw it (None: an onlooker, who sees every card)."""
        return self.move if viewer is None or viewer == self.seat else self.public_move


def _over(env: CardGameEnv) -> bool:
    agent = env.agent_selection
    return bool(env.terminations[agent] or env.truncations[agent])


def replay(record: MatchRecord) -> Iterator[ReplayStep]:
    """Play the record again on a fresh env, yielding each position from the start. The
    start is loaded with ``reset(options={"scenario": start})``; each action is checked
    against the legal ones first (ValueError naming the step and the action). A record
    made with ``auto_play_forced`` has its forced moves played again between its actions,
    as steps of their own (``forced=True``). Once every move is played, the record's
    ``result`` is checked against the replay (ValueError when they differ)."""
    record = check_record(record)
    spec = GAMES[record.env_id]
    env = CardGameEnv(spec, **record.options)
    try:
        env.reset(options={"scenario": record.start})
    except (ValueError, TypeError, KeyError, IndexError, OverflowError) as e:
        raise ValueError(f"start: {e}") from None
    step = 0
    returns = [0.0] * record.num_players  # each seat's rewards over the replay, to check the saved result

    def add_rewards() -> None:
        for s, agent in enumerate(env.possible_agents):
            returns[s] += env.rewards.get(agent, 0.0)

    yield ReplayStep(0, env)

    def moved(seat: int, a: int, forced: bool, k: int | None) -> ReplayStep:
        return ReplayStep(step, env, seat, a, env.action_to_str(a), env.public_action_str(a), forced, k)

    for k, a in enumerate(record.actions):
        if _over(env):
            raise ValueError(f"actions[{k}] = {a}: the match is over at step {step}, "
                             f"{len(record.actions) - k} action(s) too many")
        seat = env.possible_agents.index(env.agent_selection)
        legal = env.legal_actions()
        if a not in legal:
            shown = ", ".join(f"{x} {env.action_to_str(x)!r}" for x in legal[:12])
            raise ValueError(f"actions[{k}] = {a} ({env.action_to_str(a)!r}) at step {step + 1} is not legal for "
                             f"player_{seat}; legal there: {shown}{' ...' if len(legal) > 12 else ''}")
        env.step(a)
        step += 1
        add_rewards()
        yield moved(seat, a, False, k)
        while record.auto_play_forced and not _over(env) and len(env.legal_actions()) == 1:
            seat = env.possible_agents.index(env.agent_selection)
            forced = env.legal_actions()[0]
            env.step(forced)
            step += 1
            add_rewards()
            yield moved(seat, forced, True, None)
    _check_result_replayed(record, env, returns, step)


def _check_result_replayed(record: MatchRecord, env: CardGameEnv, returns: list[float], steps: int) -> None:
    """The record's ``result`` is what its moves led to: null exactly while the match is
    not over (or when it was over before any move), else the same returns, places,
    truncation and, where given, scores as the replay's final state (ValueError naming
    the field that differs)."""
    claimed = record.result
    mismatch = "the file's result does not match its moves"
    if not _over(env):
        if claimed is not None:
            raise ValueError(f"{mismatch}: the match is not over after its {steps} step(s), so result must be null")
        return
    if claimed is None:
        if steps:  # a match loaded already over, with no move, has no result to give
            raise ValueError(f"{mismatch}: the match is over after step {steps}, so result must be given, not null")
        return
    truncated = bool(env.truncations[env.agent_selection])
    actual = match_result(GAMES[record.env_id], env.state_record()[0], returns, truncated)
    if claimed["truncated"] != actual["truncated"]:
        raise ValueError(f"{mismatch}: truncated is {claimed['truncated']}, the moves give {actual['truncated']}")
    if not _close(claimed["returns"], actual["returns"]):
        raise ValueError(f"{mismatch}: returns {claimed['returns']}, the moves give {actual['returns']}")
    # a record whose game restarted in the step that ended it (a vector env's auto-reset) has no scores
    if claimed["scores"] is not None and (actual["scores"] is None
                                          or not _close(claimed["scores"], actual["scores"])):
        raise ValueError(f"{mismatch}: scores {claimed['scores']}, the game's scores at the end are "
                         f"{actual['scores']}")
    if claimed["places"] != actual["places"]:
        raise ValueError(f"{mismatch}: places {claimed['places']}, the moves give {actual['places']}")


def _close(claimed: list[float], actual: list[float]) -> bool:
    """Equal within the tolerance of the saved floats (relative for large values)."""
    return len(claimed) == len(actual) and all(
        abs(c - a) <= RESULT_TOLERANCE * max(1.0, abs(a)) for c, a in zip(claimed, actual, strict=True))


# --------------------------------------------------------------------------- the replay page
def replay_frames(record: MatchRecord) -> dict[str, Any]:
    """What the replay page shows, as JSON-able data: the moves, and each view's picture
    at each step (``cardenvs.core.picture.table_svg``). The pictures are kept small: every
    distinct SVG line once (``lines``), a picture as the list of its lines' numbers
    (``frames``, each distinct picture once), and for each view the picture of each step
    (``views[v]["frames"]``). View 0 is everyone's, view s + 1 seat s's."""
    from cardenvs.core.picture import table_svg

    record = check_record(record)
    spec = GAMES[record.env_id]
    viewers: list[int | None] = [None, *range(record.num_players)]
    line_ids: dict[str, int] = {}
    frame_ids: dict[tuple[int, ...], int] = {}
    frames: list[list[int]] = []
    per_view: list[list[int]] = [[] for _ in viewers]
    moves: list[dict[str, Any]] = []
    records = []
    for st in replay(record):
        if st.index > MAX_PAGE_STEPS:
            raise ValueError(f"this match has more than {MAX_PAGE_STEPS:,} steps, too many for a replay page; "
                             f"`cardenvs replay FILE --step K` shows any step in the terminal")
        records.append(st.env.state_record()[0])  # a copy
        if st.index:
            moves.append({"seat": st.seat, "move": st.move, "public": st.public_move, "forced": st.forced})
    # drawn once the whole record has replayed: a result its moves do not give is refused
    # (at the replay's end) before seconds of drawing
    for rec in records:
        for v, viewer in enumerate(viewers):
            svg = table_svg(spec, rec, viewer)
            key = tuple(line_ids.setdefault(line, len(line_ids)) for line in svg.split("\n"))
            if key not in frame_ids:
                frame_ids[key] = len(frames)
                frames.append(list(key))
            per_view[v].append(frame_ids[key])
    agents = record.agents or [""] * record.num_players
    views = [{"label": "everyone", "seat": None, "frames": per_view[0]}]
    views += [{"label": f"player_{s}" + (f" ({agents[s]})" if agents[s] else ""), "seat": s,
               "frames": per_view[s + 1]} for s in range(record.num_players)]
    return {"title": f"{spec.title} ({spec.env_id})", "env_id": spec.env_id, "num_players": record.num_players,
            "seats": [f"player_{s}" + (f" ({agents[s]})" if agents[s] else "") for s in range(record.num_players)],
            "seed": record.seed, "result": record.result, "saved_by": record.cardenvs_version,
            "lines": list(line_ids), "frames": frames, "views": views, "moves": moves}


def pack_frames(data: dict[str, Any]) -> str:
    """The page's data as gzip-compressed JSON in base64 (the page unpacks it with the
    browser's DecompressionStream)."""
    raw = json.dumps(data, separators=(",", ":"), allow_nan=False).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def unpack_frames(packed: str) -> dict[str, Any]:
    """The inverse of :func:`pack_frames` (for tests and tools)."""
    return json.loads(gzip.decompress(base64.b64decode(packed)).decode("utf-8"))


def frame_svg(data: dict[str, Any], view: int, step: int) -> str:
    """The SVG the page shows for ``view`` at ``step``, rebuilt from the page's data."""
    frame = data["frames"][data["views"][view]["frames"][step]]
    return "\n".join(data["lines"][i] for i in frame)


def replay_html(record: MatchRecord) -> str:
    """A self-contained page that replays the match in any browser, with no server and
    nothing fetched: a step slider, play and pause, the view of each seat or of everyone,
    and each move's text. The tables are the package's own drawing
    (``cardenvs.core.picture.table_svg``), made here for every step and view and embedded
    compressed. The record is checked first (ValueError)."""
    data = replay_frames(record)
    title = html.escape(f"Replay: {data['title']}")
    packed = pack_frames(data)
    return (_PAGE.replace("__TITLE__", title).replace("__VERSION__", html.escape(package_version()))
            .replace("__DATA__", packed))


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="cardenvs __VERSION__">
<title>__TITLE__</title>
<style>
body { margin: 0; font-family: system-ui, sans-serif; background: #10291d; color: #f4f1e8; }
header, #controls, #info { padding: 6px 12px; }
h1 { font-size: 1.1em; margin: 4px 0; }
#controls { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
#controls input[type=range] { flex: 1; min-width: 200px; }
button, select { font-size: 1em; }
main { display: flex; flex-wrap: wrap; gap: 12px; padding: 0 12px 12px; }
#table { flex: 3; min-width: 320px; max-width: 960px; }
#table svg { width: 100%; height: auto; display: block; }
#moves { position: relative; flex: 1; min-width: 220px; max-height: 640px; overflow-y: auto; margin: 0;
         padding-left: 3.5em; background: #175638; font-family: ui-monospace, monospace; font-size: 0.9em; }
#moves li { cursor: pointer; padding: 1px 4px; }
#moves li.current { background: #ffd166; color: #1b1b1b; }
#moves li.forced { opacity: 0.7; }
#info { font-family: ui-monospace, monospace; }
</style>
</head>
<body>
<header><h1 id="title">__TITLE__</h1><div id="meta"></div></header>
<div id="controls">
  <button id="first" title="first step (Home)">|&#x25C0;</button>
  <button id="prev" title="previous step (Left)">&#x25C0;</button>
  <button id="play" title="play or pause (Space)">play</button>
  <button id="next" title="next step (Right)">&#x25B6;</button>
  <button id="last" title="last step (End)">&#x25B6;|</button>
  <input id="slider" type="range" min="0" max="0" value="0" aria-label="step">
  <label>view <select id="view"></select></label>
  <label>speed <select id="speed">
    <option value="1500">slow</option><option value="700" selected>normal</option><option value="250">fast</option>
  </select></label>
</div>
<div id="info">loading...</div>
<main><div id="table"></div><ol id="moves" start="1"></ol></main>
<script id="match-data" type="application/octet-stream">__DATA__</script>
<script>
"use strict";
(async function () {
  const info = document.getElementById("info");
  if (typeof DecompressionStream === "undefined") {
    info.textContent = "This browser cannot unpack the replay (it has no DecompressionStream).";
    return;
  }
  const b64 = document.getElementById("match-data").textContent.trim();
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const data = JSON.parse(await new Response(stream).text());
  const slider = document.getElementById("slider");
  const viewSel = document.getElementById("view");
  const table = document.getElementById("table");
  const list = document.getElementById("moves");
  const playBtn = document.getElementById("play");
  const steps = data.views[0].frames.length;
  let step = 0, view = 0, timer = null;
  const meta = [data.num_players + " players: " + data.seats.join(", ")];
  if (data.seed !== null) meta.push("seed " + data.seed);
  meta.push("saved by cardenvs " + data.saved_by);
  if (data.result) meta.push("final returns " + data.result.returns.map((r) => r.toFixed(2)).join(", "));
  document.getElementById("meta").textContent = meta.join(" | ");
  data.views.forEach((v, i) => {
    const o = document.createElement("option");
    o.value = String(i);
    o.textContent = v.label;
    viewSel.appendChild(o);
  });
  slider.max = String(steps - 1);
  function moveText(m) {
    const seat = data.views[view].seat;
    return (seat === null || seat === m.seat) ? m.move : m.public;
  }
  function fillMoves() {
    list.textContent = "";
    data.moves.forEach((m, i) => {
      const li = document.createElement("li");
      li.textContent = "player_" + m.seat + ": " + moveText(m) + (m.forced ? " (forced)" : "");
      if (m.forced) li.classList.add("forced");
      li.addEventListener("click", () => show(i + 1));
      list.appendChild(li);
    });
  }
  function frameSvg(s) {
    return data.frames[data.views[view].frames[s]].map((i) => data.lines[i]).join("\\n");
  }
  function show(s) {
    step = Math.max(0, Math.min(steps - 1, s));
    slider.value = String(step);
    table.innerHTML = frameSvg(step);
    const old = list.querySelector("li.current");
    if (old) old.classList.remove("current");
    let text = "step " + step + " of " + (steps - 1);
    if (step > 0) {
      const m = data.moves[step - 1];
      text += ": player_" + m.seat + " plays " + moveText(m) + (m.forced ? " (forced)" : "");
      const li = list.children[step - 1];
      li.classList.add("current");
      if (li.offsetTop < list.scrollTop || li.offsetTop + li.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = li.offsetTop - list.clientHeight / 2;  // the list scrolls, not the page
      }
    } else {
      text += ": the start";
    }
    info.textContent = text;
  }
  function pause() { if (timer !== null) { clearInterval(timer); timer = null; } playBtn.textContent = "play"; }
  function play() {
    if (step >= steps - 1) show(0);
    playBtn.textContent = "pause";
    timer = setInterval(() => { if (step >= steps - 1) pause(); else show(step + 1); },
                        Number(document.getElementById("speed").value));
  }
  playBtn.addEventListener("click", () => (timer === null ? play() : pause()));
  document.getElementById("speed").addEventListener("change", () => { if (timer !== null) { pause(); play(); } });
  document.getElementById("first").addEventListener("click", () => { pause(); show(0); });
  document.getElementById("last").addEventListener("click", () => { pause(); show(steps - 1); });
  document.getElementById("prev").addEventListener("click", () => { pause(); show(step - 1); });
  document.getElementById("next").addEventListener("click", () => { pause(); show(step + 1); });
  slider.addEventListener("input", () => { pause(); show(Number(slider.value)); });
  viewSel.addEventListener("change", () => { view = Number(viewSel.value); fillMoves(); show(step); });
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLSelectElement) return;
    if (e.key === "ArrowRight") { pause(); show(step + 1); }
    else if (e.key === "ArrowLeft") { pause(); show(step - 1); }
    else if (e.key === "Home") { pause(); show(0); }
    else if (e.key === "End") { pause(); show(steps - 1); }
    else if (e.key === " " && !(e.target instanceof HTMLButtonElement)) {
      e.preventDefault(); timer === null ? play() : pause();
    }
  });
  fillMoves();
  show(0);
  document.body.dataset.ready = "true";
})().catch((e) => { document.getElementById("info").textContent = "The replay could not be shown: " + e; });
</script>
</body>
</html>
"""
