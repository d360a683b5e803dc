"""President, the Python side: moves as text, the options and the scenario codec, state
checks and the table as text (the rules themselves are the kernels of ``rules.py``)."""

from __future__ import annotations

import numpy as np

from cardenvs.core.cards import SUITS, card_str, n_cards, standard_deck_counts
from cardenvs.core.protocol import Field, check_choice_option, check_int_option, options_record
from cardenvs.games.president.rules import (
    _STD_RANK,
    GIVE0,
    MAX_PER_RANK,
    MAX_PLAYERS,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_RANKS,
    OFFER_HOLDERS,
    OFFER_MODES,
    PASS,
    PHASE_EXCHANGE,
    PHASE_NAMES,
    PHASE_OFFER,
    PHASE_OVER,
    PHASE_PLAY,
    PLAY0,
    PRES_RANKS,
    REWARD_MODES,
    STATE_DTYPE,
    TWO,
)


def rank_name(rank: int) -> str:
    return PRES_RANKS[rank]


def action_to_str(a: int) -> str:
    """``pass``; a play as its rank repeated (``77`` is a pair of sevens); ``give K``."""
    a = int(a)
    if a == PASS:
        return "pass"
    if PLAY0 <= a < GIVE0:
        rank, count = divmod(a - PLAY0, MAX_PER_RANK)
        return PRES_RANKS[rank] * (count + 1)
    if GIVE0 <= a < NUM_ACTIONS:
        return "give " + PRES_RANKS[a - GIVE0]
    raise ValueError(f"not a president action: {a!r} (0..{NUM_ACTIONS - 1})")


def public_action_str(a: int) -> str:
    """What the other players see: the card the president returns is given face down."""
    return "give a card" if GIVE0 <= int(a) < NUM_ACTIONS else action_to_str(a)


def str_to_action(text: str) -> int:
    """Inverse of :func:`action_to_str`; also accepts cards with suits (``7h 7s``)."""
    t = text.strip()
    if t.lower() in ("pass", "p", "decline"):
        return PASS
    if t.lower().startswith("give"):
        r = t[4:].strip()
        if len(r) >= 1 and r[0] in PRES_RANKS and (len(r) == 1 or (len(r) == 2 and r[1] in SUITS)):
            return GIVE0 + PRES_RANKS.index(r[0])
        raise ValueError(f"cannot read {text!r}: expected 'give R' with a rank of {PRES_RANKS}")
    parts = t.split()
    if len(parts) == 1 and all(ch == t[0] for ch in t):
        ranks = list(t)  # "777"
    elif all(len(p) in (1, 2) for p in parts) and all(len(p) == 1 or p[1] in SUITS for p in parts):
        ranks = [p[0] for p in parts]  # "7 7" or "7h 7s"
    else:
        ranks = []
    if not ranks or any(r not in PRES_RANKS for r in ranks) or len(set(ranks)) != 1:
        raise ValueError(
            f"cannot read {text!r}: expected 'pass', 'give R', or cards of one rank "
            f"like '77' or '7h 7s' (ranks {PRES_RANKS})"
        )
    if len(ranks) > MAX_PER_RANK:
        raise ValueError(f"cannot read {text!r}: at most {MAX_PER_RANK} cards of one rank")
    return PLAY0 + PRES_RANKS.index(ranks[0]) * MAX_PER_RANK + len(ranks) - 1


def deck_counts(state) -> np.ndarray:
    return standard_deck_counts(int(state["decks"]))


REST_FIELD = "played"  # cards a scenario does not place are taken as already played

