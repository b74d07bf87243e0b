"""Galary (PySolFC 275): Red Moon with two-sided fills (shared with Free Parking)."""

from __future__ import annotations

from gapgrid import GalaryRules, Registry, hookimpl


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="galary", name="Galary", base="red-moon", rules=GalaryRules(), pysolfc_id=275,
        summary="Red Moon, but a gap may also take the card one rank lower, same suit, than "
                "its right neighbour (for the last column: the first card of the next row).")
