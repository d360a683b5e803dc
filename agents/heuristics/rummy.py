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


@njit(cache=True, no_cfunc_wrapper=True)
def one_hot_card(obs, base, n):
    """The card set in the one-hot block ``obs[base:base + n]`` (a pile's top card), or -1."""
    for c in range(n):
        if obs[base + c] > 0.5:
            return c
    return -1


@njit(cache=True, no_cfunc_wrapper=True)
def worth_taking(obs, hand, c, wild):
    """Take the pile's top card ``c`` (-1: none): a wild card, or one with two partners in hand."""
    return c >= 0 and (wild[c] or run_partners(obs, hand, c) >= 2)


@njit(cache=True, no_cfunc_wrapper=True)
def best_discard(obs, mask, hand, discard0, wild, points, w_partner, w_points):
    """The legal discard (action ``discard0 + card``) that fits the hand least: the fewest
    partners (weight ``w_partner``), the most points (``w_points``) among equals, a wild
    card last. ``wild`` and ``points`` are per card, for the cards the game discards.
    -1 when no discard is legal."""
    best = -1
    best_score = 1 << 30
    for c in range(wild.shape[0]):
        a = discard0 + c
        if not mask[a]:
            continue
        sc = (1 << 20) if wild[c] else run_partners(obs, hand, c) * w_partner - w_points * points[c]
        if sc < best_score:
            best, best_score = a, sc
    return best
