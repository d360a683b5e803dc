"""President: invariants over thousands of random games (vector env), hidden
information, and serial vs threaded stepping."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs
from cardenvs.core.vector import RandomSampler
from cardenvs.games.president import rules as pres

OVER = pres.PHASE_OVER
_CARD_PRES_RANK = np.array([(c // 4 + 11) % 13 for c in range(52)])  # 3 -> 0 ... A -> 11, 2 -> 12
CARD_KEY_2_HIGH = _CARD_PRES_RANK * 4 + np.arange(52) % 4  # card order for trou A's gift
CARD_KEY_2_LOW = np.where(_CARD_PRES_RANK == 12, -1, _CARD_PRES_RANK) * 4 + np.arange(52) % 4
STD_RANK = np.array(["A23456789TJQK".index(r) for r in "3456789TJQKA2"])  # card rank of each president rank


def check_states(venv) -> None:
    """Invariants every state holds, over the whole batch."""
    s = venv.states
    P = venv.num_players
    raw = s["hands"]
    assert not raw[:, P:].any()
    hands = raw[:, :P].astype(np.int16)
    # every card exactly once per deck: in a hand or played
    total = hands.sum(axis=1) + s["played"]
    assert (total == s["decks"][:, None]).all()
    # derived counts agree with the hands
    by_rank = hands.reshape(hands.shape[:2] + (13, 4)).sum(axis=3)[:, :, STD_RANK]
    assert (s["rank_counts"][:, :P] == by_rank).all()
    held = by_rank.sum(axis=2)
    assert (s["held"][:, :P] == held).all()
    twos = by_rank[:, :, 12]
    live = s["phase"] != OVER
    out = s["out"][:, :P].astype(bool)
    # out players: finished ones hold nothing, stuck ones only 2s; players in play hold a non-2
    finished = np.zeros_like(out)
    stuck = np.zeros_like(out)
    for k in range(P):
        rows = np.flatnonzero(s["num_finished"] > k)
        finished[rows, s["finish_order"][rows, k]] = True
        rows = np.flatnonzero(s["num_stuck"] > k)
        stuck[rows, s["stuck_order"][rows, k]] = True
    assert (out == (finished | stuck)).all()
    assert (~finished | (held == 0)).all()
    assert (~stuck | ((held == twos) & (held > 0))).all()
    assert (out | (held > twos))[live].all()
    # at least two players in play while a round goes on; the one to move is one of them
    assert ((~out).sum(axis=1) >= 2)[live].all()
    cur = s["current"].astype(np.int64)
    assert (~out[np.arange(len(s)), cur])[live].all()
    # each finished round added exactly 3 points (the round in progress: none yet)
    points = s["scores"][:, :P].sum(axis=1)
    rounds_done = np.where(live, s["round"] - 1, s["round"])
    assert (points == 3 * rounds_done).all()
    # the pile never shows a 2, nor a completed four while a round goes on (a match's last
    # play may have made one: the round ended before the pile would clear)
    on_pile = s["pile_rank"] >= 0
    assert (s["pile_rank"] < 12).all() and ((s["pile_rank"] < 0) == (s["last_player"] < 0)).all()
    assert ((s["pile_count"] >= 1) & (s["pile_count"] <= s["run_count"]))[on_pile].all()
    assert (s["run_count"] <= 3)[on_pile & live].all()


def run_matches(num_players: int, num_envs: int, seed: int, **options) -> int:
    """Random play until every match is over (no auto-reset); checks after every step."""
    venv = cardenvs.make_vec(
        "president_v0", num_envs=num_envs, seed=seed, auto_reset=False, num_players=num_players, **options
    )
    P = num_players
    target = 1 if options.get("single_round") else options.get("target_score", 11)
    sample = RandomSampler(seed)
    state = venv.reset()
    check_states(venv)
    ended = np.zeros(num_envs, dtype=bool)
    rounds_seen = 0
    steps = 0
    while not ended.all():
        s = venv.states
        prev_scores = s["scores"][:, :P].astype(np.int64).copy()
        prev_obs = state.observation
        live = s["phase"] != OVER
        assert (state.legal_action_mask.any(axis=1) == live).all()  # a move whenever not over
        assert (state.legal_action_mask == s["legal"].astype(bool)).all()
        actions = sample(state.legal_action_mask)
        state = venv.step(actions)
        steps += 1
        assert steps < 20_000
        check_states(venv)
        s = venv.states
        scores = s["scores"][:, :P].astype(np.int64)
        new_end = state.terminated & ~ended
        assert not state.truncated.any() and not state.illegal.any()
        # the points change only when a round ends: +2 to the first place, +1 to the second
        rnd = np.flatnonzero(state.round_ended)
        assert (state.round_ended[new_end]).all()
        assert (scores[~state.round_ended] == prev_scores[~state.round_ended]).all()
        places = s["last_places"][rnd, :P].astype(np.int64)
        assert (np.sort(places, axis=1) == np.arange(1, P + 1)).all()
        delta = np.where(places == 1, 2, np.where(places == 2, 1, 0))
        assert (scores[rnd] == prev_scores[rnd] + delta).all()
        rounds_seen += rnd.size
        # a round that does not end the match starts the next one: trou A dealt, president to return a card
        go_on = rnd[~state.terminated[rnd]]
        pres_seat = np.argmax(places == 1, axis=1)[~state.terminated[rnd]]
        trou_seat = np.argmax(places == P, axis=1)[~state.terminated[rnd]]
        assert (s["president"][go_on] == pres_seat).all() and (s["trou"][go_on] == trou_seat).all()
        assert (s["dealer"][go_on] == trou_seat).all()
        assert (s["phase"][go_on] == pres.PHASE_EXCHANGE).all() and (s["current"][go_on] == pres_seat).all()
        assert (prev_scores[go_on].max(axis=1) < target).all() and (scores[go_on].max(axis=1) < target).all()
        for i in go_on:  # trou A gave the president their highest card (highest suit of the top rank)
            t, p = int(s["trou"][i]), int(s["president"][i])
            g = int(s["given"][i, t])
            assert s["received"][i, p] == g and s["hands"][i, p, g] > 0
            key = CARD_KEY_2_HIGH if s["two_is_highest"][i] else CARD_KEY_2_LOW
            assert key[np.flatnonzero(s["hands"][i, t])].max() <= key[g]  # <=: two decks hold twins
        # rewards: nothing until the match ends, then zero-sum, the best score(s) share +1
        r = state.rewards.astype(np.float64)
        assert (r[~new_end] == 0).all()
        for i in np.flatnonzero(new_end):
            best = scores[i].max()
            assert best >= target and prev_scores[i].max() < target
            win = scores[i] == best
            assert abs(r[i].sum()) < 1e-5
            if win.all():
                assert (r[i] == 0).all()
            else:
                assert np.allclose(r[i][win], 1 / win.sum()) and np.allclose(r[i][~win], -1 / (~win).sum())
        # stepping a finished game changes nothing: same observation, still no legal move
        assert np.array_equal(state.observation[ended], prev_obs[ended])
        ended |= state.terminated
        assert (s["terminated"] == ended).all()
    return rounds_seen


@pytest.mark.parametrize(
    "num_players,num_envs",
    [(4, 500)] + [pytest.param(n, k, marks=pytest.mark.slow) for n, k in ((5, 400), (7, 250), (8, 150), (10, 120))],
)
def test_random_matches_keep_every_invariant(num_players, num_envs):
    rounds = run_matches(num_players, num_envs, seed=100 + num_players)
    assert rounds >= 5 * num_envs


@pytest.mark.slow
def test_random_single_rounds_small_target_and_two_not_highest():
    run_matches(6, 400, seed=7, single_round=True)
    run_matches(9, 200, seed=8, target_score=4, two_is_highest=False)


def test_round_rewards_with_auto_reset():
    """reward_mode="round": each round's points as rewards, 2 + 1 = 3; auto-reset restarts matches."""
    P = 5
    venv = cardenvs.make_vec("president_v0", num_envs=300, seed=3, num_players=P, reward_mode="round")
    sample = RandomSampler(3)
    state = venv.reset()
    totals = np.zeros((300, P))
    matches = 0
    for _ in range(1500):
        assert state.legal_action_mask.any(axis=1).all()  # auto-reset: every game always has a move
        state = venv.step(sample(state.legal_action_mask))
        r = state.rewards.astype(np.float64)
        ends = state.round_ended
        assert (r[~ends] == 0).all()
        assert (np.sort(r[ends], axis=1) == [0, 0, 0, 1, 2]).all()
        totals += r
        done = np.flatnonzero(state.terminated)
        for i in done:
            assert totals[i].max() >= 11 and (totals[i] - r[i]).max() < 11
            assert venv.states["round"][i] == 1 and (venv.states["scores"][i] == 0).all()  # restarted
        totals[done] = 0
        matches += done.size
        live = ~state.terminated
        assert (totals[live] == venv.states["scores"][live, :P]).all()
        check_states(venv)
    assert matches > 100


