"""Dealing anew what a seat cannot see (``resample_hidden``), property tests over random
play: the seat's observation (and its mask when it is to move) stay, every public field
stays, a known card stays in its hand, the new states are whole games that play on, every
placement is reachable, and a wrong deal is caught."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs
from cardenvs.core.vector import VecEnv

GAMES = ["odin", "rami51"]
# the state fields a re-deal may change: the hidden cards, the random stream, and Rami 51's
# card drawn from the stock this turn (the mover's alone)
HIDDEN = {"odin": {"hands", "aside", "rng"}, "rami51": {"hands", "stock", "rng", "drawn"}}


def _played(game: str, n: int, seed: int, steps: int, **options) -> tuple[VecEnv, object]:
    venv = cardenvs.make_vec(game, num_envs=n, seed=seed, **options)
    state = venv.reset()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        state = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in state.legal_action_mask]))
    return venv, state


def _violations(game: str, venv: VecEnv, state, new: VecEnv, viewers: np.ndarray) -> list[str]:
    """What a re-deal for ``viewers`` broke, game by game (empty: nothing)."""
    found = []
    if not np.array_equal(new.observe(viewers), venv.observe(viewers)):
        found.append("a viewer's observation changed")
    movers = state.current_player == viewers
    if not np.array_equal(new._state.legal_action_mask[movers], state.legal_action_mask[movers]):
        found.append("the mask of a viewer to move changed")
    for i in range(venv.num_envs):
        before, after = venv.state_dict(i), new.state_dict(i)
        changed = {key for key in before if before[key] != after[key]}
        if changed - HIDDEN[game]:
            found.append(f"game {i}: public fields changed: {sorted(changed - HIDDEN[game])}")
    if game == "odin":  # a card known to be in a hand (taken from the table) stays there
        for q in range(venv.num_players):
            others = viewers != q
            if (new.states["hands"][others, q] < venv.states["known"][others, q]).any():
                found.append(f"a known card left seat {q}'s hand")
    return found


@pytest.mark.parametrize("game", GAMES)
def test_a_redeal_keeps_everything_the_viewer_knows(game):
    venv, state = _played(game, 24, 1, 0)
    rng = np.random.default_rng(1)
    changed_hands = 0
    for step in range(90):
        if step % 9 == 0:
            viewers = rng.integers(0, venv.num_players, venv.num_envs)
            before = venv.states.copy()
            new = venv.resample_hidden(viewers, seed=step)
            assert venv.states.tobytes() == before.tobytes()  # the env itself is left as it was
            assert _violations(game, venv, state, new, viewers) == []
            changed_hands += int((new.states["hands"] != venv.states["hands"]).any(axis=(1, 2)).sum())
        state = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in state.legal_action_mask]))
    assert changed_hands > 50  # it does deal anew


@pytest.mark.parametrize("game", GAMES)
def test_redealt_games_are_whole_and_play_on_to_the_end(game):
    venv, state = _played(game, 16, 2, 25, single_round=True)  # rounds end sooner than matches
    new = venv.resample_hidden(np.arange(venv.num_envs) % venv.num_players, seed=5)
    check = VecEnv(venv.spec, 1, auto_reset=False, single_round=True)
    check.reset()
    for i in range(new.num_envs):  # the loader checks card conservation and every bound
        check.load_state_dict(i=0, scenario=new.state_dict(i))
    new.auto_reset = False  # play each match to its end: the steps raise on a broken state
    rng = np.random.default_rng(2)
    st = new._state
    ended = np.zeros(new.num_envs, dtype=bool)
    for _ in range(3000):
        moves = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in st.legal_action_mask])
        st = new.step(moves)
        ended |= st.terminated | st.truncated
        if ended.all():
            break
    assert ended.all()


def test_every_hidden_card_can_land_in_the_other_hand():
    # Rami 51, two players, the first turn: seat 0 sees its hand and the discard top; each
    # other card lands in seat 1's hand in some of 300 deals (a card misses with
    # probability (1 - 14/54) ** 300 < 1e-38 when all are equally likely)
    venv = cardenvs.make_vec("rami51", num_envs=300, seed=3, num_players=2)
    venv.reset(seeds=np.full(300, 3))
    new = venv.resample_hidden(0, seed=11)
    mine = venv.states["hands"][0, 0]
    seen = new.states["hands"][:, 1].sum(axis=0) > 0
    top = venv.states["pile"][0, venv.states["pile_n"][0] - 1]
    unseen = [c for c in range(53) if mine[c] == 0 and c != top]
    assert all(seen[c] for c in unseen), [c for c in unseen if not seen[c]]
    assert (new.states["hands"][:, 0] == mine).all()  # the viewer's own hand never moves


def test_a_deal_that_forgets_a_known_card_is_caught(monkeypatch):
    # a wrong kernel (Odin's cards known to be in a hand dealt like the rest) fails the check
    game = cardenvs.get_spec("odin").module
    real = game.deal_unseen_batch

    def forgetful(states, seats, keys, keep_hands):
        known = states["known"].copy()
        states["known"] = 0
        real(states, seats, keys, keep_hands)
        states["known"] = known

    venv, state = _played("odin", 64, 4, 40)
    assert venv.states["known"].sum() > 0
    viewers = (state.current_player.astype(np.int64) + 1) % venv.num_players
    assert _violations("odin", venv, state, venv.resample_hidden(viewers, seed=1), viewers) == []
    monkeypatch.setattr(game, "deal_unseen_batch", forgetful)
    assert _violations("odin", venv, state, venv.resample_hidden(viewers, seed=1), viewers) != []


def test_the_same_seed_deals_the_same_and_another_seed_another():
    venv, _ = _played("rami51", 8, 6, 10)
    a, b, c = (venv.resample_hidden(0, seed=s) for s in (1, 1, 2))
    assert a.states.tobytes() == b.states.tobytes() and a.states.tobytes() != c.states.tobytes()


@pytest.mark.parametrize("game", GAMES)
def test_the_aec_env_redeals_for_one_agent(game):
    env = cardenvs.make_raw(game)
    env.reset(seed=4)
    for agent in env.possible_agents:
        other = env.resample_hidden(agent, seed=9)
        np.testing.assert_array_equal(other.observe(agent)["observation"], env.observe(agent)["observation"])
    with pytest.raises(ValueError, match="viewer must be one of"):
        env.resample_hidden("nobody", seed=1)


@pytest.mark.parametrize("game", ["president", "frime", "classes"])
def test_a_game_without_the_deal_says_so(game):
    with pytest.raises(ValueError, match=f"{game}: dealing the cards a seat cannot see anew is not available"):
        venv = cardenvs.make_vec(game, num_envs=2)
        venv.reset()
        venv.resample_hidden(0, seed=1)
    env = cardenvs.make_raw(game)
    env.reset(seed=1)
    with pytest.raises(ValueError, match="not available for this game yet"):
        env.resample_hidden(env.agent_selection, seed=1)


def test_bad_viewers_and_seeds_are_refused():
    venv, _ = _played("odin", 4, 7, 3)
    for viewers, error in ((True, TypeError), (1.5, TypeError), (-1, ValueError), (9, ValueError),
                           (np.zeros(3, dtype=int), ValueError)):
        with pytest.raises(error, match="viewer"):
            venv.resample_hidden(viewers, seed=1)
    for seed, error in (("1", TypeError), (-1, ValueError), (2.0, TypeError)):
        with pytest.raises(error, match="seed"):
            venv.resample_hidden(0, seed=seed)
    with pytest.raises(RuntimeError, match="reset"):
        cardenvs.make_vec("odin", num_envs=2).resample_hidden(0, seed=1)
    env = cardenvs.make_raw("odin")
    with pytest.raises(RuntimeError, match="reset"):
        env.resample_hidden("player_0", seed=1)
