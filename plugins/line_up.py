"""Line Up (PySolFC 795), also Pretzel: Ace to 6 in rows of six, the 6s removed, no redeal."""

from __future__ import annotations

from gapgrid import Layout, Registry, hookimpl

LINE_UP_LAYOUT = Layout(rows=4, rstep=6, rbase=0, ranks=range(6))
"""Twenty-four cards, Ace to 6, in four rows of six; rows run Ace to 5."""


class LineUpRules:
    """The small grid, and no redeal."""

    @hookimpl
    def gapgrid_layout(self) -> Layout:
        return LINE_UP_LAYOUT

    @hookimpl
    def gapgrid_redeals(self) -> int:
        return 0


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="line-up", name="Line Up", base="montana", rules=LineUpRules(),
        other_names=("Pretzel",), pysolfc_id=795,
        summary="24 cards (Ace to 6) in 4 rows of 6, the 6s removed: build each row Ace to "
                "5 in one suit with Montana's fills. No redeal.")
