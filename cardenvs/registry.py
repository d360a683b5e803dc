"""The registry: every game by name, and the two constructors ``make`` and ``make_vec``."""

from __future__ import annotations

import types
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardenvs.core.protocol import GameSpec, check_game_module
from cardenvs.games import classes, frime, odin, president, rami51

if TYPE_CHECKING:
    from pettingzoo import AECEnv

    from cardenvs.core.aec import CardGameEnv
    from cardenvs.core.vector import VecEnv

GAMES: dict[str, GameSpec] = {}


def register(spec: GameSpec) -> None:
    """Add a game to the registry, after checking its module against the game protocol."""
    check_game_module(spec.module)
    if spec.score_sense not in ("higher", "lower"):
        raise ValueError(f"{spec.name}: score_sense must be 'higher' or 'lower', got {spec.score_sense!r}")
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

register(
    GameSpec(
        name="odin",
        env_id="odin_v1",
        earlier_versions={"odin_v0": odin.observation_v0},
        title="Odin",
        module=odin,
        min_players=2,
        max_players=6,
        default_players=4,
        summary="climbing game, 54 cards 1-9 in six colours; plays built card by card; lowest score to 15 wins",
        doc="docs/games/odin.md",
        odin_cards=True,
        score_sense="lower",
    )
)

register(
    GameSpec(
        name="rami51",
        env_id="rami51_v2",
        earlier_versions={"rami51_v1": None},
        title="Rami 51",
        module=rami51,
        min_players=2,
        max_players=6,
        default_players=2,
        summary="rummy, 54 cards (108 from 4 players); 51-point opening with a clean run; 1000 points eliminates",
        doc="docs/games/rami51.md",
        score_sense="lower",
    )
)

register(
    GameSpec(
        name="frime",
        env_id="frime_v1",
        earlier_versions={"frime_v0": None},
        title="Frime",
        module=frime,
        min_players=4,
        max_players=6,
        default_players=4,
        summary="rummy, 108 cards with 2s and jokers wild; 11 rounds of 3 to 13 cards; buys, flocons and a pot",
        doc="docs/games/frime.md",
        score_sense="lower",
    )
)


register(
    GameSpec(
        name="classes",
        env_id="classes_v1",
        earlier_versions={"classes_v0": None},
        title="Classes",
        module=classes,
        min_players=2,
        max_players=6,
        default_players=4,
        summary="rummy, 104 cards (156 from 5 players) with 2s wild; ten classes, each a contract; fewest points wins",
        doc="docs/games/classes.md",
        score_sense="lower",
    )
)


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


def rules_page(name: str) -> str:
    """The rules page of a game, as Markdown (``docs/games/<game>.md`` in the source
    repository; installed with the package as ``cardenvs/pages/<game>.md``; its links to
    images and other pages are relative to the repository's ``docs/games/``)."""
    spec = get_spec(name)
    here = Path(__file__).resolve().parent
    for path in (here / "pages" / Path(spec.doc).name, here.parent / spec.doc):
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise FileNotFoundError(f"the rules page of {spec.env_id} ({Path(spec.doc).name}) is not installed")


def make(name: str, render_mode: str | None = None, **options: Any) -> AECEnv:
    """A PettingZoo AEC env of one game, behind PettingZoo's standard wrappers.

    ``name``: an env id (``"president_v0"``) or a game name (``"president"``); see
    ``cardenvs list``. ``render_mode``: None, ``"ansi"`` (``render()`` returns the table
    as text) or ``"human"`` (prints it). ``options``: the game's options (its page's
    options table, e.g. ``num_players=5``, ``single_round=True``) and the env's own:
    ``illegal_action="raise"`` (ValueError on an illegal action) or ``"penalty"`` (the
    offender gets -1 and the match ends), ``auto_play_forced=False`` (True plays every
    decision with a single legal action inside the step).

    Observations are ``{"observation": ..., "action_mask": int8}``; actions are integers
    (``Discrete``). Unknown options raise ValueError, options of the wrong type TypeError.

    >>> env = make("president_v0", num_players=5)
    >>> env.reset(seed=0)
    """
    from cardenvs.core.aec import make_aec

    return make_aec(get_spec(name), render_mode=render_mode, **options)


def make_raw(name: str, render_mode: str | None = None, **options: Any) -> CardGameEnv:
    """The AEC env of :func:`make` without PettingZoo's wrappers (``CardGameEnv``): the
    same arguments, plus direct access to ``state_dict()``, ``render_text()`` and the
    game's record."""
    from cardenvs.core.aec import CardGameEnv

    return CardGameEnv(get_spec(name), render_mode=render_mode, **options)


def make_vec(name: str, num_envs: int, seed: int = 0, **options: Any) -> VecEnv:
    """``num_envs`` games of one kind stepped together by compiled kernels (pgx-style).

    ``seed`` derives every game's deal. ``options``: the game's options and the vector
    env's own (``num_threads``, ``auto_reset=True``, ``illegal_action``,
    ``auto_play_forced``, ``final_observation``, ``parallel_threshold``); see
    :class:`cardenvs.core.vector.VecEnv`. ``reset()`` and ``step(actions)`` return a
    ``VecState`` of numpy arrays (``observation``, ``legal_action_mask``,
    ``current_player``, per-player ``rewards``, ``terminated``, ``truncated``, ...).

    >>> venv = make_vec("odin_v1", num_envs=1024, seed=0)
    >>> state = venv.reset()
    """
    from cardenvs.core.vector import VecEnv

    return VecEnv(get_spec(name), num_envs=num_envs, seed=seed, **options)


def list_games() -> list[GameSpec]:
    return list(GAMES.values())


def entry_module(env_id: str) -> types.ModuleType:
    """The PettingZoo-style module ``cardenvs.<env_id>`` with ``env()``, ``raw_env()``
    and ``vec_env()`` (``from cardenvs import president_v0; president_v0.env()``)."""
    spec = get_spec(env_id)
    module = types.ModuleType(f"cardenvs.{env_id}", f"{spec.title}: PettingZoo-style entry points.")

    def env(**options: Any):
        """The AEC env behind PettingZoo's standard wrappers (options: the game's docs page)."""
        return make(env_id, **options)

    def raw_env(**options: Any):
        """The unwrapped AEC env."""
        return make_raw(env_id, **options)

    def vec_env(num_envs: int, seed: int = 0, **options: Any):
        """The vectorised batch of ``num_envs`` games."""
        return make_vec(env_id, num_envs=num_envs, seed=seed, **options)

    module.env, module.raw_env, module.vec_env, module.ENV_ID = env, raw_env, vec_env, env_id
    return module
