"""Head-to-head matches of agents on the vector env, seats rotated, for any game.

The winner of a match is the seat (or seats, sharing the win) with the highest total
reward over the match, the same rule as ``cardenvs play``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardenvs.agents.base import Agent, one_blas_thread
from cardenvs.core.match_record import MatchRecord
from cardenvs.core.outcome import wilson_interval, win_shares
from cardenvs.core.protocol import GameSpec, env_records
from cardenvs.core.rng import batch_seeds
from cardenvs.core.vector import VecEnv


@dataclass
class SlotResult:
    """One agent slot of :func:`evaluate` (it played one seat in every match).

    Win shares and mean scores are over the finished matches; matches cut short
    (``max_steps``, or a single rummy round at its turn cap) count in ``truncated`` and
    nowhere else."""

    name: str
    matches: int  # matches played, finished or not
    wins: float  # ties shared: a win split between two seats counts 0.5 each
    mean_score: float  # the game's match score (``round_info(...)["scores"]``); nan if none
    truncated: int = 0  # matches cut short, left out of the win share and the mean score
    wins_sq: float = 0.0  # sum of the squared per-match shares, for the interval

    @property
    def finished(self) -> int:
        return self.matches - self.truncated

    @property
    def win_rate(self) -> float:
        """The share of the wins over the finished matches."""
        return self.wins / self.finished if self.finished else 0.0

    @property
    def ci95(self) -> float:
        """Half-width of the 95 % confidence interval of ``win_rate`` (normal approximation)."""
        n = self.finished
        if n < 2:
            return float("nan")
        var = max(self.wins_sq / n - self.win_rate**2, 0.0) * n / (n - 1)
        return 1.96 * float(np.sqrt(var / n))

    @property
    def interval95(self) -> tuple[float, float]:
        """The 95 % Wilson score interval of ``win_rate`` (low, high): within [0, 1] and
        meaningful at 0 % and 100 %, where ``ci95`` shrinks to nothing
        (:func:`cardenvs.core.outcome.wilson_interval`); (nan, nan) without a finished match."""
        return wilson_interval(self.win_rate, self.finished)


def evaluate(
    spec: GameSpec,
    agents: Sequence[Agent],
    num_matches: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    batch_size: int = 1000,
    first_match: int = 0,
    record_every: int = 0,
    on_record: Callable[[int, MatchRecord], None] | None = None,
) -> list[SlotResult]:
    """Play ``num_matches`` matches; ``agents[k]`` sits at seat ``(k - i) % P`` in match i,
    so every agent plays every seat equally often when ``num_matches`` is a multiple of P.
    An agent that reads the state (``reads_state``: the search) gets the rows' records.

    Match i is dealt from the i-th seed of ``seed``'s stream, whatever ``batch_size``:
    the matches ``first_match .. first_match + num_matches - 1`` of one long evaluation
    can be played in pieces.

    ``record_every`` K > 0 records every K-th match (matches K - 1, 2K - 1, ... counted
    from 0, over the whole evaluation) and hands each to ``on_record(match, record)`` once
    it is over, with the agents' names per seat in ``record.agents``."""
    if isinstance(record_every, bool) or not isinstance(record_every, (int, np.integer)) or record_every < 0:
        raise ValueError(f"record_every must be a whole number >= 0, got {record_every!r}")
    if record_every and on_record is None:
        raise ValueError("record_every needs on_record, which receives the records")
    opts = dict(options or {})
    num_players = len(agents)
    opts.setdefault("num_players", num_players)
    if opts["num_players"] != num_players:
        raise ValueError(f"{len(agents)} agents for num_players={opts['num_players']}")
    match_seeds = batch_seeds(seed, first_match + num_matches)[first_match:]
    with one_blas_thread():  # agents' small matrix products: threads only wait on each other
        return _play(spec, agents, num_matches, opts, batch_size, first_match, match_seeds, int(record_every),
                     on_record)


def _play(spec: GameSpec, agents: Sequence[Agent], num_matches: int, opts: dict[str, Any], batch_size: int,
          first_match: int, match_seeds: np.ndarray, record_every: int = 0,
          on_record: Callable[[int, MatchRecord], None] | None = None) -> list[SlotResult]:
    """The matches of :func:`evaluate` (its arguments, checked)."""
    num_players = len(agents)
    wins = np.zeros(num_players)
    wins_sq = np.zeros(num_players)
    score_sum = np.zeros(num_players)
    truncated = 0
    has_scores = True
    for start in range(0, num_matches, batch_size):
        n = min(batch_size, num_matches - start)
        env = VecEnv(spec, num_envs=n, auto_reset=False, **opts)
        recorded = []
        if record_every:
            recorded = np.flatnonzero((first_match + start + np.arange(n) + 1) % record_every == 0).tolist()
            env.record_matches(recorded)
        st = env.reset(seeds=match_seeds[start:start + n])
        match = np.arange(first_match + start, first_match + start + n)
        slot_of = (np.arange(num_players)[None, :] + match[:, None]) % num_players  # (n, seat) -> slot
        returns = np.zeros((n, num_players))
        done = np.zeros(n, dtype=np.bool_)
        cut = np.zeros(n, dtype=np.bool_)
        rows_all = np.arange(n)
        while not done.all():
            actions = np.zeros(n, dtype=np.int64)
            cur_slot = slot_of[rows_all, st.current_player]
            for k, agent in enumerate(agents):
                rows = np.flatnonzero(~done & (cur_slot == k))
                if rows.size and agent.reads_state:  # a search: the games' records (copies) too
                    actions[rows] = agent.act_states(env_records(env.states[rows]), st.observation[rows],
                                                     st.legal_action_mask[rows])
                elif rows.size:
                    actions[rows] = agent.act_batch(st.observation[rows], st.legal_action_mask[rows])
            st = env.step(actions)
            returns += st.rewards
            cut |= ~done & st.truncated
            done |= st.terminated | st.truncated
        for i in recorded:
            record = env.match_record(i)
            record.agents = [agents[slot_of[i, seat]].name for seat in range(num_players)]
            on_record(int(match[i]), record)
        shares = win_shares(returns)
        for i in range(n):
            if cut[i]:
                truncated += 1
                continue
            info = spec.module.round_info(env.states[i])
            scores = info.get("scores")
            has_scores = has_scores and scores is not None
            for seat in range(num_players):
                k = slot_of[i, seat]
                wins[k] += shares[i, seat]
                wins_sq[k] += shares[i, seat] ** 2
                if scores is not None:
                    score_sum[k] += scores[seat]
    finished = num_matches - truncated
    return [
        SlotResult(a.name, num_matches, float(wins[k]),
                   float(score_sum[k] / finished) if has_scores and finished else np.nan,
                   truncated, float(wins_sq[k]))
        for k, a in enumerate(agents)
    ]


def main() -> None:  # pragma: no cover - a measurement script
    """``python -m cardenvs.agents.evaluate [matches]``: the heuristic against random players."""
    import sys
    import time

    from cardenvs import get_spec
    from cardenvs.agents import make_agent

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
