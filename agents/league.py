"""A league: a round robin of seat-rotated matches between agents, and their ratings.

The schedule. A league of A agents at a table of P seats plays every *table* that
seats ``min(A, P)`` different agents: every set of P agents when A >= P (every pair at
two seats), and when there are fewer agents than seats every way of filling the P seats
in which each agent sits at least once (random and heuristic at four seats: r r r h,
r r h h, r h h h). Each table plays its matches (a multiple of P) in whole rotations
of P matches, where every agent moves one seat on each match, so that every agent sits
every seat equally often; the rotations cycle through the table's distinct orders round
the table (the (P - 1)! ways of seating P different agents in a circle, fewer with an agent
seated twice), so who sits after whom is spread too: equally when the number of rotations
is a multiple of the number of orders. Every match of the league is dealt from its own
seed of ``seed``'s stream, and the agents of each table are seeded from ``seed``, the
table and the seat: the same arguments play the same league.

The matches are played by :func:`cardenvs.agents.evaluate.evaluate`, the head-to-head
evaluation of ``cardenvs eval`` (seats rotated, BLAS on one thread, the search fed the
game's state).

The ratings. A match's winner (the seat with the highest total reward; ties shared)
is read as a win over each other seat at the table, and the pairwise results are fitted
with the Bradley–Terry model: agent i beats agent j with probability
``1 / (1 + 10 ** ((R_j - R_i) / 400))``, the Elo scale; under that model the winner of
a table is agent i with probability ``10 ** (R_i / 400) / sum_j 10 ** (R_j / 400)``
(Luce's choice model; breaking each match into its winner against each other seat
estimates its strengths consistently: rank breaking, Azari Soufiani et al., 2014). The fit is ``choix``'s
``ilsr_pairwise_dense`` (iterative Luce spectral ranking, the maximum-likelihood
estimate). Every agent is given half a win for each seat it holds at a table, Jeffreys'
prior for the table's shares of the wins, so that an agent that never wins still gets a
finite rating (in a few matches a mild one: the prior weighs as half a match a seat, and
it fades as matches add up). The ratings are anchored:
``heuristic`` (or else ``random``, or else the first agent) is :data:`ANCHOR_RATING`.
The 95 % intervals come from a seeded Bayesian bootstrap over matches (Rubin, 1981):
each table's shares of the wins are drawn from their posterior given its matches (a
Dirichlet distribution over the table's agents, with the same prior, so that an agent
that never won still gets an interval of some width), the fit is
repeated on each draw, and the 2.5 and 97.5 percentiles of each agent's rating are taken.
The anchor's rating is fixed by definition: the other intervals are relative to it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import cardenvs.agents.evaluate as head_to_head  # looked up at call time: `evaluate` may be replaced in tests
from cardenvs.agents import make_agent
from cardenvs.agents.base import Agent
from cardenvs.core.protocol import GameSpec

ANCHOR_RATING = 1000.0  # the anchor agent's rating
ELO_SCALE = 400.0 / math.log(10.0)  # a natural-log strength difference as Elo points
PRIOR_WINS_A_SEAT = 0.5  # the prior: half a win for each seat an agent holds at a table
DEFAULT_BOOTSTRAP = 400
LIBRARY_HINT = "pip install 'cardenvs[league]'"


# --------------------------------------------------------------------------- the schedule
def league_tables(num_agents: int, num_players: int) -> list[tuple[int, ...]]:
    """The tables of a league: each a sorted tuple of agent indices, one per seat; every
    set of P agents when ``num_agents >= num_players``, else every way of filling the seats
    in which each agent sits at least once."""
    _check_whole("num_agents", num_agents, 2)
    _check_whole("num_players", num_players, 2)
    if num_agents >= num_players:
        return list(itertools.combinations(range(num_agents), num_players))
    return [t for t in itertools.combinations_with_replacement(range(num_agents), num_players)
            if len(set(t)) == num_agents]


def seat_orders(table: Sequence[int]) -> list[tuple[int, ...]]:
    """The distinct orders of a table's agents round the table (one order and its rotations
    are the same order), each written from its smallest rotation, sorted."""
    found = set()
    for order in itertools.permutations(table):
        found.add(min(order[k:] + order[:k] for k in range(len(order))))
    return sorted(found)


def rotations_per_order(rotations: int, num_orders: int) -> list[int]:
    """How many rotations (of P matches each) each order of a table plays: ``rotations``
    shared as evenly as can be, the first orders getting one more."""
    return [rotations // num_orders + (k < rotations % num_orders) for k in range(num_orders)]


# --------------------------------------------------------------------------- the results
@dataclass
class TableResult:
    """One table's matches: ``agents`` (sorted agent indices, one per seat), the matches
    played and finished, and each agent's wins there (summed over its seats; ties shared)."""

    agents: tuple[int, ...]
    matches: int
    finished: int
    wins: dict[int, float]

    def seats(self, agent: int) -> int:
        return self.agents.count(agent)


