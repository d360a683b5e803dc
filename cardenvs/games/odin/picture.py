"""Odin's table as a picture's view (:mod:`cardenvs.core.picture` draws it): the hands (the
viewer's face up; another hand as its count and the cards it is known to hold, taken from
the table), scores, the play on the table and its value, the play being built."""

from __future__ import annotations

from cardenvs.core.cards import n_cards, odin_card_str
from cardenvs.games.odin.rules import PHASE_OVER
from cardenvs.games.odin.text import _ids, card_value


def _cards(counts) -> list[str]:
    return [odin_card_str(c) for c in _ids(counts) for _ in range(int(counts[c]))]


def table_view(rec, viewer: int | None) -> dict:
    """What seat ``viewer`` sees (None: every hand): see :mod:`cardenvs.core.picture`."""
    P = int(rec["num_players"])
    over = int(rec["phase"]) == PHASE_OVER
    seats = []
    for p in range(P):
        visible = viewer is None or viewer == p
        labels = [f"score {int(rec['scores'][p])}"]
        if p == int(rec["round_leader"]):
            labels.append("led the round")
        seats.append({
            "name": f"player_{p}",
            "hand": _cards(rec["hands"][p]) if visible else None,
            "count": int(rec["hands"][p].sum()),
            "known": [] if visible else _cards(rec["known"][p]),
            "labels": labels,
            "to_move": p == int(rec["current"]) and not over,
            "out": "hand empty" if over and int(rec["hands"][p].sum()) == 0 else None,
        })
    table = []
    played = _ids(rec["table"])
    if played:
        table.append({"label": "on the table", "groups": [_cards(rec["table"])], "stack": 0,
                      "note": f"value {card_value(played)} by player_{int(rec['last_player'])}"})
    else:
        table.append({"label": "on the table", "groups": [], "stack": 0, "note": "empty: the next play leads"})
    if rec["selected"].any():
        table.append({"label": "being played", "groups": [_cards(rec["selected"])], "stack": 0,
                      "note": f"by player_{int(rec['current'])}"})
    target = "single round" if rec["single_round"] else f"match to {int(rec['target_score'])} points"
    status = [("match over" if over else "phase play") + f"; {target}",
              f"discarded this round: {n_cards(int(rec['discarded'].sum()))}"]
    return {
        "game": "odin",
        "title": f"Odin, round {int(rec['round'])}",
        "viewer": viewer,
        "seats": seats,
        "table": table,
        "status": status,
    }
