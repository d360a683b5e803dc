"""The league (cardenvs.agents.league, ``cardenvs league``): a balanced schedule, a rating
fit that recovers a known order with intervals that cover it, a tiny real league, and
bad arguments refused by name."""

from __future__ import annotations

import io
import itertools
from collections import Counter

import numpy as np
import pytest

import cardenvs.agents.evaluate as head_to_head
from cardenvs import get_spec
from cardenvs.agents import league
from cardenvs.agents.evaluate import SlotResult
from cardenvs.agents.league import (
    ANCHOR_RATING,
    TableResult,
    check_league,
    fit_ratings,
    league_tables,
    play_league,
    seat_orders,
)
from cardenvs.cli.main import main

pytest.importorskip("choix")


# --------------------------------------------------------------------------- the schedule
@pytest.mark.parametrize(("agents", "players", "expected"), [
    (3, 2, [(0, 1), (0, 2), (1, 2)]),
    (4, 4, [(0, 1, 2, 3)]),
    (5, 4, [(0, 1, 2, 3), (0, 1, 2, 4), (0, 1, 3, 4), (0, 2, 3, 4), (1, 2, 3, 4)]),
    (2, 4, [(0, 0, 0, 1), (0, 0, 1, 1), (0, 1, 1, 1)]),
    (3, 4, [(0, 0, 1, 2), (0, 1, 1, 2), (0, 1, 2, 2)]),
])
def test_the_tables_are_every_set_or_every_filling_with_each_agent(agents, players, expected):
    tables = league_tables(agents, players)
    assert tables == expected
    seats = Counter(a for t in tables for a in t)
    assert len(set(seats.values())) == 1  # every agent holds as many seats over the league


def test_the_orders_round_a_table_are_the_distinct_circles():
    assert len(seat_orders((0, 1, 2, 3))) == 6  # (4 - 1)!
    assert seat_orders((0, 0, 1, 1)) == [(0, 0, 1, 1), (0, 1, 0, 1)]
    assert seat_orders((0, 1)) == [(0, 1)]


class FakeAgent:
    def __init__(self, name: str):
        self.name = name


