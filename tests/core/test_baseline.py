"""The baseline's won rule, and the claim the engine relies on: a won game allows no move."""

from __future__ import annotations

import attrs

from gapgrid.core.baseline import AllRowsFinished, won_leaves_no_move
from gapgrid.core.board import Board
from gapgrid.core.cards import parse_card
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.fills import JungleFill, MontanaFill
from gapgrid.core.game import new_game
from gapgrid.core.layout import Layout
from gapgrid.core.left_card_moves import card_index
from gapgrid.core.notation import Move
from gapgrid.core.replay import replay_from
from tests.boards import board_from_text, solved_text


def test_a_won_position_allows_no_move_where_the_engine_skips_the_check(
        catalogue: Catalogue) -> None:
    """For every variant where the engine skips the won check, no fill move exists once won."""
    skipped = 0
    for slug in catalogue.slugs():
        rules = catalogue.rules(slug)
        if not won_leaves_no_move(rules.fill, rules.won, rules.layout):
            continue
        skipped += 1
        cells = board_from_text(rules.layout, solved_text(rules.layout)).cells
        assert rules.won.is_won(cells), slug
        where = card_index(cells)
        gaps = [slot for slot, card in enumerate(cells) if card is None]
        assert all(rules.fill.sources(cells, gap, where) == [] for gap in gaps), slug
    assert skipped >= 15


def test_rovers_keep_the_won_check(catalogue: Catalogue) -> None:
    """Rectangular Rovers' slides stay possible in a won position: the engine must ask."""
    rules = catalogue.rules("rectangular-rovers")
    assert not won_leaves_no_move(rules.fill, rules.won, rules.layout)
    cells = board_from_text(rules.layout, solved_text(rules.layout)).cells
    gaps = [slot for slot, card in enumerate(cells) if card is None]
    assert any(rules.fill.sources(cells, gap) for gap in gaps)


def test_a_won_game_on_rows_longer_than_the_sequence_refuses_a_move(
        catalogue: Catalogue) -> None:
    """A third party's rows of 8 slots for a sequence of 2 ranks: won, the position still has
    gaps right of cards that are not the sequence's last (4D's, 3D's), which Montana's and
    Jungle's fills would fill; the engine asks whether the game is won, and refuses."""
    layout = Layout(rows=2, rstep=8, rbase=2, ranks=range(4))
    codes = ["3C", "4C", "3H", None, None, None, "4D", None,
             "3S", "4S", None, None, "3D", None, "4H", None]
    cells = tuple(None if code is None else parse_card(code) for code in codes)
    for fill, move in ((MontanaFill, Move(14, 3)), (JungleFill, Move(1, 3))):
        assert not won_leaves_no_move(fill(layout), AllRowsFinished(layout), layout)
        rules = attrs.evolve(catalogue.rules("montana", {"redeals": "0"}), slug="small",
                             layout=layout, fill=fill(layout), won=AllRowsFinished(layout))
        state = attrs.evolve(new_game(rules, DealNumber(1)), board=Board(layout, cells),
                             history=None)
        assert state.is_won
        assert fill(layout).accepts(cells, move.source, move.target)  # were it not won
        result = replay_from(state, [move])
        assert not result.ok and result.error is not None and result.error.kind == "won"
