import numpy as np
import pytest

from cardenvs.core import cards


def test_standard_card_round_trip():
    for cid in range(52):
        assert cards.card_id(cards.card_str(cid)) == cid
    assert cards.card_id("X") == cards.JOKER
    assert cards.card_str(cards.JOKER) == "X"
    assert cards.card_id("Ac") == 0
    assert cards.card_id("Ks") == 51
    assert cards.card_id("Th") == 38


def test_odin_card_round_trip():
    for cid in range(cards.NUM_ODIN):
        assert cards.odin_card_id(cards.odin_card_str(cid)) == cid
    assert cards.odin_card_str(cards.odin_card_id("7r")) == "7r"
    assert cards.odin_card_id("1p") == 5 * 9


@pytest.mark.parametrize("bad", ["1h", "Tx", "10h", "", "ah", "XX", "7"])
def test_bad_card_string_quotes_it(bad):
    with pytest.raises(ValueError, match=repr(bad).replace("\\", "\\\\")):
        cards.card_id(bad)


@pytest.mark.parametrize("bad", ["0r", "7z", "77", "r7"])
def test_bad_odin_card_quotes_it(bad):
    with pytest.raises(ValueError, match=repr(bad)):
        cards.odin_card_id(bad)


def test_parse_and_format():
    ids = cards.parse_cards("Ah, Tc X")
    assert cards.format_cards(ids) == "Ah Tc X"
    assert cards.parse_cards(["7r", "1p"], odin=True) == [6, 45]


def test_decks():
    assert cards.standard_deck_counts().sum() == 52
    two = cards.standard_deck_counts(decks=2, jokers_per_deck=1)
    assert two.sum() == 106 and two[cards.JOKER] == 2 and two[0] == 2
    assert cards.odin_deck_counts().sum() == 54
    assert cards.odin_deck_counts(colours=4).sum() == 36
    deck = cards.deck_list(cards.standard_deck_counts(2))
    assert len(deck) == 104 and np.bincount(deck).tolist() == [2] * 52


def test_counts_round_trip():
    counts = cards.cards_to_counts("Ah Ah 2c", 52)
    assert counts[cards.card_id("Ah")] == 2
    assert cards.counts_to_cards(counts) == ["Ah", "Ah", "2c"]  # id order: rank, then suit
