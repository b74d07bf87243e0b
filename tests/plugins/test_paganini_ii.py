"""Paganini II (PySolFC 759): two decks, the Aces stay in the grid, no redeal."""

from __future__ import annotations

from gapgrid.core.cards import card_code
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game
from gapgrid.core.notation import Move


def test_paganini_ii_aces_may_move_to_any_empty_head(catalogue: Catalogue) -> None:
    """Column 0 starts empty; every Ace may move into it; nothing else may; no redeal."""
    rules = catalogue.rules("paganini-ii")
    state = new_game(rules, parse_deal_number("759"))
    assert state.board.gaps() == list(rules.layout.row_starts())
    into_head = [move for move in state.legal_moves() if move.target == 0]
    aces = [slot for slot, card in enumerate(state.board.cells)
            if card is not None and card_code(card)[0] == "A"]
    assert [move.source for move in into_head] == aces and len(aces) == 8
    assert Move(aces[0], 0) in state.legal_moves()
    assert rules.redeals == 0 and rules.layout.decks == 2
