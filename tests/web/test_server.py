"""The server of ``cardenvs serve`` through Starlette's test client: a new match, a move, a
bad move refused with the table unchanged, what a person's picture may show, the checks on
every value of a request, and the Host check."""

from __future__ import annotations

import io
import json
import re
import sys

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from cardenvs.agents.ppo import baseline_path  # noqa: E402
from cardenvs.cli.console import parse_human_line  # noqa: E402
from cardenvs.cli.main import main  # noqa: E402
from cardenvs.core import narration  # noqa: E402
from cardenvs.core.picture import table_svg  # noqa: E402
from cardenvs.core.registry import get_spec  # noqa: E402
from cardenvs.web.app import create_app  # noqa: E402
from cardenvs.web.table import open_table, view  # noqa: E402

LOCAL = "http://127.0.0.1"
PRESIDENT = {"game": "president", "players": 4, "seat": 0, "opponents": ["heuristic"] * 3, "seed": 5}


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(parse_human_line), base_url=LOCAL) as c:
        yield c


def new_table(client, **changes):
    response = client.post("/api/tables", json={**PRESIDENT, **changes})
    assert response.status_code == 200, response.text
    return response.json()


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "<script src=\"/static/app.js\">" in page.text
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    games = {g["name"]: g for g in client.get("/api/games").json()["games"]}
    assert set(games) == {"president", "odin", "rami51", "frime", "classes"}
    assert games["president"]["agents"][:2] == ["random", "heuristic"]
    assert "human" not in games["president"]["agents"]
    assert "scorer" in games["rami51"]["agents"] and "scorer" not in games["odin"]["agents"]


def test_a_new_match_waits_for_the_person_with_their_hand_drawn(client):
    table = new_table(client)
    assert table["your_turn"] and not table["over"] and table["seat"] == 0
    svg = table["picture"]["svg"]
    assert svg.startswith("<svg")
    assert svg.count('class="card in-hand"') == len(table["hand"]) == 13
    for card in table["hand"]:
        assert f'data-card="{card}"' in svg
    assert [m["text"] for m in table["moves"]][0] == "pass"  # seed 5: player_3 led a 3
    assert table["events"] == [{"kind": "move", "text": "player_3 (heuristic): plays 3"}]
    assert [s["plays"] for s in table["seats"]] == ["you", "heuristic", "heuristic", "heuristic"]


def test_a_move_by_its_cards_then_the_agents_play_on(client):
    table = new_table(client)
    response = client.post(f"/api/tables/{table['id']}/move", json={"line": "Ac"})  # the ace, by its card
    assert response.status_code == 200, response.text
    after = response.json()
    assert after["events"][:2] == [{"kind": "move", "text": "player_3 (heuristic): plays 3"},
                                   {"kind": "move", "text": "player_0 (you): plays A"}]
    assert "Ac" not in after["hand"] and len(after["hand"]) == 12
    assert after["your_turn"] or after["over"]
    assert client.get(f"/api/tables/{table['id']}").json() == after


@pytest.mark.parametrize("line, message", [
    ("Zz", "cannot read 'Zz'"),
    ("2s", "'2' is not legal now"),  # no 2 in the hand
    ("#99", "choose #0 .. #"),
    ("", "the move is empty"),
])
def test_a_bad_move_is_refused_and_the_table_is_unchanged(client, line, message):
    table = new_table(client)
    before = client.get(f"/api/tables/{table['id']}").json()
    response = client.post(f"/api/tables/{table['id']}/move", json={"line": line})
    assert response.status_code == 400
    assert message in response.json()["error"]
    assert client.get(f"/api/tables/{table['id']}").json() == before


@pytest.mark.parametrize("body, message", [
    ({"line": 3}, "a move is a line of text"),
    ({"move": "pass"}, 'send {"line": "the move"'),
    ({"line": "pass", "seat": 0}, 'send {"line": "the move"'),
    ([], 'send {"line": "the move"'),
])
def test_a_move_request_of_another_shape_is_refused(client, body, message):
    table = new_table(client)
    response = client.post(f"/api/tables/{table['id']}/move", json=body)
    assert response.status_code == 400 and message in response.json()["error"]


