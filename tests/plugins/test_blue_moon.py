"""Blue Moon (PySolFC 63), also Rangoon: Aces at the heads, rows Ace to King."""

from __future__ import annotations

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game
from tests.boards import position, solved_text
from tests.golden import records_for


def test_blue_moon_deals_aces_to_the_heads(catalogue: Catalogue) -> None:
    """Every recorded deal has the four Aces in column 0 and four gaps elsewhere."""
    for record in records_for("blue-moon"):
        rows = record["initial"]
        assert sorted(row[0] for row in rows) == ["AC", "AD", "AH", "AS"]
        assert sum(row.count(None) for row in rows) == 4


def test_blue_moon_win_is_ace_to_king_rows(catalogue: Catalogue) -> None:
    """Rows Ace to King in one suit with the gap last are a win; two redeals by default."""
    rules = catalogue.rules("rangoon")
    assert position(rules, solved_text(rules.layout)).is_won
    assert rules.redeals == 2
    assert new_game(rules, parse_deal_number("63")).redeals_left == 2
