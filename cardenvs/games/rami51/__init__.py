"""Rami 51, a rummy with a 51-point opening for 2 to 6 players (docs/games/rami51.md): the
rules in ``rules.py``, with the turn planner they ask which melds a hand can still make in
``plan.py``, and the batch step: core's driver bound to its hooks; moves, scenarios and the table
as text in ``text.py``; the events a person is told are the rummy layer's.
"""

from __future__ import annotations

import sys

from cardenvs.core.protocol import GameSpec
from cardenvs.games.rami51 import rules, text
from cardenvs.games.rami51.rules import (
    CACHE_FIELDS, MAX_PLAYERS, NUM_ACTIONS, OBS_DTYPE, OBS_SIZE, PHASE_NAMES, STATE_DTYPE, UNSEEN_KEYS,
    deal_unseen_batch, mask_batch, observe_batch, refresh_batch, reset_batch, step_batch, step_batch_parallel,
)
from cardenvs.games.rami51.picture import table_view
from cardenvs.games.rami51.text import (
    LINE_FINISHER, LINE_OPENER, REST_FIELD, STATE_FIELDS, TURN_SECONDS, action_to_str, complete_scenario,
    custom_counts, custom_from_dict, custom_to_dict, deck_counts, make_template, observation_bounds,
    prepare_scenario, render_text, round_info, str_to_action, timeout_actions, validate_state,
)
from cardenvs.rummy import narration  # the rummies' events, shared

# the registry entry (the game's name, env id, players and how its match score reads)
SPEC = GameSpec(
    gym_options={"single_round": True},
    name="rami51", env_id="rami51_v3", earlier_versions={"rami51_v1": None, "rami51_v2": None},
    module=sys.modules[__name__],
    min_players=2, max_players=6, default_players=2, doc="docs/games/rami51.md", score_sense="lower",
    title="Rami 51",
    summary="rummy, 54 cards (108 from 4 players); 51-point opening with a clean run; 1000 points eliminates",
)
