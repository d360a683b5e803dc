"""Saved matches: the records of the AEC and vector envs replay to the very state and
rewards the match reached, in every game; files round-trip; bad files are refused with a
message naming what is wrong; the replay page holds the package's own pictures."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from cardenvs import get_spec, list_games, make_raw, make_vec
from cardenvs.core.match_record import places_of
from cardenvs.core.picture import table_svg
from cardenvs.replay import (
    FORMAT_VERSION,
    MatchRecord,
    check_record,
    frame_svg,
    load_match,
    match_to_json,
    parse_match,
    replay,
    replay_frames,
    replay_html,
    save_match,
    unpack_frames,
)

GAMES = [spec.env_id for spec in list_games()]
# short matches: a single round where the game has one
SHORT = {"president_v0": {}, "odin_v1": {"single_round": True}}


def short_options(env_id: str) -> dict:
    return SHORT.get(env_id, {"single_round": True})


def over(env) -> bool:
    agent = env.agent_selection
    return bool(env.terminations[agent] or env.truncations[agent])


def returns_of(env) -> np.ndarray:
    return np.array([env.rewards[a] for a in env.possible_agents], dtype=np.float64)


def play_random(env, seed: int, steps: int | None = None) -> np.ndarray:
    """A random legal match on the AEC env (``steps`` moves at most); its returns."""
    rng = np.random.default_rng(seed)
    total = np.zeros(env.num_players)
    n = 0
    while not over(env) and (steps is None or n < steps):
        env.step(int(rng.choice(env.legal_actions())))
        total += returns_of(env)
        n += 1
    return total


def replayed(record: MatchRecord) -> tuple[dict, np.ndarray, list]:
    """The final state, the returns and the steps of a replay."""
    total = np.zeros(record.num_players)
    steps = []
    env = None
    for st in replay(record):
        env = st.env
        if st.index:
            total += returns_of(env)
        steps.append((st.index, st.seat, st.action, st.move, st.forced, st.action_index))
    return env.state_dict(), total, steps


# --------------------------------------------------------------------------- the AEC env
@pytest.mark.parametrize("env_id", GAMES)
@pytest.mark.parametrize("forced", [False, True])
def test_aec_record_replays_exactly(env_id, forced):
    env = make_raw(env_id, auto_play_forced=forced, **short_options(env_id))
    env.reset(seed=11)
    start = env.state_dict()
    returns = play_random(env, seed=3)
    assert over(env)
    record = env.match_record()
    assert record.env_id == env_id and record.seed == 11 and record.start == start
    assert record.auto_play_forced is forced and record.num_players == env.num_players
    assert record.result is not None and np.allclose(record.result["returns"], returns, atol=1e-6)
    assert record.result["scores"] == [float(x) for x in env.infos["player_0"]["scores"]]
    final, total, steps = replayed(record)
    assert final == env.state_dict()
    assert np.allclose(total, returns, atol=1e-6)
    chosen = [s for s in steps[1:] if not s[4]]
    assert [s[2] for s in chosen] == record.actions and [s[5] for s in chosen] == list(range(len(record.actions)))
    assert [s[0] for s in steps] == list(range(len(steps)))
    if not forced:
        assert len(steps) == len(record.actions) + 1


def test_record_of_an_unfinished_match_and_a_scenario():
    env = make_raw("odin_v1")
    env.reset(seed=2)
    play_random(env, seed=1, steps=7)
    record = env.match_record()
    assert record.result is None and len(record.actions) == 7
    final, _, _ = replayed(record)
    assert final == env.state_dict()
    # a match started from a scenario, without a seed: the start holds the random stream
    env.reset(options={"scenario": final})
    play_random(env, seed=5)
    record = env.match_record()
    assert record.seed is None and record.start == final
    assert replayed(record)[0] == env.state_dict()


def test_record_refuses_a_penalised_illegal_action():
    env = make_raw("president_v0", illegal_action="penalty")
    env.reset(seed=0)
    illegal = next(a for a in range(env.action_space("player_0").n) if a not in env.legal_actions())
    env.step(illegal)
    with pytest.raises(ValueError, match="illegal and penalised"):
        env.match_record()


def test_resampled_copy_has_no_record():
    env = make_raw("odin_v1")
    env.reset(seed=0)
    other = env.resample_hidden("player_0", seed=1)
    with pytest.raises(RuntimeError, match="no match recorded"):
        other.match_record()
    env.match_record()  # the original keeps its own
    # the copy plays on (a search steps such copies), to the match's end, recording nothing
    rng = np.random.default_rng(0)
    steps = 0
    while not any(other.terminations.values()) and steps < 5000:
        other.step(int(rng.choice(other.legal_actions())))
        steps += 1
    assert any(other.terminations.values())
    with pytest.raises(RuntimeError, match="no match recorded"):
        other.match_record()


# --------------------------------------------------------------------------- the vector env
def vector_matches(env_id: str, auto_reset: bool, forced: bool, steps: int):
    venv = make_vec(env_id, num_envs=3, seed=9, auto_reset=auto_reset, auto_play_forced=forced,
                    **short_options(env_id))
    assert venv._recorded is None  # nothing recorded, nothing kept, unless asked
    venv.record_matches([2, 0])
    st = venv.reset()
    rng = np.random.default_rng(4)
    ended = []
    for _ in range(steps):
        masks = st.legal_action_mask
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], dtype=np.int64)
        st = venv.step(actions)
        ended += venv.finished_matches()
        if not auto_reset and (st.terminated | st.truncated)[[0, 2]].all():
            break
    return venv, ended


@pytest.mark.parametrize("env_id", GAMES)
def test_vector_records_replay_exactly_across_auto_resets(env_id):
    venv, ended = vector_matches(env_id, auto_reset=True, forced=True, steps=1500)
    assert ended, "no recorded match ended"
    assert {i for i, _ in ended} <= {0, 2}
    for _i, record in ended:
        _, total, _ = replayed(record)
        assert np.allclose(total, record.result["returns"], atol=1e-5)
        assert record.result["scores"] is None  # the game restarted in the same step
    # such a record, saved, loads: its returns, places and end are checked, its missing scores allowed
    assert parse_match(match_to_json(ended[-1][1])) == ended[-1][1]
    # the match in progress replays to where the game is now
    for i in (0, 2):
        assert replayed(venv.match_record(i))[0] == venv.state_dict(i)
    # the first match of a game was dealt from its seed, as the AEC env deals it
    first = next(r for i, r in ended if i == ended[0][0])
    env = make_raw(env_id, auto_play_forced=True, **short_options(env_id))
    env.reset(seed=first.seed)
    assert env.state_dict() == first.start


def test_vector_records_with_final_observations():
    """With final_observation the ended games restart after the step: the records are the same."""
    venv = make_vec("odin_v1", num_envs=2, seed=3, final_observation=True, single_round=True)
    venv.record_matches([1])
    st = venv.reset()
    rng = np.random.default_rng(0)
    ended = []
    while len(ended) < 2:
        st = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in st.legal_action_mask]))
        ended += venv.finished_matches()
    for _i, record in ended:
        _, total, _ = replayed(record)
        assert np.allclose(total, record.result["returns"], atol=1e-5)
    assert ended[1][1].start != ended[0][1].start and ended[1][1].seed is None


@pytest.mark.parametrize("env_id", GAMES)
def test_vector_record_without_auto_reset_matches_the_aec_env(env_id):
    venv, ended = vector_matches(env_id, auto_reset=False, forced=False, steps=20_000)
    assert sorted(i for i, _ in ended) == [0, 2]
    for i, record in ended:
        final, total, _ = replayed(record)
        assert final == venv.state_dict(i)
        assert np.allclose(total, record.result["returns"], atol=1e-5)
        assert record.result["scores"] is not None
        # the same seed and actions on the AEC env: the same match
        env = make_raw(env_id, **short_options(env_id))
        env.reset(seed=record.seed)
        for a in record.actions:
            env.step(a)
        assert env.state_dict() == final
    assert venv.finished_matches() == []  # each ended match is handed out once


def test_vector_recording_arguments_are_checked():
    venv = make_vec("odin_v1", num_envs=2)
    with pytest.raises(ValueError, match="game index"):
        venv.record_matches([2])
    with pytest.raises(TypeError):
        venv.record_matches(1)
    with pytest.raises(TypeError):
        venv.record_matches([True])
    venv.record_matches([1])
    with pytest.raises(ValueError, match="not recorded"):
        venv.match_record(0)
    with pytest.raises(RuntimeError, match="reset"):
        venv.match_record(1)
    venv.reset()
    venv.load_state_dict(1, venv.state_dict(0))
    record = venv.match_record(1)
    assert record.seed is None and record.start == venv.state_dict(0) and record.actions == []
    venv.record_matches(None)
    with pytest.raises(ValueError, match="not recorded"):
        venv.match_record(1)


# --------------------------------------------------------------------------- files
@pytest.fixture(scope="module")
def odin_record() -> MatchRecord:
    env = make_raw("odin_v1", auto_play_forced=True)
    env.reset(seed=21)
    play_random(env, seed=8)
    record = env.match_record()
    record.agents = ["heuristic", "random", "ppo:runs/x.npz", "random"]
    return record


def test_save_and_load_round_trip(tmp_path, odin_record):
    path = tmp_path / "match.json"
    save_match(odin_record, path)
    loaded = load_match(path)
    assert loaded == odin_record
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "cardenvs-match" and data["format_version"] == FORMAT_VERSION
    assert data["env_id"] == "odin_v1" and data["seed"] == 21 and data["actions"] == odin_record.actions
    assert replayed(loaded)[0] == replayed(odin_record)[0]
    assert [p.name for p in tmp_path.iterdir()] == ["match.json"]  # no file left aside


def corrupt(record: MatchRecord, **changes) -> str:
    data = json.loads(match_to_json(record))
    for key, value in changes.items():
        if value is KeyError:
            del data[key]
        else:
            data[key] = value
    return json.dumps(data)


BAD_FIELDS = [
    ({"format": "something-else"}, "not a cardenvs match"),
    ({"format_version": FORMAT_VERSION + 1}, "format version 2.*reads version 1: upgrade"),
    ({"format_version": "1"}, "format_version"),
    ({"env_id": "odin_v0"}, "saved by odin_v0 .*this package plays odin_v1"),
    ({"env_id": "rami51_v2"}, r"saved by rami51_v2 \(cardenvs .*\); this package plays rami51_v3"),
    ({"env_id": "odin_v7"}, "saved by odin_v7 .*this package plays odin_v1"),
    ({"env_id": "belote_v1"}, "does not know, 'belote_v1'"),
    ({"env_id": 3}, "env_id must be a string"),
    ({"num_players": 5}, "num_players must be the options' number of players, 4"),
    ({"num_players": "4"}, "num_players"),
    ({"options": {"num_players": 3.5}}, "options: .*num_players"),
    ({"options": {"colours": 3}}, "options: .*unknown option 'colours'"),
    ({"options": []}, "options must be an object"),
    ({"seed": -1}, "seed"),
    ({"seed": 2.5}, "seed must be a whole number"),
    ({"auto_play_forced": "true"}, "auto_play_forced must be true or false"),
    ({"actions": "1 2 3"}, "actions must be a list"),
    ({"actions": [1, "2"]}, r"actions\[1\] must be an action number"),
    ({"actions": [1, True]}, r"actions\[1\] must be an action number"),
    ({"actions": [10**6]}, r"actions\[0\] must be an action number 0\.\."),
    ({"agents": ["a", "b"]}, "agents must be null or 4 names"),
    ({"start": "deal"}, "start must be a state"),
    ({"result": {"returns": [1, 0, 0, 0]}}, "result must be null or an object"),
    ({"result": {"returns": [1, 0, 0, 0], "scores": None, "places": [1, 1, 1, 1], "truncated": False}},
     "result.places must be the places of the returns"),
    ({"cardenvs_version": 2}, "cardenvs_version"),
    ({"extra": 1}, "unknown field"),
    ({"actions": KeyError}, "misses actions"),
]


@pytest.mark.parametrize(("changes", "message"), BAD_FIELDS)
def test_bad_fields_are_refused(odin_record, changes, message):
    with pytest.raises(ValueError, match=message):
        parse_match(corrupt(odin_record, **changes))


def test_bad_start_and_moves_are_refused(odin_record):
    start = dict(odin_record.start)
    del start["rng"]
    with pytest.raises(ValueError, match="whole state.*rng"):
        parse_match(corrupt(odin_record, start=start))
    with pytest.raises(ValueError, match="start is a state of 'president'"):
        parse_match(corrupt(odin_record, start=dict(odin_record.start, game="president")))
    with pytest.raises(ValueError, match="start: "):
        parse_match(corrupt(odin_record, start=dict(odin_record.start, hands="7r")))
    # one action more than the match had
    with pytest.raises(ValueError, match=r"the match is over .* 1 action\(s\) too many"):
        parse_match(corrupt(odin_record, actions=odin_record.actions + [0]))
    # an action that was not legal where it stands, named by its place
    env = make_raw("odin_v1")
    env.reset(options={"scenario": odin_record.start})
    illegal = next(a for a in range(env.action_space("player_0").n) if a not in env.legal_actions())
    with pytest.raises(ValueError, match=rf"actions\[0\] = {illegal} .* at step 1 is not legal for player_\d"):
        parse_match(corrupt(odin_record, actions=[illegal, *odin_record.actions[1:]]))


def claimed(record: MatchRecord, **changes) -> dict:
    """The record's result with some fields changed (places kept the places of the returns)."""
    result = dict(record.result, **changes)
    result["places"] = places_of(result["returns"])
    return result


