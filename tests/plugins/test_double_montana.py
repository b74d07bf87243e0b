"""Double Montana (PySolFC 877): two decks in eight rows."""

from __future__ import annotations

from collections import Counter

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game


def test_double_montana_deals_every_card_twice_with_eight_gaps(catalogue: Catalogue) -> None:
    """8 rows of 13; 96 cards (2-K twice) and 8 gaps where the Aces were."""
    rules = catalogue.rules("double-montana")
    board = new_game(rules, parse_deal_number("877")).board
    assert (rules.layout.rows, rules.layout.decks) == (8, 2)
    counts = Counter(card for card in board.cells if card is not None)
    assert set(counts.values()) == {2} and len(counts) == 48
    assert len(board.gaps()) == 8
