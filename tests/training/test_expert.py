"""Search-labelled training (``cardenvs train search GAME``): the deal of the
unseen cards, the rollout search's values, the labels, the fit and the CLI."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cardenvs import get_spec, make_vec  # noqa: E402
from cardenvs.agents import make_agent  # noqa: E402
from cardenvs.agents.ppo import PolicyNetwork  # noqa: E402
from cardenvs.agents.training.expert import (  # noqa: E402
    SearchConfig,
    check_config,
    deal_unseen,
    fit_policy,
    held_out_split,
    label_positions,
    load_labels,
    run_search,
    search,
)
from cardenvs.cli.main import main  # noqa: E402
from cardenvs.core.protocol import state_to_dict  # noqa: E402
from cardenvs.core.vector import VecEnv  # noqa: E402

ODIN = get_spec("odin")
GAME = ODIN.module


def midround_states(n: int = 64, steps: int = 30, seed: int = 5):
    """States some way into their first round (cards played, taken back, passed)."""
    env = VecEnv(ODIN, n, seed=seed, auto_reset=False, auto_play_forced=True)
    st = env.reset()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        legal = st.legal_action_mask
        st = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in legal]))
    live = ~(st.terminated | st.truncated)
    return env.states[live].copy(), st.current_player[live].copy()


def observe(states, seats):
    out = np.zeros((len(states), GAME.OBS_SIZE), GAME.OBS_DTYPE)
    GAME.observe_batch(states, seats.astype(np.int64), out)
    return out


@pytest.mark.parametrize("who", ["to move", "next"])
def test_the_unseen_cards_are_dealt_anew_and_the_seat_sees_the_same(who):
    states, seats = midround_states()
    if who == "next":  # a seat that is not the one to move (whose selection may be in progress)
        seats = (seats + 1) % states["num_players"]
    assert len(states) > 20 and states["known"].any(), "the positions hold cards known to be in a hand"
    before = states.copy()
    after = states.copy()
    deal_unseen(GAME, after, seats, np.random.default_rng(1))
    # what the seat observes, and its own hand, are the same
    np.testing.assert_array_equal(observe(before, seats), observe(after, seats))
    # every hand keeps its size and its known cards; the unseen cards are the same cards
    np.testing.assert_array_equal(before["hands"].sum(2), after["hands"].sum(2))
    assert (after["hands"] >= after["known"]).all()
    for i, seat in enumerate(seats):
        np.testing.assert_array_equal(before["hands"][i, seat], after["hands"][i, seat])
        unseen_before = before["aside"][i].astype(int) + before["hands"][i].astype(int).sum(0) \
            - before["hands"][i, seat]
        unseen_after = after["aside"][i].astype(int) + after["hands"][i].astype(int).sum(0) - after["hands"][i, seat]
        np.testing.assert_array_equal(unseen_before, unseen_after)
    # and the deal changed in most games (another player sees another hand)
    others = [(before["hands"][i] != after["hands"][i]).any() for i in range(len(seats))]
    assert np.mean(others) > 0.9
    if who == "next":
        return
    # the dealt states are consistent: the legal moves of the seat are the ones it had
    masks = np.zeros((len(after), GAME.NUM_ACTIONS), np.bool_)
    GAME.refresh_batch(before, masks, np.zeros((len(after), GAME.OBS_SIZE), GAME.OBS_DTYPE),
                       np.zeros(len(after), np.int32))
    masks_after = np.zeros_like(masks)
    GAME.refresh_batch(after, masks_after, np.zeros((len(after), GAME.OBS_SIZE), GAME.OBS_DTYPE),
                       np.zeros(len(after), np.int32))
    np.testing.assert_array_equal(masks, masks_after)


def test_the_search_values_are_the_rounds_played_out():
    """The value of an action in one deal: play it, then heuristic players to the end of
    the round in the ordinary env; the seat's round reward minus the others' mean."""
    states, seats = midround_states(8)
    heuristic = make_agent("heuristic", ODIN)
    round_mode = GAME.make_template(num_players=4, reward_mode="round")["reward_mode"][0]
    for i in range(3):
        state, seat = states[i:i + 1].copy(), int(seats[i])
        masks = np.zeros((1, GAME.NUM_ACTIONS), np.bool_)
        GAME.refresh_batch(state, masks, np.zeros((1, GAME.OBS_SIZE), GAME.OBS_DTYPE), np.zeros(1, np.int32))
        # one deal (samples=1) drawn by the search; replay the same deal by hand
        rng_seed = 40 + i
        (values,) = search(GAME, heuristic, state.copy(), np.array([seat]), masks, 1, 4, round_mode,
                           np.random.default_rng(rng_seed))
        dealt = state.copy()
        deal_unseen(GAME, dealt, np.array([seat]), np.random.default_rng(rng_seed))
        dealt["reward_mode"] = round_mode
        for a, value in zip(np.flatnonzero(masks[0]), values, strict=True):
            env = VecEnv(ODIN, 1, auto_reset=False, auto_play_forced=True, reward_mode="round")
            env.reset(seed=0)
            env.load_state_dict(0, state_to_dict(ODIN, dealt[0]))
            st = env.step(np.array([a]))
            total = st.rewards[0].astype(np.float64).copy()
            while not (st.round_ended[0] or st.terminated[0] or st.truncated[0]):
                st = env.step(heuristic.act_batch(st.observation, st.legal_action_mask))
                total += st.rewards[0]
            assert value == pytest.approx(total[seat] - (total.sum() - total[seat]) / 3)


def test_labels_hold_the_search_seats_decisions(tmp_path):
    out = tmp_path / "w"
    r = label_positions("odin", 4, 2, 1e9, seed=3, batch=4, out=str(out), max_matches=4)
    data = load_labels(sorted(tmp_path.glob("w.*.npz")))
    n = len(data["obs"])
    assert r["matches"] == 4 and r["positions"] == n > 50
    rows = np.arange(n)
    assert (data["mask"].sum(1) > 1).all()  # forced moves are not decisions
    assert data["mask"][rows, data["hint"]].all() and data["mask"][rows, data["best"]].all()
    np.testing.assert_array_equal(np.isnan(data["q"]), ~data["mask"])
    q = np.where(data["mask"], data["q"].astype(np.float32), -np.inf)
    np.testing.assert_array_equal(q[rows, data["best"]], q.max(1))  # the search plays its best move
    # each position records its match: the worker's match seeds, seed * 10,000,000 on
    assert set(data["match"].tolist()) == {30_000_000 + k for k in range(4)}
    # the same seed gives the same labels
    label_positions("odin", 4, 2, 1e9, seed=3, batch=4, out=str(tmp_path / "again"), max_matches=4)
    again = load_labels(sorted(tmp_path.glob("again.*.npz")))
    for k in data:
        np.testing.assert_array_equal(data[k], again[k])


def test_the_fit_holds_out_whole_matches():
    """Positions of one match look alike and share its outcome: the held-out positions
    must come from matches the fit never trains on (about a tenth of them)."""
    n = 5000
    match = np.repeat(np.arange(100) * 7 + 3, n // 100)
    data = {"obs": np.zeros((n, 4), np.float16), "match": match}
    held, train = held_out_split(data, np.random.default_rng(0))
    assert len(held) + len(train) == n and len(np.union1d(held, train)) == n
    assert len(np.unique(match[held])) == 10
    assert not np.intersect1d(match[held], match[train]).size
    # without match records (older labels) single positions are held out, drawn as before
    del data["match"]
    held, train = held_out_split(data, np.random.default_rng(0))
    order = np.random.default_rng(0).permutation(n)
    np.testing.assert_array_equal(held, order[: n // 10])
    np.testing.assert_array_equal(train, order[n // 10:])
    # the positions of one match leave nothing to train on
    A = GAME.NUM_ACTIONS
    mask = np.zeros((200, A), bool)
    mask[:, :2] = True
    one = {"obs": np.zeros((200, GAME.OBS_SIZE), np.float16), "mask": mask, "hint": np.zeros(200, np.int16),
           "q": np.where(mask, 0.0, np.nan).astype(np.float16), "best": np.zeros(200, np.int16),
           "match": np.full(200, 5)}
    with pytest.raises(ValueError, match="one match"):
        fit_policy(one, ODIN, 4, SearchConfig(game="odin", hidden=(8,), torch_threads=1), 10.0)


def test_the_fitted_policy_keeps_the_heuristics_move_unless_another_is_better_by_the_margin(tmp_path):
    label_positions("odin", 4, 2, 1e9, seed=4, batch=4, out=str(tmp_path / "w"), max_matches=4)
    data = load_labels(sorted(tmp_path.glob("w.*.npz")))
    cfg = SearchConfig(game="odin", hidden=(32,), epochs=2, minibatch=64, torch_threads=1)
    policy, summary = fit_policy(data, ODIN, 4, cfg, 60.0)
    assert policy.heuristic_input and policy.hint_bonus == summary["margin"]
    obs, masks, hints = data["obs"].astype(np.float32), data["mask"], data["hint"].astype(np.int64)
    plain = PolicyNetwork({**policy.meta, "hint_bonus": 0.0}, policy.obs_mean, 1 / policy.inv_std, policy.weights)
    raw = plain.logits(obs, hints)
    rows = np.arange(len(obs))
    np.testing.assert_allclose(policy.logits(obs, hints)[rows, hints], raw[rows, hints] + summary["margin"],
                               rtol=1e-5)
    # a margin above every advantage: the heuristic's move everywhere
    keep = PolicyNetwork({**policy.meta, "hint_bonus": 1e9}, policy.obs_mean, 1 / policy.inv_std, policy.weights)
    logits = np.where(masks, keep.logits(obs, hints), -np.inf)
    np.testing.assert_array_equal(logits.argmax(1), hints)
    with pytest.raises(ValueError, match="hint_bonus"):
        PolicyNetwork({**policy.meta, "hint_bonus": -1.0}, policy.obs_mean, 1 / policy.inv_std, policy.weights)


def test_the_fit_learns_where_another_move_is_better():
    """Synthetic labels: a move beats the heuristic's by 1 point where one observation
    feature is set, and loses by 1 elsewhere; a third move always loses. The policy must
    play it exactly there."""
    rng = np.random.default_rng(0)
    n, A = 3000, GAME.NUM_ACTIONS
    obs = (rng.random((n, GAME.OBS_SIZE)) < 0.3).astype(np.float16)
    hint, other, worse = 0, 5, 9
    mask = np.zeros((n, A), bool)
    mask[:, [hint, other, worse]] = True
    q = np.full((n, A), np.nan, np.float16)
    q[:, hint] = 0.0
    q[:, other] = np.where(obs[:, 7] == 1, 1.0, -1.0)
    q[:, worse] = -0.5
    best = np.where(obs[:, 7] == 1, other, hint).astype(np.int16)
    data = {"obs": obs, "mask": mask, "hint": np.full(n, hint, np.int16), "q": q, "best": best}
    cfg = SearchConfig(game="odin", hidden=(32,), epochs=8, minibatch=128, torch_threads=1, learning_rate=3e-3)
    policy, summary = fit_policy(data, ODIN, 4, cfg, 120.0)
    logits = np.where(mask, policy.logits(obs.astype(np.float32), data["hint"].astype(np.int64)), -np.inf)
    assert (logits.argmax(1) == best).mean() > 0.97
    assert summary["held_out_advantage"] > 0.9 * np.mean(obs[:, 7] == 1)
    with pytest.raises(ValueError, match="too few"):
        fit_policy({k: v[:50] for k, v in data.items()}, ODIN, 4, cfg, 60.0)


def test_search_policies_play_greedily_and_bad_margins_are_refused(tmp_path):
    label_positions("odin", 4, 2, 1e9, seed=5, batch=4, out=str(tmp_path / "w"), max_matches=4)
    data = load_labels(sorted(tmp_path.glob("w.*.npz")))
    cfg = SearchConfig(game="odin", hidden=(16,), epochs=1, minibatch=64, torch_threads=1)
    policy, _ = fit_policy(data, ODIN, 4, cfg, 60.0)
    policy.save(tmp_path / "policy.npz")
    with pytest.raises(ValueError, match="greedily"):
        make_agent(f"ppo-sample:{tmp_path / 'policy.npz'}", ODIN)
    args = (policy.obs_mean, 1 / policy.inv_std, policy.weights)
    for bad in (-1.0, 10**400, float("nan"), "0.1", True):
        with pytest.raises(ValueError, match="hint_bonus"):
            PolicyNetwork({**policy.meta, "hint_bonus": bad}, *args)
    with pytest.raises(ValueError, match="needs heuristic_input"):
        PolicyNetwork({**policy.meta, "heuristic_input": False}, *args)


@pytest.mark.slow
def test_cli_train_by_search_writes_a_policy_that_plays_legal_moves(tmp_path):
    folder = tmp_path / "run"
    out, err = io.StringIO(), io.StringIO()
    code = main(["train", "search", "odin", "--minutes", "0.3", "--fit-minutes", "0.1", "--workers", "1",
                 "--samples", "2", "--eval-matches", "4", "--threads", "1", "--out", str(folder)], out, err)
    assert code == 0, err.getvalue()
    for name in ("policy.npz", "fit.csv", "margin.csv", "eval.csv", "summary.json", "config.json"):
        assert (folder / name).is_file(), name
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["positions"] > 0 and 0 <= summary["vs_heuristic"] <= 1
    fit = list(csv.DictReader(open(folder / "fit.csv")))
    assert fit and all(np.isfinite(float(r["loss"])) for r in fit)  # the fit took its steps
    agent = make_agent(f"ppo:{folder / 'policy.npz'}", ODIN)
    env = make_vec("odin", 32, seed=2, illegal_action="raise")
    st = env.reset()
    for _ in range(200):
        st = env.step(agent.act_batch(st.observation, st.legal_action_mask))
    with pytest.raises(ValueError, match="holds a run already"):
        run_search(SearchConfig(game="odin", out=str(folder)), out=io.StringIO(), err=io.StringIO())
    # labels left by a run that stopped early would mix with a new run's
    (folder / "policy.npz").unlink()
    with pytest.raises(ValueError, match="holds a run already"):
        run_search(SearchConfig(game="odin", out=str(folder)), out=io.StringIO(), err=io.StringIO())


@pytest.mark.parametrize("argv, message", [
    (["train", "search", "odin", "--samples", "0"], "samples must be a positive integer"),
    (["train", "search", "odin", "--minutes", "5", "--fit-minutes", "6"], "fit_minutes"),
    (["train", "search", "odin", "--option", "reward_mode=round"], "options may not set reward_mode"),
    (["train", "search", "odin", "--option", "target_score=0"], "target_score"),
    (["train", "search", "odin", "--threads", "0"], "torch_threads must be a positive integer"),
    (["train", "search", "odin", "--workers", "0"], "workers must be a positive integer"),
    (["train", "search", "odin", "--eval-matches", "0"], "eval_matches must be a positive integer"),
    (["train", "search", "odin", "--players", "9"], "players"),
    (["train", "search", "odin", "--seed", "-1"], "seed must be"),
    (["train", "ppo", "odin", "--eval-matches", "0"], "eval_matches must be a positive integer"),
])
def test_cli_train_by_search_refuses_bad_settings(tmp_path, argv, message):
    err = io.StringIO()
    assert main([*argv, "--out", str(tmp_path / "x")], io.StringIO(), err) == 2
    assert message in err.getvalue()


def test_cli_train_by_search_refuses_a_game_that_cannot_deal_anew(tmp_path, monkeypatch):
    """Every game has its re-deal now: one without it (its kernel taken away) is refused."""
    monkeypatch.delattr(GAME, "deal_unseen_batch")
    err = io.StringIO()
    assert main(["train", "search", "odin", "--out", str(tmp_path / "x")], io.StringIO(), err) == 2
    assert "cannot deal its unseen cards" in err.getvalue()


# --------------------------------------------------------------------------- Rami 51
RAMI = get_spec("rami51")
RAMI_GAME = RAMI.module
RAMI_OPTIONS = {"num_players": 4, "single_round": True}


def rami_midturn_states(n: int = 48, steps: int = 40, seed: int = 6):
    """Rami 51 states after some random play: hands, a stock, melds on the table, turns
    in progress (cards taken from the discard pile and not laid yet among them)."""
    env = VecEnv(RAMI, n, seed=seed, auto_reset=False, auto_play_forced=True, **RAMI_OPTIONS)
    st = env.reset()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        st = env.step(np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in st.legal_action_mask]))
    live = ~(st.terminated | st.truncated)
    return env.states[live].copy(), st.current_player[live].astype(np.int64)


def rami_unseen(states, seats):
    """Per game: the multiset of the cards of the stock and of every hand but the seat's."""
    out = []
    for i, seat in enumerate(seats):
        counts = states["hands"][i].astype(int).sum(0) - states["hands"][i, seat]
        np.add.at(counts, states["stock"][i][:states["stock_n"][i]], 1)
        out.append(counts)
    return np.array(out)


