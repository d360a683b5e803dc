"""Classes: a rummy. The whole game lives in this folder:

- ``rules.py``: the rules, as numba kernels over one record per game (the layout, the deal,
  the legal actions, applying an action, the observation, the hooks of the batch step);
- ``driver.py``: the batch step (generated from ``cardenvs/core/step_driver.py`` and those hooks);
- ``text.py``: moves as text, the options and scenarios, state checks, the table as text;
- what a person at the table is told between moves is the rummy layer's narration (the
  card drawn, a card taken).

This module is the game as the rest of the package sees it (:class:`cardenvs.core.protocol.GameProtocol`),
and its registry entry ``SPEC``.
"""

from __future__ import annotations

import sys

from cardenvs.core.protocol import GameSpec
from cardenvs.games.classes import rules, text
from cardenvs.games.classes.driver import observe_batch, refresh_batch, reset_batch, step_batch, step_batch_parallel
from cardenvs.games.classes.rules import (
    MAX_PLAYERS,
    NUM_ACTIONS,
    OBS_DTYPE,
    OBS_SIZE,
    PHASE_NAMES,
    STATE_DTYPE,
)
from cardenvs.games.classes.text import (
    REST_FIELD,
    STATE_FIELDS,
    action_to_str,
    complete_scenario,
    custom_counts,
    custom_from_dict,
    custom_to_dict,
    deck_counts,
    make_template,
    observation_bounds,
    prepare_scenario,
    render_text,
    round_info,
    str_to_action,
    timeout_actions,
    validate_state,
)
from cardenvs.rummy import narration  # the rummies' events, shared

SPEC = GameSpec(
    name="classes",
    env_id="classes_v1",
    earlier_versions={"classes_v0": None},
    title="Classes",
    module=sys.modules[__name__],
    min_players=2,
    max_players=6,
    default_players=4,
    summary="rummy, 104 cards (156 from 5 players) with 2s wild; ten classes, each a contract; fewest points wins",
    doc="docs/games/classes.md",
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
    "action_to_str",
    "complete_scenario",
    "custom_counts",
    "custom_from_dict",
    "custom_to_dict",
    "deck_counts",
    "make_template",
    "narration",
    "rules",
    "text",
    "observation_bounds",
    "observe_batch",
    "refresh_batch",
    "render_text",
    "reset_batch",
    "round_info",
    "step_batch",
    "step_batch_parallel",
    "str_to_action",
    "timeout_actions",
    "validate_state",
    "prepare_scenario",
]
