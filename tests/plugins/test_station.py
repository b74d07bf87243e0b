"""Station (PySolFC 858): Montana whose redeals leave the gaps in the last column."""

from __future__ import annotations

from gapgrid.core.catalogue import Catalogue
from tests.golden import records_for, redeal_points
from tests.plugins.variant_checks import state_after


def test_station_redeal_gaps_are_the_last_column(catalogue: Catalogue) -> None:
    """After every recorded redeal the gaps are slots 12, 25, 38 and 51."""
    checked = 0
    for record in records_for("station"):
        for index in redeal_points(record):
            after = state_after(catalogue, record, index + 1)
            assert after.board.gaps() == after.rules.layout.last_column_slots() == [12, 25, 38, 51]
            checked += 1
    assert checked > 0
