"""Blue Moon (PySolFC 63), also Rangoon: all 52 cards, Aces at the head of the rows."""

from __future__ import annotations

from gapgrid import BLUE_MOON_LAYOUT, BlueMoonDeal, DealStyle, Layout, Registry, hookimpl


class BlueMoonRules:
    """Deal around column 0, then move the Aces to the head of the rows."""

    @hookimpl
    def gapgrid_layout(self) -> Layout:
        return BLUE_MOON_LAYOUT

    @hookimpl
    def gapgrid_deal_style(self) -> DealStyle:
        return BlueMoonDeal()


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="blue-moon", name="Blue Moon", base="montana", rules=BlueMoonRules(),
        other_names=("Rangoon",), pysolfc_id=63,
        summary="52 cards in 4 rows of 14, dealt around the first column; the Aces then "
                "move to the head of the rows, leaving four gaps. Montana's fills; build each "
                "row Ace to King in one suit. Two redeals.")
