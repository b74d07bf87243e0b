"""Paganini II (PySolFC 759): Double Blue Moon with the Aces left in the grid and no redeal.

This is Paganini as David Parlett describes it (seed 000): the Aces may
move to a leftmost slot whenever the player chooses.
"""

from __future__ import annotations

from gapgrid import AcesStayRules, Registry, hookimpl


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="paganini-ii", name="Paganini II", base="double-blue-moon",
        rules=AcesStayRules(), pysolfc_id=759,
        summary="Two decks in 8 rows of 14 dealt around the first column; the Aces stay in "
                "the grid and may move to any empty first-column slot. Montana's fills. "
                "No redeal.")
