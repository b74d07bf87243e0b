"""Galary (PySolFC 275): Red Moon with two-sided fills."""

from __future__ import annotations

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.notation import parse_action
from tests.boards import position

BOARD = """
AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC ..
7H 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS
AH 2H 3H 4H 5H .. 8H 9H TH JH QH KH 6H ..
AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD ..
"""


def test_galary_last_column_looks_at_the_next_rows_head(catalogue: Catalogue) -> None:
    """Slot 13 ends row 1; its right neighbour is slot 14 (7H), so 6H may fill it."""
    state = position(catalogue.rules("galary"), BOARD)
    assert state.check(parse_action("40-13")) is None
    refusal = position(catalogue.rules("red-moon"), BOARD).check(parse_action("40-13"))
    assert refusal is not None and "nothing follows KC" in refusal.reason


def test_galary_fills_either_side(catalogue: Catalogue) -> None:
    """The gap between 5H and 8H takes 6H (after 5H) or 7H (before 8H), not 9H."""
    state = position(catalogue.rules("galary"), BOARD)
    assert state.check(parse_action("40-33")) is None
    assert state.check(parse_action("14-33")) is None
    refusal = state.check(parse_action("35-33"))
    assert refusal is not None and "fits neither after 5H nor before 8H" in refusal.reason