@pytest.mark.parametrize("who", ["to move", "next"])
@pytest.mark.parametrize("keep_hands", [False, True])
def test_rami51_unseen_cards_are_dealt_anew_and_the_seat_sees_the_same(who, keep_hands):
    states, seats = rami_midturn_states()
    if who == "next":
        seats = (seats + 1) % 4
    before, after = states.copy(), states.copy()
    deal_unseen(RAMI_GAME, after, seats, np.random.default_rng(2), keep_hands)
    obs = [np.zeros((len(states), RAMI_GAME.OBS_SIZE), RAMI_GAME.OBS_DTYPE) for _ in range(2)]
    RAMI_GAME.observe_batch(before, seats, obs[0])
    RAMI_GAME.observe_batch(after, seats, obs[1])
    np.testing.assert_array_equal(obs[0], obs[1])
    np.testing.assert_array_equal(before["hands"].sum(2), after["hands"].sum(2))
    np.testing.assert_array_equal(before["stock_n"], after["stock_n"])
    np.testing.assert_array_equal(rami_unseen(before, seats), rami_unseen(after, seats))
    for field in ("pile", "pile_n", "meld_slot", "num_melds"):
        np.testing.assert_array_equal(before[field], after[field])
    rows = np.arange(len(seats))
    np.testing.assert_array_equal(before["hands"][rows, seats], after["hands"][rows, seats])
    stock_moved = np.mean([(before["stock"][i] != after["stock"][i]).any() for i in rows])
    assert stock_moved > 0.9 and (before["rng"] != after["rng"]).all()
    hands_moved = np.mean([(before["hands"][i] != after["hands"][i]).any() for i in rows])
    if keep_hands:
        np.testing.assert_array_equal(before["hands"], after["hands"])
    else:
        assert hands_moved > 0.9
        # a card taken from the discard pile and not laid yet was seen: it stays with its taker
        cur = before["current"].astype(np.int64)
        pending = np.flatnonzero((before["pending"] >= 0) & ~before["pending_used"] & (cur != seats))
        for i in pending:
            assert after["hands"][i, cur[i], before["pending"][i]] >= 1
    if who == "to move":  # the dealt states give the seat the legal moves it had
        masks = [np.zeros((len(states), RAMI_GAME.NUM_ACTIONS), np.bool_) for _ in range(2)]
        for m, st in zip(masks, (before, after), strict=True):
            RAMI_GAME.refresh_batch(st, m, np.zeros((len(st), RAMI_GAME.OBS_SIZE), RAMI_GAME.OBS_DTYPE),
                                    np.zeros(len(st), np.int32))
        np.testing.assert_array_equal(masks[0], masks[1])


