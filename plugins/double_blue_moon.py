"""Double Blue Moon (PySolFC 770): Blue Moon with two decks in 8 rows."""

from __future__ import annotations

from gapgrid import BLUE_MOON_LAYOUT, Layout, Registry, hookimpl


class DoubleBlueMoonRules:
    """Two decks: eight rows of fourteen."""

    @hookimpl
    def gapgrid_layout(self) -> Layout:
        return BLUE_MOON_LAYOUT.with_decks(2)


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="double-blue-moon", name="Double Blue Moon", base="blue-moon",
        rules=DoubleBlueMoonRules(), pysolfc_id=770,
        summary="Blue Moon with two decks: 8 rows of 14, the eight Aces at the heads of "
                "the rows. Two redeals.")
