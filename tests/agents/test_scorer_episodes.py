"""Rami 51's shipped card scorers: one for single rounds, one for whole matches; the agent
``scorer`` plays the one for the table's episode, and the CLI sets up the table for it."""

from __future__ import annotations

import io
import warnings

import pytest

from cardenvs import get_spec
from cardenvs.agents import available_agents, make_agent
from cardenvs.agents.rami51_scorer import SHIPPED, SHIPPED_MATCHES, CardScorerAgent, ScorerNetwork, shipped_scorer
from cardenvs.cli.common import policy_setup
from cardenvs.cli.main import main

RAMI = get_spec("rami51")


def test_both_scorers_are_shipped_for_their_episode():
    assert SHIPPED.is_file() and SHIPPED_MATCHES.is_file()
    assert ScorerNetwork.load(SHIPPED).meta["options"]["single_round"] is True
    assert ScorerNetwork.load(SHIPPED_MATCHES).meta["options"]["single_round"] is False
    assert "scorer" in available_agents(RAMI)


@pytest.mark.parametrize("options, shipped", [
    (None, SHIPPED_MATCHES),  # the game's default episode: whole matches
    ({}, SHIPPED_MATCHES),
    ({"single_round": False}, SHIPPED_MATCHES),
    ({"single_round": True}, SHIPPED),
    ({"num_players": 4, "single_round": True}, SHIPPED),
])
def test_the_agent_scorer_plays_the_scorer_of_the_tables_episode(options, shipped):
    assert shipped_scorer(options) == shipped
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # each plays its own episode without a warning
        agent = make_agent("scorer", RAMI, options={"num_players": 4, **(options or {})})
    assert agent.scorer.meta == ScorerNetwork.load(shipped).meta


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_whole_match_scorer_plays_tables_of_two_to_four_without_a_warning(players):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CardScorerAgent(RAMI, options={"num_players": players})


def test_a_scorer_off_its_setup_warns():
    with pytest.warns(UserWarning, match="num_players=4"):  # the whole-match scorer reads three other seats
        CardScorerAgent(RAMI, options={"num_players": 5})
    with pytest.warns(UserWarning, match="single_round=False"):  # a match scorer in single rounds
        CardScorerAgent(RAMI, options={"num_players": 4, "single_round": True}, scorer=SHIPPED_MATCHES)
    with pytest.warns(UserWarning, match="single_round=True"):  # a round scorer in whole matches
        CardScorerAgent(RAMI, options={"num_players": 4}, scorer=SHIPPED)


def test_the_cli_keeps_the_games_table_for_the_whole_match_scorer():
    out = io.StringIO()
    options: dict = {}
    policy_setup(RAMI, ["scorer", "heuristic"], options, out)
    assert options == {} and out.getvalue() == ""  # two players, whole matches: the game's defaults
    options = {"single_round": True}
    policy_setup(RAMI, ["scorer", "heuristic"], options, out)
    assert options == {"single_round": True, "num_players": 4}  # the round scorer's table
    assert "the policy's setup: num_players=4" in out.getvalue()


def test_eval_of_the_scorer_plays_whole_matches_by_default():
    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning of a setup the scorer was not trained for
        assert main(["eval", "rami51", "--agents", "scorer,heuristic", "--matches", "4", "--batch", "4"], out,
                    err) == 0
    text = out.getvalue()
    assert "rami51_v3: 2 players" in text and "policy's setup" not in text, text
    assert "4 finished" in text and "warn" not in err.getvalue().lower()
