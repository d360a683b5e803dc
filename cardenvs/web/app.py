"""The web application behind ``cardenvs serve``: a Starlette app serving the page in
``static/`` and a small JSON API over :mod:`cardenvs.web.table`.

    GET  /                       the page
    GET  /api/games              the games, their players, agents and options
    POST /api/tables             a new match: {game, players, seat, opponents, seed?, options?}
    GET  /api/tables/{id}        the match as the person sees it (?since=N: the tables of the events
                                 from N on, those before are on the page already)
    POST /api/tables/{id}/move   {line, expect?}: the person's move, then the agents' up to their
                                 next turn (?since=N); expect: the moves played as the page saw them
    GET  /api/tables/{id}/match  the finished match as a saved-match file (JSON)
    GET  /api/tables/{id}/replay the replay page of the finished match (HTML)
    POST /api/replay             a saved match (its JSON as the body): the replay page, HTML

The tables live in memory, keyed by a random id, the one used least recently dropped first
beyond ``MAX_TABLES``. Every value of a request is checked here or by the env, and a bad one
answers 400 with a message naming it, the table unchanged. A match file shows every hand
and the seed of the deals to come, so a match's file and replay answer 409 until it is over.
Requests whose Host header is not the server's own are refused (another web site cannot
drive a page on this machine through the browser), and a POST must carry JSON, which a
form of another site cannot send without the browser asking this server first.
"""

from __future__ import annotations

import ipaddress
import json
import re
import secrets
from collections import OrderedDict
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from cardenvs.agents import available_agents
from cardenvs.core.protocol import GameSpec, options_schema
from cardenvs.core.registry import get_spec, list_games
from cardenvs.core.rng import check_seed
from cardenvs.web.table import LineReader, Table, open_table, view

STATIC = Path(__file__).resolve().parent / "static"
MAX_TABLES = 32  # matches kept in memory; the one used least recently goes first
MAX_BODY = 16 * 2**20  # bytes of a request (a saved match of a long game is a few hundred kB)
POLICY_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")
LOOPBACK = ("127.0.0.1", "localhost", "::1")
EVENT_COUNT = re.compile(r"[0-9]{1,9}")  # ASCII digits only: str.isdigit() takes "²" and "１"
SEED_DIGITS = re.compile(r"[0-9]{1,20}")  # 2**64 - 1 has 20 digits
# options the page leaves to the game: the match's reward is the outcome; its length is the game's
HIDDEN_OPTIONS = ("num_players", "reward_mode", "max_steps")
KIND_WORDS = {"int": "a whole number", "bool": "true or false", "float": "a number", "str": "a string"}


class BadRequest(ValueError):
    """A request the server refuses: 400 with its message."""

    status = 400


class TooLarge(BadRequest):
    """A request body over ``MAX_BODY`` bytes."""

    status = 413


class Conflict(BadRequest):
    """A request that does not fit the match as it is now: 409, the match unchanged."""

    status = 409


def host_names(address: str) -> list[str]:
    """The names a Host header gives ``address`` by, as Starlette reads them: an IPv6
    address in brackets (``[::1]``), as typed and in its short form; any other as it is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return [address.lower()]
    if ip.version == 4:
        return [address]
    return list(dict.fromkeys(f"[{name}]" for name in (address.lower(), ip.compressed)))


def allowed_hosts(host: str) -> list[str]:
    """The Host headers the server answers: its own address, and the loopback names when it
    listens on a loopback address (``localhost``, ``127.0.0.1`` and ``[::1]`` are the same
    machine)."""
    addresses = LOOPBACK if host in LOOPBACK else (host,)
    return list(dict.fromkeys(name for address in addresses for name in host_names(address)))


def game_agents(spec: GameSpec, policies: dict[str, tuple[str, str]]) -> list[str]:
    """The agents the page offers for ``spec``'s seats: the package's agents that need no
    path, then the command line's policies trained for this game, by name."""
    built_in = [n for n in available_agents(spec) if ":" not in n and n != "human"]
    return built_in + [name for name, (game, _) in policies.items() if game == spec.name]


def games_catalog(policies: dict[str, tuple[str, str]]) -> list[dict[str, Any]]:
    out = []
    for spec in list_games():
        schema = options_schema(spec.module)
        out.append({
            "name": spec.name, "env_id": spec.env_id, "title": spec.title, "summary": spec.summary,
            "min_players": spec.min_players, "max_players": spec.max_players,
            "default_players": spec.default_players, "agents": game_agents(spec, policies),
            "options": [{"name": o.name, "kind": o.kind, "default": o.default, "optional": o.optional}
                        for o in schema.values() if o.name not in HIDDEN_OPTIONS],
        })
    return out


