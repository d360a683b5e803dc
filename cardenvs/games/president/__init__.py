"""Président (trou de cul): a climbing game. The whole game lives in this folder:

- ``rules.py``: the rules, as numba kernels over one record per game (the layout, the deal,
  the legal actions, applying an action, the observation, the hooks of the batch step);
- ``driver.py``: the batch step (generated from ``cardenvs/core/step_driver.py`` and those hooks);
- ``text.py``: moves as text, the options and scenarios, state checks, the table as text;
- ``narration.py``: what a person at the table is told between moves (where the game says more
  than its moves).

This module is the game as the rest of the package sees it (:class:`cardenvs.core.protocol.GameProtocol`),
and its registry entry ``SPEC``.
"""

from __future__ import annotations

import sys

from cardenvs.core.protocol import GameSpec
from cardenvs.games.president import narration, rules, text
from cardenvs.games.president.driver import observe_batch, refresh_batch, reset_batch, step_batch, step_batch_parallel
from cardenvs.games.president.rules import (
    MAX_PLAYERS,
    NUM_ACTIONS,
    OBS_DTYPE,
    OBS_SIZE,
    PHASE_NAMES,
    STATE_DTYPE,
)
from cardenvs.games.president.text import (
    REST_FIELD,
    STATE_FIELDS,
    action_to_str,
    complete_scenario,
    deck_counts,
    make_template,
    observation_bounds,
    public_action_str,
    render_text,
    round_info,
    str_to_action,
    validate_state,
)

SPEC = GameSpec(
    name="president",
    env_id="president_v0",
    title="Président (trou de cul)",
    module=sys.modules[__name__],
    min_players=4,
    max_players=10,
    default_players=4,
    summary="climbing game, 52 cards (104 from 8 players); match to 11 points",
    doc="docs/games/president.md",
)

__all__ = [
    "narration",
    "rules",
    "text",
    "MAX_PLAYERS",
    "NUM_ACTIONS",
    "OBS_DTYPE",
    "OBS_SIZE",
    "PHASE_NAMES",
    "REST_FIELD",
    "SPEC",
    "STATE_DTYPE",
    "STATE_FIELDS",
    "action_to_str",
    "complete_scenario",
    "deck_counts",
    "make_template",
    "observation_bounds",
    "observe_batch",
    "public_action_str",
    "refresh_batch",
    "render_text",
    "reset_batch",
    "round_info",
    "step_batch",
    "step_batch_parallel",
    "str_to_action",
    "validate_state",
]