def test_every_agent_sits_every_seat_after_every_other_equally_often(monkeypatch):
    """The league as evaluate receives it: each match's seating (evaluate puts its k-th agent
    at seat (k - match) % P), counted by seat and by the agent seated next."""
    played = []

    def fake_evaluate(spec, agents, n, seed, options, batch_size, first_match):
        played.append(([a.name for a in agents], n, first_match, seed))
        return [SlotResult(a.name, n, n / len(agents), float("nan")) for a in agents]

    monkeypatch.setattr(head_to_head, "evaluate", fake_evaluate)
    names = ["a", "b", "c", "d", "e"]
    result = play_league(get_spec("president"), names, 48, seed=5, options={"num_players": 4}, batch_size=8,
                         bootstrap=0, make=lambda name, s: FakeAgent(name))
    assert result.matches == 5 * 48 and sum(n for _, n, _, _ in played) == 240
    # the matches follow one another: match i of the league is the i-th seed of the stream
    assert [f for _, _, f, _ in played] == list(itertools.accumulate([0] + [n for _, n, _, _ in played[:-1]]))
    assert {s for *_, s in played} == {5}
    for table in league_tables(5, 4):
        seat_of = Counter()
        next_to = Counter()
        for agents, n, first, _ in played:
            if sorted(agents) != [names[a] for a in table]:
                continue
            for m in range(first, first + n):
                seats = {(k - m) % 4: name for k, name in enumerate(agents)}
                seat_of.update((name, seat) for seat, name in seats.items())
                next_to.update((seats[s], seats[(s + 1) % 4]) for s in range(4))
        assert set(seat_of.values()) == {48 // 4}, seat_of  # every seat equally often
        assert set(next_to.values()) == {48 // 3}, next_to  # each agent after each other equally often


# --------------------------------------------------------------------------- the fit
TRUE = np.array([600.0, 1000.0, 1150.0, 900.0])  # random, heuristic, search, ppo on the Elo scale
NAMES = ["random", "heuristic", "search", "ppo"]


def synthetic_tables(rng: np.random.Generator, matches: int, players: int = 2) -> list[TableResult]:
    """Each table's winners drawn from Luce's model of the true ratings."""
    out = []
    for table in league_tables(len(NAMES), players):
        strength = 10 ** (TRUE[list(table)] / 400)
        counts = rng.multinomial(matches, strength / strength.sum())
        out.append(TableResult(table, matches, matches, dict(zip(table, counts.astype(float), strict=True))))
    return out


def test_the_fit_recovers_a_known_order():
    ratings = fit_ratings(NAMES, synthetic_tables(np.random.default_rng(1), 3000, players=4), bootstrap=50)
    assert [r.name for r in ratings] == ["search", "heuristic", "ppo", "random"]
    by_name = {r.name: r.rating for r in ratings}
    assert by_name["heuristic"] == ANCHOR_RATING
    for name, true in zip(NAMES, TRUE, strict=True):
        assert abs(by_name[name] - true) < 40, (name, by_name[name], true)


@pytest.mark.slow
def test_the_intervals_cover_the_true_ratings():
    """Over 24 seeded leagues of two-seat tables, each 95 % interval holds the true
    rating at least 20 times (about 23 are expected)."""
    covered = Counter()
    for trial in range(24):
        rng = np.random.default_rng(100 + trial)
        for r in fit_ratings(NAMES, synthetic_tables(rng, 120), bootstrap=150, seed=trial):
            covered[r.name] += r.low <= TRUE[NAMES.index(r.name)] <= r.high
    assert covered["heuristic"] == 24  # the anchor: its interval is its value
    assert min(covered[n] for n in ("random", "search", "ppo")) >= 20, covered


def test_an_agent_that_never_wins_gets_a_finite_rating_and_an_interval_of_some_width():
    tables = [TableResult((0, 1), 40, 40, {1: 40.0})]
    low_agent = next(r for r in fit_ratings(["random", "heuristic"], tables, bootstrap=200) if r.name == "random")
    assert np.isfinite(low_agent.rating) and low_agent.rating < ANCHOR_RATING - 300
    assert low_agent.low < low_agent.rating < low_agent.high and low_agent.high - low_agent.low > 100


def test_the_fit_refuses_agents_that_never_met():
    tables = [TableResult((0, 1), 4, 4, {0: 2.0, 1: 2.0}), TableResult((2, 3), 4, 4, {2: 1.0, 3: 3.0})]
    with pytest.raises(ValueError, match="join every agent"):
        fit_ratings(["a", "b", "c", "d"], tables)


@pytest.mark.parametrize(("names", "players", "matches", "message"), [
    (["random"], 4, 4, "at least two agents"),
    (["random", "random"], 4, 4, "listed twice"),
    (["human", "random"], 4, 4, "no person"),
    (["random", "heuristic"], 4, 10, r"multiple of the 4 players.*take 8 or 12"),
    (["random", "heuristic"], 4, 0, "matches_per_table"),
    (["random", "heuristic"], 4, True, "matches_per_table"),
])
def test_bad_league_arguments_are_refused_by_name(names, players, matches, message):
    with pytest.raises(ValueError, match=message):
        check_league(names, players, matches)


# --------------------------------------------------------------------------- a real league
def test_a_tiny_real_league_ranks_the_heuristic_above_random(tmp_path):
    pytest.importorskip("matplotlib")
    out, err = io.StringIO(), io.StringIO()
    plot = tmp_path / "ladder.png"
    code = main(["league", "president", "--players", "4", "--agents", "random,heuristic", "--matches", "8",
                 "--bootstrap", "100", "--plot", str(plot)], out=out, err=err)
    assert code == 0, err.getvalue()
    lines = out.getvalue().splitlines()
    table = lines[lines.index(next(x for x in lines if x.startswith("agent"))) + 2:][:2]
    assert [row.split()[0] for row in table] == ["heuristic", "random"]
    assert table[0].split()[1:3] == ["1000", "anchor"]
    assert "3 tables x 8 matches = 24 matches" in lines[0]
    assert "24/24 matches" in err.getvalue()
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_same_seed_plays_the_same_league():
    spec = get_spec("president")
    first, again = (play_league(spec, ["random", "heuristic"], 4, seed=3, options={"num_players": 4},
                                bootstrap=20) for _ in range(2))
    assert [t.wins for t in first.tables] == [t.wins for t in again.tables]
    assert [(r.name, r.rating, r.low, r.high) for r in first.ratings] == [
        (r.name, r.rating, r.low, r.high) for r in again.ratings]


@pytest.mark.parametrize(("extra", "message"), [
    (["--agents", "random"], "at least two agents"),
    (["--agents", "random,heuristic,random"], "listed twice"),
    (["--agents", "human,random"], "no person"),
    (["--agents", "random,robot"], "unknown agent 'robot'"),
    (["--agents", "random,heuristic", "--matches", "10"], "multiple of the 4 players"),
    (["--agents", "random,heuristic", "--bootstrap", "0"], "--bootstrap must be at least 1"),
    (["--agents", "random,heuristic", "--plot", "ladder.gif"], "suffix"),
    (["--agents", "random,heuristic", "--plot", "no-such-folder/ladder.png"], "is not there"),
    (["--agents", "random,heuristic", "--option", "nope=1"], "unknown option 'nope'"),
])
def test_bad_flags_are_one_line_usage_errors(monkeypatch, extra, message):
    def not_played(*args, **kwargs):
        raise AssertionError("a refused league played a match")

    monkeypatch.setattr(head_to_head, "evaluate", not_played)
    err = io.StringIO()
    code = main(["league", "president", "--players", "4", *extra], out=io.StringIO(), err=err)
    lines = err.getvalue().strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("cardenvs: error:"), err.getvalue()
    assert message in lines[0], lines[0]


def test_without_choix_the_command_names_the_extra(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "choix", None)  # an import of it fails
    err = io.StringIO()
    code = main(["league", "president", "--agents", "random,heuristic", "--matches", "4"], out=io.StringIO(),
                err=err)
    assert code == 2 and "cardenvs[league]" in err.getvalue()
    with pytest.raises(ImportError, match=r"cardenvs\[league\]"):
        league.fit_strengths(np.ones((2, 2)))


def test_the_league_imports_no_torch():
    import subprocess
    import sys

    code = ("import sys, cardenvs.agents.league, cardenvs.cli.league; "
            "assert 'torch' not in sys.modules, 'torch imported'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