def test_max_steps_truncates_in_the_vector_env():
    venv = cardenvs.make_vec("president_v0", num_envs=50, seed=4, num_players=4, max_steps=30)
    sample = RandomSampler(4)
    state = venv.reset()
    for t in range(1, 61):
        state = venv.step(sample(state.legal_action_mask))
        assert (state.truncated == (t % 30 == 0)).all()
        assert not state.terminated.any()
        assert (state.rewards == 0).all()


# --------------------------------------------------------------------------- hidden information
def _swap_between_opponents(d, viewer, rng):
    """Swap one card between two other players still holding cards (sizes kept; no 2s,
    so nobody becomes stuck); None if no two opponents hold such cards of different ranks."""
    P = len(d["hands"])
    others = [p for p in range(P) if p != viewer and d["hands"][p]]
    rng.shuffle(others)
    for i, a in enumerate(others):
        for b in others[i + 1 :]:
            for x in d["hands"][a]:
                for y in d["hands"][b]:
                    if x[0] != y[0] and "2" not in (x[0], y[0]):
                        new = dict(d)
                        hands = [list(h) for h in d["hands"]]
                        hands[a].remove(x)
                        hands[b].remove(y)
                        hands[a].append(y)
                        hands[b].append(x)
                        new["hands"] = hands
                        return new, a, b
    return None


