"""Classes, the Python side: moves as text, the options and the scenario codec, state
checks and the table as text (the rules themselves are the kernels of ``rules.py``)."""

from __future__ import annotations

import sys

import numpy as np

from cardenvs.core.cards import RANKS, SUITS, card_id, card_str, n_cards, standard_deck_counts
from cardenvs.core.protocol import Field, check_choice_option, check_int_option, options_record
from cardenvs.core.step import check_playable
from cardenvs.games.classes.rules import (
    ADD0,
    CLOSE,
    CONTRACT,
    DISCARD0,
    DRAW_STOCK,
    LAYOFF0,
    MAX_MELDS,
    MAX_PLAYERS,
    MAX_ROUND,
    MAX_SCORE,
    NEW_RUN,
    NEW_SET,
    NUM_ACTIONS,
    NUM_CLASSES,
    NUM_FACES,
    OBS_MAX,
    PHASE_BUILD,
    PHASE_DRAW,
    PHASE_LAYOFF,
    PHASE_NAMES,
    PHASE_OVER,
    PHASE_PLAY,
    REWARD_MODES,
    RULES_BY_SUIT,
    STATE_DTYPE,
    TAKE_DISCARD,
    WILD0,
)
from cardenvs.rummy import table as T
from cardenvs.rummy.contract import CONTRACTS
from cardenvs.rummy.melds import KIND_SET, classes_penalty
from cardenvs.rummy.reading import CardMoves, card_readings, named_card  # noqa: F401 (named_card: the CLI's)
from cardenvs.rummy.reading import str_to_actions as _card_moves


def action_to_str(a: int) -> str:
    """``draw``, ``take``, ``discard 7h``, ``contract`` (start laying it), ``set`` /
    ``run`` (start a further meld), ``layoff 3`` (add to table meld 3), ``add 7h``,
    ``add *=7h`` (a 2 standing for 7h; in a set or a run of mixed suits ``add *=7``),
    ``close``."""
    a = int(a)
    if a == DRAW_STOCK:
        return "draw"
    if a == TAKE_DISCARD:
        return "take"
    if DISCARD0 <= a < CONTRACT:
        return "discard " + card_str(a - DISCARD0)
    if a == CONTRACT:
        return "contract"
    if a == NEW_SET:
        return "set"
    if a == NEW_RUN:
        return "run"
    if LAYOFF0 <= a < ADD0:
        return f"layoff {a - LAYOFF0}"
    if ADD0 <= a < WILD0:
        return "add " + card_str(a - ADD0)
    if WILD0 <= a < CLOSE:
        return f"add *={card_str(a - WILD0)}"
    if a == CLOSE:
        return "close"
    raise ValueError(f"not a classes action: {a!r} (0..{NUM_ACTIONS - 1})")


def str_to_action(text: str) -> int:
    """Inverse of :func:`action_to_str`; also ``stock``, ``pile``, a bare card (``7h``:
    ``add 7h``; ``*=7h``: ``add *=7h``; ``*=7``: a 2 standing for a 7 of a set)."""
    t = " ".join(str(text).split())
    low = t.lower()
    words = low.split(" ")
    simple = {"draw": DRAW_STOCK, "stock": DRAW_STOCK, "take": TAKE_DISCARD, "pile": TAKE_DISCARD,
              "contract": CONTRACT, "set": NEW_SET, "run": NEW_RUN, "close": CLOSE}
    if low in simple:
        return simple[low]
    try:
        if len(words) == 2 and words[0] == "layoff" and words[1].isdigit() and int(words[1]) < MAX_MELDS:
            return LAYOFF0 + int(words[1])
        if len(words) == 2 and words[0] == "discard":
            c = card_id(t.split(" ")[1])
            if c < NUM_FACES:
                return DISCARD0 + c
        card = t.split(" ")[1] if len(words) == 2 and words[0] == "add" else (t if len(words) == 1 else "")
        if "=" in card:  # *=7h, *=7, X=7h, 2c=7h (the table's form): ValueError naming what is wrong
            wild = card_readings(CARD_MOVES, card, discard=False)
            if wild:
                return wild[0]
        elif card:
            c = card_id(card)
            if c < NUM_FACES:
                return ADD0 + c
    except ValueError as e:
        if str(e).startswith("cannot read"):  # a wild card's own message
            raise
    raise ValueError(
        f"cannot read {text!r}: expected 'draw', 'take', 'discard 7h', 'contract', 'set', 'run', 'layoff N', "
        f"'add 7h' (or just '7h'), 'add *=7h' (a 2 standing for 7h; '*=7' in a set of 7s) or 'close' "
        f"(ranks {' '.join(RANKS)}, suits {' '.join(SUITS)})"
    )


