"""Frime, the Python side: moves as text, the options and the scenario codec, state
checks and the table as text (the rules themselves are the kernels of ``rules.py``)."""

from __future__ import annotations

import sys

import numpy as np

from cardenvs.core.cards import CARD_NAMES, JOKER, RANKS, SUITS, card_id, card_str, n_cards, standard_deck_counts
from cardenvs.core.protocol import Field, check_bool_option, check_choice_option, check_int_option, options_record
from cardenvs.core.step import check_playable
from cardenvs.games.frime.rules import (
    ADD0,
    ANTE,
    BUY,
    BUY_PRICE,
    CLOSE,
    DISCARD0,
    DOUBLED_FROM,
    DRAW_STOCK,
    END_TURN,
    FRIME0,
    GO_OUT,
    LAYOFF0,
    MAX_MELDS,
    MAX_PLAYERS,
    NEW_RUN,
    NEW_SET,
    NUM_ACTIONS,
    NUM_FACES,
    NUM_ROUNDS,
    NUM_TYPES,
    OBS_MAX,
    PHASE_BUILD,
    PHASE_CHOOSE,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_LAY,
    PHASE_LAYOFF,
    PHASE_NAMES,
    PHASE_OVER,
    REWARD_MODES,
    RULES,
    START_MONEY,
    STATE_DTYPE,
    TAKE_DISCARD,
)
from cardenvs.rummy import table as T
from cardenvs.rummy.melds import frime_penalty
from cardenvs.rummy.reading import CardMoves, card_readings, named_card  # noqa: F401 (named_card: the CLI's)
from cardenvs.rummy.reading import str_to_actions as _card_moves
from cardenvs.rummy.split import hand_splits

assert len(CARD_NAMES) == NUM_TYPES  # the core's table: every card type, the joker's last
WILD_TYPES = (JOKER, 4, 5, 6, 7)  # X 2c 2d 2h 2s


def action_to_str(a: int) -> str:
    """``draw``, ``take``, ``buy``, ``discard 7h``, ``out`` (go out), ``end`` (end the
    turn), ``set`` / ``run`` (start a meld), ``layoff 3`` (add to table meld 3),
    ``add 7h``, ``add *=7h`` (a frime standing for 7h; in a set ``add *=7``), ``close``."""
    a = int(a)
    if a == DRAW_STOCK:
        return "draw"
    if a == TAKE_DISCARD:
        return "take"
    if a == BUY:
        return "buy"
    if DISCARD0 <= a < GO_OUT:
        return "discard " + card_str(a - DISCARD0)
    if a == GO_OUT:
        return "out"
    if a == END_TURN:
        return "end"
    if a == NEW_SET:
        return "set"
    if a == NEW_RUN:
        return "run"
    if LAYOFF0 <= a < ADD0:
        return f"layoff {a - LAYOFF0}"
    if ADD0 <= a < FRIME0:
        return "add " + card_str(a - ADD0)
    if FRIME0 <= a < CLOSE:
        c = a - FRIME0
        return f"add *={card_str(c)}"
    if a == CLOSE:
        return "close"
    raise ValueError(f"not a frime action: {a!r} (0..{NUM_ACTIONS - 1})")


def str_to_action(text: str) -> int:
    """Inverse of :func:`action_to_str`; also ``stock``, ``pile``, a bare card (``7h``:
    ``add 7h``; ``*=7h``: ``add *=7h``; ``*=7``: a frime in a set of 7s)."""
    t = " ".join(str(text).split())
    low = t.lower()
    words = low.split(" ")
    simple = {"draw": DRAW_STOCK, "stock": DRAW_STOCK, "take": TAKE_DISCARD, "pile": TAKE_DISCARD, "buy": BUY,
              "out": GO_OUT, "go out": GO_OUT, "end": END_TURN, "end turn": END_TURN, "set": NEW_SET,
              "run": NEW_RUN, "close": CLOSE}
    if low in simple:
        return simple[low]
    try:
        if len(words) == 2 and words[0] == "layoff" and words[1].isdigit() and int(words[1]) < MAX_MELDS:
            return LAYOFF0 + int(words[1])
        if len(words) == 2 and words[0] == "discard":
            return DISCARD0 + card_id(t.split(" ")[1])
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
        f"cannot read {text!r}: expected 'draw', 'take', 'buy', 'discard 7h', 'out', 'end', 'set', 'run', "
        f"'layoff N', 'add 7h' (or just '7h'), 'add *=7h' (a frime standing for 7h; '*=7' in a set of 7s) or "
        f"'close' (ranks {' '.join(RANKS)}, suits {' '.join(SUITS)}, joker X)"
    )


