"""Runs: one definition behind redeals, the won check and "cards in sequence"."""

from __future__ import annotations

from gapgrid.core import runs
from gapgrid.core.layout import Layout
from tests.boards import board_from_text

SMALL = Layout(rows=4, rstep=4, rbase=1, ranks=range(4))


def test_run_lengths_from_column_0_in_one_suit() -> None:
    """A run starts with RBASE in column 0 and continues in the same suit, in order."""
    board = board_from_text(SMALL, """
2C 3C 4C ..
2S 3H 4S ..
3D 2D .. 4D
2H 3H .. 4H
""")
    assert runs.run_lengths(SMALL, board.cells) == [3, 1, 0, 2]
    assert runs.cards_in_sequence(SMALL, board.cells) == 6
    assert runs.finished_rows(SMALL, board.cells) == 1
    assert not runs.all_rows_finished(SMALL, board.cells)


def test_all_rows_finished_is_the_win() -> None:
    """Every row holding its full sequence is a finished board."""
    board = board_from_text(SMALL, """
2S 3S 4S ..
2C 3C 4C ..
2D 3D 4D ..
2H 3H 4H ..
""")
    assert runs.finished_rows(SMALL, board.cells) == 4
    assert runs.all_rows_finished(SMALL, board.cells)
