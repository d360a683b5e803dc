"""The record of one match as the envs keep it: where it started and every action taken.

The envs fill it (``CardGameEnv.match_record()``, ``VecEnv.match_record(i)``); saving,
loading, checking and replaying it live in :mod:`cardenvs.replay`, above the envs."""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardenvs.core.protocol import GameSpec, state_to_dict

FORMAT_NAME = "cardenvs-match"
FORMAT_VERSION = 1
RESULT_TOLERANCE = 1e-6  # returns this close share a place (as in core.outcome.win_shares)


def package_version() -> str:
    """The installed cardenvs' version (as pip recorded it), or ``0+unknown``."""
    try:
        return importlib.metadata.version("cardenvs")
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"


@dataclass
class MatchRecord:
    """One match: enough to play it again exactly.

    ``start`` is the env's ``state_dict()`` when the match began (after the deal, and after
    the forced moves an ``auto_play_forced`` env played there); it holds the random stream,
    so a replay draws what the match drew even without ``seed``. ``actions`` are the
    players' choices in order. With ``auto_play_forced`` the moves that had a single legal
    action were played by the env and are not listed: a replay plays them again.
    ``seed`` is the seed the match was dealt from, when there was one (for reference: the
    replay starts from ``start``). ``agents`` names who sat at each seat; ``result`` is
    ``{"returns": [...], "scores": [...] or None, "places": [...], "truncated": bool}``
    once the match is over (places from the returns: 1 is best, equal returns share it)."""

    env_id: str
    options: dict[str, Any]
    num_players: int
    start: dict[str, Any]
    actions: list[int]
    seed: int | None = None
    auto_play_forced: bool = False
    agents: list[str] | None = None
    result: dict[str, Any] | None = None
    cardenvs_version: str = field(default_factory=package_version)
    format: str = FORMAT_NAME
    format_version: int = FORMAT_VERSION


def places_of(returns: list[float]) -> list[int]:
    """Each seat's place by its return: 1 + the number of seats that did better."""
    return [1 + sum(other > r + RESULT_TOLERANCE for other in returns) for r in returns]


def match_result(spec: GameSpec, final_state: np.void | None, returns: np.ndarray, truncated: bool) -> dict[str, Any]:
    """The ``result`` of a finished match: its returns, the game's match scores (read from
    ``final_state``; None when the state is gone, e.g. restarted by an auto-reset), places."""
    rets = [float(x) for x in returns]
    scores = None
    if final_state is not None:
        info_scores = spec.module.round_info(final_state).get("scores")
        scores = None if info_scores is None else [float(x) for x in info_scores]
    return {"returns": rets, "scores": scores, "places": places_of(rets), "truncated": bool(truncated)}


class MatchLog:
    """A match being recorded: a copy of its first state (turned into a ``state_dict`` only
    when a record is asked for), its actions, and its returns so far."""

    __slots__ = ("start", "seed", "actions", "returns", "result", "illegal")

    def __init__(self, start: np.ndarray, seed: int | None, num_players: int):
        self.start = start.copy()  # one game's record, shape (1,)
        self.seed = seed
        self.actions: list[int] = []
        self.returns = np.zeros(num_players, dtype=np.float64)
        self.result: dict[str, Any] | None = None
        self.illegal = -1  # index of a penalised illegal action, if one was taken

    def record(self, spec: GameSpec, options: dict[str, Any], num_players: int,
               auto_play_forced: bool) -> MatchRecord:
        if self.illegal >= 0:
            raise ValueError(f"action {self.illegal + 1} of this match was illegal and penalised "
                             f"(illegal_action='penalty'): a match record holds legal moves only")
        return MatchRecord(
            env_id=spec.env_id, options=dict(options), num_players=num_players,
            start=state_to_dict(spec, self.start[0]), actions=list(self.actions), seed=self.seed,
            auto_play_forced=auto_play_forced,
            result=None if self.result is None else dict(self.result),
        )
