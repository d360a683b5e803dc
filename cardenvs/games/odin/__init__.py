"""Odin, a climbing game of 54 cards in six colours for 2 to 6 players (docs/games/odin.md):
the rules in ``rules.py`` (the batch step: core's driver bound to its hooks), its text side in
``text.py``, its events at the table in ``narration.py``.
"""

from __future__ import annotations

import sys

from cardenvs.core.protocol import GameSpec
from cardenvs.games.odin import narration, rules, text
from cardenvs.games.odin.rules import (
    MAX_PLAYERS, NUM_ACTIONS, OBS_DTYPE, OBS_SIZE, PHASE_NAMES, STATE_DTYPE, UNSEEN_KEYS, deal_unseen_batch,
    mask_batch, observe_batch, refresh_batch, reset_batch, step_batch, step_batch_parallel,
)
from cardenvs.games.odin.picture import table_view
from cardenvs.games.odin.text import (
    LINE_FINISHER, REST_FIELD, STATE_FIELDS, action_to_str, deck_counts, make_template, observation_bounds,
    observation_v0, play_actions, render_text, round_info, str_to_action, validate_state,
)

# the registry entry (the game's name, env id, players and how its match score reads)
SPEC = GameSpec(
    name="odin", env_id="odin_v1", earlier_versions={"odin_v0": observation_v0}, module=sys.modules[__name__],
    min_players=2, max_players=6, default_players=4, doc="docs/games/odin.md", odin_cards=True, score_sense="lower",
    title="Odin",
    summary="climbing game, 54 cards 1-9 in six colours; plays built card by card; lowest score to 15 wins",
)
