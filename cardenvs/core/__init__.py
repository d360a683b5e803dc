"""Shared machinery: the numba RNG, the game protocol, the AEC and vector envs."""