@dataclass
class Rating:
    """One agent's rating, its 95 % interval, and its record: the seats it played in
    finished matches (a match where it sat twice counts twice) and the wins there."""

    name: str
    rating: float
    low: float
    high: float
    seats: int
    wins: float

    @property
    def win_share(self) -> float:
        return self.wins / self.seats if self.seats else float("nan")


@dataclass
class LeagueResult:
    """A league's tables, its ratings (best first), the anchor and what was played."""

    game: str
    num_players: int
    names: list[str]
    tables: list[TableResult]
    ratings: list[Rating]
    anchor: str
    matches: int = 0  # matches played, finished or not
    truncated: int = 0  # matches cut short: left out of the fit
    bootstrap: int = 0
    options: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- the fit
def pick_anchor(names: Sequence[str]) -> int:
    """The agent whose rating is :data:`ANCHOR_RATING`: ``heuristic``, else ``random``,
    else the first."""
    for wanted in ("heuristic", "random"):
        if wanted in names:
            return list(names).index(wanted)
    return 0


def _choix() -> Any:
    try:
        import choix
    except ImportError:
        raise ImportError(f"the league's rating fit needs the choix library: {LIBRARY_HINT}") from None
    return choix


def pairwise_wins(num_agents: int, tables: Sequence[TableResult],
                  wins: Sequence[dict[int, float]] | None = None) -> np.ndarray:
    """``(A, A)`` matrix of pairwise wins: a table's winner beat each other seat there
    (a copy of itself excepted). ``wins`` replaces the tables' own wins (the bootstrap)."""
    comp = np.zeros((num_agents, num_agents))
    for t, table in enumerate(tables):
        table_wins = table.wins if wins is None else wins[t]
        for a in set(table.agents):
            for b in set(table.agents) - {a}:
                comp[a, b] += table_wins.get(a, 0.0) * table.seats(b)
    return comp


def _met(num_agents: int, tables: Sequence[TableResult]) -> np.ndarray:
    met = np.zeros((num_agents, num_agents), dtype=bool)
    for table in tables:
        if table.finished:
            for a, b in itertools.permutations(set(table.agents), 2):
                met[a, b] = True
    return met


def fit_strengths(comp: np.ndarray) -> np.ndarray:
    """Bradley–Terry log-strengths (natural log, mean 0) of a matrix of pairwise wins,
    by ``choix`` (iterative Luce spectral ranking: the maximum-likelihood estimate)."""
    choix = _choix()
    return np.asarray(choix.ilsr_pairwise_dense(comp, max_iter=1000, tol=1e-10), dtype=np.float64)


def with_prior(table: TableResult) -> dict[int, float]:
    """A table's wins with the prior added: half a win for each seat an agent held
    (Jeffreys' prior of the table's shares of the wins); nothing for a table without a
    finished match."""
    if not table.finished:
        return {}
    return {a: table.wins.get(a, 0.0) + PRIOR_WINS_A_SEAT * table.seats(a) for a in set(table.agents)}


