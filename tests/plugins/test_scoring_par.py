"""The ``par`` scheme: won first, then fewer moves, then less time."""

from __future__ import annotations

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.scoring import GameSummary, Score
from tests.scoring_positions import summary


def _par(catalogue: Catalogue, facts: GameSummary) -> Score:
    return catalogue.scoring["par"].scheme.score(facts)


def _facts(won: bool, moves: int, elapsed: float | None) -> GameSummary:
    return GameSummary(won=won, cards_in_sequence=0, finished_rows=0, rows=4, redeals_allowed=2,
                       redeals_used=0, undos=0, moves=moves, elapsed=elapsed)


def test_par_of_the_winning_move(catalogue: Catalogue) -> None:
    """38-37 in 12.5 s: won, 1 move, 12500 ms; the total is the move count (lower is better)."""
    score = _par(catalogue, summary(catalogue, "38-37", elapsed=12.5))
    assert (score.total, score.better, score.sort_key) == (1, "lower", (0, 1, 0, 12500))
    assert score.explanation == "won with 1 moves, in 12.5 s"


def test_par_orders_won_then_moves_then_time(catalogue: Catalogue) -> None:
    """A win beats any loss; fewer moves beat a faster time; a known time beats none."""
    games = {
        "lost-fast": _facts(False, 10, 1.0),
        "won-slow-many": _facts(True, 90, 300.0),
        "won-fast-many": _facts(True, 90, 100.0),
        "won-few": _facts(True, 50, 900.0),
        "won-few-untimed": _facts(True, 50, None),
    }
    ranked = sorted(games, key=lambda name: _par(catalogue, games[name]).sort_key)
    assert ranked == ["won-few", "won-few-untimed", "won-fast-many", "won-slow-many",
                      "lost-fast"]
