"""Galary (PySolFC 275): Red Moon with two-sided fills."""

from __future__ import annotations

from gapgrid.core.fills import GalaryFill
from gapgrid.core.hookspecs import hookimpl
from gapgrid.core.layout import Layout
from gapgrid.core.registry import Registry
from gapgrid.core.rules import FillRule


class GalaryRules:
    """A gap also takes the card one rank below its right neighbour."""

    @hookimpl
    def gapgrid_fill_rule(self, layout: Layout) -> FillRule:
        return GalaryFill(layout)


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="galary", name="Galary", base="red-moon", rules=GalaryRules(), pysolfc_id=275,
        summary="Red Moon, but a gap may also take the card one rank lower, same suit, than "
                "its right neighbour (for the last column: the first card of the next row).")
