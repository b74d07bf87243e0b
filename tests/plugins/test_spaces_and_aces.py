"""Spaces and Aces (PySolFC 381): Aces stay where they land; any higher card of the suit."""

from __future__ import annotations

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game
from gapgrid.core.notation import REDEAL, parse_action
from tests.boards import position


def test_spaces_and_aces_start_with_the_first_column_empty(catalogue: Catalogue) -> None:
    """The gaps are column 0; the Aces are somewhere in the grid; no redeal."""
    rules = catalogue.rules("spaces-and-aces")
    state = new_game(rules, parse_deal_number("381"))
    assert state.board.gaps() == list(rules.layout.row_starts())
    refusal = state.check(REDEAL)
    assert refusal is not None and refusal.kind == "variant-has-no-redeal"


BOARD = """
AC .. 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC
AS .. 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS
AH .. 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH
AD .. 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD
"""


def test_spaces_and_aces_accepts_any_higher_card_of_the_suit(catalogue: Catalogue) -> None:
    """After the Ace of clubs, the King or the 2 of clubs may fill the gap; a spade may not."""
    state = position(catalogue.rules("spaces-and-aces"), BOARD)
    assert state.check(parse_action("13-1")) is None  # KC
    assert state.check(parse_action("2-1")) is None  # 2C
    refusal = state.check(parse_action("27-1"))  # KS
    assert refusal is not None and "only a higher card of the same suit" in refusal.reason
