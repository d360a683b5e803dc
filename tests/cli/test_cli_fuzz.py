"""CLI argument fuzzing: a seeded batch of bad argument lists for every command (bad
numbers for every numeric flag, junk flags and words, unknown games and agents, bad
``--option`` values, bad output folders) must each end as a usage error: exit status 2,
no traceback, the last line of stderr from ``cardenvs``. ``--help`` ends with status 0.

The lists run in one subprocess (tests/cli/fuzz_driver.py), through ``main()``, with the
runs themselves replaced by a stand-in: an argument list the CLI accepts stops there and
fails the test, so that every list must be refused before anything runs. A few of them
also run as ``python -m cardenvs``, to check the exit status and stderr of the real thing.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import cardenvs
from cardenvs.cli.main import build_parser
from cardenvs.core.protocol import options_schema
from cardenvs.core.registry import get_spec
from cardenvs.replay import save_match

DRIVER = Path(__file__).with_name("fuzz_driver.py")
SEED = 20_240_611
JUNK_CASES = 150

# the bad values of a numeric flag; a flag where 0 or a huge value is a fine setting does
# not get that one (a huge number of matches is a long run, not a bad one)
INT_BAD = ["-1", "abc", "", " ", "1.5", "1e3", "0x10", "½", "-" + "9" * 25, "--"]
FLOAT_BAD = ["-1", "abc", "", "nan", "NaN", "inf", "-inf", "1e999", "-0.5", "1,5", "½"]
ZERO_OK = {"--seed", "--actions-per-position", "--delay", "--turn-seconds", "--teacher-until", "--points-weight",
           "--last-points-weight", "--seat", "--step"}
HUGE_OK = {"--games", "--matches", "--decisions", "--minutes", "--teacher-until", "--eval-every"}
NOT_FUZZED = {"--ray"}  # any address is taken: only connecting tells a bad one


def command_parsers() -> dict[str, argparse.ArgumentParser]:
    """``play``, ``eval``, ..., ``train ppo``, ...: the parser of each command."""
    def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return dict(action.choices)

    top = subparsers(build_parser())
    found = {name: p for name, p in top.items() if name != "train"}
    found.update({f"train {m}": p for m, p in subparsers(top["train"]).items()})
    return found


def bases(out: str) -> dict[str, list[str]]:
    """A good argument list of each command, which the bad pieces are added to."""
    return {
        "play": ["play", "president", "--seed", "1", "--option", "single_round=true"],
        "eval": ["eval", "president", "--agents", "random", "--matches", "2"],
        "league": ["league", "president", "--agents", "random,heuristic", "--matches", "4"],
        "soak": ["soak", "president", "--matches", "2"],
        "train ppo": ["train", "ppo", "president", "--out", out],
        "train search": ["train", "search", "odin", "--out", out],
        "train scorer": ["train", "scorer", "rami51", "--out", out],
        "warmup": ["warmup", "president"],
    }


# commands that take no game: their flags are fuzzed (a game and its options are not)
GAMELESS = {
    "serve": ["serve", "--port", "8123"],
}


def _short_match():
    """A President round of random legal moves, as the file ``replay`` reads."""
    env = cardenvs.make("president_v0", single_round=True)
    env.reset(seed=3)
    rng = random.Random(3)
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(list(obs["action_mask"].nonzero()[0]))))
    return env.unwrapped.match_record()


def numeric_flags(parser: argparse.ArgumentParser) -> dict[str, type]:
    return {a.option_strings[-1]: a.type for a in parser._actions
            if a.type in (int, float) and a.option_strings and a.option_strings[-1] not in NOT_FUZZED}


def bad_numbers(flag: str, kind: type) -> list[str]:
    values = list(INT_BAD if kind is int else FLOAT_BAD)
    if flag not in ZERO_OK:
        values.append("0")
    if flag not in HUGE_OK:
        values.append("9" * 25 if kind is int else "1e300")
    return values


def bad_options(game: str) -> list[str]:
    """Option words no game takes, and values of the wrong kind or out of range for each
    of the game's options."""
    words = ["x", "=", "=1", "nope=1", " =1", "single_round", "illegal_action=foo"]
    for opt in options_schema(get_spec(game).module).values():
        if opt.kind == "int":
            values = ["abc", "2.5", "nan", "1e999", "9" * 30, "-1", "true"]
        elif opt.kind == "bool":
            values = ["maybe", "2", ""]
        else:
            values = ["bogus", "", "7"]
        words += [f"{opt.name}={v}" for v in values]
    return words


