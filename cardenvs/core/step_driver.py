"""The batch driver, written once: every game's ``step_batch``, ``observe_batch``,
``mask_batch``, ``reset_batch`` and ``refresh_batch``, around the hooks that the last
section of the game's ``rules.py`` defines ("the step driver's hooks"), and
``step_batch_parallel``, the same step over threads (core/threads.py).

How one driver serves every game: numba reads a compiled function's global names when it
compiles it, from the function's globals. :func:`bind` makes, for one game, copies of the
driver functions below whose globals are this module's names with the game's hooks and
constants put over them, and compiles those; the copies are cached under names of their own
(``cardenvs.games.odin.rules.step_batch``). Passing the hooks as arguments would not do: numba caches no
function that takes a compiled function as an argument or closes over one
(docs/adding-a-game.md, "One driver, bound to each game's hooks").

The hooks, each called with the parameters it is written with below (a game's hook takes
the same ones, used or not):

======================  ========  ===========================================================
hook                    needed    called
======================  ========  ===========================================================
``new_workspace()``     optional  once per call: the work arrays, a one-record array (``ws``
                                  is its record)
``start_match``         yes       ACT_RESET, and auto-reset of a finished match
``refresh``             yes       ACT_REFRESH: a state loaded from outside (derived fields)
``is_legal``            optional  is the action legal? (default: ``s.legal[a]``)
``apply_legal_action``  yes       a legal action; returns True when a round ended
``penalise``            yes       an illegal action (``illegal_action="penalty"``)
``after_close``         optional  after ``close_step``; returns more EVENT_* flags
``legal_mask``          yes       the legal actions of the player to move, into the state
``only_legal_action``   optional  the single legal action or -1 (default: over ``s.legal``)
``write_mask``          optional  the mask row out (default: copied from ``s.legal``)
``observe``             yes       the observation of seat ``viewer``, into ``out``
======================  ========  ===========================================================

``trusted`` (of ``legal_mask``) is False after ACT_REFRESH: what earlier steps kept in the
state is not to be believed. A hook that is a few lines around the game's kernels is
``inline="always"``, so that the compiled driver is what a hand-written one would be: a
wrapper compiled on its own above a big kernel would compile that kernel once more
(docs/adding-a-game.md, "Keeping the cold compile short").

A game's ``DRIVER_OPTIONS`` (a tuple of names, the performance tricks the game measured
worth it; each is explained where the driver uses it) turns on ``"borrow_outputs"`` and
``"prefetch"``.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from cardenvs.core.borrow import borrowed, keep_alive, prefetch_read
from cardenvs.core.jitcache import bound_copy, in_project
from cardenvs.core.protocol import (
    ACT_HOLD,
    ACT_MASK,
    ACT_REFRESH,
    ACT_RESET,
    EVENT_FORCED_SHIFT,
    EVENT_ILLEGAL,
    EVENT_ROUND_END,
    EVENT_TERMINATED,
    EVENT_TRUNCATED,
    FORCED_LIMIT,
    MODE_AUTO_FORCED,
    MODE_AUTO_RESET,
)
from cardenvs.core.step import close_step, only_legal, reset_drivers
from cardenvs.core.threads import ThreadedStep

OPTIONS = ("borrow_outputs", "prefetch")

# ----------------------------------------------------------------- what bind() puts in per game
# The game's constants (of its rules.py) and options; these stand-ins are never compiled.
MAX_PLAYERS = NUM_ACTIONS = PHASE_OVER = 0
OBS_DTYPE = np.dtype(np.float32)
BORROW_OUTPUTS = PREFETCH = HAS_WORKSPACE = False


# The hooks a game must define: these say how the driver calls them (never compiled).
def start_match(s, ws):
    """A new match in ``s`` (its rng and options already set)."""
    raise NotImplementedError


def refresh(s):
    """A state loaded from outside gets its derived fields back."""
    raise NotImplementedError


def apply_legal_action(s, a, ws):
    """Apply the legal action ``a``; True when a round ended."""
    raise NotImplementedError


def penalise(s, offender):
    """The penalty of an illegal action by seat ``offender``."""
    raise NotImplementedError


def legal_mask(s, ws, trusted):
    """The legal actions of the player to move, into the state."""
    raise NotImplementedError


def observe(s, viewer, out):
    """The observation of seat ``viewer``, into ``out``."""
    raise NotImplementedError


# The hooks a game may define; these defaults are bound like the driver (inlined into it).
def new_workspace():
    """The step's work arrays: a one-record array whose record the hooks get as ``ws``
    (without it, ``ws`` is 0)."""
    raise NotImplementedError


def is_legal(s, a):
    return 0 <= a < NUM_ACTIONS and s.legal[a] != 0


def after_close(s, rewards_row):
    return 0


def only_legal_action(s):
    return only_legal(s.legal, NUM_ACTIONS)


def write_mask(s, mask_row):
    for k in range(NUM_ACTIONS):
        mask_row[k] = s.legal[k] != 0


REQUIRED = ("start_match", "refresh", "apply_legal_action", "penalise", "legal_mask", "observe")
OPTIONAL = ("new_workspace", "is_legal", "after_close", "only_legal_action", "write_mask")
CONSTANTS = ("MAX_PLAYERS", "NUM_ACTIONS", "PHASE_OVER", "OBS_DTYPE")


# ----------------------------------------------------------------------------- the driver
# One compiled function holds the whole per-game step; resets and loaded states go through
# it as pseudo-actions (core.protocol.ACT_RESET/ACT_REFRESH/ACT_MASK): each compiled layer
# above the rules would compile them all again (docs/adding-a-game.md, "cold compile").
def step_batch(states, actions, masks, obs, rewards, events, current, mode):
    """Step every game of the batch by its action (one compiled call): apply it (or
    penalise it), auto-reset a finished match (MODE_AUTO_RESET), play the forced moves
    that follow (MODE_AUTO_FORCED), then the next mask (kept in the state and copied out)
    and the observation of the player to move. Stepping a finished game (no auto-reset)
    changes nothing; its all-false mask and its observation are written again (the
    output rows are fresh buffers). ACT_HOLD leaves a game alone (its rewards row and
    events zeroed, its mask and observation rows not written); ACT_MASK recomputes the
    mask only (no observation)."""
    auto_reset = (mode & MODE_AUTO_RESET) != 0
    auto_forced = (mode & MODE_AUTO_FORCED) != 0
    if HAS_WORKSPACE:
        # the work arrays, reused by every game of the batch: one record (passed as one
        # pointer, its arrays without reference counts), held by a one-element array
        owner = new_workspace()
        ws = owner[0]
    else:
        ws = 0  # no work arrays (numba drops the branch a game's constant rules out)
    if BORROW_OUTPUTS:
        # the caller's arrays live through the call: their rows are taken without
        # reference counts (core/borrow.py)
        obs = borrowed(obs)
        rewards = borrowed(rewards)
    n = states.shape[0]
    row = np.int64(states.itemsize)
    for i in range(n):
        if PREFETCH and i + 1 < n:  # the next game's state row into the caches meanwhile (a big record)
            prefetch_read(states, (i + 1) * row, (i + 2) * row)
        s = states[i]
        a = actions[i]
        rewards[i, :] = 0.0
        current[i] = s.current
        if a == ACT_HOLD:
            events[i] = 0
            continue
        ev = 0
        forced = 0
        trusted = True
        while True:  # the action, then each forced move after it (MODE_AUTO_FORCED)
            if a == ACT_RESET:
                start_match(s, ws)
            elif a == ACT_REFRESH:
                refresh(s)
                trusted = False  # nothing kept in a loaded state is believed
            elif a == ACT_MASK:
                pass
            elif s.phase == PHASE_OVER:
                ev = EVENT_TERMINATED if s.terminated else EVENT_TRUNCATED
            else:
                for q in range(MAX_PLAYERS):  # constant bounds: stores, not a memset call
                    s.rewards[q] = 0.0
                if is_legal(s, a):
                    if apply_legal_action(s, a, ws):
                        ev |= EVENT_ROUND_END
                else:
                    penalise(s, s.current)
                    ev |= EVENT_ILLEGAL
                ev |= close_step(s, rewards[i], np.int8(PHASE_OVER))
                ev |= after_close(s, rewards[i])
                if (s.terminated or s.truncated) and auto_reset:
                    start_match(s, ws)
            legal_mask(s, ws, trusted)
            if (not auto_forced or a == ACT_REFRESH or a == ACT_MASK or s.phase == PHASE_OVER
                    or forced >= FORCED_LIMIT):
                break
            a = only_legal_action(s)
            if a < 0:
                break
            forced += 1
            trusted = True
        write_mask(s, masks[i])
        events[i] = ev | (forced << EVENT_FORCED_SHIFT)
        current[i] = s.current
        if a != ACT_MASK:
            observe(s, np.int64(s.current), obs[i])  # int64 like observe_batch: one compiled observe
    if HAS_WORKSPACE:
        keep_alive(owner)  # a use after the loop: its record ws does not keep it from being freed


def observe_batch(states, viewer, obs):
    """Observation of seat ``viewer[i]`` in game i."""
    for i in range(states.shape[0]):
        observe(states[i], viewer[i], obs[i])


def mask_batch(states) -> None:
    """Recompute the legal mask of every game in place (``states["legal"]``), nothing else
    (the pseudo-action ACT_MASK): to measure the mask's cost."""
    n = states.shape[0]
    step_batch(states, np.full(n, ACT_MASK, dtype=np.int64), np.empty((n, NUM_ACTIONS), dtype=np.bool_),
               np.empty((n, 0), dtype=OBS_DTYPE), np.empty((n, MAX_PLAYERS), dtype=np.float32),
               np.empty(n, dtype=np.int32), np.empty(n, dtype=np.int32), 0)


