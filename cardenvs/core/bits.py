"""Card sets as 64-bit masks (games with at most 64 card types, such as Odin's 54):
bit c is card id c. Numba helpers shared by the rules kernels and the agents."""

from __future__ import annotations

import numpy as np
from numba import njit

# index of a single set bit: the top 6 bits of (bit * _DEBRUIJN) look it up (int64 products wrap)
_DEBRUIJN = 0x03F79D71B4CB0A89


def _debruijn_index() -> np.ndarray:
    table = np.zeros(64, dtype=np.int64)
    for i in range(64):
        table[(((1 << i) * _DEBRUIJN) & ((1 << 64) - 1)) >> 58] = i
    return table


_DEBRUIJN_INDEX = _debruijn_index()


@njit(cache=True, no_cfunc_wrapper=True)
def bit(c):
    return np.int64(1) << np.int64(c)


@njit(cache=True, no_cfunc_wrapper=True)
def has(bits, c):
    return (bits >> np.int64(c)) & 1 != 0


@njit(cache=True, no_cfunc_wrapper=True)
def popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True, no_cfunc_wrapper=True)
def low_index(x):
    """Index of the lowest set bit of ``x`` (x != 0)."""
    low = x & -x
    return _DEBRUIJN_INDEX[((low * np.int64(_DEBRUIJN)) >> np.int64(58)) & np.int64(63)]


@njit(cache=True, no_cfunc_wrapper=True)
def scatter(out, base, bits, value):
    """``out[base + c] = value`` for every bit c of ``bits``."""
    while bits:
        out[base + low_index(bits)] = value
        bits &= bits - 1


@njit(cache=True, no_cfunc_wrapper=True)
def bits_of(values, base, n):
    """The set of c in 0..n-1 with ``values[base + c] > 0`` (counts, or a 0/1 observation block)."""
    bits = np.int64(0)
    for c in range(n):
        if values[base + c] > 0.5:
            bits |= np.int64(1) << np.int64(c)
    return bits