def fit_ratings(names: Sequence[str], tables: Sequence[TableResult], anchor: int | None = None,
                bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = 0) -> list[Rating]:
    """The agents' ratings on the Elo scale (``anchor`` at :data:`ANCHOR_RATING`) with
    95 % Bayesian-bootstrap intervals over matches (``bootstrap`` draws, from ``seed``), best
    first. ValueError when the finished matches do not join every agent to the others."""
    num_agents = len(names)
    anchor = pick_anchor(names) if anchor is None else anchor
    _check_whole("bootstrap", bootstrap, 0)
    if not 0 <= anchor < num_agents:
        raise ValueError(f"anchor must index one of the {num_agents} agents, got {anchor!r}")
    if not _connected(_met(num_agents, tables)):
        raise ValueError("the finished matches do not join every agent to the others: no common scale")
    prior_wins = [with_prior(t) for t in tables]
    strengths = fit_strengths(pairwise_wins(num_agents, tables, prior_wins))
    ratings = ANCHOR_RATING + ELO_SCALE * (strengths - strengths[anchor])
    rng = np.random.default_rng(seed)
    draws = np.empty((bootstrap, num_agents))
    for b in range(bootstrap):
        drawn = []
        for wins in prior_wins:
            if not wins:
                drawn.append({})
                continue
            # the table's shares of the wins drawn from their posterior: Dirichlet(wins + the prior)
            agents = sorted(wins)
            shares = rng.dirichlet([wins[a] for a in agents])
            drawn.append(dict(zip(agents, sum(wins.values()) * shares, strict=True)))
        s = fit_strengths(pairwise_wins(num_agents, tables, drawn))
        draws[b] = ANCHOR_RATING + ELO_SCALE * (s - s[anchor])
    low, high = (np.percentile(draws, [2.5, 97.5], axis=0) if bootstrap
                 else (np.full(num_agents, np.nan), np.full(num_agents, np.nan)))
    seats = np.zeros(num_agents, dtype=np.int64)
    wins_total = np.zeros(num_agents)
    for table in tables:
        for a in set(table.agents):
            seats[a] += table.finished * table.seats(a)
            wins_total[a] += table.wins.get(a, 0.0)
    out = [Rating(names[k], float(ratings[k]), float(low[k]), float(high[k]), int(seats[k]), float(wins_total[k]))
           for k in range(num_agents)]
    return sorted(out, key=lambda r: -r.rating)


def _connected(met: np.ndarray) -> bool:
    reached = {0}
    frontier = [0]
    while frontier:
        a = frontier.pop()
        for b in np.flatnonzero(met[a]).tolist():
            if b not in reached:
                reached.add(b)
                frontier.append(b)
    return len(reached) == met.shape[0]


# --------------------------------------------------------------------------- the league
def check_league(names: Sequence[str], num_players: int, matches_per_table: int) -> None:
    """The league's arguments, before anything is built: at least two different agents,
    no person, and a whole number of rotations of the seats per table."""
    if len(names) < 2:
        raise ValueError(f"a league needs at least two agents, got {len(names)}")
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if list(names).count(n) > 1})
        raise ValueError(f"each agent once in a league: {', '.join(twice)} listed twice")
    if "human" in names:
        raise ValueError("a league plays its matches unseen, with no person at the table: take human out")
    _check_whole("num_players", num_players, 2)
    _check_whole("matches_per_table", matches_per_table, 1)
    if matches_per_table % num_players:
        lower = matches_per_table - matches_per_table % num_players
        raise ValueError(f"matches per table must be a multiple of the {num_players} players, so that every agent "
                         f"sits every seat equally often; got {matches_per_table} "
                         f"(take {lower or num_players} or {lower + num_players})")


