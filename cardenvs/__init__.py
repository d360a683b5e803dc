"""cardenvs: card-game environments for reinforcement learning.

``cardenvs.make("president_v0", num_players=5)`` gives a PettingZoo AEC env;
``cardenvs.make_vec("president_v0", num_envs=4096, seed=0)`` a numba-compiled batch.
"""

from cardenvs.registry import GAMES, get_spec, list_games, make, make_raw, make_vec

__version__ = "0.1.0"
__all__ = ["GAMES", "get_spec", "list_games", "make", "make_raw", "make_vec", "__version__"]