# ----------------------------------------------------------------------------- binding
class HookError(ValueError):
    """A game's rules do not give the driver what it needs."""


class Driver(NamedTuple):
    """A game's batch driver (what its package exports under these names)."""

    step_batch: Callable
    step_batch_parallel: ThreadedStep
    observe_batch: Callable
    mask_batch: Callable
    reset_batch: Callable
    refresh_batch: Callable


def _params(func: Any) -> list[str]:
    return list(inspect.signature(getattr(func, "py_func", func)).parameters)


def bind(rules: types.ModuleType) -> Driver:
    """The batch driver of the game whose kernels are ``rules`` (its ``rules.py``): the
    functions above, compiled (on first use, then from numba's cache) around its hooks.
    HookError when a hook is missing or takes other parameters than the driver passes."""
    game = rules.__name__  # the copies' names: "cardenvs.games.odin.rules.step_batch"
    here = globals()
    options = tuple(getattr(rules, "DRIVER_OPTIONS", ()))
    for opt in options:
        if opt not in OPTIONS:
            raise HookError(f"{rules.__name__}: DRIVER_OPTIONS: unknown {opt!r} (known: {', '.join(OPTIONS)})")
    names = dict(here)
    names["__name__"] = rules.__name__.rpartition(".")[0] or rules.__name__
    names["BORROW_OUTPUTS"] = "borrow_outputs" in options
    names["PREFETCH"] = "prefetch" in options
    names["HAS_WORKSPACE"] = hasattr(rules, "new_workspace")
    for const in CONSTANTS:
        if not hasattr(rules, const):
            raise HookError(f"{rules.__name__}: the step driver needs the constant {const}")
        names[const] = getattr(rules, const)
    for hook in REQUIRED + OPTIONAL:
        wanted = _params(here[hook])
        if hasattr(rules, hook):
            given = getattr(rules, hook)
            if not hasattr(given, "py_func"):
                raise HookError(f"{rules.__name__}: {hook} must be a compiled function (numba.njit)")
            if _params(given) != wanted:
                raise HookError(f"{rules.__name__}: {hook}({', '.join(_params(given))}): the driver calls "
                                f"{hook}({', '.join(wanted)})")
            names[hook] = given
        elif hook in REQUIRED:
            raise HookError(f"{rules.__name__}: the step driver needs the hook {hook}({', '.join(wanted)}) "
                            "(see cardenvs/core/step_driver.py)")
        else:  # the default, compiled into the driver with the game's constants
            names[hook] = njit(inline="always", no_cfunc_wrapper=True)(bound_copy(here[hook], names, f"{game}.{hook}"))
    # cached when the hooks are the project's (the cache is keyed on the project's sources)
    cached = all(in_project(getattr(getattr(rules, hook, None), "py_func", None).__code__)
                 for hook in REQUIRED + OPTIONAL if hasattr(rules, hook))
    for name, nogil in (("step_batch", True), ("observe_batch", False)):
        # nogil: the threaded step runs this kernel on Python threads (core/threads.py)
        copy = bound_copy(here[name], names, f"{game}.{name}")
        names[name] = njit(cache=cached, no_cfunc_wrapper=True, nogil=nogil)(copy)
    reset_batch, refresh_batch = reset_drivers(names["step_batch"], names["MAX_PLAYERS"])
    return Driver(names["step_batch"], ThreadedStep(names["step_batch"]), names["observe_batch"],
                  bound_copy(mask_batch, names, f"{game}.mask_batch"), reset_batch, refresh_batch)
