"""Runs argument lists through the CLI in one process, for tests/cli/test_cli_fuzz.py.

Reads a JSON list of argument lists on stdin; for each, calls ``cardenvs.cli.main.main``
with stdout and stderr captured and writes, as a JSON list on stdout, its exit status
(``SystemExit``'s code or main's return; 1 and the traceback for any other exception;
``"reached"`` when it got as far as playing, evaluating, soaking, training, serving or
showing a replay), stderr and the end of stdout. Whatever would run a command (a match, an evaluation, a soak, a
training run, a Ray connection) is replaced by a stand-in that stops it there, so that an
argument list the CLI accepted ends at once, and says so. One process: the kernels are
compiled (or loaded) once, and torch imported once.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import traceback


class Reached(Exception):
    """The command got past every check, to the run itself."""


def reached(*args, **kwargs):
    raise Reached


def no_input(prompt: str) -> str:
    raise AssertionError(f"the CLI asked for input: {prompt!r}")


def stand_ins() -> None:
    import cardenvs.agents.evaluate
    import cardenvs.soak
    from cardenvs.cli import play, replay, warmup

    play.play_match = reached
    replay.show_match = replay.write_page = reached
    warmup.warm_games = reached
    cardenvs.agents.evaluate.evaluate = reached
    cardenvs.soak.main_soak = reached
    try:
        import uvicorn  # cardenvs serve: the server would run until stopped
    except ImportError:  # no web extra: serve says so, a usage error
        pass
    else:
        uvicorn.run = reached
    try:
        from cardenvs.agents.training import card_scorer, distributed, expert, trainer
    except ImportError:  # no torch: the train commands say so
        return
    trainer.Trainer.train = reached
    expert.run_search = reached
    card_scorer.run_scorer = reached
    distributed.connect_ray = reached


def run(argv: list[str]) -> dict:
    from cardenvs.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv, out=out, err=err, input_fn=no_input)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except Reached:
            code = "reached"
        except Exception:
            code = 1
            err.write(traceback.format_exc())
    return {"argv": argv, "code": code, "stderr": err.getvalue(), "stdout": out.getvalue()[-500:]}


def main() -> None:
    cases = json.load(sys.stdin)
    stand_ins()
    results = [run(argv) for argv in cases]
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
