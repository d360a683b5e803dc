"""Bad input at the command line and at the table: each refused as one line (exit status
2) before anything is built, naming what was wrong, never a traceback; a person's closed
or unreadable input ends or repeats the question as quitting and bad moves do."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cardenvs.cli.main import build_parser, main


def run_cli(*argv: str, inputs=None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(list(argv), out=out, err=err, input_fn=inputs)
    return rc, out.getvalue(), err.getvalue()


def one_line_usage_error(rc: int, err: str, message: str) -> None:
    assert rc == 2, err
    assert err.startswith("cardenvs: error: ") and err.count("\n") == 1, err
    assert message in err, err


class Built(Exception):
    """Raised by a stand-in for what a command builds once its input is checked."""


@pytest.fixture
def nothing_is_built(monkeypatch):
    """Whatever builds a game, a trainer or a run fails the test: the input must be
    refused before."""
    pytest.importorskip("torch")
    from cardenvs.agents.training import card_scorer, expert, trainer
    from cardenvs.cli import evaluate, play

    def built(*args, **kwargs):
        raise Built

    monkeypatch.setattr(play, "make", built)
    monkeypatch.setattr(evaluate, "make_agent", built)
    monkeypatch.setattr(trainer.Trainer, "__init__", built)
    monkeypatch.setattr(trainer.Trainer, "resume", built)
    monkeypatch.setattr(expert, "run_search", built)
    monkeypatch.setattr(card_scorer, "run_scorer", built)


# --------------------------------------------------------------------------- eval has no person
@pytest.mark.parametrize("agents", ["human", "heuristic,human", "random,HUMAN"])
def test_eval_refuses_a_person_at_the_table(agents):
    rc, _, err = run_cli("eval", "president", "--agents", agents, "--matches", "2")
    one_line_usage_error(rc, err, "take human out of --agents")


# --------------------------------------------------------------------------- seeds
@pytest.mark.parametrize("argv, message", [
    (["play", "president", "--seed", str(2**64)], "--seed must be below 2**64"),
    (["play", "president", "--seed", str(2**64 - 1), "--games", "2"], "the last match's seed"),
    (["play", "president", "--seed", str(2**64 - 3), "--games", "4"], "the most --seed can be is"),
    (["eval", "president", "--agents", "random", "--seed", str(2**64)], "--seed must be below 2**64"),
    (["eval", "president", "--agents", "random", "--seed", "-1"], "--seed must be >= 0"),
    (["soak", "president", "--seed", str(2**64)], "--seed must be below 2**64"),
    (["soak", "president", "--seed", "-5"], "--seed must be >= 0"),
    (["train", "ppo", "president", "--seed", str(2**70)], "--seed must be below 2**64"),
    (["train", "search", "odin", "--seed", str(2**64)], "--seed must be below 2**64"),
])
def test_a_seed_and_the_seeds_of_its_series_fit_the_envs(argv, message, nothing_is_built):
    rc, _, err = run_cli(*argv)
    one_line_usage_error(rc, err, message)


def test_the_last_seed_of_a_series_may_be_the_largest():
    rc, out, err = run_cli("play", "president", "--seed", str(2**64 - 2), "--games", "2",
                           "--option", "single_round=true")
    assert rc == 0, err
    assert f"seed {2**64 - 2}" in out and "2 matches in" in out
    # --render plays one match: only its seed counts
    rc, out, err = run_cli("play", "president", "--seed", str(2**64 - 1), "--games", "5", "--render",
                           "--option", "single_round=true")
    assert rc == 0 and "--render plays a single match" in err


# --------------------------------------------------------------------------- a closed or unreadable input
def test_step_pause_ends_the_command_when_the_input_is_closed():
    def closed(prompt: str) -> str:
        raise EOFError

    rc, out, err = run_cli("play", "president", "--render", "--step", "--seed", "1", "--option",
                           "single_round=true", "--agents", "heuristic", inputs=closed)
    assert rc == 0, err
    assert out.rstrip().endswith("quit") and "Traceback" not in err


def test_step_pause_goes_on_after_any_line():
    lines = iter(["", "\udcff", "x"])

    def reply(prompt: str) -> str:
        for line in lines:
            if line == "x":
                raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
            return line
        raise EOFError

    rc, out, _ = run_cli("play", "president", "--render", "--step", "--seed", "1", "--option",
                         "single_round=true", "--agents", "heuristic", inputs=reply)
    assert rc == 0 and out.rstrip().endswith("quit") and out.count("Président — round") >= 4


def test_step_pause_with_stdin_closed_in_a_process():
    done = subprocess.run(
        [sys.executable, "-m", "cardenvs", "play", "president", "--render", "--step", "--seed", "1",
         "--option", "single_round=true"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and done.stdout.rstrip().endswith("quit")


def test_a_line_that_is_not_utf8_is_refused_and_asked_again():
    """Bytes that are not UTF-8 on stdin: the line is refused like a bad move, and the
    lines after it are still read."""
    done = subprocess.run(
        [sys.executable, "-m", "cardenvs", "play", "president", "--agents", "human,random", "--seed", "5"],
        input=b"\xff\xfe7\n\xc3\n#0\nq\n", capture_output=True, timeout=300,
    )
    stdout, stderr = done.stdout.decode("utf-8"), done.stderr.decode("utf-8", "replace")
    assert done.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert stdout.count("cannot read that line (it is not UTF-8 text)") == 2
    assert "player_0 (human): " in stdout and stdout.rstrip().endswith("quit")


def test_an_input_function_failing_to_decode_is_asked_again():
    answers = iter(["bad", "q"])

    def reply(prompt: str) -> str:
        text = next(answers)
        if text == "bad":
            raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
        return text

    rc, out, _ = run_cli("play", "president", "--agents", "human,heuristic", "--seed", "1", inputs=reply)
    assert rc == 0 and "cannot read that line" in out and out.rstrip().endswith("quit")


# --------------------------------------------------------------------------- numbers
@pytest.mark.parametrize("argv, message", [
    (["train", "ppo", "president", "--threads", "-1"], "--threads must be at least 1, got -1"),
    (["train", "ppo", "president", "--threads", "0"], "--threads must be at least 1, got 0"),
    (["train", "ppo", "president", "--threads", str(2**31)], "--threads must be at most 1,024"),
    (["train", "search", "odin", "--threads", str(2**31)], "--threads must be at most 1,024"),
    (["train", "scorer", "rami51", "--threads", "5000"], "--threads must be at most 1,024"),
    (["train", "ppo", "president", "--num-envs", str(10**12)], "--num-envs must be at most 65,536"),
    (["train", "ppo", "president", "--eval-matches", str(10**12)], "--eval-matches must be at most 10,000,000"),
    (["train", "search", "odin", "--eval-matches", str(10**12)], "--eval-matches must be at most"),
    (["train", "scorer", "rami51", "--eval-matches", str(10**12)], "--eval-matches must be at most"),
    (["train", "search", "odin", "--samples", str(10**9)], "--samples must be at most 1,024"),
    (["train", "ppo", "president", "--eval-every", "-1"], "--eval-every must be a number > 0"),
    (["train", "ppo", "president", "--eval-every", "0"], "--eval-every must be a number > 0"),
    (["train", "ppo", "president", "--eval-every", "nan"], "--eval-every must be a number > 0, got nan"),
    (["train", "ppo", "president", "--minutes", "inf"], "--minutes must be a number > 0, got inf"),
    (["train", "ppo", "president", "--minutes", "1e999"], "--minutes must be a number > 0, got inf"),
    (["train", "ppo", "--resume", "x", "--threads", "-1"], "--threads must be at least 1"),
])
def test_train_numbers_are_checked_before_anything_is_built(argv, message, nothing_is_built, tmp_path):
    rc, _, err = run_cli(*argv, "--out", str(tmp_path / "run")) if "--resume" not in argv else run_cli(*argv)
    one_line_usage_error(rc, err, message)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("argv, message", [
    (["play", "president", "--delay", "nan", "--render"], "--delay must be a number >= 0 and at most 86400"),
    (["play", "president", "--delay", "inf", "--render"], "--delay must be a number >= 0"),
    (["play", "president", "--delay", "1e300", "--render"], "--delay must be a number >= 0 and at most 86400"),
    (["play", "president", "--delay", "-0.5", "--render"], "--delay must be a number >= 0"),
    (["play", "rami51", "--turn-seconds", "1e300"], "--turn-seconds must be a number >= 0 and at most 86400"),
    (["play", "rami51", "--turn-seconds", "nan"], "--turn-seconds must be a number >= 0"),
    (["play", "president", "--games", "-3"], "--games must be at least 1, got -3"),
    (["play", "president", "--agents", ""], "--agents needs at least one agent name"),
    (["eval", "president", "--agents", "random", "--batch", "0"], "--batch must be at least 1, got 0"),
    (["eval", "president", "--agents", "random", "--batch", str(10**12)], "--batch must be at most 65,536"),
    (["eval", "president", "--agents", "random", "--matches", "0"], "--matches must be at least 1"),
    (["eval", "president", "--agents", ","], "--agents needs at least one agent name"),
    (["soak", "president", "--threads", "0"], "--threads must be at least 1, got 0"),
    (["soak", "president", "--matches", "-1"], "--matches must be at least 1, got -1"),
])
def test_play_eval_and_soak_numbers_are_checked_before_a_game_is_built(argv, message, monkeypatch):
    from cardenvs.cli import common, play

    def built(*args, **kwargs):
        raise Built

    monkeypatch.setattr(play, "make", built)
    monkeypatch.setattr(common, "game_and_options", built)  # eval's and soak's
    rc, _, err = run_cli(*argv)
    one_line_usage_error(rc, err, message)


def test_step_and_delay_without_render_are_said_to_be_ignored():
    rc, out, err = run_cli("play", "president", "--step", "--seed", "2", "--option", "single_round=true")
    assert rc == 0 and "--step and --delay pace --render; without it they are ignored" in err


@pytest.mark.parametrize("flag", ["--seed", "--num-envs", "--eval-every", "--train-episodes", "--train-reward"])
def test_resume_refuses_the_settings_it_would_ignore(flag, tmp_path, nothing_is_built):
    (tmp_path / "checkpoint.pt").write_bytes(b"")
    value = {"--train-episodes": "round", "--train-reward": "round"}.get(flag, "3")
    rc, _, err = run_cli("train", "ppo", "--resume", str(tmp_path), flag, value)
    one_line_usage_error(rc, err, f"drop {flag}")


@pytest.mark.parametrize("flag", ["--heuristic-input", "--privileged-critic"])
def test_resume_refuses_a_network_switch(flag, tmp_path, nothing_is_built):
    (tmp_path / "checkpoint.pt").write_bytes(b"")
    rc, _, err = run_cli("train", "ppo", "--resume", str(tmp_path), flag)
    one_line_usage_error(rc, err, f"drop {flag}")


def test_resume_needs_a_run_there(tmp_path, nothing_is_built):
    rc, _, err = run_cli("train", "ppo", "--resume", str(tmp_path))
    one_line_usage_error(rc, err, "no checkpoint.pt to resume there")
    (tmp_path / "file").write_text("x")
    rc, _, err = run_cli("train", "ppo", "--resume", str(tmp_path / "file"))
    one_line_usage_error(rc, err, "no checkpoint.pt to resume there")


# --------------------------------------------------------------------------- the output folder
RUN_FILES = {"ppo": "checkpoint.pt", "search": "policy.npz", "scorer": "scorer.npz"}
GAMES = {"ppo": "president", "search": "odin", "scorer": "rami51"}


def _train(method: str, out: str | None) -> tuple[int, str, str]:
    return run_cli("train", method, GAMES[method], *(["--out", out] if out is not None else []))


@pytest.mark.parametrize("method", list(RUN_FILES))
def test_train_out_holding_a_run_is_refused_before_anything_is_built(method, tmp_path, nothing_is_built):
    (tmp_path / RUN_FILES[method]).write_bytes(b"")
    rc, _, err = _train(method, str(tmp_path))
    one_line_usage_error(rc, err, f"--out: {str(tmp_path)!r} holds a run already")


@pytest.mark.parametrize("method", list(RUN_FILES))
def test_train_out_that_is_a_file_or_cannot_be_made_is_refused(method, tmp_path, nothing_is_built):
    afile = tmp_path / "afile"
    afile.write_text("x")
    rc, _, err = _train(method, str(afile))
    one_line_usage_error(rc, err, f"--out {str(afile)!r} is a file, not a folder")
    rc, _, err = _train(method, str(afile / "run"))
    one_line_usage_error(rc, err, f"--out {str(afile / 'run')!r} cannot be made: {str(afile)!r} is a file")
    rc, _, err = _train(method, "")
    one_line_usage_error(rc, err, "--out must name a folder, got ''")
    rc, _, err = _train(method, str(tmp_path / ("x" * 5000)))
    one_line_usage_error(rc, err, "is no usable folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


@pytest.mark.parametrize("method", list(RUN_FILES))
def test_train_out_that_cannot_be_written_is_refused(method, tmp_path, monkeypatch, nothing_is_built):
    real_access = os.access
    locked = tmp_path / "locked"
    locked.mkdir()
    # (as root every folder is writable: the check is told this one is not)
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: Path(p) != locked and real_access(p, mode, **kw))
    rc, _, err = _train(method, str(locked / "a" / "run"))
    one_line_usage_error(rc, err, f"cannot be written: {str(locked)!r} is not writable")


@pytest.mark.parametrize("method", list(RUN_FILES))
def test_the_default_out_is_checked_too(method, tmp_path, monkeypatch, nothing_is_built):
    monkeypatch.chdir(tmp_path)
    default = {"ppo": "runs/president-0", "search": "runs/odin-search-0", "scorer": "runs/rami51-scorer-0"}[method]
    Path(default).mkdir(parents=True)
    (Path(default) / RUN_FILES[method]).write_bytes(b"")
    rc, _, err = _train(method, None)
    one_line_usage_error(rc, err, f"the output folder (--out): {default!r} holds a run already")


@pytest.fixture
def ppo_config(monkeypatch):
    """What ``train ppo`` hands the trainer: ``seen["config"]``, the run stopped there."""
    pytest.importorskip("torch")
    from cardenvs.agents.training import trainer

    seen = {}

    def init(self, config, out=None, err=None):
        seen["config"] = config
        raise Built

    monkeypatch.setattr(trainer.Trainer, "__init__", init)
    return seen


def test_a_good_out_reaches_the_trainer_untouched(tmp_path, ppo_config):
    with pytest.raises(Built):
        _train("ppo", str(tmp_path / "new" / "run"))
    config = ppo_config["config"]
    assert config.out == str(tmp_path / "new" / "run") and config.seed == 0 and config.num_envs == 256
    assert config.eval_every_minutes == 5.0 and not config.train_single_round
    assert not (tmp_path / "new").exists()  # the trainer makes it when the run starts


# --------------------------------------------------------------------------- --option before the game
def test_split_option_values():
    from cardenvs.cli.common import OPTION_FLAGS, split_option_values

    assert split_option_values(["play", "--option", "a=1", "b=2", "president"]) == [
        "play", "--option", "a=1", "--option", "b=2", "president"]
    assert split_option_values(["play", "x", "--option=a=1", "b=2", "--games", "3"]) == [
        "play", "x", "--option=a=1", "--option", "b=2", "--games", "3"]
    assert split_option_values(["play", "--opt", "a", "b=1"]) == ["play", "--opt", "a", "--option", "b=1"]
    assert split_option_values(["play", "--option"]) == ["play", "--option"]
    assert split_option_values(["play", "x", "--", "--option", "a=1", "b=2"]) == [
        "play", "x", "--", "--option", "a=1", "b=2"]
    # no other flag of any command is an abbreviation the split would take for --option
    def flags(parser):
        found = {s for a in parser._actions for s in a.option_strings}
        for a in parser._actions:
            for sub in (getattr(a, "choices", None) or {}).values() if hasattr(a, "_name_parser_map") else ():
                found |= flags(sub)
        return found

    every = flags(build_parser())
    assert "--option" in every
    assert not [f for f in every - {"--option"} if any(f.startswith(o) for o in OPTION_FLAGS)]


@pytest.mark.parametrize("argv", [
    ["play", "--option", "single_round=true", "president", "--seed", "3", "--games", "2"],
    ["play", "--option", "single_round=true", "target_score=3", "president", "--seed", "3", "--games", "2"],
    ["play", "president", "--option", "single_round=true", "target_score=3", "--seed", "3", "--games", "2"],
    ["play", "--option", "single_round=true", "--option", "target_score=3", "president", "--seed", "3",
     "--games", "2"],
])
def test_option_before_or_after_the_game(argv):
    rc, out, err = run_cli(*argv)
    assert rc == 0, err
    assert out.startswith("president_v0: 4 players") and "single_round=True" in out


def test_option_before_the_game_in_train(ppo_config, tmp_path):
    with pytest.raises(Built):
        main(["train", "ppo", "--option", "single_round=true", "target_score=5", "president", "--out",
              str(tmp_path / "r")], io.StringIO(), io.StringIO())
    assert ppo_config["config"].game == "president_v0" and ppo_config["config"].single_round
    assert ppo_config["config"].options == {"target_score": 5}


def test_a_word_after_the_options_that_is_no_option_is_refused_as_itself(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["play", "president", "--option", "single_round=true", "extra"], io.StringIO(), io.StringIO())
    assert exc.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == "cardenvs: error: unrecognized arguments: extra"
    rc, _, err = run_cli("play", "president", "--option", "single_round")  # the flag's own value: any word
    one_line_usage_error(rc, err, "--option expects key=value, got 'single_round'")


def test_help_names_the_game_after_the_options(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit):
        main(["play", "--option", "single_round=true", "--players", "5", "president", "--help"])
    assert "options of president_v0" in capsys.readouterr().out


# --------------------------------------------------------------------------- options said twice or against a flag
@pytest.mark.parametrize("words", [["target_score=3", "target_score=4"], ["target-score=3", "target_score=3"]])
def test_an_option_given_twice_is_refused(words):
    rc, _, err = run_cli("play", "president", "--seed", "1", "--option", *words)
    one_line_usage_error(rc, err, "--option target_score is given twice")


@pytest.mark.parametrize("method, game", [("ppo", "president"), ("search", "odin")])
def test_single_round_flag_and_option_must_agree(method, game, tmp_path, nothing_is_built):
    rc, _, err = run_cli("train", method, game, "--single-round", "--option", "single_round=false",
                         "--out", str(tmp_path / "run"))
    one_line_usage_error(rc, err, "--single-round contradicts --option single_round=false")