def test_a_result_the_moves_did_not_give_is_refused(odin_record):
    returns = odin_record.result["returns"]
    assert len(set(returns)) > 1
    rotated = claimed(odin_record, returns=returns[1:] + returns[:1])
    with pytest.raises(ValueError, match=r"result does not match its moves: returns \["):
        parse_match(corrupt(odin_record, result=rotated))
    # the moves cut short, the result kept: the match the moves give is not over
    with pytest.raises(ValueError, match=r"result does not match its moves: the match is not over after its \d+ step"):
        parse_match(corrupt(odin_record, actions=odin_record.actions[:10]))
    with pytest.raises(ValueError, match="result does not match its moves: the match is over after step .* not null"):
        parse_match(corrupt(odin_record, result=None))
    with pytest.raises(ValueError, match="result does not match its moves: truncated is True, the moves give False"):
        parse_match(corrupt(odin_record, result=claimed(odin_record, truncated=True)))
    scores = odin_record.result["scores"]
    with pytest.raises(ValueError, match=r"result does not match its moves: scores \[.*the game's scores at the end"):
        parse_match(corrupt(odin_record, result=claimed(odin_record, scores=[s + 1 for s in scores])))
    with pytest.raises(ValueError, match="returns"):  # the page prints the result: it checks it too
        replay_html(dataclasses.replace(odin_record, result=rotated))
    # what a float's rounding moves is no difference; a record without scores (an auto-reset's) loads
    close = claimed(odin_record, returns=[r + 1e-9 for r in returns], scores=None)
    assert parse_match(corrupt(odin_record, result=close)).result == close