def test_rami51_pending_cards_of_the_player_to_move_stay_with_it():
    """Enough positions where another seat's taken discard is still in its hand."""
    found = 0
    for seed in range(6, 12):
        states, cur = rami_midturn_states(seed=seed, steps=41)
        seats = (cur + 1) % 4
        rows = np.flatnonzero((states["pending"] >= 0) & ~states["pending_used"])
        if not rows.size:
            continue
        after = states.copy()
        deal_unseen(RAMI_GAME, after, seats, np.random.default_rng(seed))
        for i in rows:
            assert after["hands"][i, cur[i], states["pending"][i]] >= 1
            assert after["drawn"][i] == -1  # which card it drew is not seen
        found += rows.size
    assert found >= 3


def test_rami51_single_round_labels_value_the_win_and_keep_the_options(tmp_path):
    r = label_positions("rami51", 4, 2, 1e9, seed=3, batch=6, out=str(tmp_path / "w"), max_matches=12,
                        options={"single_round": True}, hands="true")
    data = load_labels(sorted(tmp_path.glob("w.*.npz")))
    n = len(data["obs"])
    assert r["matches"] == 12 and r["positions"] == n >= 100
    # one deal's value is 4/3 (the seat wins), -4/9 (another seat does) or 0 (a void round):
    # the mean of two deals is one of their half-sums
    half_sums = np.array(sorted({(a + b) / 2 for a in (4 / 3, -4 / 9, 0.0) for b in (4 / 3, -4 / 9, 0.0)}))
    q = data["q"][data["mask"]].astype(np.float64)
    assert np.abs(q[:, None] - half_sums[None]).min(1).max() < 2e-3
    assert len(np.unique(q)) > 2
    cfg = SearchConfig(game="rami51", num_players=4, single_round=True, hidden=(16,), epochs=1, minibatch=64,
                       torch_threads=1)
    policy, _ = fit_policy(data, RAMI, 4, cfg, 60.0)
    assert policy.meta["options"] == RAMI_OPTIONS
    agent = make_agent_from_policy(policy, tmp_path)
    env = make_vec("rami51", 8, seed=4, illegal_action="raise", **RAMI_OPTIONS)
    st = env.reset()
    for _ in range(100):
        st = env.step(agent.act_batch(st.observation, st.legal_action_mask))


