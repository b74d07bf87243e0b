"""The fill rules: which card may enter a gap, on boards a person can check by eye."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gapgrid.core.board import Board
from gapgrid.core.fills import (
    AscendingFill,
    GalaryFill,
    JungleFill,
    MontanaFill,
    RoversFill,
)
from gapgrid.core.layout import Layout
from gapgrid.core.left_card_moves import card_index
from gapgrid.core.rules import FillRule
from tests.boards import board_from_text

# A small Montana-like grid keeps boards readable: 4 rows of 4, rows 2-4.
SMALL = Layout(rows=4, rstep=4, rbase=1, ranks=range(4))
SMALL_BOARD = """
2C 3C .. 4S
3S .. 2S 4H
.. 4C 3H 2D
2H 3D 4D ..
"""
BLUE_MOON = Layout(rows=4, rstep=14, rbase=0)


def _slot(board: Board, code: str) -> int:
    from gapgrid.core.cards import parse_card
    return board.slots_of(parse_card(code))[0]


def test_montana_takes_the_next_card_of_the_left_suit() -> None:
    """A gap after 3C takes 4C and nothing else."""
    board = board_from_text(SMALL, SMALL_BOARD)
    fill = MontanaFill(SMALL)
    assert fill.sources(board.cells, 2) == [_slot(board, "4C")]
    assert not fill.accepts(board.cells, _slot(board, "4S"), 2)
    refusal = fill.refusal(board.cells, _slot(board, "4S"), 2)
    assert refusal == "4S does not fit after 3C: only 4C does"


def test_montana_first_column_takes_any_rbase_card_from_anywhere() -> None:
    """Column 0 takes any 2, even one already heading another row."""
    board = board_from_text(SMALL, SMALL_BOARD)
    fill = MontanaFill(SMALL)
    twos = sorted(_slot(board, code) for code in ("2C", "2S", "2D", "2H"))
    assert fill.sources(board.cells, 8) == twos
    assert "first column" in fill.refusal(board.cells, _slot(board, "3S"), 8)


def test_montana_gap_after_a_gap_or_the_top_rank_is_dead() -> None:
    """Nothing fills a gap right of a gap, nor right of the highest rank."""
    layout = SMALL
    board = board_from_text(layout, """
2C 3C 4C ..
3S .. .. 4H
2S 4S 3H 2D
2H 3D 4D ..
""")
    fill = MontanaFill(layout)
    assert fill.sources(board.cells, 3) == []
    assert "nothing follows 4C" in fill.refusal(board.cells, _slot(board, "3H"), 3)
    assert fill.sources(board.cells, 6) == []
    assert "on its left is a gap" in fill.refusal(board.cells, _slot(board, "3H"), 6)


def test_paganini_six_follows_the_ace() -> None:
    """With ranks A, 6..K the 6 of the suit fills the gap after its Ace; the 2 does not exist."""
    layout = Layout(rows=4, rstep=10, rbase=0, ranks=(0, 5, 6, 7, 8, 9, 10, 11, 12))
    rows = ["AC .. 7C 8C 9C TC JC QC KC 6H",
            "AS 6S 7S 8S 9S TS JS QS KS ..",
            "AH 6C 7H 8H 9H TH JH QH KH ..",
            "AD 6D 7D 8D 9D TD JD QD KD .."]
    board = board_from_text(layout, "\n".join(rows))
    fill = MontanaFill(layout)
    assert fill.sources(board.cells, 1) == [_slot(board, "6C")]


def test_galary_also_takes_the_card_below_the_right_neighbour() -> None:
    """A gap between 3C and 4H takes 4C (after 3C) or 3H (before 4H)."""
    board = board_from_text(SMALL, """
2C 3C .. 4H
3S .. 2S 4S
.. 4C 3H 2D
2H 3D 4D ..
""")
    fill = GalaryFill(SMALL)
    assert sorted(fill.sources(board.cells, 2)) == sorted([_slot(board, "4C"), _slot(board, "3H")])
    assert "fits neither after 3C nor before 4H" in fill.refusal(
        board.cells, _slot(board, "4S"), 2)


def test_galary_right_neighbour_of_the_last_column_is_the_next_rows_first() -> None:
    """As in PySolFC, a last-column gap looks right at column 0 of the next row."""
    board = board_from_text(SMALL, """
2C 3C 4C ..
4H 2S 3S 4S
2H 3H .. 2D
.. 3D 4D ..
""")
    fill = GalaryFill(SMALL)
    # Slot 3 ends row 1; slot 4 (next row's first) holds 4H, so 3H may go to slot 3.
    assert fill.accepts(board.cells, _slot(board, "3H"), 3)
    # The last slot of the board has no right neighbour at all.
    assert fill.sources(board.cells, 15) == []


def test_galary_first_column_is_montanas() -> None:
    """Column 0 takes only the RBASE rank, whatever its right neighbour."""
    board = board_from_text(SMALL, """
