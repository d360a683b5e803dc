"""Writes the observation and action tables of each game page from the game's own code.

    python tools/docs_tables.py            # rewrite the tables in docs/games/*.md
    python tools/docs_tables.py --check    # exit 1, naming the pages, if a table is stale

Each table sits between two marker comments in its page,
``<!-- BEGIN generated: observation (tools/docs_tables.py) -->`` and
``<!-- END generated: observation -->`` (``actions`` likewise); the prose around them is
the page's own. Everything that is a number or a string of the code comes from the game:
the index ranges and sizes from the ``OBS_*`` offsets and ``OBS_SIZE``, the dtype from
``OBS_DTYPE``, the space's bounds from ``observation_bounds`` at the default options, the
action ids from the action constants and ``NUM_ACTIONS``, the move strings from
``action_to_str``. What this file adds is the meaning of each block, action and feature,
keyed by the constant's name; a constant without a meaning here (or a meaning without a
constant, or a list of features of another length than the code's) is an error, so a
change of layout cannot leave a page behind. tests/docs/test_tables.py runs the check.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "docs" / "games"
NOT_BLOCKS = ("OBS_SIZE", "OBS_MAX", "OBS_DTYPE")  # OBS_* constants that are not a block's offset


@dataclass
class Block:
    meaning: str
    shape: Callable[[Any], tuple[int, ...]] | None = None  # a block of records: (count, features)
    entries: tuple[str, ...] = ()  # the meaning of each entry, for a short block of mixed entries


@dataclass
class Action:
    constant: str
    formula: str  # how an id of the range is made (`PLAY0 + rank*8 + count-1`), or ""
    meaning: str
    extra: str = ""  # the game's extra column (what str_to_action accepts, or the phase)


@dataclass
class Game:
    name: str
    blocks: dict[str, Block]
    actions: list[Action]
    extra_column: str  # the header of the actions table's last column
    records: dict[str, tuple[str, str, tuple[str, ...]]] = field(default_factory=dict)
    # a block of records: its constant -> (features constant, "what one record is", feature meanings)
    action_extra: Callable[[Any, Any], str] | None = None  # more generated tables after the actions table


# ----------------------------------------------------------------------------- the games
RUMMY_MELD = (
    "set (1 or 0)",
    "run (1 or 0)",
    "its rank (set, A=0 … K=12) or suit (run, c d h s = 0 … 3)",
    "lowest position (runs; 0 for a set)",
    "highest position (runs; 0 for a set)",
    "cards in it",
    "owner (relative seat + 1)",
)


def _president_ranks(rules, text) -> str:
    ranks = rules.PRES_RANKS
    single = [rules.PLAY0 + r * rules.MAX_PER_RANK for r in range(len(ranks))]
    give = [rules.GIVE0 + r for r in range(len(ranks))]
    lines = [
        "The ids of a single card of each rank (add `count − 1` for more cards), and of the gift:",
        "",
        "| rank | " + " | ".join(ranks) + " |",
        "|---|" + "---|" * len(ranks),
        "| single | " + " | ".join(str(a) for a in single) + " |",
        "| `give` | " + " | ".join(str(a) for a in give) + " |",
    ]
    for r, rank in enumerate(ranks):  # the ids are the rank's: their strings say so
        assert text.action_to_str(single[r]) == rank and text.action_to_str(give[r]) == f"give {rank}", rank
    return "\n".join(lines)


GAMES = [
    Game(
        name="president",
        blocks={
            "OBS_HAND": Block("the viewer's cards, counted per rank"),
            "OBS_PILE_RANK": Block("one-hot rank of the top play (all zero when the pile is empty)"),
            "OBS_PILE_COUNT": Block("cards in the top play"),
            "OBS_RUN_COUNT": Block("cards in the current run of that rank"),
            "OBS_PLAYED": Block("cards of each rank out of the hands this round (the pile, cleared piles, and after "
                                "a scenario load, every card it did not place)"),
            "OBS_PHASE": Block("one-hot phase: `play`, `offer`, `exchange` (all zero when the match is over)"),
            "OBS_FIRST_LEAD": Block("1 when the next play is the first lead, which must contain the `3c`"),
            "OBS_RECEIVED": Block("one-hot rank of the card the viewer received in this round's exchange"),
            "OBS_GIVEN": Block("one-hot rank of the card the viewer gave in this round's exchange"),
            "OBS_TARGET": Block("the target score"),
            "OBS_SEATS": Block("one record per relative seat, see below", lambda r: (r.MAX_PLAYERS, r.SEAT_FEATURES)),
        },
        records={"OBS_SEATS": ("SEAT_FEATURES", "seat", (
            "present (1 for a seat in the game)",
            "number of cards held",
            "in play (holds cards and is not stuck)",
            "stuck with only 2s",
            "finishing place if the seat went out this round (1 = first), else 0",
            "match score",
            "made the top play of the pile",
            "is to move (0 once the match is over)",
        ))},
        extra_column="`str_to_action` accepts",
        actions=[
            Action("PASS", "", "pass; in the `offer` phase, decline the completion",
                   "`pass`, `p`, `decline` (any case)"),
            Action("PLAY0", "`PLAY0 + rank*8 + count-1`", "play `count` cards of `rank`",
                   "`77`; ranks separated by spaces (`7 7`); cards with suits (`7h 7s`, mixed `7h 7`). Ranks are "
                   "upper case from `3456789TJQKA2`, one rank per play, at most 8 cards"),
            Action("GIVE0", "`GIVE0 + rank`", "exchange: the president returns a card of `rank`",
                   "`give K`, or with a suit `give Kh` (`give` in any case; the rank in upper case)"),
        ],
        action_extra=_president_ranks,
    ),
    Game(
        name="odin",
        blocks={
            "OBS_HAND": Block("the viewer's cards (1 per card held), without the cards being selected"),
            "OBS_SELECTED": Block("the play being built by the player to move"),
            "OBS_TABLE": Block("the play to beat (all zero: the next play leads)"),
            "OBS_DISCARDED": Block("cards discarded this round (covered plays and cleared tables)"),
            "OBS_KNOWN": Block("per opponent, at relative seat *j* = 1 … {MAX_PLAYERS_1} at "
                               "`{OBS_KNOWN} + {NUM_CARDS}*(j−1)`: the cards they took back from the table and "
                               "still hold (public)",
                               lambda r: (r.MAX_PLAYERS - 1, r.NUM_CARDS)),
            "OBS_TABLE_COUNT": Block("cards on the table"),
            "OBS_SEL_COUNT": Block("cards selected"),
            "OBS_LEAD": Block("1 when the table is empty (the player to move leads)"),
            "OBS_TARGET": Block("the target score (0 with `single_round`)"),
            "OBS_COLOURS": Block("colours in the deck (6, or `two_player_colours` with 2 players)"),
            "OBS_SEATS": Block("one record per relative seat, see below", lambda r: (r.MAX_PLAYERS, r.SEAT_FEATURES)),
        },
        records={"OBS_SEATS": ("SEAT_FEATURES", "seat", (
            "present (1 for a seat in the game)",
            "cards held (the cards being selected not counted)",
            "match score",
            "made the play on the table",
            "is to move (0 once the match is over)",
            "led this round",
            "passed since the play on the table was made",
            "cards held that are publicly known (taken back from the table)",
        ))},
        extra_column="`str_to_action` accepts",
        actions=[
            Action("PASS", "", "pass (table not empty, nothing selected)", "`pass`, `p`"),
            Action("PLAY", "", "commit the selection when there is nothing to choose: a lead, a one-card table (its "
                   "card comes back), or a play that empties the hand", "`play`"),
            Action("SELECT0", "`SELECT0 + c`", "add card *c* to the selection", "`select 7r`, or the card alone: `7r`"),
            Action("TAKE0", "`TAKE0 + c`", "commit the selection and keep card *c* of the covered play (the table "
                   "holds two or more cards and the hand is not emptied)", "`take 9r`"),
        ],
    ),
    Game(
        name="rami51",
        blocks={
            "OBS_HAND": Block("the viewer's cards (counts; 52 = jokers)"),
            "OBS_TOP": Block("one-hot top of the discard pile"),
            "OBS_PILE": Block("every card in the discard pile (counts)"),
            "OBS_TABLE": Block("every card on the table (counts; jokers at 52)"),
            "OBS_MELDS": Block("one record per table meld slot, see below", lambda r: (r.MAX_MELDS, r.MELD_FEATURES)),
            "OBS_PHASE": Block("one-hot phase: draw, play, build, layoff (all 0 when over)"),
            "OBS_BUILD": Block("the meld being built: 1 at each card it holds, 2 where a joker stands for it"),
            "OBS_TARGET": Block("one-hot table meld picked for a lay-off"),
            "OBS_PENDING": Block("one-hot card taken from the discard this turn, until it is laid"),
            "OBS_TURN": Block("the turn and the round", entries=(
                "points laid this turn", "clean run laid this turn (1 or 0)", "melds laid this turn",
                "`opening_points`", "cards in the stock", "cards in the discard pile", "round", "turns in this round")),
            "OBS_SEATS": Block("one record per relative seat, see below", lambda r: (r.MAX_PLAYERS, r.SEAT_FEATURES)),
        },
        records={
            "OBS_MELDS": ("MELD_FEATURES", "table meld slot (empty slots are 0)", (
                "set (1 or 0)",
                "run (1 or 0)",
                "its rank (set) or suit (run) index",
                "lowest position (runs: 0 ace low, 1 the 2, …, 12 the king, 13 ace high)",
                "highest position (as above)",
                "cards in it",
                "owner (relative seat + 1)",
                "jokers in it",
                "a set's `c`: 1 natural card, 2 joker, 0 absent (a run leaves it 0)",
                "a set's `d`: as above",
                "a set's `h`: as above",
                "a set's `s`: as above",
            )),
            "OBS_SEATS": ("SEAT_FEATURES", "seat", (
                "present", "cards held", "opened", "penalty total", "eliminated", "to move", "dealer",
                "last round's penalty",
            )),
        },
        extra_column="phase",
        actions=[
            Action("DRAW_STOCK", "", "draw the top of the stock", "draw"),
            Action("TAKE_DISCARD", "", "take the top of the discard pile", "draw"),
            Action("NEW_MELD", "", "start a new meld", "play"),
            Action("LAYOFF0", "`LAYOFF0 + m`", "lay off a card on table meld `m` (the card comes next)",
                   "play"),
            Action("ADD0", "`ADD0 + c`", "put the natural card `c` on the meld being built, or on the picked table "
                   "meld", "build, layoff"),
            Action("JOKER0", "`JOKER0 + c`", "put a joker there, standing for card `c`", "build, layoff"),
            Action("CLOSE", "", "lay the meld being built on the table", "build"),
            Action("DISCARD0", "`DISCARD0 + c`", "discard card `c` (the joker is 52), ending the turn", "play"),
        ],
    ),
    Game(
        name="frime",
        blocks={
            "OBS_HAND": Block("the viewer's cards (counts; 52 = jokers)"),
            "OBS_TOP": Block("one-hot top of the discard pile"),
            "OBS_UNDER": Block("one-hot card under it (the one a buy takes)"),
            "OBS_PILE": Block("every card in the discard pile (counts)"),
            "OBS_TABLE": Block("every card on the table (counts, by physical card: 2s at their ids, jokers at 52)"),
            "OBS_MELDS": Block("one record per table meld slot, see below", lambda r: (r.MAX_MELDS, r.MELD_FEATURES)),
            "OBS_PHASE": Block("one-hot phase: draw, discard, choose, lay, build, layoff (all 0 when over)"),
            "OBS_BUILD": Block("the natural cards of the meld being built (counts)"),
            "OBS_BUILD_FRIMES": Block("the cards the frimes of the meld being built stand for (counts; in a set: its "
                                      "rank, at the clubs id)"),
            "OBS_BUILD_INFO": Block("the meld being built", entries=(
                "building a set", "building a run", "frimes in the meld being built", "going out")),
            "OBS_TARGET": Block("one-hot table meld picked for a lay-off"),
            "OBS_ROUND": Block("the round", entries=(
                "round", "cards dealt this round", "doubled round", "pot (¢)", "price of a buy (¢)",
                "cards in the stock", "cards in the discard pile", "turns in this round", "somebody is out")),
            "OBS_SEATS": Block("one record per relative seat, see below", lambda r: (r.MAX_PLAYERS, r.SEAT_FEATURES)),
        },
        records={
            "OBS_MELDS": ("MELD_FEATURES", "table meld slot (empty slots are 0)", RUMMY_MELD + (
                "frimes in it",
                "a set's natural `c` cards (0 for a run)",
                "a set's natural `d` cards",
                "a set's natural `h` cards",
                "a set's natural `s` cards",
                "the bit mask of the run positions that hold a frime (bit *p* for position *p*, so "
                "`3h 2c=4h 5h X=6h` gives 2³ + 2⁵ = 40; 0 for a set)",
            )),
            "OBS_SEATS": ("SEAT_FEATURES", "seat", (
                "present", "cards held", "money (¢)", "flocons", "total score", "went out this round",
                "has a last turn to play (the one being played included)", "to move", "dealer",
                "last round's points",
            )),
        },
        extra_column="phase",
        actions=[
            Action("DRAW_STOCK", "", "draw the top of the stock", "draw"),
            Action("TAKE_DISCARD", "", "take the top of the discard pile", "draw"),
            Action("BUY", "", "buy the card under the discard top (10¢, 20¢ in rounds 8–11)", "draw"),
            Action("DISCARD0", "`DISCARD0 + c`", "discard card `c` (the joker is 52)", "discard"),
            Action("GO_OUT", "", "go out: lay the whole hand as melds", "choose"),
            Action("END_TURN", "", "end the turn (not going out, or done laying in a last turn)", "choose, lay"),
            Action("NEW_SET", "", "start building a set", "lay"),
            Action("NEW_RUN", "", "start building a run", "lay"),
            Action("LAYOFF0", "`LAYOFF0 + m`", "add a card to table meld `m` (the card comes next)",
                   "lay (last turns)"),
            Action("ADD0", "`ADD0 + c`", "put the natural card `c` on the meld being built or on the picked meld",
                   "build, layoff"),
            Action("FRIME0", "`FRIME0 + c`", "put a frime there, standing for `c`; in a set, `c` is the rank's "
                   "clubs id (`rank * 4`)", "build, layoff"),
            Action("CLOSE", "", "lay the meld being built on the table", "build"),
        ],
    ),
    Game(
        name="classes",
        blocks={
            "OBS_HAND": Block("the viewer's cards (counts)"),
            "OBS_TOP": Block("one-hot top of the discard pile"),
            "OBS_PILE": Block("every card in the discard pile (counts)"),
            "OBS_TABLE": Block("every card on the table (counts, by physical card; entry 52 is always 0)"),
            "OBS_MELDS": Block("one record per table meld slot, see below", lambda r: (r.MAX_MELDS, r.MELD_FEATURES)),
            "OBS_PHASE": Block("one-hot phase: draw, play, build, layoff (all 0 when over)"),
            "OBS_BUILD": Block("the natural cards of the meld being built (counts)"),
            "OBS_BUILD_WILDS": Block("the cards its 2s stand for (counts; in a set or a mixed run: the rank, at the "
                                     "clubs id)"),
            "OBS_BUILD_INFO": Block("the meld being built", entries=(
                "building a set", "building a run", "2s in it",
                "which contract meld (1 … 3; 0: a further meld)", "the size it must reach")),
            "OBS_TARGET": Block("one-hot table meld picked for a lay-off"),
            "OBS_CONTRACT": Block("the viewer's contract: (kind, size) per meld, kind 1 set, 2 run (0, 0 when it has "
                                  "2 melds)", lambda r: (r.CONTRACT_ITEMS, 2)),
            "OBS_ROUND": Block("the round", entries=(
                "round", "decks", "cards in the stock", "cards in the discard pile", "turns in this round",
                "runs of one suit (option)", "same-rank sets (option)")),
            "OBS_SEATS": Block("one record per relative seat, see below", lambda r: (r.MAX_PLAYERS, r.SEAT_FEATURES)),
        },
        records={
            "OBS_MELDS": ("MELD_FEATURES", "table meld slot (empty slots are 0)", RUMMY_MELD + (
                "2s in it",
                "a set's natural `c` cards (0 for a run)",
                "a set's natural `d` cards",
                "a set's natural `h` cards",
                "a set's natural `s` cards",
                "the bit mask of the run positions that hold a 2 (bit *p* for position *p*; 0 for a set)",
            )),
            "OBS_SEATS": ("SEAT_FEATURES", "seat", (
                "present", "cards held", "class", "contract laid this round", "total points", "to move", "dealer",
                "last round's points", "melds on the table it laid",
            )),
        },
        extra_column="phase",
        actions=[
            Action("DRAW_STOCK", "", "draw the top of the stock", "draw"),
            Action("TAKE_DISCARD", "", "take the top of the discard pile", "draw"),
            Action("DISCARD0", "`DISCARD0 + c`", "discard card `c`; the turn ends", "play"),
            Action("CONTRACT", "", "start laying the contract of one's class", "play"),
            Action("NEW_SET", "", "start building a further set", "play"),
            Action("NEW_RUN", "", "start building a further run", "play"),
            Action("LAYOFF0", "`LAYOFF0 + m`", "add a card to table meld `m` (the card comes next)", "play"),
            Action("ADD0", "`ADD0 + c`", "put the natural card `c` on the meld being built or on the picked meld",
                   "build, layoff"),
            Action("WILD0", "`WILD0 + c`", "put a 2 there, standing for `c`; in a set or a run of mixed suits, `c` "
                   "is the rank's clubs id (`rank * 4`)", "build, layoff"),
            Action("CLOSE", "", "lay the meld being built on the table", "build"),
        ],
    ),
]


# ----------------------------------------------------------------------------- writing
def _modules(game: Game):
    return (importlib.import_module(f"cardenvs.games.{game.name}.rules"),
            importlib.import_module(f"cardenvs.games.{game.name}.text"))


def _fill(words: str, rules) -> str:
    """A meaning with the game's constants filled in: ``{NUM_CARDS}``, and ``{NAME_1}`` for NAME − 1."""
    names = {k: v for k, v in vars(rules).items() if k.isupper() and isinstance(v, int)}
    names.update({f"{k}_1": v - 1 for k, v in list(names.items())})
    return words.format(**names)


