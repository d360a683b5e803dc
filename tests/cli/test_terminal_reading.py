"""A person at the terminal: what a typed line is read as in the rummies (wild cards with
or without their meaning, a bare card as a discard or a lay-off, several readings listed),
how ``--agents`` fills the seats, and what the table is told (a whole turn on one line, a
round's end), never more than the seat may see."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from cardenvs import make_raw
from cardenvs.cli.common import CliError, seat_names
from cardenvs.cli.console import TableTalk, parse_human_line
from cardenvs.cli.main import main
from cardenvs.core import narration


def read(env, line: str) -> list[str]:
    """The moves ``line`` stands for, as strings (ValueError when refused)."""
    return [env.action_to_str(a) for a in parse_human_line(env, line, env.legal_actions())]


def refused(env, line: str) -> str:
    """The one-line message a refused line gets; nothing is played."""
    before = env.state_dict()
    with pytest.raises(ValueError) as caught:
        parse_human_line(env, line, env.legal_actions())
    assert env.state_dict() == before
    message = str(caught.value)
    assert "\n" not in message
    return message


def rami51(hand: list[str], melds: list[list[str]]):
    env = make_raw("rami51_v3", num_players=2)
    env.reset(seed=0, options={"scenario": {
        "hands": [hand, ["3c", "3d"]], "melds": [{"owner": 1, "cards": m} for m in melds],
        "opened": [True, True], "phase": "play", "current": 0}})
    return env


# --------------------------------------------------------------------------- wild cards
def test_rami51_jokers_alone_or_with_their_meaning():
    env = rami51(["Th", "Jh", "X", "4d", "9d", "Jc"], [["8s", "9s", "Ts"], ["Qs", "Ks", "As"]])
    laid_high = ["meld", "add Th", "add Jh", "add X=Qh", "close"]
    # the joker alone: both ends are legal, so the order typed decides
    assert read(env, "Th Jh X") == laid_high
    assert read(env, "X Th Jh") == ["meld", "add X=9h", "add Th", "add Jh", "close"]
    for line in ("Jh Th X=Qh", "*=Qh Th Jh", "Th Jh add X=Qh", "X=Qh Th Jh"):
        assert read(env, line) == laid_high, line
    assert "2h is not a wild card in Rami 51 (wild: jokers)" in refused(env, "Th Jh 2h=Qh")
    assert refused(env, "Js") == "you hold no Js"
    assert refused(env, "Th Jh") == ("'Th Jh' leaves the meld it begins unfinished (meld add Th add Jh): type its "
                                     "cards together, or the move that begins it first to build it a card at a time")
    assert read(env, "meld Th Jh") == ["meld", "add Th", "add Jh"]  # begun on purpose: left open
    assert refused(env, "Th Jh X X") == "you hold only 1 X, not 2"


def test_frime_a_two_stands_for_the_missing_king():
    env = make_raw("frime_v1")
    env.reset(seed=0, options={"scenario": {"hands": [["Kc", "Kh", "2s"], None, None, None], "phase": "choose",
                                            "current": 0}})
    env.step(env.str_to_action("out"))
    wanted = ["set", "add Kc", "add Kh", "add *=Kc", "close"]
    for line in ("Kc Kh 2s", "2s Kh Kc", "Kc Kh 2s=K", "Kc Kh 2s=Kd", "Kc Kh *=K", "Kc, Kh, add 2s"):
        assert read(env, line) == wanted, line
    assert refused(env, "Kc Kh X=K") == "you hold no X"  # the frime named is the player's own card


def test_classes_the_contract_typed_as_cards():
    env = make_raw("classes_v2", num_players=4)
    env.reset(seed=0, options={"scenario": {
        "hands": [["7c", "7d", "2s", "9c", "9c", "9s", "3h", "4h", "5h", "6h", "Kd", "Ks", "2h"], None, None, None],
        "pile": ["Kh"], "current": 0, "phase": "draw"}})
    env.step(env.str_to_action("draw"))
    wanted = ["contract", "add 7c", "add 7d", "add *=7c", "close", "add 9c", "add 9c", "add 9s", "close"]
    for line in ("7c 7d 2s 9c 9c 9s", "7c 7d 2s=7 9c 9c 9s", "7c 7d 2s=7h 9c 9s 9c", "7d 7c *=7 9c 9c 9s"):
        assert read(env, line) == wanted, line
    assert "a joker is not a wild card in Classes (wild: 2s)" in refused(env, "7c 7d X=7h")
    assert env.str_to_action("2c=7") == env.str_to_action("add *=7")  # the table's form, one move
    assert env.str_to_action("2c=7h") == env.str_to_action("*=7h")


# --------------------------------------------------------------------------- what a bare card means
def test_a_bare_card_discards_only_where_it_cannot_be_laid():
    env = rami51(["Jh", "2c", "4d", "9s", "Kc", "Qs"], [["8h", "9h", "Th"], ["5s", "6s", "7s"]])
    assert read(env, "Qs") == ["discard Qs"]  # nothing takes it: the discard
    assert read(env, "Jh") == ["layoff 0", "add Jh"]  # the one meld that takes it
    assert read(env, "discard Jh") == ["discard Jh"]  # said outright
    assert read(env, "layoff 0 Jh") == ["layoff 0", "add Jh"]
    assert read(env, "Jh Qs") == ["layoff 0", "add Jh", "discard Qs"]
    assert refused(env, "Jh Qs 4d") == "'4d' cannot be played after layoff 0 add Jh discard Qs"


def test_two_legal_readings_are_listed_in_one_line():
    env = rami51(["Jh", "4d", "9s"], [["8h", "9h", "Th"], ["Qh", "Kh", "Ah"]])
    assert refused(env, "Jh") == "'Jh' reads 2 ways: layoff 0, add Jh | layoff 1, add Jh; type the moves you mean"
    assert read(env, "layoff 1 Jh") == ["layoff 1", "add Jh"]


def test_a_line_is_read_through_the_masks_only():
    """Every move of a reading is legal when it is played, in random positions of every
    rummy: the lines made of the legal moves' cards read as legal moves or are refused."""
    rng = np.random.default_rng(7)
    checked = 0
    for env_id in ("rami51_v3", "frime_v1", "classes_v2"):
        env = make_raw(env_id)
        env.reset(seed=3)
        for _ in range(120):
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                break
            legal = env.legal_actions()
            hand = env.state_dict()["hands"][env.possible_agents.index(agent)]
            line = " ".join(rng.choice(hand, size=min(len(hand), int(rng.integers(1, 4))), replace=False))
            try:
                moves = parse_human_line(env, line, legal)
            except ValueError as e:
                assert "\n" not in str(e)
            else:
                sim = env.clone()
                for a in moves:
                    assert a in sim.legal_actions(), (env_id, line)
                    sim.step(a)
                checked += 1
            env.step(int(rng.choice(legal)))
    assert checked > 20