CARD_MOVES = CardMoves("Frime", RULES, ADD0, FRIME0, DISCARD0)  # the action ids of cards, for reading them


def str_to_actions(text: str) -> list[int]:
    """Every move ``text`` may stand for, legal or not: a card typed alone may be added or
    discarded, a wild card stands for any card, ``*=7h``, ``X=7h`` or ``2c=7h`` names its
    meaning; any other move is the one :func:`str_to_action` reads. The CLI keeps the
    readings the mask allows (``cardenvs.cli.console``)."""
    return _card_moves(CARD_MOVES, text, str_to_action)


def deck_counts(state) -> np.ndarray:
    return standard_deck_counts(2, jokers_per_deck=2)


def _is_wild(c: int) -> bool:
    return c == JOKER or c // 4 == 1


# the table's melds and the meld being built (a run holds one suit)
custom_to_dict, custom_from_dict = T.table_codec(lambda rec: (RULES, False))


custom_counts = T.table_card_counts


REST_FIELD = "stock"

STATE_FIELDS = (
    Field("num_players", "int", option=True),
    Field("first_round", "int", option=True),
    Field("single_round", "bool", option=True),
    Field("reward_mode", "enum", REWARD_MODES, option=True),
    Field("max_steps", "int", option=True),
    Field("max_turns_per_round", "int", option=True),
    Field("rng", "hex64"),
    Field("scores", "seats_int"),
    Field("flocons", "seats_int"),
    Field("money", "seats_int"),
    Field("pot", "int"),
    Field("round", "int", low=1),
    Field("dealer", "int"),
    Field("num_steps", "int", low=0),
    Field("turns", "int", low=0),
    Field("terminated", "bool"),
    Field("truncated", "bool"),
    Field("rewards", "seats_float"),
    Field("round_points", "seats_int"),
    Field("void_rounds", "int", low=0),
    Field("hands", "hands"),
    Field("known", "hands", counted=False),
    Field("no_split", "seats_bool"),
    Field("stock", "card_seq", count="stock_n"),
    Field("pile", "card_seq", count="pile_n"),
    Field("melds", "custom"),
    Field("out_player", "int"),
    Field("last_turns", "int"),
    Field("phase", "enum", PHASE_NAMES),
    Field("current", "int"),
    Field("going_out", "bool"),
    Field("build", "custom"),
    Field("target", "int"),
)


def make_template(
    num_players: int = 4,
    first_round: int = 1,
    single_round: bool = False,
    reward_mode: str = "match",
    max_steps: int = 0,
    max_turns_per_round: int = 200,
) -> np.ndarray:
    """A one-game state array holding the options (validated); the rest is dealt at reset.

    num_players: 4-6. first_round: the round the match starts at (1: 3 cards .. 11: 13
    cards). single_round: that round alone is the match. reward_mode: "match" (each
    player's profit in dollars at the end: zero-sum) or "round" (the same money paid as
    it accrues: buys when made, each round's settlement at its end, the ante and the pot
    at the match's end). max_steps: truncate after this many decisions (0: never).
    max_turns_per_round: a round in which nobody has gone out after this many turns ends
    void (nobody scores, the next round is dealt; 0: never).
    """
    check_int_option("frime", "num_players", num_players, 4, MAX_PLAYERS)
    check_int_option("frime", "first_round", first_round, 1, NUM_ROUNDS)
    check_bool_option("frime", "single_round", single_round)
    check_choice_option("frime", "reward_mode", reward_mode, REWARD_MODES)
    check_int_option("frime", "max_steps", max_steps, 0, 2**31 - 1)
    check_int_option("frime", "max_turns_per_round", max_turns_per_round, 0, 2**31 - 1)
    return options_record(STATE_DTYPE, num_players=num_players, first_round=first_round,
                          single_round=bool(single_round), reward_mode=REWARD_MODES.index(reward_mode),
                          max_steps=max_steps, max_turns_per_round=max_turns_per_round)


