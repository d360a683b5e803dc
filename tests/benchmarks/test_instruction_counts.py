"""benchmarks/instruction_counts.py without valgrind: the dumps it reads and the positions it
stores (the valgrind run itself takes minutes: it is the benchmark, not a test)."""

import numpy as np

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
    for name in ("noop", counts.RUMMY_FIRST_CARD + counts.SEPARATOR + "mask", "classes" + counts.SEPARATOR + "observe"):
        assert all(ch.isalnum() or ch in "-._" for ch in name), name


def test_the_first_card_positions_are_the_first_card_of_a_new_meld():
    states = counts.first_card_positions(50)
    assert len(states) == 50
    assert (states["phase"] == rami51.PHASE_BUILD).all() and (states["build_n"] == 0).all()


def test_the_positions_are_as_many_as_asked_and_differ():
    states = counts.collect("frime", 40)
    assert len(states) == 40
    assert len(np.unique(states["hands"].reshape(len(states), -1), axis=0)) > 30
