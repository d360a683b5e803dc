"""The human CLI's narration: the events it announces happen, and it never tells a seat
what that seat may not see (another player's drawn card, an exchange between others)."""

from __future__ import annotations

import io
import re

import numpy as np

from cardenvs import make_raw
from cardenvs.cli.main import main
from cardenvs.core import narration

CARD = re.compile(r"\b(?:[2-9TJQKA][cdhs]|X)\b")


def random_steps(game: str, seed: int, steps: int, **options):
    """(before, after, seat, move string, number of legal moves) for random legal play."""
    env = make_raw(game, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    index = {a: i for i, a in enumerate(env.possible_agents)}
    before = None  # a step's "after" is the next step's "before" (the dicts are only read)
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.reset(seed=int(rng.integers(2**31)))
            before = None
            continue
        legal = env.legal_actions()
        action = int(rng.choice(legal))
        if before is None:
            before = env.state_dict()
        move = env.action_to_str(action)
        env.step(action)
        after = env.state_dict()
        yield before, after, index[agent], move, len(legal)
        before = after


def test_rummy_draws_are_told_to_the_drawer_only():
    for game, options in (("rami51", {}), ("frime", {}), ("classes", {})):
        told = 0
        for before, after, seat, move, _ in random_steps(game, 1, 3000, **options):
            other = (seat + 1) % before["num_players"]
            for line in narration.events(game, before, after, seat, other, move):
                assert "drew" not in line, (game, line)
            mine = [ln for ln in narration.events(game, before, after, seat, seat, move) if "drew" in ln]
            if move == "draw" and after["round"] == before["round"]:
                assert len(mine) == 1, (game, mine)
                card = mine[0].split("you drew ")[1]
                assert after["hands"][seat].count(card) > before["hands"][seat].count(card)
                told += 1
            else:
                assert not mine
        assert told > 50, game


def test_president_events_and_the_exchange_kept_between_the_two_players():
    seen = {"cleared": 0, "exchange": 0, "declines": 0, "out": 0}
    for before, after, seat, move, n_legal in random_steps("president", 2, 6000, num_players=4):
        note = narration.move_note("president", before, seat, move)
        if before["phase"] == "offer":
            assert ("declines" in note) == (move == "pass") and "out of turn" in note
            seen["declines"] += move == "pass" and n_legal > 1
            forced = n_legal == 1
            # another player's pass is never shown to a person (it would tell whether they
            # could complete); one's own and an onlooker's only when it was a choice
            other = (seat + 1) % 4
            assert narration.quiet("president", before, seat, other, move, forced) == (move == "pass")
            for viewer in (seat, None):
                assert narration.quiet("president", before, seat, viewer, move, forced) == (move == "pass" and forced)
        else:
            assert note == ""
            assert not any(narration.quiet("president", before, seat, v, move, n_legal == 1) for v in (0, 1, None))
        assert narration.forced_note(seat, (seat + 1) % 4, n_legal == 1) == ""  # no hint at another hand
        assert (narration.forced_note(seat, seat, n_legal == 1) != "") == (n_legal == 1)
        for viewer in range(4):
            for line in narration.events("president", before, after, seat, viewer, move):
                seen["cleared"] += "pile is cleared" in line
                seen["out"] += "out (place" in line
                if "exchange" in line or "back (trou)" in line:
                    seen["exchange"] += 1
                    inside = viewer in (after["president"], after["trou"])
                    assert bool(CARD.search(line)) == inside, (viewer, line)
    assert all(v > 0 for v in seen.values()), seen


def test_odin_announces_the_cleared_table():
    lines = [ln for b, a, s, m, _ in random_steps("odin", 3, 2000) for ln in narration.events("odin", b, a, s, 0, m)]
    assert any("the table is cleared" in ln for ln in lines)
    assert any("back from the table" in ln for ln in lines)


def test_frime_buys_say_the_price_and_the_pot():
    lines = [ln for b, a, s, m, _ in random_steps("frime", 4, 3000) for ln in narration.events("frime", b, a, s, 0, m)
             if m == "buy"]
    assert lines and all(re.search(r"pays? \d+¢ into the pot \(now \d+¢\)", ln) for ln in lines if "pot" in ln)
    assert any("pot" in ln for ln in lines)


def test_hints_say_what_an_unusual_decision_is():
    hints = {}
    for game, phase, words in (("president", "offer", "out of turn"), ("president", "exchange", "give one card"),
                               ("frime", "choose", "laid entirely as melds")):
        for before, *_ in random_steps(game, 6, 6000):
            if before["phase"] == phase:
                hint = narration.phase_hint(game, before, before["current"])
                assert hint and words in hint, (game, phase, hint)
                hints[game, phase] = hint
                break
    assert len(hints) == 3, hints
    assert narration.phase_hint("rami51", {"phase": "draw"}, 0) is None


def test_a_human_sees_the_draw_announcements():
    # the human (seat 0) plays the first legal move each time: their own draws are said,
    # the other player's are not
    answers = iter(["#1"] * 4000)
    out = io.StringIO()
    code = main(["play", "rami51", "--agents", "human,random", "--seed", "5", "--option", "single_round=true",
                 "--turn-seconds", "0"], out=out, input_fn=lambda prompt: next(answers))
    text = out.getvalue()
    assert code == 0
    assert re.search(r"^  you drew (?:[2-9TJQKA][cdhs]|X)$", text, re.M)
    assert not re.search(r"^  player_1 drew", text, re.M)  # the other player's draws stay hidden