prepare_scenario = T.prepare_scenario
complete_scenario = T.complete_scenario


def validate_state(rec) -> None:
    """Consistency checks of a loaded scenario beyond card conservation: every value a
    kernel indexes with, the phase against the flags, and a position that can go on."""
    P = int(rec["num_players"])
    phase = int(rec["phase"])
    rnd = int(rec["round"])
    T.check_known(rec)
    T.check_void_rounds(rec, int(rec["first_round"]))
    if not 1 <= rnd <= NUM_ROUNDS:
        raise ValueError(f"scenario: round must be 1..{NUM_ROUNDS}, got {rnd}")
    for name in ("dealer", "current"):
        if not 0 <= int(rec[name]) < P:
            raise ValueError(f"scenario: {name} must be a seat 0..{P - 1}, got {int(rec[name])}")
    cur = int(rec["current"])
    out = int(rec["out_player"])
    if not -1 <= out < P:
        raise ValueError(f"scenario: out_player must be a seat 0..{P - 1} or -1, got {out}")
    if (phase == PHASE_OVER) != bool(rec["terminated"] or rec["truncated"]):
        raise ValueError("scenario: phase 'over' exactly when the match is terminated or truncated")
    if rec["terminated"] and rec["truncated"]:
        raise ValueError("scenario: a match is terminated or truncated, not both")
    if int(rec["money"][:P].astype(np.int64).sum()) + int(rec["pot"]) != START_MONEY * P:
        raise ValueError(f"scenario: the money and the pot must add up to {START_MONEY}¢ a player")
    if int(rec["pot"]) < 0:
        raise ValueError("scenario: the pot cannot be negative")
    build = phase == PHASE_BUILD
    if build != (int(rec["build_kind"]) != 0) or (not build and rec["build_n"]):
        raise ValueError("scenario: a meld is being built ('build' with a kind) exactly in the build phase")
    target = int(rec["target"])
    if (phase == PHASE_LAYOFF) != (target >= 0) or target >= int(rec["num_melds"]):
        raise ValueError("scenario: 'target' (a table meld 0..) is set exactly in the layoff phase")
    if rec["going_out"] and (out >= 0 or phase not in (PHASE_LAY, PHASE_BUILD)):
        raise ValueError("scenario: 'going_out' only while nobody is out, in the lay or build phase")
    check_counters(rec)
    if phase == PHASE_OVER:
        return
    if not 0 <= int(rec["last_turns"]) <= (P - 1 if out >= 0 else 0):
        raise ValueError("scenario: last_turns counts the last turns still to play after a going out "
                         "(0 .. players - 1)")
    if out >= 0 and cur == out:
        raise ValueError("scenario: the player who went out has no turn left")
    if out >= 0 and int(rec["last_turns"]) != (out - cur) % P:
        raise ValueError("scenario: last_turns must count the players from the one to move up to the one who "
                         "went out (each other player has exactly one last turn)")
    sizes = rec["hands"][:P].astype(np.int64).sum(axis=1)
    if out >= 0 and sizes[out]:
        raise ValueError("scenario: the player who went out holds no card")
    if sizes.max() > rnd + 3:
        raise ValueError(f"scenario: round {rnd} deals {rnd + 2} cards; a hand holds one more at most")
    for m in range(int(rec["num_melds"])):
        o = int(rec["meld_owner"][m])
        if out < 0:
            ok = o == cur and rec["going_out"]
        else:  # the first player out, and those whose last turn was played or is being played
            ok = o == out or (o - out) % P <= (cur - out) % P
        if not ok:
            raise ValueError(f"scenario: melds[{m}]: only the player going out, and later those in their last "
                             f"turn, have melds on the table")
    if phase in (PHASE_LAY, PHASE_BUILD, PHASE_LAYOFF) and not rec["going_out"] and out < 0:
        raise ValueError("scenario: before anybody is out, melds are laid only when going out")
    if phase == PHASE_CHOOSE and (out >= 0 or not hand_splits(RULES, rec["hands"][cur])):
        raise ValueError("scenario: the choose phase (go out or end the turn) needs nobody out yet and a hand "
                         "that splits into melds")
    if phase == PHASE_LAYOFF and (rec["going_out"] or out < 0 or int(rec["meld_owner"][target]) != out):
        raise ValueError("scenario: cards are added only in a last turn, to the melds of the player who went out")
    if rec["stock_n"] == 0 and rec["pile_n"] == 0 and phase != PHASE_DISCARD:
        raise ValueError("scenario: the stock and the discard pile cannot both be empty (nobody could draw)")
    check_playable(sys.modules[__package__], rec)  # the position must leave the player to move a legal action


