"""Double Montana (PySolFC 877): Montana with two decks in 8 rows."""

from __future__ import annotations

from gapgrid import MONTANA_LAYOUT, Layout, Registry, hookimpl


class DoubleMontanaRules:
    """Two decks: eight rows of thirteen."""

    @hookimpl
    def gapgrid_layout(self) -> Layout:
        return MONTANA_LAYOUT.with_decks(2)


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="double-montana", name="Double Montana", base="montana",
        rules=DoubleMontanaRules(), pysolfc_id=877,
        summary="Montana with two decks: 8 rows of 13, eight gaps, two redeals.")
