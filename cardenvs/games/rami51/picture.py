"""Rami 51's table as a picture's view: the rummies' shared view
(:func:`cardenvs.rummy.picture.rummy_view`) with penalty points, who opened, who is
eliminated, and the card taken from the discard pile that must be laid this turn."""

from __future__ import annotations

from cardenvs.core.cards import card_str
from cardenvs.games.rami51.rules import PHASE_LAYOFF, PHASE_NAMES, PHASE_OVER, RULES
from cardenvs.games.rami51.text import custom_to_dict
from cardenvs.rummy.picture import rummy_view


def table_view(rec, viewer: int | None) -> dict:
    """What seat ``viewer`` sees (None: every hand): see :mod:`cardenvs.core.picture`."""
    P = int(rec["num_players"])
    phase = int(rec["phase"])
    over = phase == PHASE_OVER
    labels, outs = [], []
    for p in range(P):
        labels.append([f"penalty {int(rec['scores'][p])}"] + (["opened"] if rec["opened"][p] else []))
        held = int(rec["hands"][p].sum())
        outs.append("eliminated" if rec["eliminated"][p] else "went out" if held == 0 else None)
    status = [f"phase {PHASE_NAMES[phase]}, turn {int(rec['turns']) + 1}" + (", match over" if over else "")]
    if phase == PHASE_LAYOFF:
        status.append(f"laying off on meld {int(rec['target'])}")
    if rec["pending"] >= 0 and not rec["pending_used"]:
        status.append(f"{card_str(int(rec['pending']))}, taken from the discard pile, must be laid this turn")
    if int(rec["winner"]) >= 0:
        status.append(f"last round won by player_{int(rec['winner'])}")
    return rummy_view("rami51", f"Rami 51, round {int(rec['round'])}", rec, viewer, RULES, over=over,
                      labels=labels, outs=outs, build=custom_to_dict(rec, "build"), build_label="meld being built",
                      status=status)