def test_a_result_given_for_a_match_not_over_is_refused():
    env = make_raw("president_v0")
    env.reset(seed=4)
    play_random(env, seed=0, steps=5)
    record = env.match_record()
    assert parse_match(match_to_json(record)).result is None
    result = {"returns": [1.0, 0.0, 0.0, 0.0], "scores": None, "places": [1, 2, 2, 2], "truncated": False}
    with pytest.raises(ValueError, match="not over after its 5 step.*result must be null"):
        parse_match(corrupt(record, result=result))


def test_bad_json_is_refused(tmp_path, odin_record):
    text = match_to_json(odin_record)
    for bad, message in [
        (text[: len(text) // 2], "not JSON"),
        ("[1, 2]", "holds a JSON object"),
        (text.replace('"seed": 21', '"seed": NaN'), "NaN is not a number"),
        (text.replace('"seed": 21', '"seed": 21, "seed": 22'), "'seed' is given twice"),
        (b"\xff\xfe{}", "UTF-8"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_match(bad)
    path = tmp_path / "broken.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match="broken.json: not JSON"):
        load_match(path)


def test_a_bad_record_is_not_saved(tmp_path, odin_record):
    bad = dataclasses.replace(odin_record, actions=[-1])
    with pytest.raises(ValueError, match=r"actions\[0\]"):
        save_match(bad, tmp_path / "m.json")
    assert not any(tmp_path.iterdir())
    assert check_record(odin_record) == odin_record


# --------------------------------------------------------------------------- replay steps and the page
def test_replay_moves_as_each_seat_saw_them():
    env = make_raw("president_v0")
    env.reset(seed=5)
    play_random(env, seed=2)
    record = env.match_record()
    secret = 0
    for st in replay(record):
        if st.index:
            assert st.move == env.action_to_str(st.action)
            assert st.move_seen_by(None) == st.move == st.move_seen_by(st.seat)
            other = (st.seat + 1) % record.num_players
            assert st.move_seen_by(other) == env.public_action_str(st.action)
            secret += st.move != st.public_move  # a card given in secret at the exchange
    assert secret > 0


@pytest.mark.slow
def test_replay_page_holds_the_pictures(odin_record):
    page = replay_html(odin_record)
    assert page.startswith("<!DOCTYPE html>") and "DecompressionStream" in page
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://" not in page
    packed = page.split('<script id="match-data" type="application/octet-stream">')[1].split("</script>")[0]
    data = unpack_frames(packed)
    assert data == json.loads(json.dumps(replay_frames(odin_record)))
    steps = list(replay(odin_record))
    assert len(data["moves"]) == len(steps) - 1 and len(data["views"]) == 1 + odin_record.num_players
    spec = get_spec("odin_v1")
    for k in (0, len(steps) // 2, len(steps) - 1):
        # the frames as the page shows them: the package's drawing of that step and view
        for st in replay(odin_record):
            if st.index == k:
                rec = st.env.state_record()[0]
                break
        for view, viewer in enumerate([None, 0, 1, 2, 3]):
            assert frame_svg(data, view, k) == table_svg(spec, rec, viewer)
    # each distinct line of the pictures is kept once: the page stays small
    assert len(data["frames"]) <= len(steps) * len(data["views"])
    assert 10 * len(data["lines"]) < sum(len(f) for f in data["frames"])
    assert len(page) < 1_000_000


def test_replay_page_refuses_a_match_too_long(monkeypatch, odin_record):
    import cardenvs.replay

    monkeypatch.setattr(cardenvs.replay, "MAX_PAGE_STEPS", 10)
    with pytest.raises(ValueError, match="more than 10 steps, too many for a replay page"):
        replay_html(odin_record)
