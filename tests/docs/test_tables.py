"""The observation and action tables of the game pages are what tools/docs_tables.py writes
from the games' code: a change of layout, of an action's id or of a move string that
leaves a page behind fails here (run ``python tools/docs_tables.py`` to rewrite them)."""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("docs_tables", ROOT / "tools" / "docs_tables.py")
docs_tables = importlib.util.module_from_spec(_spec)
sys.modules["docs_tables"] = docs_tables  # dataclasses look their module up
_spec.loader.exec_module(docs_tables)


def test_every_registered_game_has_tables():
    import cardenvs

    assert sorted(g.name for g in docs_tables.GAMES) == sorted(s.name for s in cardenvs.list_games())


@pytest.mark.parametrize("game", docs_tables.GAMES, ids=lambda g: g.name)
def test_page_tables_are_generated(game):
    path = ROOT / "docs" / "games" / f"{game.name}.md"
    page = path.read_text(encoding="utf-8")
    assert docs_tables.render_page(game, page) == page, (
        f"{path.relative_to(ROOT)}: its tables differ from the code; run python tools/docs_tables.py")


def test_a_layout_change_is_caught(monkeypatch):
    game = docs_tables.GAMES[0]
    rules, _ = docs_tables._modules(game)
    monkeypatch.setattr(rules, "OBS_EXTRA", rules.OBS_SIZE - 1, raising=False)  # a new block, undescribed
    with pytest.raises(ValueError, match="OBS_EXTRA"):
        docs_tables.observation_table(game)
    monkeypatch.delattr(rules, "OBS_EXTRA")
    monkeypatch.setattr(rules, "SEAT_FEATURES", rules.SEAT_FEATURES + 1)  # a feature more than the page names
    with pytest.raises(ValueError, match="OBS_SEATS"):
        docs_tables.observation_table(game)


def test_a_stale_page_is_rewritten():
    game = docs_tables.GAMES[1]
    page = (ROOT / "docs" / "games" / f"{game.name}.md").read_text(encoding="utf-8")
    stale = page.replace("`Discrete(110)`", "`Discrete(109)`")
    assert stale != page and docs_tables.render_page(game, stale) == page
