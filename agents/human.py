"""The human seat: a marker for the CLI, which shows the table and reads the move."""

from __future__ import annotations

import numpy as np

from cardenvs.agents.base import Agent


class HumanAgent(Agent):
    """A person at the keyboard. ``cardenvs play`` asks them (it can show their hand);
    this object alone has no way to, so ``act`` raises."""

    name = "human"
    is_human = True

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise RuntimeError("a human seat is played through the CLI (cardenvs play GAME --agents human,...)")