def test_an_unknown_match_is_not_found(client):
    response = client.post("/api/tables/nothing/move", json={"line": "pass"})
    assert response.status_code == 404 and "no such match" in response.json()["error"]


@pytest.mark.parametrize("changes, message", [
    ({"game": "poker"}, "poker"),
    ({"players": 11}, "president takes 4 to 10 players, got 11"),
    ({"players": 4.0}, "players must be a whole number, got 4.0"),
    ({"players": True}, "players must be a whole number, got True"),
    ({"seat": 4}, "seat must be one of 0 .. 3, got 4"),
    ({"seat": "0"}, "seat must be a whole number, got '0'"),
    ({"opponents": ["heuristic"] * 2}, "opponents must list 3 agents"),
    ({"opponents": ["heuristic", "heuristic", "human"]}, "unknown agent 'human'"),
    ({"opponents": ["heuristic", "heuristic", "ppo:policy.npz"]}, "unknown agent 'ppo:policy.npz'"),
    ({"seed": -1}, "seed"),
    ({"seed": 1.5}, "seed must be a whole number, got 1.5"),
    ({"options": {"single_round": "false"}}, "option single_round takes true or false, got 'false'"),
    ({"options": {"target_score": 2.0}}, "option target_score takes a whole number, got 2.0"),
    ({"options": {"num_players": 5}}, "unknown option 'num_players'"),
    ({"options": {"target_score": 0}}, "target_score"),
    ({"path": "match.json"}, "unknown field(s): path"),
])
def test_a_bad_new_match_is_refused_naming_the_value(client, changes, message):
    response = client.post("/api/tables", json={**PRESIDENT, **changes})
    assert response.status_code == 400, response.text
    assert message in response.json()["error"]


