"""Uniformly random legal play, for any game."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.agents.base import Agent, check_mask
from cardenvs.core.opponents import KIND_RANDOM, CompiledPolicy
from cardenvs.core.protocol import GameSpec
from cardenvs.core.vector import RandomSampler


class RandomAgent(Agent):
    """Picks a legal action uniformly at random (seeded)."""

    name = "random"

    def __init__(self, spec: GameSpec, seed: int | None = None, options: dict[str, Any] | None = None):
        super().__init__(spec, seed, options)
        self._rng = np.random.default_rng(seed)
        # the compiled sampler needs an integer seed: draw it from the same stream
        self._sampler = RandomSampler(int(self._rng.integers(2**62)))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(check_mask(action_mask))
        return int(legal[self._rng.integers(legal.size)])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return self._sampler(np.ascontiguousarray(action_masks, dtype=np.bool_))

    def compiled_policy(self) -> CompiledPolicy | None:
        """Its sampler's stream (unless a subclass chooses its own way)."""
        if type(self).act_batch is not RandomAgent.act_batch:
            return None
        return CompiledPolicy(KIND_RANDOM, stream=self._sampler.stream)
