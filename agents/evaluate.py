"""Head-to-head matches of agents on the vector env, seats rotated, for any game.

The winner of a match is the seat (or seats, sharing the win) with the highest total
reward over the match, the same rule as ``cardenvs play``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import Agent
from cardenvs.core.protocol import GameSpec
from cardenvs.core.vector import VecEnv


@dataclass
class SlotResult:
    """One agent slot of :func:`evaluate` (it played one seat in every match)."""

    name: str
    matches: int
    wins: float  # ties shared: a win split between two seats counts 0.5 each
    mean_score: float  # the game's match score (``round_info(...)["scores"]``); nan if none

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches if self.matches else 0.0


def win_shares(returns: np.ndarray) -> np.ndarray:
    """(N, P) shares of the win: the seats with the highest return split 1."""
    best = returns.max(axis=1, keepdims=True)
    top = np.isclose(returns, best, rtol=0.0, atol=1e-6)
    return top / top.sum(axis=1, keepdims=True)


def evaluate(
    spec: GameSpec,
    agents: Sequence[Agent],
    num_matches: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    batch_size: int = 1000,
) -> list[SlotResult]:
    """Play ``num_matches`` matches; ``agents[k]`` sits at seat ``(k - i) % P`` in match i,
    so every agent plays every seat equally often when ``num_matches`` is a multiple of P."""
    opts = dict(options or {})
    num_players = len(agents)
    opts.setdefault("num_players", num_players)
    if opts["num_players"] != num_players:
        raise ValueError(f"{len(agents)} agents for num_players={opts['num_players']}")
    wins = np.zeros(num_players)
    score_sum = np.zeros(num_players)
    has_scores = True
    for start in range(0, num_matches, batch_size):
        n = min(batch_size, num_matches - start)
        env = VecEnv(spec, num_envs=n, seed=seed + start, auto_reset=False, **opts)
        st = env.reset()
        match = np.arange(start, start + n)
        slot_of = (np.arange(num_players)[None, :] + match[:, None]) % num_players  # (n, seat) -> slot
        returns = np.zeros((n, num_players))
        done = np.zeros(n, dtype=np.bool_)
        rows_all = np.arange(n)
        while not done.all():
            actions = np.zeros(n, dtype=np.int64)
            cur_slot = slot_of[rows_all, st.current_player]
            for k, agent in enumerate(agents):
                rows = np.flatnonzero(~done & (cur_slot == k))
                if rows.size:
                    actions[rows] = agent.act_batch(st.observation[rows], st.legal_action_mask[rows])
            st = env.step(actions)
            returns += st.rewards
            done |= st.terminated | st.truncated
        shares = win_shares(returns)
        for i in range(n):
            info = spec.module.round_info(env.states[i])
            scores = info.get("scores")
            has_scores = has_scores and scores is not None
            for seat in range(num_players):
                k = slot_of[i, seat]
                wins[k] += shares[i, seat]
                if scores is not None:
                    score_sum[k] += scores[seat]
    return [
        SlotResult(a.name, num_matches, float(wins[k]), float(score_sum[k] / num_matches) if has_scores else np.nan)
        for k, a in enumerate(agents)
    ]


def main() -> None:  # pragma: no cover - a measurement script
    """``python -m agents.evaluate [matches]``: the heuristic against random players."""
    import sys
    import time

    from agents import make_agent
    from cardenvs import get_spec

    matches = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    spec = get_spec("president")
    for single_round in (False, True):
        for players in (4, 5):
            agents = [make_agent("heuristic", spec)]
            agents += [make_agent("random", spec, seed=k) for k in range(1, players)]
            opts = {"num_players": players, "single_round": single_round}
            t = time.perf_counter()
            res = evaluate(spec, agents, matches, seed=12345, options=opts)
            h = res[0]
            rnd = sum(r.wins for r in res[1:]) / (players - 1)
            kind = "single-round" if single_round else "full"
            print(
                f"{players} players, {matches} {kind} matches ({time.perf_counter() - t:.1f} s): heuristic wins "
                f"{h.wins:.1f} = {h.win_rate:.1%} (fair share {1 / players:.1%}), mean score {h.mean_score:.2f}; "
                f"each random {rnd / matches:.1%}, mean score {np.mean([r.mean_score for r in res[1:]]):.2f}"
            )


if __name__ == "__main__":  # pragma: no cover
    main()
