"""Rami 51, the Python side: moves as text, the options and the scenario codec, state
checks and the table as text (the rules themselves are the kernels of ``rules.py``)."""

from __future__ import annotations

import sys

import numpy as np

from cardenvs.core.cards import CARD_NAMES, JOKER, RANKS, SUITS, card_id, card_str, n_cards, standard_deck_counts
from cardenvs.core.protocol import Field, check_bool_option, check_choice_option, check_int_option, options_record
from cardenvs.core.step import check_playable
from cardenvs.games.rami51.plan import (
    rami_penalty,
)
from cardenvs.games.rami51.rules import (
    ADD0,
    CLOSE,
    DISCARD0,
    DRAW_STOCK,
    HAND_SIZE,
    JOKER0,
    LAYOFF0,
    MAX_MELDS,
    MAX_PLAYERS,
    MAX_ROUND,
    NEW_MELD,
    NUM_ACTIONS,
    NUM_FACES,
    NUM_POS,
    NUM_TYPES,
    OBS_MAX,
    PHASE_BUILD,
    PHASE_DRAW,
    PHASE_LAYOFF,
    PHASE_NAMES,
    PHASE_OVER,
    REWARD_MODES,
    RULES,
    STATE_DTYPE,
    TAKE_DISCARD,
)
from cardenvs.rummy import table as T
from cardenvs.rummy.melds import KIND_RUN, KIND_SET, card_at, run_window_ok
from cardenvs.rummy.reading import CardMoves, card_readings, named_card  # noqa: F401 (named_card: the CLI's)
from cardenvs.rummy.reading import str_to_actions as _card_moves

assert len(CARD_NAMES) == NUM_TYPES  # the core's table: every card type, the joker's last


def action_to_str(a: int) -> str:
    """``draw`` (the stock), ``take`` (the discard top), ``meld`` (start a new meld),
    ``layoff 3`` (lay off on table meld 3), ``add 7h``, ``add X=7h`` (a joker standing
    for 7h), ``close`` (lay the meld), ``discard 7h``."""
    a = int(a)
    if a == DRAW_STOCK:
        return "draw"
    if a == TAKE_DISCARD:
        return "take"
    if a == NEW_MELD:
        return "meld"
    if LAYOFF0 <= a < ADD0:
        return f"layoff {a - LAYOFF0}"
    if ADD0 <= a < JOKER0:
        return "add " + card_str(a - ADD0)
    if JOKER0 <= a < CLOSE:
        return "add X=" + card_str(a - JOKER0)
    if a == CLOSE:
        return "close"
    if DISCARD0 <= a < NUM_ACTIONS:
        return "discard " + card_str(a - DISCARD0)
    raise ValueError(f"not a rami51 action: {a!r} (0..{NUM_ACTIONS - 1})")


def str_to_action(text: str) -> int:
    """Inverse of :func:`action_to_str`; also ``stock``, ``pile``, a bare card (``7h``
    means ``add 7h``, ``X=7h`` means ``add X=7h``)."""
    t = " ".join(str(text).split())
    low = t.lower()
    words = t.split(" ")
    try:
        if low in ("draw", "stock", "draw stock"):
            return DRAW_STOCK
        if low in ("take", "pile", "take discard"):
            return TAKE_DISCARD
        if low in ("meld", "new meld"):
            return NEW_MELD
        if low == "close":
            return CLOSE
        if len(words) == 2 and words[0].lower() == "layoff" and words[1].isdigit() and int(words[1]) < MAX_MELDS:
            return LAYOFF0 + int(words[1])
        if len(words) == 2 and words[0].lower() == "discard":
            return DISCARD0 + card_id(words[1])
        card = words[1] if len(words) == 2 and words[0].lower() == "add" else (words[0] if len(words) == 1 else "")
        if "=" in card:  # X=7h (a joker standing for 7h), *=7h: raises ValueError naming what is wrong
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
        f"cannot read {text!r}: expected 'draw', 'take', 'meld', 'layoff N', 'add 7h' (or just '7h'), "
        f"'add X=7h' (a joker standing for 7h), 'close' or 'discard 7h' (ranks {' '.join(RANKS)}, "
        f"suits {' '.join(SUITS)}, joker X)"
    )


