"""What the rule-based rummy players of Frime and Classes share, read off the observation."""

from __future__ import annotations

from numba import njit


@njit(cache=True, no_cfunc_wrapper=True)
def run_partners(obs, hand, c):
    """Cards in hand (counts at ``obs[hand:hand + 52]``) that could share a meld with the
    natural card c in a rummy whose runs go 3 .. K A: the others of its rank, and those
    of its suit one or two run positions away."""
    n = 0
    r = c // 4
    t = c % 4
    for u in range(4):
        n += obs[hand + r * 4 + u]
    n -= 1  # c itself
    pos = 13 if r == 0 else r
    for d in (-2, -1, 1, 2):
        q = pos + d
        if 2 <= q <= 13:
            n += obs[hand + (0 if q == 13 else q) * 4 + t]
    return n
