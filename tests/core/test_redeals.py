"""Redeals: what stays, what is gathered, and where each placement leaves the gaps."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gapgrid.core import runs
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.layout import Layout
from gapgrid.core.redeals import (
    PLACEMENTS,
    GapsAfterRuns,
    GapsAtRandom,
    GapsInLastColumn,
    KeepRuns,
    NoShuffle,
    redeal_cells,
)
from gapgrid.core.rules import RuleError
from tests.boards import board_from_text

SMALL = Layout(rows=4, rstep=4, rbase=1, ranks=range(4))
BOARD = """
2C 3C 4H ..
3S .. 2S 4S
.. 4C 3H 2D
2H 3D 4D ..
"""


def _redeal(placement: object, text: str = BOARD, number: str = "617") -> list[int | None]:
    cells = list(board_from_text(SMALL, text).cells)
    redeal_cells(SMALL, cells, KeepRuns(), placement, parse_deal_number(number).new_random())
    return cells


def test_after_runs_keeps_runs_and_leaves_a_gap_after_each() -> None:
    """2C 3C stays; rows without a run keep nothing; each row's first gathered slot is a gap."""
    cells = _redeal(GapsAfterRuns())
    assert cells[0:2] == list(board_from_text(SMALL, BOARD).cells[0:2])
    assert cells[12] is not None  # 2H heads row 4's run of length 1 and stays
    assert [slot for slot, card in enumerate(cells) if card is None] == [2, 4, 8, 13]


def test_no_shuffle_deals_back_in_pick_up_order() -> None:
    """Gathered cards come back in the order picked up, closing up behind the new gaps."""
    cells = _redeal(NoShuffle())
    picked_up = ["4H", "3S", "2S", "4S", "4C", "3H", "2D", "3D", "4D"]
    gathered_slots = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15]
    gaps = {2, 4, 8, 13}
    dealt = [cells[slot] for slot in gathered_slots if slot not in gaps]
    from gapgrid.core.cards import card_code
    assert [card_code(card) for card in dealt if card is not None] == picked_up
    assert all(cells[slot] is None for slot in gaps)


def test_last_column_leaves_the_gaps_at_the_row_ends() -> None:
    """Station: the gaps are the last slot of each row."""
    cells = _redeal(GapsInLastColumn())
    assert [slot for slot, card in enumerate(cells) if card is None] == [3, 7, 11, 15]


def test_random_gaps_come_from_the_gathered_slots() -> None:
    """Spaces: four different gathered slots end up empty; kept runs are untouched."""
    for number in ("1", "617", "40000", "123456789"):
        cells = _redeal(GapsAtRandom(), number=number)
        gaps = [slot for slot, card in enumerate(cells) if card is None]
        assert len(gaps) == 4
        assert not {0, 1, 12} & set(gaps)


def test_last_column_refuses_when_a_last_slot_was_kept() -> None:
    """A placement that cannot leave its gaps raises RuleError instead of losing cards."""
    full_row = """
2C 3C 4C 5C
3S .. 2S 4S
.. 4C 3H 2D
2H 3D 4D ..
"""
    layout = Layout(rows=4, rstep=4, rbase=1, ranks=range(5))
    cells = list(board_from_text(layout, full_row).cells)
    with pytest.raises(RuleError):
        redeal_cells(layout, cells, KeepRuns(), GapsInLastColumn(),
                     parse_deal_number("1").new_random())


def test_placements_by_name() -> None:
    """The options' names map to the four placements."""
    assert sorted(PLACEMENTS) == ["after-runs", "last-column", "no-shuffle", "random"]
    assert all(name == placement.name for name, placement in PLACEMENTS.items())


MONTANA = Layout(rows=4, rstep=13, rbase=1)


@settings(max_examples=60, deadline=None)
@given(cells=st.permutations([*range(1, 13), *range(14, 26), *range(27, 39), *range(40, 52),
                              None, None, None, None]),
       placement=st.sampled_from(sorted(PLACEMENTS)),
       number=st.sampled_from(["5", "617", "40000", "98765432109876543210"]))
def test_any_redeal_keeps_runs_and_cards(cells: list[int | None], placement: str,
                                         number: str) -> None:
    """On any board, every placement keeps the runs, the cards and the number of gaps."""
    before = list(cells)
    redeal_cells(MONTANA, cells, KeepRuns(), PLACEMENTS[placement],
                 parse_deal_number(number).new_random())
    kept = runs.run_lengths(MONTANA, before)
    for row, length in enumerate(kept):
        start = row * 13
        assert cells[start:start + length] == before[start:start + length]
    assert runs.run_lengths(MONTANA, cells)[0] >= kept[0]
    assert Counter(cells) == Counter(before)
