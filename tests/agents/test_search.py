"""The ``search`` agent (determinised search over the heuristic): legal and reproducible
decisions, a fair player (hidden cards swapped between two opponents change nothing),
the front ends that feed it the state (eval, play, the Gymnasium envs), its names and
its refusals. Parametrised over every game (each has a re-deal of its unseen cards,
``deal_unseen_batch``)."""

from __future__ import annotations

import dataclasses
import io
import types

import numpy as np
import pytest

from cardenvs import get_spec
from cardenvs.agents import available_agents, has_search, make_agent
from cardenvs.agents.evaluate import evaluate
from cardenvs.agents.search import SearchAgent, parse_search_name
from cardenvs.cli.main import main
from cardenvs.core.vector import VecEnv

GAMES = ["president", "odin", "rami51", "frime", "classes"]
PLAYERS = 4


def searchable(game: str):
    spec = get_spec(game)
    assert hasattr(spec.module, "deal_unseen_batch"), f"{game} lost its re-deal of the unseen cards"
    return spec


def positions(spec, n: int = 48, steps: int = 30, seed: int = 5):
    """Live positions after some random play, each with more than one legal action: the
    states, observations and masks of the player to move."""
    env = VecEnv(spec, n, seed=seed, auto_reset=False, auto_play_forced=True, num_players=PLAYERS)
    st = env.reset()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        st = env.step(np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in st.legal_action_mask]))
    rows = np.flatnonzero(~(st.terminated | st.truncated) & (st.legal_action_mask.sum(1) > 1))
    return env.states[rows].copy(), st.observation[rows].copy(), st.legal_action_mask[rows].copy()


def refreshed(game, states):
    """Masks, observations and players to move of ``states`` (refreshed in place)."""
    masks = np.zeros((len(states), game.NUM_ACTIONS), np.bool_)
    obs = np.zeros((len(states), game.OBS_SIZE), game.OBS_DTYPE)
    current = np.zeros(len(states), np.int32)
    game.refresh_batch(states, masks, obs, current)
    return masks, obs, current


@pytest.mark.parametrize("game", GAMES)
def test_decisions_are_legal_reproducible_and_leave_the_states_alone(game):
    spec = searchable(game)
    states, obs, masks = positions(spec)
    assert len(states) >= 8
    before = states.copy()
    agent = make_agent("search:2", spec, seed=3, options={"num_players": PLAYERS})
    assert agent.reads_state and agent.samples == 2
    picks = agent.act_states(states, obs, masks)
    assert masks[np.arange(len(picks)), picks].all()
    assert states.tobytes() == before.tobytes()  # the caller's records are not changed
    again = make_agent("search:2", spec, seed=3, options={"num_players": PLAYERS}).act_states(states, obs, masks)
    np.testing.assert_array_equal(picks, again)
    # a row with nothing to decide: its only move, no search; a finished one: -1
    one = masks[:2].copy()
    one[0] = False
    one[0, picks[0]] = True
    one[1] = False
    with pytest.raises(ValueError, match="do not match"):  # masks that are not the states' own
        agent.act_states(states[:2], obs[:2], one)
    with pytest.raises(TypeError, match="act_states"):
        agent.act_batch(obs, masks)


def swap_hidden_cards(spec, states, obs, seats, rng):
    """In a copy of each state, one card swapped between two opponents of the seat to move
    (a card of one that the other lacks, for one of the other's; never a card the table saw
    go into its hand), where the seat's
    observation and mask stay the same (the swap is hidden from it); returns the rows
    where such a swap was found and the swapped states."""
    game = spec.module
    out = states.copy()
    rows = []
    for i in range(len(states)):
        seat = int(seats[i])
        others = [q for q in range(PLAYERS) if q != seat]
        rng.shuffle(others)
        hands = out["hands"][i].astype(np.int64)
        if "known" in out.dtype.names:  # a card known to be in a hand (seen taken) stays there
            hands = hands - out["known"][i]
        for a, b in [(others[0], others[1]), (others[1], others[2]), (others[0], others[2])]:
            only_a = np.flatnonzero((hands[a] > 0) & (hands[b] == 0))
            only_b = np.flatnonzero((hands[b] > 0) & (hands[a] == 0))
            if not (only_a.size and only_b.size):
                continue
            trial = out[i:i + 1].copy()
            ca, cb = rng.choice(only_a), rng.choice(only_b)
            trial["hands"][0, a, ca] -= 1
            trial["hands"][0, b, ca] += 1
            trial["hands"][0, b, cb] -= 1
            trial["hands"][0, a, cb] += 1
            masks, view, _ = refreshed(game, trial)
            original_masks, _, _ = refreshed(game, states[i:i + 1].copy())
            if np.array_equal(view[0], obs[i]) and np.array_equal(masks, original_masks):
                out[i] = trial[0]
                rows.append(i)
                break
    return np.array(rows, dtype=np.int64), out


