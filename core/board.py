"""An immutable, hashable grid of cards and gaps."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from gapgrid.core import runs
from gapgrid.core.cards import CardCodeError, card_code, parse_card
from gapgrid.core.layout import Layout


class BoardError(ValueError):
    """Raised for rows that do not make a board of the given layout."""


def _to_cells(cells: Iterable[int | None]) -> tuple[int | None, ...]:
    return tuple(cells)


@attrs.frozen
class Board:
    """What every slot holds: a card (see :mod:`core.cards`) or None for a gap."""

    layout: Layout
    """The geometry the cells are laid out in."""

    cells: tuple[int | None, ...] = attrs.field(converter=_to_cells)
    """The slots' contents in reading order (slot 0 first)."""

    def __attrs_post_init__(self) -> None:
        if len(self.cells) != self.layout.rlen:
            raise BoardError(f"a {self.layout.rows}x{self.layout.rstep} board has "
                             f"{self.layout.rlen} slots, not {len(self.cells)}")

    @classmethod
    def from_rows(cls, layout: Layout, rows: Sequence[Sequence[str | None]]) -> Board:
        """Build a board from rows of card codes (``"TD"``, ``"10d"``) and None for gaps."""
        if len(rows) != layout.rows:
            raise BoardError(f"expected {layout.rows} rows, got {len(rows)}")
        cells: list[int | None] = []
        for number, row in enumerate(rows, start=1):
            if len(row) != layout.rstep:
                raise BoardError(f"row {number} has {len(row)} slots, not {layout.rstep}")
            for code in row:
                try:
                    cells.append(None if code is None else parse_card(code))
                except CardCodeError as error:
                    raise BoardError(f"row {number}: {error}") from None
        return cls(layout, cells)

    def to_rows(self) -> list[list[str | None]]:
        """Return rows of card codes, None for a gap (the golden-game format)."""
        codes = [None if card is None else card_code(card) for card in self.cells]
        return [codes[row.start:row.stop] for row in self.layout.iter_rows()]

    def card_at(self, slot: int) -> int | None:
        """Return the card in ``slot``, or None for a gap."""
        return self.cells[slot]

    def gaps(self) -> list[int]:
        """Return the empty slots in reading order."""
        return [slot for slot, card in enumerate(self.cells) if card is None]

    def slots_of(self, card: int) -> list[int]:
        """Return the slots that hold ``card`` (two in a two-deck game)."""
        return [slot for slot, held in enumerate(self.cells) if held == card]

    def run_lengths(self) -> list[int]:
        """Return each row's run length (see :mod:`core.runs`)."""
        return runs.run_lengths(self.layout, self.cells)

    def cards_in_sequence(self) -> int:
        """Return the number of cards standing in runs."""
        return runs.cards_in_sequence(self.layout, self.cells)

    def finished_rows(self) -> int:
        """Return the number of rows whose run is complete."""
        return runs.finished_rows(self.layout, self.cells)
