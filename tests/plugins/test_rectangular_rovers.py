"""Rectangular Rovers (PySolFC 993): any neighbour slides into a gap."""

from __future__ import annotations

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.notation import parse_action
from tests.boards import position

BOARD = """
3C 2C AC 4C 5C ..
AS 2S 3S 4S .. 5S
AH 2H 3H 4H 5H ..
.. AD 2D 3D 4D 5D
"""


def test_rovers_slide_whatever_card_is_beside_the_gap(catalogue: Catalogue) -> None:
    """5C slides right, 5S slides left, AD slides left; a card two slots away may not."""
    state = position(catalogue.rules("rectangular-rovers"), BOARD)
    for legal in ("4-5", "11-10", "19-18", "12-18"):
        assert state.check(parse_action(legal)) is None, legal
    refusal = state.check(parse_action("3-5"))
    assert refusal is not None and "not beside it" in refusal.reason
