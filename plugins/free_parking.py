"""Free Parking (PySolFC 276), also Moonlight and Park and Ride: Montana with Galary's fills."""

from __future__ import annotations

from gapgrid import GalaryRules, Registry, hookimpl


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="free-parking", name="Free Parking", base="montana", rules=GalaryRules(),
        other_names=("Moonlight", "Park and Ride"), pysolfc_id=276,
        summary="Montana, but a gap may also take the card one rank lower, same suit, than "
                "its right neighbour (for the last column: the first card of the next row).")
