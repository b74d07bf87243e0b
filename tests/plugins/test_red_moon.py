"""Red Moon (PySolFC 117): Aces dealt first in suit order, column 1 empty."""

from __future__ import annotations

from gapgrid.core.catalogue import Catalogue
from tests.golden import records_for


def test_red_moon_recorded_deals_have_aces_in_suit_order(catalogue: Catalogue) -> None:
    """Column 0 is AC, AS, AH, AD and column 1 is empty in every recorded deal."""
    for record in records_for("red-moon"):
        assert [row[0] for row in record["initial"]] == ["AC", "AS", "AH", "AD"]
        assert [row[1] for row in record["initial"]] == [None] * 4
    assert catalogue.rules("red-moon").redeals == 2