STATE_FIELDS = (
    Field("num_players", "int", option=True),
    Field("decks", "int", option=True),
    Field("target_score", "int", option=True),
    Field("single_round", "bool", option=True),
    Field("reward_mode", "enum", REWARD_MODES, option=True),
    Field("two_is_highest", "bool", option=True),
    Field("completion_offers", "enum", OFFER_MODES, option=True),
    Field("max_steps", "int", option=True),
    Field("rng", "hex64"),
    Field("scores", "seats_int", low=0),
    Field("round", "int", low=1),
    Field("dealer", "int"),
    Field("president", "int"),
    Field("trou", "int"),
    Field("num_steps", "int", low=0),
    Field("terminated", "bool"),
    Field("truncated", "bool"),
    Field("rewards", "seats_float"),
    Field("hands", "hands"),
    Field("played", "cards"),
    Field("phase", "enum", PHASE_NAMES),
    Field("current", "int"),
    Field("first_lead", "bool"),
    Field("pile_rank", "symbol", PRES_RANKS),
    Field("pile_count", "int", low=0),
    Field("run_count", "int", low=0),
    Field("last_player", "int"),
    Field("matched", "bool"),
    Field("out", "seats_bool"),
    Field("finish_order", "seat_list", count="num_finished"),
    Field("stuck_order", "seat_list", count="num_stuck"),
    Field("received", "seats_card"),
    Field("given", "seats_card"),
    Field("last_places", "seats_int"),
)


def make_template(
    num_players: int = 4,
    decks: int | None = None,
    target_score: int = 11,
    single_round: bool = False,
    reward_mode: str = "match",
    two_is_highest: bool = True,
    completion_offers: str = "public",
    max_steps: int = 0,
) -> np.ndarray:
    """A one-game state array holding the options (validated); the rest is dealt at reset.

    num_players: 4-10. decks: 1 for up to 7 players, 2 from 8 (default by count).
    target_score: the match ends after the round in which someone reaches it (11).
    single_round: one round is the whole episode. reward_mode: "match" (zero-sum
    outcome at the end) or "round" (each round's points when it ends).
    two_is_highest: trou A's "highest card" is a 2 when they hold one.
    completion_offers: "public" (every player in play who could complete a four is
    asked, judged from public information) or "holders" (only those holding exactly
    the missing cards: fewer decisions, but being asked reveals the cards).
    max_steps: truncate a match after this many decisions (0: never; a match always ends).
    """
    check_int_option("president", "num_players", num_players, 4, MAX_PLAYERS)
    if decks is None:
        decks = 1 if num_players <= 7 else 2
    check_int_option("president", "decks", decks, 1, 2)
    if NUM_CARDS * decks < 2 * num_players:
        raise ValueError(f"president: {decks} deck(s) are too few for {num_players} players")
    check_int_option("president", "target_score", target_score, 1, 10_000)
    check_choice_option("president", "completion_offers", completion_offers, OFFER_MODES)
    check_choice_option("president", "reward_mode", reward_mode, REWARD_MODES)
    check_int_option("president", "max_steps", max_steps, 0)
    return options_record(STATE_DTYPE, num_players=num_players, decks=decks, target_score=target_score,
                          single_round=bool(single_round), reward_mode=REWARD_MODES.index(reward_mode),
                          two_is_highest=bool(two_is_highest),
                          completion_offers=OFFER_MODES.index(completion_offers), max_steps=max_steps)


def complete_scenario(rec, scenario: dict) -> None:
    """Fill what a partial scenario implies: a scenario with a pile or played cards is
    past the match's first lead, unless it says otherwise."""
    if "first_lead" not in scenario and (rec["pile_rank"] >= 0 or rec["played"].any() or rec["round"] > 1):
        rec["first_lead"] = False
    if rec["first_lead"] and "current" not in scenario:
        P = int(rec["num_players"])
        holders = [(int(rec["dealer"]) + i) % P for i in range(1, P + 1)]
        rec["current"] = next(q for q in holders if rec["hands"][q, _STD_RANK[0] * 4])  # first 3c holder


