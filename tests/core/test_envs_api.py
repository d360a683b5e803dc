"""The AEC surface: PettingZoo's api/seed tests, pickle, clone, state_dict round trips."""

import json
import pickle
from collections import Counter

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import cardenvs
from cardenvs.core.cards import card_id, odin_card_id

GAMES = [spec.env_id for spec in cardenvs.list_games()]


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_api(name):
    api_test(cardenvs.make(name), num_cycles=1000)


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_seed(name):
    seed_test(lambda: cardenvs.make(name), num_cycles=300)


@pytest.mark.parametrize("name", GAMES)
def test_spaces_are_cached_and_mask_is_int8(name):
    env = cardenvs.make(name)
    env.reset(seed=1)
    agent = env.agent_selection
    assert env.observation_space(agent) is env.observation_space(agent)
    assert env.action_space(agent) is env.action_space(agent)
    obs, *_ = env.last()
    assert obs["action_mask"].dtype == np.int8
    assert obs["observation"].dtype == env.game.OBS_DTYPE == env.observation_space(agent)["observation"].dtype
    assert obs["action_mask"].sum() >= 1


def _play_random(env, steps, rng):
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


@pytest.mark.parametrize("name", GAMES)
def test_pickle_round_trip(name):
    env = cardenvs.make(name)
    env.reset(seed=5)
    _play_random(env, 40, np.random.default_rng(0))
    copy = pickle.loads(pickle.dumps(env))
    assert copy.unwrapped.state_dict() == env.unwrapped.state_dict()
    rng1, rng2 = np.random.default_rng(3), np.random.default_rng(3)
    _play_random(env, 200, rng1)
    _play_random(copy, 200, rng2)
    assert copy.unwrapped.state_dict() == env.unwrapped.state_dict()


@pytest.mark.parametrize("name", GAMES)
def test_clone_is_independent(name):
    env = cardenvs.make(name)
    env.reset(seed=6)
    _play_random(env, 30, np.random.default_rng(1))
    before = env.unwrapped.state_dict()
    twin = env.unwrapped.clone()
    _play_random(twin, 50, np.random.default_rng(2))
    assert env.unwrapped.state_dict() == before
    assert twin.state_dict() != before


def _game_bytes(name: str, state: np.ndarray) -> bytes:
    """The state's bytes without the game's search caches (``CACHE_FIELDS``: what earlier
    steps proved, which a loaded state starts without; the masks are the same)."""
    state = state.copy()
    for field in getattr(cardenvs.get_spec(name).module, "CACHE_FIELDS", ()):
        state[field] = 0
    return state.tobytes()


@pytest.mark.parametrize("name", GAMES)
def test_state_dict_round_trip_is_exact(name):
    rng = np.random.default_rng(7)
    env = cardenvs.make_raw(name)
    for game in range(20):
        env.reset(seed=game)
        _play_random(env, int(rng.integers(0, 400)), rng)
        d = env.state_dict()
        json.dumps(d)  # JSON-serialisable
        other = cardenvs.make_raw(name)
        other.reset(seed=999, options={"scenario": json.loads(json.dumps(d))})
        assert _game_bytes(name, other._state) == _game_bytes(name, env._state)
        assert other.state_dict() == d
        assert other.agent_selection == env.agent_selection
        np.testing.assert_array_equal(other.observe(other.agent_selection)["observation"],
                                      env.observe(env.agent_selection)["observation"])
        # the loaded game continues identically
        r1, r2 = np.random.default_rng(game), np.random.default_rng(game)
        _play_random(env, 100, r1)
        _play_random(other, 100, r2)
        assert other.state_dict() == env.state_dict()


