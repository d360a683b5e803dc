"""numba's worker threads, started with a passive wait policy scoped to them.

numba's ``omp`` threading layer runs on the system's OpenMP runtime (libgomp), which by
default keeps idle threads spinning between parallel calls. On a small or busy machine
that spin made every threaded ``VecEnv.step`` cost ~15 ms instead of ~10 µs. The wait
policy is read once, when the runtime is loaded, from ``OMP_WAIT_POLICY``.

cardenvs never changes that variable for the process: other libraries (torch ships its
own OpenMP runtime) read it too, and their best setting depends on the machine's load.
Instead, :func:`start_numba_threads` sets ``OMP_WAIT_POLICY=PASSIVE`` only while numba
loads its runtime, then restores the variable: the policy applies to that runtime (the
system's libgomp; torch's own copy is separate). If something loaded the system's
libgomp earlier, its policy stays; a library loaded later that shares it shares it.
It runs on the first threaded step (``num_threads > 1``); call it yourself to
choose, and set ``OMP_WAIT_POLICY`` before starting Python to decide for every library.
"""

from __future__ import annotations

import os

_started = False


def start_numba_threads(passive: bool = True) -> None:
    """Start numba's thread pool now; with ``passive`` (and no ``OMP_WAIT_POLICY`` set by
    the user) its OpenMP threads sleep instead of spinning between calls. Later calls do
    nothing: the runtime reads the policy once."""
    global _started
    if _started:
        return
    _started = True
    from numba.np.ufunc import parallel

    launch = getattr(parallel, "_launch_threads", None)
    if launch is None or getattr(parallel, "_is_initialized", False):
        return  # already running (or a numba without this hook): its policy stays as it is
    previous = os.environ.get("OMP_WAIT_POLICY")
    if passive and previous is None:
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    try:
        launch()
    finally:
        if previous is None:
            os.environ.pop("OMP_WAIT_POLICY", None)
