"""Double Blue Moon (PySolFC 770): two decks, eight Aces at the heads."""

from __future__ import annotations

from gapgrid.core.cards import rank_of
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game


def test_double_blue_moon_heads_are_the_eight_aces(catalogue: Catalogue) -> None:
    """8 rows of 14; column 0 holds all eight Aces; eight gaps; two redeals."""
    rules = catalogue.rules("double-blue-moon")
    board = new_game(rules, parse_deal_number("770")).board
    heads = [board.cells[slot] for slot in rules.layout.row_starts()]
    assert all(card is not None and rank_of(card) == 0 for card in heads)
    assert len(board.gaps()) == 8 and rules.redeals == 2
