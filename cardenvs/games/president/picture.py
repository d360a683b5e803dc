"""President's table as a picture's view (:mod:`cardenvs.core.picture` draws it): the hands
(the viewer's face up, the others as counts), scores and this round's president and trou,
who went out and in what place, and the pile (its rank and count: the record keeps no suits
of a play)."""

from __future__ import annotations

from cardenvs.core.cards import RANKS, n_cards
from cardenvs.games.president.rules import PHASE_EXCHANGE, PHASE_NAMES, PHASE_OFFER, PHASE_OVER, PRES_RANKS
from cardenvs.games.president.text import _hand_text


def _place(k: int) -> str:
    return f"{k}{'st' if k == 1 else 'nd' if k == 2 else 'rd' if k == 3 else 'th'}"


def table_view(rec, viewer: int | None) -> dict:
    """What seat ``viewer`` sees (None: every hand): see :mod:`cardenvs.core.picture`."""
    P = int(rec["num_players"])
    phase = int(rec["phase"])
    over = phase == PHASE_OVER
    finished = [int(q) for q in rec["finish_order"][: int(rec["num_finished"])]]
    stuck = [int(q) for q in rec["stuck_order"][: int(rec["num_stuck"])]]
    seats = []
    for p in range(P):
        held = int(rec["hands"][p].sum())
        labels = [f"score {int(rec['scores'][p])}"]
        if p == int(rec["president"]):
            labels.append("president")
        if p == int(rec["trou"]):
            labels.append("trou")
        out = None
        if p in finished:
            out = f"out, {_place(finished.index(p) + 1)}"
        elif p in stuck:
            out = "stuck with 2s"
        visible = viewer is None or viewer == p
        seats.append({
            "name": f"player_{p}",
            "hand": _hand_text(rec["hands"][p]).split() if visible and held else ([] if visible else None),
            "count": held,
            "labels": labels,
            "to_move": p == int(rec["current"]) and not over,
            "out": out,
        })
    table = []
    if rec["pile_rank"] >= 0:
        rank = PRES_RANKS[int(rec["pile_rank"])]
        table.append({"label": "pile", "groups": [[rank] * int(rec["pile_count"])], "stack": 0,
                      "note": f"by player_{int(rec['last_player'])}, run of {int(rec['run_count'])}"})
    else:
        table.append({"label": "pile", "groups": [], "stack": 0, "note": "empty"})
    status = [f"phase {PHASE_NAMES[phase]}" + (", match over" if over else ""),
              f"played this round: {n_cards(int(rec['played'].sum()))}; match to {int(rec['target_score'])} points"]
    if phase == PHASE_OFFER:
        status.append(f"player_{int(rec['current'])} may complete the four out of turn")
    if phase == PHASE_EXCHANGE:
        status.append("the president gives a card back to trou")
    for q in ([viewer] if viewer is not None else range(P)):
        # the ranks of the exchange, as the seat's observation holds them
        got, gave = int(rec["received"][q]), int(rec["given"][q])
        if got >= 0 or gave >= 0:
            parts = ([f"received a {RANKS[got // 4]}"] if got >= 0 else []) + (
                [f"gave a {RANKS[gave // 4]}"] if gave >= 0 else [])
            status.append(f"player_{q} " + ", ".join(parts))
    return {
        "game": "president",
        "title": f"Président, round {int(rec['round'])}",
        "viewer": viewer,
        "seats": seats,
        "table": table,
        "status": status,
    }
