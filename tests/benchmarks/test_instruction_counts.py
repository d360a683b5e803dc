"""benchmarks/instruction_counts.py without valgrind: the dumps it reads and the positions it
stores (the valgrind run itself takes minutes: it is the benchmark, not a test)."""

import numpy as np
import pytest

from cardenvs.games.rami51 import rules as rami51
from tests.benchmarks import load_benchmark

counts = load_benchmark("instruction_counts")


def _dump(path, name, total):
    path.write_text(f"# callgrind format\nversion: 1\ndesc: Trigger: dump {name}\n\nevents: Ir\n"
                    f"summary: 0\nfn=(1) 0x1234\n0 {total}\ntotals: {total}\n")


def test_each_named_dump_gives_its_total(tmp_path):
    _dump(tmp_path / "run.out.1", "noop", 500)
    _dump(tmp_path / "run.out.2", "rami51-first-card.mask", 123_456)
    (tmp_path / "run.out").write_text("# callgrind format\ntotals: 9\n")  # the final dump names nothing
    assert counts.totals(str(tmp_path / "run.out")) == {"noop": 500, "rami51-first-card.mask": 123_456}


def test_dump_names_hold_nothing_a_shell_reads():
    # callgrind_control hands the name to a shell: "|" would cut it and pipe the rest
    names = ["noop"] + [n for stem in ("classes", counts.RUMMY_FIRST_CARD) for n in counts.workload_names(stem)]
    assert names == ["noop", "classes.mask", "classes.observe", "rami51-first-card.mask"]
    for name in names:
        assert all(ch.isalnum() or ch in "-." for ch in name), name


def test_the_first_card_positions_are_the_first_card_of_a_new_meld():
    states = counts.first_card_positions(50)
    assert len(states) == 50
    assert (states["phase"] == rami51.PHASE_BUILD).all() and (states["build_n"] == 0).all()


def test_the_positions_are_as_many_as_asked_and_differ():
    states = counts.collect("frime", 40)
    assert len(states) == 40
    assert len(np.unique(states["hands"].reshape(len(states), -1), axis=0)) > 30


class _Finished:
    """A child process that has already exited with ``code``."""

    def __init__(self, code):
        self.code = code

    def wait(self):
        return self.code


def test_a_missing_dump_or_a_failed_child_stops_the_run(tmp_path):
    np.save(tmp_path / "frime.npy", np.zeros(4))
    expected = {"noop", "frime.mask", "frime.observe"}
    log = tmp_path / "child.log"
    log.write_text("Traceback: the child's last words\n")
    _dump(tmp_path / "run.out.1", "noop", 100)
    _dump(tmp_path / "run.out.2", "frime.mask", 900)
    with pytest.raises(SystemExit, match="the child's last words"):
        counts._read([("x", str(tmp_path / "run.out"), str(log), _Finished(0))], expected, str(tmp_path))
    _dump(tmp_path / "run.out.3", "frime.observe", 500)
    with pytest.raises(SystemExit, match="exit 1"):
        counts._read([("x", str(tmp_path / "run.out"), str(log), _Finished(1))], expected, str(tmp_path))
    report = counts._read([("x", str(tmp_path / "run.out"), str(log), _Finished(0))], expected, str(tmp_path))
    assert report == {"x": {"frime.mask": 200.0, "frime.observe": 100.0}}
