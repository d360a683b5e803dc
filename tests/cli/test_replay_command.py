"""``cardenvs play --save``, ``cardenvs replay`` (terminal and ``--html``) and
``cardenvs eval --save-every``: files written, shown, refused with one line."""

from __future__ import annotations

import io
import json
import re

import pytest

from cardenvs import get_spec, make_raw
from cardenvs.cli.main import main
from cardenvs.cli.replay import numbered_paths
from cardenvs.core.picture import table_svg
from cardenvs.replay import load_match, match_to_json, replay, unpack_frames


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), out=out, err=err, input_fn=None)
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """One President match of heuristic and random players, saved by ``play --save``."""
    path = tmp_path_factory.mktemp("play") / "match.json"
    rc, out, err = run_cli("play", "president", "--agents", "heuristic,random", "--seed", "4",
                           "--option", "single_round=true", "--save", str(path))
    assert rc == 0, err
    assert "saved: " in out and path.is_file()
    seats = re.search(r"seats ([\w,]+)", out).group(1).split(",")  # however --agents fills the table
    return path, seats


def test_play_save_writes_the_match(saved):
    saved, seats = saved
    record = load_match(saved)
    assert record.env_id == "president_v0" and record.seed == 4 and record.options == {"single_round": True}
    assert record.agents == seats and seats[:2] == ["heuristic", "random"]
    assert record.result is not None and not record.result["truncated"]
    # the same match played again on the env: same start, same end
    env = make_raw("president_v0", single_round=True)
    env.reset(seed=4)
    assert env.state_dict() == record.start
    for a in record.actions:
        env.step(a)
    assert env.terminations["player_0"]
    assert [float(x) for x in env.infos["player_0"]["scores"]] == record.result["scores"]


def test_replay_in_the_terminal(saved):
    saved = saved[0]
    record = load_match(saved)
    steps = len(record.actions)
    rc, out, err = run_cli("replay", str(saved))
    assert rc == 0, err
    assert out.splitlines()[0].startswith("president_v0: 4 players, player_0 (heuristic), player_1 (random)")
    moves = [line for line in out.splitlines() if re.match(r"\s+\d+  player_\d \(\w+\): ", line)]
    assert len(moves) == steps
    env = make_raw("president_v0", single_round=True)
    assert moves[0].split(": ", 1)[1] == env.action_to_str(record.actions[0])
    assert f"the table at step {steps}:" in out and "match over: winner" in out

    # one seat's view at a step: its own hand only, the moves up to there
    rc, out, _ = run_cli("replay", str(saved), "--seat", "1", "--step", "3")
    assert rc == 0
    env.reset(options={"scenario": record.start})
    for a in record.actions[:3]:
        env.step(a)
    assert env.render_text(1) in out and env.render_text(None) not in out
    assert "seen by player_1" in out and "the table at step 3:" in out
    assert len([line for line in out.splitlines() if re.match(r"\s+\d+  player_", line)]) == 3
    assert "match over" not in out


def test_replay_html_holds_the_frames(saved, tmp_path):
    saved = saved[0]
    page = tmp_path / "replay.html"
    rc, out, err = run_cli("replay", str(saved), "--html", str(page))
    assert rc == 0, err and f"wrote {page}" in out
    text = page.read_text(encoding="utf-8")
    packed = re.search(r'<script id="match-data" type="application/octet-stream">([^<]*)</script>', text).group(1)
    data = unpack_frames(packed)
    record = load_match(saved)
    spec = get_spec("president_v0")
    k = 5
    for st in replay(record):
        if st.index == k:
            rec = st.env.state_record()[0]
            break
    for view, viewer in [(0, None), (2, 1)]:
        svg = "\n".join(data["lines"][i] for i in data["frames"][data["views"][view]["frames"][k]])
        assert svg == table_svg(spec, rec, viewer)
    assert data["views"][2]["label"] == "player_1 (random)"
    assert len(data["moves"]) == len(record.actions)


def test_play_save_numbers_many_games(tmp_path):
    path = tmp_path / "m.json"
    rc, out, err = run_cli("play", "odin", "--agents", "random", "--games", "3", "--seed", "1",
                           "--option", "single_round=true", "--save", str(path))
    assert rc == 0, err
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["m-001.json", "m-002.json", "m-003.json"]
    assert [load_match(tmp_path / n).seed for n in names] == [1, 2, 3]
    assert [p.name for p in numbered_paths("x/match.json", 1000)[:2]] == ["match-0001.json", "match-0002.json"]


