"""Odin, the Python side: moves as text, the options and the scenario codec, state
checks and the table as text (the rules themselves are the kernels of ``rules.py``)."""

from __future__ import annotations

import numpy as np

from cardenvs.core.cards import ODIN_COLOURS, n_cards, odin_card_id, odin_card_str, odin_deck_counts
from cardenvs.core.protocol import Field, check_bool_option, check_choice_option, check_int_option, options_record
from cardenvs.games.odin.rules import (
    HAND_SIZE,
    MAX_PLAYERS,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_COLOURS,
    NUM_VALUES,
    OBS_KNOWN,
    OBS_TABLE_COUNT,
    PASS,
    PHASE_NAMES,
    PHASE_OVER,
    PLAY,
    REWARD_MODES,
    SELECT0,
    STATE_DTYPE,
    TAKE0,
    TARGET_SCORES,
)


def card_value(cards) -> int:
    """The value of a play: its digits, largest first (``["2r", "6r"]`` -> 62)."""
    ids = [odin_card_id(c) if isinstance(c, str) else int(c) for c in cards]
    digits = sorted((c % NUM_VALUES + 1 for c in ids), reverse=True)
    return int("".join(map(str, digits))) if digits else 0


def action_to_str(a: int) -> str:
    """``pass``, ``play``, ``select 7r`` (add 7r to the play being built), ``take 7r``
    (commit the play and keep 7r from the covered play)."""
    a = int(a)
    if a == PASS:
        return "pass"
    if a == PLAY:
        return "play"
    if SELECT0 <= a < TAKE0:
        return "select " + odin_card_str(a - SELECT0)
    if TAKE0 <= a < NUM_ACTIONS:
        return "take " + odin_card_str(a - TAKE0)
    raise ValueError(f"not an odin action: {a!r} (0..{NUM_ACTIONS - 1})")


def str_to_action(text: str) -> int:
    """Inverse of :func:`action_to_str`; a bare card (``7r``) means ``select 7r``."""
    t = " ".join(str(text).split()).lower()
    if t in ("pass", "p"):
        return PASS
    if t == "play":
        return PLAY
    words = t.split(" ")
    try:
        if len(words) == 1:
            return SELECT0 + odin_card_id(words[0])
        if len(words) == 2 and words[0] in ("select", "take"):
            c = odin_card_id(words[1])
            return (SELECT0 if words[0] == "select" else TAKE0) + c
    except ValueError:
        pass
    raise ValueError(
        f"cannot read {text!r}: expected 'pass', 'play', 'select 7r' (or just '7r') or 'take 7r' "
        f"(a value 1-9 then a colour of {' '.join(ODIN_COLOURS)})"
    )


# A whole play typed on one line at the command line (``cardenvs play``): the move that
# commits the play, added when the line stops at its cards.
LINE_FINISHER = "play"


def play_actions(cards, take: str | int | None = None) -> list[int]:
    """The actions that make a play: its cards selected in the canonical order
    (decreasing id), then ``take <card>`` or ``play``."""
    ids = sorted((odin_card_id(c) if isinstance(c, str) else int(c) for c in cards), reverse=True)
    out = [SELECT0 + c for c in ids]
    if take is None:
        out.append(PLAY)
    else:
        out.append(TAKE0 + (odin_card_id(take) if isinstance(take, str) else int(take)))
    return out


def colours_in_use(rec) -> int:
    return int(rec["two_player_colours"]) if int(rec["num_players"]) == 2 else NUM_COLOURS


def deck_counts(state) -> np.ndarray:
    return odin_deck_counts(colours_in_use(state))


REST_FIELD = "aside"  # cards a scenario does not place are set aside, unseen

STATE_FIELDS = (
    Field("num_players", "int", option=True),
    Field("two_player_colours", "int", option=True),
    Field("target_score", "int", option=True),
    Field("single_round", "bool", option=True),
    Field("reward_mode", "enum", REWARD_MODES, option=True),
    Field("max_steps", "int", option=True),
    Field("rng", "hex64"),
    Field("scores", "seats_int", low=0),
    Field("round", "int", low=1),
    Field("round_leader", "int"),
    Field("num_steps", "int", low=0),
    Field("terminated", "bool"),
    Field("truncated", "bool"),
    Field("rewards", "seats_float"),
    Field("round_points", "seats_int", low=0),
    Field("hands", "hands"),
    Field("table", "cards"),
    Field("selected", "cards"),
    Field("discarded", "cards"),
    Field("aside", "cards"),
    Field("known", "hands", counted=False),
    Field("phase", "enum", PHASE_NAMES),
    Field("current", "int"),
    Field("last_player", "int"),
)


