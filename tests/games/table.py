"""What the scripted rules tests of every game do at the table: the legal moves as text,
moves played by their text (each checked legal first), the state as a dict."""

from __future__ import annotations

import numpy as np


def legal(env) -> set[str]:
    return {env.action_to_str(a) for a in env.legal_actions()}


def act(env, *texts: str) -> None:
    for text in texts:
        a = env.str_to_action(text)
        assert a in env.legal_actions(), (text, sorted(legal(env)))
        env.step(a)


def st(env) -> dict:
    return env.state_dict()


class OneGame:
    """Steps one state record (a batch of one) with a game package's compiled driver, no
    env around it: to walk the masks depth first on copies of a state."""

    def __init__(self, game):
        self.game = game
        self.mask = np.zeros((1, game.NUM_ACTIONS), dtype=np.bool_)
        self.obs = np.zeros((1, game.OBS_SIZE), dtype=game.OBS_DTYPE)
        self.rew = np.zeros((1, game.MAX_PLAYERS), dtype=np.float32)
        self.ev = np.zeros(1, dtype=np.int32)
        self.cur = np.zeros(1, dtype=np.int32)
        self.act = np.zeros(1, dtype=np.int64)

    def refresh(self, state: np.ndarray) -> np.ndarray:
        """Recount a loaded state in place; its mask."""
        self.game.refresh_batch(state, self.mask, self.obs, self.cur)
        return self.mask[0].copy()

    def step(self, state: np.ndarray, a: int) -> np.ndarray:
        """Play action ``a`` in place; the next mask."""
        self.act[0] = a
        self.game.step_batch(state, self.act, self.mask, self.obs, self.rew, self.ev, self.cur, 0)
        return self.mask[0].copy()

    def stepped(self, state: np.ndarray, a: int) -> np.ndarray:
        """A copy of ``state`` after action ``a``."""
        nxt = state.copy()
        self.step(nxt, a)
        return nxt
