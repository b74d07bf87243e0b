"""Free Parking (PySolFC 276): Montana with two-sided fills."""

from __future__ import annotations

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.notation import parse_action
from tests.boards import position

BOARD = """
2C 3C .. 5H 6C 7C 8C 9C TC JC QC KC 4C
2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS ..
2H 3H 4H .. 6H 7H 8H 9H TH JH QH KH ..
2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD ..
"""


def test_free_parking_fills_before_the_right_neighbour(catalogue: Catalogue) -> None:
    """4H may fill slot 2 (before 5H) in Free Parking, not in Montana; 4C fits either way."""
    move = parse_action("28-2")
    assert position(catalogue.rules("free-parking"), BOARD).check(move) is None
    refusal = position(catalogue.rules("montana"), BOARD).check(move)
    assert refusal is not None and refusal.kind == "misfit"
    assert position(catalogue.rules("free-parking"), BOARD).check(parse_action("12-2")) is None


def test_free_parking_other_names(catalogue: Catalogue) -> None:
    """Also known as Moonlight and Park and Ride."""
    assert catalogue.lookup("moonlight").slug == catalogue.lookup("park-and-ride").slug == (
        "free-parking")