def test_eval_save_every(tmp_path):
    folder = tmp_path / "sample"
    rc, out, err = run_cli("eval", "odin", "--agents", "heuristic,random", "--matches", "7", "--batch", "3",
                           "--option", "single_round=true", "--save-every", "3", "--save-dir", str(folder))
    assert rc == 0, err
    assert sorted(p.name for p in folder.iterdir()) == ["match-003.json", "match-006.json"]
    assert "saved 2 matches (every 3)" in out
    for number in (3, 6):
        record = load_match(folder / f"match-{number:03d}.json")
        # match m (from 0) seats slot (s + m) % P at seat s: the heuristic is slot 0
        assert record.agents.index("heuristic") == (-(number - 1)) % 4
        assert record.result is not None and record.result["scores"] is not None
        rc, out, _ = run_cli("replay", str(folder / f"match-{number:03d}.json"))
        assert rc == 0 and "match over" in out


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.update(env_id="president_v9"), "saved by president_v9 .*plays president_v0"),
    (lambda d: d.update(format_version=2), "format version 2"),
    (lambda d: d["actions"].__setitem__(0, 10**6), r"actions\[0\] must be an action number"),
])
def test_replay_refuses_bad_files_in_one_line(saved, tmp_path, change, message):
    saved = saved[0]
    data = json.loads(match_to_json(load_match(saved)))
    change(data)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    rc, out, err = run_cli("replay", str(bad))
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("cardenvs: error: bad.json: ")
    assert re.search(message, err)


def test_replay_usage_errors(saved, tmp_path):
    saved = saved[0]
    for argv, message in [
        (["replay", str(tmp_path / "none.json")], "cannot read"),
        (["replay", str(saved), "--seat", "4"], "--seat must be a seat 0..3"),
        (["replay", str(saved), "--step", "-1"], "--step must be at least 0"),
        (["replay", str(saved), "--step", "100000"], "--step 100000 is past the end"),
        (["replay", str(saved), "--html", str(tmp_path / "no" / "x.html")], "does not exist"),
        # the page holds every seat's view and every step: a seat or a step asked of it is refused, not dropped
        (["replay", str(saved), "--html", str(tmp_path / "x.html"), "--seat", "9"], "--seat cannot go with --html"),
        (["replay", str(saved), "--html", str(tmp_path / "x.html"), "--seat", "1"], "--seat cannot go with --html"),
        (["replay", str(saved), "--step", "2", "--html", str(tmp_path / "x.html")], "--step cannot go with --html"),
        (["play", "president", "--save", str(tmp_path)], "is a folder"),
        (["eval", "odin", "--agents", "random", "--matches", "2", "--save-every", "0"], "--save-every must be"),
    ]:
        rc, out, err = run_cli(*argv)
        assert rc == 2, (argv, out, err)
        assert err.startswith("cardenvs: error: ") and len(err.strip().splitlines()) == 1, err
        assert message in err, err
        assert out == "", (argv, out)  # every check before anything is shown
    assert not (tmp_path / "x.html").exists()


def test_replay_step_past_the_end_prints_nothing(saved):
    saved = saved[0]
    steps = len(load_match(saved).actions)
    rc, out, _ = run_cli("replay", str(saved), "--step", str(steps))
    assert rc == 0 and f"the table at step {steps}:" in out and "match over" in out
    rc, out, err = run_cli("replay", str(saved), "--step", str(steps + 1))
    assert rc == 2 and out == ""
    assert err.strip() == f"cardenvs: error: --step {steps + 1} is past the end of this match: its steps are 0..{steps}"


def test_replay_page_in_a_browser(saved, tmp_path):
    """The page opened from a file in headless Chromium (the system's): it unpacks its
    frames, steps, plays and switches views, with no error and no server."""
    import os
    import shutil

    sync_api = pytest.importorskip("playwright.sync_api")
    chromium = os.environ.get("CARDENVS_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        if os.environ.get("CARDENVS_REQUIRE_BROWSER") == "1":
            pytest.fail("no Chromium on the PATH (CARDENVS_REQUIRE_BROWSER=1)")
        pytest.skip("no Chromium on the PATH (set CARDENVS_CHROMIUM to its path)")
    saved = saved[0]
    record = load_match(saved)
    page_file = tmp_path / "replay.html"
    assert run_cli("replay", str(saved), "--html", str(page_file))[0] == 0
    env = make_raw("president_v0", single_round=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            requests: list[str] = []
            page.on("request", lambda r: requests.append(r.url))
            page.goto(page_file.as_uri())
            page.wait_for_selector("body[data-ready=true]", timeout=20_000)
            assert page.inner_text("#info") == f"step 0 of {len(record.actions)}: the start"
            page.keyboard.press("ArrowRight")
            first = env.action_to_str(record.actions[0])
            assert page.inner_text("#info").startswith(f"step 1 of {len(record.actions)}: player_")
            assert page.inner_text("#info").endswith(f" plays {first}")
            assert page.locator("#moves li").count() == len(record.actions)
            page.select_option("#view", "2")
            assert "seen by player_1" in page.inner_text("#table")
            page.click("#play")
            page.wait_for_function("document.getElementById('slider').value >= 3", timeout=10_000)
            page.click("#play")
            page.keyboard.press("End")
            assert page.input_value("#slider") == str(len(record.actions))
            assert errors == [] and requests == [page_file.as_uri()]
        finally:
            browser.close()
