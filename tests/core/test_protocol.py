"""Every registered game provides the game protocol (cardenvs.core.protocol.GameProtocol)."""

from __future__ import annotations

import types

import numpy as np
import pytest

import cardenvs
from cardenvs.core.protocol import GameProtocol, check_game_module, protocol_names
from cardenvs.core.registry import GAMES


@pytest.mark.parametrize("env_id", sorted(GAMES))
def test_every_game_package_follows_the_protocol(env_id):
    spec = GAMES[env_id]
    module = spec.module
    assert isinstance(module, GameProtocol)
    assert module.SPEC is spec and module.__name__ == f"cardenvs.games.{spec.name}"
    assert module.rules.__name__ == f"cardenvs.games.{spec.name}.rules"
    assert isinstance(module.STATE_DTYPE, np.dtype) and module.OBS_SIZE > 0 and module.NUM_ACTIONS > 0
    for name in protocol_names():
        assert getattr(module, name) is not None, name
    check_game_module(module)


def test_the_protocol_names_what_a_game_lacks():
    spec = cardenvs.get_spec("president")
    partial = types.ModuleType("cardenvs.games.partial")
    for name in protocol_names():
        if name not in ("render_text", "rules"):
            setattr(partial, name, getattr(spec.module, name))
    assert not isinstance(partial, GameProtocol)
    with pytest.raises(ValueError, match="missing rules, render_text|missing render_text, rules"):
        check_game_module(partial)