@pytest.mark.parametrize("game", GAMES)
def test_the_search_reads_nothing_its_seat_cannot_see(game):
    """Hidden cards swapped between two opponents (the seat's view the same): the same
    decisions for the same seed. The true deal's hidden cards never reach the search."""
    spec = searchable(game)
    states, obs, masks = positions(spec, n=64, seed=11)
    _, _, seats = refreshed(spec.module, states.copy())
    rows, swapped = swap_hidden_cards(spec, states, obs, seats, np.random.default_rng(0))
    assert rows.size >= 5, "enough positions where two opponents hold hidden cards"
    assert (swapped["hands"][rows] != states["hands"][rows]).any(axis=(1, 2)).all()
    opts = {"num_players": PLAYERS}
    picks = make_agent("search:4", spec, seed=21, options=opts).act_states(states[rows], obs[rows], masks[rows])
    other = make_agent("search:4", spec, seed=21, options=opts).act_states(swapped[rows], obs[rows], masks[rows])
    np.testing.assert_array_equal(picks, other)


@pytest.mark.parametrize("game", GAMES)
def test_compiled_rollouts_play_the_moves_of_the_python_loop(game, monkeypatch):
    """A rollout played in compiled code ends where the step-by-step loop ends, with the
    same values to the last bit: the same heuristic moves, to each round's end (not the
    match's: these matches have more rounds), the rewards added in the same order."""
    from cardenvs.agents import search as search_module

    spec = searchable(game)
    game_module = spec.module
    heuristic = make_agent("heuristic", spec, options={"num_players": PLAYERS})
    assert search_module.compiled_rollouts(game_module, heuristic) is not None
    states, _, masks = positions(spec, n=24)
    seats = refreshed(game_module, states)[2].astype(np.int64)
    players, mode = search_module.value_mode(game_module, {"num_players": PLAYERS})
    legal = [np.flatnonzero(m) for m in masks]
    tries = np.repeat(states, [len(x) for x in legal])
    tries["reward_mode"] = mode
    actions = np.concatenate(legal)
    try_seats = np.repeat(seats, [len(x) for x in legal])
    compiled_states, python_states = tries.copy(), tries.copy()
    calls = []
    in_kernel = search_module._rollouts_in_kernel
    monkeypatch.setattr(search_module, "_rollouts_in_kernel", lambda *args: calls.append(1) or in_kernel(*args))
    monkeypatch.setattr(search_module, "ROLLOUTS_IN_KERNEL", True)
    compiled = search_module.rollout_values(game_module, heuristic, compiled_states, actions, try_seats, players)
    assert calls == [1]
    monkeypatch.setattr(search_module, "ROLLOUTS_IN_KERNEL", False)
    python = search_module.rollout_values(game_module, heuristic, python_states, actions, try_seats, players)
    assert calls == [1]
    np.testing.assert_array_equal(compiled, python)
    assert np.ptp(compiled) > 0  # the rollouts were played: their values differ
    assert (compiled_states["num_steps"] > tries["num_steps"] + 1).any()  # in place, past the first step


@pytest.mark.slow
def test_the_search_beats_heuristic_players_on_odin():
    """A check of the values' sign: at K=16 the search wins about 40 % of the matches
    against three heuristic players (docs/notes/search.md); over 64 matches, more than the
    fair share (25 %) would need much luck for a search that chose badly."""
    spec = get_spec("odin")
    opts = {"num_players": PLAYERS}
    agents = [make_agent("search:16", spec, seed=1, options=opts)]
    agents += [make_agent("heuristic", spec, options=opts) for _ in range(PLAYERS - 1)]
    res = evaluate(spec, agents, 64, seed=4, options=opts, batch_size=64)
    assert res[0].win_rate > 1 / PLAYERS


def test_names_settings_and_refusals():
    odin = get_spec("odin")
    assert parse_search_name("search") == (None, None)
    assert parse_search_name("search:16") == (16, None)
    assert parse_search_name("search:16:40") == (16, 40)
    assert parse_search_name("search::40") == (None, 40)
    for bad in ("search:0", "search:x", "search:4:0", "search:4:", "search:1:2:3", "search:-3"):
        with pytest.raises(ValueError, match="search"):
            make_agent(bad, odin)
    agent = make_agent("search:16:40", odin, seed=1)
    assert isinstance(agent, SearchAgent) and (agent.samples, agent.depth) == (16, 40) and agent.name == "search"
    assert make_agent("search", odin).samples >= 1
    assert "search" in available_agents(odin) and "search:K" in available_agents(odin)
    # a game that cannot deal its unseen cards anew is refused, by name
    module = types.ModuleType("nogame")
    module.__dict__.update({k: v for k, v in vars(odin.module).items() if k != "deal_unseen_batch"})
    other = dataclasses.replace(odin, name="nogame", env_id="nogame_v0", module=module)
    assert not has_search(other) and "search" not in available_agents(other)
    with pytest.raises(ValueError, match="nogame cannot deal the cards a seat cannot see anew"):
        make_agent("search", other)


