"""Line Up (PySolFC 795), also Pretzel: Ace to 6, the 6s removed, no redeal."""

from __future__ import annotations

from gapgrid.core.cards import rank_of
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game
from gapgrid.core.notation import REDEAL
from tests.boards import position, solved_text


def test_line_up_sets_the_sixes_aside(catalogue: Catalogue) -> None:
    """20 cards A-5 on a 4x6 grid, four gaps where the 6s were."""
    board = new_game(catalogue.rules("pretzel"), parse_deal_number("795")).board
    assert {rank_of(card) for card in board.cells if card is not None} == set(range(5))
    assert len(board.gaps()) == 4


def test_line_up_is_won_with_rows_ace_to_five(catalogue: Catalogue) -> None:
    """Rows Ace to 5 in one suit win; there is no redeal to ask for."""
    rules = catalogue.rules("line-up")
    assert position(rules, solved_text(rules.layout)).is_won
    refusal = new_game(rules, parse_deal_number("1")).check(REDEAL)
    assert refusal is not None and refusal.kind == "variant-has-no-redeal"
