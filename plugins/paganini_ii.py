"""Paganini II (PySolFC 759): Double Blue Moon with the Aces left in the grid and no redeal.

This is Paganini as David Parlett describes it (seed 000): the Aces may
move to a leftmost slot whenever the player chooses.
"""

from __future__ import annotations

from core.deals import BlueMoonDeal
from core.hookspecs import hookimpl
from core.registry import Registry
from core.rules import DealStyle


class PaganiniIIRules:
    """Aces stay where they land; no redeal."""

    @hookimpl
    def gapgrid_deal_style(self) -> DealStyle:
        return BlueMoonDeal(heads_to_column_0=False)

    @hookimpl
    def gapgrid_redeals(self) -> int:
        return 0


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="paganini-ii", name="Paganini II", base="double-blue-moon",
        rules=PaganiniIIRules(), pysolfc_id=759,
        summary="Two decks in 8 rows of 14 dealt around the first column; the Aces stay in "
                "the grid and may move to any empty first-column slot. Montana's fills. "
                "No redeal.")
