"""The initial deal: PySolFC's shuffle and the three deal styles."""

from __future__ import annotations

from collections import Counter

import pytest

from gapgrid.core.cards import parse_card, rank_of
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.deals import BlueMoonDeal, MontanaDeal, RedMoonDeal
from gapgrid.core.game import new_game
from gapgrid.core.layout import Layout
from gapgrid.core.rules import RuleError

# Microsoft FreeCell deal #1, as published everywhere, dealt in reading order.
FREECELL_1 = " ".join([
    "JD 2D 9H JC 5D 7H 7C 5H KD KC 9S 5S AD QC KH 3H 2S KS 9D QD JS AS AH 3C",
    "4C 5C TS QH 4H AC 4D 7S 3S TD 4S TH 8H 2C JH 7D 6D 8S 8D QS 6C 3D 8C TC",
    "6S 9C 2H 6H"]).split()


def test_montana_1_is_freecell_1_without_its_aces(catalogue: Catalogue) -> None:
    """PySolFC's LCRandom31 deal: Montana #1 is FreeCell #1 laid out row by row, Aces out."""
    state = new_game(catalogue.rules("montana"), parse_deal_number("1"))
    expected = [None if code.startswith("A") else code for code in FREECELL_1]
    assert [code for row in state.board.to_rows() for code in row] == expected


@pytest.mark.parametrize("variant", ["spaces", "station", "free-parking", "gaps"])
def test_montana_family_deals_identical_layouts(catalogue: Catalogue, variant: str) -> None:
    """Montana, Spaces, Station and Free Parking #N have identical layouts, as in PySolFC."""
    for number in ("617", "40000", "ms6818606754"):
        deal = parse_deal_number(number)
        assert (new_game(catalogue.rules(variant), deal).board
                == new_game(catalogue.rules("montana"), deal).board)


def test_montana_deal_sets_aside_the_set_aside_rank() -> None:
    """Slot i gets the i-th card dealt (from the end of the talon); 6s leave a gap in Line Up."""
    layout = Layout(rows=4, rstep=6, rbase=0, ranks=range(6))
    talon = layout.deck_cards()  # unshuffled, so the order is easy to follow
    cells = MontanaDeal().place(layout, list(talon))
    dealt = talon[::-1]
    assert cells == [None if rank_of(card) == 5 else card for card in dealt]


def test_blue_moon_puts_the_aces_at_the_heads_in_reading_order(catalogue: Catalogue) -> None:
    """After the deal column 0 holds the four Aces, taken from where they lay in reading order."""
    rules = catalogue.rules("blue-moon")
    for number in ("1", "617", "123456789"):
        board = new_game(rules, parse_deal_number(number)).board
        heads = [board.cells[slot] for slot in rules.layout.row_starts()]
        assert all(card is not None and rank_of(card) == 0 for card in heads)
        assert len(board.gaps()) == 4
        assert not any(rules.layout.is_row_start(gap) for gap in board.gaps())


def test_blue_moon_heads_follow_the_aces_reading_order() -> None:
    """The first Ace in reading order goes to row 0, the next to row 1, and so on."""
    layout = Layout(rows=4, rstep=14, rbase=0)
    talon = [card for card in range(52)][::-1]  # deal order: 0 (AC), 1, 2, ...
    cells = BlueMoonDeal().place(layout, talon)
    assert [cells[slot] for slot in layout.row_starts()] == [
        parse_card(code) for code in ("AC", "AS", "AH", "AD")]


def test_spaces_and_aces_leave_aces_where_they_land(catalogue: Catalogue) -> None:
    """Spaces and Aces: column 0 stays empty, the Aces stay in the grid."""
    rules = catalogue.rules("spaces-and-aces")
    board = new_game(rules, parse_deal_number("617")).board
    assert board.gaps() == list(rules.layout.row_starts())


def test_red_moon_heads_are_clubs_spades_hearts_diamonds(catalogue: Catalogue) -> None:
    """Red Moon: Aces in column 0 in suit order, column 1 empty, everything else full."""
    rules = catalogue.rules("red-moon")
    board = new_game(rules, parse_deal_number("28425")).board
    assert [row[0] for row in board.to_rows()] == ["AC", "AS", "AH", "AD"]
    assert board.gaps() == [start + 1 for start in rules.layout.row_starts()]


def test_double_red_moon_pairs_its_heads(catalogue: Catalogue) -> None:
    """With two decks each suit's two Aces head consecutive rows."""
    board = new_game(catalogue.rules("double-red-moon"), parse_deal_number("5")).board
    assert [row[0] for row in board.to_rows()] == ["AC", "AC", "AS", "AS", "AH", "AH", "AD", "AD"]


@pytest.mark.parametrize("variant", ["montana", "blue-moon", "paganini", "double-montana",
                                     "house-of-commons", "line-up", "paganini-ii"])
def test_every_card_of_the_game_is_on_the_board_once_per_deck(catalogue: Catalogue,
                                                              variant: str) -> None:
    """The deal neither loses nor invents a card: the board holds the deck less set-aside ranks."""
    rules = catalogue.rules(variant)
    board = new_game(rules, parse_deal_number("99999")).board
    expected = Counter(card for card in rules.layout.deck_cards()
                       if rank_of(card) not in rules.layout.set_aside_ranks)
    assert Counter(card for card in board.cells if card is not None) == expected


def test_styles_refuse_a_deck_that_does_not_fit() -> None:
    """A deal style given the wrong number of cards raises RuleError, not a half board."""
    layout = Layout(rows=4, rstep=13, rbase=1)
    with pytest.raises(RuleError):
        MontanaDeal().place(layout, list(range(40)))
    with pytest.raises(RuleError):
        BlueMoonDeal().place(layout, list(range(52)))
    with pytest.raises(RuleError):
        RedMoonDeal().place(Layout(rows=4, rstep=14, rbase=0), list(range(50)))
