"""PettingZoo-style entry points for Président: ``from cardenvs import president_v0``."""

from __future__ import annotations

from typing import Any

from cardenvs.registry import make, make_raw, make_vec

ENV_ID = "president_v0"


def env(**options: Any):
    """The AEC env behind PettingZoo's standard wrappers (options: see docs/games/president.md)."""
    return make(ENV_ID, **options)


def raw_env(**options: Any):
    """The unwrapped AEC env."""
    return make_raw(ENV_ID, **options)


def vec_env(num_envs: int, seed: int = 0, **options: Any):
    """The vectorised batch of ``num_envs`` games."""
    return make_vec(ENV_ID, num_envs=num_envs, seed=seed, **options)
