"""Running mean and variance of observations, merged batch by batch and across workers."""

from __future__ import annotations

import numpy as np


class RunningStats:
    """Mean and variance of the observations, merged batch by batch (Chan et al.)."""

    def __init__(self, size: int):
        self.mean = np.zeros(size, dtype=np.float64)
        self.var = np.ones(size, dtype=np.float64)
        self.count = 1e-4

    def update(self, x: np.ndarray) -> None:
        if x.shape[0]:
            self.merge(x.mean(axis=0, dtype=np.float64), x.var(axis=0, dtype=np.float64), x.shape[0])

    def std(self) -> np.ndarray:
        return np.sqrt(self.var + 1e-8).astype(np.float32)

    def merge(self, mean: np.ndarray, var: np.ndarray, count: float) -> None:
        """Add the statistics of ``count`` more observations (a batch, or another worker's)."""
        if count <= 0:
            return
        total = self.count + count
        delta = mean - self.mean
        self.mean = self.mean + delta * count / total
        self.var = (self.var * self.count + var * count + delta**2 * self.count * count / total) / total
        self.count = total

    def normalise(self, x: np.ndarray, mean: np.ndarray | None = None, std: np.ndarray | None = None) -> np.ndarray:
        mean = self.mean.astype(np.float32) if mean is None else mean
        std = self.std() if std is None else std
        out = (x.astype(np.float32) - mean) / std
        return np.clip(out, -5.0, 5.0, out=out)
