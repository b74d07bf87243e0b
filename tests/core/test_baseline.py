"""The baseline's won rule, and the claim the engine relies on: a won game allows no move."""

from __future__ import annotations

from gapgrid.core.baseline import won_leaves_no_move
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.left_card_moves import card_index
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
