"""The presets the seed documents name behave as named."""

from __future__ import annotations

import pytest

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.notation import REDEAL
from gapgrid.core.rules import RedealTiming
from tests.boards import position

# Hand-checkable: rows 1, 2 and 4 are finished; row 3 runs 2H-TH, then QH JH KH.
# Every gap follows a King, so no move is left.
STUCK = """
2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC ..
2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS ..
2H 3H 4H 5H 6H 7H 8H 9H TH QH JH KH ..
2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD ..
"""
# The same but with the gap of row 3 after QH, so KH could move there.
NOT_STUCK = STUCK.replace("TH QH JH KH ..", "TH QH .. KH JH")


@pytest.mark.parametrize(("slug", "redeals", "placement", "timing"), [
    ("gaps", 2, "after-runs", "stuck"),
    ("gaps-no-shuffle", 2, "no-shuffle", "stuck"),
    ("gaps-aces-in-redeal", 2, "random", "stuck"),
    ("gaps-unlimited", -1, "after-runs", "stuck"),
    ("montana-classic", 1, "random", "stuck"),
    ("montana-relax", 3, "random", "stuck"),
    ("blue-moon-classic", 2, "after-runs", "stuck"),
])
def test_preset_rules(catalogue: Catalogue, slug: str, redeals: int, placement: str,
                      timing: str) -> None:
    """Each preset's redeal count, placement and timing are what its seed says."""
    rules = catalogue.rules(slug)
    assert (rules.redeals, rules.placement.name, rules.timing.value) == (redeals, placement,
                                                                         timing)


def test_gaps_refuses_a_redeal_while_a_move_remains(catalogue: Catalogue) -> None:
    """Gaps (seed 002): with KH able to move, a redeal is refused and the move named."""
    refusal = position(catalogue.rules("gaps"), NOT_STUCK).check(REDEAL)
    assert refusal is not None and refusal.kind == "not-stuck"
    assert "37-36 is possible" in refusal.reason


def test_gaps_allows_a_redeal_when_stuck(catalogue: Catalogue) -> None:
    """Gaps: with every gap behind a King, the redeal goes ahead."""
    state = position(catalogue.rules("gaps"), STUCK)
    assert state.is_stuck
    assert state.apply(REDEAL).redeals_used == 1


def test_montana_allows_a_redeal_any_time(catalogue: Catalogue) -> None:
    """PySolFC's Montana redeals even while moves remain."""
    assert position(catalogue.rules("montana"), NOT_STUCK).check(REDEAL) is None


def test_gaps_no_shuffle_deals_back_in_pick_up_order(catalogue: Catalogue) -> None:
    """Row 3 keeps 2H-TH; QH JH KH are picked up in that order and dealt back after the gap."""
    after = position(catalogue.rules("gaps-no-shuffle"), STUCK).apply(REDEAL)
    row = after.board.to_rows()[2]
    assert row == ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", None, "QH", "JH", "KH"]
    assert [row[-1] for row in after.board.to_rows()] == [None, None, "KH", None]


def test_gaps_unlimited_never_runs_out(catalogue: Catalogue) -> None:
    """After any number of redeals another is allowed; redeals_left is None (unlimited)."""
    rules = catalogue.rules("gaps-unlimited")
    state = position(rules, STUCK, redeals_used=10_000)
    assert state.redeals_left is None
    assert state.apply(REDEAL).redeals_used == 10_001
    capped = position(catalogue.rules("gaps"), STUCK, redeals_used=2)
    refusal = capped.check(REDEAL)
    assert refusal is not None and refusal.kind == "no-redeal-left"


def test_aces_in_the_redeal_puts_gaps_at_random(catalogue: Catalogue) -> None:
    """gaps-aces-in-redeal draws its gaps from the gathered slots with the game's generator."""
    placed = set()
    for number in ("1", "2", "3", "40000", "50000"):
        after = position(catalogue.rules("gaps-aces-in-redeal"), STUCK, number=number)
        redealt = after.apply(REDEAL)
        gaps = tuple(redealt.board.gaps())
        assert len(gaps) == 4
        # the kept runs stay where they were
        assert redealt.board.to_rows()[0][:12] == after.board.to_rows()[0][:12]
        placed.add(gaps)
    assert len(placed) > 1


def test_blue_moon_classic_waits_for_stuck(catalogue: Catalogue) -> None:
    """Blue Moon Classic (seed 000) offers its redeals only when no move remains."""
    rules = catalogue.rules("blue-moon-classic")
    assert rules.timing is RedealTiming.STUCK
    assert rules.layout == catalogue.rules("blue-moon").layout
