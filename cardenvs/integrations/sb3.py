"""Stable-Baselines3 adapter: :class:`cardenvs.integrations.gym.LearnerVecEnv` as an SB3 ``VecEnv``.

SB3 has its own vector-env interface (``step_async``/``step_wait``, a list of info dicts,
``terminal_observation`` for bootstrapping). :class:`SB3VecEnv` speaks it over the numba
core, and answers ``env_method("action_masks")`` so that sb3-contrib's ``MaskablePPO``
trains on it::

    from sb3_contrib import MaskablePPO
    from cardenvs.integrations.sb3 import SB3VecEnv

    venv = SB3VecEnv("president_v0", num_envs=64, opponents="heuristic", scale_observations=True)
    MaskablePPO("MlpPolicy", venv, n_steps=64).learn(20_000)

Needs ``stable-baselines3`` (and ``sb3-contrib`` for MaskablePPO), which are not
dependencies of cardenvs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv as _SB3VecEnv

from cardenvs.core.protocol import check_actions
from cardenvs.integrations.gym import LearnerVecEnv


class SB3VecEnv(_SB3VecEnv):
    """N games of ``game`` against opponents (the arguments of :class:`LearnerVecEnv`),
    one learner decision per game per step. ``seed(s)`` before ``reset()`` reseeds."""

    def __init__(self, game: str | LearnerVecEnv, num_envs: int | None = None, **kwargs: Any):
        if isinstance(game, LearnerVecEnv):
            if num_envs is not None or kwargs:
                raise ValueError("pass either a LearnerVecEnv or the arguments to build one, not both")
            self.learner_env = game
        else:
            if num_envs is None:
                raise ValueError("num_envs is required")
            self.learner_env = LearnerVecEnv(game, num_envs, **kwargs)
        env = self.learner_env
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._actions: np.ndarray | None = None
        self.render_mode = None

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        obs, _ = self.learner_env.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = check_actions(actions, self.num_envs)  # [1.9, 0.5] is a TypeError, not [1, 0]

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        obs, rewards, terminated, truncated, infos = self.learner_env.step(self._actions)
        dones = terminated | truncated
        out: list[dict] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            final = infos["final_info"]
            out[i] = {
                "terminal_observation": infos["final_obs"][i],
                "TimeLimit.truncated": bool(truncated[i]),
                "episode_return": float(final["return"][i]),
            }
            if final["_win_share"][i]:  # a match cut by a time limit has no outcome
                out[i]["win_share"] = float(final["win_share"][i])
        return obs, rewards.astype(np.float32), dones, out

    def action_masks(self) -> np.ndarray:
        return self.learner_env.action_masks()

    def close(self) -> None:
        self.learner_env.close()

    # ------------------------------------------------------------------ attribute access
    def _indices(self, indices: Any) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list:
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.learner_env.action_masks()
            return [masks[i] for i in idx]
        raise AttributeError(f"SB3VecEnv has no per-env method {method_name!r}")

    def get_attr(self, attr_name: str, indices: Any = None) -> list:
        idx = self._indices(indices)
        if attr_name == "action_masks":
            return [self.action_masks for _ in idx]
        if attr_name == "render_mode":
            return [None for _ in idx]
        if hasattr(self.learner_env, attr_name):
            return [getattr(self.learner_env, attr_name) for _ in idx]
        raise AttributeError(f"SB3VecEnv has no attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"SB3VecEnv attributes are read-only ({attr_name!r})")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._indices(indices)]