# --------------------------------------------------------------------------- reading a request
def _int(body: dict, key: str, default: Any = None) -> Any:
    value = body.get(key, default)
    if value is default and key not in body:
        return value
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadRequest(f"{key} must be a whole number, got {value!r}")
    return value


def _options(spec: GameSpec, given: Any) -> dict[str, Any]:
    """The game options of a request, each of its option's own type (no conversion)."""
    if given is None:
        return {}
    if not isinstance(given, dict):
        raise BadRequest(f"options must be an object of option names and values, got {given!r}")
    schema = options_schema(spec.module)
    out: dict[str, Any] = {}
    for key, value in given.items():
        if key not in schema or key in HIDDEN_OPTIONS:
            known = ", ".join(k for k in schema if k not in HIDDEN_OPTIONS)
            raise BadRequest(f"unknown option {key!r} for {spec.name}; options: {known}")
        kind = schema[key].kind
        if value is None and schema[key].optional:
            out[key] = None
            continue
        fits = {
            "int": isinstance(value, int) and not isinstance(value, bool),
            "bool": isinstance(value, bool),
            "float": isinstance(value, (int, float)) and not isinstance(value, bool),
            "str": isinstance(value, str),
        }.get(kind, False)
        if not fits:
            raise BadRequest(f"option {key} takes {KIND_WORDS.get(kind, kind)}, got {value!r}")
        out[key] = value
    return out


def new_table_args(body: Any, policies: dict[str, tuple[str, str]]) -> dict[str, Any]:
    """The arguments of :func:`open_table` from a request's body; BadRequest names a bad value."""
    if not isinstance(body, dict):
        raise BadRequest("the request must be a JSON object")
    unknown = set(body) - {"game", "players", "seat", "opponents", "seed", "options"}
    if unknown:
        raise BadRequest(f"unknown field(s): {', '.join(sorted(map(str, unknown)))}")
    game = body.get("game")
    if not isinstance(game, str):
        raise BadRequest(f"game must be a game's name, got {game!r}")
    spec = get_spec(game)  # ValueError lists the games
    options = _options(spec, body.get("options"))
    players = _int(body, "players", spec.default_players)
    if not spec.min_players <= players <= spec.max_players:
        raise BadRequest(f"{spec.name} takes {spec.min_players} to {spec.max_players} players, got {players}")
    options["num_players"] = players
    seat = _int(body, "seat", 0)
    if not 0 <= seat < players:
        raise BadRequest(f"seat must be one of 0 .. {players - 1}, got {seat}")
    opponents = body.get("opponents")
    offered = game_agents(spec, policies)
    if not isinstance(opponents, list) or len(opponents) != players - 1:
        raise BadRequest(f"opponents must list {players - 1} agents (one per other seat), got {opponents!r}")
    agents = []
    for name in opponents:
        if name not in offered:
            raise BadRequest(f"unknown agent {name!r} for {spec.name}; agents: {', '.join(offered)}")
        agents.append(f"ppo:{policies[name][1]}" if name in policies else name)
    seed = request_seed(body.get("seed"))
    return {"spec": spec, "options": options, "seat": seat, "opponents": agents, "seed": seed,
            "labels": list(opponents)}


def request_seed(seed: Any) -> int:
    """The seed of a new match: absent or null draws one; else a string of digits (what the
    page sends: a JavaScript number is exact only up to 2**53) or a JSON whole number, in
    0 .. 2**64 - 1 as ``--seed`` is. A bool, a float or any other text is refused."""
    if seed is None:
        return secrets.randbelow(2**31)
    if isinstance(seed, str):
        if not SEED_DIGITS.fullmatch(seed):
            raise BadRequest(f"seed must be a whole number of digits 0-9, got {seed!r}")
        seed = int(seed)
    elif not isinstance(seed, int) or isinstance(seed, bool):
        raise BadRequest(f"seed must be a whole number, got {seed!r}")
    return check_seed(seed)  # ValueError for one outside 0 .. 2**64 - 1


def events_since(request: Request) -> int:
    """``?since=N``: the events the page has already (their tables are not sent again)."""
    text = request.query_params.get("since", "0")
    if not EVENT_COUNT.fullmatch(text):
        raise BadRequest(f"since must be a count of events (digits 0-9), got {text!r}")
    return int(text)


