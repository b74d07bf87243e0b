"""Spaces (PySolFC 116): Montana whose redeals leave the gaps at random."""

from __future__ import annotations

from gapgrid.core.catalogue import Catalogue
from tests.golden import records_for, redeal_points
from tests.plugins.variant_checks import gaps_after_runs, state_after


def test_spaces_is_addiction(catalogue: Catalogue) -> None:
    """PySolFC id 116, also called Addiction."""
    assert catalogue.lookup("addiction").slug == "spaces"
    assert catalogue.variants["spaces"].pysolfc_id == 116


def test_spaces_redeal_gaps_are_not_tied_to_the_runs(catalogue: Catalogue) -> None:
    """Recorded redeals leave four gaps, among the gathered slots, not always after the runs."""
    elsewhere = 0
    for record in records_for("spaces"):
        for index in redeal_points(record):
            before = state_after(catalogue, record, index)
            after = state_after(catalogue, record, index + 1)
            kept = set(before.board.run_lengths())
            assert len(after.board.gaps()) == 4 and kept is not None
            for start, length in zip(before.rules.layout.row_starts(),
                                     before.board.run_lengths(), strict=True):
                assert all(slot not in after.board.gaps() for slot in range(start, start + length))
            elsewhere += after.board.gaps() != gaps_after_runs(after)
    assert elsewhere > 0