def _span(start: int, size: int) -> str:
    return str(start) if size == 1 else f"{start}–{start + size - 1}"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def observation_table(game: Game) -> str:
    rules, text = _modules(game)
    offsets = sorted((v, k) for k, v in vars(rules).items()
                     if k.startswith("OBS_") and k not in NOT_BLOCKS and isinstance(v, int))
    names = [k for _, k in offsets]
    missing, extra = set(names) - set(game.blocks), set(game.blocks) - set(names)
    if missing or extra:
        raise ValueError(f"{game.name}: OBS_ constants without a meaning in tools/docs_tables.py: {sorted(missing)}; "
                         f"meanings without a constant: {sorted(extra)}")
    size = int(rules.OBS_SIZE)
    dtype = np.dtype(rules.OBS_DTYPE).name
    low, high = text.observation_bounds(text.make_template())
    lines = [
        f"`{dtype}` (`OBS_DTYPE`), `OBS_SIZE = {size}` entries. With the default options the observation space is "
        f"`Box({_num(low)}, {_num(high)}, ({size},), {dtype})` (`observation_bounds`).",
        "",
        "| index | constant | size | meaning |",
        "|---|---|---|---|",
    ]
    ends = [v for v, _ in offsets[1:]] + [size]
    if offsets[0][0] != 0:
        raise ValueError(f"{game.name}: the first block starts at {offsets[0][0]}, not 0")
    sub_tables = []
    for (start, name), end in zip(offsets, ends, strict=True):
        block, n = game.blocks[name], end - start
        if n <= 0:
            raise ValueError(f"{game.name}: {name} is empty")
        shown = str(n)
        if block.shape is not None:
            shape = tuple(int(x) for x in block.shape(rules))
            if int(np.prod(shape)) != n:
                raise ValueError(f"{game.name}: {name} has {n} entries, not {' × '.join(map(str, shape))}")
            shown = " × ".join(map(str, shape))
        meaning = _fill(block.meaning, rules)
        if block.entries:
            if len(block.entries) != n:
                raise ValueError(f"{game.name}: {name} has {n} entries, the table names {len(block.entries)}")
            meaning += ": " + "; ".join(f"+{i} {_fill(e, rules)}" for i, e in enumerate(block.entries))
        lines.append(f"| {_span(start, n)} | `{name}` | {shown} | {meaning} |")
        if name in game.records:
            features_name, what, features = game.records[name]
            k = int(getattr(rules, features_name))
            if len(features) != k:
                raise ValueError(f"{game.name}: {features_name} = {k}, the table names {len(features)} features")
            sub_tables.append((start, name, features_name, k, what, features))
    for start, name, features_name, k, what, features in sub_tables:
        lines += ["", f"Each {what} of `{name}` has `{features_name} = {k}` entries, record *j* at "
                  f"`{start} + {k}*j`:", "", "| offset | meaning |", "|---|---|"]
        lines += [f"| +{i} | {_fill(f, rules)} |" for i, f in enumerate(features)]
    return "\n".join(lines)


