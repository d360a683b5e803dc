"""The ``cardenvs`` command line: list, rules, play (and a person at the table), warmup,
the option helpers; ``train``'s parser is tested in test_train_command.py."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cardenvs import get_spec, make_raw
from cardenvs.cli.common import parse_options, parse_value, seat_names
from cardenvs.cli.main import main

SPEC = get_spec("president")


def run_cli(*argv: str, inputs=None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), out=out, err=err, input_fn=inputs)
    return rc, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------- cli helpers
def test_parse_helpers():
    assert parse_value("true") is True and parse_value("False") is False
    assert parse_value("7") == 7 and parse_value("0.5") == 0.5 and parse_value("match") == "match"
    assert parse_options(SPEC, ["single_round=yes", "target-score=5"], 6) == {
        "single_round": True,
        "target_score": 5,
        "num_players": 6,
    }
    assert seat_names(["heuristic", "random"], 5) == ["heuristic", "random", "random", "random", "random"]


# --------------------------------------------------------------------------- cli
def test_list():
    rc, out, _ = run_cli("list")
    assert rc == 0
    assert "president_v0" in out and "4-10 players" in out and "rules: cardenvs rules president" in out
    assert max(len(line) for line in out.splitlines()) < 80


def test_play_many_games_table_and_rotation():
    rc, out, err = run_cli(
        "play",
        "president",
        "--agents",
        "heuristic,random",
        "--players",
        "5",
        "--games",
        "5",
        "--seed",
        "4",
        "--option",
        "single_round=true",
    )
    assert rc == 0
    assert "seats heuristic,random,random,random,random" in out  # the last agent fills the remaining seats
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith(("heuristic ", "random "))}
    assert rows["heuristic"][1] == "5" and rows["random"][1] == "20"  # 5 matches x 1 and x 4 seats
    wins = float(rows["heuristic"][2]) + float(rows["random"][2])
    assert wins == pytest.approx(5.0)
    assert err.endswith("5/5 matches\n") and "\r" in err


def test_play_default_agent_and_seed_reproducible():
    a = run_cli("play", "president", "--games", "2", "--seed", "11", "--option", "single_round=true")
    b = run_cli("play", "president", "--games", "2", "--seed", "11", "--option", "single_round=true")
    assert a[0] == 0 and "seats heuristic,heuristic,heuristic,heuristic" in a[1]
    strip = [re.sub(r"in [\d.]+ s", "", x[1]) for x in (a, b)]
    assert strip[0] == strip[1]


def test_render_one_match():
    rc, out, err = run_cli(
        "play",
        "president",
        "--render",
        "--games",
        "3",
        "--seed",
        "2",
        "--option",
        "single_round=true",
        "--agents",
        "heuristic,random",
    )
    assert rc == 0 and "single match" in err
    lines = re.findall(r"^player_\d \((?:heuristic|random)\): (.+?)(?: \(the only legal move\))?$", out, re.M)
    assert len(lines) > 10
    # a move said in words around its card notation ("plays 77"), with what it means in an offer
    # ("passes (declines ...)")
    moves = [re.sub(r" \((?:declines|completes) .* out of turn\)$", "", line) for line in lines]
    for move in moves:
        SPEC.module.str_to_action({"passes": "pass"}.get(move, re.sub(r"^(plays|gives back a) ", "", move)))
    assert any(m != line for m, line in zip(moves, lines, strict=True))
    # the table before and after every move (forced passes in an offer are not listed)
    assert out.count("Président — round") > len(moves) + 1
    assert "match over: winner" in out and "1 match in" in out


def _scripted_human(out: io.StringIO, script: list[str]):
    """Answers from ``script``, then the last legal move of the latest list, in card notation."""
    answers = iter(script)

    def reply(prompt: str) -> str:
        for text in answers:
            return text
        block = out.getvalue().rsplit("legal moves:", 1)[1]
        legal = re.findall(r"#\d+ (.+?)(?=   #\d+ |\n|$)", block)
        return legal[-1]

    return reply


def test_human_plays_a_round():
    out, err = io.StringIO(), io.StringIO()
    inputs = _scripted_human(out, ["", "nonsense", "12", "77777", "#99", "#0"])
    rc = main(
        ["play", "president", "--agents", "human,heuristic", "--seed", "3", "--option", "single_round=true"],
        out=out,
        err=err,
        input_fn=inputs,
    )
    text = out.getvalue()
    assert rc == 0, err.getvalue()
    assert "=== your turn: player_0 ===" in text and "legal moves:   #0 " in text
    assert "cannot read 'nonsense'" in text and "is not legal now" in text
    assert "to pick move 12 of the list, type #12" in text and "'#99': choose #0 .." in text
    assert "match over: winner" in text
    # the human's view never shows another player's cards
    for block in text.split("=== your turn: ")[1:]:
        seat = block[len("player_")]
        for line in block.splitlines()[1:7]:
            if line.strip().startswith("player_") and f"player_{seat} " not in line:
                assert re.search(r": \d+ cards?$|: \(none\)$", line), line


def test_human_quit_and_interrupt():
    rc, out, _ = run_cli("play", "president", "--agents", "human,heuristic", "--seed", "1", inputs=lambda _: "q")
    assert rc == 0 and "quit" in out

    def ctrl_c(_: str) -> str:
        raise KeyboardInterrupt

    rc, out, err = run_cli("play", "president", "--agents", "human,heuristic", "--seed", "1", inputs=ctrl_c)
    assert rc == 130 and "interrupted after 0 of 1 matches" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["play", "nope"], "unknown game 'nope'"),
        (["play", "president", "--agents", "heuristic,robot"], "unknown agent 'robot'"),
        (["play", "president", "--option", "colour=red"], "unknown option 'colour'"),
        (["play", "president", "--option", "single_round"], "expects key=value"),
        (["play", "president", "--players", "3"], "num_players must be"),
        (["play", "president", "--players", "5", "--option", "num_players=6"], "contradicts"),
        (["play", "president", "--games", "0"], "--games must be at least 1"),
    ],
)
def test_bad_input_one_line_exit_2(argv, message):
    rc, out, err = run_cli(*argv)
    assert rc == 2
    assert message in err and err.count("\n") == 1 and err.startswith("cardenvs: error: ")


def test_python_dash_m_subprocess():
    ok = subprocess.run(
        [sys.executable, "-m", "cardenvs", "play", "president", "--agents", "human,random", "--seed", "5"],
        input="zzz\n1\nq\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert "cannot read 'zzz'" in ok.stdout and "quit" in ok.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "cardenvs", "play", "nope"], capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 2 and bad.stderr.strip().count("\n") == 0


def test_version_flag(capsys):
    import cardenvs
    from cardenvs.cli.main import main

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"cardenvs {cardenvs.__version__}"


def test_rules_pages_print_and_ship_with_the_package():
    import cardenvs

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    repo = Path(cardenvs.__file__).resolve().parent.parent
    for spec in cardenvs.list_games():
        out = io.StringIO()
        assert main(["rules", spec.name], out=out) == 0
        text = out.getvalue()
        assert text.startswith("# ") and f"`{spec.env_id}`" in text.splitlines()[0]
        assert text == (repo / spec.doc).read_text(encoding="utf-8")
        assert Path(spec.doc).parent.as_posix() == "docs/games"
    listed = io.StringIO()
    main(["list"], out=listed)
    assert "rules: cardenvs rules frime" in listed.getvalue() and "docs/" not in listed.getvalue()
    err = io.StringIO()
    assert main(["rules", "presidnet"], err=err) == 2 and "did you mean 'president'" in err.getvalue()
    # a wheel installs docs/games/*.md as cardenvs/pages/ (where rules_page looks first)
    setup = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "cardenvs.pages" in setup["packages"]
    assert setup["package-dir"]["cardenvs.pages"] == "docs/games"
    assert setup["package-data"]["cardenvs.pages"] == ["*.md"]


def test_a_compile_notice_until_the_kernels_are_cached(capsys, monkeypatch, request):
    from cardenvs.core import jitcache, prebuilt
    from cardenvs.games import odin

    monkeypatch.setenv(prebuilt.SWITCH_ENV, "0")  # kernels prebuilt for this install would serve
    prebuilt.reset()
    request.addfinalizer(prebuilt.reset)  # forget the answer given while switched off
    marker = jitcache._marker(odin)
    assert marker is not None and jitcache.kernel_stamp()[:16] in marker.name
    monkeypatch.setattr(jitcache, "_announced", set())
    if marker.exists():
        marker.unlink()
    jitcache.announce_compile(odin, "Odin")
    assert "compiling the Odin kernels" in capsys.readouterr().err
    jitcache.announce_compile(odin, "Odin")  # once per process
    assert capsys.readouterr().err == ""
    jitcache.mark_compiled(odin)
    assert marker.exists()
    monkeypatch.setattr(jitcache, "_announced", set())
    jitcache.announce_compile(odin, "Odin")
    assert capsys.readouterr().err == ""


def test_cli_warmup():
    out = io.StringIO()
    assert main(["warmup", "odin"], out, io.StringIO()) == 0
    assert "odin_v1: ready in" in out.getvalue() and "all kernels ready" in out.getvalue()
    err = io.StringIO()
    assert main(["warmup", "nope"], io.StringIO(), err) == 2
    err = io.StringIO()
    assert main(["warmup", "odin", "--jobs", "0"], io.StringIO(), err) == 2
    assert "--jobs must be at least 1, got 0" in err.getvalue()


def test_warmup_native_switches_the_prebuilt_kernels_off_while_it_compiles(monkeypatch):
    from cardenvs.cli import warmup
    from cardenvs.core import prebuilt

    seen = []

    def fake_warm_games(env_ids, jobs):
        seen.append(os.environ.get(prebuilt.SWITCH_ENV))
        yield from ((env_id, 0.0) for env_id in env_ids)

    monkeypatch.setattr(warmup, "warm_games", fake_warm_games)
    monkeypatch.delenv(prebuilt.SWITCH_ENV, raising=False)
    out = io.StringIO()
    assert main(["warmup", "odin", "--native"], out, io.StringIO()) == 0
    assert seen == ["0"] and prebuilt.SWITCH_ENV not in os.environ  # the spawned games inherit it; then undone
    assert "odin_v1: ready in" in out.getvalue()
    out = io.StringIO()
    assert main(["warmup", "odin"], out, io.StringIO()) == 0
    assert seen == ["0", None]
    from cardenvs.core.jitcache import kernel_stamp

    assert out.getvalue().splitlines()[0] == f"cardenvs: {prebuilt.status(kernel_stamp())}"


def test_no_compile_notice_for_a_game_with_prebuilt_kernels(capsys, monkeypatch):
    from cardenvs.core import jitcache, prebuilt
    from cardenvs.games import odin

    monkeypatch.setattr(jitcache, "_announced", set())
    monkeypatch.setattr(prebuilt, "has_game", lambda game, stamp: game == "odin")
    monkeypatch.setattr(jitcache, "_marker", lambda module: Path("/nonexistent/marker"))
    assert jitcache.is_compiled(odin)
    jitcache.announce_compile(odin, "Odin")
    assert capsys.readouterr().err == ""


def test_warmup_compiles_games_side_by_side_in_processes_of_their_own():
    # the command over warm_games (the suite's own warm-up): a process a game, each one timed
    out = io.StringIO()
    assert main(["warmup", "president", "odin", "--jobs", "2"], out, io.StringIO()) == 0
    ready = dict(re.findall(r"^(\w+): ready in ([\d.]+) s$", out.getvalue(), re.M))
    assert set(ready) == {"president_v0", "odin_v1"} and all(float(s) > 0 for s in ready.values())


@pytest.mark.parametrize("env_id", ["odin_v1", "rami51_v3"])
def test_a_whole_play_typed_on_one_line(env_id):
    """The cards of a play (Odin) or a meld (Rami 51), typed on one line, become the moves
    of that play: the opening `meld` and the closing `play`/`close` added."""
    from cardenvs.cli.console import parse_human_line

    module = get_spec(env_id).module
    opener, closer = getattr(module, "LINE_OPENER", None), module.LINE_FINISHER
    checked = 0
    for seed in range(40):
        env = make_raw(env_id)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(400):
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                break
            legal = env.legal_actions()
            first = env.action_to_str(legal[0])
            starts = [a for a in legal if env.action_to_str(a).split()[0] in ("select", opener)]
            if not starts:
                env.step(int(rng.choice(legal)))
                continue
            # play a random play to its end on a copy: its moves, and the line of its cards
            sim, moves = env.clone(), []
            a = int(rng.choice(starts))
            while True:
                moves.append(a)
                sim.step(a)
                if env.action_to_str(a) == closer or sim.agent_selection != agent:
                    break
                nxt = sim.legal_actions()
                finisher = [x for x in nxt if sim.action_to_str(x) == closer]
                adds = [x for x in nxt if sim.action_to_str(x).split()[0] in ("select", "add")]
                if finisher and (not adds or rng.random() < 0.5):
                    a = finisher[0]
                elif adds:
                    a = int(rng.choice(adds))
                else:
                    break
            if env.action_to_str(moves[-1]) != closer:
                env.step(int(rng.choice(legal)))
                continue
            cards = [env.action_to_str(m).split(" ", 1)[1] for m in moves if " " in env.action_to_str(m)]
            assert parse_human_line(env, " ".join(cards), legal) == moves, (first, cards)
            if env_id.startswith("odin"):  # a play's cards in any order
                assert parse_human_line(env, " ".join(reversed(cards)), legal) == moves, (first, cards)
            checked += 1
            for m in moves:
                env.step(m)
        if checked >= 10:
            break
    assert checked >= 10


def test_an_odin_play_with_its_take_typed_in_any_order():
    from cardenvs.cli.console import parse_human_line

    env = make_raw("odin_v1")
    env.reset(seed=0, options={"scenario": {"hands": ["1o 2o", "6g 7g 9b", "3y 4y 5y", "6p 7p 8p 9p"], "current": 1,
                                            "table": ["5r", "4r"], "last_player": 0}})
    legal = env.legal_actions()
    wanted = [env.str_to_action(m) for m in ("select 7g", "select 6g", "take 4r")]
    for line in ("6g 7g take 4r", "7g 6g take 4r", "7g, 6g take 4r"):
        assert parse_human_line(env, line, legal) == wanted, line
    with pytest.raises(ValueError):
        parse_human_line(env, "6g 7g take 9b", legal)  # 9b is not on the table


@pytest.mark.parametrize(("game", "default"), [("rami51", 30.0), ("frime", 0.0), ("classes", 0.0), ("odin", 0.0)])
def test_only_rami51_times_a_turn_unless_asked(game, default):
    from cardenvs.cli.console import turn_seconds
    from cardenvs.envs import make

    env = make(game)
    assert turn_seconds(env) == default  # the rule texts: Rami 51's 30-second turn alone
    asked = 0.0 if game == "odin" else 12.0  # Odin has no timer at all; the rummies take one
    assert turn_seconds(env, 12.0) == asked


def test_turn_seconds_is_checked_and_said_to_be_ignored_without_a_timer():
    code, _, err = run_cli("play", "rami51", "--turn-seconds", "-1", "--seed", "0")
    assert code == 2 and "--turn-seconds must be a number >= 0" in err
    code, out, err = run_cli("play", "president", "--turn-seconds", "5", "--seed", "0")
    assert code == 0 and "has no turn timer; --turn-seconds is ignored" in err and "1 match in" in out


def test_rules_pages_through_a_pager_on_a_terminal_only(monkeypatch):
    import pydoc
    import sys

    paged = []
    monkeypatch.setattr(pydoc, "pager", paged.append)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    assert main(["rules", "odin"], sys.stdout, io.StringIO()) == 0
    assert len(paged) == 1 and paged[0].startswith("# Odin")
    out = io.StringIO()  # a file or a pipe: the whole page, no pager
    assert main(["rules", "odin"], out, io.StringIO()) == 0
    assert out.getvalue() == paged[0] and len(paged) == 1