def make_template(
    num_players: int = 4,
    two_player_colours: int = 4,
    target_score: int = 15,
    single_round: bool = False,
    reward_mode: str = "match",
    max_steps: int = 0,
) -> np.ndarray:
    """A one-game state array holding the options (validated); the rest is dealt at reset.

    num_players: 2-6. two_player_colours: colours in the deck with 2 players (4: two
    colours removed; 2-6). target_score: 10, 15, 20 or 30; the match ends after the
    round in which someone reaches it. single_round: one round is the whole match.
    reward_mode: "match" (zero-sum outcome at the end) or "round" (minus each round's
    points). max_steps: truncate a match after this many decisions (0: never).
    """
    check_int_option("odin", "num_players", num_players, 2, MAX_PLAYERS)
    check_int_option("odin", "two_player_colours", two_player_colours, 2, NUM_COLOURS)
    check_choice_option("odin", "target_score", target_score, TARGET_SCORES)
    check_bool_option("odin", "single_round", single_round)
    check_choice_option("odin", "reward_mode", reward_mode, REWARD_MODES)
    check_int_option("odin", "max_steps", max_steps, 0)
    return options_record(STATE_DTYPE, num_players=num_players, two_player_colours=two_player_colours,
                          target_score=target_score, single_round=bool(single_round),
                          reward_mode=REWARD_MODES.index(reward_mode), max_steps=max_steps)


def _ids(counts) -> list[int]:
    return [int(c) for c in np.flatnonzero(np.asarray(counts))]