def check_scores(rec) -> None:
    """Scores play can reach (docs/games/president.md): 2 and 1 points a finished round,
    below target_score while the match runs, at most 1 past it once it is over."""
    P = int(rec["num_players"])
    over = bool(rec["terminated"] or rec["truncated"])
    finished = int(rec["round"]) - 1 + (1 if over else 0)
    target = int(rec["target_score"])
    top = min(2 * finished, target + 1 if over else target - 1)
    for q in range(P):
        if not 0 <= int(rec["scores"][q]) <= top:
            raise ValueError(f"scenario: scores[{q}] must be 0..{top} after {finished} finished round(s) "
                             f"(target_score {target}), got {int(rec['scores'][q])}")
    if int(rec["scores"][:P].astype(np.int64).sum()) > 3 * finished:
        raise ValueError(f"scenario: scores add up to more than the {3 * finished} points of {finished} round(s)")


def _check_exchange(rec, P: int) -> None:
    """``received``/``given``: only the president and trou A exchange, each the card the
    other names (a field may be cleared: a re-deal for another seat forgets the exchange)."""
    pres, trou = int(rec["president"]), int(rec["trou"])
    for q in range(P):
        if (int(rec["received"][q]) >= 0 or int(rec["given"][q]) >= 0) and q not in (pres, trou):
            raise ValueError(f"scenario: player {q} has an exchanged card but is neither the president nor trou A")
    if pres >= 0 and trou >= 0 and pres != trou:
        for a, b in ((pres, trou), (trou, pres)):
            got, sent = int(rec["received"][a]), int(rec["given"][b])
            if got >= 0 and sent >= 0 and got != sent:
                raise ValueError(f"scenario: received[{a}] and given[{b}] must name the same card")


def validate_state(rec) -> None:
    """Consistency checks of a loaded scenario beyond card conservation."""
    P = int(rec["num_players"])
    check_scores(rec)
    for p in range(P):
        twos = int(rec["hands"][p, _STD_RANK[TWO] * 4 : _STD_RANK[TWO] * 4 + 4].sum())
        if not rec["out"][p] and 0 < twos == int(rec["hands"][p].sum()):
            raise ValueError(f"scenario: player {p} holds only 2s, so is stuck: add them to stuck_order")
    _check_exchange(rec, P)
    if rec["first_lead"]:
        three_clubs = _STD_RANK[0] * 4
        if rec["pile_rank"] >= 0 or rec["phase"] != PHASE_PLAY or not rec["hands"][rec["current"], three_clubs]:
            raise ValueError("scenario: first_lead needs an empty pile and the 3c in the hand of the player to move")
    sizes = rec["hands"][:P].sum(axis=1)
    for p in range(P):
        stuck = p in list(rec["stuck_order"][: rec["num_stuck"]])
        finished = p in list(rec["finish_order"][: rec["num_finished"]])
        if bool(rec["out"][p]) != (stuck or finished):
            raise ValueError(f"scenario: player {p} 'out' must be true exactly when in finish_order or stuck_order")
        if finished and sizes[p]:
            raise ValueError(f"scenario: player {p} finished but holds {sizes[p]} cards")
        if not rec["out"][p] and sizes[p] == 0:
            raise ValueError(f"scenario: player {p} holds no card but is still in play (add them to finish_order)")
    if rec["phase"] != PHASE_OVER:
        cur = int(rec["current"])
        if not 0 <= cur < P or rec["out"][cur]:
            raise ValueError(f"scenario: current player {cur} is not a player still in play")
    for name in ("dealer", "president", "trou", "last_player"):
        v = int(rec[name])
        if not -1 <= v < P:
            raise ValueError(f"scenario: {name} must be a seat 0..{P - 1} (or -1), got {v}")
    if (rec["pile_rank"] < 0) != (rec["last_player"] < 0):
        raise ValueError("scenario: pile_rank and last_player must be set together (or both empty)")
    if rec["pile_rank"] == TWO:
        raise ValueError("scenario: 2s clear the pile at once, the pile cannot show a 2")
    # a finished match keeps its last play, which may have made a four (the round ended first)
    max_run = MAX_PER_RANK if rec["phase"] == PHASE_OVER else 3
    if rec["pile_rank"] >= 0 and not 1 <= rec["pile_count"] <= rec["run_count"] <= max_run:
        raise ValueError("scenario: need 1 <= pile_count <= run_count (and below four of a kind)")
    if rec["phase"] == PHASE_EXCHANGE and (rec["president"] < 0 or rec["trou"] < 0):
        raise ValueError("scenario: the exchange phase needs president and trou seats")
    if rec["phase"] == PHASE_EXCHANGE and (rec["current"] != rec["president"] or rec["president"] == rec["trou"]):
        raise ValueError("scenario: in the exchange phase the president (not trou A) is to move")
    if rec["phase"] == PHASE_OFFER:
        r, cur = int(rec["pile_rank"]), int(rec["current"])
        need = 4 - int(rec["run_count"])
        held = int(rec["hands"][cur, _STD_RANK[r] * 4 : _STD_RANK[r] * 4 + 4].sum()) if r >= 0 else -1
        asked = held == need if rec["completion_offers"] == OFFER_HOLDERS else int(rec["hands"][cur].sum()) >= need
        if r < 0 or cur == rec["last_player"] or not asked:
            raise ValueError(
                "scenario: in the offer phase the player to move (not the last player) must be one "
                "who is asked to complete the four on the pile (see completion_offers)"
            )


