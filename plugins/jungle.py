"""Jungle (PySolFC 380): Blue Moon where a gap takes any suit, one redeal."""

from __future__ import annotations

from gapgrid import FillRule, JungleFill, Layout, Registry, hookimpl


class JungleRules:
    """A gap takes a card one rank higher than its left neighbour, of any suit."""

    @hookimpl
    def gapgrid_fill_rule(self, layout: Layout) -> FillRule:
        return JungleFill(layout)

    @hookimpl
    def gapgrid_redeals(self) -> int:
        return 1


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="jungle", name="Jungle", base="blue-moon", rules=JungleRules(), pysolfc_id=380,
        summary="Blue Moon, but a gap takes any card one rank higher than its left "
                "neighbour, whatever its suit. Rows must still end in one suit. One redeal.")
