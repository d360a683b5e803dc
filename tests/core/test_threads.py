"""The threaded step (cardenvs/core/threads.py): chunks of the batch on Python threads,
each stepped by the game's own compiled step. That every game's threaded run equals its
serial run step by step is checked in test_lockstep.py."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from cardenvs.core.threads import ThreadedStep, usable_cpus


def _arrays(n: int) -> tuple[np.ndarray, ...]:
    return (np.zeros(n, dtype=np.int64),) + tuple(np.zeros((n, 3)) for _ in range(6))


class Recorder:
    """A stand-in kernel: marks the rows of each chunk it is given, and the thread."""

    def __init__(self, fail_on: int | None = None, slow_on: int | None = None):
        self.calls: list[tuple[int, str]] = []
        self.lock = threading.Lock()
        self.fail_on = fail_on
        self.slow_on = slow_on

    def __call__(self, states, actions, masks, obs, rewards, events, current, mode):
        with self.lock:
            self.calls.append((states.shape[0], threading.current_thread().name))
        if self.slow_on is not None and states.shape[0] == self.slow_on:
            time.sleep(0.3)  # still writing when the other chunk has failed
        states += 1
        obs[:, 0] = mode
        if self.fail_on is not None and states.shape[0] == self.fail_on:
            raise RuntimeError("chunk failed")


needs_two_cpus = pytest.mark.skipif(usable_cpus() < 2, reason="one usable CPU: the step runs unthreaded")


@needs_two_cpus
def test_every_game_of_the_batch_is_stepped_once_and_on_two_threads():
    kernel = Recorder()
    arrays = _arrays(1001)
    ThreadedStep(kernel)(*arrays, 7, num_threads=2)
    assert np.array_equal(arrays[0], np.ones(1001, dtype=np.int64))
    assert (arrays[3][:, 0] == 7).all()
    assert sorted(size for size, _ in kernel.calls) == [500, 501]
    assert len({name for _, name in kernel.calls}) == 2


@pytest.mark.parametrize("games", [1, 3])
def test_more_threads_than_cpus_or_games_are_cut_down(games):
    kernel = Recorder()
    arrays = _arrays(games)
    ThreadedStep(kernel)(*arrays, 0, num_threads=64)
    assert len(kernel.calls) == min(games, usable_cpus())
    assert np.array_equal(arrays[0], np.ones(games, dtype=np.int64))


@needs_two_cpus
@pytest.mark.parametrize("failing,slow", [(500, 501), (501, 500)])
def test_an_error_in_a_chunk_is_raised_after_every_chunk_finished(failing, slow):
    # the caller steps the first 500 games, the pool the other 501: either may fail
    # while the other is still writing
    kernel = Recorder(fail_on=failing, slow_on=slow)
    arrays = _arrays(1001)
    with pytest.raises(RuntimeError, match="chunk failed"):
        ThreadedStep(kernel)(*arrays, 0, num_threads=2)
    assert np.array_equal(arrays[0], np.ones(1001, dtype=np.int64))


@pytest.mark.parametrize("bad,error", [(1.9, TypeError), ("2", TypeError), (True, TypeError), (0, ValueError),
                                       (-3, ValueError)])
def test_a_bad_thread_count_is_refused_before_anything_is_stepped(bad, error):
    kernel = Recorder()
    arrays = _arrays(8)
    with pytest.raises(error, match="num_threads"):
        ThreadedStep(kernel)(*arrays, 0, num_threads=bad)
    assert kernel.calls == [] and not arrays[0].any()


def _step_in_child(queue) -> None:
    arrays = _arrays(64)
    ThreadedStep(Recorder())(*arrays, 0, num_threads=2)
    queue.put(int(arrays[0].sum()))


@needs_two_cpus
@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system")
def test_a_forked_child_gets_threads_of_its_own():
    ThreadedStep(Recorder())(*_arrays(64), 0, num_threads=2)  # the parent's pool exists
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_step_in_child, args=(queue,), daemon=True)
    child.start()
    try:
        child.join(60)
        assert child.exitcode == 0  # None: it hung on a pool without threads
        assert queue.get(timeout=5) == 64
    finally:
        if child.is_alive():
            child.kill()


def test_the_threaded_step_starts_no_openmp_runtime_and_sets_nothing():
    code = (
        "import os, cardenvs\n"
        "from numba.np.ufunc import parallel\n"
        "from cardenvs.core.vector import RandomSampler\n"
        "v = cardenvs.make_vec('president_v0', num_envs=8, num_threads=2, parallel_threshold=1)\n"
        "assert v.parallel\n"
        "s = v.reset()\n"
        "v.step(RandomSampler(0)(s.legal_action_mask))\n"
        "assert 'OMP_WAIT_POLICY' not in os.environ\n"
        "assert not parallel._is_initialized\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
