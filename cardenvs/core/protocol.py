"""The game protocol: what every game package provides (:class:`GameProtocol`), and the
generic state I/O.

A game is a package of ``cardenvs/games/``: numba kernels over a numpy structured dtype
(one record per game) in ``rules.py``, Python helpers in ``text.py``, and an
``__init__.py`` that gathers what the generic code asks of a game. ``docs/adding-a-game.md``
walks through it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Protocol, runtime_checkable

import numpy as np

from cardenvs.core.cards import card_str, counts_to_cards, odin_card_str, parse_cards

# Pseudo-actions of ``step_batch`` (never a player's action: the envs map negative actions
# to an illegal one): start a new match, or take a state loaded from outside as it is
# (derived fields recounted). reset_batch/refresh_batch are step_batch with these, so that
# one compiled function holds each game's whole step (see docs/adding-a-game.md).
ACT_RESET = -2
ACT_REFRESH = -3
# Recompute the mask only, without the observation (a game's ``mask_batch``: to measure the
# mask's cost).
ACT_MASK = -4
# Leave the game as it is: its rewards row and events are zeroed, its mask and observation
# rows are not written (the caller keeps its own). Lets a driver step only some games of a
# batch in one call, such as the opponents' games in cardenvs.integrations.gym.LearnerVecEnv.
ACT_HOLD = -5

# The ``mode`` argument of step_batch: bit flags
MODE_AUTO_RESET = 1  # a match that ends is restarted within the same call
# A player with exactly one legal action has it played for them, inside the call, until a
# real choice or the match's end (after an auto-reset, on into the new match; also after
# ACT_RESET, never after ACT_REFRESH: a loaded state is shown as loaded). The rewards of
# the skipped decisions add up into the step's rewards; each counts as a step for max_steps.
MODE_AUTO_FORCED = 2
FORCED_LIMIT = 100_000  # at most this many forced moves per call: a guard, never reached by the rules

# Step events, bit flags returned per game by step_batch (events: int32)
EVENT_ROUND_END = 1
EVENT_ILLEGAL = 2
EVENT_TERMINATED = 4
EVENT_TRUNCATED = 8
EVENT_REWARD = 16  # some player got a non-zero reward on this step
EVENT_FORCED_SHIFT = 8  # events >> 8: the number of forced moves played in this call (MODE_AUTO_FORCED)


@dataclass(frozen=True)
class Field:
    """How one state field is written in ``state_dict`` and read back.

    kinds: ``int``, ``bool``, ``float``, ``hex64`` (the rng), ``enum`` (names),
    ``symbol`` (an index into ``names``, a string; -1 is None), ``seats_int``,
    ``seats_bool``, ``seats_float`` (one value per player), ``seats_card`` (a card
    id per player, -1 is None), ``hands`` (card counts per player), ``cards``
    (card counts), ``seat_list`` (seats in order; ``count`` names the length field),
    ``card_seq`` (card ids in order, such as a stock or a discard pile: a list of card
    strings; ``count`` names the length field), ``custom`` (written and read by the game
    module's ``custom_to_dict(rec, name)`` and ``custom_from_dict(rec, name, value)``;
    ``custom_counts(rec, name)`` gives its card counts for conservation).
    ``option`` marks a constructor option: a scenario may repeat it but not change it.
    ``counted=False`` leaves a card field out of card conservation (a subset of other
    cards, such as Odin's publicly known cards of each hand).
    ``low``: the smallest value an ``int`` or ``seats_int`` field takes (a round number
    from 1, a count from 0); None leaves only the field's dtype as the bound.
    """

    name: str
    kind: str
    names: tuple[str, ...] | str = ()
    count: str = ""
    option: bool = False
    counted: bool = True
    low: int | None = None


@dataclass(frozen=True)
class GameSpec:
    """A registry entry: one game and the options its constructor takes."""

    name: str
    env_id: str
    title: str
    module: ModuleType
    min_players: int
    max_players: int
    default_players: int
    summary: str
    doc: str
    odin_cards: bool = False
    options: dict[str, Any] = field(default_factory=dict)
    #: which way the match score (``round_info(...)["scores"]``) is better: "higher" or "lower"
    score_sense: str = "higher"
    #: the rewards of a match (default ``reward_mode``, legal play) add up to zero
    zero_sum: bool = True
    #: earlier env ids of this game whose trained policies play this version: each maps to
    #: None (the same observation) or to a function that turns this version's observation
    #: rows (K, OBS_SIZE) into that version's; the actions are the same
    earlier_versions: dict[str, Any] = field(default_factory=dict)
    #: game options of its Gymnasium id (``cardenvs/<game>-vN``) over the game's defaults:
    #: the episode a learner starts from (a single round where a whole match runs to
    #: hundreds of decisions and pays only at its end); ``gymnasium.make`` keywords override them
    gym_options: dict[str, Any] = field(default_factory=dict)

    def __reduce__(self) -> tuple[Any, ...]:
        # the module does not pickle: a spec travels as its game package's name, whose SPEC
        # it is (deep copies too)
        return (_spec_of, (self.module.__name__,))


def _spec_of(module_name: str) -> GameSpec:
    import importlib

    return importlib.import_module(module_name).SPEC


@dataclass(frozen=True)
class OptionSpec:
    """One constructor option of a game, read from ``make_template``'s signature."""

    name: str
    kind: str  # "int", "bool", "float" or "str"
    default: Any
    optional: bool  # None is accepted (the game picks a value)


def options_schema(module: ModuleType) -> dict[str, OptionSpec]:
    """The game's options, in order: names, types and defaults of ``make_template``.

    The signature is the schema: annotations ``int``, ``bool``, ``float``, ``str``, and
    ``X | None`` for an option that may be left to the game. The envs, the CLI and the
    docs' options tables (checked by a test) all read it."""
    import inspect

    out: dict[str, OptionSpec] = {}
    for p in inspect.signature(module.make_template).parameters.values():
        ann = str(p.annotation).replace(" ", "")
        optional = ann.endswith("|None")
        kind = ann.removesuffix("|None")
        if kind not in ("int", "bool", "float", "str"):
            raise TypeError(f"{module.__name__}.make_template: option {p.name} needs an int, bool, float or str "
                            f"annotation, got {p.annotation!r}")
        out[p.name] = OptionSpec(p.name, kind, p.default, optional)
    return out


@runtime_checkable
class GameProtocol(Protocol):
    """What a game package provides to the envs, the CLI and the adapters (checked when it is
    registered, and for every game by a test). A module satisfies it the way a class would:
    the functions below are the module's functions (``self`` stands for nothing).

    Layout
        ``STATE_DTYPE`` (with the fields of ``REQUIRED_FIELDS``), ``MAX_PLAYERS``,
        ``NUM_ACTIONS``, ``OBS_SIZE``, ``OBS_DTYPE`` (the observation's numpy dtype),
        ``PHASE_NAMES``; ``rules`` is the module of the kernels, whose other public names are
        the game's action ids and observation offsets.
    Kernels (numba, leading batch dimension; masks are bool, observations OBS_DTYPE)
        ``step_batch(states, actions, masks, obs, rewards, events, current, mode)`` and
        ``step_batch_parallel`` (the same over threads): one decision per game, the mask of
        the previous step tells legality (an illegal action is penalised); ``mode`` holds
        the MODE_* flags below (auto-reset, forced moves played). ``reset_batch(states,
        masks, obs, current, mode=0)``: a new match in every game; ``refresh_batch(states,
        masks, obs, current)``: masks and observations of loaded states (both are
        ``core.step.reset_drivers(step_batch, ...)``); ``observe_batch(states, viewer, obs)``.
    Python helpers
        ``action_to_str``, ``str_to_action``, ``make_template(**options)`` (its signature is
        the options' schema), ``STATE_FIELDS`` (a :class:`Field` list for ``state_dict``; a
        ``hands`` field is required), ``REST_FIELD`` (the card field that takes the cards a
        scenario does not place), ``deck_counts``, ``validate_state``, ``observation_bounds``,
        ``render_text``, ``round_info``, ``table_view`` (what one seat sees, as a JSON-able
        dict that :mod:`cardenvs.core.picture` draws: the game's ``picture.py``).
    Optional (looked up with ``getattr``)
        ``public_action_str`` (an action as the other players see it), ``complete_scenario``
        (derive fields a partial scenario implies), ``CACHE_FIELDS`` (state fields that only
        speed up the masks, holding what earlier steps proved: not in ``state_dict``; a
        loaded state starts without them, and ``ACT_REFRESH`` must not use them),
        ``custom_to_dict``/``custom_from_dict``/``custom_counts`` (for ``custom`` fields),
        ``narration`` (what a person at the table is told: :mod:`cardenvs.core.narration`),
        ``prepare_scenario`` (clear what a scenario's own keys replace, before the cards are
        counted), ``TURN_SECONDS`` and ``timeout_actions`` (a timed turn in the CLI, and what it
        plays when the time runs out),
        ``LINE_OPENER`` (the move a whole play typed on one line in the CLI starts with where its
        first card needs it, e.g. ``"meld"``),
        ``LINE_FINISHER`` (the move added where such a line stops before it, e.g. ``"close"``),
        ``deal_unseen_batch`` and ``UNSEEN_KEYS`` (deal the cards a seat cannot see again;
        the kernel returns a flag per game, False for a deal that breaks a public fact, which
        is then dealt again), ``check_unseen`` (ValueError for states whose options rule a
        fair re-deal out),
        ``mask_batch``, ``play_actions``.
    """

    STATE_DTYPE: np.dtype
    MAX_PLAYERS: int
    NUM_ACTIONS: int
    OBS_SIZE: int
    OBS_DTYPE: type
    PHASE_NAMES: tuple[str, ...]
    STATE_FIELDS: Sequence[Field]
    REST_FIELD: str
    rules: ModuleType
    step_batch: Callable[..., None]
    step_batch_parallel: Callable[..., None]
    observe_batch: Callable[..., None]

    def reset_batch(self, states: np.ndarray, masks: np.ndarray, obs: np.ndarray, current: np.ndarray,
                    mode: int = 0) -> np.ndarray: ...

    def refresh_batch(self, states: np.ndarray, masks: np.ndarray, obs: np.ndarray,
                      current: np.ndarray) -> np.ndarray: ...

    def action_to_str(self, a: int) -> str: ...

    def str_to_action(self, text: str) -> int: ...

    def make_template(self, **options: Any) -> np.ndarray: ...

    def deck_counts(self, state: np.void) -> np.ndarray: ...

    def validate_state(self, rec: np.void) -> None: ...

    def observation_bounds(self, template: np.ndarray) -> tuple[float, float]: ...

    def render_text(self, rec: np.void, viewer: int | None = None) -> str: ...

    def round_info(self, rec: np.void) -> dict: ...

    def table_view(self, rec: np.void, viewer: int | None) -> dict: ...


def protocol_names() -> tuple[str, ...]:
    """The names every game package defines: :class:`GameProtocol`'s members."""
    members = [n for n in GameProtocol.__annotations__]
    members += [n for n, v in vars(GameProtocol).items() if callable(v) and not n.startswith("_")]
    return tuple(dict.fromkeys(members))


REQUIRED_FIELDS = ("rng", "num_players", "current", "phase", "terminated", "truncated", "rewards", "hands",
                   "num_steps", "max_steps")


def check_game_module(module: ModuleType) -> None:
    """ValueError listing what a game module lacks of the protocol (names, state fields,
    a usable options schema, custom-field helpers)."""
    missing = [n for n in protocol_names() if not hasattr(module, n)]
    if not missing:
        fields = module.STATE_DTYPE.names or ()
        missing += [f"STATE_DTYPE field {f!r}" for f in REQUIRED_FIELDS if f not in fields]
        if any(f.kind == "custom" for f in module.STATE_FIELDS):
            missing += [n for n in ("custom_to_dict", "custom_from_dict", "custom_counts") if not hasattr(module, n)]
        if not any(f.name == "hands" for f in module.STATE_FIELDS):
            missing.append("a 'hands' entry in STATE_FIELDS")
    if missing:
        raise ValueError(f"{module.__name__} does not follow the game protocol: missing {', '.join(missing)}")
    options_schema(module)  # raises on an option without a usable annotation


def check_options(game: str, module: ModuleType, options: dict[str, Any]) -> dict[str, Any]:
    """The options checked against the game's schema: an unknown name is a ValueError that
    lists the valid ones, a value of the wrong type a TypeError naming the option (a bool
    option takes True or False, an int option an integer, a float option a finite number).
    Ranges are the game's ``make_template``'s to check. Returns the options, ints as int."""
    schema = options_schema(module)
    out: dict[str, Any] = {}
    for name, value in options.items():
        spec = schema.get(name)
        if spec is None:
            raise ValueError(f"{game}: unknown option {name!r}; options: {', '.join(schema)}")
        if value is None and spec.optional:
            out[name] = None
            continue
        kind = spec.kind
        is_bool = isinstance(value, (bool, np.bool_))
        if kind == "bool":
            ok = is_bool
        elif kind == "int":
            ok = not is_bool and isinstance(value, (int, np.integer))
        elif kind == "float":
            ok = not is_bool and isinstance(value, (int, float, np.integer, np.floating)) and _fits_float(value)
        else:
            ok = isinstance(value, str)
        if not ok:
            want = {"bool": "True or False", "int": "an integer", "float": "a finite number", "str": "a string"}[kind]
            raise TypeError(f"{game}: option {name} must be {want}{' or None' if spec.optional else ''}, "
                            f"got {value!r}")
        if kind == "int":
            field_type = module.STATE_DTYPE.fields.get(name, (None,))[0] if module.STATE_DTYPE.names else None
            if field_type is not None and field_type.kind in "iu":
                info = np.iinfo(field_type)  # the record field that stores it
                if not info.min <= int(value) <= info.max:
                    raise ValueError(f"{game}: option {name} must be in {info.min:,} .. {info.max:,}, got {value!r}")
        out[name] = bool(value) if kind == "bool" else int(value) if kind == "int" else value
    return out


def _fits_float(value: Any) -> bool:
    try:
        return bool(np.isfinite(float(value)))
    except (OverflowError, ValueError):
        return False


def check_int_option(game: str, name: str, value: Any, low: int, high: int | None = None) -> int:
    """Validate an integer constructor option; ValueError naming the game and option."""
    ok = not isinstance(value, bool) and isinstance(value, (int, np.integer))
    if not ok or value < low or (high is not None and value > high):
        span = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{game}: {name} must be an integer {span}, got {value!r}")
    return int(value)



def check_bool_option(game: str, name: str, value: Any) -> bool:
    """Validate a True/False constructor option (no truthy stand-in such as ``"false"``)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{game}: {name} must be True or False, got {value!r}")
    return bool(value)


def check_choice_option(game: str, name: str, value: Any, choices: tuple) -> int:
    """Validate an option that is one of ``choices``; returns its index (what the state holds)."""
    if isinstance(value, bool) or value not in choices:
        raise ValueError(f"{game}: {name} must be one of {choices}, got {value!r}")
    return choices.index(value)


def options_record(dtype: np.dtype, **options: Any) -> np.ndarray:
    """A game's template: a one-record state array, zero but for the options given (already
    validated), which every reset copies into the state."""
    template = np.zeros(1, dtype=dtype)
    for name, value in options.items():
        template[name] = value
    return template


# --------------------------------------------------------------------------- state I/O
def _fmt_card(spec: GameSpec, c: int) -> str:
    return odin_card_str(c) if spec.odin_cards else card_str(c)


def state_to_dict(spec: GameSpec, rec: np.void) -> dict[str, Any]:
    """The whole state of one game as a JSON-serialisable dict (see :class:`Field`)."""
    P = int(rec["num_players"])
    out: dict[str, Any] = {"game": spec.name}
    for f in spec.module.STATE_FIELDS:
        k = f.kind
        v = rec[f.name] if k != "custom" else None
        if k == "int":
            out[f.name] = int(v)
        elif k == "bool":
            out[f.name] = bool(v)
        elif k == "float":
            out[f.name] = float(v)
        elif k == "hex64":
            out[f.name] = f"{int(v):016x}"
        elif k == "enum":
            out[f.name] = f.names[int(v)]
        elif k == "symbol":
            out[f.name] = None if int(v) < 0 else f.names[int(v)]
        elif k == "seats_int":
            out[f.name] = [int(x) for x in v[:P]]
        elif k == "seats_bool":
            out[f.name] = [bool(x) for x in v[:P]]
        elif k == "seats_float":
            out[f.name] = [float(x) for x in v[:P]]
        elif k == "seats_card":
            out[f.name] = [None if int(x) < 0 else _fmt_card(spec, int(x)) for x in v[:P]]
        elif k == "hands":
            out[f.name] = [counts_to_cards(v[p], odin=spec.odin_cards) for p in range(P)]
        elif k == "cards":
            out[f.name] = counts_to_cards(v, odin=spec.odin_cards)
        elif k == "seat_list":
            out[f.name] = [int(x) for x in v[: int(rec[f.count])]]
        elif k == "card_seq":
            out[f.name] = [_fmt_card(spec, int(x)) for x in v[: int(rec[f.count])]]
        elif k == "custom":
            out[f.name] = spec.module.custom_to_dict(rec, f.name)
        else:  # pragma: no cover - a game declared an unknown kind
            raise AssertionError(f"unknown field kind {k!r}")
    return out


def _card_counts(spec: GameSpec, cards: Any, size: int, where: str, high: int) -> np.ndarray:
    """Card counts of a list of cards; a card held more than ``high`` times (the record's
    bound: a uint8 count would keep it modulo 256) is a ValueError."""
    if not isinstance(cards, (list, tuple, str)):
        raise ValueError(f"scenario {where}: expected a list of cards, got {cards!r}")
    counts = np.zeros(size, dtype=np.int64)
    for c in parse_cards(cards, odin=spec.odin_cards):
        if c >= size:
            raise ValueError(f"scenario {where}: card {_fmt_card(spec, c)!r} is not in this game")
        counts[c] += 1
    if counts.size and counts.max() > high:
        c = int(counts.argmax())
        raise ValueError(f"scenario {where}: card {_fmt_card(spec, c)!r} appears {int(counts[c])} times, "
                         f"more than the decks hold")
    return counts


def _seat(value: Any, P: int, where: str, allow_none: bool = False) -> int:
    if value is None and allow_none:
        return -1
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < P:
        raise ValueError(f"scenario {where}: expected a seat 0..{P - 1}, got {value!r}")
    return int(value)


def _set_field(spec: GameSpec, rec: np.void, f: Field, value: Any, P: int) -> None:
    k = f.kind
    name = f.name
    size = rec[name].shape[-1] if k != "custom" and rec[name].shape else 0
    if k == "int":
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"scenario {name!r}: expected an integer, got {value!r}")
        info = np.iinfo(rec[name].dtype)
        low = info.min if f.low is None else max(info.min, f.low)
        if not low <= value <= info.max:
            raise ValueError(f"scenario {name!r}: {value} is out of range ({low}..{info.max})")
        rec[name] = value
    elif k == "float":
        if not _is_finite_number(value) or not _fits(value, rec[name].dtype):
            raise ValueError(f"scenario {name!r}: expected a finite number within {rec[name].dtype}, got {value!r}")
        rec[name] = value
    elif k == "bool":
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"scenario {name!r}: expected true or false, got {value!r}")
        rec[name] = value
    elif k == "hex64":
        try:
            number = int(value, 16) if isinstance(value, str) else -1
        except ValueError:
            number = -1
        if not 0 <= number < 2**64:
            raise ValueError(f"scenario {name!r}: expected 16 hex digits, got {value!r}")
        rec[name] = np.uint64(number)
    elif k in ("enum", "symbol"):
        if k == "symbol" and value is None:
            rec[name] = -1
        elif isinstance(value, str) and value in list(f.names):  # a whole name, not a substring
            rec[name] = list(f.names).index(value)
        else:
            raise ValueError(f"scenario {name!r}: expected one of {list(f.names)}, got {value!r}")
    elif k.startswith("seats_") or k == "hands":
        if not isinstance(value, (list, tuple)) or len(value) != P:
            raise ValueError(f"scenario {name!r}: expected a list of {P} entries (one per player), got {value!r}")
        for p, v in enumerate(value):
            if k == "seats_int":
                if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                    raise ValueError(f"scenario {name}[{p}]: expected an integer, got {v!r}")
                info = np.iinfo(rec[name].dtype)
                low = info.min if f.low is None else max(info.min, f.low)
                if not low <= v <= info.max:
                    raise ValueError(f"scenario {name}[{p}]: {v} is out of range ({low}..{info.max})")
                rec[name][p] = v
            elif k == "seats_bool":
                if not isinstance(v, (bool, np.bool_)):
                    raise ValueError(f"scenario {name}[{p}]: expected true or false, got {v!r}")
                rec[name][p] = bool(v)
            elif k == "seats_float":
                if not _is_finite_number(v) or not _fits(v, rec[name].dtype):
                    raise ValueError(f"scenario {name}[{p}]: expected a finite number within {rec[name].dtype}, "
                                     f"got {v!r}")
                rec[name][p] = float(v)
            elif k == "seats_card":
                rec[name][p] = -1 if v is None else parse_cards([v], odin=spec.odin_cards)[0]
            elif v is not None:  # hands; None entries are dealt by the loader
                rec[name][p] = _card_counts(spec, v, size, f"{name}[{p}]", _deck_high(spec, rec))
    elif k == "cards":
        rec[name] = _card_counts(spec, value, size, repr(name), _deck_high(spec, rec))
    elif k == "seat_list":
        if not isinstance(value, (list, tuple)) or len(value) > size:
            raise ValueError(f"scenario {name!r}: expected a list of at most {size} seats, got {value!r}")
        rec[name][:] = -1
        for i, v in enumerate(value):
            rec[name][i] = _seat(v, P, f"{name}[{i}]")
        rec[f.count] = len(value)
    elif k == "card_seq":
        if not isinstance(value, (list, tuple)) or len(value) > size:
            raise ValueError(f"scenario {name!r}: expected a list of at most {size} cards, got {value!r}")
        ids = parse_cards(list(value), odin=spec.odin_cards)
        rec[name][:] = 0
        rec[name][: len(ids)] = ids
        rec[f.count] = len(ids)
    elif k == "custom":
        spec.module.custom_from_dict(rec, name, value)
    else:  # pragma: no cover
        raise AssertionError(f"unknown field kind {k!r}")


def _fits(value: Any, dtype: np.dtype) -> bool:
    """A finite number stays finite in ``dtype`` (1e39 would be stored as inf in a float32)."""
    with np.errstate(over="ignore"):
        return bool(np.isfinite(np.asarray(value, dtype=dtype)))


def _deck_high(spec: GameSpec, rec: np.void) -> int:
    """The most copies of one card the game's decks hold (below every card count's dtype bound)."""
    return int(np.asarray(spec.module.deck_counts(rec)).max())


def _is_finite_number(value: Any) -> bool:
    return (not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer, np.floating))
            and bool(np.isfinite(value)))


def _field_counts(spec: GameSpec, rec: np.void, f: Field, size: int) -> np.ndarray:
    """Card counts (length ``size``) a card field holds, for card conservation."""
    if f.kind == "card_seq":
        return np.bincount(rec[f.name][: int(rec[f.count])].astype(np.int64), minlength=size)
    if f.kind == "custom":
        return np.asarray(spec.module.custom_counts(rec, f.name), dtype=np.int64)
    return rec[f.name].astype(np.int64).reshape(-1, size).sum(axis=0)


def state_from_dict(spec: GameSpec, rec: np.void, scenario: dict[str, Any], rng: np.random.Generator) -> None:
    """Overwrite ``rec`` (a freshly dealt game) with a full or partial scenario.

    Keys not given keep the dealt values. ``hands`` may hold ``None`` for a player:
    that hand is dealt at random (seeded), as many cards as the deal gave, from the
    cards no other key places. The game's ``REST_FIELD`` (the cards out of the
    hands) takes every card not placed unless it is given. Raises ValueError on
    unknown keys, bad values, or cards that do not add up to the decks.
    """
    if not isinstance(scenario, dict):
        raise ValueError(f"scenario must be a dict (as state_dict() returns), got {type(scenario).__name__}")
    fields = {f.name: f for f in spec.module.STATE_FIELDS}
    unknown = sorted(set(scenario) - set(fields) - {"game"})
    if unknown:
        raise ValueError(f"unknown scenario key(s) {unknown}; known keys: {sorted(fields)}")
    if scenario.get("game", spec.name) != spec.name:
        raise ValueError(f"scenario is for game {scenario['game']!r}, not {spec.name!r}")
    P = int(rec["num_players"])
    made_with = None  # the env's own state_dict, built once: a full scenario names every option
    for name, f in fields.items():
        if f.option and name in scenario:
            if made_with is None:
                made_with = state_to_dict(spec, rec)
            if not _same_option(scenario[name], made_with[name]):
                raise ValueError(
                    f"scenario sets option {name}={scenario[name]!r} but the env was made with "
                    f"{name}={made_with[name]!r}; make the env with that option instead"
                )
    dealt_sizes = rec["hands"].sum(axis=-1).astype(np.int64)
    for name, value in scenario.items():
        if name != "game" and not fields[name].option:
            try:
                _set_field(spec, rec, fields[name], value, P)
            except (TypeError, ValueError, OverflowError, IndexError, KeyError) as e:
                if str(e).startswith("scenario"):
                    raise ValueError(str(e)) from None
                shown = repr(value)
                raise ValueError(f"scenario {name!r}: {e}" + (f" (got {shown})" if len(shown) <= 60 else "")) from None
    prepare = getattr(spec.module, "prepare_scenario", None)
    if prepare is not None:
        prepare(rec, scenario)  # e.g. clear dealt cards the scenario's own keys replace

    deck = spec.module.deck_counts(rec).astype(np.int64)
    rest = spec.module.REST_FIELD
    card_kinds = ("hands", "cards", "card_seq", "custom")
    card_fields = [f.name for f in spec.module.STATE_FIELDS if f.kind in card_kinds and f.counted]
    random_hands = []
    if "hands" in scenario:
        random_hands = [p for p, h in enumerate(scenario["hands"]) if h is None]
    placed = np.zeros_like(deck)
    for name in card_fields:
        if name == rest and rest not in scenario:
            continue
        if name == "hands":
            arr = np.delete(rec[name].astype(np.int64)[:P], random_hands, axis=0)
            placed += arr.reshape(-1, deck.size).sum(axis=0)
        else:
            placed += _field_counts(spec, rec, fields[name], deck.size)
    too_many = [(_fmt_card(spec, c), int(placed[c]), int(deck[c])) for c in np.flatnonzero(placed > deck)]
    if too_many:
        desc = ", ".join(f"{c} appears {n} times but the decks hold {d}" for c, n, d in too_many)
        raise ValueError(f"scenario places too many cards: {desc}")
    free = np.repeat(np.arange(deck.size), deck - placed)
    rng.shuffle(free)
    for p in random_hands:
        n = int(dealt_sizes[p])
        if n > free.size:
            raise ValueError(f"scenario leaves {free.size} cards for hand {p}, which needs {n}")
        rec["hands"][p] = np.bincount(free[:n], minlength=deck.size)
        free = free[n:]
    if rest in scenario:
        if free.size:
            missing = " ".join(_fmt_card(spec, c) for c in sorted(free))
            raise ValueError(
                f"scenario accounts for {int(deck.sum()) - free.size} of {int(deck.sum())} cards; "
                f"missing: {missing} (put them in a hand or in {rest!r})"
            )
    elif fields[rest].kind == "card_seq":
        rec[rest][:] = 0
        rec[rest][: free.size] = free  # in the seeded shuffled order
        rec[fields[rest].count] = free.size
    else:
        rec[rest] = np.bincount(free, minlength=deck.size) if free.size else 0
    complete = getattr(spec.module, "complete_scenario", None)
    if complete is not None:
        complete(rec, scenario)
    _check_steps(rec)
    spec.module.validate_state(rec)


def _same_option(given: Any, made: Any) -> bool:
    """A scenario's option equals the env's, and is of its kind: ``true`` is not the
    integer 1, nor ``2.0`` the integer 2."""
    if isinstance(given, (bool, np.bool_)) != isinstance(made, (bool, np.bool_)):
        return False
    if isinstance(made, int) and not isinstance(made, bool) and not isinstance(given, (int, np.integer)):
        return False
    return bool(given == made)


def _check_steps(rec: np.void) -> None:
    """Every game: a match that runs has not reached ``max_steps`` (it would have been truncated)."""
    steps, cap = int(rec["num_steps"]), int(rec["max_steps"])
    over = bool(rec["terminated"] or rec["truncated"])
    if cap > 0 and (steps > cap or (steps == cap and not over)):
        raise ValueError(f"scenario 'num_steps': {steps} must stay below max_steps {cap} while the match runs "
                         f"(at most {cap} once it is over)")


# --------------------------------------------------------------------------- boundary checks
def check_flag(name: str, value: Any) -> bool:
    """A True/False argument: TypeError for anything else (``"false"``, ``0``, ``None``),
    never ``bool(value)``."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_positive_int(name: str, value: Any) -> int:
    """A count (matches, steps): a positive integer. TypeError for a float, a bool or a
    string (never ``int(value)``), ValueError below 1."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be a positive int, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def check_action(action: Any, num_actions: int, name: str = "action") -> int:
    """One action as an int: an integer (a numpy integer, or a 0-d integer array) in
    0..num_actions - 1. TypeError for a float, a bool, a string or an array (``1.9``, ``True``
    and ``"1"`` would be read as another action), ValueError out of range."""
    if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu":
        action = action.item()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"{name} must be an integer 0..{num_actions - 1}, got {action!r}")
    if not 0 <= action < num_actions:
        raise ValueError(f"{name} {action!r} is outside 0..{num_actions - 1}")
    return int(action)


def check_actions(actions: Any, num_envs: int, name: str = "actions") -> np.ndarray:
    """A batch of actions as an int64 array of shape (num_envs,): TypeError for floats,
    bools or strings (never ``astype``), ValueError for another shape."""
    given = np.asarray(actions)
    if given.dtype.kind not in "iu":
        raise TypeError(f"{name} must be integers of shape ({num_envs},), got dtype {given.dtype}")
    if given.size != num_envs or given.ndim > 2 or (given.ndim == 2 and 1 not in given.shape):
        raise ValueError(f"{name} must have shape ({num_envs},), got {given.shape}")
    if given.dtype.kind == "u" and given.size and given.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} must be action ids, got {int(given.max())}")  # no wrap to a negative id
    return np.ascontiguousarray(given.reshape(num_envs), dtype=np.int64)


def check_reset_options(options: Any, allowed: tuple[str, ...] = ("scenario",)) -> dict[str, Any]:
    """``reset``'s options: None or a dict whose keys are in ``allowed`` (a misspelt key
    such as ``"scenaro"`` is refused, not ignored). Returns a dict."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(f"reset options must be a dict such as {{'scenario': state}} or None, "
                        f"got {type(options).__name__}")
    # "options" is what PettingZoo's api_test sends to see that reset takes options: tolerated
    unknown = sorted(str(k) for k in options if k not in allowed and k != "options")
    if unknown:
        raise ValueError(f"unknown reset option(s) {unknown}; known: {list(allowed)}")
    return options