CARD_MOVES = CardMoves("Classes", RULES_BY_SUIT[1], ADD0, WILD0, DISCARD0)  # the action ids of cards, for reading them


def str_to_actions(text: str) -> list[int]:
    """Every move ``text`` may stand for, legal or not: a card typed alone may be added or
    discarded, a wild card stands for any card, ``*=7h``, ``X=7h`` or ``2c=7h`` names its
    meaning; any other move is the one :func:`str_to_action` reads. The CLI keeps the
    readings the mask allows (``cardenvs.cli.console``)."""
    return _card_moves(CARD_MOVES, text, str_to_action)


def deck_counts(state) -> np.ndarray:
    """Two decks for 2-4 players, three for 5-6; no joker (the layer's type 52 holds 0)."""
    return np.append(standard_deck_counts(2 if int(state["num_players"]) <= 4 else 3), 0)


def _is_wild(c: int) -> bool:
    return c // 4 == 1


def _table_rules(rec) -> tuple[np.ndarray, bool]:
    """The rules array of the state's option, and whether its runs may mix suits."""
    same_suit = bool(rec["run_same_suit"])
    return RULES_BY_SUIT[int(same_suit)], not same_suit


# the table's melds and the meld being built
custom_to_dict, custom_from_dict = T.table_codec(_table_rules)


custom_counts = T.table_card_counts


REST_FIELD = "stock"

STATE_FIELDS = (
    Field("num_players", "int", option=True),
    Field("run_same_suit", "bool", option=True),
    Field("same_rank_sets", "bool", option=True),
    Field("contract_when_able", "bool", option=True),
    Field("first_class", "int", option=True),
    Field("single_round", "bool", option=True),
    Field("reward_mode", "enum", REWARD_MODES, option=True),
    Field("max_steps", "int", option=True),
    Field("max_turns_per_round", "int", option=True),
    Field("rng", "hex64"),
    Field("scores", "seats_int", low=0),
    Field("level", "seats_int"),
    Field("laid", "seats_bool"),
    Field("winners", "seats_bool"),
    Field("round", "int", low=1),
    Field("dealer", "int"),
    Field("num_steps", "int", low=0),
    Field("turns", "int", low=0),
    Field("terminated", "bool"),
    Field("truncated", "bool"),
    Field("rewards", "seats_float"),
    Field("round_points", "seats_int", low=0),
    Field("void_rounds", "int", low=0),
    Field("hands", "hands"),
    Field("known", "hands", counted=False),
    Field("stock", "card_seq", count="stock_n"),
    Field("pile", "card_seq", count="pile_n"),
    Field("melds", "custom"),
    Field("phase", "enum", PHASE_NAMES),
    Field("current", "int"),
    Field("build", "custom"),
    Field("item", "int"),
    Field("target", "int"),
)


def make_template(
    num_players: int = 4,
    run_same_suit: bool = True,
    same_rank_sets: bool = True,
    contract_when_able: bool = True,
    first_class: int = 1,
    single_round: bool = False,
    reward_mode: str = "match",
    max_steps: int = 0,
    max_turns_per_round: int = 200,
) -> np.ndarray:
    """A one-game state array holding the options (validated); the rest is dealt at reset.

    num_players: 2-6 (two decks up to 4 players, three from 5). run_same_suit: a séquence
    is of one suit (False: any suits). same_rank_sets: a contract's sets may share a rank
    (two brelans of 7s). contract_when_able: a player who can lay their contract lays it
    that turn, before discarding (the rule; False: they may keep it in hand).
    first_class: the class every player starts at (1..10).
    single_round: one round is the match (its winners: those who laid their contract,
    fewest points). reward_mode: "match" (the winners share +1, the others -1, at the
    end: zero-sum) or "round" (at each round's end: +1 for a contract laid, minus the
    points / 100). max_steps: truncate after this many decisions (0: never).
    max_turns_per_round: a round that reaches this many turns ends void (nobody scores
    or moves up a class, the next round is dealt; 0: never).
    """
    check_int_option("classes", "num_players", num_players, 2, MAX_PLAYERS)
    for name, value in (("run_same_suit", run_same_suit), ("same_rank_sets", same_rank_sets),
                        ("contract_when_able", contract_when_able), ("single_round", single_round)):
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"classes: {name} must be True or False, got {value!r}")
    check_int_option("classes", "first_class", first_class, 1, NUM_CLASSES)
    check_choice_option("classes", "reward_mode", reward_mode, REWARD_MODES)
    check_int_option("classes", "max_steps", max_steps, 0, 2**31 - 1)
    check_int_option("classes", "max_turns_per_round", max_turns_per_round, 0, 2**31 - 1)
    return options_record(STATE_DTYPE, num_players=num_players, run_same_suit=bool(run_same_suit),
                          same_rank_sets=bool(same_rank_sets),
                          contract_when_able=bool(contract_when_able), first_class=first_class,
                          single_round=bool(single_round), reward_mode=REWARD_MODES.index(reward_mode),
                          max_steps=max_steps, max_turns_per_round=max_turns_per_round)


