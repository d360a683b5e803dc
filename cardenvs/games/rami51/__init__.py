"""Rami 51: a rummy. The whole game lives in this folder:

- ``rules.py``: the rules, as numba kernels over one record per game (the layout, the deal,
  the legal actions, applying an action, the observation, the hooks of the batch step);
- ``driver.py``: the batch step (generated from ``cardenvs/core/step_driver.py`` and those hooks);
- ``text.py``: moves as text, the options and scenarios, state checks, the table as text;
- ``plan.py``: the turn planner (which melds and lay-offs a hand can still make this turn);
- what a person at the table is told between moves is the rummy layer's narration (the
  card drawn, a card taken).

This module is the game as the rest of the package sees it (:class:`cardenvs.core.protocol.GameProtocol`),
and its registry entry ``SPEC``.
"""

from __future__ import annotations

import sys

from cardenvs.core.protocol import GameSpec
from cardenvs.games.rami51 import rules, text
from cardenvs.games.rami51.driver import (
    mask_batch,
    observe_batch,
    refresh_batch,
    reset_batch,
    step_batch,
    step_batch_parallel,
)
from cardenvs.games.rami51.rules import (
    CACHE_FIELDS,
    MAX_PLAYERS,
    NUM_ACTIONS,
    OBS_DTYPE,
    OBS_SIZE,
    PHASE_NAMES,
    STATE_DTYPE,
    UNSEEN_KEYS,
    deal_unseen_batch,
)
from cardenvs.games.rami51.text import (
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
    name="rami51",
    env_id="rami51_v2",
    earlier_versions={"rami51_v1": None},
    title="Rami 51",
    module=sys.modules[__name__],
    min_players=2,
    max_players=6,
    default_players=2,
    summary="rummy, 54 cards (108 from 4 players); 51-point opening with a clean run; 1000 points eliminates",
    doc="docs/games/rami51.md",
    score_sense="lower",
)

__all__ = [
    "CACHE_FIELDS",
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
    "complete_scenario",
    "custom_counts",
    "custom_from_dict",
    "custom_to_dict",
    "deal_unseen_batch",
    "deck_counts",
    "make_template",
    "mask_batch",
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
