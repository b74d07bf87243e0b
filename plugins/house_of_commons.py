"""House of Commons (PySolFC 794): Montana with the cards Ace to 10 in rows of ten."""

from __future__ import annotations

from gapgrid import Layout, Registry, hookimpl

HOUSE_OF_COMMONS_LAYOUT = Layout(rows=4, rstep=10, rbase=1, ranks=range(10))


class HouseOfCommonsRules:
    """Forty cards, Ace to 10, four rows of ten; one redeal."""

    @hookimpl
    def gapgrid_layout(self) -> Layout:
        return HOUSE_OF_COMMONS_LAYOUT

    @hookimpl
    def gapgrid_redeals(self) -> int:
        return 1


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="house-of-commons", name="House of Commons", base="montana",
        rules=HouseOfCommonsRules(), pysolfc_id=794,
        summary="Montana with 40 cards (Ace to 10) in 4 rows of 10, Aces removed: build "
                "each row 2 to 10 in one suit. One redeal.")