def junk_word(rng: random.Random) -> str:
    letters = "abcdefgxyz0123456789_./üé€ -"
    kind = rng.randrange(7)
    word = "".join(rng.choice(letters) for _ in range(rng.randint(1, 12)))
    if kind == 0:
        return "--zz" + word
    if kind == 1:
        return "-" + rng.choice("ABCDEFGIJKLMNOPQRSTUVWXYZ")
    if kind == 2:
        return "\udcff" + word  # bytes that were not UTF-8 on the command line
    if kind == 3:
        return rng.choice(["=", "==", "--=x", "-", "---", "-1", "1e400", "nan", "a=b"])
    if kind == 4:
        return "q" + word  # a word: no game, agent or command starts with q
    if kind == 5:
        return "x" * rng.randint(200, 5000)
    return rng.choice(["play", "eval", "train", "ppo", "president", "random", "--option", "--seed", "--out"])


def generate(tmp: Path) -> tuple[list[list[str]], list[list[str]], list[list[str]]]:
    """(bad argument lists, --help lists, the good base lists): all seeded."""
    rng = random.Random(SEED)
    out = str(tmp / "fresh-run")
    base = bases(out)
    match = tmp / "match.json"
    save_match(_short_match(), match)
    flagged = {**base, **GAMELESS, "replay": ["replay", str(match)]}
    parsers = command_parsers()
    takes_values = {c for c, p in parsers.items() if any(a.option_strings and a.nargs != 0 for a in p._actions)}
    assert takes_values <= set(flagged), f"commands without a base list: {takes_values - set(flagged)}"
    cases: list[list[str]] = []
    # every numeric flag of every command, with each of its bad values
    for command, parser in parsers.items():
        if command not in flagged:
            continue
        for flag, kind in numeric_flags(parser).items():
            cases += [[*flagged[command], flag, value] for value in bad_numbers(flag, kind)]
        # every flag that takes a value, left without one; every choice, with a bad one
        for a in parser._actions:
            flag = a.option_strings[-1] if a.option_strings else None
            if flag is None or flag in NOT_FUZZED or a.nargs in (0, "?") or flag == "--help":
                continue
            cases.append([*flagged[command], flag])
            if a.choices:
                cases.append([*flagged[command], flag, "bogus"])
    # unknown games, for every command that takes one
    games = ["nope", "", "presidnet", "president_v9", "\udcff", "x" * 300, "-", "PRESIDENT "]
    for command, argv in base.items():
        at = 2 if command.startswith("train") else 1
        cases += [[*argv[:at], game, *argv[at + 1:]] for game in games]
    cases += [["train", "scorer", "president", "--out", out]]  # Rami 51's alone (every game has a search)
    cases += [["warmup", g] for g in games if g != "-"] + [["rules", g] for g in games] + [["rules"]]
    cases += [["train", "ppo", "--out", out], ["train", "ppo"], ["train", "ppo", "president", "--resume", out]]
    # unknown or unfit agents
    garbage = tmp / "garbage.npz"
    garbage.write_bytes(b"not a policy")
    agents = ["robot", "", ",", " , ", "ppo-sample", "scorer", "scorer:/nonexistent.npz", "ppo:/nonexistent.npz",
              "heuristic,robot", f"ppo:{tmp}", f"ppo:{garbage}", "ppo-sample:" + str(garbage), "\udcff"]
    cases += [["play", "president", "--agents", a] for a in agents]
    cases += [["eval", "president", "--agents", a] for a in [*agents, "human", "random,human", ",".join("r" * 11)]]
    cases += [["eval", "rami51", "--agents", f"scorer:{garbage}"]]
    # match files that are not there, not a match, or a folder
    cases += [["replay", m] for m in ("", str(tmp / "none.json"), str(garbage), str(tmp), "\udcff")]
    # bad options, for every command that takes a game
    for command, argv in base.items():
        game = argv[2] if command.startswith("train") else argv[1]
        cases += [[*argv, "--option", word] for word in bad_options(game)]
        cases.append([*argv, "--option", "single_round=true", "nope=1"])  # a bad one after a good one
    cases += [["play", "--option", "single_round=true", "nope", "--seed", "1"]]  # the word read as the game
    # bad output folders and runs to resume
    afile = tmp / "afile"
    afile.write_text("x")
    run = tmp / "old-run"
    run.mkdir()
    for name in ("checkpoint.pt", "policy.npz", "scorer.npz"):
        (run / name).write_bytes(b"")
    empty = tmp / "empty"
    empty.mkdir()
    for command in ("train ppo", "train search", "train scorer"):
        for folder in ("", str(afile), str(afile / "run"), str(run), str(tmp / ("y" * 5000))):
            cases.append([*base[command], "--out", folder])
    cases += [["train", "ppo", "--resume", folder] for folder in ("", str(afile), str(empty), str(tmp / "none"))]
    cases += [[*base["league"], "--plot", p] for p in ("", " ", str(afile / "x.png"), str(empty), str(tmp / "x.gif"),
                                                      str(tmp / "none" / "x.png"), str(tmp / ("y" * 300 + ".png")))]
    # junk words and flags anywhere in a good list
    for _ in range(JUNK_CASES):
        argv = list(rng.choice(list(base.values())))
        for _ in range(rng.randint(1, 3)):
            argv.insert(rng.randint(0, len(argv)), junk_word(rng))
        cases.append(argv)
    helps = [["--help"], ["-h"], ["--version"], ["play", "--help"], ["play", "president", "--help"],
             ["eval", "nope", "--help"], ["train", "--help"], ["train", "ppo", "--help"],
             ["train", "scorer", "rami51", "-h"], ["soak", "--option", "x=1", "odin", "--help"], ["warmup", "-h"]]
    return cases, helps, list(flagged.values())


