"""Paganini (PySolFC 706), also Long Trip: 36 cards, the 6 follows the Ace."""

from __future__ import annotations

from gapgrid.core.cards import rank_of
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game
from tests.boards import position, solved_text


def test_paganini_deck_and_sequence(catalogue: Catalogue) -> None:
    """Ace and 6-King only; rows read A 6 7 ... K; Aces start at the heads."""
    rules = catalogue.rules("long trip")
    board = new_game(rules, parse_deal_number("706")).board
    assert {rank_of(card) for card in board.cells if card is not None} == {0, *range(5, 13)}
    assert [row[0][0] for row in board.to_rows()] == ["A"] * 4
    assert rules.layout.sequence_ranks == (0, 5, 6, 7, 8, 9, 10, 11, 12)


def test_paganini_win_and_one_redeal(catalogue: Catalogue) -> None:
    """Rows A, 6..K in one suit win; one redeal."""
    rules = catalogue.rules("paganini")
    assert position(rules, solved_text(rules.layout)).is_won
    assert solved_text(rules.layout).startswith("AC 6C 7C")
    assert rules.redeals == 1