CARD_MOVES = CardMoves("Rami 51", RULES, ADD0, JOKER0, DISCARD0)  # the action ids of cards, for reading them


def str_to_actions(text: str) -> list[int]:
    """Every move ``text`` may stand for, legal or not: a card typed alone may be added or
    discarded, a joker (``X``) stands for any card, ``X=7h`` names its meaning; any other
    move is the one :func:`str_to_action` reads. The CLI keeps the readings the mask
    allows (``cardenvs.cli.console``)."""
    return _card_moves(CARD_MOVES, text, str_to_action)


def deck_counts(state) -> np.ndarray:
    return standard_deck_counts(int(state["decks"]), jokers_per_deck=2)


def _meld_shape(reps: list[int], partial: bool) -> tuple[int, int, int] | None:
    """(kind, key, lo) of cards in canonical order: a set (one rank, suits increasing) or
    a run (one suit, positions increasing by one, an ace low when first, high when last);
    None if they are neither. ``partial``: a prefix of a meld (fewer than 3 cards allowed)."""
    n = len(reps)
    if n == 0 or (n < 3 and not partial):
        return None
    if n == 1:
        r = reps[0] // 4
        return (0, reps[0], 0 if r == 0 else r)
    if all(c // 4 == reps[0] // 4 for c in reps):
        suits = [c % 4 for c in reps]
        if all(a < b for a, b in zip(suits, suits[1:], strict=False)) and n <= 4:
            return (KIND_SET, reps[0] // 4, 0)
        return None
    if any(c % 4 != reps[0] % 4 for c in reps):
        return None
    lo = 0 if reps[0] // 4 == 0 else reps[0] // 4
    for i, c in enumerate(reps):
        want = lo + i
        if want > 13 or card_at(reps[0] % 4, want) != c:
            return None
    hi = lo + n - 1
    if lo == 0 and hi == 13:
        return None
    if not partial and not run_window_ok(RULES, lo, hi):
        return None
    return (KIND_RUN, reps[0] % 4, lo)


def custom_to_dict(rec, name: str):
    if name == "melds":
        return [{"owner": int(rec["meld_owner"][m]), "cards": T.meld_tokens(RULES, rec, m)}
                for m in range(int(rec["num_melds"]))]
    if name == "build":
        n = int(rec["build_n"])
        reps = [card_str(int(rec["build_rep"][i])) for i in range(n)]
        return [f"X={r}" if rec["build_phys"][i] == JOKER else r for i, r in enumerate(reps)]
    raise AssertionError(name)


def custom_from_dict(rec, name: str, value) -> None:
    P = int(rec["num_players"])
    if name == "melds":
        if not isinstance(value, (list, tuple)) or len(value) > MAX_MELDS:
            raise ValueError(f"scenario 'melds': expected a list of at most {MAX_MELDS} melds, got {value!r}")
        T.clear_table_record(rec)
        for m, meld in enumerate(value):
            where = f"melds[{m}]"
            if isinstance(meld, dict):
                unknown = set(meld) - {"owner", "cards"}
                if unknown:
                    raise ValueError(f"scenario {where}: unknown key(s) {sorted(unknown)}; use 'owner' and 'cards'")
                owner, tokens = meld.get("owner", 0), meld.get("cards")
            else:
                owner, tokens = 0, meld
            if isinstance(owner, bool) or not isinstance(owner, int) or not 0 <= owner < P:
                raise ValueError(f"scenario {where}: owner must be a seat 0..{P - 1}, got {owner!r}")
            reps, phys = T.parse_table_tokens(tokens, where)
            shape = _meld_shape(reps, partial=False)
            if shape is None:
                raise ValueError(
                    f"scenario {where}: {tokens!r} is not a meld in order (a set: one rank, suits in c d h s "
                    f"order, 3 or 4 cards; a run: one suit, consecutive from its lowest card, 3 or more)"
                )
            kind, key, lo = shape
            rec["meld_kind"][m] = kind
            rec["meld_key"][m] = key
            rec["meld_owner"][m] = owner
            if kind == KIND_SET:
                for rep, ph in zip(reps, phys, strict=True):
                    rec["meld_slot"][m, rep % 4] = ph
            else:
                rec["meld_lo"][m] = lo
                rec["meld_hi"][m] = lo + len(reps) - 1
                for i, ph in enumerate(phys):
                    rec["meld_slot"][m, lo + i] = ph
        rec["num_melds"] = len(value)
        return
    if name == "build":
        reps, phys = T.parse_table_tokens(value, "'build'")
        if reps and _meld_shape(reps, partial=True) is None:
            raise ValueError(
                f"scenario 'build': {value!r} is not the start of a meld in canonical order (runs from the "
                f"lowest card up, sets by suit c d h s)"
            )
        if len(reps) > NUM_POS:
            raise ValueError("scenario 'build': at most 14 cards")
        T.write_build(rec, reps, phys)
        return
    raise AssertionError(name)


custom_counts = T.table_card_counts


REST_FIELD = "stock"  # cards a scenario does not place make the stock (in a seeded shuffled order)

STATE_FIELDS = (
    Field("num_players", "int", option=True),
    Field("decks", "int", option=True),
    Field("opening_points", "int", option=True),
    Field("single_round", "bool", option=True),
    Field("reward_mode", "enum", REWARD_MODES, option=True),
    Field("max_steps", "int", option=True),
    Field("max_turns_per_round", "int", option=True),
    Field("elimination_score", "int", option=True),
    Field("rng", "hex64"),
    Field("scores", "seats_int", low=0),
    Field("eliminated", "seats_bool"),
    Field("round", "int", low=1),
    Field("dealer", "int"),
    Field("num_steps", "int", low=0),
    Field("turns", "int", low=0),
    Field("terminated", "bool"),
    Field("truncated", "bool"),
    Field("rewards", "seats_float"),
    Field("round_points", "seats_int", low=0),
    Field("winner", "int"),
    Field("void_rounds", "int", low=0),
    Field("hands", "hands"),
    Field("stock", "card_seq", count="stock_n"),
    Field("pile", "card_seq", count="pile_n"),
    Field("melds", "custom"),
    Field("opened", "seats_bool"),
    Field("phase", "enum", PHASE_NAMES),
    Field("current", "int"),
    Field("turn_points", "int"),
    Field("turn_clean", "bool"),
    Field("turn_melds", "int"),
    Field("pending", "symbol", CARD_NAMES),
    Field("pending_used", "bool"),
    Field("drawn", "symbol", CARD_NAMES),
    Field("build", "custom"),
    Field("target", "int"),
)


def make_template(
    num_players: int = 2,
    decks: int | None = None,
    opening_points: int = 51,
    single_round: bool = False,
    reward_mode: str = "match",
    max_steps: int = 0,
    max_turns_per_round: int = 300,
    elimination_score: int = 1000,
) -> np.ndarray:
    """A one-game state array holding the options (validated); the rest is dealt at reset.

    num_players: 2-6. decks: 1 (54 cards) for 2-3 players, 2 (108) from 4 (default by
    count). opening_points: the first laying's minimum (51). single_round: one round is
    the match. reward_mode: "match" (zero-sum at the end: the last player left +1, the
    others share -1) or "round" (minus each round's penalty points / 100).
    max_steps: truncate the match after this many decisions (0: never).
    max_turns_per_round: a round that reaches this many turns ends void (nobody scores,
    the next round is dealt; 0: never). elimination_score:
    a player at or above it after a round is out (1000).
    """
    check_int_option("rami51", "num_players", num_players, 2, MAX_PLAYERS)
    if decks is None:
        decks = 1 if num_players <= 3 else 2
    if isinstance(decks, bool) or decks not in (1, 2):
        raise ValueError(f"rami51: decks must be 1 or 2, got {decks!r}")
    if num_players * HAND_SIZE + 2 > 54 * decks:
        raise ValueError(f"rami51: {decks} deck(s) are too few for {num_players} players")
    check_int_option("rami51", "opening_points", opening_points, 0, 1000)
    check_bool_option("rami51", "single_round", single_round)
    check_choice_option("rami51", "reward_mode", reward_mode, REWARD_MODES)
    check_int_option("rami51", "max_steps", max_steps, 0)
    check_int_option("rami51", "max_turns_per_round", max_turns_per_round, 0)
    check_int_option("rami51", "elimination_score", elimination_score, 1, 1_000_000)
    return options_record(STATE_DTYPE, num_players=num_players, decks=decks, opening_points=opening_points,
                          single_round=bool(single_round), reward_mode=REWARD_MODES.index(reward_mode),
                          max_steps=max_steps, max_turns_per_round=max_turns_per_round,
                          elimination_score=elimination_score)


prepare_scenario = T.prepare_scenario
complete_scenario = T.complete_scenario


def validate_state(rec) -> None:
    """Consistency checks of a loaded scenario beyond card conservation."""
    P = int(rec["num_players"])
    phase = int(rec["phase"])
    if int(rec["round"]) > MAX_ROUND:
        raise ValueError(f"scenario: round must be 1..{MAX_ROUND}, got {int(rec['round'])}")
    T.check_void_rounds(rec)
    cap, turns = int(rec["max_turns_per_round"]), int(rec["turns"])
    if cap > 0 and (turns > cap or (turns == cap and not (rec["terminated"] or rec["truncated"]))):
        raise ValueError(f"scenario: turns must stay below max_turns_per_round {cap} while the round runs, "
                         f"got {turns}")
    sizes = rec["hands"][:P].sum(axis=1)
    for p in range(P):
        if rec["eliminated"][p] and sizes[p]:
            raise ValueError(f"scenario: player {p} is eliminated but holds {sizes[p]} cards")
        if not rec["eliminated"][p] and rec["scores"][p] >= rec["elimination_score"] and phase != PHASE_OVER:
            raise ValueError(f"scenario: player {p} has {rec['scores'][p]} points, at or past the elimination "
                             f"score {rec['elimination_score']}, but is not eliminated")
    for name in ("dealer", "winner"):
        v = int(rec[name])
        if not (-1 if name == "winner" else 0) <= v < P:
            raise ValueError(f"scenario: {name} must be a seat 0..{P - 1}, got {v}")
    if phase == PHASE_OVER:
        return
    cur = int(rec["current"])
    if not 0 <= cur < P or rec["eliminated"][cur]:
        raise ValueError(f"scenario: current player {cur} is not a player still in the match")
    for p in range(P):
        if not rec["eliminated"][p] and sizes[p] == 0 and not (p == cur and rec["build_n"] > 0):
            raise ValueError(f"scenario: player {p} holds no card, but the round would have ended")
    if rec["build_n"] and phase != PHASE_BUILD:
        raise ValueError("scenario: a meld is being built ('build') only in the build phase")
    target = int(rec["target"])
    if (phase == PHASE_LAYOFF) != (target >= 0) or target >= int(rec["num_melds"]):
        raise ValueError("scenario: 'target' (a table meld 0..) is set exactly in the layoff phase")
    if phase == PHASE_DRAW and (rec["turn_melds"] or rec["pending"] >= 0 or rec["drawn"] >= 0 or rec["turn_points"]):
        raise ValueError("scenario: in the draw phase nothing has happened yet this turn (no pending, drawn, turn_*)")
    pend = int(rec["pending"])
    if pend >= 0 and not rec["pending_used"] and not rec["hands"][cur, pend]:
        raise ValueError(f"scenario: the card taken from the discard ({card_str(pend)}) must still be in hand")
    if rec["stock_n"] == 0 and rec["pile_n"] == 0 and phase == PHASE_DRAW:
        raise ValueError("scenario: the player to move cannot draw (no stock, no discard pile)")
    check_playable(sys.modules[__package__], rec)  # the position must leave the player to move a legal action


def observation_bounds(template) -> tuple[float, float]:
    """Low and high of every observation entry (counts, positions, scores; they saturate
    at OBS_MAX)."""
    return 0.0, float(min(int(template["elimination_score"][0]) + 2500, OBS_MAX))


def round_info(rec) -> dict:
    """Infos for the AEC env: round number, penalty totals, eliminations, the last round."""
    P = int(rec["num_players"])
    return {
        "round": int(rec["round"]),
        "scores": [int(x) for x in rec["scores"][:P]],
        "eliminated": [bool(x) for x in rec["eliminated"][:P]],
        "round_points": [int(x) for x in rec["round_points"][:P]],
        "round_winner": int(rec["winner"]),
        "void_rounds": int(rec["void_rounds"]),
    }


# The turn timer of the traditional rules, for people at the command line (``cardenvs play
# --turn-seconds``): not part of the game state, which plays the same at any speed.
TURN_SECONDS = 30.0

# A whole meld typed on one line at the command line (``cardenvs play``): the move that starts
# it (``meld``), added before a card that needs one, and the move that lays it (``close``),
# added when the line stops at its cards.
LINE_OPENER = "meld"
LINE_FINISHER = "close"
# The moves the CLI may add before a card typed alone to lay it (a new meld, a lay-off on a
# table meld), and the move a card typed alone is only when it cannot be laid.
LINE_STARTERS = ("meld", "layoff")
BARE_CARD_FALLBACK = "discard"

def timeout_actions(rec) -> list[int]:
    """What the CLI plays for a person whose turn timer ran out, one step at a time
    (call again after each): draw from the stock; then discard the card drawn (or, when
    the turn's obligations are not met yet, the first legal step towards them; then the
    highest-penalty legal discard)."""
    legal = [int(a) for a in np.flatnonzero(rec["legal"])]
    if not legal:
        return []
    if DRAW_STOCK in legal:
        return [DRAW_STOCK]
    discards = [a for a in legal if a >= DISCARD0]
    if discards:
        drawn = int(rec["drawn"])
        if drawn >= 0 and DISCARD0 + drawn in discards:
            return [DISCARD0 + drawn]
        return [max(discards, key=lambda a: (rami_penalty(a - DISCARD0), a))]
    return [legal[0]]


def render_text(rec, viewer: int | None = None) -> str:
    """The table as text; ``viewer`` None shows every hand, else only that player's."""
    P = int(rec["num_players"])
    phase = int(rec["phase"])
    over = phase == PHASE_OVER
    lines = [
        f"Rami 51 — round {int(rec['round'])}, phase {PHASE_NAMES[phase]}, turn {int(rec['turns']) + 1}"
        f"{' (match over)' if over else ''}"
    ]
    top = card_str(int(rec["pile"][int(rec["pile_n"]) - 1])) if rec["pile_n"] else "empty"
    lines.append(f"stock: {n_cards(int(rec['stock_n']))}; discard top: {top} ({int(rec['pile_n'])} in the pile)")
    for m in range(int(rec["num_melds"])):
        lines.append(f"  meld {m} (player_{int(rec['meld_owner'][m])}): {' '.join(T.meld_tokens(RULES, rec, m))}")
    if not rec["num_melds"]:
        lines.append("  no meld on the table")
    if rec["build_n"]:
        lines.append(f"building: {' '.join(custom_to_dict(rec, 'build'))}")
    if phase == PHASE_LAYOFF:
        lines.append(f"laying off on meld {int(rec['target'])}")
    if rec["pending"] >= 0 and not rec["pending_used"]:
        lines.append(f"must lay {card_str(int(rec['pending']))} (taken from the discard pile) this turn")
    for p in range(P):
        mark = "->" if p == rec["current"] and not over else "  "
        held = int(rec["hands"][p].sum())
        status = " eliminated" if rec["eliminated"][p] else (" opened" if rec["opened"][p] else "")
        cards = " ".join(T.hand_cards(rec["hands"][p])) if viewer is None or viewer == p else n_cards(held)
        lines.append(f"{mark} player_{p} penalty {int(rec['scores'][p]):4d}{status}: {cards or '(none)'}")
    return "\n".join(lines)
