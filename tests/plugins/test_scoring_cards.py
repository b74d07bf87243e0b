"""The ``cards`` scheme (seed 003), on positions worked out on paper.

The position (tests/scoring_positions.py): Montana, 47 cards in sequence,
38-37 wins (48 cards), two redeals allowed.
"""

from __future__ import annotations

from gapgrid.core.catalogue import Catalogue
from tests.scoring_positions import summary


def _cards(catalogue: Catalogue, moves: str, **kwargs: object) -> tuple[int, dict[str, int]]:
    score = catalogue.scoring["cards"].scheme.score(summary(catalogue, moves, **kwargs))
    return score.total, dict(score.breakdown)


def test_won_with_both_redeals_left(catalogue: Catalogue) -> None:
    """48 cards + 2 unused redeals x 10 = 68."""
    assert _cards(catalogue, "38-37") == (68, {"cards_in_sequence": 48, "unused_redeals": 20,
                                               "undos": 0})


def test_not_won(catalogue: Catalogue) -> None:
    """No move: 47 cards + 20 = 67."""
    assert _cards(catalogue, "")[0] == 67


def test_undo_of_a_redeal(catalogue: Catalogue) -> None:
    """redeal, undo, 38-37: the redeal is unused again (+20) but the undo costs 2: 48 + 20 - 2."""
    assert _cards(catalogue, "redeal undo 38-37") == (66, {"cards_in_sequence": 48,
                                                           "unused_redeals": 20, "undos": -2})


def test_one_redeal_used(catalogue: Catalogue) -> None:
    """redeal, 38-37: 48 + 1 unused x 10 = 58."""
    assert _cards(catalogue, "redeal 38-37")[0] == 58


def test_unlimited_redeals_earn_nothing(catalogue: Catalogue) -> None:
    """With unlimited redeals there is no bonus: 48 exactly."""
    assert _cards(catalogue, "38-37", options={"redeals": "unlimited"}) == (
        48, {"cards_in_sequence": 48, "unused_redeals": 0, "undos": 0})