2C 3C 4C ..
.. 4H 3S 4S
2H 3H 2S 2D
3D .. 4D ..
""")
    fill = GalaryFill(SMALL)
    assert fill.sources(board.cells, 4) == sorted(
        _slot(board, code) for code in ("2C", "2H", "2S", "2D"))


def test_jungle_takes_one_rank_higher_of_any_suit() -> None:
    """A gap after 3C takes any 4."""
    board = board_from_text(SMALL, SMALL_BOARD)
    fill = JungleFill(SMALL)
    fours = sorted(_slot(board, code) for code in ("4C", "4S", "4H", "4D"))
    assert fill.sources(board.cells, 2) == fours
    assert "only a 4 of any suit" in fill.refusal(board.cells, _slot(board, "3H"), 2)


def test_ascending_takes_any_higher_card_of_the_suit() -> None:
    """Spaces and Aces: after 5S comes any higher spade, not a lower one or another suit."""
    board = board_from_text(BLUE_MOON, """
AS 5S .. 2S 9S KS 3H 4H 5H 6H 7H 8H 9H TH
AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC ..
AH 2H JH QH KH 3S 4S 6S 7S 8S TS JS QS ..
AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD ..
""")
    fill = AscendingFill(BLUE_MOON)
    spades_above_5 = sorted(_slot(board, code) for code in
                            ("6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS"))
    assert fill.sources(board.cells, 2) == spades_above_5
    assert not fill.accepts(board.cells, _slot(board, "2S"), 2)


def test_rovers_slide_any_orthogonal_neighbour() -> None:
    """Any card left, right, above or below slides in; nothing wraps round an edge."""
    layout = Layout(rows=4, rstep=6, rbase=0, ranks=range(6))
    board = board_from_text(layout, """
AC 2C 3C 4C 5C ..
AS 2S 3S 4S .. 5S
AH 2H 3H 4H 5H ..
.. AD 2D 3D 4D 5D
""")
    fill = RoversFill(layout)
    assert fill.sources(board.cells, 5) == [4, 11]
    assert fill.sources(board.cells, 18) == [12, 19]  # not 17, the end of the row above
    assert not fill.accepts(board.cells, 17, 18)
    assert "not beside it" in fill.refusal(board.cells, 0, 5)


FILL_RULES = [MontanaFill, GalaryFill, JungleFill, AscendingFill, RoversFill]
EVERY_RULE = pytest.mark.parametrize("make_rule", FILL_RULES)
EVERY_LAYOUT = pytest.mark.parametrize(
    "layout", [SMALL, BLUE_MOON, Layout(rows=4, rstep=13, rbase=1), BLUE_MOON.with_decks(2)],
    ids=["small", "blue-moon", "montana", "double"])
"""The random boards below: every fill rule on layouts of one and two decks."""


def _random_board(layout: Layout) -> st.SearchStrategy[list[int | None]]:
    deck = [card for card in layout.deck_cards() if card % 13 not in layout.set_aside_ranks]
    cells: list[int | None] = [*deck, *[None] * (layout.rlen - len(deck))]
    return st.permutations(cells)


@EVERY_RULE
@EVERY_LAYOUT
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_sources_agree_with_accepts(make_rule: type, layout: Layout, data: st.DataObject) -> None:
    """The fast list of sources is exactly the slots accepts() says yes to, on any board."""
    cells = data.draw(_random_board(layout))
    rule: FillRule = make_rule(layout)
    for target, held in enumerate(cells):
        if held is None:
            expected = [slot for slot, card in enumerate(cells)
                        if card is not None and rule.accepts(cells, slot, target)]
            assert sorted(rule.sources(cells, target)) == expected
            for slot, card in enumerate(cells):
                if card is not None and slot not in expected:
                    assert rule.refusal(cells, slot, target)


@EVERY_RULE
@EVERY_LAYOUT
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_pairs_are_every_move_accepts_allows(make_rule: type, layout: Layout,
                                             data: st.DataObject) -> None:
    """The searches' list of moves (one loop for gapgrid's own rules, through sources() for
    rules that change which cards a gap wants) is exactly the moves accepts() says yes
    to, gap by gap in the order given, each gap's sources in slot order."""
    cells = data.draw(_random_board(layout))
    rule = make_rule(layout)
    gaps = [slot for slot, held in enumerate(cells) if held is None]
    targets = data.draw(st.permutations(gaps))
    expected = [(slot, target) for target in targets for slot, card in enumerate(cells)
                if card is not None and rule.accepts(cells, slot, target)]
    assert rule.pairs(cells, targets, card_index(cells)) == expected