def _strings(text, ids: range) -> str:
    shown = [f"`{text.action_to_str(a)}`" for a in ids]
    if len(shown) <= 3:
        return ", ".join(shown)
    return f"{shown[0]}, {shown[1]} … {shown[-1]}"


def actions_table(game: Game) -> str:
    rules, text = _modules(game)
    n = int(rules.NUM_ACTIONS)
    starts = [int(getattr(rules, a.constant)) for a in game.actions]
    if starts != sorted(starts) or starts[0] != 0 or len(set(starts)) != len(starts):
        raise ValueError(f"{game.name}: the action constants are not listed in id order from 0: {starts}")
    ends = starts[1:] + [n]
    lines = [
        f"`Discrete({n})`: `NUM_ACTIONS = {n}` ids.",
        "",
        f"| ids | constant | meaning | `action_to_str` | {game.extra_column} |",
        "|---|---|---|---|---|",
    ]
    for action, start, end in zip(game.actions, starts, ends, strict=True):
        ids = range(start, end)
        if (len(ids) > 1) != bool(action.formula):
            raise ValueError(f"{game.name}: {action.constant} covers {len(ids)} ids: "
                             + ("give its formula" if len(ids) > 1 else "it takes no formula"))
        constant = action.formula or f"`{action.constant}`"
        single = re.fullmatch(rf"`{action.constant} \+ (\w+)`", action.formula)
        if single:  # one parameter: its range
            constant += f", `{single.group(1)}` = 0 … {end - start - 1}"
        ids_text = str(start) if len(ids) == 1 else f"{start} … {end - 1}"
        lines.append(f"| {ids_text} | {constant} | {_fill(action.meaning, rules)} | {_strings(text, ids)} | "
                     f"{action.extra} |")
    strings = [text.action_to_str(a) for a in range(n)]
    if len(set(strings)) != n:
        raise ValueError(f"{game.name}: two actions have the same string")
    if game.action_extra is not None:
        lines += ["", game.action_extra(rules, text)]
    return "\n".join(lines)


