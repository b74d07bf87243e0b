"""Spaces and Aces (PySolFC 381): Blue Moon's grid, Aces left where they land, ascending fills."""

from __future__ import annotations

from gapgrid import AcesStayRules, AscendingFill, FillRule, Layout, Registry, hookimpl


class SpacesAndAcesRules(AcesStayRules):
    """Aces stay where they land, no redeal, and a gap takes any higher card of its suit."""

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
