"""Président (trou de cul), a climbing game for 4 to 10 players (docs/games/president.md):
the rules as compiled kernels in ``rules.py`` (the batch step: core's driver bound to its hooks),
moves, options and the table as text in ``text.py``, what a person at the table is told in
``narration.py``.
"""

from __future__ import annotations

import sys

from cardenvs.core.protocol import GameSpec
from cardenvs.games.president import narration, rules, text
from cardenvs.games.president.rules import (
    MAX_PLAYERS, NUM_ACTIONS, OBS_DTYPE, OBS_SIZE, PHASE_NAMES, STATE_DTYPE, UNSEEN_KEYS, deal_unseen_batch,
    mask_batch, observe_batch, refresh_batch, reset_batch, step_batch, step_batch_parallel,
)
from cardenvs.games.president.picture import table_view
from cardenvs.games.president.text import (
    REST_FIELD, STATE_FIELDS, action_to_str, check_unseen, complete_scenario, deck_counts, make_template,
    observation_bounds, public_action_str, render_text, round_info, str_to_action, validate_state,
)

# the registry entry (the game's name, env id, players and how its match score reads)
SPEC = GameSpec(
    name="president", env_id="president_v0", module=sys.modules[__name__], min_players=4, max_players=10,
    default_players=4, doc="docs/games/president.md",
    title="Président (trou de cul)",
    summary="climbing game, 52 cards (104 from 8 players); match to 11 points",
)
