"""The agents (interface, legality, strength) and the ``cardenvs`` command line."""

from __future__ import annotations

import dataclasses
import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cardenvs import get_spec, make_raw, make_vec
from cardenvs.agents import AGENT_NAMES, available_agents, has_heuristic, make_agent
from cardenvs.agents.base import Agent
from cardenvs.agents.evaluate import evaluate
from cardenvs.cli.main import main, parse_options, parse_value, seat_names

SPEC = get_spec("president")


def run_cli(*argv: str, inputs=None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), out=out, err=err, input_fn=inputs)
    return rc, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------- agents
def test_registry_names():
    from cardenvs.agents.ppo import has_baseline

    names = [n for n in AGENT_NAMES if n != "ppo" or has_baseline(SPEC)]
    assert available_agents(SPEC) == [*names, "ppo:PATH"]
    for name in names:
        agent = make_agent(name, SPEC, seed=1)
        assert isinstance(agent, Agent) and agent.name == name
    with pytest.raises(ValueError, match="available agents: random, heuristic, human"):
        make_agent("alphazero", SPEC)


def test_game_without_heuristic():
    other = dataclasses.replace(SPEC, name="nogame", env_id="nogame_v0")
    assert not has_heuristic(other)
    assert available_agents(other) == ["random", "human", "ppo:PATH"]
    with pytest.raises(ValueError, match="no heuristic agent for 'nogame'; available agents: random, human, ppo:PATH"):
        make_agent("heuristic", other)


def test_random_agent_single_and_empty_mask():
    agent = make_agent("random", SPEC, seed=3)
    mask = np.zeros(SPEC.module.NUM_ACTIONS, dtype=bool)
    mask[[0, 5, 9]] = True
    obs = np.zeros(SPEC.module.OBS_SIZE, dtype=np.float32)
    picks = {agent.act(obs, mask) for _ in range(200)}
    assert picks == {0, 5, 9}
    with pytest.raises(ValueError, match="no legal action"):
        agent.act(obs, np.zeros_like(mask))
    out = agent.act_batch(np.stack([obs, obs]), np.stack([mask, np.zeros_like(mask)]))
    assert out[0] in (0, 5, 9) and out[1] == -1


def test_human_agent_is_cli_only():
    human = make_agent("human", SPEC)
    assert human.is_human
    with pytest.raises(RuntimeError, match="through the CLI"):
        human.act(np.zeros(SPEC.module.OBS_SIZE), np.ones(SPEC.module.NUM_ACTIONS, dtype=bool))


def test_rami51_heuristic_reads_its_int16_observation_as_floats_would_be():
    """The Rami 51 heuristic's kernels take the game's int16 observation without a
    conversion: the same moves as from the observation in float32 (the dtype the other
    heuristics read), act and act_batch alike; a fraction or an out-of-range number is
    refused, not truncated."""
    rami = get_spec("rami51")
    heur = make_agent("heuristic", rami)
    assert heur.obs_dtype == np.int16 == rami.module.OBS_DTYPE
    env = make_vec("rami51", num_envs=64, seed=8)
    rng = np.random.default_rng(8)
    st = env.reset()
    for step in range(300):
        obs, mask = st.observation, st.legal_action_mask
        assert obs.dtype == np.int16
        h = heur.act_batch(obs, mask)
        as_floats = np.empty(len(obs), np.int64)
        type(heur).decide_batch(obs.astype(np.float32), mask.astype(np.bool_), heur._layout, heur._tuning, as_floats)
        assert np.array_equal(h, as_floats)
        assert np.array_equal(heur.act_batch(obs.astype(np.float64), mask), h)  # whole numbers in floats: accepted
        if step % 50 == 0:
            assert all(heur.act(obs[i], mask[i]) == h[i] for i in range(0, 64, 8))
        rand = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        st = env.step(np.where(rng.random(64) < 0.3, rand, h))
    for bad in (obs + 0.5, obs.astype(np.int64) + 40_000, np.full(obs.shape, np.nan)):
        with pytest.raises(ValueError, match="whole numbers within int16"):
            heur.act_batch(bad, mask)
    with pytest.raises(ValueError, match="whole numbers within int16"):
        heur.act(obs[0] + 0.5, mask[0])


@pytest.mark.parametrize("players", [4, 5, 8, 10])
def test_agents_always_legal(players):
    """Heuristic and random pick legal actions in states reached by a mix of both;
    the heuristic's act and act_batch agree."""
    n = 128
    env = make_vec("president", num_envs=n, seed=players, num_players=players)
    heur = make_agent("heuristic", SPEC)
    rand = make_agent("random", SPEC, seed=players)
    rng = np.random.default_rng(players)
    st = env.reset()
    for step in range(250):
        h = heur.act_batch(st.observation, st.legal_action_mask)
        r = rand.act_batch(st.observation, st.legal_action_mask)
        rows = np.arange(n)
        assert st.legal_action_mask[rows, h].all(), "heuristic chose an illegal action"
        assert st.legal_action_mask[rows, r].all(), "random chose an illegal action"
        if step % 25 == 0:
            for i in range(0, n, 16):
                assert heur.act(st.observation[i], st.legal_action_mask[i]) == h[i]
        st = env.step(np.where(rng.random(n) < 0.5, h, r))


