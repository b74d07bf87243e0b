"""Spaces and Aces (PySolFC 381): Blue Moon's grid, Aces left where they land, ascending fills."""

from __future__ import annotations

from gapgrid.core.deals import BlueMoonDeal
from gapgrid.core.fills import AscendingFill
from gapgrid.core.hookspecs import hookimpl
from gapgrid.core.layout import Layout
from gapgrid.core.registry import Registry
from gapgrid.core.rules import DealStyle, FillRule


class AcesStayRules:
    """The Aces stay where the deal puts them, and there is no redeal (also Paganini II)."""

    @hookimpl
    def gapgrid_deal_style(self) -> DealStyle:
        return BlueMoonDeal(heads_to_column_0=False)

    @hookimpl
    def gapgrid_redeals(self) -> int:
        return 0


class SpacesAndAcesRules(AcesStayRules):
    """And a gap takes any higher card of its left neighbour's suit."""

    @hookimpl
    def gapgrid_fill_rule(self, layout: Layout) -> FillRule:
        return AscendingFill(layout)


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="spaces-and-aces", name="Spaces and Aces", base="blue-moon",
        rules=SpacesAndAcesRules(), pysolfc_id=381,
        summary="52 cards in 4 rows of 14 dealt around the first column; the Aces stay "
                "where they land. A gap takes any higher card of its left neighbour's suit; "
                "the first column takes an Ace. No redeal.")
