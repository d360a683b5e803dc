"""President at the table: the exchange, players going out, a cleared pile, the out-of-turn
offer to complete a four, the places at a round's end (see :mod:`cardenvs.core.narration`)."""

from __future__ import annotations

from cardenvs.core.narration import State, acts, cards_text, listing, plural, seat_name, sees

WHOLE_MOVES = True  # each move is a whole play: a line of its own, with what it caused


def note(before: State, seat: int, move: str) -> str:
    if before["phase"] != "offer":
        return ""
    rank = before["pile_rank"]
    if move == "pass":
        return f" (declines to complete the four of {rank}s out of turn)"
    return f" (completes the four of {rank}s out of turn)"


def quiet(before: State, seat: int, viewer: int | None, move: str, forced: bool) -> bool:
    # Under the default completion_offers="public" everyone who could hold the cards is
    # asked, so that being asked reveals nothing; whether the pass was forced would tell
    # who holds them. So another player's pass in an offer is never shown to a person at
    # the table (only a completion is), and forced passes are not shown at all (a line
    # each would follow almost every play).
    if before["phase"] != "offer" or move != "pass":
        return False
    return forced or (viewer is not None and seat != viewer)


def events(before: State, after: State, seat: int, viewer: int | None, move: str) -> list[str]:
    lines = []
    if after["round"] != before["round"]:
        return _exchange(after, viewer)
    for k, (was, now) in enumerate(zip(before["out"], after["out"], strict=True)):
        if now and not was and k in after["finish_order"]:
            lines.append(f"{acts(k, viewer, 'are')} out (place {after['finish_order'].index(k) + 1})")
        elif now and not was:
            lines.append(f"{acts(k, viewer, 'are')} stuck with only 2s: out of play, ranked below the others")
    if before["pile_count"] > 0 and after["pile_count"] == 0 and after["phase"] == "play":
        lines.append(f"the pile is cleared; {acts(after['current'], viewer, 'lead')}")
    if before["phase"] == "exchange" and after["phase"] != "exchange":
        lines += _return(before, after, viewer)
    return lines


def _exchange(after: State, viewer: int | None) -> list[str]:
    """A new round: the trou A's best card(s) went to the president."""
    pres, trou = after["president"], after["trou"]
    if pres < 0 or trou < 0 or after["received"][pres] is None:
        return []
    got = after["received"][pres]
    got = got if isinstance(got, list) else [got]
    shown = cards_text(got) if sees(viewer, pres, trou) else plural(len(got), "card")
    return [f"exchange: {seat_name(trou, viewer)} (trou) gave the best {shown} to {seat_name(pres, viewer)} "
            "(président), who gives as many back"]


def _return(before: State, after: State, viewer: int | None) -> list[str]:
    pres, trou = after["president"], after["trou"]
    back = after["received"][trou]
    if back is None:
        return []
    back = back if isinstance(back, list) else [back]
    shown = cards_text(back) if sees(viewer, pres, trou) else plural(len(back), "card")
    return [f"{acts(trou, viewer, 'receive')} {shown} back (trou)"]


def hint(state: State, seat: int) -> str | None:
    if state["phase"] == "offer":
        return (f"out of turn: you may complete the four of {state['pile_rank']}s on the pile (you hold the "
                "missing cards, or as many); `pass` declines, and play goes on as if nobody had been asked")
    if state["phase"] == "exchange":
        return "the exchange: give one card back to the trou (`give R` returns a card of rank R)"
    return None


def summary(moves: list[str]) -> str:
    """"plays 77", "passes", "gives back a K"."""
    words = []
    for move in moves:
        verb, _, rest = move.partition(" ")
        if verb == "pass":
            words.append("passes" + (f" {rest}" if rest else ""))
        elif verb == "give":
            words.append(f"gives back {'a ' + rest if len(rest) == 1 else rest}")
        else:
            words.append(f"plays {move}")
    return listing(words) if words else ""


def _place(n: int, players: int) -> str:
    ordinal = {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")
    title = {1: " (président)", 2: " (vice-president)", players: " (trou A)"}.get(n, "")
    return ordinal + (title if n != 2 or players > 2 else " (trou A)")


def round_end(before: State, after: State, seat: int, viewer: int | None) -> list[str]:
    places = after["last_places"]
    order = sorted((p, k) for k, p in enumerate(places) if p > 0)
    if not order:
        return []
    return ["places: " + ", ".join(f"{seat_name(k, viewer)} {_place(p, len(places))}" for p, k in order)]
