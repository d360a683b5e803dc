"""cardenvs: card-game environments for reinforcement learning.

``cardenvs.make("president_v0", num_players=5)`` gives a PettingZoo AEC env;
``cardenvs.make_vec("president_v0", num_envs=4096, seed=0)`` a numba-compiled batch.
"""

import importlib.metadata
import sys

# before any kernel is defined: numba's cache keyed on every kernel source, not one file
from cardenvs.core import jitcache

jitcache.install()

from cardenvs.core.registry import GAMES, get_spec, list_games  # noqa: E402
from cardenvs.envs import entry_module, make, make_raw, make_vec, rules_page  # noqa: E402

# one importable module per game: ``from cardenvs import president_v0`` / ``import cardenvs.odin_v1``
for _env_id in GAMES:
    globals()[_env_id] = sys.modules[f"{__name__}.{_env_id}"] = entry_module(_env_id)

# Gymnasium ids cardenvs/<game>-v0 (single-agent env against opponent agents)
from cardenvs.integrations.gym import register_envs  # noqa: E402

register_envs()

try:  # the installed package's version (pyproject.toml's, as pip recorded it at install)
    __version__ = importlib.metadata.version("cardenvs")
except importlib.metadata.PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
    __version__ = "0+unknown"
__all__ = ["GAMES", "get_spec", "list_games", "make", "make_raw", "make_vec", "rules_page", "__version__"]
