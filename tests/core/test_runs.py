"""Runs: one definition behind redeals, the won check and "cards in sequence"."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

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


@settings(max_examples=80, deadline=None)
@given(cells=st.permutations([*range(1, 13), *range(14, 26), *range(27, 39), *range(40, 52),
                              None, None, None, None]))
def test_run_lengths_is_run_length_of_each_row(cells: list[int | None]) -> None:
    """run_lengths (redeals), run_length and the search's RunShape agree row by row."""
    layout = Layout(rows=4, rstep=13, rbase=1)
    for row, start in enumerate(layout.row_starts()):  # a run to find in each row
        cells[start:start + row + 1] = [13 * row + 1 + column for column in range(row + 1)]
    lengths = [runs.run_length(layout, cells, row) for row in range(layout.rows)]
    assert lengths[0] >= 1 and lengths[3] >= 4
    assert runs.run_lengths(layout, cells) == lengths
    shape = runs.RunShape(layout)
    assert [shape.run_length(cells, row) for row in range(layout.rows)] == lengths
    assert shape.run_ends(cells) == [start + length
                                     for start, length in zip(layout.row_starts(), lengths,
                                                              strict=True)]
    assert not shape.all_rows_finished(cells)


def test_the_search_s_run_shape_sees_the_win_as_the_layout_does() -> None:
    """RunShape.all_rows_finished, the engine's won check, is all_rows_finished."""
    shape = runs.RunShape(SMALL)
    finished = board_from_text(SMALL, """
2S 3S 4S ..
2C 3C 4C ..
2D 3D 4D ..
2H 3H 4H ..
""")
    assert shape.all_rows_finished(finished.cells)
    one_short = board_from_text(SMALL, """
2S 3S 4S ..
2C 3C 4C ..
2D 3D .. 4D
2H 3H 4H ..
""")
    assert not shape.all_rows_finished(one_short.cells)
    assert not runs.all_rows_finished(SMALL, one_short.cells)
    assert shape.run_ends(one_short.cells) == [3, 7, 10, 15]