def test_a_post_must_carry_json_of_a_bounded_size(client):
    response = client.post("/api/tables", content=json.dumps(PRESIDENT),
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert response.status_code == 400 and "send JSON" in response.json()["error"]
    response = client.post("/api/replay", content=b" " * (16 * 2**20 + 1), headers={"Content-Type": "application/json"})
    assert response.status_code == 413 and "larger than 16 MiB" in response.json()["error"]


def test_another_host_is_refused():
    app = create_app(parse_human_line)
    for base in ("http://evil.example", "http://127.0.0.1.evil.example:8000"):
        with TestClient(app, base_url=base) as c:
            assert c.get("/").status_code == 400
            assert c.post("/api/tables", json=PRESIDENT).status_code == 400
    for base in ("http://127.0.0.1:8000", "http://localhost:8000"):
        with TestClient(app, base_url=base) as c:
            assert c.get("/api/games").status_code == 200
    with TestClient(create_app(parse_human_line, host="10.1.2.3"), base_url="http://127.0.0.1") as c:
        assert c.get("/").status_code == 400  # bound elsewhere: only that address


def test_a_policy_from_the_command_line_is_offered_by_name_for_its_game():
    path = str(baseline_path(get_spec("odin")))
    with TestClient(create_app(parse_human_line, {"mine": path}), base_url=LOCAL) as c:
        games = {g["name"]: g for g in c.get("/api/games").json()["games"]}
        assert games["odin"]["agents"][-1] == "mine" and "mine" not in games["president"]["agents"]
        table = c.post("/api/tables", json={"game": "odin", "players": 4, "seat": 1,
                                            "opponents": ["mine", "random", "mine"], "seed": 2}).json()
        assert [s["plays"] for s in table["seats"]] == ["mine", "you", "random", "mine"]
        assert path not in json.dumps(table)
    for bad, message in (({"heuristic": path}, "policy name 'heuristic'"), ({"Mine": path}, "policy name 'Mine'")):
        with pytest.raises(ValueError, match=message):
            create_app(parse_human_line, bad)


# --------------------------------------------------------------------------- what a seat may see
@pytest.mark.parametrize("game", ["president", "odin", "rami51", "frime", "classes"])
def test_hidden_cards_never_reach_the_persons_picture(game):
    """The person's picture is the same in a twin state whose hidden cards are dealt anew,
    and differs from the onlooker's, which shows them."""
    spec = get_spec(game)
    seen = 0
    for seed in range(4):
        table = open_table(spec, {}, 1, ["random"] * (spec.default_players - 1), seed, parse_human_line)
        raw = table.raw
        mine = view(table)["picture"]["svg"]
        twin = raw.resample_hidden(raw.possible_agents[1], seed + 100)
        assert table_svg(spec, twin.state_record()[0], 1) == mine
        if table.your_turn:  # the moves offered and the hint, the same in the twin
            assert [twin.action_to_str(a) for a in twin.legal_actions()] == [m["text"] for m in view(table)["moves"]]
            assert narration.phase_hint(game, twin.state_dict(), 1) == view(table)["hint"]
        everyone = table_svg(spec, raw.state_record()[0], None)
        seen += everyone != mine
        in_hand = re.findall(r'class="card in-hand" data-card="([^"]+)"', mine)
        assert sorted(in_hand) == sorted(raw.state_dict()["hands"][1])  # the person's cards, and only theirs
    assert seen == 4


def test_the_same_seed_deals_the_same_match():
    spec = get_spec("president")
    a = open_table(spec, {}, 2, ["heuristic", "random", "heuristic"], 11, parse_human_line)
    b = open_table(spec, {}, 2, ["heuristic", "random", "heuristic"], 11, parse_human_line)
    for _ in range(3):
        assert view(a) == view(b)
        if a.over:
            break
        a.play("pass" if "pass" in [m["text"] for m in view(a)["moves"]] else "#0")
        b.play("pass" if "pass" in [m["text"] for m in view(b)["moves"]] else "#0")


# --------------------------------------------------------------------------- the command
def test_serve_without_the_web_extra_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # import uvicorn raises ImportError
    out, err = io.StringIO(), io.StringIO()
    assert main(["serve"], out=out, err=err) == 2
    assert err.getvalue().count("\n") == 1
    assert 'pip install "cardenvs[web]"' in err.getvalue()


@pytest.mark.parametrize("argv, message", [
    (["serve", "--port", "0"], "--port must be at least 1"),
    (["serve", "--port", "70000"], "--port must be at most 65,535"),
    (["serve", "--policy", "mine"], "--policy expects NAME=PATH"),
    (["serve", "--policy", "mine=nothing-here.npz"], "--policy"),
    (["serve", "--host", "0.0.0.0"], "give this machine's address"),
])
def test_serve_refuses_a_bad_flag_in_one_line(argv, message):
    out, err = io.StringIO(), io.StringIO()
    assert main(argv, out=out, err=err) == 2
    assert message in err.getvalue() and err.getvalue().count("\n") == 1


# --------------------------------------------------------------------------- saved matches
def play_to_the_end(client, table: dict) -> dict:
    """Play the person's last offered move each turn until the match is over."""
    shown = table
    for _ in range(300):
        if shown["over"]:
            return shown
        response = client.post(f"/api/tables/{table['id']}/move", json={"line": shown["moves"][-1]["text"]})
        assert response.status_code == 200, response.text
        shown = response.json()
    pytest.fail("the match did not end in 300 moves")


def test_a_match_saved_from_the_page_replays(client):
    from cardenvs.replay import parse_match

    table = play_to_the_end(client, new_table(client, options={"single_round": True}))
    saved = client.get(f"/api/tables/{table['id']}/match")
    assert saved.status_code == 200 and "attachment" in saved.headers["content-disposition"]
    record = parse_match(saved.content)
    assert record.seed == 5 and record.env_id == "president_v0"
    page = client.get(f"/api/tables/{table['id']}/replay")
    assert page.status_code == 200 and page.text.startswith("<!DOCTYPE html>")
    uploaded = client.post("/api/replay", content=saved.content, headers={"Content-Type": "application/json"})
    assert uploaded.status_code == 200 and 'id="slider"' in uploaded.text


@pytest.mark.parametrize("content, message", [
    (b"not json", "not JSON"),
    (b'{"format": "something else"}', "format"),
    (b"\xff\xfe", "UTF-8"),
])
def test_a_bad_saved_match_is_refused_with_its_reason(client, content, message):
    response = client.post("/api/replay", content=content, headers={"Content-Type": "application/json"})
    assert response.status_code == 400 and message in response.json()["error"]


def test_each_round_ends_with_its_last_table_sent_once(client):
    table = new_table(client, options={"target_score": 3}, seed=7)
    path = f"/api/tables/{table['id']}"
    shown = table
    for _ in range(200):
        if shown["over"]:
            break
        plays = [m["text"] for m in shown["moves"]]
        shown = client.post(f"{path}/move?since={len(shown['events'])}", json={"line": plays[-1]}).json()
    assert shown["over"]
    rounds = [e for e in client.get(path).json()["events"] if e["kind"] == "round"]
    assert len(rounds) >= 2 and all(e["svg"].startswith("<svg") for e in rounds)
    assert rounds[0]["text"].startswith("round 1 over: places: ")
    later = client.get(f"{path}?since={len(shown['events'])}").json()
    assert not any("svg" in e for e in later["events"])
    for bad in ("-1", "x", "1.5"):
        response = client.get(f"{path}?since={bad}")
        assert response.status_code == 400 and "since must be a count of events" in response.json()["error"]


@pytest.mark.parametrize("since", ["²", "１", "٣", "1234567890", " 1", ""])
def test_since_takes_ascii_digits_only(client, since):
    """str.isdigit() takes superscripts and other scripts' digits, which int() may not read."""
    table = new_table(client)
    response = client.get(f"/api/tables/{table['id']}", params={"since": since})
    assert response.status_code == 400
    assert response.json()["error"] == f"since must be a count of events (digits 0-9), got {since!r}"


# --------------------------------------------------------------------------- what the page may not show yet
def test_the_match_file_and_its_replay_wait_for_the_end(client):
    """The file holds every hand and the rng of the deals to come, and the replay page shows
    everyone's view: while the match is played both are refused, once it is over they come."""
    table = new_table(client, options={"single_round": True})
    path = f"/api/tables/{table['id']}"
    for route in ("match", "replay"):
        response = client.get(f"{path}/{route}")
        assert response.status_code == 409, route
        assert "every hand" in response.json()["error"] and "once the match is over" in response.json()["error"]
    client.post(f"{path}/move", json={"line": table["moves"][-1]["text"]})
    assert client.get(f"{path}/match").status_code == 409  # still on after a move
    play_to_the_end(client, client.get(path).json())
    assert client.get(f"{path}/match").status_code == 200
    assert client.get(f"{path}/replay").status_code == 200
    assert client.get("/api/tables/nothing/match").status_code == 404


# --------------------------------------------------------------------------- the Host check on IPv6
def test_an_ipv6_host_is_answered_by_its_bracketed_name():
    """A Host header names an IPv6 address in brackets ("[::1]:8000"), as Starlette reads it."""
    def status(app, host: str) -> int:
        with TestClient(app, base_url=LOCAL) as c:
            return c.get("/api/games", headers={"host": host}).status_code

    loopback = create_app(parse_human_line, host="::1")
    for host in ("[::1]:8000", "[::1]", "127.0.0.1:8000", "localhost:8000"):
        assert status(loopback, host) == 200, host
    for host in ("evil.example", "[::2]:8000", "[::1].evil.example"):
        assert status(loopback, host) == 400, host
    assert status(create_app(parse_human_line), "[::1]:8000") == 200  # 127.0.0.1 is loopback too
    lan = create_app(parse_human_line, host="2001:0DB8:0:0:0:0:0:5")  # typed long: the browser writes it short
    for host in ("[2001:db8::5]:8000", "[2001:0db8:0:0:0:0:0:5]:8000"):
        assert status(lan, host) == 200, host
    for host in ("[::1]:8000", "127.0.0.1:8000", "2001:db8::5"):
        assert status(lan, host) == 400, host


@pytest.mark.parametrize("host", ["::", "::0", "0:0::0", "0:0:0:0:0:0:0:0", "0", "0.0.0.0", " "])
def test_serve_refuses_every_spelling_of_the_wildcard_address(host, monkeypatch):
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: pytest.fail(f"--host {host!r} started the server"))
    out, err = io.StringIO(), io.StringIO()
    assert main(["serve", "--host", host], out=out, err=err) == 2
    assert "is every address" in err.getvalue() and err.getvalue().count("\n") == 1