MAX_DEBT = 10**8  # cents: a loaded player's money is within +-MAX_DEBT (the buys are not bounded by the rules)


def _round_cap(r: int) -> int:
    """The most points one round can score a player: every card held a ten, doubled or not."""
    return (2 if r >= DOUBLED_FROM else 1) * (r + 2) * 10


def check_counters(rec) -> None:
    """What play can reach of the counters (docs/games/frime.md, "Scenarios"): scores,
    round points and flocons at most what the finished rounds can give, none negative;
    while the match runs, nobody holds more than the 450¢ left after the ante (the pot
    holds the antes and the buys); once it is over the pot is paid out; turns within the
    turn cap, steps within max_steps; no hand smaller than the play so far allows."""
    P = int(rec["num_players"])
    rnd, first = int(rec["round"]), int(rec["first_round"])
    over = bool(rec["terminated"] or rec["truncated"])
    out = int(rec["out_player"])
    finished = list(range(first, rnd + (1 if over else 0)))
    points_cap = sum(_round_cap(r) for r in finished)
    flocons_cap = sum(2 if r >= DOUBLED_FROM else 1 for r in finished)
    live_flocon = (2 if rnd >= DOUBLED_FROM else 1) if out >= 0 and not over else 0
    last_cap = _round_cap(finished[-1]) if finished else 0
    for q in range(P):
        score, points, fl = int(rec["scores"][q]), int(rec["round_points"][q]), int(rec["flocons"][q])
        if not 0 <= score <= points_cap:
            raise ValueError(f"scenario: scores[{q}] must be 0..{points_cap} after {len(finished)} finished "
                             f"round(s), got {score}")
        if not 0 <= points <= min(last_cap, score):
            raise ValueError(f"scenario: round_points[{q}] must be 0..{min(last_cap, score)} (the last finished "
                             f"round's, within the score), got {points}")
        most = flocons_cap + (live_flocon if q == out else 0)
        if not 0 <= fl <= most:
            raise ValueError(f"scenario: flocons[{q}] must be 0..{most} after {len(finished)} finished round(s), "
                             f"got {fl}")
    if int(rec["flocons"][:P].astype(np.int64).sum()) > flocons_cap + live_flocon:
        raise ValueError(f"scenario: flocons add up to more than the {flocons_cap + live_flocon} the rounds gave")
    if out >= 0 and not over and int(rec["flocons"][out]) < live_flocon:
        raise ValueError(f"scenario: flocons[{out}]: going out this round earned {live_flocon} flocon(s)")
    top = MAX_DEBT if over else START_MONEY - ANTE  # paid out: the settlement moves money both ways
    for q in range(P):
        m = int(rec["money"][q])
        if not -MAX_DEBT <= m <= top:
            when = "once the match is over" if over else "while the match runs (the ante is in the pot)"
            raise ValueError(f"scenario: money[{q}] must be {-MAX_DEBT}..{top}¢ {when}, got {m}")
    if over and int(rec["pot"]) != 0:
        raise ValueError(f"scenario: pot must be 0 once the match is over (it is paid out), got {int(rec['pot'])}")
    cap = int(rec["max_turns_per_round"])
    turns = int(rec["turns"])
    if cap > 0 and (turns > cap + P - 1 or (out < 0 and not over and turns >= cap)):
        raise ValueError(f"scenario: turns must stay below max_turns_per_round {cap} while nobody is out "
                         f"(then {P - 1} more at most), got {turns}")
    if over or not 1 <= rnd <= NUM_ROUNDS:
        return
    sizes = rec["hands"][:P].astype(np.int64).sum(axis=1)
    dealt = rnd + 2
    cur = int(rec["current"])
    phase = int(rec["phase"])
    for q in range(P):
        still_to_play = out < 0 or (q != out and (q - out) % P > (cur - out) % P)
        if q == cur:
            want = dealt + (1 if phase == PHASE_DISCARD else 0)
            exact = out < 0 and phase in (PHASE_DRAW, PHASE_DISCARD, PHASE_CHOOSE)
            ok = sizes[q] == want if exact else sizes[q] <= want
        elif still_to_play:
            ok = sizes[q] == dealt
        else:
            ok = sizes[q] <= dealt
        if not ok:
            raise ValueError(f"scenario: hands[{q}] holds {int(sizes[q])} cards; in round {rnd} ({dealt} dealt), "
                             f"phase {PHASE_NAMES[phase]}, that position cannot be reached")


