"""Galary (PySolFC 275): Red Moon with two-sided fills."""

from __future__ import annotations

from core.fills import GalaryFill
from core.hookspecs import hookimpl
from core.layout import Layout
from core.registry import Registry
from core.rules import FillRule


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