# --------------------------------------------------------------------------- long and odd lines
@pytest.mark.parametrize("env_id", ["president_v0", "odin_v1", "rami51_v3", "frime_v1", "classes_v2"])
def test_a_long_line_is_quoted_back_cut_short(env_id):
    env = make_raw(env_id)
    env.reset(seed=3)
    last = len(env.legal_actions()) - 1
    # a move number of thousands of digits: no int() of it, and the message quotes its first 60 characters
    digits = "9" * 5000
    assert refused(env, "#" + digits) == f"'#{digits[:59]}...': choose #0 .. #{last}"
    for number in ("1234567", "²", "٣", "-1", "1.0"):  # more than 6 digits, or not ASCII digits
        assert refused(env, "#" + number) == f"'#{number}': choose #0 .. #{last}"
    assert read(env, "#0") == [env.action_to_str(env.legal_actions()[0])]
    # what a game cannot read is quoted back cut short, wherever it stands in the line
    for line in ("x" * 5000, digits, "Xr=" + "y" * 5000, "take " + "z" * 5000):
        message = refused(env, line)
        assert len(message) < 400 and line[:61] not in message and line[-61:] not in message, message[:400]
        assert "to pick move" not in message  # no hint to pick move 999...9 of the list
        if " " not in line:  # a single word no game reads: quoted back, cut
            assert f"{line[:60]}..." in message


# --------------------------------------------------------------------------- seats
def test_the_last_agent_fills_the_remaining_seats():
    assert seat_names(["heuristic", "random"], 5) == ["heuristic", "random", "random", "random", "random"]
    assert seat_names(["human", "heuristic"], 4) == ["human", "heuristic", "heuristic", "heuristic"]
    assert seat_names(["human", "human"], 2) == ["human", "human"]  # two seats, both asked for
    with pytest.raises(CliError, match="list one agent per seat, for example --agents heuristic,human,heuristic,"
                                       "heuristic"):
        seat_names(["heuristic", "human"], 4)
    with pytest.raises(CliError, match="5 agents for 4 seats"):
        seat_names(["random"] * 5, 4)


@pytest.mark.parametrize("command", [["play", "president", "--games", "2"], ["eval", "president", "--matches", "2"]])
def test_play_and_eval_seat_alike(command):
    out, err = io.StringIO(), io.StringIO()
    assert main([*command, "--players", "5", "--agents", "heuristic,random", "--seed", "1",
                 "--option", "single_round=true"], out, err) == 0, err.getvalue()
    assert "5 players, seats heuristic,random,random,random,random" in out.getvalue()


def test_a_person_never_gets_seats_they_did_not_list():
    out, err = io.StringIO(), io.StringIO()
    code = main(["play", "president", "--agents", "heuristic,human"], out, err, input_fn=lambda _: "q")
    assert code == 2 and out.getvalue() == ""
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1 and "would seat you at 2 more seats than listed (4 seats)" in lines[0]