prepare_scenario = T.prepare_scenario
complete_scenario = T.complete_scenario


def _contract_items(level: int) -> list[tuple[int, int]]:
    return [(int(k), int(n)) for k, n in CONTRACTS[level - 1] if n > 0]


def validate_state(rec) -> None:
    """Consistency checks of a loaded scenario beyond card conservation: every value a
    kernel indexes with, the phase against the flags, and a position that can go on."""
    P = int(rec["num_players"])
    phase = int(rec["phase"])
    if not 1 <= int(rec["round"]) <= MAX_ROUND:
        raise ValueError(f"scenario: round must be 1..{MAX_ROUND}, got {int(rec['round'])}")
    T.check_known(rec)
    T.check_void_rounds(rec)
    for name in ("turns", "num_steps"):
        if int(rec[name]) < 0:
            raise ValueError(f"scenario: {name} cannot be negative, got {int(rec[name])}")
    if int(rec["target"]) < -1:
        raise ValueError(f"scenario: target must be a table meld 0.. or -1, got {int(rec['target'])}")
    for name in ("dealer", "current"):
        if not 0 <= int(rec[name]) < P:
            raise ValueError(f"scenario: {name} must be a seat 0..{P - 1}, got {int(rec[name])}")
    for q in range(P):
        if not 1 <= int(rec["level"][q]) <= NUM_CLASSES:
            raise ValueError(f"scenario: level[{q}] (the class played) must be 1..{NUM_CLASSES}, "
                             f"got {int(rec['level'][q])}")
        if not 0 <= int(rec["scores"][q]) <= MAX_SCORE or not 0 <= int(rec["round_points"][q]) <= MAX_SCORE:
            raise ValueError(f"scenario: scores and round_points must be 0..{MAX_SCORE} (seat {q})")
    check_counters(rec)
    cur = int(rec["current"])
    if (phase == PHASE_OVER) != bool(rec["terminated"] or rec["truncated"]):
        raise ValueError("scenario: phase 'over' exactly when the match is terminated or truncated")
    if rec["terminated"] and rec["truncated"]:
        raise ValueError("scenario: a match is terminated or truncated, not both")
    if rec["winners"][:P].any() and not rec["terminated"]:
        raise ValueError("scenario: winners are set only when the match has ended")
    build = phase == PHASE_BUILD
    if build != (int(rec["build_kind"]) != 0) or (not build and rec["build_n"]):
        raise ValueError("scenario: a meld is being built ('build' with a kind) exactly in the build phase")
    item = int(rec["item"])
    target = int(rec["target"])
    if (phase == PHASE_LAYOFF) != (target >= 0) or target >= int(rec["num_melds"]):
        raise ValueError("scenario: 'target' (a table meld 0..) is set exactly in the layoff phase")
    if phase == PHASE_OVER:
        if item != -1:
            raise ValueError("scenario: 'item' is -1 once the match is over")
        return
    laid = rec["laid"][:P]
    items = _contract_items(int(rec["level"][cur]))
    if build:
        if item >= 0:
            if laid[cur] or item >= len(items) or int(rec["build_kind"]) != items[item][0]:
                raise ValueError(f"scenario: 'item' {item}: the contract's meld being built, of its kind, while the "
                                 f"contract is not laid (contract: {items})")
        elif item != -1 or not laid[cur]:
            raise ValueError("scenario: 'item' -1 (a further meld) only once the contract is laid")
    elif item != -1:
        raise ValueError("scenario: 'item' is set (0..) only while the contract is being built")
    if phase == PHASE_LAYOFF and not laid[cur]:
        raise ValueError("scenario: cards are added to the table only once the contract is laid")
    n_melds = int(rec["num_melds"])
    in_progress = max(item, 0)  # the contract's melds laid so far this turn: the last ones on the table
    if in_progress > n_melds:
        raise ValueError(f"scenario: 'item' {item}: the contract's first {item} meld(s) must be on the table "
                         f"(it holds {n_melds})")
    for m in range(n_melds):
        o = int(rec["meld_owner"][m])
        if m >= n_melds - in_progress:
            k, size = items[m - (n_melds - in_progress)]
            cards = int((rec["meld_slot"][m] >= 0).sum())
            if o != cur or int(rec["meld_kind"][m]) != k or cards < size:
                raise ValueError(f"scenario: melds[{m}]: the contract being laid: its first {in_progress} meld(s) "
                                 f"are the last on the table, of the player to move ({items})")
        elif not laid[o]:
            raise ValueError(f"scenario: melds[{m}]: only players who laid their contract have melds on the table")
    if in_progress and not rec["same_rank_sets"]:
        keys = [int(rec["meld_key"][m]) for m in range(n_melds - in_progress, n_melds)
                if int(rec["meld_kind"][m]) == KIND_SET]
        if len(keys) != len(set(keys)):
            raise ValueError("scenario: with same_rank_sets=False a contract's sets have different ranks")
    sizes = rec["hands"][:P].astype(np.int64).sum(axis=1)
    for q in range(P):
        want = 14 if q == cur and phase == PHASE_PLAY else 13
        held = int(sizes[q])
        if q == cur and build and item >= 0:  # laying the contract: count what is already out of the hand
            want = 14
            held += int(rec["build_n"]) + sum(int((rec["meld_slot"][m] >= 0).sum())
                                              for m in range(n_melds - in_progress, n_melds))
        if not laid[q] and held != want:
            raise ValueError(f"scenario: player {q} has not laid the contract and holds {want} cards "
                             f"({'after drawing' if want == 14 else 'between turns'}), not {held}")
        if sizes[q] == 0 and not (q == cur and build and rec["build_n"]):
            raise ValueError(f"scenario: player {q} holds no card: the round would be over")
    if laid[cur] and phase == PHASE_DRAW and sizes[cur] == 0:
        raise ValueError("scenario: the player to move holds no card")
    if rec["stock_n"] == 0 and rec["pile_n"] == 0 and phase == PHASE_DRAW:
        raise ValueError("scenario: the stock and the discard pile cannot both be empty (nobody could draw)")
    check_playable(sys.modules[__package__], rec)  # the position must leave the player to move a legal action


