"""The constructors: ``make`` (an AEC env), ``make_raw``, ``make_vec`` (a batch of games),
the PettingZoo-style entry modules, and each game's rules page."""

from __future__ import annotations

import types
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cardenvs.games  # noqa: F401  (registers every game)
from cardenvs.core.registry import get_spec

if TYPE_CHECKING:
    from pettingzoo import AECEnv

    from cardenvs.core.aec import CardGameEnv
    from cardenvs.core.vector import VecEnv

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
    as text), ``"rgb_array"`` (an image of the table seen by the agent to move; needs Pillow)
    or ``"human"`` (prints the text). ``options``: the game's options (its page's
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
    ``auto_play_forced``, ``final_observation``, ``privileged_observation``,
    ``parallel_threshold``); see
    :class:`cardenvs.core.vector.VecEnv`. ``reset()`` and ``step(actions)`` return a
    ``VecState`` of numpy arrays (``observation``, ``legal_action_mask``,
    ``current_player``, per-player ``rewards``, ``terminated``, ``truncated``, ...).

    >>> venv = make_vec("odin_v1", num_envs=1024, seed=0)
    >>> state = venv.reset()
    """
    from cardenvs.core.vector import VecEnv

    return VecEnv(get_spec(name), num_envs=num_envs, seed=seed, **options)


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
