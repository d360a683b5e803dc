"""Dealing anew what a seat cannot see (``resample_hidden``), property tests over random
play: the seat's observation (and its mask when it is to move) stay, every public field
stays, a known card stays in its hand, the new states are whole games that play on, every
placement is reachable, and a wrong deal is caught."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

import cardenvs
from cardenvs.core.vector import VecEnv
from cardenvs.games.classes import rules as CLASSES
from cardenvs.games.frime import rules as FRIME
from cardenvs.rummy.split import hand_splits

GAMES = ["president", "odin", "rami51", "frime", "classes"]
# the state fields a re-deal may change: the hidden cards, the random stream, and Rami 51's
# card drawn from the stock this turn (the mover's alone)
HIDDEN = {"president": {"hands", "rng", "given", "received"}, "odin": {"hands", "aside", "rng"},
          "rami51": {"hands", "stock", "rng", "drawn"}, "frime": {"hands", "stock", "rng"},
          "classes": {"hands", "stock", "rng"}}


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
    # at every step of 12 random matches, for a random seat in each
    venv, state = _played(game, 12, 1, 0)
    rng = np.random.default_rng(1)
    changed_hands = 0
    for step in range(60):
        viewers = rng.integers(0, venv.num_players, venv.num_envs)
        before = venv.states.copy()
        new = venv.resample_hidden(viewers, seed=step)
        assert venv.states.tobytes() == before.tobytes()  # the env itself is left as it was
        assert _violations(game, venv, state, new, viewers) == []
        changed_hands += int((new.states["hands"] != venv.states["hands"]).any(axis=(1, 2)).sum())
        state = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in state.legal_action_mask]))
    assert changed_hands > 300  # it does deal anew


@pytest.mark.parametrize("game", GAMES)
def test_redealt_games_are_whole_and_play_on_to_the_end(game):
    # the random-play soak's invariants, in re-dealt games played to their end: a legal
    # action for every game still going, the current seat in range, observations within
    # the game's bounds, finite rewards, and each state loading back with the same mask
    venv, state = _played(game, 16, 2, 25, single_round=True)  # rounds end sooner than matches
    new = venv.resample_hidden(np.arange(venv.num_envs) % venv.num_players, seed=5)
    check = VecEnv(venv.spec, 1, auto_reset=False, single_round=True)
    check.reset()
    low, high = venv.spec.module.observation_bounds(check._template)
    new.auto_reset = False  # play each match to its end: the steps raise on a broken state
    rng = np.random.default_rng(2)
    st = new._state
    ended = np.zeros(new.num_envs, dtype=bool)
    for step in range(3000):
        assert st.legal_action_mask[~ended].any(axis=1).all()
        assert ((st.current_player >= 0) & (st.current_player < new.num_players))[~ended].all()
        assert low <= st.observation.min() and st.observation.max() <= high
        if step % 20 == 0:  # the loader checks card conservation and every bound
            for i in np.flatnonzero(~ended)[:4]:
                loaded = check.load_state_dict(i=0, scenario=new.state_dict(int(i)))
                assert np.array_equal(loaded.legal_action_mask[0], st.legal_action_mask[i])
        moves = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in st.legal_action_mask])
        st = new.step(moves)
        assert np.isfinite(st.rewards).all()
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
        ok = real(states, seats, keys, keep_hands)
        states["known"] = known
        return ok

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
    # at every step of a random match, for every agent: its observation and mask stay,
    # and the env itself is left as it was
    env = cardenvs.make_raw(game)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for step in range(80):
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        before = env.state_dict()
        for k, agent in enumerate(env.possible_agents):
            other = env.resample_hidden(agent, seed=step * 10 + k)
            mine, theirs = env.observe(agent), other.observe(agent)
            np.testing.assert_array_equal(theirs["observation"], mine["observation"])
            np.testing.assert_array_equal(theirs["action_mask"], mine["action_mask"])
            assert other.agent_selection == env.agent_selection
        assert env.state_dict() == before
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    with pytest.raises(ValueError, match="viewer must be one of"):
        env.resample_hidden("nobody", seed=1)


def test_a_game_without_the_deal_says_so(monkeypatch):
    monkeypatch.delattr(cardenvs.get_spec("frime").module, "deal_unseen_batch")
    with pytest.raises(ValueError, match="frime: dealing the cards a seat cannot see anew is not available"):
        venv = cardenvs.make_vec("frime", num_envs=2)
        venv.reset()
        venv.resample_hidden(0, seed=1)
    env = cardenvs.make_raw("frime")
    env.reset(seed=1)
    with pytest.raises(ValueError, match="not available for this game"):
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


# --------------------------------------------------------------------------- President: what each seat knows
THREE_CLUBS = 8  # card id (rank index 2 of A23..K, clubs)


def _give_key(card: int, two_high: bool) -> int:
    """A card's place in trou A's choice of its highest card (2s below all unless highest)."""
    rank = (card // 4 + 11) % 13  # president rank: 3 -> 0 ... A -> 11, 2 -> 12
    return -1 if rank == 12 and not two_high else rank * 4 + card % 4


def _after_exchange(n: int, seed: int) -> VecEnv:
    """``n`` President positions of random play in a later round, its exchange made (the
    president has given a card back), loaded into a vector env of their own."""
    venv = cardenvs.make_vec("president", num_envs=32, seed=seed)
    state = venv.reset()
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < n:
        st = venv.states
        ready = (st["round"] >= 2) & (st["given"][np.arange(32), st["president"]] >= 0) & (st["phase"] == 0)
        found += [venv.state_dict(i) for i in np.flatnonzero(ready & (rng.random(32) < 0.05))]
        state = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in state.legal_action_mask]))
    out = cardenvs.make_vec("president", num_envs=n, seed=0)
    out.reset()
    for i in range(n):
        out.load_state_dict(i, found[i])
    return out


def _exchange_violations(old: np.ndarray, new: np.ndarray, viewer_is_president: bool) -> list[str]:
    """What a re-deal for the president (or trou A) broke of what that seat knows."""
    found = []
    for i in range(len(old)):
        s, t = old[i], new[i]
        pres, trou = int(s["president"]), int(s["trou"])
        if viewer_is_president:
            back, top = int(s["given"][pres]), _give_key(int(s["received"][pres]), bool(s["two_is_highest"]))
            if back >= 0 and s["played"][back] == 0 and t["hands"][trou, back] == 0:
                found.append(f"game {i}: the card given back left trou A's hand")
            two_high = bool(s["two_is_highest"])
            over = [c for c in range(52) if t["hands"][trou, c] > (c == back) and _give_key(c, two_high) > top]
            if over:
                found.append(f"game {i}: trou A holds {over}, above the card it gave")
        else:
            gave = int(s["given"][trou])
            if s["played"][gave] == 0 and s["received"][trou] != gave and t["hands"][pres, gave] == 0:
                found.append(f"game {i}: the card trou A gave left the president's hand")
    return found


def test_president_a_redeal_keeps_the_exchange_for_its_two_players():
    venv = _after_exchange(24, 21)
    st = venv.states
    ready = np.arange(24)
    for as_president in (True, False):
        viewers = st["president" if as_president else "trou"].astype(np.int64)
        for seed in range(5):
            new = venv.resample_hidden(viewers, seed=seed)
            assert _exchange_violations(st[ready], new.states[ready], as_president) == []


def test_president_a_deal_that_forgets_the_exchange_is_caught(monkeypatch):
    game = cardenvs.get_spec("president").module
    real = game.deal_unseen_batch

    def forgetful(states, seats, keys, keep_hands):  # the exchange forgotten: no president
        pres = states["president"].copy()
        states["president"] = -1
        ok = real(states, seats, keys, keep_hands)
        states["president"] = pres
        return ok

    venv = _after_exchange(24, 21)
    ready = np.arange(24)
    viewers = venv.states["president"].astype(np.int64)
    monkeypatch.setattr(game, "deal_unseen_batch", forgetful)
    found = []
    for seed in range(5):
        found += _exchange_violations(venv.states[ready], venv.resample_hidden(viewers, seed=seed).states[ready], True)
    assert found


def test_president_every_consistent_placement_is_reachable():
    # Round 1 before the first lead, 4 players, seat 0's view: the 3 of clubs stays with
    # the player to move; every other unseen card lands in each of the three other hands
    # about a third of the time (600 deals: a share's standard deviation is 0.019; the
    # tolerance 0.1 is over 5 of them)
    venv = cardenvs.make_vec("president", num_envs=600, seed=8)
    venv.reset(seeds=np.full(600, 8))
    cur = int(venv.states["current"][0])
    viewer = 0 if cur != 0 else 1
    new = venv.resample_hidden(viewer, seed=3)
    hands = new.states["hands"][:, :4]
    assert (hands[:, cur, THREE_CLUBS] == 1).all()
    mine = venv.states["hands"][0, viewer]
    share = (hands > 0).mean(axis=0)  # (seat, card)
    for c in range(52):
        if mine[c] or c == THREE_CLUBS:
            continue
        for q in range(4):
            if q != viewer:
                assert abs(share[q, c] - 1 / 3) < 0.1, (c, q, share[q, c])
    assert (hands[:, viewer] == mine).all()


def test_president_the_trou_holds_only_what_it_could_and_all_of_it_is_reachable():
    # the president's view after the exchange: trou A's unseen cards are among those at
    # most its given card, and each of those lands in its hand in some of the deals
    venv = _after_exchange(1, 23)
    i = 0
    one = cardenvs.make_vec("president", num_envs=400, seed=0, auto_reset=False)
    one.reset()
    scenario = venv.state_dict(i)
    for k in range(400):
        one.load_state_dict(k, scenario)
    st = one.states[0]
    pres, trou, two_high = int(st["president"]), int(st["trou"]), bool(st["two_is_highest"])
    new = one.resample_hidden(pres, seed=4)
    assert _exchange_violations(one.states, new.states, True) == []
    top = _give_key(int(st["received"][pres]), two_high)
    unseen = [c for c in range(52) if st["hands"][:4, c].sum() - st["hands"][pres, c] > 0]
    could = [c for c in unseen if _give_key(c, two_high) <= top]
    reached = new.states["hands"][:, trou].sum(axis=0) > 0
    assert all(reached[c] for c in could), [c for c in could if not reached[c]]


def test_president_holders_offers_are_refused():
    venv = cardenvs.make_vec("president", num_envs=2, completion_offers="holders")
    venv.reset()
    with pytest.raises(ValueError, match="completion_offers='public'"):
        venv.resample_hidden(0, seed=1)


# --------------------------------------------------------------------------- rummies: cards seen taken, contracts
@pytest.mark.parametrize("game", ["frime", "classes"])
def test_a_card_taken_in_sight_stays_until_one_like_it_leaves(game):
    venv, state = _played(game, 32, 12, 0)
    rng = np.random.default_rng(12)
    seen = 0
    for step in range(150):
        known = venv.states["known"].astype(np.int64)
        assert (known <= venv.states["hands"]).all()  # a known card is held
        if step % 10 == 0:
            viewers = rng.integers(0, venv.num_players, venv.num_envs)
            new = venv.resample_hidden(viewers, seed=step)
            for i, v in enumerate(viewers):
                others = np.arange(venv.num_players) != v
                assert (new.states["hands"][i][:venv.num_players][others] >= known[i][:venv.num_players][others]).all()
            seen += int(known.sum())
        state = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in state.legal_action_mask]))
    assert seen > 20  # cards were taken from the pile, and tracked


@njit
def _contract_held(states, i, q):
    """Does seat q's hand in game i hold its whole contract? (The rules' own search.)"""
    work = np.zeros(1, dtype=CLASSES.WORKSPACE_DTYPE)
    s = states[i]
    H = work[0].H
    for c in range(53):
        H[c] = s.hands[q, c]
    return CLASSES._holds(s, q, H, True, CLASSES.SET, work[0].rows)


def _contract_violations(venv: VecEnv, new: VecEnv, viewers: np.ndarray) -> int:
    """Re-dealt players who let a turn of this round pass without laying their contract,
    yet hold it now."""
    bad = 0
    for i in np.flatnonzero(venv.states["phase"] == 0):  # draw: no meld in progress
        st = venv.states[i]
        P, turns, dealer = int(st["num_players"]), int(st["turns"]), int(st["dealer"])
        for q in range(P):
            if q != viewers[i] and not st["laid"][q] and turns > (q - dealer - 1) % P:
                bad += _contract_held(new.states, int(i), q)
    return bad


def test_classes_a_player_who_let_a_turn_pass_did_not_hold_its_contract(monkeypatch):
    venv, state = _played("classes", 24, 13, 40)
    viewers = state.current_player.astype(np.int64)
    assert sum(_contract_violations(venv, venv.resample_hidden(viewers, seed=s), viewers) for s in range(4)) == 0
    game = cardenvs.get_spec("classes").module
    real = game.deal_unseen_batch

    def forgetful(states, seats, keys, keep_hands):  # the rule that reveals it forgotten
        states["contract_when_able"] = False
        ok = real(states, seats, keys, keep_hands)
        states["contract_when_able"] = True
        return ok

    monkeypatch.setattr(game, "deal_unseen_batch", forgetful)
    assert sum(_contract_violations(venv, venv.resample_hidden(viewers, seed=s), viewers) for s in range(4)) > 0


@pytest.mark.parametrize("game", ["odin", "rami51", "frime", "classes"])
def test_every_unseen_card_lands_in_each_other_hand_as_often_as_a_fair_deal_puts_it(game):
    # The first turn, 4 players, a seat that is not to move: nothing but its own hand and
    # the discard pile is known, so a fair deal puts the cards it cannot see (M of them, k
    # copies of a type) into another hand of h cards as a random draw of h from the M:
    # the hand holds the type with probability 1 - C(M - k, h) / C(M, h). Over 600 deals
    # each share stays within 5 standard deviations (and 0.02) of that, every type and
    # hand (a kernel that kept a card where it was, or dealt one hand first from a
    # shuffle it had not finished, misses it by far more).
    n = 600
    venv = cardenvs.make_vec(game, num_envs=n, seed=5, num_players=4)
    venv.reset(seeds=np.full(n, 5))
    viewer = int(venv.states["current"][0]) ^ 1
    new = venv.resample_hidden(viewer, seed=7)
    st = venv.states[0]
    types = st["hands"].shape[-1]
    unseen = st["hands"][:4].astype(np.int64).sum(axis=0) - st["hands"][viewer]
    if "stock" in st.dtype.names:
        unseen += np.bincount(st["stock"][:st["stock_n"]], minlength=types)
    if "aside" in st.dtype.names:
        unseen += st["aside"].astype(np.int64)
    M = int(unseen.sum())
    hands = new.states["hands"][:, :4]
    assert (hands[:, viewer] == st["hands"][viewer]).all()
    for q in range(4):
        if q == viewer:
            continue
        h = int(st["hands"][q].sum())
        share = (hands[:, q] > 0).mean(axis=0)
        for c in np.flatnonzero(unseen):
            p = 1 - math.comb(M - int(unseen[c]), h) / math.comb(M, h)
            tol = max(5 * math.sqrt(p * (1 - p) / n), 0.02)
            assert abs(share[c] - p) < tol, (q, c, share[c], p)


def _lays_out(states, i, q):
    """Can seat q's hand in game i (not empty) be laid out entirely as melds? (The rules'
    own search, as a loaded position's check asks it: compiled with the game's kernels.)"""
    return hand_splits(FRIME.RULES, states[i]["hands"][q])


def _split_violations(venv: VecEnv, new: VecEnv, viewers: np.ndarray) -> int:
    """Re-dealt players whose last turn ended straight after the discard (the table saw
    their hand could not be laid out), yet whose hand now can."""
    st = venv.states
    return sum(_lays_out(new.states, i, q) for i in range(venv.num_envs) for q in range(venv.num_players)
               if q != viewers[i] and st["no_split"][i, q] and st["hands"][i, q].sum() > 0)


def test_frime_a_hand_seen_not_to_lay_out_does_not(monkeypatch):
    venv, state = _played("frime", 48, 14, 14)  # round 1: hands of 3 cards, which lay out often
    assert venv.states["no_split"].sum() > 20
    viewers = state.current_player.astype(np.int64)
    assert sum(_split_violations(venv, venv.resample_hidden(viewers, seed=s), viewers) for s in range(4)) == 0
    game = cardenvs.get_spec("frime").module
    real = game.deal_unseen_batch

    def forgetful(states, seats, keys, keep_hands):  # what the table saw forgotten
        seen = states["no_split"].copy()
        states["no_split"] = 0
        ok = real(states, seats, keys, keep_hands)
        states["no_split"] = seen
        return ok

    monkeypatch.setattr(game, "deal_unseen_batch", forgetful)
    assert sum(_split_violations(venv, venv.resample_hidden(viewers, seed=s), viewers) for s in range(4)) > 0


def _copies(scenario: dict, n: int, seed: int = 0, **options) -> VecEnv:
    """``n`` games all in the position ``scenario`` (a state_dict)."""
    venv = cardenvs.make_vec("president", num_envs=n, seed=seed, **options)
    venv.reset()
    for i in range(n):
        venv.load_state_dict(i, scenario)
    return venv


def test_president_the_exchange_deal_is_as_fair_as_dealing_and_throwing_away():
    # The president's view after the exchange: the kernel's deals against fair deals of the
    # same unseen cards kept only when trou A holds the card given back and nothing above the
    # card it gave (rejection). The mean number of cards above that one in each other hand
    # agrees within 5 standard errors (a kernel that fills the other hands in seat order from
    # what trou A passed over puts most of them in the first one).
    venv = _after_exchange(1, 31)
    st = venv.states[0]
    pres, trou, P = int(st["president"]), int(st["trou"]), int(st["num_players"])
    two_high = bool(st["two_is_highest"])
    top = _give_key(int(st["received"][pres]), two_high)
    back = int(st["given"][pres])
    n = 2000
    new = _copies(venv.state_dict(0), n).resample_hidden(pres, seed=9).states
    above = np.array([_give_key(c, two_high) > top for c in range(52)])
    others = [q for q in range(P) if q != pres]
    got = {q: (new["hands"][:, q, :52] * above).sum(axis=1) for q in others}
    # the reference: fair deals of the unseen cards, kept when they keep what the president knows
    known_back = st["played"][back] == 0
    pool = []
    for q in others:
        pool += [c for c in range(52) for _ in range(int(st["hands"][q, c]))]
    if known_back:
        pool.remove(back)
    sizes = [int(st["hands"][q].sum()) - (known_back and q == trou) for q in others]
    rng = np.random.default_rng(0)
    ref = {q: [] for q in others}
    while len(ref[trou]) < n:
        deal = rng.permutation(pool)
        hands, k = {}, 0
        for q, size in zip(others, sizes, strict=True):
            hands[q] = deal[k:k + size]
            k += size
        if any(_give_key(int(c), two_high) > top for c in hands[trou]):
            continue
        for q in others:
            ref[q].append(int(above[hands[q]].sum()))
    for q in others:
        a, b = got[q].astype(float), np.array(ref[q], dtype=float)
        se = math.sqrt(a.var() / n + b.var() / n) + 1e-9
        assert abs(a.mean() - b.mean()) < 5 * se + 0.02, (q, a.mean(), b.mean())


def test_president_two_decks_first_lead_is_as_fair_as_rejection():
    # two decks, before the first lead: the player to move holds a 3 of clubs (one or both),
    # the players before it none; how often it holds both, against fair deals kept when
    # they keep those facts
    venv = cardenvs.make_vec("president", num_envs=1, seed=2, num_players=8)
    venv.reset(seeds=np.array([2]))
    st = venv.states[0]
    cur, dealer, P = int(st["current"]), int(st["dealer"]), 8
    viewer = next(q for q in range(P) if q != cur and st["hands"][q, THREE_CLUBS] == 0)
    n = 2000
    new = _copies(venv.state_dict(0), n, num_players=8).resample_hidden(viewer, seed=3).states
    before = []
    q = (dealer + 1) % P
    while q != cur:
        before.append(q)
        q = (q + 1) % P
    assert (new["hands"][:, cur, THREE_CLUBS] >= 1).all()
    assert (new["hands"][:, before, THREE_CLUBS] == 0).all()
    both = (new["hands"][:, cur, THREE_CLUBS] == 2).mean()
    others = [q for q in range(P) if q != viewer]
    pool = [c for q in others for c in range(52) for _ in range(int(st["hands"][q, c]))]
    sizes = [int(st["hands"][q].sum()) for q in others]
    # fair deals of the pool, 20,000 at a time (rows of shuffled pools), kept when they keep
    # those facts: at least 4,000 kept
    rng = np.random.default_rng(1)
    pool = np.array(pool)
    starts = np.cumsum([0] + sizes)
    held = {q: slice(starts[j], starts[j + 1]) for j, q in enumerate(others)}
    kept = 0
    ref_both = 0
    while kept < 4000:
        deals = pool[rng.random((20_000, pool.size)).argsort(axis=1)]
        clubs = deals == THREE_CLUBS
        in_cur = clubs[:, held[cur]].sum(axis=1)
        ok = in_cur >= 1
        for q in before:
            if q != viewer:
                ok &= ~clubs[:, held[q]].any(axis=1)
        kept += int(ok.sum())
        ref_both += int((in_cur[ok] == 2).sum())
    p = ref_both / kept
    assert abs(both - p) < 5 * math.sqrt(p * (1 - p) / n) + 0.01, (both, p)