def moves_expected(body: dict) -> int | None:
    """A move request's ``expect``: the moves played in the match as the page last saw it
    (absent: not checked)."""
    if "expect" not in body:
        return None
    expect = body["expect"]
    if not isinstance(expect, int) or isinstance(expect, bool) or expect < 0:
        raise BadRequest(f"expect must be the count of moves played, a whole number >= 0, got {expect!r}")
    return expect


async def _json_body(request: Request) -> Any:
    """A request's JSON, read as a match file is: a key given twice, NaN or Infinity refused."""
    from cardenvs.replay import strict_loads

    body = await request_bytes(request, "send JSON (Content-Type: application/json)")
    try:
        return strict_loads(body)
    except RecursionError:
        raise BadRequest("the request is not JSON the server reads: nested too deep") from None
    except json.JSONDecodeError as e:
        raise BadRequest(f"the request is not JSON: {e}") from None
    except ValueError as e:  # a key given twice, NaN, Infinity, text that is not UTF-8
        raise BadRequest(f"the request is not JSON the server reads: {e}") from None


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _refused(e: Exception) -> JSONResponse:
    """The answer to a refused request: its status (400 unless it says), its message."""
    return _error(str(e), getattr(e, "status", 400))


NOT_OVER = ("the match is not over: its file shows every hand and the deals to come, so it is offered "
            "(with its replay) once the match is over")


# --------------------------------------------------------------------------- the application
def create_app(read_line: LineReader, policies: dict[str, str] | None = None, host: str = "127.0.0.1") -> Starlette:
    """The application. ``read_line`` reads a person's typed line into moves (the terminal's
    reader); ``policies`` maps a name the page offers to a policy file given on the command
    line (checked here: each must load, and its game decides where it is offered); ``host``
    is the address the server listens on, the only Host it answers."""
    known_policies = load_policies(policies or {})
    tables: OrderedDict[str, Table] = OrderedDict()
    catalog = games_catalog(known_policies)

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def games(request: Request) -> Response:
        return JSONResponse({"games": catalog})

    def table_of(request: Request) -> Table:
        table_id = request.path_params["table_id"]
        table = tables.get(table_id)
        if table is None:
            raise LookupError("no such match (the server keeps a few in memory, and none after a restart)")
        tables.move_to_end(table_id)  # used now: the last to be dropped
        return table

    def answer(table_id: str, table: Table, line: str | None = None, since: int = 0,
               expect: int | None = None) -> dict[str, Any]:
        """The person's move (``line``, if any), then the match as they see it; run in a
        worker thread (the agents' moves take time), one request at a time per table. A move
        sent for a turn the match has left (``expect``, the moves played as the page saw
        them, is no longer the count) is refused: two sends of one turn play once."""
        with table.lock:
            if expect is not None and expect != table.moves_played:
                raise Conflict(f"the table has moved on: {table.moves_played} moves played, the move was sent "
                               f"after {expect}; nothing was played (reload the table)")
            if line is not None:
                table.play(line)
            return {"id": table_id, **view(table, since)}

    def finished(request: Request) -> Table:
        """The table of a finished match (LookupError: none; Conflict: not over yet)."""
        table = table_of(request)
        if not table.over:  # read without the lock (a move may hold it): a match once over stays over
            raise Conflict(NOT_OVER)
        return table

    async def new_table(request: Request) -> Response:
        try:
            args = new_table_args(await _json_body(request), known_policies)
            table = await run_in_threadpool(open_table, read_line=read_line, **args)
        except (ValueError, TypeError) as e:
            return _refused(e)
        table_id = secrets.token_urlsafe(16)
        tables[table_id] = table
        while len(tables) > MAX_TABLES:
            tables.popitem(last=False)  # the one used least recently
        return JSONResponse(await run_in_threadpool(answer, table_id, table))

    async def show_table(request: Request) -> Response:
        try:
            table = table_of(request)
        except LookupError as e:
            return _error(str(e), 404)
        try:
            since = events_since(request)
        except BadRequest as e:
            return _error(str(e))
        return JSONResponse(await run_in_threadpool(answer, request.path_params["table_id"], table, None, since))

    async def move(request: Request) -> Response:
        try:
            table = table_of(request)
        except LookupError as e:
            return _error(str(e), 404)
        try:
            body = await _json_body(request)
            if not isinstance(body, dict) or "line" not in body or not set(body) <= {"line", "expect"}:
                raise BadRequest('send {"line": "the move", "expect": the moves played so far}')
            shown = await run_in_threadpool(answer, request.path_params["table_id"], table, body["line"],
                                            events_since(request), moves_expected(body))
        except (ValueError, TypeError) as e:
            return _refused(e)
        return JSONResponse(shown)

    async def finished_record(request: Request) -> tuple[Any, Any] | Response:
        """The finished match's table and record, or the error answer (404: no such table;
        409: the match is still being played)."""
        try:
            table = finished(request)
        except LookupError as e:
            return _error(str(e), 404)
        except Conflict as e:
            return _refused(e)

        def record() -> Any:
            with table.lock:
                return table.raw.match_record()

        return table, await run_in_threadpool(record)

    async def saved_match(request: Request) -> Response:
        """The finished match as a saved-match file (``cardenvs replay`` reads it)."""
        from cardenvs.replay import match_to_json

        found = await finished_record(request)
        if isinstance(found, Response):
            return found
        table, record = found
        name = f"{table.spec.name}-seed{table.seed}.json"
        return Response(match_to_json(record), media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def match_replay(request: Request) -> Response:
        """The replay page of the finished match."""
        from cardenvs.replay import replay_html

        found = await finished_record(request)
        if isinstance(found, Response):
            return found
        return HTMLResponse(await run_in_threadpool(replay_html, found[1]))

    async def replay(request: Request) -> Response:
        try:
            body = await request_bytes(request, "send the saved match as JSON (Content-Type: application/json)")
            html = await run_in_threadpool(replay_page, body)
        except (ValueError, TypeError) as e:
            return _refused(e)
        return HTMLResponse(html)

    routes = [
        Route("/", page),
        Route("/api/games", games),
        Route("/api/tables", new_table, methods=["POST"]),
        Route("/api/tables/{table_id}", show_table),
        Route("/api/tables/{table_id}/move", move, methods=["POST"]),
        Route("/api/tables/{table_id}/match", saved_match),
        Route("/api/tables/{table_id}/replay", match_replay),
        Route("/api/replay", replay, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts(host))])