# --------------------------------------------------------------------------- request bodies
@pytest.mark.parametrize("content, message", [
    ('{"game": "president", "game": "odin", "opponents": ["random", "random", "random"]}',
     "the field 'game' is given twice"),
    ('{"game": "president", "opponents": ["random", "random", "random"], "seed": NaN}', "NaN is not a number"),
    ('{"game": "president", "opponents": ["random", "random", "random"], "options": {"target_score": Infinity}}',
     "Infinity is not a number"),
])
def test_request_json_is_read_as_strictly_as_a_match_file(client, content, message):
    response = client.post("/api/tables", content=content, headers={"Content-Type": "application/json"})
    assert response.status_code == 400 and message in response.json()["error"]
    table = new_table(client)
    response = client.post(f"/api/tables/{table['id']}/move", content='{"line": "pass", "line": "Ac"}',
                           headers={"Content-Type": "application/json"})
    assert response.status_code == 400 and "'line' is given twice" in response.json()["error"]
    assert client.get(f"/api/tables/{table['id']}").json() == table  # nothing played


def test_a_chunked_body_is_cut_off_at_the_limit():
    """A body without Content-Length is read chunk by chunk and refused once past MAX_BODY,
    the rest never read."""
    import asyncio

    from starlette.requests import Request

    from cardenvs.web.app import MAX_BODY, TooLarge, request_bytes

    chunk = b" " * 2**20
    total = 4 * MAX_BODY // len(chunk)
    read = 0

    async def receive() -> dict:
        nonlocal read
        read += 1
        return {"type": "http.request", "body": chunk, "more_body": read < total}

    scope = {"type": "http", "method": "POST", "path": "/api/replay", "query_string": b"",
             "headers": [(b"content-type", b"application/json"), (b"transfer-encoding", b"chunked")]}
    with pytest.raises(TooLarge, match="larger than 16 MiB"):
        asyncio.run(request_bytes(Request(scope, receive), "send JSON"))
    assert read == MAX_BODY // len(chunk) + 1

    small = [b'{"a": ', b"1}"]

    async def receive_small() -> dict:
        return {"type": "http.request", "body": small.pop(0), "more_body": bool(small)}

    assert asyncio.run(request_bytes(Request(scope, receive_small), "send JSON")) == b'{"a": 1}'
    bad_length = {**scope, "headers": [(b"content-type", b"application/json"), (b"content-length", b"-5")]}
    with pytest.raises(ValueError, match="Content-Length must be a count of bytes, got '-5'"):
        asyncio.run(request_bytes(Request(bad_length, receive_small), "send JSON"))


