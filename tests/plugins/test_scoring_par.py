"""The ``par`` scheme, the fair ranking: won by fewer actions then time; then progress by
more cards in sequence then fewer moves; no progress last; hints after no hints."""

from __future__ import annotations

import attrs

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.scoring import GameSummary, Score
from tests.scoring_positions import summary


def _par(catalogue: Catalogue, facts: GameSummary) -> Score:
    return catalogue.scoring["par"].scheme.score(facts)


def _facts(won: bool, moves: int, elapsed: float | None, *, cards: int = 10,
           start: int = 4, redeals: int = 0, assisted: bool = False) -> GameSummary:
    return GameSummary(won=won, cards_in_sequence=48 if won else cards, finished_rows=0,
                       rows=4, redeals_allowed=2, redeals_used=redeals, undos=0, moves=moves,
                       elapsed=elapsed, start_cards_in_sequence=start, assisted=assisted)


def test_par_of_the_winning_move(catalogue: Catalogue) -> None:
    """38-37 in 12.5 s: won, 1 action, 12500 ms; the total is the action count (lower is
    better)."""
    score = _par(catalogue, summary(catalogue, "38-37", elapsed=12.5))
    assert (score.total, score.better, score.sort_key) == (1, "lower", (0, 0, 1, 0, 12500))
    assert score.explanation == "won with 1 action, in 12.5 s"


def test_a_redeal_counts_as_an_action(catalogue: Catalogue) -> None:
    """Won by a redeal and the move: two actions, so it ranks after the move alone."""
    direct = _par(catalogue, summary(catalogue, "38-37"))
    via_redeal = _par(catalogue, summary(catalogue, "redeal 38-37"))
    assert via_redeal.total == 2 and direct.sort_key < via_redeal.sort_key


def test_par_orders_won_then_actions_then_time(catalogue: Catalogue) -> None:
    """A win beats any other game; fewer actions beat a faster time; a known time beats
    none; redeals count as actions."""
    games = {
        "progress-fast": _facts(False, 10, 1.0),
        "won-slow-many": _facts(True, 90, 300.0),
        "won-fast-many": _facts(True, 90, 100.0),
        "won-few": _facts(True, 50, 900.0),
        "won-few-untimed": _facts(True, 50, None),
        "won-few-redealt": _facts(True, 50, 10.0, redeals=1),
    }
    ranked = sorted(games, key=lambda name: _par(catalogue, games[name]).sort_key)
    assert ranked == ["won-few", "won-few-untimed", "won-few-redealt", "won-fast-many",
                      "won-slow-many", "progress-fast"]


def test_games_not_won_rank_by_cards_in_sequence_then_moves(catalogue: Catalogue) -> None:
    """Among games not won, more cards in sequence first, then fewer moves, then time."""
    games = {
        "few-cards": _facts(False, 5, 10.0, cards=8),
        "many-cards-many-moves": _facts(False, 60, 10.0, cards=30),
        "many-cards-few-moves": _facts(False, 20, 50.0, cards=30),
        "many-cards-few-moves-faster": _facts(False, 20, 40.0, cards=30),
    }
    ranked = sorted(games, key=lambda name: _par(catalogue, games[name]).sort_key)
    assert ranked == ["many-cards-few-moves-faster", "many-cards-few-moves",
                      "many-cards-many-moves", "few-cards"]


def test_no_progress_ranks_below_every_game_with_progress(catalogue: Catalogue) -> None:
    """An empty game, or moves that left no more cards in runs than the deal had, rank
    below a game one card further, however many moves that took."""
    empty = _facts(False, 0, 1.0, cards=4, start=4)
    shuffled = _facts(False, 12, 1.0, cards=4, start=4)
    one_card = _facts(False, 400, 900.0, cards=5, start=4)
    keys = {name: _par(catalogue, facts).sort_key
            for name, facts in [("empty", empty), ("shuffled", shuffled),
                                ("one-card", one_card)]}
    assert sorted(keys, key=keys.__getitem__) == ["one-card", "empty", "shuffled"]
    assert not empty.progress and one_card.progress
    assert _par(catalogue, empty).explanation == "no progress (0 moves), in 1.0 s"


def test_hints_rank_after_no_hints_at_equal_outcome(catalogue: Catalogue) -> None:
    """An assisted win ranks after every unassisted win, even a longer and slower one, but
    before any game not won; the same holds among games with progress."""
    fair = _facts(True, 90, 500.0)
    helped = _facts(True, 40, 30.0, assisted=True)
    not_won = _facts(False, 10, 1.0, cards=40)
    not_won_helped = attrs.evolve(not_won, assisted=True)
    order = sorted([helped, not_won_helped, fair, not_won],
                   key=lambda facts: _par(catalogue, facts).sort_key)
    assert order == [fair, helped, not_won, not_won_helped]
    assert _par(catalogue, helped).explanation.endswith(", with hints")
