"""Frime, a rummy of eleven rounds with buys, flocons and a pot, for 4 to 6 players
(docs/games/frime.md): the rules in ``rules.py`` (the batch step: core's driver
bound to its hooks), the text side in ``text.py``, the buys and the going out told at the table
in ``narration.py``.
"""

from __future__ import annotations

import sys

from cardenvs.core.protocol import GameSpec
from cardenvs.games.frime import narration, rules, text
from cardenvs.games.frime.rules import (
    MAX_PLAYERS, NUM_ACTIONS, OBS_DTYPE, OBS_SIZE, PHASE_NAMES, STATE_DTYPE, UNSEEN_KEYS, deal_unseen_batch,
    mask_batch, observe_batch, refresh_batch, reset_batch, step_batch, step_batch_parallel,
)
from cardenvs.games.frime.picture import table_view
from cardenvs.games.frime.text import (
    LINE_FINISHER, REST_FIELD, STATE_FIELDS, TURN_SECONDS, action_to_str, complete_scenario, custom_counts,
    custom_from_dict, custom_to_dict, deck_counts, make_template, observation_bounds, prepare_scenario, render_text,
    round_info, str_to_action, timeout_actions, validate_state,
)

# the registry entry (the game's name, env id, players and how its match score reads)
SPEC = GameSpec(
    gym_options={"single_round": True},
    name="frime", env_id="frime_v1", earlier_versions={"frime_v0": None}, module=sys.modules[__name__],
    min_players=4, max_players=6, default_players=4, doc="docs/games/frime.md", score_sense="lower",
    title="Frime",
    summary="rummy, 108 cards with 2s and jokers wild; 11 rounds of 3 to 13 cards; buys, flocons and a pot",
)
