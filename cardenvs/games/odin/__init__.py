"""Odin: a climbing game. The whole game lives in this folder:

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
from cardenvs.games.odin import narration, rules, text
from cardenvs.games.odin.driver import observe_batch, refresh_batch, reset_batch, step_batch, step_batch_parallel
from cardenvs.games.odin.rules import (
    MAX_PLAYERS,
    NUM_ACTIONS,
    OBS_DTYPE,
    OBS_SIZE,
    PHASE_NAMES,
    STATE_DTYPE,
    UNSEEN_KEYS,
    deal_unseen_batch,
    mask_batch,
)
from cardenvs.games.odin.text import (
    REST_FIELD,
    STATE_FIELDS,
    action_to_str,
    deck_counts,
    make_template,
    observation_bounds,
    observation_v0,
    play_actions,
    render_text,
    round_info,
    str_to_action,
    validate_state,
)

SPEC = GameSpec(
    name="odin",
    env_id="odin_v1",
    earlier_versions={"odin_v0": observation_v0},
    title="Odin",
    module=sys.modules[__name__],
    min_players=2,
    max_players=6,
    default_players=4,
    summary="climbing game, 54 cards 1-9 in six colours; plays built card by card; lowest score to 15 wins",
    doc="docs/games/odin.md",
    odin_cards=True,
    score_sense="lower",
)

__all__ = [
    "MAX_PLAYERS",
    "NUM_ACTIONS",
    "OBS_DTYPE",
    "OBS_SIZE",
    "PHASE_NAMES",
    "REST_FIELD",
    "SPEC",
    "STATE_DTYPE",
    "STATE_FIELDS",
    "UNSEEN_KEYS",
    "action_to_str",
    "deal_unseen_batch",
    "deck_counts",
    "make_template",
    "mask_batch",
    "narration",
    "rules",
    "text",
    "observation_bounds",
    "observation_v0",
    "observe_batch",
    "play_actions",
    "refresh_batch",
    "render_text",
    "reset_batch",
    "round_info",
    "step_batch",
    "step_batch_parallel",
    "str_to_action",
    "validate_state",
]
