"""Layout: PySolFC's RLEN/RSTEP/RBASE and the named helpers every rule uses."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gapgrid.core.layout import Layout

MONTANA = Layout(rows=4, rstep=13, rbase=1)
BLUE_MOON = Layout(rows=4, rstep=14, rbase=0)
PAGANINI = Layout(rows=4, rstep=10, rbase=0, ranks=(0, 5, 6, 7, 8, 9, 10, 11, 12))
LINE_UP = Layout(rows=4, rstep=6, rbase=0, ranks=range(6))


def test_pysolfc_numbers() -> None:
    """RLEN is rows * RSTEP: Montana 52, Blue Moon 56."""
    assert MONTANA.rlen == 52
    assert BLUE_MOON.rlen == 56


@given(st.integers(min_value=0, max_value=51))
def test_slot_row_and_column_round_trip(slot: int) -> None:
    """slot = row * RSTEP + column, as PySolFC numbers its row stacks."""
    row, column = MONTANA.row_of(slot), MONTANA.column_of(slot)
    assert MONTANA.slot_at(row, column) == slot
    assert slot in MONTANA.row_slots(row)


def test_row_helpers() -> None:
    """Row starts, last columns and the slots of a row."""
    assert list(MONTANA.row_starts()) == [0, 13, 26, 39]
    assert MONTANA.last_column_slots() == [12, 25, 38, 51]
    assert list(BLUE_MOON.row_slots(1)) == list(range(14, 28))
    assert MONTANA.is_row_start(26) and not MONTANA.is_row_start(27)


def test_left_and_right_stop_at_the_row_edges() -> None:
    """No wrapping: column 0 has nothing on its left, the last column nothing on its right."""
    assert MONTANA.left_of(13) is None
    assert MONTANA.left_of(14) == 13
    assert MONTANA.right_of(12) is None
    assert MONTANA.right_of(11) == 12


def test_neighbours_are_orthogonal_without_wrapping() -> None:
    """Corner, edge and middle slots of the Line Up grid."""
    assert sorted(LINE_UP.neighbours(0)) == [1, 6]
    assert sorted(LINE_UP.neighbours(5)) == [4, 11]
    assert sorted(LINE_UP.neighbours(6)) == [0, 7, 12]
    assert sorted(LINE_UP.neighbours(8)) == [2, 7, 9, 14]
    assert sorted(LINE_UP.neighbours(23)) == [17, 22]


def test_sequence_ranks_of_each_family() -> None:
    """Montana rows run 2-K, Blue Moon A-K, Paganini A then 6-K, Line Up A-5."""
    assert MONTANA.sequence_ranks == tuple(range(1, 13))
    assert BLUE_MOON.sequence_ranks == tuple(range(13))
    assert PAGANINI.sequence_ranks == (0, 5, 6, 7, 8, 9, 10, 11, 12)
    assert LINE_UP.sequence_ranks == (0, 1, 2, 3, 4)


def test_set_aside_ranks() -> None:
    """Montana sets the Aces aside, Line Up the 6s, Blue Moon nothing."""
    assert MONTANA.set_aside_ranks == (0,)
    assert LINE_UP.set_aside_ranks == (5,)
    assert BLUE_MOON.set_aside_ranks == ()


def test_deck_cards_in_pysolfc_creation_order() -> None:
    """Deck by deck, suit by suit, rank by rank over the ranks in play."""
    assert MONTANA.deck_cards() == list(range(52))
    assert PAGANINI.deck_cards()[:10] == [0, 5, 6, 7, 8, 9, 10, 11, 12, 13]
    assert len(MONTANA.with_decks(2).deck_cards()) == 104


def test_with_decks_repeats_the_rows() -> None:
    """Two decks of Blue Moon are eight rows of fourteen."""
    double = BLUE_MOON.with_decks(2)
    assert (double.rows, double.rstep, double.decks, double.rlen) == (8, 14, 2, 112)


@pytest.mark.parametrize("kwargs", [
    dict(rows=0, rstep=13, rbase=1),
    dict(rows=4, rstep=1, rbase=1),
    dict(rows=4, rstep=13, rbase=13),
    dict(rows=4, rstep=6, rbase=7, ranks=range(6)),
    dict(rows=4, rstep=6, rbase=0, ranks=(3, 2, 1)),
])
def test_impossible_layouts_are_refused(kwargs: dict[str, object]) -> None:
    """No rows, one-slot rows, unknown ranks or an RBASE outside the ranks raise ValueError."""
    with pytest.raises(ValueError):
        Layout(**kwargs)  # type: ignore[arg-type]


def test_layouts_are_values() -> None:
    """Equal layouts compare and hash equal, so they can key caches."""
    assert Layout(rows=4, rstep=13, rbase=1) == MONTANA
    assert hash(Layout(rows=4, rstep=13, rbase=1)) == hash(MONTANA)
