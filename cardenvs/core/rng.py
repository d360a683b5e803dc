"""Counter-based RNG for numba kernels: SplitMix64 over one ``uint64`` per game.

Every game's state record has a ``rng`` field; these functions advance it in place,
so a game's randomness is part of its state (``state_dict``, clone and auto-reset
all carry it) and the same seed gives the same game in the AEC and vector envs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_MASK64 = (1 << 64) - 1


@njit(cache=True, no_cfunc_wrapper=True)
def _mix(z):
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True, no_cfunc_wrapper=True)
def next_u64(s):
    """Advance ``s.rng`` and return 64 random bits."""
    s.rng = s.rng + _GOLDEN
    return _mix(s.rng)


@njit(cache=True, no_cfunc_wrapper=True)
def rand_below(s, n):
    """Uniform integer in ``[0, n)`` (n small: the modulo bias is below 2**-50)."""
    return np.int64((next_u64(s) >> _S11) % np.uint64(n))


@njit(cache=True, no_cfunc_wrapper=True)
def shuffle(s, arr, n):
    """Fisher-Yates shuffle of ``arr[:n]`` in place."""
    for i in range(n - 1, 0, -1):
        j = rand_below(s, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, inline="always")
def shuffle_by_keys(arr, n, keys):
    """Fisher-Yates shuffle of ``arr[:n]`` in place, drawn from the caller's uniform keys
    in [0, 1] (``keys[k]`` picks the swap at position k), not from a game's stream."""
    for k in range(n - 1, 0, -1):
        r = min(np.int64(keys[k] * (k + 1)), k)  # a key of 1.0 would reach past k
        t = arr[k]
        arr[k] = arr[r]
        arr[r] = t


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def shuffled_pool(counts, pool, keys):
    """The cards ``counts`` holds (copies per card type) into ``pool``, shuffled by
    ``keys``; returns their number. The pool is laid out by card type before the shuffle,
    so it depends only on which cards are unseen, never on where they lie (whose hand, the
    stock's order): a re-deal of what a seat cannot see cannot tell two such deals apart."""
    m = 0
    for c in range(counts.shape[0]):
        for _ in range(counts[c]):
            pool[m] = c
            m += 1
    shuffle_by_keys(pool, m, keys)
    return m


def check_seed(seed: Any, name: str = "seed") -> int:
    """A seed must be an integer 0 <= seed < 2**64 (TypeError or ValueError naming it)."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {seed!r}")
    if not 0 <= int(seed) < 2**64:
        raise ValueError(f"{name} must be in 0 .. 2**64 - 1, got {seed!r}")
    return int(seed)


def rng_state_from_seed(seed: int) -> np.uint64:
    """Initial ``rng`` field for a game seeded with the integer ``seed``."""
    z = (int(seed) * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return np.uint64(z ^ (z >> 31))


def batch_seeds(seed: int, num_envs: int) -> np.ndarray:
    """Per-game integer seeds of a batch: distinct, and not overlapping between batch seeds."""
    ss = np.random.SeedSequence(int(seed))
    return ss.generate_state(num_envs, dtype=np.uint64).astype(np.uint64)
