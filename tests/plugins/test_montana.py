"""Montana (PySolFC 53): the baseline rules."""

from __future__ import annotations

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.rules import RedealTiming
from tests.golden import records_for, redeal_points
from tests.plugins.variant_checks import gaps_after_runs, state_after


def test_montana_is_pysolfcs_game_53(catalogue: Catalogue) -> None:
    """Id, names, geometry and redeals as PySolFC registers them."""
    info = catalogue.variants["montana"]
    assert (info.pysolfc_id, info.name, info.other_names) == (53, "Montana", ("Gaps", "Vacancies"))
    rules = catalogue.rules("montana")
    assert (rules.layout.rows, rules.layout.rstep, rules.layout.rbase) == (4, 13, 1)
    assert rules.redeals == 2 and rules.timing is RedealTiming.ANYTIME


def test_montana_redeal_leaves_gaps_right_after_the_runs(catalogue: Catalogue) -> None:
    """After every recorded redeal the gaps are the slots just after each row's run."""
    checked = 0
    for record in records_for("montana"):
        for index in redeal_points(record):
            after = state_after(catalogue, record, index + 1)
            assert after.board.gaps() == gaps_after_runs(after)
            checked += 1
    assert checked > 0
