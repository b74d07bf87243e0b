"""Rectangular Rovers (PySolFC 993): Line Up where any neighbour slides into a gap."""

from __future__ import annotations

from gapgrid import FillRule, Layout, Registry, RoversFill, hookimpl


class RectangularRoversRules:
    """Any card left, right, above or below a gap may slide into it."""

    @hookimpl
    def gapgrid_fill_rule(self, layout: Layout) -> FillRule:
        return RoversFill(layout)


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="rectangular-rovers", name="Rectangular Rovers", base="line-up",
        rules=RectangularRoversRules(), pysolfc_id=993,
        summary="Line Up's 24 cards, but any card beside a gap (left, right, above or "
                "below) may slide into it, whatever it is. No redeal.")
