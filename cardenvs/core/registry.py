"""The registry of games: each game package registers its :class:`GameSpec` once
(``cardenvs/games/__init__.py``); everything else looks games up here by name."""

from __future__ import annotations

from typing import Any

from cardenvs.core.protocol import GameSpec, check_game_module

GAMES: dict[str, GameSpec] = {}


def register(spec: GameSpec) -> None:
    """Add a game to the registry, after checking its module against the game protocol."""
    check_game_module(spec.module)
    if spec.score_sense not in ("higher", "lower"):
        raise ValueError(f"{spec.name}: score_sense must be 'higher' or 'lower', got {spec.score_sense!r}")
    GAMES[spec.env_id] = spec



def get_spec(name: str) -> GameSpec:
    """The registry entry for ``"president_v0"`` or just ``"president"``."""
    for spec in GAMES.values():
        if name in (spec.env_id, spec.name):
            return spec
    for spec in GAMES.values():
        if name in spec.earlier_versions:
            raise ValueError(f"{name} is an earlier version of {spec.name}; this release has {spec.env_id} "
                             f"(see the version history in `cardenvs rules {spec.name}`)")
    import difflib

    names = [n for spec in GAMES.values() for n in (spec.name, spec.env_id)]
    close = difflib.get_close_matches(str(name), names, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    known = ", ".join(sorted(GAMES))
    raise ValueError(f"unknown game {name!r}{hint}; registered: {known}")



def list_games() -> list[GameSpec]:
    """Every registered game, in registration order."""
    return list(GAMES.values())


class PicklesBySpec:
    """Pickling and deep copies for an env that holds its ``spec`` and game ``module``
    (modules do not pickle): they travel as the env id and are looked up again."""

    spec: GameSpec

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["spec"] = self.spec.env_id
        state.pop("game", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state["spec"] = get_spec(state["spec"])
        state["game"] = state["spec"].module
        self.__dict__.update(state)
