"""Paganini (PySolFC 706), also Long Trip: Blue Moon with the 2s to 5s stripped out."""

from __future__ import annotations

from gapgrid import Layout, Registry, hookimpl

PAGANINI_LAYOUT = Layout(rows=4, rstep=10, rbase=0, ranks=(0, 5, 6, 7, 8, 9, 10, 11, 12))
"""Thirty-six cards, Ace and 6 to King, in four rows of ten: the 6 follows the Ace."""


class PaganiniRules:
    """The stripped deck, and one redeal."""

    @hookimpl
    def gapgrid_layout(self) -> Layout:
        return PAGANINI_LAYOUT

    @hookimpl
    def gapgrid_redeals(self) -> int:
        return 1


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="paganini", name="Paganini", base="blue-moon", rules=PaganiniRules(),
        other_names=("Long Trip",), pysolfc_id=706,
        summary="Blue Moon with 36 cards (Ace and 6 to King) in 4 rows of 10: the 6 "
                "follows the Ace. One redeal.")