def test_a_search_that_reads_the_hands_labels_the_heuristics_matches_unless_measured(tmp_path):
    """With the other hands as they are, the seat plays the heuristic's move (the labels are
    the heuristic's matches); ``play_search`` (benchmarks/rollout_search.py) plays the
    search's move instead, and the matches go another way."""
    kw = dict(max_matches=4, options={"single_round": True}, hands="true")
    labelled = label_positions("rami51", 4, 2, 1e9, seed=6, batch=1, out=str(tmp_path / "a"), **kw)
    played = label_positions("rami51", 4, 2, 1e9, seed=6, batch=1, out=str(tmp_path / "b"),
                            play_search=True, **kw)
    a = load_labels(sorted(tmp_path.glob("a.*.npz")))
    b = load_labels(sorted(tmp_path.glob("b.*.npz")))
    assert labelled["unlike_heuristic"] > 0 and played["unlike_heuristic"] > 0
    assert np.array_equal(a["obs"][0], b["obs"][0])  # the same deals
    # one match at a time, so the record after a position is the seat's next decision:
    # the runs agree up to the first search move unlike the heuristic's, and part there
    first = int(np.flatnonzero(b["best"] != b["hint"])[0])
    assert np.array_equal(a["obs"][:first + 1], b["obs"][:first + 1])
    assert not np.array_equal(a["obs"][first + 1], b["obs"][first + 1])