def run_driver(cases: list[list[str]]) -> list[dict]:
    done = subprocess.run([sys.executable, str(DRIVER)], input=json.dumps(cases), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def is_usage_error(result: dict) -> bool:
    lines = result["stderr"].strip().splitlines()
    return (result["code"] == 2 and "Traceback" not in result["stderr"] and bool(lines)
            and lines[-1].startswith("cardenvs"))


@pytest.mark.slow
def test_fuzzed_argument_lists_are_usage_errors(tmp_path):
    pytest.importorskip("torch")  # the train commands' checks
    cases, helps, good = generate(tmp_path)
    results = run_driver([*good, *cases, *helps])
    good_results, results, help_results = (results[:len(good)], results[len(good):len(good) + len(cases)],
                                           results[len(good) + len(cases):])
    # the base lists get through to the run: what makes a case bad is what was added to it
    assert [r["code"] for r in good_results] == ["reached"] * len(good), good_results
    bad = [r for r in results if not is_usage_error(r)]
    shown = "\n".join(f"{r['argv']!r}: {r['code']} {r['stderr'][-600:]!r}" for r in bad[:60])
    assert not bad, f"{len(bad)} of {len(cases)} argument lists did not end in a usage error:\n{shown}"
    for r in help_results:
        assert r["code"] == 0 and "Traceback" not in r["stderr"], r
    assert not (tmp_path / "fresh-run").exists()  # nothing refused wrote anything
    print(f"{len(cases)} bad argument lists, {len(helps)} --help lists, {len(good)} good ones")


@pytest.mark.slow
def test_a_few_fuzzed_lists_as_the_real_command(tmp_path):
    """The exit status and stderr of ``python -m cardenvs`` itself, for a bad number, an
    unknown game, a junk flag and a word that is not UTF-8."""
    for argv in (["play", "president", "--games", "nan"], ["train", "ppo", "president", "--threads", "-1"],
                 ["eval", "nope", "--agents", "random"], ["soak", "president", "--zzjunk"],
                 ["play", "\udcffx", "--seed", "1"]):
        done = subprocess.run([sys.executable, "-m", "cardenvs", *argv], capture_output=True, text=True,
                              errors="backslashreplace", timeout=300)
        assert done.returncode == 2, (argv, done.stderr)
        assert "Traceback" not in done.stderr
        assert done.stderr.strip().splitlines()[-1].startswith("cardenvs"), (argv, done.stderr)


def test_typed_lines_are_moves_or_refused():
    """Whatever a person types at their seat is read as legal moves or refused with a
    ValueError (said, and asked again), in every game and position."""
    import numpy as np

    from cardenvs import list_games, make_raw
    from cardenvs.cli.console import parse_human_line

    rng = random.Random(SEED)
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyzAJQKTHSDCPB #,.-+*/\\'\"ü€✓\t♠♥"
    tried = 0
    for spec in list_games():
        env = make_raw(spec.env_id)
        env.reset(seed=3)
        draws = np.random.default_rng(0)
        for _ in range(25):
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                break
            legal = env.legal_actions()
            for _ in range(40):
                if rng.random() < 0.3:  # moves of the list, some of them twice, with something after
                    picks = draws.choice(legal, size=rng.randint(1, 4))
                    text = " ".join(env.action_to_str(int(a)) for a in picks) + rng.choice(["", " x", " 99", " #1"])
                else:
                    text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14)))
                try:
                    moves = parse_human_line(env, text, legal)
                except ValueError:
                    continue
                finally:
                    tried += 1
                assert moves and moves[0] in legal, (spec.name, text)
            env.step(int(draws.choice(legal)))
    assert tried > 1000
