"""Double Red Moon (PySolFC 771): Double Blue Moon dealt the Red Moon way."""

from __future__ import annotations

from gapgrid import RedMoonRules, Registry, hookimpl


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="double-red-moon", name="Double Red Moon", base="double-blue-moon",
        rules=RedMoonRules(), pysolfc_id=771,
        summary="Red Moon with two decks: 8 rows of 14, the eight Aces dealt to the first "
                "column. Two redeals.")