def play_league(spec: GameSpec, names: Sequence[str], matches_per_table: int, seed: int = 0,
                options: dict[str, Any] | None = None, batch_size: int = 1000,
                bootstrap: int = DEFAULT_BOOTSTRAP,
                on_progress: Callable[[int, int], None] | None = None,
                make: Callable[[str, int], Agent] | None = None) -> LeagueResult:
    """Play the league of the agents ``names`` (see the module's docstring) at
    ``options["num_players"]`` seats (the game's default otherwise) and fit their ratings.

    ``on_progress(done, total)`` is called after each batch of matches; ``make(name,
    seed)`` builds an agent (``make_agent`` for the game and options by default)."""
    from cardenvs.core.rng import check_seed
    from cardenvs.core.vector import VecEnv

    opts = dict(options or {})
    check_seed(seed)
    num_players = VecEnv(spec, 1, **opts).num_players  # the game checks its options
    opts["num_players"] = num_players
    check_league(names, num_players, matches_per_table)
    _check_whole("batch_size", batch_size, 1)
    build = make or (lambda name, s: make_agent(name, spec, seed=s, options=opts))
    tables = league_tables(len(names), num_players)
    total = len(tables) * matches_per_table
    chunk = max(num_players, batch_size - batch_size % num_players)
    done = 0
    truncated = 0
    results: list[TableResult] = []
    for t, table in enumerate(tables):
        # one agent per seat of the table, each seeded from the league's seed, the table and the seat
        seat_seeds = np.random.SeedSequence([seed, t]).generate_state(num_players, dtype=np.uint32)
        players = [build(names[a], int(s)) for a, s in zip(table, seat_seeds, strict=True)]
        orders = seat_orders(range(num_players)) if len(set(table)) == num_players else seat_orders(table)
        wins: dict[int, float] = {}
        finished = 0
        rotations = rotations_per_order(matches_per_table // num_players, len(orders))
        for order, count in zip(orders, rotations, strict=True):
            seated = _seat(order, table, players)
            left = count * num_players
            while left:
                n = min(chunk, left)
                part = head_to_head.evaluate(spec, [p for _, p in seated], n, seed=seed, options=opts,
                                             batch_size=n, first_match=done)
                for (agent, _), slot in zip(seated, part, strict=True):
                    wins[agent] = wins.get(agent, 0.0) + slot.wins
                finished += part[0].finished
                truncated += part[0].truncated
                done += n
                left -= n
                if on_progress is not None:
                    on_progress(done, total)
        results.append(TableResult(tuple(table), matches_per_table, finished, wins))
    ratings = fit_ratings(names, results, bootstrap=bootstrap, seed=seed)
    return LeagueResult(spec.name, num_players, list(names), results, ratings, names[pick_anchor(names)],
                        matches=total, truncated=truncated, bootstrap=bootstrap, options=opts)


def _seat(order: Sequence[int], table: Sequence[int], players: Sequence[Agent]) -> list[tuple[int, Agent]]:
    """The (agent index, agent) of each seat for one order: ``order`` lists the table's
    agents (or, when all differ, the table's seats) round the table."""
    if len(set(table)) == len(table):  # all differ: the order is of the table's seats
        return [(table[k], players[k]) for k in order]
    unused = {a: [k for k, b in enumerate(table) if b == a] for a in set(table)}
    return [(a, players[unused[a].pop(0)]) for a in order]


def _check_whole(name: str, value: Any, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be a whole number >= {low}, got {value!r}")


# --------------------------------------------------------------------------- the plot
def plot_ratings(result: LeagueResult, path: str, title: str | None = None) -> None:
    """The ratings with their 95 % intervals as a picture (matplotlib; the format from
    the file's suffix: png, svg, pdf)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(f"the league's plot needs matplotlib: {LIBRARY_HINT}") from None
    ratings = list(reversed(result.ratings))  # best at the top
    fig, ax = plt.subplots(figsize=(7.0, 0.55 * len(ratings) + 1.6))
    y = np.arange(len(ratings))
    values = np.array([r.rating for r in ratings])
    low = np.array([r.low for r in ratings])
    high = np.array([r.high for r in ratings])
    spread = np.nan_to_num(np.vstack([values - low, high - values]), nan=0.0)
    ax.errorbar(values, y, xerr=np.maximum(spread, 0.0), fmt="o", color="#1f5fa8", ecolor="#7a9cc6", capsize=4)
    for yk, value in zip(y, values, strict=True):
        ax.annotate(f"{value:.0f}", (value, yk), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    ax.axvline(ANCHOR_RATING, color="#999999", linewidth=0.8, linestyle="--")
    ax.set_yticks(y, [r.name for r in ratings])
    ax.set_xlabel(f"rating (Elo scale, {result.anchor} = {ANCHOR_RATING:.0f}), 95 % interval")
    ax.set_title(title or f"{result.game}: {result.num_players} players, {result.matches} matches")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


__all__ = [
    "ANCHOR_RATING",
    "LeagueResult",
    "Rating",
    "TableResult",
    "check_league",
    "fit_ratings",
    "league_tables",
    "pairwise_wins",
    "pick_anchor",
    "play_league",
    "plot_ratings",
    "seat_orders",
]
