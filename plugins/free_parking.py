"""Free Parking (PySolFC 276), also Moonlight and Park and Ride: Montana with two-sided fills."""

from __future__ import annotations

from core.fills import GalaryFill
from core.hookspecs import hookimpl
from core.layout import Layout
from core.registry import Registry
from core.rules import FillRule


class FreeParkingRules:
    """A gap also takes the card one rank below its right neighbour."""

    @hookimpl
    def gapgrid_fill_rule(self, layout: Layout) -> FillRule:
        return GalaryFill(layout)


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="free-parking", name="Free Parking", base="montana", rules=FreeParkingRules(),
        other_names=("Moonlight", "Park and Ride"), pysolfc_id=276,
        summary="Montana, but a gap may also take the card one rank lower, same suit, than "
                "its right neighbour (for the last column: the first card of the next row).")
