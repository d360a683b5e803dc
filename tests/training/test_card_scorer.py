"""Rami 51's card scorer (``cardenvs train scorer rami51``): the exact rollouts'
figures, the rows, the fit, the agent and its file, the CLI."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import sys
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cardenvs import get_spec, make, make_vec  # noqa: E402
from cardenvs.agents import available_agents, make_agent  # noqa: E402
from cardenvs.agents.rami51_scorer import (  # noqa: E402
    KIND_OFFSET,
    KINDS,
    NUM_FEATURES,
    SCORER_FORMAT,
    SHIPPED,
    SHIPPED_MATCHES,
    CardScorerAgent,
    ScorerNetwork,
    rows_of,
)
from cardenvs.agents.training import card_scorer  # noqa: E402
from cardenvs.agents.training.card_scorer import (  # noqa: E402
    ScorerConfig,
    check_config,
    fit_scorer,
    is_held_match,
    iteration_shares,
    label_rows,
    load_rows,
    rollout_figures,
    run_scorer,
    scorer_network,
)
from cardenvs.cli.main import main  # noqa: E402
from cardenvs.core.vector import VecEnv  # noqa: E402
from cardenvs.games.rami51.plan import coverage  # noqa: E402

pytestmark = pytest.mark.slow  # a training or benchmark run: the long tier

RAMI = get_spec("rami51")
OPTIONS = {"num_players": 4, "single_round": True}


@pytest.fixture(scope="module")
def labelled(tmp_path_factory):
    """The rows of 16 labelled rounds (seed 3)."""
    folder = tmp_path_factory.mktemp("labels")
    res = label_rows(4, {}, 1e9, 3, 16, str(folder / "w"), max_rounds=16)
    return res, folder / "w.0.npz"


def _heuristic_rounds(n: int, first: int):
    """``n`` rounds of seeds ``first``.. played by heuristic players: each step's states
    (copies), actions, finished rounds, players to move and legal counts; the final states."""
    env = VecEnv(RAMI, n, auto_reset=False, auto_play_forced=True, **OPTIONS)
    st = env.reset(seeds=np.arange(first, first + n))
    heuristic = make_agent("heuristic", RAMI, options=OPTIONS)
    done = np.zeros(n, bool)
    steps = []
    while not done.all():
        a = heuristic.act_batch(st.observation, st.legal_action_mask)
        steps.append((env.states.copy(), a.copy(), done.copy(), st.current_player.copy(),
                      st.legal_action_mask.sum(1)))
        a[done] = 0
        st = env.step(a)
        done |= st.terminated | st.truncated
    return heuristic, steps, env.states


def test_a_rollout_of_the_heuristics_move_ends_as_its_round_did():
    """The rollouts are exact: from a position of a round played by heuristic players, the
    rollout of the heuristic's own move replays the rest of the round (the labeller takes
    that move's figures from the round's end instead of playing it out)."""
    heuristic, steps, final = _heuristic_rounds(8, 500)
    states, acts, seats = [], [], []
    for k in range(0, len(steps), 7):  # positions all along the rounds
        st, a, done, cur, _ = steps[k]
        live = np.flatnonzero(~done)
        states.append(st[live])
        acts.append(a[live])
        seats.append(np.stack([live, cur[live]], 1))
    seats_of = np.concatenate(seats)
    win, points = rollout_figures(RAMI.module, heuristic, np.concatenate(states),
                                  np.concatenate(acts).astype(np.int64), seats_of[:, 1].astype(np.int64))
    game, seat = seats_of[:, 0], seats_of[:, 1]
    winner = final["winner"][game]
    expected = np.where(winner == seat, 1.0, np.where(winner < 0, 0.0, -1.0 / 3))
    assert len(win) > 50
    np.testing.assert_allclose(win, expected, atol=1e-6)
    np.testing.assert_array_equal(points, final["round_points"][game, seat])


def test_each_hints_figures_are_how_its_round_ended(labelled):
    """The labelled seat plays the heuristic's moves: the hint's figures are the round's
    end (the winner, the points the seat held), and the other moves' are their rollouts."""
    res, path = labelled
    assert res["rounds"] == 16 and res["positions"] > 100
    d = np.load(path)
    pos, act, hint = d["position"], d["action"], d["hint"]
    heuristic, steps, final = _heuristic_rounds(16, 3 * 10_000_000)
    winner, points = final["winner"], final["round_points"]
    rows = np.flatnonzero(act == hint[pos])
    assert len(rows) == len(hint)  # one row of the heuristic's move per position
    for r in rows:
        game = int(d["match"][pos[r]] - 3 * 10_000_000)
        seat = game % 4
        expected = 1.0 if winner[game] == seat else (0.0 if winner[game] < 0 else -1.0 / 3)
        assert float(d["win"][r]) == pytest.approx(expected, abs=1e-3)
        assert int(d["points"][r]) == points[game, seat]
    # and another move changes the outcome somewhere (the labels say something)
    assert (d["win"] != d["win"][rows[pos]]).any()
    # the other moves' figures are their rollouts: those of the first round's positions
    first = np.flatnonzero(d["match"] == 3 * 10_000_000)
    mine = [(st[0:1], a[0]) for st, a, done, cur, legal in steps if not done[0] and cur[0] == 0 and legal[0] > 1]
    assert len(mine) == len(first)
    states, actions, rows = [], [], []
    for p, (st, a) in zip(first, mine, strict=True):
        assert hint[p] == a
        others = np.flatnonzero((pos == p) & (act != a))
        states += [st] * len(others)
        actions += list(act[others])
        rows += list(others)
    win, pts = rollout_figures(RAMI.module, heuristic, np.concatenate(states), np.array(actions, np.int64),
                               np.zeros(len(actions), np.int64))
    np.testing.assert_allclose(win, d["win"][rows].astype(np.float32), atol=1e-3)
    np.testing.assert_array_equal(pts, d["points"][rows])


def test_a_policy_in_the_labelled_seat_plays_its_moves_and_they_are_the_hints(tmp_path):
    """In the later iterations the labelled seat plays the previous scorer's moves: every
    hint is the scorer's move in its position, and every move, the hint too, is valued by
    its rollout with heuristic players after it (not by how the round went on, where the
    scorer played on)."""
    scorer = make_agent("scorer", RAMI, options=OPTIONS)
    first = 5 * 10_000_000 + 40
    res = label_rows(4, {}, 1e9, 5, 8, str(tmp_path / "w"), max_rounds=8, policy=scorer, first_round=40)
    d = np.load(tmp_path / "w.0.npz")
    assert res["positions"] == len(d["hint"]) > 20 and d["match"].min() >= first
    # the rounds again, the scorer in the labelled seat: its moves are the hints
    replay = _scorer_seat_rounds(scorer, first, 8, 8)
    assert replay["played"] == list(zip(d["match"].tolist(), d["hint"].tolist(), strict=True))
    _assert_hints_are_their_rollouts(d, replay["states"], first)


def _scorer_seat_rounds(scorer, first: int, rounds: int, batch: int) -> dict:
    """Rounds of seeds ``first``.. replayed as label_rows plays them (``batch`` at a time,
    the seats rotated), the scorer in the labelled seat: at each of its positions with
    more than one legal action, (round seed, move played), the heuristic's move there,
    the legal count and the state (a copy); and the seat's points at each round's end."""
    heuristic = make_agent("heuristic", RAMI, options=OPTIONS)
    out: dict[str, list] = {k: [] for k in ("played", "heuristic", "legal", "states", "round_points")}
    for start in range(0, rounds, batch):
        seat = (np.arange(batch) + start) % 4
        env = VecEnv(RAMI, batch, auto_reset=False, auto_play_forced=True, **OPTIONS)
        st = env.reset(seeds=np.arange(first + start, first + start + batch))
        done = np.zeros(batch, bool)
        while not done.all():
            a = heuristic.act_batch(st.observation, st.legal_action_mask)
            mine = np.flatnonzero(~done & (st.current_player == seat))
            h = a[mine].copy()
            a[mine] = scorer.act_batch(st.observation[mine], st.legal_action_mask[mine])
            for i, hi in zip(mine, h, strict=True):
                if st.legal_action_mask[i].sum() > 1:
                    out["played"].append((first + start + i, a[i]))
                    out["heuristic"].append(hi)
                    out["legal"].append(st.legal_action_mask[i].sum())
                    out["states"].append(env.states[i:i + 1].copy())
            a[done] = 0
            st = env.step(a)
            done |= st.terminated | st.truncated
        out["round_points"].append(env.states["round_points"][np.arange(batch), seat])
    return out


