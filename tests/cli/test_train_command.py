"""``cardenvs train METHOD``: one subcommand per method, each taking only its own flags
(argparse refuses another method's), each ``--help`` on one screen. The runs themselves
are tested in tests/training/."""

from __future__ import annotations

import argparse
import io

import pytest

from cardenvs.cli.main import build_parser, main
from cardenvs.cli.train import METHODS


def method_parsers() -> dict[str, argparse.ArgumentParser]:
    """The parser of each train method, from the CLI's own parser."""
    def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return dict(action.choices)

    return subparsers(subparsers(build_parser())["train"])


def flags(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {s: a for a in parser._actions for s in a.option_strings if s.startswith("--") and s != "--help"}


def with_value(flag: str, action: argparse.Action) -> list[str]:
    """The flag as a user gives it: with a value where it takes one."""
    if action.nargs == 0 or action.nargs == "?":
        return [flag]
    return [flag, str(action.choices[0]) if action.choices else "1"]


PARSERS = method_parsers()
FOREIGN = [(method, flag) for method in METHODS
           for flag in sorted(set().union(*(flags(PARSERS[m]) for m in METHODS if m != method))
                              - set(flags(PARSERS[method])))]


def test_the_methods_and_their_own_flags():
    assert set(PARSERS) == set(METHODS)
    own = {m: set(flags(p)) for m, p in PARSERS.items()}
    shared = {"--players", "--option", "--minutes", "--seed", "--out", "--threads", "--eval-matches", "--workers"}
    assert all(shared <= own[m] for m in METHODS)
    assert {"--resume", "--decisions", "--ray", "--num-envs", "--teacher-until"} <= own["ppo"] - own["search"]
    assert {"--samples", "--hands"} == own["search"] - own["ppo"] - own["scorer"]
    assert {"--iterations", "--points-weight", "--labelled-seat"} <= own["scorer"] - own["ppo"] - own["search"]
    assert "--fit-minutes" in own["search"] & own["scorer"] and "--fit-minutes" not in own["ppo"]
    assert "--single-round" in own["ppo"] & own["search"] and "--single-round" not in own["scorer"]
    assert "--method" not in set().union(*own.values())


@pytest.mark.parametrize("method, flag", FOREIGN)
def test_a_method_refuses_another_methods_flag(method, flag, capsys):
    game = "rami51" if method == "scorer" else "odin"
    given = with_value(flag, flags(PARSERS[next(m for m in METHODS if flag in flags(PARSERS[m]))])[flag])
    with pytest.raises(SystemExit) as exc:
        main(["train", method, game, *given], io.StringIO(), io.StringIO())
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"cardenvs: error: unrecognized arguments: {' '.join(given)}" in err, err


def test_the_methods_flags_are_refused_one_by_one():
    """The refusals above cover each method and every flag the others take."""
    refused = {m: {f for mm, f in FOREIGN if mm == m} for m in METHODS}
    assert {"--samples", "--fit-minutes", "--points-weight", "--iterations"} <= refused["ppo"]
    assert {"--resume", "--decisions", "--ray", "--points-weight", "--labelled-seat"} <= refused["search"]
    assert {"--samples", "--hands", "--resume", "--heuristic-input", "--single-round"} <= refused["scorer"]


@pytest.mark.parametrize("argv, message", [
    (["train"], "the following arguments are required: METHOD"),
    (["train", "odin", "--method", "search"], "invalid choice: 'odin'"),
    (["train", "search"], "the following arguments are required: game"),
    (["train", "scorer", "--iterations", "2"], "the following arguments are required: game"),
])
def test_a_method_and_its_game_are_required(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv, io.StringIO(), io.StringIO())
    assert exc.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["train", "ppo"], "train needs a game, or --resume FOLDER (not both)"),
    (["train", "ppo", "odin", "--resume", "runs/x"], "train needs a game, or --resume FOLDER (not both)"),
    (["train", "scorer", "odin"], "the card scorer is Rami 51's"),
])
def test_train_usage_errors_are_one_line(argv, message):
    pytest.importorskip("torch")
    err = io.StringIO()
    assert main(argv, io.StringIO(), err) == 2
    assert err.getvalue().startswith("cardenvs: error: ") and err.getvalue().count("\n") == 1
    assert message in err.getvalue()


def test_train_help_lists_the_methods(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit) as exc:
        main(["train", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for method in METHODS:
        assert f"\n    {method} " in text, text


@pytest.mark.parametrize("method", METHODS)
def test_each_methods_help_fits_one_screen(method, capsys, monkeypatch):
    """About 50 lines of 100 columns."""
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit) as exc:
        main(["train", method, "--help"])
    assert exc.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) <= 50, len(lines)
    assert max(len(line) for line in lines) <= 100
    assert lines[0].startswith(f"usage: cardenvs train {method} ")


def test_a_game_named_with_the_method_has_its_options_in_the_help(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit):
        main(["train", "ppo", "odin", "--help"])
    assert "options of odin_v1 (--option KEY=VALUE" in capsys.readouterr().out


@pytest.mark.parametrize("argv, workers, ray", [
    ([], 1, None),
    (["--workers", "2"], 2, None),
    (["--workers", "3", "--ray", "10.0.0.7:6379"], 3, "10.0.0.7:6379"),
])
def test_resume_runs_where_the_command_line_says(argv, workers, ray, monkeypatch, tmp_path):
    """``--resume``: the workers and the Ray address are the command line's, never the
    checkpoint's (a file being loaded does not choose where to connect)."""
    pytest.importorskip("torch")
    from cardenvs.agents.training.trainer import Trainer

    seen = {}

    class Stop(Exception):
        pass

    def resume(folder, **kwargs):
        seen.update(kwargs, folder=folder)
        raise Stop

    monkeypatch.setattr(Trainer, "resume", resume)
    (tmp_path / "checkpoint.pt").write_bytes(b"")  # a run's folder (the CLI looks before the trainer loads it)
    with pytest.raises(Stop):
        main(["train", "ppo", "--resume", str(tmp_path), *argv], out=io.StringIO(), err=io.StringIO())
    assert (seen["folder"], seen["workers"], seen["ray"]) == (str(tmp_path), workers, ray)