@pytest.mark.parametrize("name", GAMES)
def test_scenario_errors(name):
    env = cardenvs.make_raw(name)
    env.reset(seed=0)
    d = env.state_dict()
    with pytest.raises(ValueError, match="unknown scenario key"):
        env.reset(seed=0, options={"scenario": {"hands": d["hands"], "bogus": 1}})
    duplicated = [list(h) for h in d["hands"]]
    duplicated[0] += [duplicated[1][0]] * 4  # more copies than any game's decks hold (frime: 4 jokers)
    with pytest.raises(ValueError, match=r"appears \d+ times"):
        env.reset(seed=0, options={"scenario": {"hands": duplicated}})
    with pytest.raises(ValueError, match="one per player"):
        env.reset(seed=0, options={"scenario": {"hands": d["hands"][:-1]}})
    with pytest.raises(ValueError, match="not a(n Odin)? card"):
        env.reset(seed=0, options={"scenario": {"hands": [["Zz"]] + d["hands"][1:]}})
    short = [list(h) for h in d["hands"]]
    short[0] = short[0][:-1]
    rest = d.copy()
    rest["hands"] = short
    with pytest.raises(ValueError, match="missing"):
        env.reset(seed=0, options={"scenario": rest})
    with pytest.raises(ValueError, match="num_players"):
        env.reset(seed=0, options={"scenario": {"num_players": d["num_players"] + 1}})


@pytest.mark.parametrize("name", GAMES)
def test_partial_scenario_deals_the_rest_by_seed(name):
    env = cardenvs.make_raw(name)
    env.reset(seed=0)
    hands = env.state_dict()["hands"]
    partial = {"hands": [hands[0]] + [None] * (len(hands) - 1)}
    env.reset(seed=11, options={"scenario": partial})
    a = env.state_dict()
    env.reset(seed=11, options={"scenario": partial})
    assert env.state_dict() == a  # deterministic
    assert a["hands"][0] == hands[0]
    env.reset(seed=11)
    dealt = env.state_dict()
    assert [len(h) for h in a["hands"][1:]] == [len(h) for h in dealt["hands"][1:]]
    everything = Counter(c for h in a["hands"] for c in h) + Counter(a.get("played", []))
    deck = env.game.deck_counts(env._state[0])  # default options: one deck (rami51's holds two jokers)
    parse = odin_card_id if env.spec.odin_cards else card_id
    assert all(n <= deck[parse(c)] for c, n in everything.items())


@pytest.mark.parametrize("name", GAMES)
def test_action_strings_round_trip(name):
    env = cardenvs.make_raw(name)
    for a in range(env.action_space("player_0").n):
        assert env.str_to_action(env.action_to_str(a)) == a
    with pytest.raises(ValueError, match="'nonsense'"):
        env.str_to_action("nonsense")


@pytest.mark.parametrize("name", GAMES)
def test_illegal_action_raises_and_changes_nothing(name):
    env = cardenvs.make(name)
    env.reset(seed=2)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = env.unwrapped.state_dict()
    with pytest.raises(ValueError, match=f"illegal action {illegal}"):
        env.step(illegal)
    assert env.unwrapped.state_dict() == before


@pytest.mark.parametrize("name", GAMES)
def test_illegal_action_penalty_ends_the_game(name):
    env = cardenvs.make(name, illegal_action="penalty")
    env.reset(seed=2)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1.0
    assert all(r == 0.0 for a, r in env.rewards.items() if a != agent)


@pytest.mark.parametrize("name", GAMES)
def test_vector_penalty_for_negative_actions(name):
    """Negative actions are illegal like any other in penalty mode (the kernels' own
    pseudo-actions, resets and refreshes, are negative too: none may leak through)."""
    venv = cardenvs.make_vec(name, num_envs=3, seed=0, illegal_action="penalty", auto_reset=False)
    state = venv.reset()
    movers = state.current_player.copy()
    state = venv.step(np.array([-1, -2, -3]))
    assert state.illegal.all() and state.terminated.all()
    assert (state.rewards[np.arange(3), movers] == -1.0).all()
    assert not state.legal_action_mask.any()