def check_game_index(i: Any, num_envs: int) -> int:
    """A game index 0..num_envs - 1 (no negative index from the end, no string)."""
    if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
        raise TypeError(f"game index must be an integer 0..{num_envs - 1}, got {i!r}")
    if not 0 <= i < num_envs:
        raise ValueError(f"game index must be 0..{num_envs - 1}, got {i!r}")
    return int(i)


# --------------------------------------------------------------------------- records given to agents
class EnvRecords(np.ndarray):
    """Game records an env of this package hands its agents (copies of its own, marked by
    its front ends: ``cardenvs eval``, ``play``, the Gymnasium opponents): every field came
    from the kernels, so an agent that runs kernels on them (the search agent,
    ``act_states``) takes them as they are. Records from anywhere else (the AEC env's
    ``state_record``, ``VecEnv.states``, an edited copy) go through :func:`checked_records`
    first."""


def env_records(states: np.ndarray) -> EnvRecords:
    """``states`` (records an env of this package holds) marked as such, without a copy."""
    return np.asarray(states).view(EnvRecords)


def checked_records(spec: GameSpec, states: Any) -> np.ndarray:
    """Game records safe for the kernels, as a new plain array: :class:`EnvRecords` are
    copied as they are; any other records are loaded, one by one, through the scenario
    checks (their ``state_dict`` into a freshly dealt game of the same options: card
    conservation and every value a kernel indexes with), since numba checks no bounds.
    TypeError for an array of another dtype, ValueError naming the record that fails."""
    game = spec.module
    if isinstance(states, EnvRecords):
        return np.array(states, copy=True).view(np.ndarray).reshape(-1)
    arr = np.asarray(states)
    if arr.dtype != game.STATE_DTYPE:
        raise TypeError(f"states must be {spec.name} records (its STATE_DTYPE), got dtype {arr.dtype}")
    arr = arr.reshape(-1)
    out = np.empty(arr.shape[0], dtype=game.STATE_DTYPE)
    masks = np.zeros((1, game.NUM_ACTIONS), np.bool_)
    obs = np.zeros((1, game.OBS_SIZE), game.OBS_DTYPE)
    current = np.zeros(1, np.int32)
    for i in range(arr.shape[0]):
        try:
            scenario = state_to_dict(spec, arr[i])
            options = check_options(spec.name, game, {f.name: scenario[f.name] for f in game.STATE_FIELDS
                                                      if f.option})
            one = game.make_template(**options)[:1].copy()
            game.reset_batch(one, masks, obs, current)
            state_from_dict(spec, one[0], scenario, np.random.default_rng(0))
        except (ValueError, TypeError, IndexError, KeyError, OverflowError) as e:
            raise ValueError(f"states[{i}] is not a {spec.name} position the package could have made: {e}") from None
        out[i] = one[0]
    return out
