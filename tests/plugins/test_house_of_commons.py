"""House of Commons (PySolFC 794): Ace to 10 in rows of ten, one redeal."""

from __future__ import annotations

from gapgrid.core.cards import rank_of
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game
from gapgrid.core.notation import REDEAL


def test_house_of_commons_has_no_court_cards_and_one_redeal(catalogue: Catalogue) -> None:
    """36 cards 2-10 on a 4x10 grid; the second redeal is refused."""
    rules = catalogue.rules("house-of-commons")
    state = new_game(rules, parse_deal_number("794"))
    ranks = {rank_of(card) for card in state.board.cells if card is not None}
    assert ranks == set(range(1, 10))
    assert rules.layout.sequence_ranks == tuple(range(1, 10))
    refusal = state.apply(REDEAL).check(REDEAL)
    assert refusal is not None and refusal.reason == "no redeal left: the only redeal was used"
