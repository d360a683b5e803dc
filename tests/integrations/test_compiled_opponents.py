"""LearnerVecEnv's compiled opponents (cardenvs/core/opponents.py) play exactly the
matches of the Python loop (``compiled_opponents=False``): every game, random and
heuristic opponents, mixed tables (compiled seats beside Python callables, one agent at
two seats), matches ended on an opponent's move, by truncation, before the learner's
first decision, auto-reset, and forced moves played by the step or by the opponents."""

import numpy as np
import pytest

import cardenvs
from cardenvs.agents import make_agent
from cardenvs.core.vector import RandomSampler
from cardenvs.integrations.gym import LearnerVecEnv

GAMES = [spec.env_id for spec in cardenvs.list_games()]


class RandomCallable:
    """A Python opponent (a callable over rows) with its own seeded stream."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.calls = 0

    def __call__(self, obs, masks):
        self.calls += 1
        return np.array([self.rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64)


def _opponents(kind, spec, players):
    """A fresh set of opponents (each env gets its own, seeded alike)."""
    if kind in ("random", "heuristic"):
        return kind
    shared = make_agent("random", spec, seed=7)  # one agent object at two seats: one stream
    return [shared, "heuristic", RandomCallable(11), shared][: players - 1]


def _pair(name, kind, players, n, **kw):
    spec = cardenvs.get_spec(name)
    envs = [LearnerVecEnv(name, n, opponents=_opponents(kind, spec, players), seed=4, compiled_opponents=c,
                          num_players=players, **kw) for c in (True, False)]
    assert envs[0]._plan is not None and envs[1]._plan is None
    return envs


def _ended_on_opponents(env):
    """Counts, in the Python env, the matches that ended while the opponents played."""
    counter = {"n": 0}
    inner = env._play_opponents_python

    def play(learner_rewards):
        before = env._over.copy()
        inner(learner_rewards)
        counter["n"] += int((env._over & ~before).sum())

    env._play_opponents_python = play
    return counter


def _same(a, b):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, (tuple, list)) or (isinstance(a, np.ndarray) and a.dtype == object):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    else:
        np.testing.assert_array_equal(a, b)


def _play_both(envs, steps, seed=1):
    """Both envs stepped by the same random learner; everything they return, their
    states and their counters must be the same after every step."""
    compiled, python = envs
    out_c, out_p = compiled.reset(), python.reset()
    _same(out_c, out_p)
    s_c, s_p = RandomSampler(seed), RandomSampler(seed)
    ended = 0
    for _ in range(steps):
        out_c = compiled.step(s_c(compiled.action_masks()))
        out_p = python.step(s_p(python.action_masks()))
        _same(out_c, out_p)
        np.testing.assert_array_equal(compiled.core_states, python.core_states)
        np.testing.assert_array_equal(compiled._returns, python._returns)
        assert compiled.matches_without_learner == python.matches_without_learner
        ended += int((out_c[2] | out_c[3]).sum())
    return ended


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("kind", ["random", "heuristic", "mixed"])
def test_compiled_opponents_play_the_python_loops_matches(name, kind):
    players = 5 if kind == "mixed" else 4
    envs = _pair(name, kind, players, 8, single_round=True)
    on_opponents = _ended_on_opponents(envs[1])
    ended = _play_both(envs, 150)
    assert ended > 0  # auto-reset met
    assert on_opponents["n"] > 0  # some matches ended on an opponent's move
    if kind == "mixed":
        assert envs[0]._opponents[2].calls == envs[1]._opponents[2].calls > 0
        assert envs[0]._plan[1].tolist() == [1, 2, 0, 1]  # random, heuristic, Python, the same random
        assert envs[0]._plan[2].tolist() == [0, 0, 0, 0]  # one stream for the random agent's two seats


@pytest.mark.parametrize("name", GAMES)
def test_compiled_opponents_truncation_forced_moves_and_matches_without_the_learner(name):
    """Truncated matches (max_steps), some ended before the learner's first decision
    (dealt again), and without auto_play_forced the forced moves played by the opponents."""
    for forced, kind in ((True, "mixed"), (False, "random"), (False, "heuristic")):
        envs = _pair(name, kind, 5 if kind == "mixed" else 4, 6, max_steps=3, auto_play_forced=forced)
        _play_both(envs, 40, seed=2)
        assert envs[0].matches_without_learner > 0


def test_an_illegal_move_of_a_python_seat_beside_compiled_ones_steps_nothing():
    armed = []

    def bad(obs, masks):  # legal until armed
        return np.full(len(masks), 10**6, dtype=np.int64) if armed else masks.argmax(1)

    env = LearnerVecEnv("odin_v1", 4, opponents=["random", bad, "heuristic"], seed=0, num_players=4)
    env.reset()
    armed.append(True)
    for _ in range(20):  # until the Python seat is to move in some game after the learner's move
        states = env.core_states.copy()
        try:
            env.step(RandomSampler(0)(env.action_masks()))
        except ValueError as err:
            assert "illegal action 1000000" in str(err)
            np.testing.assert_array_equal(env.core_states, states)
            return
    pytest.fail("the Python seat never moved")


def test_compiled_plan_by_seat():
    spec = cardenvs.get_spec("president")

    class OwnBatch(type(make_agent("heuristic", spec))):
        def act_batch(self, observations, action_masks):  # its own way: played from Python
            return super().act_batch(observations, action_masks)

    env = LearnerVecEnv("president_v0", 2, opponents=[OwnBatch(spec), "random", "heuristic"], seed=0)
    assert env._plan[1].tolist() == [0, 1, 2]
    assert LearnerVecEnv("president_v0", 2, opponents=lambda o, m: m.argmax(1), seed=0)._plan is None
    assert LearnerVecEnv("president_v0", 2, seed=0, compiled_opponents=False)._plan is None
    with pytest.raises(TypeError):
        LearnerVecEnv("president_v0", 2, seed=0, compiled_opponents=1)
