"""Classes' table as a picture's view: the rummies' shared view
(:func:`cardenvs.rummy.picture.rummy_view`) with each player's class and contract, score,
who laid the contract this round and the winners."""

from __future__ import annotations

from cardenvs.games.classes.rules import PHASE_LAYOFF, PHASE_NAMES, PHASE_OVER
from cardenvs.games.classes.text import CONTRACT_NAMES, _table_rules, custom_to_dict
from cardenvs.rummy.picture import rummy_view


def table_view(rec, viewer: int | None) -> dict:
    """What seat ``viewer`` sees (None: every hand): see :mod:`cardenvs.core.picture`."""
    P = int(rec["num_players"])
    phase = int(rec["phase"])
    over = phase == PHASE_OVER
    labels, outs = [], []
    for p in range(P):
        lv = int(rec["level"][p])
        labels.append([f"class {lv}", "laid" if rec["laid"][p] else CONTRACT_NAMES[lv - 1],
                       f"score {int(rec['scores'][p])}"])
        held = int(rec["hands"][p].sum())
        outs.append("winner" if rec["winners"][p] else "went out" if held == 0 else None)
    status = [f"phase {PHASE_NAMES[phase]}, turn {int(rec['turns']) + 1}" + (", match over" if over else "")]
    if phase == PHASE_LAYOFF:
        status.append(f"adding to meld {int(rec['target'])}")
    build = custom_to_dict(rec, "build")
    what = f"the contract's meld {int(rec['item']) + 1}" if int(rec["item"]) >= 0 else "a further meld"
    return rummy_view("classes", f"Classes, round {int(rec['round'])}", rec, viewer, _table_rules(rec)[0], over=over,
                      labels=labels, outs=outs, build=build["cards"],
                      build_label=f"{what}, a {build['kind'] or 'meld'}", status=status)