def _assert_hints_are_their_rollouts(d, states: list, first: int) -> np.ndarray:
    """Each position's move played (its hint row of shard ``d``) has the figures of its own
    rollout from ``states`` (heuristic players after it); returns the rollouts' points."""
    heuristic = make_agent("heuristic", RAMI, options=OPTIONS)
    pos, act, hint = d["position"], d["action"], d["hint"]
    rows = np.flatnonzero(act == hint[pos])
    assert np.array_equal(pos[rows], np.arange(len(hint)))
    win, points = rollout_figures(RAMI.module, heuristic, np.concatenate(states), hint.astype(np.int64),
                                  ((d["match"] - first) % 4).astype(np.int64))
    np.testing.assert_allclose(d["win"][rows].astype(np.float32), win, atol=1e-3)
    np.testing.assert_array_equal(d["points"][rows], points)
    return points


def test_the_move_played_is_valued_by_the_heuristic_rollout_where_the_round_leaves_the_heuristic(tmp_path):
    """With the scorer in the labelled seat and one drawn action, the heuristic's move is
    labelled besides where the scorer played another (so a position has three rows, or
    two with two legal actions), and the move played is not played out: it takes the
    figures of the heuristic's move at the seat's next position where they differ (or of
    the round's end), which equal its own rollout's (checked here by playing it out)."""
    scorer = make_agent("scorer", RAMI, options=OPTIONS)
    first = 5 * 10_000_000 + 48
    label_rows(4, {}, 1e9, 5, 4, str(tmp_path / "w"), max_rounds=8, policy=scorer, first_round=48,
               actions_per_position=1)  # two batches of 4 rounds
    d = np.load(tmp_path / "w.0.npz")
    replay = _scorer_seat_rounds(scorer, first, 8, 4)
    assert replay["played"] == list(zip(d["match"].tolist(), d["hint"].tolist(), strict=True))
    heur, legal, hint, pos, act = (np.array(replay["heuristic"]), np.array(replay["legal"]), d["hint"],
                                   d["position"], d["action"])
    assert len(hint) > 20
    differs = heur != hint
    assert differs.any() and (~differs).any() and (differs & (legal > 2)).any()
    assert np.array_equal(np.bincount(pos, minlength=len(hint)), np.minimum(legal, 2 + differs))
    labelled = set(zip(pos.tolist(), act.tolist(), strict=True))
    assert all((i, heur[i]) in labelled for i in np.flatnonzero(differs))
    points = _assert_hints_are_their_rollouts(d, replay["states"], first)
    # where a later position differs, the round's end is not the figure: the chain is needed
    round_end = np.concatenate(replay["round_points"])[d["match"] - first]
    assert (points != round_end).any()


def test_with_the_heuristic_in_the_labelled_seat_the_policys_move_is_labelled_besides(tmp_path):
    """``policy_plays=False`` (``labelled_seat="heuristic"``, a trial's setting): the labelled
    seat plays the heuristic's moves, so the rounds, positions and hints are those of a
    labelling without a policy; in each position the policy's move, where it is not the
    hint, is played out besides the hint and one drawn action (neither of the two), each
    valued by its rollout with heuristic players after it."""
    scorer = make_agent("scorer", RAMI, options=OPTIONS)
    first = 6 * 10_000_000 + 16
    label_rows(4, {}, 1e9, 6, 8, str(tmp_path / "plain"), max_rounds=8, first_round=16, actions_per_position=1)
    label_rows(4, {}, 1e9, 6, 8, str(tmp_path / "w"), max_rounds=8, policy=scorer, first_round=16,
               actions_per_position=1, policy_plays=False)
    plain, d = np.load(tmp_path / "plain.0.npz"), np.load(tmp_path / "w.0.npz")
    assert np.array_equal(plain["hint"], d["hint"]) and np.array_equal(plain["match"], d["match"])
    pos, act, hint = d["position"], d["action"], d["hint"].astype(np.int64)
    is_hint = act == hint[pos]
    hint_rows, plain_hint_rows = np.flatnonzero(is_hint), np.flatnonzero(plain["action"] == hint[plain["position"]])
    assert np.array_equal(pos[hint_rows], np.arange(len(hint)))  # the hint's figures: how the round ended
    np.testing.assert_array_equal(d["win"][hint_rows], plain["win"][plain_hint_rows])
    np.testing.assert_array_equal(d["points"][hint_rows], plain["points"][plain_hint_rows])
    # the positions again: the scorer's move in each, and its rollout
    env = VecEnv(RAMI, 8, auto_reset=False, auto_play_forced=True, **OPTIONS)
    st = env.reset(seeds=np.arange(first, first + 8))
    heuristic = make_agent("heuristic", RAMI, options=OPTIONS)
    seat = np.arange(8) % 4
    done = np.zeros(8, bool)
    states, picks, legal = [], [], []
    while not done.all():
        counts = st.legal_action_mask.sum(1)
        for i in np.flatnonzero(~done & (st.current_player == seat) & (counts > 1)):
            states.append(env.states[i:i + 1].copy())
            picks.append(int(scorer.act_batch(st.observation[i:i + 1], st.legal_action_mask[i:i + 1])[0]))
            legal.append(int(counts[i]))
        a = heuristic.act_batch(st.observation, st.legal_action_mask)
        a[done] = 0
        st = env.step(a)
        done |= st.terminated | st.truncated
    assert len(picks) == len(hint) > 20
    picks, legal = np.array(picks), np.array(legal)
    differ = picks != hint
    assert (~differ).any() and (differ & (legal == 2)).any() and (differ & (legal > 2)).any()
    rows_per_position = np.bincount(pos, minlength=len(hint))
    np.testing.assert_array_equal(rows_per_position, np.where(differ & (legal > 2), 3, 2))
    pick_rows = np.array([np.flatnonzero((pos == k) & (act == picks[k]))[0] for k in np.flatnonzero(differ)])
    win, points = rollout_figures(RAMI.module, heuristic, np.concatenate(states)[differ], picks[differ],
                                  seat[d["match"][differ] - first].astype(np.int64))
    np.testing.assert_allclose(d["win"][pick_rows].astype(np.float32), win, atol=1e-3)
    np.testing.assert_array_equal(d["points"][pick_rows], points)


def test_a_warm_fit_goes_on_from_its_scorer(labelled):
    """A later iteration's fit starts from the previous scorer (weights and scaling): with
    a learning rate of about 0 it gives that scorer back."""
    _, path = labelled
    data = load_rows([path], 0.5)
    init = make_agent("scorer", RAMI, options=OPTIONS).scorer
    cfg = ScorerConfig(epochs=1, minibatch=256, torch_threads=1, warm_learning_rate=1e-12)
    scorer, _ = fit_scorer(data, cfg, RAMI.env_id, 4, 1e9, init=init)
    X = data["x"][:500].astype(np.float32)
    np.testing.assert_allclose(scorer.scores(X), init.scores(X), atol=1e-5)
    assert np.array_equal(scorer.mean, init.mean) and np.array_equal(scorer.std, init.std)
    cold, _ = fit_scorer(data, ScorerConfig(epochs=1, minibatch=256, torch_threads=1), RAMI.env_id, 4, 1e9)
    assert not np.allclose(cold.scores(X), init.scores(X), atol=1e-3)
    with pytest.raises(ValueError, match="init: the scorer's layers"):  # another shape of network
        fit_scorer(data, ScorerConfig(epochs=1, hidden=(64,), torch_threads=1), RAMI.env_id, 4, 1e9, init=init)


@pytest.mark.parametrize("first_round, max_rounds", [(-1, 8), (10_000_000 - 4, 8), (True, 8), (2.0, 8)])
def test_label_rows_refuses_round_seeds_outside_its_block(tmp_path, first_round, max_rounds):
    with pytest.raises(ValueError, match="first_round"):
        label_rows(4, {}, 1e9, 5, 8, str(tmp_path / "w"), max_rounds=max_rounds, first_round=first_round)


