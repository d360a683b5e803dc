"""Long random-play runs with invariants checked (``cardenvs soak GAME --matches N``).

Random legal play through the vector env, a batch of matches at a time, checking at every
step that:

- the player to move is a seat of the game, and a live game has at least one legal action;
- observations stay within the game's observation bounds;
- rewards are finite, and over a finished match they add up to zero where the game's
  reward is zero-sum (``GameSpec.zero_sum``, with the default ``reward_mode``);
- every ``check_every`` steps, the state of a few games survives ``state_dict`` and a
  load into a fresh env (the loader checks card conservation, seats, phases and the
  game's own consistency rules), and the reloaded game shows the same mask.

A violation is recorded (with the match's batch seed, row and step) and the run goes on: a
row found without a legal action is played on by the env's penalty (its match ends).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np

from cardenvs.core.protocol import GameSpec


@dataclass
class SoakReport:
    game: str
    matches: int = 0  # finished or cut short
    truncated: int = 0
    decisions: int = 0
    seconds: float = 0.0
    state_checks: int = 0
    violations: list[str] = field(default_factory=list)

    @property
    def matches_per_s(self) -> float:
        return self.matches / self.seconds if self.seconds else 0.0

    def summary(self) -> str:
        return (f"{self.game}: {self.matches:,} matches ({self.truncated:,} cut short), {self.decisions:,} decisions "
                f"in {self.seconds:.1f} s ({self.matches_per_s:,.0f} matches/s, "
                f"{self.decisions / max(self.seconds, 1e-9):,.0f} decisions/s); {self.state_checks:,} state "
                f"round trips; {len(self.violations)} violation(s)")


def soak(
    spec: GameSpec,
    matches: int,
    num_envs: int = 1024,
    seed: int = 0,
    num_threads: int = 1,
    check_every: int = 200,
    options: dict[str, Any] | None = None,
    err: TextIO | None = None,
    max_violations: int = 20,
) -> SoakReport:
    """Play random matches until ``matches`` have ended (finished or cut short); returns the report."""
    from cardenvs.core.aec import CardGameEnv
    from cardenvs.core.vector import RandomSampler, VecEnv

    opts = dict(options or {})
    n = max(1, min(num_envs, matches))
    # penalty mode: a row found without a legal action gets -1 from the sampler, which ends that
    # match (reported) instead of stopping the run
    env = VecEnv(spec, n, seed=seed, num_threads=num_threads, auto_reset=True, illegal_action="penalty", **opts)
    low, high = spec.module.observation_bounds(env._template)
    zero_sum = spec.zero_sum and opts.get("reward_mode", "match") == "match"
    checker = CardGameEnv(spec, **opts)
    sampler = RandomSampler(seed)
    report = SoakReport(spec.name)
    returns = np.zeros((n, env.num_players), dtype=np.float64)
    step = 0
    start = time.perf_counter()
    st = env.reset()
    last_shown = 0.0

    def violation(text: str) -> None:
        if len(report.violations) < max_violations:
            report.violations.append(f"seed {seed}, step {step}: {text}")
        elif len(report.violations) == max_violations:
            report.violations.append("... (further violations not listed)")

    while report.matches < matches:
        masks = st.legal_action_mask
        live = masks.any(axis=1)
        if not live.all():
            violation(f"rows {np.flatnonzero(~live)[:5].tolist()} have no legal action")
        cur = st.current_player
        if (cur < 0).any() or (cur >= env.num_players).any():
            violation(f"current player out of range: {cur[(cur < 0) | (cur >= env.num_players)][:5].tolist()}")
        obs = st.observation
        if obs.size and (obs.min() < low or obs.max() > high):
            violation(f"observation outside [{low}, {high}]: min {obs.min()}, max {obs.max()}")
        if step % check_every == 0:
            for i in range(0, n, max(1, n // 4)):
                report.state_checks += 1
                try:
                    checker.reset(options={"scenario": env.state_dict(i)})
                    mask = checker.observe(checker.agent_selection)["action_mask"].astype(bool)
                    if not np.array_equal(mask, masks[i]):
                        violation(f"row {i}: the reloaded state has another mask")
                except Exception as e:  # any failure of the round trip is a finding, not the end of the run
                    violation(f"row {i}: state_dict does not load back: {type(e).__name__}: {e}")
        st = env.step(sampler(masks))
        step += 1
        report.decisions += n
        rewards = st.rewards
        if st.illegal.any():
            violation(f"rows {np.flatnonzero(st.illegal)[:5].tolist()}: an action was refused as illegal")
            returns[st.illegal] = 0.0  # those matches ended by the penalty, not by the rules
        if not np.isfinite(rewards).all():
            violation("a reward is not finite")
        returns += rewards
        ended = st.terminated | st.truncated
        if ended.any():
            rows = np.flatnonzero(ended)
            if zero_sum:
                rows_legal = rows[~st.illegal[rows]]
                sums = returns[rows_legal].sum(axis=1)
                bad = rows_legal[np.abs(sums) > 1e-4]
                if bad.size:
                    violation(f"rows {bad[:5].tolist()}: match rewards add up to {sums[np.abs(sums) > 1e-4][:5]}")
            returns[rows] = 0.0
            report.matches += rows.size
            report.truncated += int(st.truncated.sum())
        now = time.perf_counter()
        if err is not None and now - last_shown > 0.5:
            last_shown = now
            done = min(report.matches, matches)
            width = 30
            filled = width * done // matches
            err.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done:,}/{matches:,} matches, "
                      f"{len(report.violations)} violation(s)")
            err.flush()
    report.seconds = time.perf_counter() - start
    if err is not None:
        err.write("\n")
    return report


def main_soak(game: str, matches: int, seed: int = 0, threads: int = 1, options: dict | None = None,
              out: TextIO | None = None, err: TextIO | None = None) -> int:
    """The CLI's ``soak``: 0 when no invariant broke, 1 otherwise."""
    from cardenvs.core.registry import get_spec

    out = out or sys.stdout
    report = soak(get_spec(game), matches, seed=seed, num_threads=threads, options=options, err=err)
    print(report.summary(), file=out)
    for v in report.violations:
        print(f"  {v}", file=out)
    return 1 if report.violations else 0