def _is_uniform(ids) -> bool:
    return len({c // NUM_VALUES for c in ids}) <= 1 or len({c % NUM_VALUES for c in ids}) <= 1


def selection_completable(selection: list[int], hand: list[int], table: list[int]) -> bool:
    """Whether a selection (cards already out of ``hand``) can still end as a legal play."""
    if not selection:
        return True
    low = min(selection)
    extra = [c for c in hand if c < low]
    if not table:
        return len(selection) == 1 or (_is_uniform(selection + hand) and all(c < low for c in hand))
    n = len(table)
    target = card_value(table)
    for size in (n, n + 1):
        need = size - len(selection)
        if need < 0:
            continue
        # a uniform play: the best completion of each kind adds its highest cards
        groups = [[c for c in extra if c // NUM_VALUES == low // NUM_VALUES]]
        groups.append([c for c in extra if c % NUM_VALUES == low % NUM_VALUES])
        for g in groups:
            cand = selection + sorted(g, reverse=True)[:need]
            if len(cand) == size and _is_uniform(cand) and (size == n + 1 or card_value(cand) > target):
                return True
    return False


def check_scores(rec) -> None:
    """Scores play can reach (docs/games/odin.md): below target_score while the match runs
    (it ends in the round where someone reaches it), at most a hand's cards past it once it
    is over; a round's points at most a hand's cards."""
    P = int(rec["num_players"])
    over = bool(rec["terminated"] or rec["truncated"])
    target = int(rec["target_score"])
    top = target - 1 + (HAND_SIZE if over else 0)
    for q in range(P):
        if not 0 <= int(rec["scores"][q]) <= top:
            raise ValueError(f"scenario: scores[{q}] must be 0..{top} "
                             f"{'once the match is over' if over else 'while the match runs'} (target_score "
                             f"{target}), got {int(rec['scores'][q])}")
        if not 0 <= int(rec["round_points"][q]) <= min(HAND_SIZE, int(rec["scores"][q])):
            raise ValueError(f"scenario: round_points[{q}] must be 0..{min(HAND_SIZE, int(rec['scores'][q]))} "
                             f"(a hand's cards, within the score), got {int(rec['round_points'][q])}")


def validate_state(rec) -> None:
    """Consistency checks of a loaded scenario beyond card conservation."""
    P = int(rec["num_players"])
    check_scores(rec)
    hands = [_ids(rec["hands"][p]) for p in range(P)]
    table = _ids(rec["table"])
    selection = _ids(rec["selected"])
    for p in range(P):
        extra = set(_ids(rec["known"][p])) - set(hands[p])
        if extra:
            names = " ".join(odin_card_str(c) for c in sorted(extra))
            raise ValueError(f"scenario: known[{p}] lists {names}, which player {p} does not hold")
    for name in ("round_leader", "last_player"):
        v = int(rec[name])
        if not -1 <= v < P or (name == "round_leader" and v < 0):
            raise ValueError(f"scenario: {name} must be a seat 0..{P - 1}, got {v}")
    if table and not _is_uniform(table):
        raise ValueError("scenario: the table play must be one colour or one value")
    if bool(table) != (int(rec["last_player"]) >= 0):
        raise ValueError("scenario: table and last_player must be set together (or the table empty and -1)")
    if rec["phase"] == PHASE_OVER:
        return
    cur = int(rec["current"])
    if not 0 <= cur < P:
        raise ValueError(f"scenario: current player {cur} is not a seat 0..{P - 1}")
    if table and cur == int(rec["last_player"]):
        raise ValueError("scenario: the player to move cannot have made the table play (the table would be cleared)")
    for p in range(P):
        if not hands[p] and not (p == cur and selection):
            raise ValueError(f"scenario: player {p} holds no card, but the round would have ended")
    if selection and not (_is_uniform(selection) and selection_completable(selection, hands[cur], table)):
        names = " ".join(odin_card_str(c) for c in selection)
        raise ValueError(f"scenario: the selection {names} cannot become a legal play")


def observation_v0(obs: np.ndarray) -> np.ndarray:
    """Observation rows (K, OBS_SIZE) in odin_v0's layout (323 entries: the opponents' known
    cards merged into one block), for policies trained on odin_v0."""
    obs = np.asarray(obs)
    known = obs[:, OBS_KNOWN:OBS_TABLE_COUNT].reshape(len(obs), MAX_PLAYERS - 1, NUM_CARDS).max(axis=1)
    return np.concatenate([obs[:, :OBS_KNOWN], known, obs[:, OBS_TABLE_COUNT:]], axis=1)


def observation_bounds(template) -> tuple[float, float]:
    """Low and high of every observation entry (0/1 cards, counts, scores)."""
    return 0.0, float(max(NUM_CARDS, int(template["target_score"][0]) + 2 * HAND_SIZE))


def round_info(rec) -> dict:
    """Infos for the AEC env: round number, match scores, the last round's points."""
    P = int(rec["num_players"])
    return {
        "round": int(rec["round"]),
        "scores": [int(x) for x in rec["scores"][:P]],
        "round_points": [int(x) for x in rec["round_points"][:P]],
    }


def _cards_text(counts) -> str:
    """Cards grouped by colour, values increasing."""
    ids = _ids(counts)
    return " ".join(odin_card_str(c) for c in ids) if ids else "(none)"


def render_text(rec, viewer: int | None = None) -> str:
    """The table as text; ``viewer`` None shows every hand, else only that player's."""
    P = int(rec["num_players"])
    target = "single round" if rec["single_round"] else f"target {int(rec['target_score'])}"
    over = int(rec["phase"]) == PHASE_OVER
    lines = [f"Odin — round {int(rec['round'])}, {target}{', over' if over else ''}"]
    table = _ids(rec["table"])
    if table:
        lines.append(
            f"table: {_cards_text(rec['table'])} (value {card_value(table)}) by player_{int(rec['last_player'])}"
        )
    else:
        lines.append("table: empty")
    if rec["selected"].any():
        lines.append(f"selected: {_cards_text(rec['selected'])}")
    lines.append(f"discarded: {n_cards(int(rec['discarded'].sum()))}")
    for p in range(P):
        held = int(rec["hands"][p].sum())
        mark = "->" if p == rec["current"] and not over else "  "
        if viewer is None or viewer == p:
            cards = _cards_text(rec["hands"][p])
        else:
            known = _ids(rec["known"][p])
            cards = n_cards(held) + (f" (known: {' '.join(odin_card_str(c) for c in known)})" if known else "")
        lead = " (led the round)" if p == rec["round_leader"] else ""
        lines.append(f"{mark} player_{p} score {int(rec['scores'][p]):2d}{lead}: {cards}")
    return "\n".join(lines)