def test_drawn_actions_are_rows_of_the_full_labels(labelled, tmp_path):
    """With ``actions_per_position`` k each position keeps the move played and k other
    legal actions (all of them where it has fewer), drawn reproducibly: the same rows, inputs
    and figures as the labels of every legal action of the same rounds."""
    _, path = labelled
    full = np.load(path)
    label_rows(4, {}, 1e9, 3, 16, str(tmp_path / "k"), max_rounds=16, actions_per_position=2)
    label_rows(4, {}, 1e9, 3, 16, str(tmp_path / "again"), max_rounds=16, actions_per_position=2)
    d, again = np.load(tmp_path / "k.0.npz"), np.load(tmp_path / "again.0.npz")
    for k in d.files:
        assert np.array_equal(d[k], again[k]), k
    assert np.array_equal(d["hint"], full["hint"]) and np.array_equal(d["match"], full["match"])
    legal = np.bincount(full["position"])
    kept = np.bincount(d["position"], minlength=len(legal))
    assert np.array_equal(kept, np.minimum(legal, 3)) and (legal > 3).any()
    assert all((d["action"][d["position"] == i] == d["hint"][i]).sum() == 1 for i in range(len(legal)))
    rows = {(p, a): r for r, (p, a) in enumerate(zip(full["position"].tolist(), full["action"].tolist(), strict=True))}
    at = [rows[(p, a)] for p, a in zip(d["position"].tolist(), d["action"].tolist(), strict=True)]
    for k in ("x", "win", "points"):
        assert np.array_equal(d[k], full[k][at]), k
    # drawn, not the first legal ones: where more than two could be, others were drawn too
    firsts = [set(full["action"][(full["position"] == i) & (full["action"] != full["hint"][i])][:2].tolist())
              == set(d["action"][(d["position"] == i) & (d["action"] != d["hint"][i])].tolist())
              for i in np.flatnonzero(legal > 3)]
    assert not all(firsts)
    assert load_rows([tmp_path / "k.0.npz"], 0.5)["hint_row"].min() >= 0
    with pytest.raises(ValueError, match="actions_per_position"):
        label_rows(4, {}, 1e9, 3, 16, str(tmp_path / "bad"), max_rounds=16, actions_per_position=-1)


def test_labels_are_reproducible_and_the_target_adds_the_points(labelled, tmp_path):
    res, path = labelled
    again = label_rows(4, {}, 1e9, 3, 16, str(tmp_path / "w"), max_rounds=16)
    assert again["positions"] == res["positions"]
    a = np.load(path)
    for k, v in np.load(tmp_path / "w.0.npz").items():
        assert np.array_equal(a[k], v), k
    label_rows(4, {}, 1e9, 4, 8, str(tmp_path / "other"), max_rounds=8)  # another shard, other rounds
    b = np.load(tmp_path / "other.0.npz")
    data = load_rows([path, tmp_path / "other.0.npz"], points_weight=0.5)
    n = len(a["x"])
    assert len(data["x"]) == n + len(b["x"]) and data["pos"][n] == len(a["hint"])  # numbered across shards
    assert np.allclose(data["y"][:n], a["win"].astype(np.float32) - 0.005 * a["points"])
    hint_rows = data["hint_row"]
    assert np.array_equal(data["pos"][hint_rows], data["pos"])  # in its own position
    assert (hint_rows[n:] >= n).all()
    assert np.array_equal(np.concatenate([a["action"], b["action"]])[hint_rows],
                          np.concatenate([a["hint"], b["hint"]])[data["pos"]])
    assert np.array_equal(data["match"], np.concatenate([a["match"], b["match"]]))


def test_the_fit_learns_each_moves_target_over_the_heuristics():
    """Positions whose moves all share one target (a lost or won deal, whatever the move)
    teach nothing: the fit learns the differences, so its loss goes to about 0."""
    rng = np.random.default_rng(0)
    positions, per = 400, 5
    pos = np.repeat(np.arange(positions), per)
    x = rng.normal(size=(positions * per, NUM_FEATURES)).astype(np.float16)
    x[:, KIND_OFFSET:KIND_OFFSET + len(KINDS)] = 0
    x[:, KIND_OFFSET + KINDS.index("discard")] = 1
    y = np.repeat(rng.choice([1.0, -1.0 / 3], positions), per).astype(np.float32)
    data = {"x": x, "y": y, "win": y, "pos": pos, "hint_row": pos * per, "match": np.arange(positions)}
    _, figures = fit_scorer(data, ScorerConfig(epochs=3, minibatch=100, torch_threads=1), RAMI.env_id, 4, 1e9)
    assert figures[-1]["loss"] < 0.05  # the deals' outcomes alone would leave about 0.4


def random_rows(positions: int = 400, per: int = 5) -> dict[str, np.ndarray]:
    """Rows of random inputs and targets, ``per`` a position, the first of each the move
    played: what the fit's pacing reads (load_rows' keys)."""
    rng = np.random.default_rng(1)
    pos = np.repeat(np.arange(positions), per)
    y = rng.normal(size=positions * per).astype(np.float32)
    return {"x": rng.normal(size=(positions * per, NUM_FEATURES)).astype(np.float16), "y": y, "win": y,
            "pos": pos, "hint_row": pos * per, "match": np.arange(positions)}