def test_a_cut_rollout_still_plays_legal_moves():
    spec = get_spec("odin")
    states, obs, masks = positions(spec, n=16)
    picks = make_agent("search:2:3", spec, seed=2, options={"num_players": PLAYERS}).act_states(states, obs, masks)
    assert masks[np.arange(len(picks)), picks].all()


@pytest.mark.parametrize("game", GAMES)
def test_cli_eval_and_play_with_the_search(game):
    searchable(game)
    out, err = io.StringIO(), io.StringIO()
    argv = ["--players", str(PLAYERS), "--option", "single_round=true"]
    assert main(["eval", game, "--agents", "search:1,heuristic", "--matches", "4", "--batch", "4", *argv],
                out, err) == 0, err.getvalue()
    assert "search:1" in out.getvalue() and "4 matches" in out.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert main(["play", game, "--agents", "search:1,heuristic", "--seed", "2", *argv], out, err,
                input_fn=lambda _: "q") == 0, err.getvalue()
    assert "1 match" in out.getvalue() and "search:1" in out.getvalue()


def test_the_gymnasium_envs_feed_a_search_opponent_the_state():
    import gymnasium  # noqa: F401  (registers the ids)

    from cardenvs.integrations.gym import LearnerVecEnv, SingleAgentEnv

    env = SingleAgentEnv("odin", opponents="search:1", num_players=PLAYERS, single_round=True)
    obs, info = env.reset(seed=1)
    for _ in range(30):
        legal = np.flatnonzero(info["action_mask"])
        obs, _, terminated, truncated, info = env.step(int(legal[0]))
        if terminated or truncated:
            obs, info = env.reset()
    venv = LearnerVecEnv("odin", 4, opponents="search:1", seed=2, num_players=PLAYERS, single_round=True)
    obs, info = venv.reset(seed=2)
    for _ in range(20):
        obs, *_, info = venv.step(np.array([np.flatnonzero(m)[0] for m in venv.action_masks()]))


def test_rollout_workers_play_a_search_by_name():
    """The self-play workers (``cardenvs.agents.training.distributed``) feed it the matches' state."""
    pytest.importorskip("torch")
    from cardenvs.agents.training.distributed import SelfPlayWorker

    worker = SelfPlayWorker("odin", 4, seed=3, options={"num_players": PLAYERS})
    out = worker.run({"policy": "search:1", "steps": 6})
    t, i = np.meshgrid(np.arange(6), np.arange(4), indexing="ij")
    assert out["action_mask"][t, i, out["action"]].all()


@pytest.mark.parametrize("game", ["president", "rami51"])
def test_records_from_outside_an_env_are_checked_first(game):
    # plain arrays of records (not marked as an env's) load through the scenario checks:
    # the same decisions for sound records; a broken one is a ValueError naming it, never
    # a kernel reading out of bounds
    from cardenvs.core.protocol import env_records

    spec = searchable(game)
    states, obs, masks = positions(spec, n=6)
    plain = np.array(states).view(np.ndarray)
    opts = {"num_players": PLAYERS}
    a = SearchAgent(spec, seed=3, options=opts, samples=2).act_states(env_records(states), obs, masks)
    b = SearchAgent(spec, seed=3, options=opts, samples=2).act_states(plain, obs, masks)
    assert np.array_equal(a, b)
    broken = plain.copy()
    broken["current"][1] = 99
    with pytest.raises(ValueError, match=r"states\[1\]"):
        SearchAgent(spec, seed=3, options=opts, samples=2).act_states(broken, obs, masks)
    broken = plain.copy()
    broken["hands"][2, 0, :] = 9  # nine of every card in one hand
    with pytest.raises(ValueError, match=r"states\[2\]"):
        SearchAgent(spec, seed=3, options=opts, samples=2).act_states(broken, obs, masks)
    with pytest.raises(TypeError, match="STATE_DTYPE"):
        SearchAgent(spec, seed=3, options=opts, samples=2).act_states(np.zeros(6), obs, masks)
    with pytest.raises(ValueError, match="players"):  # an agent made for other games
        SearchAgent(spec, seed=3, options={"num_players": 5}, samples=2).act_states(plain, obs, masks)


def test_options_without_a_fair_redeal_are_refused_when_the_agent_is_made():
    with pytest.raises(ValueError, match="completion_offers"):
        SearchAgent(get_spec("president"), seed=1, options={"completion_offers": "holders"})


def test_an_edited_record_of_the_aec_env_is_checked():
    import cardenvs

    env = cardenvs.make_raw("president")
    env.reset(seed=2)
    rec = env.state_record()
    obs = env.observe(env.agent_selection)
    mask = obs["action_mask"].astype(bool)[None]
    agent = SearchAgent(env.spec, seed=1, samples=2)
    assert mask[0, agent.act_states(rec, obs["observation"][None], mask)[0]]
    rec["hands"][0, 1:3, 5] = 250  # far more of a card than the decks hold
    with pytest.raises(ValueError, match=r"states\[0\]"):
        agent.act_states(rec, obs["observation"][None], mask)
