"""Pictures of the table (cardenvs.core.picture): render_mode="rgb_array" in the AEC and
Gymnasium envs, the SVG's card tags, and a seat's picture never showing a card it cannot
see (twin states from resample_hidden draw the same picture for that seat)."""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import cardenvs
from cardenvs.core import picture
from cardenvs.core.cards import counts_to_cards

pytest.importorskip("PIL")

GAMES = ["president", "odin", "rami51", "frime", "classes"]
SHAPE = (picture.HEIGHT, picture.WIDTH, 3)


def _random_steps(env, rng: np.random.Generator, n: int) -> None:
    for _ in range(n):
        raw = env.unwrapped
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            return
        env.step(int(rng.choice(raw.legal_actions())))


def _hand_codes(svg: str) -> list[str]:
    return re.findall(r'<g class="card in-hand" data-card="([^"]+)">', svg)


@pytest.mark.parametrize("game", GAMES)
def test_rgb_array_frames_have_the_canvas_shape_and_follow_the_state(game):
    env = cardenvs.make(game, render_mode="rgb_array")
    env.reset(seed=3)
    first = env.render()
    assert first.shape == SHAPE and first.dtype == np.uint8
    _random_steps(env, np.random.default_rng(3), 6)
    second = env.render()
    assert second.shape == SHAPE and second.dtype == np.uint8
    assert not np.array_equal(first, second)  # six moves later, another table
    # the frame is the picture of the agent to move
    assert np.array_equal(second, env.unwrapped.render_rgb(env.unwrapped.agent_selection))


@pytest.mark.parametrize("game", GAMES)
def test_a_seat_sees_the_same_picture_of_twin_states(game):
    # states that differ only in cards a seat cannot see: byte-identical SVG and image for
    # that seat, at many points of random matches; the onlooker's picture tells them apart
    env = cardenvs.make(game)
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    raw = env.unwrapped
    onlooker_differs = 0
    for check in range(12):
        _random_steps(env, rng, 3)
        if not raw.agents or raw.terminations[raw.agent_selection]:
            break
        seat = check % raw.num_players
        agent = raw.possible_agents[seat]
        twin = raw.resample_hidden(agent, seed=check)
        assert twin.render_svg(agent) == raw.render_svg(agent)
        if check % 3 == 0:  # the painter is the same for every scene: fewer images keep the test quick
            assert np.array_equal(twin.render_rgb(seat), raw.render_rgb(seat))
        if not np.array_equal(twin._state["hands"], raw._state["hands"]):
            assert twin.render_svg(None) != raw.render_svg(None)
            onlooker_differs += 1
    assert onlooker_differs >= 3  # the twins did differ in hidden cards


@pytest.mark.parametrize("game", GAMES)
def test_the_viewers_hand_is_tagged_in_the_svg(game):
    env = cardenvs.make(game)
    env.reset(seed=5)
    _random_steps(env, np.random.default_rng(5), 4)
    raw = env.unwrapped
    rec = raw._state[0]
    for seat in range(raw.num_players):
        svg = raw.render_svg(seat)
        ET.fromstring(svg)  # well-formed
        held = counts_to_cards(rec["hands"][seat], odin=raw.spec.odin_cards)
        assert sorted(_hand_codes(svg)) == sorted(held)
        view = picture.table_view(raw.spec, rec, seat)
        hidden = [s for p, s in enumerate(view["seats"]) if p != seat]
        assert all(s["hand"] is None for s in hidden) and all(s["count"] >= 0 for s in hidden)
    onlooker = raw.render_svg(None)
    assert _hand_codes(onlooker) == []  # an onlooker has no hand of its own
    tagged = re.findall(r'data-card="([^"]+)"', onlooker)
    every = [c for p in range(raw.num_players) for c in counts_to_cards(rec["hands"][p], odin=raw.spec.odin_cards)]
    assert set(every) <= set(tagged)


def test_a_wild_card_on_the_table_shows_what_it_stands_for():
    env = cardenvs.make_raw("classes_v2")
    melds = [{"kind": "set", "owner": 1, "cards": ["Kc", "2h=K", "Kd"]},
             {"kind": "set", "owner": 1, "cards": ["5c", "5d", "2s=5"]}]
    env.reset(seed=1, options={"scenario": {"melds": melds, "laid": [False, True, False, False],
                                            "hands": [None] * 4, "known": [[]] * 4}})
    view = picture.table_view(env.spec, env._state[0], 0)
    groups = [g for area in view["table"] if area["label"] == "player_1's melds" for g in area["groups"]]
    assert groups == [["Kc", "2h=K", "Kd"], ["5c", "5d", "2s=5"]]
    svg = env.render_svg(0)
    assert '<g class="card" data-card="2h=K">' in svg and '<g class="card" data-card="2s=5">' in svg


def test_odin_cards_keep_their_codes_and_colours():
    shape = picture.card("7r", 0, 0, 40, 56)
    assert shape["card"] == "7r" and shape["children"][0]["fill"] == picture.ODIN_FILL["r"]
    texts = [s["text"] for s in shape["children"] if s["kind"] == "text"]
    assert "7" in texts