TABLES = {"observation": observation_table, "actions": actions_table}


def _markers(kind: str) -> tuple[str, str]:
    return f"<!-- BEGIN generated: {kind} (tools/docs_tables.py) -->", f"<!-- END generated: {kind} -->"


def render_page(game: Game, page: str) -> str:
    """The page with its generated tables written anew."""
    for kind, make in TABLES.items():
        begin, end = _markers(kind)
        pattern = re.compile(re.escape(begin) + r"\n.*?" + re.escape(end), flags=re.S)
        if len(pattern.findall(page)) != 1:
            raise ValueError(f"docs/games/{game.name}.md: needs one {begin} ... {end} pair")
        new = f"{begin}\n{make(game)}\n{end}"
        page = pattern.sub(lambda m, new=new: new, page)
    return page


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report the pages whose tables are stale")
    args = parser.parse_args(argv)
    stale = []
    for game in GAMES:
        path = PAGES / f"{game.name}.md"
        page = path.read_text(encoding="utf-8")
        new = render_page(game, page)
        if new != page:
            stale.append(path.relative_to(ROOT))
            if not args.check:
                path.write_text(new, encoding="utf-8")
    if args.check and stale:
        print("stale tables (run python tools/docs_tables.py):", *map(str, stale), file=sys.stderr)
        return 1
    if not args.check:
        print("rewrote:", *map(str, stale)) if stale else print("every table is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
