"""Classes, a rummy of ten contracts ("classes") for 2 to 6 players (docs/games/classes.md):
the rules in ``rules.py`` (the contract search is the rummy layer's; the batch step is
core's driver, bound to its hooks), the text side in ``text.py``; the events a person is told
are the rummy layer's.
"""

from __future__ import annotations

import sys

from cardenvs.core.protocol import GameSpec
from cardenvs.games.classes import rules, text
from cardenvs.games.classes.rules import (
    MAX_PLAYERS, NUM_ACTIONS, OBS_DTYPE, OBS_SIZE, PHASE_NAMES, STATE_DTYPE, UNSEEN_KEYS, deal_unseen_batch,
    mask_batch, observe_batch, refresh_batch, reset_batch, step_batch, step_batch_parallel,
)
from cardenvs.games.classes.picture import table_view
from cardenvs.games.classes.text import (
    LINE_FINISHER, REST_FIELD, STATE_FIELDS, TURN_SECONDS, action_to_str, complete_scenario, custom_counts,
    custom_from_dict, custom_to_dict, deck_counts, make_template, observation_bounds, prepare_scenario, render_text,
    round_info, str_to_action, timeout_actions, validate_state,
)
from cardenvs.rummy import narration  # the rummies' events, shared

# the registry entry (the game's name, env id, players and how its match score reads)
SPEC = GameSpec(
    gym_options={"single_round": True},
    name="classes", env_id="classes_v2",
    earlier_versions={"classes_v0": None, "classes_v1": None}, module=sys.modules[__name__],
    min_players=2, max_players=6, default_players=4, doc="docs/games/classes.md", score_sense="lower",
    title="Classes",
    summary="rummy, 104 cards (156 from 5 players) with 2s wild; ten classes, each a contract; fewest points wins",
)