def observation_bounds(template) -> tuple[float, float]:
    """Low and high of every observation entry (counts, places, scores)."""
    return 0.0, float(max(NUM_CARDS * 2, int(template["target_score"][0]) + 2))


def round_info(rec) -> dict:
    """Infos for the AEC env: round number, match scores, last round's places."""
    P = int(rec["num_players"])
    return {
        "round": int(rec["round"]),
        "scores": [int(x) for x in rec["scores"][:P]],
        "last_places": [int(x) for x in rec["last_places"][:P]],
    }


def render_text(rec, viewer: int | None = None) -> str:
    """The table as text; ``viewer`` None shows every hand, else only that player's."""
    P = int(rec["num_players"])
    lines = [
        f"Président — round {int(rec['round'])}, phase {PHASE_NAMES[int(rec['phase'])]}, "
        f"target {int(rec['target_score'])}"
    ]
    if rec["pile_rank"] >= 0:
        top = PRES_RANKS[int(rec["pile_rank"])] * int(rec["pile_count"])
        lines.append(f"pile: {top} by player_{int(rec['last_player'])} (run of {int(rec['run_count'])})")
    else:
        lines.append("pile: empty")
    for p in range(P):
        held = int(rec["hands"][p].sum())
        mark = "->" if p == rec["current"] and rec["phase"] != PHASE_OVER else "  "
        status = ""
        if p in list(rec["finish_order"][: rec["num_finished"]]):
            status = f" out #{list(rec['finish_order']).index(p) + 1}"
        elif p in list(rec["stuck_order"][: rec["num_stuck"]]):
            status = " stuck with 2s"
        if viewer is None or viewer == p:
            cards = _hand_text(rec["hands"][p])
        else:
            cards = n_cards(held)
        lines.append(f"{mark} player_{p} score {int(rec['scores'][p]):2d}{status}: {cards}")
    return "\n".join(lines)


def _hand_text(counts) -> str:
    """Cards in president order (3 first, 2 last)."""
    cards = []
    for r in range(NUM_RANKS):
        base = int(_STD_RANK[r]) * 4
        for i in range(4):
            cards += [card_str(base + i)] * int(counts[base + i])
    return " ".join(cards) if cards else "(none)"


def check_unseen(states: np.ndarray) -> None:
    """Dealing the unseen cards anew needs offers that reveal nothing: with
    ``completion_offers="holders"`` only a player holding the missing cards is asked, so
    every offer (and every decline) tells the table part of a hand, which the deal does
    not track. ValueError then."""
    if (np.asarray(states["completion_offers"]) == OFFER_HOLDERS).any():
        raise ValueError("president: dealing the unseen cards anew needs completion_offers='public' "
                         "(with 'holders' an offer shows part of a hand, which the deal does not keep)")
