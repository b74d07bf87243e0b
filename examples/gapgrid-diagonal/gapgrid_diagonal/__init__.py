"""Diagonal Gaps: Montana where a gap may also follow its upper-left neighbour.

A complete third-party gapgrid plugin. gapgrid finds it through the
``gapgrid`` entry point declared in pyproject.toml, calls
``gapgrid_register`` once, and from then on builds every Diagonal Gaps game
from the baseline Montana rules plus :class:`DiagonalRules`.
"""

from __future__ import annotations

from gapgrid.core.cards import card_code
from gapgrid.core.fills import MontanaFill
from gapgrid.core.hookspecs import hookimpl
from gapgrid.core.layout import Layout
from gapgrid.core.registry import Registry
from gapgrid.core.rules import FillRule
from gapgrid.core.runs import Cells


class DiagonalFill(MontanaFill):
    """Montana's fill, or the card that follows the one diagonally up and to the left."""

    def diagonal_of(self, target: int) -> int | None:
        """Return the slot up and to the left of ``target``, or None at the top or left edge."""
        left = self.layout.left_of(target)
        if left is None or self.layout.row_of(target) == 0:
            return None
        return left - self.layout.rstep

    def accepts(self, cells: Cells, source: int, target: int) -> bool:
        if super().accepts(cells, source, target):
            return True
        diagonal = self.diagonal_of(target)
        if diagonal is None or cells[diagonal] is None:
            return False
        return self.successor[cells[diagonal]] == cells[source]

    def sources(self, cells: Cells, target: int) -> list[int]:
        found = set(super().sources(cells, target))
        diagonal = self.diagonal_of(target)
        if diagonal is not None and cells[diagonal] is not None:
            wanted = self.successor[cells[diagonal]]
            found.update(slot for slot, card in enumerate(cells) if card == wanted)
        return sorted(found)

    def refusal(self, cells: Cells, source: int, target: int) -> str:
        diagonal = self.diagonal_of(target)
        if diagonal is None or cells[diagonal] is None:
            return super().refusal(cells, source, target)
        card, diagonal_card = cells[source], cells[diagonal]
        assert card is not None and diagonal_card is not None
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