def make_agent_from_policy(policy, folder):
    policy.save(folder / "policy.npz")
    return make_agent(f"ppo:{folder / 'policy.npz'}", RAMI, options=RAMI_OPTIONS)


@pytest.mark.parametrize("settings, message", [
    ({"options": {"reward_mode": "round"}}, "options may not set reward_mode"),
    ({"options": {"single_round": True}}, "options may not set single_round"),
    ({"options": {"decks": 9}}, "decks"),
    ({"options": ["decks"]}, "options must be a dict"),
    ({"single_round": "yes"}, "single_round must be True or False"),
    ({"hands": "all"}, "hands must be 'sampled' or 'true'"),
])
def test_search_config_refuses_bad_game_settings(settings, message):
    with pytest.raises((ValueError, TypeError), match=message):
        check_config(SearchConfig(game="rami51", **settings))


def test_shards_of_different_layouts_are_refused(tmp_path):
    """The labels are read shard by shard into one array each: a shard whose arrays differ
    from the first's (another run, another version) is refused, not cast."""
    def shard(path, obs_dtype, n=3, obs_size=4, actions=5):
        np.savez_compressed(path, obs=np.zeros((n, obs_size), obs_dtype), mask=np.ones((n, actions), bool),
                            hint=np.zeros(n, np.int16), q=np.zeros((n, actions), np.float16),
                            best=np.zeros(n, np.int16), match=np.arange(n, dtype=np.int64))
        return path

    first = shard(tmp_path / "a.npz", np.float16)
    same = shard(tmp_path / "b.npz", np.float16, n=2)
    data = load_labels([first, same])
    assert data["obs"].shape == (5, 4) and data["obs"].dtype == np.float16
    np.testing.assert_array_equal(data["match"], [0, 1, 2, 0, 1])
    other = shard(tmp_path / "c.npz", np.float32)
    with pytest.raises(ValueError, match="obs"):
        load_labels([first, other])
    wider = shard(tmp_path / "d.npz", np.float16, obs_size=6)
    with pytest.raises(ValueError, match="obs"):
        load_labels([first, wider])


def _spawned_workers(parent: int) -> list[int]:
    """The pool workers (spawned processes) whose parent is ``parent``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == parent and b"spawn_main" in cmdline:
            found.append(int(entry.name))
    return found


def _running(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_terminated_run_stops_its_labelling_workers(tmp_path):
    """``kill`` (SIGTERM) of a run ends its workers too; they used to label on, orphaned,
    until their time was up."""
    script = ("import sys, time\nfrom pathlib import Path\nfrom cardenvs.agents.training.expert import run_workers\n"
              f"run_workers(time.sleep, [(120,), (120,)], Path({str(tmp_path)!r}), 120.0, time.perf_counter(), "
              "sys.stderr)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.DEVNULL)
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(_spawned_workers(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        workers = _spawned_workers(proc.pid)
        assert len(workers) == 2
        time.sleep(0.5)  # the pool's tasks handed out: the run is labelling
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) != 0
        deadline = time.monotonic() + 30
        while any(_running(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_running(w) for w in workers)
    finally:
        proc.kill()
        proc.wait()
        for w in workers:  # a failed check leaves no worker sleeping on
            with contextlib.suppress(OSError):
                os.kill(w, signal.SIGKILL)