ROUND_POINTS_CAP = 13 * 20  # the most points a round leaves in one hand: 13 cards at most, a 2 is 20


def check_counters(rec) -> None:
    """What play can reach (docs/games/classes.md, "Scenarios"): a class at most one above
    the last for every scored round (from first_class), points at most 260 a scored round,
    a contract laid only with a meld of that player on the table, turns below the turn cap."""
    P = int(rec["num_players"])
    over = bool(rec["terminated"] or rec["truncated"])
    rnd, void = int(rec["round"]), int(rec["void_rounds"])
    scored = max(rnd - 1 - void, 0)  # rounds finished with a score (the last, once over, may add one)
    first = int(rec["first_class"])
    top_class = min(first + scored, NUM_CLASSES)
    points_cap = ROUND_POINTS_CAP * (scored + (1 if over else 0))
    owners = {int(rec["meld_owner"][m]) for m in range(int(rec["num_melds"]))}
    for q in range(P):
        level, score, points = int(rec["level"][q]), int(rec["scores"][q]), int(rec["round_points"][q])
        if not first <= level <= top_class:
            raise ValueError(f"scenario: level[{q}] must be {first}..{top_class} in round {rnd} "
                             f"({scored} round(s) scored from class {first}), got {level}")
        if score > points_cap:
            raise ValueError(f"scenario: scores[{q}] must be 0..{points_cap} after {scored} scored round(s), "
                             f"got {score}")
        if points > min(ROUND_POINTS_CAP, score):
            raise ValueError(f"scenario: round_points[{q}] must be 0..{min(ROUND_POINTS_CAP, score)} (the last "
                             f"round's, within the score), got {points}")
        if rec["laid"][q] and not over and q not in owners:
            raise ValueError(f"scenario: laid[{q}] is true but player {q} has no meld on the table")
    cap, turns = int(rec["max_turns_per_round"]), int(rec["turns"])
    if cap > 0 and (turns > cap or (turns == cap and not over)):
        raise ValueError(f"scenario: turns must stay below max_turns_per_round {cap} while the round runs, "
                         f"got {turns}")