def test_record_video_films_a_match(tmp_path):
    pytest.importorskip("moviepy")
    import gymnasium
    from gymnasium.wrappers import RecordVideo

    from cardenvs.integrations.gym import SingleAgentEnv

    env = RecordVideo(SingleAgentEnv("president", render_mode="rgb_array", seat=0, single_round=True),
                      video_folder=str(tmp_path / "videos"), episode_trigger=lambda episode: True, disable_logger=True)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        legal = np.flatnonzero(env.unwrapped.action_masks())
        _, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
        done = terminated or truncated
    env.close()
    films = list((tmp_path / "videos").glob("*.mp4"))
    assert len(films) == 1 and films[0].stat().st_size > 1000
    assert isinstance(env.unwrapped, gymnasium.Env)


def test_bad_render_mode_and_viewer_are_refused():
    from cardenvs.integrations.gym import SingleAgentEnv

    with pytest.raises(ValueError, match="render_mode"):
        cardenvs.make("odin", render_mode="rgb")
    with pytest.raises(ValueError, match="render_mode"):
        SingleAgentEnv("odin", render_mode="human")
    env = cardenvs.make_raw("odin", render_mode="rgb_array")
    env.reset(seed=0)
    for bad in ("player_9", 4, -1, "1"):
        with pytest.raises(ValueError, match="viewer"):
            env.render_rgb(bad)
        with pytest.raises(ValueError, match="viewer"):
            env.render_svg(bad)
    for bad in (True, 1.0, [1]):
        with pytest.raises(TypeError, match="viewer"):
            env.render_svg(bad)
    with pytest.raises(ValueError, match="viewer"):
        picture.table_svg(env.spec, env._state[0], 4)
    with pytest.raises(ValueError, match="scale"):
        picture.table_rgb(env.spec, env._state[0], 0, scale=0)


def test_svg_needs_nothing_and_rgb_names_the_extra_without_pillow(monkeypatch):
    env = cardenvs.make_raw("president")
    env.reset(seed=0)
    monkeypatch.setitem(sys.modules, "PIL", None)  # Pillow missing: its import fails
    assert env.render_svg(0).startswith("<svg")
    with pytest.raises(ImportError, match=r'pip install "cardenvs\[render\]"'):
        env.render_rgb(0)


def test_sb3_make_vec_env_gets_rgb_array_without_a_warning():
    pytest.importorskip("stable_baselines3")
    import warnings

    import gymnasium
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_util import make_vec_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Gymnasium warns when a render mode is not in the env's metadata
        venv = make_vec_env("cardenvs/odin-v1", 2)
    assert venv.render_mode == "rgb_array"
    venv.reset()
    assert venv.get_images()[0].shape == SHAPE
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every render mode of the metadata tried, none refused
        check_env(gymnasium.make("cardenvs/odin-v1", render_mode="rgb_array").unwrapped, skip_render_check=False)


def _groups_in(scene: list[dict]) -> list[str]:
    out = []
    for shape in scene:
        if shape["kind"] == "group" and shape.get("card"):
            out.append(shape["card"])
    return out


def test_a_crowded_table_shrinks_its_cards_to_show_every_meld_or_says_what_is_left_out():
    def view(melds_per_owner: int) -> dict:
        runs = [[f"{r}{s}" for r in rank_run] for s in "cdhs" for rank_run in ("345", "789", "TJQ")]
        table = [{"label": f"player_{o}'s melds", "groups": [runs[(o * melds_per_owner + k) % len(runs)]
                                                              for k in range(melds_per_owner)], "note": ""}
                 for o in range(6)]
        seats = [{"name": f"player_{p}", "hand": None, "count": 5, "labels": [], "to_move": False, "out": None}
                 for p in range(6)]
        seats[0]["hand"] = ["Ac"] * 5
        return {"game": "test", "title": "a crowded table", "viewer": 0, "seats": seats, "table": table,
                "status": ["phase play"]}

    roomy = view(3)  # 18 melds: every card drawn, smaller
    shown = _groups_in(picture.table_scene(roomy))
    assert sorted(shown) == sorted(["Ac"] * 5 + [c for a in roomy["table"] for g in a["groups"] for c in g])
    crowded = picture.table_scene(view(8))  # 48 melds: some left out, and the picture says so
    texts = [s["text"] for s in crowded if s["kind"] == "text"]
    assert any(t.startswith("more on the table than fits here") for t in texts)


def test_the_last_move_is_shown_as_each_viewer_saw_it():
    env = cardenvs.make_raw("president")
    env.reset(seed=2)
    assert "last move" not in env.render_svg(None)
    agent = env.agent_selection
    action = env.legal_actions()[-1]
    env.step(action)
    assert f"last move: {agent}: {env.action_to_str(action)}" in env.render_svg(None)
    # a card the president gives back is secret: the others see that a card was given
    give = env.str_to_action("give K")
    env._last_move = (0, give)
    assert "last move: player_0: give K" in env.render_svg(0)
    assert "last move: player_0: give a card" in env.render_svg(1)
    assert "give K" not in env.render_svg(1)
