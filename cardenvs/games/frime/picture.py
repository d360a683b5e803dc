"""Frime's table as a picture's view: the rummies' shared view
(:func:`cardenvs.rummy.picture.rummy_view`) with money, score and flocons, the pot, the
card under the discard pile's top (the one a player may buy) and who went out."""

from __future__ import annotations

from cardenvs.games.frime.rules import BUY_PRICE, DOUBLED_FROM, PHASE_LAYOFF, PHASE_NAMES, PHASE_OVER, RULES
from cardenvs.games.frime.text import custom_to_dict
from cardenvs.rummy.picture import rummy_view


def _cents(c: int) -> str:
    return f"{c // 100}.{c % 100:02d}" if c >= 0 else f"-{-c // 100}.{-c % 100:02d}"


def table_view(rec, viewer: int | None) -> dict:
    """What seat ``viewer`` sees (None: every hand): see :mod:`cardenvs.core.picture`."""
    P = int(rec["num_players"])
    phase = int(rec["phase"])
    over = phase == PHASE_OVER
    rnd = int(rec["round"])
    out_player = int(rec["out_player"])
    labels = [[f"money {_cents(int(rec['money'][p]))}", f"score {int(rec['scores'][p])}",
               f"flocons {int(rec['flocons'][p])}"] for p in range(P)]
    outs = ["went out first" if p == out_player else None for p in range(P)]
    price = BUY_PRICE * (2 if rnd >= DOUBLED_FROM else 1)
    status = [f"phase {PHASE_NAMES[phase]}, turn {int(rec['turns']) + 1}" + (", match over" if over else ""),
              f"pot {_cents(int(rec['pot']))}; the card under the top costs {_cents(price)} to buy"]
    if phase == PHASE_LAYOFF:
        status.append(f"adding to meld {int(rec['target'])}")
    if out_player >= 0:
        status.append(f"player_{out_player} is out; {int(rec['last_turns'])} last turn(s) to play")
    build = custom_to_dict(rec, "build")
    kind = build["kind"] or "meld"
    doubled = ", doubled" if rnd >= DOUBLED_FROM else ""
    return rummy_view("frime", f"Frime, round {rnd} ({rnd + 2} cards{doubled})", rec, viewer, RULES, over=over,
                      labels=labels, outs=outs, build=build["cards"], build_label=f"{kind} being built",
                      status=status, discards_shown=2)
