"""The ``frontier`` scheme (seed 001's Frontier Ledger), on positions worked out on paper.

The position (tests/scoring_positions.py): Montana, 47 cards in sequence and
3 rows finished; 38-37 wins (48 cards, 4 rows); two redeals allowed.
"""

from __future__ import annotations

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.scoring import Score
from tests.scoring_positions import summary


def _frontier(catalogue: Catalogue, moves: str, **kwargs: object) -> Score:
    return catalogue.scoring["frontier"].scheme.score(summary(catalogue, moves, **kwargs))


def test_won_in_two_minutes(catalogue: Catalogue) -> None:
    """4800 + 4 x 1000 + 2 x 500 + (600 - 120) s x 10 - 1 x 5 = 14595; bronze and gold."""
    score = _frontier(catalogue, "38-37", elapsed=120)
    assert score.total == 14595
    assert dict(score.breakdown) == {"cards_in_sequence": 4800, "finished_rows": 4000,
                                     "unused_redeals": 1000, "time_bonus": 4800, "moves": -5}
    assert score.extra["badges"] == ["bronze", "gold"]
    assert score.extra["time_scored"] is True


def test_timed_mode_allows_three_minutes(catalogue: Catalogue) -> None:
    """Timed: (180 - 120) s x 10 = 600 bonus: 4800 + 4000 + 1000 + 600 - 5 = 10395."""
    assert _frontier(catalogue, "38-37", elapsed=120, timed=True).total == 10395


def test_unknown_time_is_not_scored(catalogue: Catalogue) -> None:
    """No elapsed time: no bonus, and the result says so: 4800 + 4000 + 1000 - 5 = 9795."""
    score = _frontier(catalogue, "38-37")
    assert score.total == 9795
    assert score.extra["time_scored"] is False
    assert "elapsed time is unknown" in score.explanation


def test_not_won_scores_no_time_and_only_bronze(catalogue: Catalogue) -> None:
    """No move: 4700 + 3 x 1000 + 1000 = 8700; time is not scored for a lost game."""
    score = _frontier(catalogue, "", elapsed=10)
    assert score.total == 8700
    assert score.extra["badges"] == ["bronze"]
    assert "the game is not won" in score.explanation


def test_silver_for_a_win_after_every_redeal(catalogue: Catalogue) -> None:
    """redeal, redeal, 38-37: no redeal left, so silver, not gold; 4800 + 4000 + 0 - 5 = 8795."""
    score = _frontier(catalogue, "redeal redeal 38-37")
    assert score.extra["badges"] == ["bronze", "silver"]
    assert score.total == 8795


def test_undone_moves_cost_five_each(catalogue: Catalogue) -> None:
    """38-37, undo, 38-37: two cards moved, -10; undos cost nothing here: 9790."""
    assert _frontier(catalogue, "38-37 undo 38-37").total == 9790


def test_unlimited_redeals(catalogue: Catalogue) -> None:
    """Unlimited: no unused-redeal bonus, but a redeal to spare (gold): 4800 + 4000 - 5."""
    score = _frontier(catalogue, "redeal 38-37", options={"redeals": "unlimited"})
    assert score.total == 8795
    assert score.extra["badges"] == ["bronze", "gold"]
