"""Diagonal Gaps: Montana where a gap may also follow its upper-left neighbour.

A complete third-party gapgrid plugin. gapgrid finds it through the
``gapgrid`` entry point declared in pyproject.toml, calls
``gapgrid_register`` once, and from then on builds every Diagonal Gaps game
from the baseline Montana rules plus :class:`DiagonalRules`.
"""

from __future__ import annotations

from collections.abc import Sequence

from gapgrid import Cells, FillRule, Layout, MontanaFill, Registry, card_code, hookimpl


class DiagonalFill(MontanaFill):
    """Montana's fill, or the card that follows the one diagonally up and to the left."""

    __slots__ = ("diagonal",)

    def __init__(self, layout: Layout) -> None:
        super().__init__(layout)
        # One table, computed once: the slot up and to the left of each slot
        # (None on the top row and in column 0).
        self.diagonal: list[int | None] = []
        for slot in layout.slots:
            left = layout.left_of(slot)
            above = layout.slot_at(layout.row_of(slot) - 1, layout.column_of(slot) - 1)
            self.diagonal.append(None if left is None or layout.row_of(slot) == 0 else above)

    def wanted(self, cells: Cells, target: int) -> Sequence[int]:
        by_left = super().wanted(cells, target)
        diagonal = self.diagonal[target]
        diagonal_card = None if diagonal is None else cells[diagonal]
        if diagonal_card is None:
            return by_left
        return (*by_left, *self.next_cards(diagonal_card))

    def refusal(self, cells: Cells, source: int, target: int) -> str:
        diagonal = self.diagonal[target]
        if diagonal is None or cells[diagonal] is None:
            return super().refusal(cells, source, target)
        diagonal_card = cells[diagonal]
        assert diagonal_card is not None
        return (f"{super().refusal(cells, source, target)}, and it does not follow "
                f"{card_code(diagonal_card)} diagonally either")


class DiagonalRules:
    """The only rule that differs from Montana: the fill."""

    @hookimpl
    def gapgrid_fill_rule(self, layout: Layout) -> FillRule:
        return DiagonalFill(layout)


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    """Add Diagonal Gaps, built on Montana, to gapgrid's catalogue."""
    registry.add_variant(
        slug="diagonal-gaps", name="Diagonal Gaps", base="montana", rules=DiagonalRules(),
        other_names=("Diagonal Montana",),
        summary="Montana, but a gap may also take the card one rank higher, same suit, "
                "than the card diagonally above and to its left. Two redeals.")