def test_unknown_game_and_bad_options():
    with pytest.raises(ValueError, match="unknown game"):
        cardenvs.make("nope_v0")
    with pytest.raises(ValueError, match="num_players"):
        cardenvs.make("president_v0", num_players=3)
    with pytest.raises(ValueError, match="president: unknown option 'colour'; options: num_players, decks"):
        cardenvs.make("president_v0", colour="red")


def test_render_modes():
    env = cardenvs.make("president_v0", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "player_0" in text and "pile" in text


def test_pettingzoo_style_module():
    from cardenvs import president_v0

    env = president_v0.env(num_players=6)
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{i}" for i in range(6)]
    assert type(president_v0.raw_env()).__name__ == "CardGameEnv"
    assert president_v0.vec_env(4).num_envs == 4


@pytest.mark.parametrize("name", GAMES)
def test_vector_load_state_dict_matches_aec(name):
    env = cardenvs.make_raw(name)
    env.reset(seed=4)
    _play_random(env, 25, np.random.default_rng(4))
    d = env.state_dict()
    venv = cardenvs.make_vec(name, num_envs=3, seed=0)
    venv.reset()
    state = venv.load_state_dict(1, d)
    assert venv.state_dict(1) == d
    assert np.array_equal(state.observation[1], env.observe(env.agent_selection)["observation"])
    assert np.array_equal(state.legal_action_mask[1], env.observe(env.agent_selection)["action_mask"])
    assert state.current_player[1] == int(env.agent_selection.split("_")[1])


def test_random_sampler_picks_every_legal_action_and_only_those():
    """Rows wider than one 64-bit word, legal actions at the word edges, a row with no
    legal action (-1), a single legal action; the same seed gives the same picks, and a
    non-contiguous mask is accepted."""
    from cardenvs.core.vector import RandomSampler

    width = 197
    legal_at = [0, 63, 64, 127, 128, 196]
    masks = np.zeros((3, width), dtype=np.bool_)
    masks[0, legal_at] = True
    masks[2, 130] = True
    sample = RandomSampler(9)
    picks = np.array([sample(masks) for _ in range(3000)])
    assert set(picks[:, 0]) == set(legal_at)
    counts = np.bincount(picks[:, 0], minlength=width)[legal_at]
    assert counts.min() > 400  # about 500 each out of 3000
    assert (picks[:, 1] == -1).all() and (picks[:, 2] == 130).all()
    again = RandomSampler(9)
    assert (np.array([again(masks) for _ in range(3000)]) == picks).all()
    wide = np.zeros((3, 2 * width), dtype=np.bool_)
    wide[:, ::2] = masks
    assert (RandomSampler(9)(wide[:, ::2]) == picks[0]).all()


@pytest.mark.parametrize("name", [spec.env_id for spec in cardenvs.list_games()])
def test_actions_must_be_integers_and_pseudo_actions_stay_out_of_reach(name):
    """Hardening: a float, string or bool action is refused (it was read as another
    action), and a finished game without auto-reset ignores negative actions (the
    kernels' pseudo-actions once restarted it)."""
    env = cardenvs.make_raw(name)
    env.reset(seed=0)
    before = env.state_dict()
    legal_a = env.legal_actions()[0]
    for bad in (float(legal_a) + 0.7, str(legal_a), True, np.float32(legal_a), np.array([legal_a])):
        with pytest.raises(TypeError, match="integer"):
            env.step(bad)
    assert env.state_dict() == before
    env.step(np.int64(legal_a))  # numpy integers and 0-d integer arrays are integers
    venv = cardenvs.make_vec(name, num_envs=4, seed=0, auto_reset=False, max_steps=3)
    s = venv.reset()
    for bad in (s.legal_action_mask.argmax(1).astype(np.float64), s.legal_action_mask.any(1),
                np.array(["0"] * 4)):
        with pytest.raises(TypeError, match="integer"):
            venv.step(bad)
    for _ in range(3):
        s = venv.step(s.legal_action_mask.argmax(1))
    assert s.truncated.all()
    done = [venv.state_dict(i) for i in range(4)]
    s = venv.step(np.array([-2, -3, -4, -5]))  # ignored by finished games
    assert [venv.state_dict(i) for i in range(4)] == done and not s.legal_action_mask.any()


def test_the_arrays_a_vector_env_returns_are_the_callers():
    """Hardening: writing into a returned mask changes nothing the env checks, and a
    later load_state_dict leaves the arrays returned before as they were."""
    venv = cardenvs.make_vec("president_v0", num_envs=3, seed=0)
    s = venv.reset()
    keep = s.legal_action_mask.copy(), s.observation.copy()
    legal = s.legal_action_mask.argmax(1)
    s.legal_action_mask[:] = True  # the caller's own array
    with pytest.raises(ValueError, match="illegal"):
        venv.step(np.full(3, np.flatnonzero(~keep[0][0])[0]))  # illegal in game 0, whatever the caller wrote
    s.legal_action_mask[:] = keep[0]
    before = venv.step(legal)
    held = before.legal_action_mask.copy(), before.observation.copy()
    after = venv.load_state_dict(1, venv.state_dict(0))
    assert np.array_equal(before.legal_action_mask, held[0]) and np.array_equal(before.observation, held[1])
    assert np.array_equal(after.observation[1], after.observation[0])


@pytest.mark.parametrize("name", GAMES)
def test_aec_fast_step_matches_the_dispatcher(name):
    """The AEC env calls its compiled step through the entry point found at the first step;
    a copy, a pickled env and a fresh env (dispatcher) all play the same match."""
    envs = [cardenvs.make_raw(name) for _ in range(2)]
    for env in envs:
        env.reset(seed=11)
    rng = np.random.default_rng(4)
    for i in range(300):
        env = envs[0]
        if not env.agents:
            break
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            for e in envs:
                e.step(None)
            continue
        a = int(rng.choice(env.legal_actions()))
        for e in envs:
            e.step(a)
        if i == 5:
            assert envs[0]._step_entry is not None  # found after the first step
            envs[1] = pickle.loads(pickle.dumps(envs[1]))
            assert envs[1]._step_entry is None  # found again after unpickling
        obs = [e.last() for e in envs]
        assert np.array_equal(obs[0][0]["observation"], obs[1][0]["observation"])
        assert np.array_equal(obs[0][0]["action_mask"], obs[1][0]["action_mask"])
        assert obs[0][1:] == obs[1][1:]
    assert envs[0].state_dict() == envs[1].state_dict()


def test_aec_observation_arrays_are_the_callers():
    """observe and last return new arrays: writing into them or stepping on changes
    nothing the caller holds or the env reads; a numpy integer and a 0-d array are actions."""
    env = cardenvs.make("odin_v1")
    env.reset(seed=2)
    obs, *_ = env.last()
    keep = obs["observation"].copy(), obs["action_mask"].copy()
    obs["action_mask"][:] = 1
    obs["observation"][:] = 7
    again, *_ = env.last()
    assert np.array_equal(again["observation"], keep[0]) and np.array_equal(again["action_mask"], keep[1])
    legal = np.flatnonzero(keep[1])
    env.step(np.int64(legal[0]))
    assert np.array_equal(again["observation"], keep[0])
    env.step(np.array(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    with pytest.raises(TypeError):
        env.step(True)


def test_state_record_is_a_copy_of_the_games_record():
    env = cardenvs.make_raw("odin")
    env.reset(seed=3)
    rec = env.state_record()
    assert rec.shape == (1,) and rec.dtype == env.game.STATE_DTYPE
    before = env.state_dict()
    rec["hands"] = 0
    assert env.state_dict() == before
    venv = cardenvs.make_vec("odin", num_envs=1)
    venv.reset()
    venv.load_state_dict(0, before)
    assert venv.states.tobytes() == env.state_record().tobytes()
