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
