"""Who won a match: the seats with the highest total reward share the win.

One rule for every front end that counts wins: the evaluations, the CLI's tables, the
Gymnasium envs' ``win_share`` and the trainers."""

from __future__ import annotations

import numpy as np


def win_shares(returns: np.ndarray) -> np.ndarray:
    """(N, P) shares of the win: the seats with the highest return split 1."""
    returns = np.asarray(returns, dtype=np.float64)
    best = returns.max(axis=1, keepdims=True)
    top = np.isclose(returns, best, rtol=0.0, atol=1e-6)
    return top / top.sum(axis=1, keepdims=True)


def wilson_interval(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (low, high; 95 % by default) of a win share measured over
    ``n`` matches: within [0, 1] and of a width that means something at 0 % and 100 %,
    where the normal approximation shrinks to nothing. Shared wins (a share of 0.5) vary
    less than a win or a loss, so the binomial variance it assumes makes it a little wide,
    never narrow. (nan, nan) for ``n < 1``."""
    if n < 1:
        return float("nan"), float("nan")
    z2 = z * z
    p = min(max(float(share), 0.0), 1.0)
    center = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * float(np.sqrt(p * (1 - p) / n + z2 / (4 * n * n)))
    return max(0.0, center - half), min(1.0, center + half)
