"""The registry: every game by name, and the two constructors ``make`` and ``make_vec``."""

from __future__ import annotations

from typing import Any

from cardenvs.core.protocol import GameSpec
from cardenvs.games import president

GAMES: dict[str, GameSpec] = {}


def register(spec: GameSpec) -> None:
    GAMES[spec.env_id] = spec


register(
    GameSpec(
        name="president",
        env_id="president_v0",
        title="Président (trou de cul)",
        module=president,
        min_players=4,
        max_players=10,
        default_players=4,
        summary="climbing game, 52 cards (104 from 8 players); match to 11 points",
        doc="docs/games/president.md",
    )
)


def get_spec(name: str) -> GameSpec:
    """The registry entry for ``"president_v0"`` or just ``"president"``."""
    for spec in GAMES.values():
        if name in (spec.env_id, spec.name):
            return spec
    known = ", ".join(sorted(GAMES))
    raise ValueError(f"unknown game {name!r}; registered: {known}")


def make(name: str, render_mode: str | None = None, **options: Any):
    """A PettingZoo AEC env behind the standard wrappers, e.g. ``make("president_v0", num_players=5)``."""
    from cardenvs.core.aec import make_aec

    return make_aec(get_spec(name), render_mode=render_mode, **options)


def make_raw(name: str, render_mode: str | None = None, **options: Any):
    """The unwrapped AEC env (``CardGameEnv``)."""
    from cardenvs.core.aec import CardGameEnv

    return CardGameEnv(get_spec(name), render_mode=render_mode, **options)


def make_vec(name: str, num_envs: int, seed: int = 0, **options: Any):
    """A vectorised batch of ``num_envs`` games (see :class:`cardenvs.core.vector.VecEnv`)."""
    from cardenvs.core.vector import VecEnv

    return VecEnv(get_spec(name), num_envs=num_envs, seed=seed, **options)


def list_games() -> list[GameSpec]:
    return list(GAMES.values())