@pytest.mark.parametrize("num_players", [4, 8])
def test_other_hands_are_hidden(num_players):
    rng = np.random.default_rng(num_players)
    env = cardenvs.make_raw("president_v0", num_players=num_players)
    twin = cardenvs.make_raw("president_v0", num_players=num_players)
    checked = 0
    for seed in range(12):
        env.reset(seed=seed)
        for _ in range(int(rng.integers(0, 120))):
            if any(env.terminations.values()):
                break
            env.step(int(rng.choice(env.legal_actions())))
        if any(env.terminations.values()):
            continue
        d = env.state_dict()
        viewer = d["current"]
        agent = f"player_{viewer}"
        swapped = _swap_between_opponents(d, viewer, rng)
        if swapped is None:
            continue
        new, a, b = swapped
        twin.reset(seed=999, options={"scenario": d})
        assert twin.state_dict() == d  # a full state_dict loads back exactly
        twin.reset(seed=999, options={"scenario": new})
        assert twin.state_dict()["hands"] != d["hands"]
        mine, theirs = env.observe(agent), twin.observe(agent)
        assert twin.agent_selection == agent
        assert np.array_equal(mine["observation"], theirs["observation"])
        assert np.array_equal(mine["action_mask"], theirs["action_mask"])
        for p in range(num_players):  # everyone but the two whose hands changed sees the same
            o1 = env.observe(f"player_{p}")["observation"]
            o2 = twin.observe(f"player_{p}")["observation"]
            assert np.array_equal(o1, o2) == (p not in (a, b)), p
        checked += 1
    assert checked >= 8