# --------------------------------------------------------------------------- what the table is told
def test_summaries_of_a_whole_turn():
    assert narration.summary("rami51", ["take", "meld", "add 5c", "add 6c", "add 7c", "close", "discard Qs"]) == \
        "takes the discard, lays 5c 6c 7c and discards Qs"
    assert narration.summary("classes", ["draw", "contract", "add 7c", "add 7d", "add *=7c", "close", "add 9c",
                                         "add 9c", "add 9s", "close", "layoff 2", "add Jh", "discard 4d"]) == \
        "draws, lays 7c 7d *=7c + 9c 9c 9s, lays off Jh on meld 2 and discards 4d"
    assert narration.summary("odin", ["select 7p", "select 7b", "take 4r"]) == "plays 7p 7b and takes 4r back"
    assert narration.summary("president", ["77"]) == "plays 77"
    assert narration.plural(1, "card") == "1 card" and narration.plural(2, "card") == "2 cards"


def _scripted(out: io.StringIO):
    """The person's first listed move, and `draw` where it is listed."""
    def reply(prompt: str) -> str:
        block = out.getvalue().rsplit("legal moves:", 1)[1]
        listed = re.findall(r"#\d+ (.+?)(?=   #\d+ |\n|$)", block)
        return "draw" if "draw" in listed else "#0"
    return reply


def test_an_opponents_turn_is_one_line_and_a_round_end_says_who_went_out():
    out = io.StringIO()
    code = main(["play", "rami51", "--agents", "human,heuristic", "--seed", "5", "--turn-seconds", "0"], out,
                io.StringIO(), input_fn=_scripted(out))
    text = out.getvalue()
    assert code == 0
    theirs = re.findall(r"^player_1 \(heuristic\): (.*)$", text, re.M)
    assert theirs and all(re.search(r"discards (?:[2-9TJQKA][cdhs]|X)$", line) for line in theirs), theirs
    assert any(", lays " in line for line in theirs)
    assert not re.search(r"^player_1 \(heuristic\): (?:meld|add|close|layoff|discard)\b", text, re.M)
    ends = re.findall(r"^-- round (\d+) over: (.*)$", text, re.M)
    assert ends and ends[0][0] == "1"
    for _, said in ends:
        assert re.fullmatch(r"(?:you|player_1) went out; round points: you \d+, player_1 \d+; scores \[\d+, \d+\]",
                            said), said
    assert text.count("the table before the round's last move:\nRami 51 — round") == len(ends) - 1
    last = text.rsplit("-- round", 1)[1]
    assert "(match over)" in last  # the final table follows the last round's end


def test_president_says_the_places_at_a_round_end():
    out = io.StringIO()
    code = main(["play", "president", "--agents", "human,heuristic", "--seed", "5", "--option", "single_round=true"],
                out, io.StringIO(), input_fn=_scripted(out))
    assert code == 0
    line = re.search(r"^-- round 1 over: (.*)$", out.getvalue(), re.M).group(1)
    assert re.fullmatch(r"places: (?:you|player_\d) 1st \(président\), (?:you|player_\d) 2nd \(vice-president\), "
                        r"(?:you|player_\d) 3rd, (?:you|player_\d) 4th \(trou A\); scores \[.*\]", line), line


@pytest.mark.parametrize("env_id", ["rami51_v3", "frime_v1", "classes_v2", "odin_v1", "president_v0"])
def test_what_the_table_is_told_hides_the_other_hands(env_id):
    """Another seat's move, told to seat 0, reads the same in a twin state whose cards
    hidden from seat 0 were dealt anew."""
    rng = np.random.default_rng(11)
    env = make_raw(env_id)
    env.reset(seed=2)
    compared = 0
    for step in range(300):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        seat = env.possible_agents.index(agent)
        legal = env.legal_actions()
        if seat != 0 and step % 3 == 0:
            twin = make_raw(env_id)  # the twin's position, played on from a reset to it
            twin.reset(seed=0, options={"scenario": env.resample_hidden("player_0", seed=step).state_dict()})
            both = [a for a in legal if a in twin.legal_actions()]
            if both:
                action = int(rng.choice(both))
                told = []
                for copy in (env.clone(), twin):
                    out = io.StringIO()
                    talk = TableTalk(copy, ["heuristic"] * copy.num_players, 0, out)
                    before, table = copy.state_dict(), copy.render_text(0)
                    forced = len(copy.legal_actions()) == 1
                    copy.step(action)
                    talk.moved(seat, action, before, forced, table)
                    if copy.state_dict()["round"] != before["round"] or copy.state_dict().get("terminated"):
                        told = []  # a round's end tells everyone its points: not hidden
                        break
                    talk.flush()
                    told.append(out.getvalue())
                if told:
                    assert told[0] == told[1], (env_id, env.action_to_str(action), told)
                    compared += 1
        env.step(int(rng.choice(legal)))
    assert compared >= 10