def test_heuristic_beats_random():
    """Measured (2,000 matches): 4 players, full matches ~100% (fair share 25%);
    5 players, single rounds ~66% (fair share 20%). Thresholds sit far below."""
    res = evaluate(SPEC, [make_agent("heuristic", SPEC)] + [make_agent("random", SPEC, seed=k) for k in (1, 2, 3)], 200)
    assert res[0].win_rate > 0.8
    assert res[0].mean_score > max(r.mean_score for r in res[1:]) + 3
    agents5 = [make_agent("heuristic", SPEC)] + [make_agent("random", SPEC, seed=k) for k in range(1, 5)]
    res5 = evaluate(SPEC, agents5, 200, seed=9, options={"num_players": 5, "single_round": True})
    assert res5[0].win_rate > 0.4
    assert all(r.win_rate < 0.2 for r in res5[1:])


# --------------------------------------------------------------------------- cli helpers
def test_parse_helpers():
    assert parse_value("true") is True and parse_value("False") is False
    assert parse_value("7") == 7 and parse_value("0.5") == 0.5 and parse_value("match") == "match"
    assert parse_options(SPEC, ["single_round=yes", "target-score=5"], 6) == {
        "single_round": True,
        "target_score": 5,
        "num_players": 6,
    }
    assert seat_names(["heuristic", "random"], 5) == ["heuristic", "random", "heuristic", "random", "heuristic"]


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
    assert "seats heuristic,random,heuristic,random,heuristic" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith(("heuristic ", "random "))}
    assert rows["heuristic"][1] == "15" and rows["random"][1] == "10"  # 5 matches x 3 and x 2 seats
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
    # a move in card notation, with what it means in an offer ("pass (declines ...)")
    moves = [re.sub(r" \((?:declines|completes) .* out of turn\)$", "", line) for line in lines]
    for move in moves:
        SPEC.module.str_to_action(move)
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
                assert re.search(r": \d+ cards$|: \(none\)$", line), line


def test_human_quit_and_interrupt():
    rc, out, _ = run_cli("play", "president", "--agents", "human", "--seed", "1", inputs=lambda _: "q")
    assert rc == 0 and "quit" in out

    def ctrl_c(_: str) -> str:
        raise KeyboardInterrupt

    rc, out, err = run_cli("play", "president", "--agents", "human", "--seed", "1", inputs=ctrl_c)
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


def test_a_compile_notice_until_the_kernels_are_cached(capsys, monkeypatch):
    from cardenvs.core import jitcache
    from cardenvs.games.odin import rules as odin

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


@pytest.mark.parametrize("env_id", ["odin_v1", "rami51_v2"])
def test_a_whole_play_typed_on_one_line(env_id):
    """The cards of a play (Odin) or a meld (Rami 51), typed on one line, become the moves
    of that play: the opening `meld` and the closing `play`/`close` added."""
    from cardenvs.cli.main import LINE_FINISHERS, LINE_OPENERS, parse_human_line

    game = env_id.split("_")[0]
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
            starts = [a for a in legal if env.action_to_str(a).split()[0] in ("select", LINE_OPENERS.get(game))]
            if not starts:
                env.step(int(rng.choice(legal)))
                continue
            # play a random play to its end on a copy: its moves, and the line of its cards
            sim, moves = env.clone(), []
            a = int(rng.choice(starts))
            while True:
                moves.append(a)
                sim.step(a)
                if env.action_to_str(a) == LINE_FINISHERS[game] or sim.agent_selection != agent:
                    break
                nxt = sim.legal_actions()
                finisher = [x for x in nxt if sim.action_to_str(x) == LINE_FINISHERS[game]]
                adds = [x for x in nxt if sim.action_to_str(x).split()[0] in ("select", "add")]
                if finisher and (not adds or rng.random() < 0.5):
                    a = finisher[0]
                elif adds:
                    a = int(rng.choice(adds))
                else:
                    break
            if env.action_to_str(moves[-1]) != LINE_FINISHERS[game]:
                env.step(int(rng.choice(legal)))
                continue
            cards = [env.action_to_str(m).split(" ", 1)[1] for m in moves if " " in env.action_to_str(m)]
            assert parse_human_line(env, " ".join(cards), legal) == moves, (first, cards)
            checked += 1
            for m in moves:
                env.step(m)
        if checked >= 10:
            break
    assert checked >= 10


def test_turn_seconds_is_checked_and_said_to_be_ignored_without_a_timer():
    code, _, err = run_cli("play", "rami51", "--turn-seconds", "-1", "--seed", "0")
    assert code == 2 and "--turn-seconds must be a number >= 0" in err
    code, out, err = run_cli("play", "president", "--turn-seconds", "5", "--seed", "0")
    assert code == 0 and "has no turn timer; --turn-seconds is ignored" in err and "1 match in" in out


@pytest.mark.parametrize("game", ["president", "odin", "rami51", "frime", "classes"])
def test_each_shipped_baseline_plays_only_legal_moves(game):
    """The shipped ``ppo`` baselines (residual ones run the heuristic beside their
    network) play legal moves only; the env raises otherwise."""
    import cardenvs
    from cardenvs.agents.ppo import PolicyNetwork, baseline_path

    spec = cardenvs.get_spec(game)
    opts = PolicyNetwork.load(baseline_path(spec)).game_options()
    assert opts["num_players"] == 4 and "reward_mode" not in opts
    agent = make_agent("ppo", spec, options=opts)
    env = cardenvs.make_vec(game, 16, seed=5, illegal_action="raise", **opts)
    st = env.reset()
    for _ in range(300):
        st = env.step(agent.act_batch(st.observation, st.legal_action_mask))