def observation_bounds(template) -> tuple[float, float]:
    """Low and high of every observation entry (int16): money and the pot (cents), scores
    and turn counts saturate at -OBS_MAX and OBS_MAX (reached only far past the default
    turn cap); the largest other entry is a run's frime positions (below 2**14)."""
    return -float(OBS_MAX), float(OBS_MAX)


def round_info(rec) -> dict:
    P = int(rec["num_players"])
    return {
        "round": int(rec["round"]),
        "scores": [int(x) for x in rec["scores"][:P]],
        "flocons": [int(x) for x in rec["flocons"][:P]],
        "money": [int(x) for x in rec["money"][:P]],
        "pot": int(rec["pot"]),
        "round_points": [int(x) for x in rec["round_points"][:P]],
        "out_player": int(rec["out_player"]),
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
LINE_STARTERS = ("set", "run", "layoff")
BARE_CARD_FALLBACK = "discard"

def timeout_actions(rec) -> list[int]:
    """What the CLI plays for a person whose turn timer ran out: draw from the stock,
    discard the highest-points card, do not go out, end a last turn."""
    legal = [int(a) for a in np.flatnonzero(rec["legal"])]
    if not legal:
        return []
    for a in (DRAW_STOCK, TAKE_DISCARD, END_TURN):
        if a in legal:
            return [a]
    discards = [a for a in legal if DISCARD0 <= a < GO_OUT]
    if discards:
        return [max(discards, key=lambda a: (int(frime_penalty.py_func(a - DISCARD0)), a))]
    return [legal[0]]


def render_text(rec, viewer: int | None = None) -> str:
    """The table as text; ``viewer`` None shows every hand, else only that player's."""
    P = int(rec["num_players"])
    phase = int(rec["phase"])
    over = phase == PHASE_OVER
    rnd = int(rec["round"])
    lines = [
        f"Frime — round {rnd} ({rnd + 2} cards{', doubled' if rnd >= DOUBLED_FROM else ''}), "
        f"phase {PHASE_NAMES[phase]}, turn {int(rec['turns']) + 1}{' (match over)' if over else ''}"
    ]
    pn = int(rec["pile_n"])
    top = card_str(int(rec["pile"][pn - 1])) if pn else "empty"
    under = card_str(int(rec["pile"][pn - 2])) if pn > 1 else "none"
    price = BUY_PRICE * (2 if rnd >= DOUBLED_FROM else 1)
    lines.append(f"stock: {n_cards(int(rec['stock_n']))}; discard top: {top}; to buy: {under} ({price}¢); "
                 f"pot: {int(rec['pot'])}¢")
    for m in range(int(rec["num_melds"])):
        lines.append(f"  meld {m} (player_{int(rec['meld_owner'][m])}): {' '.join(T.meld_tokens(RULES, rec, m))}")
    if not rec["num_melds"]:
        lines.append("  no meld on the table")
    if rec["build_n"] or rec["build_kind"]:
        b = custom_to_dict(rec, "build")
        lines.append(f"building a {b['kind']}: {' '.join(b['cards'])}")
    if phase == PHASE_LAYOFF:
        lines.append(f"adding to meld {int(rec['target'])}")
    if int(rec["out_player"]) >= 0:
        lines.append(f"player_{int(rec['out_player'])} is out; {int(rec['last_turns'])} last turn(s) to play")
    for p in range(P):
        mark = "->" if p == rec["current"] and not over else "  "
        held = int(rec["hands"][p].sum())
        cards = " ".join(T.hand_cards(rec["hands"][p])) if viewer is None or viewer == p else n_cards(held)
        lines.append(f"{mark} player_{p} {int(rec['money'][p]):5d}¢ score {int(rec['scores'][p]):4d} "
                     f"flocons {int(rec['flocons'][p])}: {cards or '(none)'}")
    return "\n".join(lines)
