"""The batch driver is written once (cardenvs/core/step_driver.py) and bound to each game's
hooks: every game's compiled drivers are copies of core's functions reading that game's
hooks, cached under names of their own; a game that lacks a hook, or writes one with other
parameters, is refused by name before anything compiles."""

from __future__ import annotations

import types

import numpy as np
import pytest
from numba import njit

import cardenvs
from cardenvs.core import step_driver
from cardenvs.core.registry import list_games

DRIVERS = ("step_batch", "observe_batch")


def _games():
    import cardenvs.games  # noqa: F401  (registers every game)

    return list_games()


@pytest.mark.parametrize("name", ["president", "odin", "rami51", "frime", "classes"])
def test_each_game_exports_core_s_driver_bound_to_its_hooks(name):
    module = cardenvs.get_spec(name).module
    rules = module.rules
    for driver in DRIVERS:
        py_func = getattr(module, driver).py_func
        assert py_func.__code__ is getattr(step_driver, driver).__code__, driver
        assert py_func.__qualname__ == f"cardenvs.games.{name}.rules.{driver}"  # numba's cache: one per game
        for hook in step_driver.REQUIRED:
            assert py_func.__globals__[hook] is getattr(rules, hook), (driver, hook)
    names = module.step_batch.py_func.__globals__
    assert names["MAX_PLAYERS"] == rules.MAX_PLAYERS and names["NUM_ACTIONS"] == rules.NUM_ACTIONS
    assert names["BORROW_OUTPUTS"] == ("borrow_outputs" in getattr(rules, "DRIVER_OPTIONS", ()))
    for optional in step_driver.OPTIONAL:  # the game's own, or core's default bound to its constants
        given = getattr(rules, optional, None)
        assert names[optional] is given if given is not None else names[optional].py_func.__globals__ is names
    assert module.mask_batch.__globals__ is names
    # the threaded step runs the game's own compiled step, which releases the GIL for it
    assert module.step_batch_parallel.step_batch is module.step_batch
    assert module.step_batch.targetoptions.get("nogil") is True


def test_the_games_do_not_share_a_compiled_driver():
    seen = {}
    for spec in _games():
        for driver in DRIVERS:
            kernel = getattr(spec.module, driver)
            assert kernel not in seen, (spec.name, driver, seen.get(kernel))
            seen[kernel] = spec.name


@pytest.mark.parametrize("name", ["president", "odin", "rami51", "frime", "classes"])
def test_mask_batch_recomputes_the_mask_and_changes_nothing_else(name):
    env = cardenvs.make_vec(name, num_envs=8, seed=3)
    state = env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(40):
        state = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in state.legal_action_mask]))
    before = env.states.copy()
    module = env.spec.module
    module.mask_batch(env.states)
    assert env.states.tobytes() == before.tobytes()


# ----------------------------------------------------------------------------- refusals
@njit
def _start(s, ws):
    pass


@njit
def _refresh(s):
    pass


@njit
def _apply(s, a, ws):
    return False


@njit
def _penalise(s, offender):
    pass


@njit
def _legal(s, ws, trusted):
    pass


@njit
def _observe(s, viewer, out):
    pass


@njit
def _swapped(s, trusted, ws):
    pass


def _toy(**changes) -> types.ModuleType:
    """A rules module with every required hook, the right parameters (nothing compiles:
    binding is checked before the first call)."""
    toy = types.ModuleType("toy.rules")
    toy.MAX_PLAYERS, toy.NUM_ACTIONS, toy.PHASE_OVER, toy.OBS_DTYPE = 4, 10, 3, np.dtype(np.float32)
    toy.start_match = _start
    toy.refresh = _refresh
    toy.apply_legal_action = _apply
    toy.penalise = _penalise
    toy.legal_mask = _legal
    toy.observe = _observe
    for key, value in changes.items():
        if value is None:
            delattr(toy, key)
        else:
            setattr(toy, key, value)
    return toy


def test_a_toy_game_binds_without_compiling():
    driver = step_driver.bind(_toy())
    assert not driver.step_batch.signatures
    names = driver.step_batch.py_func.__globals__
    assert names["start_match"] is _start and names["is_legal"].py_func.__qualname__ == "toy.rules.is_legal"
    assert names["PREFETCH"] is False and names["HAS_WORKSPACE"] is False
    # hooks from outside the package: compiled, but not cached (the cache is keyed on its sources)
    assert driver.step_batch._cache.__class__.__name__ == "NullCache"


@pytest.mark.parametrize(("changes", "message"), [
    ({"refresh": None}, r"needs the hook refresh\(s\)"),
    ({"legal_mask": _apply}, r"legal_mask\(s, a, ws\): the driver calls legal_mask\(s, ws, trusted\)"),
    ({"legal_mask": _swapped}, r"legal_mask\(s, trusted, ws\): the driver calls legal_mask\(s, ws, trusted\)"),
    ({"write_mask": _apply}, r"write_mask\(s, a, ws\): the driver calls write_mask\(s, mask_row\)"),
    ({"observe": lambda s, viewer, out: None}, "observe must be a compiled function"),
    ({"DRIVER_OPTIONS": ("fast",)}, "unknown 'fast'"),
    ({"PHASE_OVER": None}, "needs the constant PHASE_OVER"),
])
def test_a_missing_or_odd_hook_is_refused_by_name(changes, message):
    with pytest.raises(step_driver.HookError, match=message):
        step_driver.bind(_toy(**changes))
