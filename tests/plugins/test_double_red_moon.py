"""Double Red Moon (PySolFC 771): two decks, Aces in suit pairs at the heads."""

from __future__ import annotations

from gapgrid.core.catalogue import Catalogue
from tests.golden import records_for


def test_double_red_moon_heads_come_in_suit_pairs(catalogue: Catalogue) -> None:
    """Column 0 reads AC AC AS AS AH AH AD AD; column 1 is empty."""
    for record in records_for("double-red-moon"):
        assert [row[0] for row in record["initial"]] == ["AC", "AC", "AS", "AS",
                                                         "AH", "AH", "AD", "AD"]
        assert [row[1] for row in record["initial"]] == [None] * 8
    assert catalogue.rules("double-red-moon").layout.decks == 2