def observation_bounds(template) -> tuple[float, float]:
    """Low and high of every observation entry (int16): a run of mixed suits has key -1;
    scores and turn counts saturate at OBS_MAX (reached only far past the default turn
    cap); the largest other entry is a run's 2 positions (below 2**14)."""
    return -1.0, float(OBS_MAX)


def round_info(rec) -> dict:
    P = int(rec["num_players"])
    return {
        "round": int(rec["round"]),
        "scores": [int(x) for x in rec["scores"][:P]],
        "classes": [int(x) for x in rec["level"][:P]],
        "laid": [bool(x) for x in rec["laid"][:P]],
        "round_points": [int(x) for x in rec["round_points"][:P]],
        "winners": [p for p in range(P) if rec["winners"][p]],
        "void_rounds": int(rec["void_rounds"]),
    }


# The turn timer for people at the command line: the rules set no time for a turn, so
# there is none unless asked for (``cardenvs play --turn-seconds S``; timeout_actions then
# says what is played when it runs out). Not part of the game state.
TURN_SECONDS = 0.0

# A whole meld typed on one line at the command line (``cardenvs play``): the move that lays
# it (``close``), added when the line stops at its cards.
LINE_FINISHER = "close"
# The moves the CLI may add before a card typed alone to lay it (a new meld, a lay-off on a
# table meld), and the move a card typed alone is only when it cannot be laid.
LINE_STARTERS = ("contract", "set", "run", "layoff")
BARE_CARD_FALLBACK = "discard"

def timeout_actions(rec) -> list[int]:
    """What the CLI plays for a person whose turn timer ran out: draw from the stock,
    discard the highest-points card (not laying anything new); a meld being built is
    finished with the first legal card."""
    legal = [int(a) for a in np.flatnonzero(rec["legal"])]
    if not legal:
        return []
    for a in (DRAW_STOCK, TAKE_DISCARD):
        if a in legal:
            return [a]
    discards = [a for a in legal if DISCARD0 <= a < CONTRACT]
    if discards:
        return [max(discards, key=lambda a: (int(classes_penalty.py_func(a - DISCARD0)), a))]
    return [legal[0]]


CONTRACT_NAMES = (
    "two brelans", "a séquence of 4 and a brelan", "two carrés", "two séquences of 4", "three brelans",
    "a séquence of 4 and two brelans", "a séquence of 5 and a carré", "two séquences of 5",
    "a séquence of 5 and two brelans", "a séquence of 7 and a carré",
)


def render_text(rec, viewer: int | None = None) -> str:
    """The table as text; ``viewer`` None shows every hand, else only that player's."""
    P = int(rec["num_players"])
    phase = int(rec["phase"])
    over = phase == PHASE_OVER
    rules = _table_rules(rec)[0]
    lines = [f"Classes — round {int(rec['round'])}, phase {PHASE_NAMES[phase]}, turn {int(rec['turns']) + 1}"
             f"{' (match over)' if over else ''}"]
    pn = int(rec["pile_n"])
    top = card_str(int(rec["pile"][pn - 1])) if pn else "empty"
    lines.append(f"stock: {n_cards(int(rec['stock_n']))}; discard top: {top}")
    for m in range(int(rec["num_melds"])):
        lines.append(f"  meld {m} (player_{int(rec['meld_owner'][m])}): {' '.join(T.meld_tokens(rules, rec, m))}")
    if not rec["num_melds"]:
        lines.append("  no meld on the table")
    if rec["build_n"] or rec["build_kind"]:
        b = custom_to_dict(rec, "build")
        what = f"the contract's meld {int(rec['item']) + 1}" if int(rec["item"]) >= 0 else "a further meld"
        lines.append(f"building {what}, a {b['kind']}: {' '.join(b['cards'])}")
    if phase == PHASE_LAYOFF:
        lines.append(f"adding to meld {int(rec['target'])}")
    for p in range(P):
        mark = "->" if p == rec["current"] and not over else "  "
        held = int(rec["hands"][p].sum())
        cards = " ".join(T.hand_cards(rec["hands"][p])) if viewer is None or viewer == p else n_cards(held)
        lv = int(rec["level"][p])
        status = "laid" if rec["laid"][p] else CONTRACT_NAMES[lv - 1]
        win = " WINNER" if rec["winners"][p] else ""
        lines.append(f"{mark} player_{p} class {lv:2d} ({status}) score {int(rec['scores'][p]):4d}{win}: "
                     f"{cards or '(none)'}")
    return "\n".join(lines)