def test_an_upload_longer_than_a_page_is_refused_before_it_is_played(client, monkeypatch):
    """The count of moves is checked against the page's limit before any move is played."""
    import cardenvs.replay as replay_module

    table = play_to_the_end(client, new_table(client, options={"single_round": True}))
    saved = client.get(f"/api/tables/{table['id']}/match").content
    moves = len(json.loads(saved)["actions"])
    played = []
    real_replay = replay_module.replay

    def counting_replay(record):
        played.append(record)
        return real_replay(record)

    monkeypatch.setattr(replay_module, "replay", counting_replay)
    monkeypatch.setattr(replay_module, "MAX_PAGE_STEPS", moves - 1)
    response = client.post("/api/replay", content=saved, headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json()["error"].startswith(f"this match has {moves:,} moves, more than the {moves - 1:,} steps")
    assert played == []
    monkeypatch.setattr(replay_module, "MAX_PAGE_STEPS", moves)
    assert client.post("/api/replay", content=saved, headers={"Content-Type": "application/json"}).status_code == 200


# --------------------------------------------------------------------------- a move sent twice
def test_a_move_sent_for_a_turn_already_played_is_refused(client):
    """Two sends of one turn (two clicks, two tabs): the first plays, the second names the
    count it saw, which the match has left, and is refused with nothing played."""
    table = new_table(client)
    path = f"/api/tables/{table['id']}"
    seen = table["moves_played"]
    assert seen > 0  # seed 5: player_3 led a 3
    first = client.post(f"{path}/move", json={"line": "pass", "expect": seen})
    assert first.status_code == 200 and first.json()["moves_played"] > seen
    now = client.get(path).json()
    second = client.post(f"{path}/move", json={"line": "pass", "expect": seen})
    assert second.status_code == 409
    assert second.json()["error"].startswith("the table has moved on")
    assert client.get(path).json() == now
    for bad in ("1", True, -1, 1.0, None):
        response = client.post(f"{path}/move", json={"line": "pass", "expect": bad})
        assert response.status_code == 400 and "expect must be the count of moves played" in response.json()["error"]
    assert client.get(path).json() == now


# --------------------------------------------------------------------------- the seed
def test_a_seed_sent_as_digits_is_exact_past_two_to_the_53():
    """The page sends the seed as its digits: 2**53 + 1, which a JavaScript number cannot
    hold, deals its own match (not 2**53's), as the same number sent as JSON does."""
    with TestClient(create_app(parse_human_line), base_url=LOCAL) as c:
        def hand(seed):
            response = c.post("/api/tables", json={**PRESIDENT, "seed": seed})
            assert response.status_code == 200, response.text
            return response.json()["hand"]

        assert hand(str(2**53 + 1)) == hand(2**53 + 1) != hand(str(2**53))
        assert hand("5") == hand(5)
        assert hand(str(2**64 - 1)) == hand(2**64 - 1)


@pytest.mark.parametrize("seed, message", [
    (str(2**64), "seed must be in 0 .. 2**64 - 1, got 18446744073709551616"),
    (2**64, "seed must be in 0 .. 2**64 - 1"),
    ("-1", "seed must be a whole number of digits 0-9, got '-1'"),
    ("+5", "seed must be a whole number of digits 0-9"),
    (" 5", "seed must be a whole number of digits 0-9"),
    ("1e3", "seed must be a whole number of digits 0-9"),
    ("1_000", "seed must be a whole number of digits 0-9"),
    ("５", "seed must be a whole number of digits 0-9"),
    ("", "seed must be a whole number of digits 0-9"),
    (True, "seed must be a whole number, got True"),
    (5.0, "seed must be a whole number, got 5.0"),
    ([5], "seed must be a whole number, got [5]"),
])
def test_a_bad_seed_is_refused_naming_it(client, seed, message):
    response = client.post("/api/tables", json={**PRESIDENT, "seed": seed})
    assert response.status_code == 400 and message in response.json()["error"]


# --------------------------------------------------------------------------- the matches kept
def test_the_match_used_least_recently_is_dropped_first(monkeypatch):
    import cardenvs.web.app as app_module

    monkeypatch.setattr(app_module, "MAX_TABLES", 2)
    with TestClient(create_app(parse_human_line), base_url=LOCAL) as c:
        first, second = (c.post("/api/tables", json=PRESIDENT).json()["id"] for _ in range(2))
        assert c.get(f"/api/tables/{first}").status_code == 200  # in use: second is now the idle one
        third = c.post("/api/tables", json=PRESIDENT).json()["id"]
        assert c.get(f"/api/tables/{second}").status_code == 404
        assert c.get(f"/api/tables/{first}").status_code == 200
        assert c.get(f"/api/tables/{third}").status_code == 200