async def request_bytes(request: Request, not_json: str) -> bytes:
    """A request's body, which must be JSON (a form of another site cannot send it) and at
    most ``MAX_BODY`` bytes: refused by its Content-Length before it is read, where it has
    one, and otherwise (a chunked body) as soon as the chunks read pass the limit."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise BadRequest(not_json)
    too_big = f"the request is larger than {MAX_BODY // 2**20} MiB"
    length = request.headers.get("content-length")
    if length is not None:
        if not re.fullmatch(r"[0-9]{1,20}", length):
            raise BadRequest(f"Content-Length must be a count of bytes, got {length!r}")
        if int(length) > MAX_BODY:
            raise TooLarge(too_big)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise TooLarge(too_big)  # the rest is never read
        chunks.append(chunk)
    return b"".join(chunks)


def replay_page(content: bytes) -> str:
    """The replay page of a saved match's content (never a path: the browser reads the
    file and sends it here). A match of more moves than a page shows is refused from its
    count before anything is played; the rest is checked and played again first: ValueError
    says what is wrong with it."""
    from cardenvs.replay import MAX_PAGE_STEPS, parse_match, replay_html, strict_loads

    try:
        data = strict_loads(content)
    except (ValueError, RecursionError):
        data = None  # parse_match says what is wrong with it
    actions = data.get("actions") if isinstance(data, dict) else None
    if isinstance(actions, list) and len(actions) > MAX_PAGE_STEPS:
        raise ValueError(f"this match has {len(actions):,} moves, more than the {MAX_PAGE_STEPS:,} steps a replay "
                         "page shows; `cardenvs replay FILE --step K` shows any step in the terminal")
    return replay_html(parse_match(content))


def load_policies(policies: dict[str, str]) -> dict[str, tuple[str, str]]:
    """``{name: path}`` from the command line as ``{name: (game, path)}``: each name a short
    lower-case word that is not one of the package's agents, each file a policy that loads."""
    from cardenvs.agents import AGENT_NAMES
    from cardenvs.agents.ppo import PolicyNetwork

    out = {}
    for name, path in policies.items():
        if not POLICY_NAME.fullmatch(name) or name in AGENT_NAMES or name == "scorer":
            raise ValueError(f"policy name {name!r}: a lower-case word of letters, digits, - and _ (at most 32), "
                             f"not one of the agents' names ({', '.join(AGENT_NAMES)}, scorer)")
        policy = PolicyNetwork.load(path)  # ValueError/OSError says what is wrong with the file
        spec = get_spec(policy.env_id)
        out[name] = (spec.name, str(path))
    return out
