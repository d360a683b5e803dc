"""Walking round the table: numba helpers over a per-seat flag array (out, eliminated)."""

from __future__ import annotations

from numba import njit


@njit(cache=True, no_cfunc_wrapper=True)
def next_seat(skip, seat, num_players):
    """The first seat after ``seat`` (clockwise) whose ``skip`` flag is clear; -1 if none."""
    for i in range(1, num_players + 1):
        q = (seat + i) % num_players
        if not skip[q]:
            return q
    return -1


@njit(cache=True, no_cfunc_wrapper=True)
def count_clear(skip, num_players):
    """How many of the first ``num_players`` seats have their ``skip`` flag clear."""
    n = 0
    for p in range(num_players):
        if not skip[p]:
            n += 1
    return n