@pytest.mark.parametrize("seconds, minibatch, epochs, last_rate", [
    (1e9, 8, 3, 0.05),  # the budget holds every epoch; the rate ends at its floor
    # about 500 minibatches in the 11 s left at the pace of the first 50 (1 s: the fake
    # clock below ticks once a reading; 10 % more for the epochs' ends): two epochs and
    # part of a third, and the rate ends at its floor all the same
    (12.0, 8, 3, 0.05),
    (1e-6, 8, 1, None),  # the first 50 minibatches at least, on the schedule of three epochs
    # 4 minibatches an epoch, fewer than the pace is timed over: the plan comes at the end
    # of the first epoch, and over 12 steps the last rate is 1/12 of the first
    (1e9, 400, 3, 1 / 12),
    (1e-6, 400, 1, 9 / 12),  # the one epoch ran on the schedule of three, not replanned
])
def test_the_fit_plans_its_epochs_so_the_rate_falls_within_the_budget(monkeypatch, seconds, minibatch, epochs,
                                                                       last_rate):
    """After its first minibatches the fit plans the minibatches the rest of the budget
    holds (those first ones at least, cfg.epochs epochs at most; the last epoch may be
    part of one): the learning rate reaches its floor, 5 %, at the end of the last one.
    The clock ticks one second a reading."""
    clock = iter(range(10**6))
    monkeypatch.setattr(card_scorer, "time", SimpleNamespace(perf_counter=lambda: float(next(clock))))
    data = random_rows()
    cfg = ScorerConfig(epochs=3, minibatch=minibatch, torch_threads=1)
    trained_rows = int((~is_held_match(data["match"], cfg.seed)).sum()) * 5
    assert minibatch == 8 or trained_rows // minibatch == 4  # the 4 minibatches the rates above assume
    _, figures = fit_scorer(data, cfg, RAMI.env_id, 4, seconds)
    assert len(figures) == epochs
    if last_rate is None:  # the rate of the 50th of 3 epochs' minibatches
        last_rate = 1 - 49 / (3 * (trained_rows // minibatch))
    assert figures[-1]["learning_rate"] == pytest.approx(cfg.learning_rate * last_rate)
    shares = [f["share_of_epoch"] for f in figures]
    assert shares[:-1] == [1.0] * (epochs - 1)
    if minibatch == 8 and seconds < 1e9:  # the budget ran out within the last epoch
        assert 0 < shares[-1] < 1
        if seconds < 1:
            assert shares[-1] == pytest.approx(50 / (trained_rows // 8))
    else:
        assert shares[-1] == 1.0
    if epochs > 1:
        assert figures[0]["learning_rate"] > 0.3 * cfg.learning_rate


@pytest.mark.parametrize("seconds, shares", [
    # planned at 0.022 s a minibatch (with the epochs' ends), 499 minibatches: the first
    # epoch's 450 overran the budget, and the fit stops there, at the rate of its 450th
    (12.0, [1.0]),
    # planned: 3 epochs (1,350 minibatches); replanned after the first at 31 s for 450,
    # 1,001 in all, so the third epoch is 101 of its 450 and the rate ends at its floor
    (70.0, [1.0, 1.0, 101 / 450]),
    (float("inf"), [1.0, 1.0, 1.0]),  # no budget: the 3 epochs as planned
])
def test_the_fit_replans_after_each_epoch_at_the_pace_so_far(monkeypatch, seconds, shares):
    """The first minibatches can run faster than the later ones (here: 1 s for the first
    50, then 30 s an epoch): planned from them alone, the fit would run its 3 epochs
    (about 90 s). After each epoch it plans again at the pace so far, and keeps the
    budget but for the epoch under way. The clock: 0, 1, 2 s at the fit's start, its
    first minibatch and its 50th, then 30 s more at each epoch's end."""
    clock = iter([0.0, 1.0, 2.0] + [2.0 + 30.0 * k for k in range(1, 100)])
    monkeypatch.setattr(card_scorer, "time", SimpleNamespace(perf_counter=lambda: next(clock)))
    data = random_rows()
    cfg = ScorerConfig(epochs=3, minibatch=4, torch_threads=1)
    per_epoch = int((~is_held_match(data["match"], cfg.seed)).sum()) * 5 // 4
    assert per_epoch == 450  # the plan comes within the first epoch
    _, figures = fit_scorer(data, cfg, RAMI.env_id, 4, seconds)
    assert [f["share_of_epoch"] for f in figures] == pytest.approx(shares)
    last_rate = 1 - 449 / 499 if len(shares) == 1 else 0.05
    assert figures[-1]["learning_rate"] == pytest.approx(last_rate * cfg.learning_rate)


def test_held_out_rounds_are_chosen_by_their_seed_alone():
    """A round held out of one fit is held out of every fit of the run, whatever the other
    rounds of its labels (a fit reads several iterations' labels)."""
    rounds = np.arange(10**6, 10**6 + 50_000)
    held = is_held_match(rounds, 4)
    assert 0.09 < held.mean() < 0.11
    assert np.array_equal(is_held_match(rounds[::7], 4), held[::7])
    assert not np.array_equal(is_held_match(rounds, 5), held)  # the run's seed draws another tenth


def test_the_numpy_scorer_computes_what_the_torch_networks_do():
    torch.manual_seed(0)
    nets = torch.nn.ModuleList(torch.nn.Sequential(torch.nn.Linear(NUM_FEATURES, 8), torch.nn.Tanh(),
                                                   torch.nn.Linear(8, 5), torch.nn.Tanh(), torch.nn.Linear(5, 1))
                               for _ in range(2))
    groups = [0, 0, 0, 0, 1, 1, 0, 1]
    rng = np.random.default_rng(1)
    mean, std = rng.normal(size=NUM_FEATURES), rng.uniform(0.5, 2, NUM_FEATURES)
    meta = {"format": SCORER_FORMAT, "env_id": RAMI.env_id, "num_players": 4, "options": {}, "groups": groups}
    scorer = scorer_network(nets, meta, mean, std)
    X = rng.normal(size=(64, NUM_FEATURES)).astype(np.float32)
    X[:, KIND_OFFSET:KIND_OFFSET + len(KINDS)] = np.eye(len(KINDS))[np.arange(64) % len(KINDS)]
    inp = torch.from_numpy((X - mean.astype(np.float32)) / std.astype(np.float32))
    kind = np.arange(64) % len(KINDS)
    with torch.no_grad():
        expected = np.array([nets[groups[k]](inp[i:i + 1]).item() for i, k in enumerate(kind)])
    assert np.allclose(scorer.scores(X), expected, atol=1e-5)


def test_rows_read_the_kind_and_the_card_of_each_legal_action():
    env = make_vec("rami51", 8, seed=4, **OPTIONS)
    st = env.reset()
    for _ in range(30):
        masks = st.legal_action_mask
        X, pos, act = rows_of(st.observation, masks)
        multi = masks.sum(1) > 1
        assert len(X) == masks[multi].sum() and X.shape[1] == NUM_FEATURES
        assert set(pos) == set(np.flatnonzero(multi))
        kinds = X[:, KIND_OFFSET:KIND_OFFSET + len(KINDS)]
        assert (kinds.sum(1) == 1).all()
        discard = act >= RAMI.module.rules.DISCARD0
        assert (kinds[discard, KINDS.index("discard")] == 1).all()
        st = env.step(np.array([np.flatnonzero(m)[0] if m.any() else 0 for m in masks]))


def _penalty(c):
    return 20 if c == 52 else (11 if c < 4 else min(c // 4 + 1, 10))


def _fits_meld(o, m, c):
    """Natural card c against table meld m of observation o (the meld's layout, read here)."""
    g = RAMI.module.rules
    b = g.OBS_MELDS + m * g.MELD_FEATURES
    r, t = c // 4, c % 4
    if o[b] == 1:
        return o[b + 2] == r and o[b + 8 + t] == 0 and o[b + 5] < 4
    if o[b + 1] == 1 and o[b + 2] == t:
        lo, hi = o[b + 3], o[b + 4]
        return r == lo - 1 or r == hi + 1 or (r == 0 and hi == 12 and lo > 0)
    return False


def _hand_after(o, a):
    """The four inputs on the hand action a leaves, from observation o: its naturals and
    jokers once the action is applied here, then the cards no meld could hold (with the
    jokers, two at most), their penalty, the cards melds could hold with no joker, one.
    It checks which hand each action leaves and the sums; what melds could hold comes from
    ``coverage``, as in the kernel (test_melds.py checks it against brute force)."""
    g = RAMI.module.rules
    hand = o[g.OBS_HAND:g.OBS_HAND + 53].astype(np.int64)
    naturals, jokers = hand.copy(), int(hand[52])
    naturals[52] = 0
    top = int(np.argmax(o[g.OBS_TOP:g.OBS_TOP + 53]))
    if a == g.TAKE_DISCARD:
        if top == 52:
            jokers += 1
        else:
            naturals[top] += 1
    elif g.ADD0 <= a < g.JOKER0:
        naturals[a - g.ADD0] -= 1
    elif g.JOKER0 <= a < g.CLOSE or a == g.DISCARD0 + 52:
        jokers -= 1
    elif a >= g.DISCARD0:
        naturals[a - g.DISCARD0] -= 1

    def held_by_melds(with_jokers):
        bits = int(coverage(g.RULES, naturals, np.int64(with_jokers)))
        return {c for c in range(52) if bits >> c & 1}

    dead = [c for c in range(52) if naturals[c] > 0 and c not in held_by_melds(min(jokers, 2))]
    return [sum(naturals[c] for c in dead) / 14, sum(_penalty(c) * naturals[c] for c in dead) / 100,
            len(held_by_melds(0)) / 14, len(held_by_melds(1)) / 14]


def test_the_hand_and_action_inputs_read_the_observation():
    """The inputs after the first 61 (the hand as a whole and the turn, the unseen copies of
    a card's partners, the table meld picked, the joker flag, the hand the action leaves),
    recomputed here from the observation's layout over the positions of heuristic rounds."""
    g = RAMI.module.rules
    assert NUM_FEATURES == 86
    hand_at, extra_at, after_at = NUM_FEATURES - 25, NUM_FEATURES - 12, NUM_FEATURES - 4
    env = make_vec("rami51", 16, seed=9, **OPTIONS)
    heuristic = make_agent("heuristic", RAMI, options=OPTIONS)
    st = env.reset()
    seen = {"pick": 0, "joker": 0, "pending": 0, "build": 0, "take": 0, "joker discarded": 0}
    for _ in range(400):
        obs, masks = st.observation, st.legal_action_mask
        X, pos, act = rows_of(obs, masks)
        for x, i, a in zip(X, pos, act, strict=True):
            o = obs[i].astype(np.int64)
            hand = o[g.OBS_HAND:g.OBS_HAND + 53]
            assert np.isclose(x[hand_at + 2], sum(_penalty(c) * hand[c] for c in range(53)) / 100)
            assert np.isclose(x[hand_at + 4], hand[52] / 2)
            assert np.isclose(x[hand_at + 8], o[g.OBS_PENDING:g.OBS_PENDING + 53].sum())
            seen["pending"] += x[hand_at + 8] > 0
            assert np.isclose(x[hand_at + 9], o[g.OBS_TURN + 5] / 30)
            others = [o[g.OBS_SEATS + j * g.SEAT_FEATURES + 1] for j in (1, 2, 3)]
            assert np.isclose(x[hand_at + 10], min(others) / 14)
            assert x[hand_at + 5] == o[g.OBS_TURN + 1] and np.isclose(x[hand_at + 6], o[g.OBS_TURN + 2] / 3)
            opened = o[g.OBS_SEATS + 2]
            assert np.isclose(x[hand_at + 7], 0 if opened else max(o[g.OBS_TURN + 3] - o[g.OBS_TURN], 0) / 51)
            melds = sum(o[g.OBS_MELDS + m * g.MELD_FEATURES] + o[g.OBS_MELDS + m * g.MELD_FEATURES + 1]
                        for m in range(g.MAX_MELDS))
            assert np.isclose(x[hand_at + 11], melds / 10)
            build = sum(min(c // 4 + 1, 10) if c >= 4 else 11 for c in range(52) if o[g.OBS_BUILD + c] > 0)
            assert np.isclose(x[hand_at + 12], build / 30)
            if a >= g.DISCARD0 and a - g.DISCARD0 < 52:  # the melds' worth, as the card's own inputs have it
                assert np.isclose(x[hand_at], x[23])
            seen["build"] += x[hand_at + 12] > 0
            card = (a - g.ADD0 if g.ADD0 <= a < g.CLOSE and a < g.JOKER0 else a - g.JOKER0 if g.JOKER0 <= a < g.CLOSE
                    else a - g.DISCARD0 if a >= g.DISCARD0 else int(np.argmax(o[g.OBS_TOP:g.OBS_TOP + 53]))
                    if a == g.TAKE_DISCARD else -1)
            if 0 <= card < 52:  # two decks at 4 players
                r, t = card // 4, card % 4
                left = [max(2 - o[g.OBS_HAND + k] - o[g.OBS_PILE + k] - o[g.OBS_TABLE + k], 0) for k in range(52)]
                run = {}  # run positions: the ace is 0 below the 2 and 13 above the king
                for d in (-2, -1, 1, 2):
                    q = (13 if r == 0 and d < 0 else 0) + r + d
                    if 0 <= q <= 13:
                        run[d] = 0 if q == 13 else q
                assert np.isclose(x[extra_at], sum(left[r * 4 + u] for u in range(4) if u != t) / 6)
                assert np.isclose(x[extra_at + 1], sum(left[q * 4 + t] for d, q in run.items() if abs(d) == 1) / 4)
                assert np.isclose(x[extra_at + 2], sum(left[q * 4 + t] for d, q in run.items() if abs(d) == 2) / 4)
            else:
                assert (x[extra_at:extra_at + 3] == 0).all()
            if g.LAYOFF0 <= a < g.ADD0:
                m = a - g.LAYOFF0
                b = g.OBS_MELDS + m * g.MELD_FEATURES
                fit = sum(1 for c in range(52) if hand[c] > 0 and _fits_meld(o, m, c))
                assert np.allclose(x[extra_at + 3:extra_at + 7], [o[b + 5] / 13, o[b + 1], o[b + 6] == 1, fit / 4])
                seen["pick"] += 1
            else:
                assert (x[extra_at + 3:extra_at + 7] == 0).all()
            assert x[extra_at + 7] == (g.JOKER0 <= a < g.CLOSE)
            seen["joker"] += g.JOKER0 <= a < g.CLOSE
            assert np.allclose(x[after_at:], _hand_after(o, a)), (a, x[after_at:], _hand_after(o, a))
            seen["take"] += a == g.TAKE_DISCARD
            seen["joker discarded"] += a == g.DISCARD0 + 52
        for i in np.unique(pos):  # the position's inputs are the same for each of its actions
            assert (X[pos == i, hand_at:extra_at] == X[pos == i][0, hand_at:extra_at]).all()
        st = env.step(heuristic.act_batch(obs, masks))
        if (st.terminated | st.truncated).all():
            break
    assert min(seen.values()) > 0, seen  # every kind of input was met


def test_the_hand_after_taking_a_discard_top_already_held_or_a_joker():
    """The take's row of the hand the action leaves, in the cases heuristic rounds seldom
    meet: a discard top the hand already holds, and a joker on top (none held, one held)."""
    g = RAMI.module.rules
    env = make_vec("rami51", 8, seed=4, **OPTIONS)
    heuristic = make_agent("heuristic", RAMI, options=OPTIONS)
    st = env.reset()
    while not st.legal_action_mask[:, g.TAKE_DISCARD].any():
        st = env.step(heuristic.act_batch(st.observation, st.legal_action_mask))
    base = st.observation[np.flatnonzero(st.legal_action_mask[:, g.TAKE_DISCARD])[0]].copy()
    variants = []
    for top in range(53):  # each card on top, held (a joker: also none held)
        for held in ((0, 1) if top == 52 else (max(base[g.OBS_HAND + top], 1),)):
            o = base.copy()
            o[g.OBS_TOP:g.OBS_TOP + 53] = 0
            o[g.OBS_TOP + top] = 1
            o[g.OBS_HAND + top] = held
            variants.append(o)
    masks = np.zeros((len(variants), g.NUM_ACTIONS), bool)
    masks[:, [g.DRAW_STOCK, g.TAKE_DISCARD]] = True
    X, pos, act = rows_of(np.array(variants), masks)
    assert len(X) == 2 * len(variants)
    for x, i, a in zip(X, pos, act, strict=True):
        assert np.allclose(x[NUM_FEATURES - 4:], _hand_after(variants[i].astype(np.int64), a))
    # the take's hand is not the hand as it is: the taken copy counts
    take, keep = X[act == g.TAKE_DISCARD, NUM_FEATURES - 4:], X[act == g.DRAW_STOCK, NUM_FEATURES - 4:]
    assert (take[:52, 0] > keep[:52, 0]).any()


def fitted(labelled, seed=0, epochs=1):
    _, path = labelled
    cfg = ScorerConfig(seed=seed, epochs=epochs, torch_threads=1, minibatch=256)
    return fit_scorer(load_rows([path], cfg.points_weight), cfg, RAMI.env_id, 4, 1e9)


def test_the_fit_is_reproducible_and_its_scorer_plays_legal_moves(labelled, tmp_path):
    scorer, figures = fitted(labelled, epochs=2)
    again, _ = fitted(labelled, epochs=2)
    assert len(figures) == 2 and all(np.isfinite(f["loss"]) for f in figures)
    for w, v in zip(scorer.weights, again.weights, strict=True):
        assert all(np.array_equal(x, y) for x, y in zip(w, v, strict=True))
    scorer.save(tmp_path / "s.npz")
    agent = make_agent(f"scorer:{tmp_path / 's.npz'}", RAMI, options=OPTIONS)
    env = make_vec("rami51", 32, seed=2, illegal_action="raise", **OPTIONS)
    st = env.reset()
    for _ in range(300):  # auto-reset: every phase of the round, again and again
        st = env.step(agent.act_batch(st.observation, st.legal_action_mask))
    aec = make("rami51", render_mode=None, **OPTIONS)
    aec.reset(seed=5)
    for _ in aec.agent_iter(2000):
        obs, _, term, trunc, _ = aec.last()
        action = None if term or trunc else agent.act(obs["observation"], obs["action_mask"])
        if action is not None:
            assert obs["action_mask"][action] == 1
        aec.step(action)


def test_scorer_files_and_inputs_are_checked(labelled, tmp_path):
    scorer, _ = fitted(labelled)
    agent = CardScorerAgent(RAMI, options=OPTIONS, scorer=scorer)
    obs = np.zeros((2, RAMI.module.rules.OBS_SIZE), np.int16)
    with pytest.raises(ValueError, match="observations must have shape"):
        agent.act_batch(obs[:, :-1], np.ones((2, RAMI.module.rules.NUM_ACTIONS), bool))
    with pytest.raises(ValueError, match="action masks must have shape"):
        agent.act_batch(obs, np.ones((2, 3), bool))
    with pytest.raises(ValueError, match="whole numbers within int16"):
        agent.act_batch(obs + 0.5, np.ones((2, RAMI.module.rules.NUM_ACTIONS), bool))
    with pytest.raises(ValueError, match="whole numbers within int16"):
        agent.act_batch(obs.astype(np.int64) + 40_000, np.ones((2, RAMI.module.rules.NUM_ACTIONS), bool))
    with pytest.raises(ValueError, match="whole numbers within int16"):
        agent.act_batch(np.full_like(obs, np.nan, dtype=np.float32), np.ones((2, RAMI.module.rules.NUM_ACTIONS), bool))
    with pytest.raises(ValueError, match="no legal action"):
        agent.act(obs[0], np.zeros(RAMI.module.rules.NUM_ACTIONS, bool))
    with pytest.raises(ValueError, match="no card scorer file"):
        ScorerNetwork.load(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_bytes(b"not an archive")
    with pytest.raises(ValueError, match="cannot read the card scorer file"):
        ScorerNetwork.load(tmp_path / "junk.npz")
    with pytest.raises(ValueError, match="groups"):
        ScorerNetwork({**scorer.meta, "groups": [0] * 7}, scorer.mean, scorer.std, scorer.weights)
    for bad, message in (({"options": "x"}, "options"), ({"num_players": "4"}, "num_players"),
                         ({"env_id": None}, "env_id")):
        with pytest.raises(ValueError, match=message):
            ScorerNetwork({**scorer.meta, **bad}, scorer.mean, scorer.std, scorer.weights)
    with pytest.raises(ValueError, match="finite"):
        ScorerNetwork(scorer.meta, scorer.mean * np.nan, scorer.std, scorer.weights)
    with pytest.raises(ValueError, match="finite"):
        ScorerNetwork(scorer.meta, scorer.mean, scorer.std, [[np.array([["a"]]), np.zeros(1)]])
    with pytest.raises(ValueError, match="not a card scorer"):
        ScorerNetwork({**scorer.meta, "format": "x"}, scorer.mean, scorer.std, scorer.weights)
    for earlier in ("cardenvs-scorer/1", "cardenvs-scorer/2"):  # the inputs were fewer
        with pytest.raises(ValueError, match="earlier version"):
            ScorerNetwork({**scorer.meta, "format": earlier}, scorer.mean, scorer.std, scorer.weights)
    with pytest.raises(ValueError, match="plays rami51"):
        make_agent(f"scorer:{tmp_path / 'junk.npz'}", get_spec("odin"))
    with pytest.warns(UserWarning, match="num_players=4"):
        CardScorerAgent(RAMI, options={"num_players": 3, "single_round": True}, scorer=scorer)


def test_the_shipped_scorer_is_an_agent_of_rami51():
    assert SHIPPED.is_file()
    assert "scorer" in available_agents(RAMI) and "scorer" not in available_agents(get_spec("odin"))
    agent = make_agent("scorer", RAMI, options=OPTIONS)
    assert agent.scorer.meta["num_players"] == 4 and agent.scorer.meta["options"]["single_round"] is True


def test_iterations_share_the_budget_equally_by_default():
    assert iteration_shares(ScorerConfig()) == [0.2] * 5
    assert iteration_shares(ScorerConfig(iterations=3, first_share=0.5)) == [0.5, 0.25, 0.25]
    assert iteration_shares(ScorerConfig(iterations=1, first_share=0.5)) == [1.0]


def test_scorer_config_takes_numpy_integers():
    check_config(ScorerConfig(fit_window=np.int64(2), iterations=np.int64(4)))


@pytest.mark.parametrize("settings, message", [
    ({"game": "odin"}, "Rami 51's"),
    ({"points_weight": -1.0}, "points_weight"),
    ({"groups": (0, 0, 0)}, "groups"),
    ({"groups": (0, 0, 0, 0, 0, 0, 0, 2)}, "groups"),
    ({"minutes": 5, "fit_minutes": 5}, "fit_minutes"),
    ({"options": {"single_round": False}}, "options may not set single_round"),
    ({"num_players": 5}, "num_players"),
    ({"options": {"max_steps": 100}}, "options may not set max_steps"),
    ({"seed": 2**20}, "seed"),
    ({"workers": 0}, "workers"),
    ({"iterations": 0}, "iterations"),
    ({"iterations": 21}, "iterations"),
    ({"first_share": 1.0}, "first_share"),
    ({"first_share": True}, "first_share"),
    ({"first_share": "0.5"}, "first_share"),
    ({"first_share": float("nan")}, "first_share"),
    ({"last_fit_share": 0}, "last_fit_share"),
    ({"last_fit_share": 1.0}, "last_fit_share"),
    ({"last_fit_share": "0.5"}, "last_fit_share"),
    ({"last_fit_share": float("nan")}, "last_fit_share"),
    ({"last_fit_share": True}, "last_fit_share"),
    ({"last_fit_share": -0.5}, "last_fit_share"),
    ({"minutes": "60"}, "minutes must be"),
    ({"minutes": 6, "fit_minutes": None, "last_fit_share": 2}, "last_fit_share"),
    ({"warm_learning_rate": 0}, "warm_learning_rate"),
    ({"points_weight": "0.5"}, "^points_weight"),
    ({"last_points_weight": -0.1}, "last_points_weight"),
    ({"last_points_weight": "0.1"}, "last_points_weight"),
    ({"last_points_weight": float("nan")}, "last_points_weight"),
    ({"last_points_weight": True}, "last_points_weight"),
    ({"iterations": 2.0}, "iterations"),
    ({"actions_per_position": -1}, "actions_per_position"),
    ({"fit_window": 0}, "fit_window"),
    ({"fit_window": 21}, "fit_window"),
    ({"fit_window": 2.0}, "fit_window"),
    ({"fit_window": True}, "fit_window"),
    ({"actions_per_position": 197}, "actions_per_position"),
    ({"actions_per_position": 2.0}, "actions_per_position"),
    ({"options": {"decks": 2}}, "decks"),
    ({"labelled_seat": "random"}, "labelled_seat"),
    ({"labelled_seat": None}, "labelled_seat"),
    ({"batch": 0}, "batch"),
    ({"batch": 65_537}, "batch"),
    ({"batch": 8.0}, "batch"),
    ({"whole_matches": 1}, "whole_matches"),
    ({"whole_matches": "false"}, "whole_matches"),
])
def test_scorer_config_refuses_bad_settings(settings, message):
    with pytest.raises((ValueError, TypeError), match=message):
        check_config(ScorerConfig(**settings))


def test_cli_train_by_scorer_passes_the_labelled_seat(tmp_path, monkeypatch):
    given = []
    monkeypatch.setattr(card_scorer, "run_scorer", lambda cfg, out, err: given.append(cfg))
    argv = ["train", "scorer", "rami51", "--out", str(tmp_path / "run")]
    assert main([*argv, "--labelled-seat", "heuristic"], io.StringIO(), io.StringIO()) == 0
    assert main(argv, io.StringIO(), io.StringIO()) == 0
    assert [cfg.labelled_seat for cfg in given] == ["heuristic", "scorer"]
    assert main([*argv, "--last-fit-share", "0.25"], io.StringIO(), io.StringIO()) == 0
    assert [cfg.last_fit_share for cfg in given] == [0.5, 0.5, 0.25]
    assert main([*argv, "--last-points-weight", "0.3"], io.StringIO(), io.StringIO()) == 0
    assert [cfg.last_points_weight for cfg in given] == [0.1, 0.1, 0.1, 0.3]
    assert not any(cfg.whole_matches for cfg in given)


def test_cli_train_by_scorer_whole_matches_weighs_the_points(tmp_path, monkeypatch):
    """--whole-matches: a scorer for whole matches, both points weights 5 unless given."""
    given = []
    monkeypatch.setattr(card_scorer, "run_scorer", lambda cfg, out, err: given.append(cfg))
    argv = ["train", "scorer", "rami51", "--whole-matches", "--out", str(tmp_path / "run")]
    assert main(argv, io.StringIO(), io.StringIO()) == 0
    assert main([*argv, "--points-weight", "2", "--last-points-weight", "0"], io.StringIO(), io.StringIO()) == 0
    assert [(c.whole_matches, c.points_weight, c.last_points_weight) for c in given] == [
        (True, card_scorer.MATCH_POINTS_WEIGHT, card_scorer.MATCH_POINTS_WEIGHT), (True, 2.0, 0.0)]
    assert given[0].game_options() == {"num_players": 4, "single_round": False}
    assert main([*argv, "--option", "single_round=false"], io.StringIO(), io.StringIO()) == 0  # agrees
    assert given[-1].whole_matches and given[-1].options == {}
    err = io.StringIO()
    assert main([*argv, "--option", "single_round=true"], io.StringIO(), err) == 2
    assert "--whole-matches contradicts" in err.getvalue()


def test_the_points_weights_default_to_the_episodes():
    """Set when the config is made, so that a fit called without check_config has them."""
    assert (ScorerConfig().points_weight, ScorerConfig().last_points_weight) == (0.5, 0.1)
    cfg = ScorerConfig(whole_matches=True)
    assert (cfg.points_weight, cfg.last_points_weight) == (card_scorer.MATCH_POINTS_WEIGHT,) * 2
    assert ScorerConfig(whole_matches=True, points_weight=2.0).last_points_weight == 2.0
    assert ScorerConfig(points_weight=2.0).last_points_weight == 0.1


def test_a_whole_match_scorer_labels_single_rounds_without_a_warning():
    """The labelling workers play the previous scorer in single rounds: a whole-match
    scorer there is no mistake to warn about (warnings in a worker would go unseen)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent = card_scorer.labelling_scorer(SHIPPED_MATCHES, 4, {})
    assert agent.options["single_round"] is True and agent.scorer.meta["options"]["single_round"] is True
    assert ScorerNetwork.load(SHIPPED_MATCHES).meta["options"]["single_round"] is False  # the file is as it was
    with pytest.warns(UserWarning, match="single_round=False"):  # what the helper keeps from the workers
        CardScorerAgent(RAMI, options={"num_players": 4, "single_round": True}, scorer=SHIPPED_MATCHES)


def fake_run_clock(monkeypatch, label_overrun: float, fit_use: float) -> tuple[list, list, list]:
    """run_scorer on a fake clock, without labelling, fits or evaluation: each labelling
    takes its seconds + ``label_overrun``, each fit ``fit_use`` × its seconds; returns the
    lists the seconds given to each labelling and each fit go into, and the points weight
    each fit's rows are loaded with (the fake fit asserts its scorer records that one)."""
    now = [0.0]
    monkeypatch.setattr(card_scorer, "time", SimpleNamespace(perf_counter=lambda: now[0]))
    labelled, fitted, weights = [], [], []
    shipped = ScorerNetwork.load(SHIPPED)

    def fake_label(cfg, players, seconds, labels, policy_path, iteration, t0, err):
        labelled.append(seconds)
        now[0] += seconds + label_overrun
        return [{"positions": 1, "rounds": 1, "rows": 2}]

    def fake_fit(data, cfg, env_id, players, seconds, log=None, init=None):
        assert cfg.points_weight == data["weight"]  # the scorer's file records the weight of its rows
        fitted.append(seconds)
        now[0] += fit_use * seconds
        meta = {**shipped.meta, "points_weight": cfg.points_weight, "fit": len(fitted),  # which fit made it
                "options": {**shipped.meta["options"], "single_round": not cfg.whole_matches}}
        scorer = ScorerNetwork(meta, shipped.mean, shipped.std, shipped.weights)
        return scorer, [{"epoch": 0, "share_of_epoch": 1.0, "seconds": fit_use * seconds}]

    scores = {f"{k}{ci}": 0.5 for k in ("vs_heuristic", "vs_random", "heuristic_vs_heuristic") for ci in ("", "_ci")}
    scores.update(vs_heuristic_truncated=0, vs_random_truncated=0)
    monkeypatch.setattr(card_scorer, "_label", fake_label)
    def fake_load(paths, weight):
        weights.append(weight)
        return {"match": np.zeros(1, np.int64), "weight": weight}

    monkeypatch.setattr(card_scorer, "load_rows", fake_load)
    monkeypatch.setattr(card_scorer, "fit_scorer", fake_fit)
    monkeypatch.setattr(card_scorer, "evaluate_scorer", lambda *args: dict(scores))
    return labelled, fitted, weights


@pytest.mark.parametrize("whole_matches, shares, kept", [
    (True, [0.5, 0.7, 0.6, 0.4], 2),  # a whole-match run keeps its best iteration's scorer
    (True, [0.5, 0.6, 0.6, 0.7], 4),
    (False, [0.5, 0.7, 0.6, 0.4], 4),  # a single-round run its last
])
def test_a_whole_match_run_keeps_its_best_iteration(tmp_path, monkeypatch, whole_matches, shares, kept):
    fake_run_clock(monkeypatch, label_overrun=0.0, fit_use=1.0)
    given = iter(shares)
    scores = {"vs_heuristic_ci": 0.01, "vs_random": 1.0, "vs_random_ci": 0.0, "heuristic_vs_heuristic": 0.25,
              "heuristic_vs_heuristic_ci": 0.01, "vs_heuristic_truncated": 0, "vs_random_truncated": 0}

    def fake_evaluate(spec, agent, players, options, matches, folder):
        return {**scores, "vs_heuristic": next(given, 0.1)}

    monkeypatch.setattr(card_scorer, "evaluate_scorer", fake_evaluate)
    folder = tmp_path / "run"
    out = io.StringIO()
    summary = run_scorer(ScorerConfig(minutes=6, iterations=4, whole_matches=whole_matches, out=str(folder)),
                         out=out, err=io.StringIO())
    assert summary["kept_iteration"] == kept and summary["vs_heuristic"] == shares[kept - 1]
    assert float(next(csv.DictReader(open(folder / "eval.csv")))["vs_heuristic"]) == shares[kept - 1]
    names = sorted(p.name for p in folder.glob("scorer*.npz"))
    assert names == (["scorer-1.npz", "scorer-2.npz", "scorer-3.npz", "scorer-4.npz", "scorer.npz"] if kept != 4
                     else ["scorer-1.npz", "scorer-2.npz", "scorer-3.npz", "scorer.npz"])
    assert ScorerNetwork.load(folder / "scorer.npz").meta["fit"] == kept  # the kept iteration's scorer
    for k in range(1, 5):
        if k != kept:
            assert ScorerNetwork.load(folder / f"scorer-{k}.npz").meta["fit"] == k  # the others beside it
    if kept != 4:
        assert f"iteration {kept}'s won more and is kept" in out.getvalue()


def test_the_run_keeps_its_budget_by_its_clock(tmp_path, monkeypatch):
    """Each labelling ends at its planned time from the run's start (one second at least)
    and each fit at its iteration's end: a late labelling leaves the fit, and an early fit
    leaves the next labelling, the time. A fake clock; the labelling overruns by 5 s,
    each fit spends 70 % of what it gets."""
    labelled, fitted, _ = fake_run_clock(monkeypatch, label_overrun=5.0, fit_use=0.7)
    summary = run_scorer(ScorerConfig(minutes=10, fit_minutes=2, iterations=4, last_fit_share=None,
                                      out=str(tmp_path / "run")), out=io.StringIO(), err=io.StringIO())
    # 2 minutes of labels and 0.5 of fit an iteration: labelling k ends at 150 k - 30 s
    assert labelled[0] == pytest.approx(120.0)
    assert fitted[0] == pytest.approx(25.0)  # 150 s less the 125 s the labelling took
    assert labelled[1] == pytest.approx(270.0 - 142.5)  # the first fit left 7.5 s
    assert fitted[1] == pytest.approx(25.0)
    assert labelled[2:] == pytest.approx([120.0 + 7.5] * 2) and fitted[2:] == pytest.approx([25.0] * 2)
    assert summary["elapsed"] == pytest.approx(600.0 - 7.5)


def test_the_last_fit_has_its_share_of_the_fit_minutes(tmp_path, monkeypatch):
    """The last fit gets ``last_fit_share`` of ``fit_minutes``, the earlier fits the rest
    in the labelling's proportions (``first_share``), and the labelling keeps its
    minutes. A fake clock: each labelling and fit takes exactly its time."""
    labelled, fitted, _ = fake_run_clock(monkeypatch, label_overrun=0.0, fit_use=1.0)
    out = io.StringIO()
    cfg = ScorerConfig(minutes=20, fit_minutes=4, iterations=3, first_share=0.5, last_fit_share=0.75,
                       out=str(tmp_path / "run"))
    summary = run_scorer(cfg, out=out, err=io.StringIO())
    # 16 minutes of labels: 8, 4, 4; 4 of fits: 3 for the last, the other 1 as the labelling (2 to 1)
    assert labelled == pytest.approx([480.0, 240.0, 240.0])
    assert fitted == pytest.approx([40.0, 20.0, 180.0])
    assert summary["elapsed"] == pytest.approx(1200.0)
    assert "(8 + 0.667, 4 + 0.333, 4 + 3 min)" in out.getvalue()
    assert card_scorer.fit_shares(ScorerConfig(iterations=1)) == [1.0]
    assert card_scorer.fit_shares(ScorerConfig(iterations=4, last_fit_share=None)) == [0.25] * 4
    assert card_scorer.fit_shares(ScorerConfig()) == pytest.approx([0.125] * 4 + [0.5])
    # the fit minutes default to a third of the budget: 20 of 60 (8 + 2.5 minutes an iteration, then 8 + 10)
    cfg = ScorerConfig()
    check_config(cfg)
    assert cfg.fit_minutes == pytest.approx(20.0)
    cfg = ScorerConfig(minutes=6)
    check_config(cfg)
    assert cfg.fit_minutes == pytest.approx(2.0)


@pytest.mark.parametrize("settings, weights", [
    ({"iterations": 3}, [0.5, 0.5, 0.1]),
    ({"iterations": 3, "points_weight": 0.8, "last_points_weight": 0.0}, [0.8, 0.8, 0.0]),
    ({"iterations": 3, "last_points_weight": 0.5}, [0.5, 0.5, 0.5]),
    ({"iterations": 3, "whole_matches": True}, [5.0, 5.0, 5.0]),  # whole matches: the points weigh 5
    ({"iterations": 3, "whole_matches": True, "points_weight": 2.0}, [2.0, 2.0, 2.0]),
    ({"iterations": 3, "whole_matches": True, "last_points_weight": 1.0}, [5.0, 5.0, 1.0]),
    ({"iterations": 1}, [0.5]),  # one fit, over the heuristic's positions: the points weight
])
def test_the_last_fit_weighs_the_points_by_its_own_weight(tmp_path, monkeypatch, settings, weights):
    """The last fit of a run of several iterations loads its rows with
    ``last_points_weight``, and its scorer records it; the earlier fits, or a single one,
    with ``points_weight``."""
    _, _, loaded = fake_run_clock(monkeypatch, label_overrun=0.0, fit_use=1.0)
    run_scorer(ScorerConfig(minutes=6, out=str(tmp_path / "run"), **settings), out=io.StringIO(),
               err=io.StringIO())
    assert loaded == weights


def test_cli_train_by_scorer_writes_a_scorer_that_evaluates(tmp_path):
    # the kernels a worker runs, compiled here first: their cache on disk is what the
    # workers load, so the run's clock (below) does not count a first compilation
    label_rows(4, {}, 1e9, 9, 4, str(tmp_path / "warm"), max_rounds=4, actions_per_position=1,
               policy=CardScorerAgent(RAMI, options=OPTIONS, scorer=SHIPPED))
    folder = tmp_path / "run"
    out, err = io.StringIO(), io.StringIO()
    code = main(["train", "scorer", "rami51", "--minutes", "0.1", "--fit-minutes", "0.05",
                 "--iterations", "3", "--fit-window", "2", "--workers", "1", "--eval-matches", "8", "--threads", "1",
                 "--out", str(folder)], out, err)
    assert code == 0, err.getvalue()
    for name in ("scorer.npz", "scorer-1.npz", "scorer-2.npz", "fit.csv", "eval.csv", "summary.json", "config.json"):
        assert (folder / name).is_file(), name
    if importlib.util.find_spec("matplotlib"):  # the curve of the iterations' scorers
        assert (folder / "curve.png").stat().st_size > 0
    else:
        assert "no curve.png" in err.getvalue() and not (folder / "curve.png").exists()
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["positions"] > 0 and 0 <= summary["vs_heuristic"] <= 1
    assert [x["iteration"] for x in summary["iterations"]] == [1, 2, 3]
    assert all(0 <= x["vs_heuristic"] <= 1 for x in summary["iterations"])
    # each fit reads its own labels and the previous iteration's (--fit-window 2)
    its = summary["iterations"]
    assert [x["fit_iterations"] for x in its] == [[1, 1], [1, 2], [2, 3]]
    assert [x["fit_positions"] for x in its] == [its[0]["positions"], its[0]["positions"] + its[1]["positions"],
                                                 its[1]["positions"] + its[2]["positions"]]
    assert json.loads((folder / "config.json").read_text())["fit_window"] == 2
    # the last fit's rows weigh the points by --last-points-weight (default 0.1), the others by 0.5
    assert [ScorerNetwork.load(folder / name).meta["points_weight"]
            for name in ("scorer-1.npz", "scorer-2.npz", "scorer.npz")] == [0.5, 0.5, 0.1]
    assert {row["iteration"] for row in csv.DictReader(open(folder / "fit.csv"))} == {"1", "2", "3"}
    assert ScorerNetwork.load(folder / "scorer.npz").meta["options"]["single_round"] is True
    assert summary["other_players"] == {} and summary["kept_iteration"] == 3  # single rounds: the last
    assert all(0 < float(row["share_of_epoch"]) <= 1 for row in csv.DictReader(open(folder / "fit.csv")))
    # that the run keeps its budget is checked against a fake clock
    # (test_the_run_keeps_its_budget_by_its_clock): a wall-clock bound here failed on a busy machine
    matches = []
    config = json.loads((folder / "config.json").read_text())
    assert config["actions_per_position"] == 1 and config["labelled_seat"] == "scorer"
    for k in (1, 2, 3):
        shards = sorted((folder / "labels" / f"iteration{k}").glob("worker0.*.npz"))
        assert shards
        # the move played and one drawn action a position, and the heuristic's move where the
        # scorer played another (iterations 2 and 3)
        counts = np.concatenate([np.bincount(np.load(p)["position"]) for p in shards])
        assert counts.min() == 2 and counts.max() == (2 if k == 1 else 3)
        matches.append(set(np.concatenate([np.load(p)["match"] for p in shards]).tolist()))
    assert not (matches[0] & matches[1] or matches[1] & matches[2] or matches[0] & matches[2])  # other rounds
    with pytest.raises(ValueError, match="holds a run already"):
        run_scorer(ScorerConfig(out=str(folder)), out=io.StringIO(), err=io.StringIO())
    out = io.StringIO()
    code = main(["eval", "rami51", "--agents", f"scorer:{folder / 'scorer.npz'},heuristic", "--matches", "8"],
                out, io.StringIO())
    assert code == 0 and "scorer" in out.getvalue()


def test_cli_train_by_scorer_whole_matches_writes_a_match_scorer(tmp_path):
    """A --whole-matches run labels single rounds (its second iteration with its first
    scorer in the labelled seat), writes a scorer whose file says it plays whole matches,
    and evaluates it on whole matches at its players and at the others of 2 to 4."""
    folder = tmp_path / "run"
    out, err = io.StringIO(), io.StringIO()
    code = main(["train", "scorer", "rami51", "--whole-matches", "--minutes", "0.1", "--fit-minutes", "0.05",
                 "--iterations", "2", "--workers", "1", "--eval-matches", "4", "--threads", "1",
                 "--out", str(folder)], out, err)
    assert code == 0, err.getvalue()
    assert "(4 players, whole matches)" in out.getvalue() and "card scorer, 4 matches each" in out.getvalue()
    meta = ScorerNetwork.load(folder / "scorer.npz").meta
    assert meta["options"]["single_round"] is False and meta["points_weight"] == card_scorer.MATCH_POINTS_WEIGHT
    summary = json.loads((folder / "summary.json").read_text())
    # the run keeps its best iteration's scorer (by its whole-match evaluation) as scorer.npz
    its = summary["iterations"]
    kept = summary["kept_iteration"]
    assert its[kept - 1]["vs_heuristic"] == max(x["vs_heuristic"] for x in its) == summary["vs_heuristic"]
    if kept == 1:  # the last is kept beside it
        assert (folder / "scorer.npz").read_bytes() == (folder / "scorer-1.npz").read_bytes()
        assert (folder / "scorer-2.npz").is_file()
    else:
        assert kept == 2 and not (folder / "scorer-2.npz").exists()
    assert float(next(csv.DictReader(open(folder / "eval.csv")))["vs_heuristic"]) == pytest.approx(
        summary["vs_heuristic"], abs=1e-4)
    assert set(summary["other_players"]) == {"2", "3"}
    assert all(0 <= r["vs_heuristic"] <= 1 for r in summary["other_players"].values())
    assert json.loads((folder / "config.json").read_text())["whole_matches"] is True
    for k in (1, 2):
        assert sorted((folder / "labels" / f"iteration{k}").glob("worker0.*.npz"))


def _summary_of_iterations(n: int) -> dict:
    its = [{"minutes": 2.0 * (k + 1), "positions": 1000 * (k + 1), "vs_heuristic": 0.3, "vs_heuristic_ci": 0.01,
            "vs_random": 0.9, "vs_random_ci": 0.01} for k in range(n)]
    return {"iterations": its, "heuristic_vs_heuristic": 0.25}


def test_the_curve_is_drawn_with_matplotlib(tmp_path):
    pytest.importorskip("matplotlib")
    err = io.StringIO()
    card_scorer.plot_curve(tmp_path, _summary_of_iterations(3), "rami51", 4, err)
    assert (tmp_path / "curve.png").stat().st_size > 0 and err.getvalue() == ""
    (tmp_path / "curve.png").unlink()
    card_scorer.plot_curve(tmp_path, {"iterations": [{}]}, "rami51", 4, err)  # a plot that fails is said
    assert "no curve.png" in err.getvalue() and not (tmp_path / "curve.png").exists()


def test_without_matplotlib_the_run_says_there_is_no_curve(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # not installed (or hidden so where it is)
    err = io.StringIO()
    card_scorer.plot_curve(tmp_path, _summary_of_iterations(3), "rami51", 4, err)
    assert "matplotlib is not installed" in err.getvalue() and not (tmp_path / "curve.png").exists()


@pytest.mark.parametrize("argv, message", [
    (["train", "scorer", "odin"], "Rami 51's"),
    (["train", "scorer", "rami51", "--iterations", "0"], "iterations must be"),
    (["train", "scorer", "rami51", "--actions-per-position", "-1"], "actions_per_position must be"),
    (["train", "scorer", "rami51", "--fit-window", "0"], "fit_window must be"),
    (["train", "scorer", "rami51", "--last-fit-share", "1"], "last_fit_share must be"),
    (["train", "scorer", "rami51", "--last-points-weight", "-1"], "last_points_weight must be"),
    (["train", "scorer", "rami51", "--option", "single_round=false"], "single rounds"),
])
def test_cli_train_by_scorer_refuses_bad_settings(tmp_path, argv, message):
    err = io.StringIO()
    assert main([*argv, "--out", str(tmp_path / "x")], io.StringIO(), err) == 2
    assert message in err.getvalue()
