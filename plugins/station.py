"""Station (PySolFC 858): Montana whose redeals leave the gaps in the last column."""

from __future__ import annotations

from gapgrid import GapsInLastColumn, RedealPlacement, Registry, hookimpl


class StationRules:
    """After a redeal the gaps are the last slot of each row."""

    @hookimpl
    def gapgrid_redeal_placement(self) -> RedealPlacement:
        return GapsInLastColumn()


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="station", name="Station", base="montana", rules=StationRules(), pysolfc_id=858,
        summary="Montana, but a redeal leaves the gaps in the last column of each row.")
