"""The threaded step: a batch cut into chunks, each stepped on a Python thread.

Every game's compiled ``step_batch`` releases the GIL for the whole call (``nogil=True``),
so Python threads that call it on separate chunks of the batch run on separate cores. The
chunks are slices of the batch's first axis, so they have the arrays' own types: the
threaded step runs the kernel that the serial step compiled, and compiles nothing more.

Until version 0.12 the threaded step was a numba ``prange`` copy of the step. That copy
linked and optimised the whole step a second time (about 10 s of Rami 51's cold compile,
a few seconds of every other game's), and it ran on numba's OpenMP runtime, whose idle
threads spin between calls unless told otherwise.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_pool_pid = 0


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the system says so)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity on this system
        return os.cpu_count() or 1


def _workers(count: int) -> ThreadPoolExecutor:
    """A pool with at least ``count`` threads, made again after a fork (a forked child
    inherits the pool's object but not its threads: work sent to it would never run).
    A smaller pool is dropped, not shut down: a step on another thread may still be
    sending it work; its threads end once it is unreferenced and idle."""
    global _pool, _pool_size, _pool_pid
    with _lock:
        if _pool is None or _pool_pid != os.getpid() or _pool_size < count:
            _pool = ThreadPoolExecutor(max_workers=count, thread_name_prefix="cardenvs-step")
            _pool_size, _pool_pid = count, os.getpid()
        return _pool


class ThreadedStep:
    """A game's ``step_batch`` over ``num_threads`` threads: the same arguments and the
    same results (every game of a batch is stepped on its own, whichever chunk holds it).
    The calling thread steps the first chunk; the pool's threads step the others."""

    def __init__(self, step_batch: Callable[..., None]):
        self.step_batch = step_batch

    def __call__(self, states: np.ndarray, actions: np.ndarray, masks: np.ndarray, obs: np.ndarray,
                 rewards: np.ndarray, events: np.ndarray, current: np.ndarray, mode: int,
                 num_threads: int = 2) -> None:
        if isinstance(num_threads, (bool, np.bool_)) or not isinstance(num_threads, (int, np.integer)):
            raise TypeError(f"num_threads must be an integer, got {num_threads!r}")
        if num_threads < 1:
            raise ValueError(f"num_threads must be >= 1, got {num_threads}")
        n = states.shape[0]
        chunks = max(1, min(int(num_threads), usable_cpus(), n))
        if chunks == 1:
            self.step_batch(states, actions, masks, obs, rewards, events, current, mode)
            return
        arrays = (states, actions, masks, obs, rewards, events, current)
        bounds = [k * n // chunks for k in range(chunks + 1)]
        pool = _workers(chunks - 1)
        futures = [pool.submit(self.step_batch, *(a[lo:hi] for a in arrays), mode)
                   for lo, hi in zip(bounds[1:-1], bounds[2:], strict=True)]
        try:
            self.step_batch(*(a[:bounds[1]] for a in arrays), mode)
        finally:
            for future in futures:  # every chunk finished before anyone reads the outputs
                future.exception()
        for future in futures:
            future.result()  # an error of another chunk is raised here

    def __repr__(self) -> str:
        return f"ThreadedStep({getattr(self.step_batch, '__qualname__', self.step_batch)!r})"
