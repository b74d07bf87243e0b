"""Jungle (PySolFC 380): Blue Moon where a gap takes any suit, one redeal."""

from __future__ import annotations

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.notation import parse_action
from tests.boards import position

BOARD = """
AC 2C 3C .. 5C 6C 7C 8C 9C TC JC QC KC 4H
AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS ..
AH 2H 3H .. 5H 6H 7H 8H 9H TH JH QH KH 4C
AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD ..
"""


def test_jungle_accepts_any_suit_one_rank_higher(catalogue: Catalogue) -> None:
    """4H may follow 3C in Jungle; Blue Moon wants 4C; a 5 does not fit."""
    jungle = position(catalogue.rules("jungle"), BOARD)
    assert jungle.check(parse_action("13-3")) is None
    assert position(catalogue.rules("blue-moon"), BOARD).check(parse_action("13-3")) is not None
    refusal = jungle.check(parse_action("4-3"))
    assert refusal is not None and "only a 4 of any suit" in refusal.reason
    assert catalogue.rules("jungle").redeals == 1


def test_jungle_is_only_won_with_one_suit_rows(catalogue: Catalogue) -> None:
    """Rows built of mixed suits are not a win: runs are one suit."""
    mixed = BOARD.replace("AC 2C 3C .. 5C", "AC 2C 3C 4H 5C").replace("KC 4H", "KC ..")
    assert not position(catalogue.rules("jungle"), mixed).is_won
