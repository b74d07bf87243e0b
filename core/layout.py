"""The geometry of a gap game: PySolFC's RLEN, RSTEP and RBASE as one value.

Slots are numbered row by row from 0, exactly as PySolFC numbers its row
stacks (slot = row * RSTEP + column), and every rule asks the layout for
positions through the small helpers below instead of doing slot arithmetic
itself: no rule ever names a slot number.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from typing import Final

import attrs

from gapgrid.core.cards import KING, RANKS_PER_SUIT, SUITS, make_card

NO_SLOT = -1
"""What the slot tables below hold where there is no such slot (e.g. left of column 0)."""


def _to_ranks(ranks: Iterable[int]) -> tuple[int, ...]:
    return tuple(ranks)


def _check_ranks(instance: Layout, attribute: attrs.Attribute[tuple[int, ...]],
                 ranks: tuple[int, ...]) -> None:
    if not ranks or list(ranks) != sorted(set(ranks)) or ranks[0] < 0 or ranks[-1] > KING:
        raise ValueError(f"ranks must be distinct ranks 0-12 in increasing order, not {ranks}")


MAX_DECKS: Final = 4
"""Decks a layout may have at most (gapgrid's own have two at most): every position, key and
table grows with the cards, so a layout of 100 decks took a search 2.5 GB in seconds."""

MAX_ROWS: Final = 32
"""Rows a layout may have at most (gapgrid's own have eight at most)."""

MAX_ROW_LENGTH: Final = 64
"""Slots a row may have at most (gapgrid's own have fourteen at most)."""


@attrs.frozen
class Layout:
    """Rows of slots, the rank that heads a finished row, and the cards in play."""

    rows: int = attrs.field(validator=[attrs.validators.ge(1), attrs.validators.le(MAX_ROWS)])
    """Number of rows (PySolFC: RLEN // RSTEP)."""

    rstep: int = attrs.field(validator=[attrs.validators.ge(2),
                                        attrs.validators.le(MAX_ROW_LENGTH)])
    """Slots per row (PySolFC: RSTEP)."""

    rbase: int = attrs.field(validator=[attrs.validators.ge(0), attrs.validators.le(KING)])
    """Rank that heads a finished row, Ace = 0 (PySolFC: RBASE)."""

    decks: int = attrs.field(default=1, validator=[attrs.validators.ge(1),
                                                   attrs.validators.le(MAX_DECKS)])
    """Number of full decks the cards come from."""

    ranks: tuple[int, ...] = attrs.field(default=tuple(range(RANKS_PER_SUIT)),
                                         converter=_to_ranks, validator=_check_ranks)
    """Ranks the game's cards have (PySolFC's ``GameInfo.ranks``), in order."""

    def __attrs_post_init__(self) -> None:
        if self.rbase not in self.ranks:
            raise ValueError(f"rbase {self.rbase} is not among the ranks {self.ranks}")

    @property
    def rlen(self) -> int:
        """Number of slots (PySolFC: RLEN)."""
        return self.rows * self.rstep

    @functools.cached_property
    def sequence_ranks(self) -> tuple[int, ...]:
        """Ranks of a finished row from column 0 on, in order.

        The ranks in play from RBASE upward, as many as fit before the last
        column: Montana's 2..K, Blue Moon's A..K, Paganini's A, 6..K.
        """
        return tuple(rank for rank in self.ranks if rank >= self.rbase)[: self.rstep - 1]

    @property
    def set_aside_ranks(self) -> tuple[int, ...]:
        """Ranks in play that no finished row holds (Montana's Aces)."""
        in_sequence = set(self.sequence_ranks)
        return tuple(rank for rank in self.ranks if rank not in in_sequence)

    @property
    def slots(self) -> range:
        """Every slot number, in reading order."""
        return range(self.rlen)

    def row_of(self, slot: int) -> int:
        """Return the row (from 0) that holds ``slot``."""
        return slot // self.rstep

    def column_of(self, slot: int) -> int:
        """Return the column (from 0) of ``slot``."""
        return slot % self.rstep

    def slot_at(self, row: int, column: int) -> int:
        """Return the slot at ``row`` and ``column`` (both from 0)."""
        return row * self.rstep + column

    def row_slots(self, row: int) -> range:
        """Return the slots of ``row``, left to right."""
        start = row * self.rstep
        return range(start, start + self.rstep)

    def row_starts(self) -> range:
        """Return the slot in column 0 of every row, top to bottom."""
        return range(0, self.rlen, self.rstep)

    @functools.cached_property
    def row_start_slots(self) -> tuple[int, ...]:
        """:meth:`row_starts` as a table, for the searches' loops (no call each time)."""
        return tuple(self.row_starts())

    def last_column_slots(self) -> list[int]:
        """Return the slot in the last column of every row, top to bottom."""
        return [start + self.rstep - 1 for start in self.row_starts()]

    def is_row_start(self, slot: int) -> bool:
        """Tell whether ``slot`` is in column 0."""
        return slot % self.rstep == 0

    def left_of(self, slot: int) -> int | None:
        """Return the slot left of ``slot`` in its row, or None in column 0."""
        return None if slot % self.rstep == 0 else slot - 1

    def right_of(self, slot: int) -> int | None:
        """Return the slot right of ``slot`` in its row, or None in the last column."""
        return None if slot % self.rstep == self.rstep - 1 else slot + 1

    def neighbours(self, slot: int) -> list[int]:
        """Return the orthogonal neighbours of ``slot`` (no wrapping at edges)."""
        found = []
        if slot >= self.rstep:
            found.append(slot - self.rstep)
        left = self.left_of(slot)
        if left is not None:
            found.append(left)
        right = self.right_of(slot)
        if right is not None:
            found.append(right)
        if slot + self.rstep < self.rlen:
            found.append(slot + self.rstep)
        return found

    def contains(self, slot: int) -> bool:
        """Tell whether ``slot`` is on the board."""
        return 0 <= slot < self.rlen

    def deck_cards(self) -> list[int]:
        """Return every card of the game in PySolFC's creation order.

        Deck by deck, suit by suit (Clubs, Spades, Hearts, Diamonds), rank by
        rank over :attr:`ranks`: the list PySolFC shuffles.
        """
        return [make_card(rank, suit)
                for _ in range(self.decks) for suit in range(SUITS) for rank in self.ranks]

    def with_decks(self, decks: int) -> Layout:
        """Return this layout for ``decks`` decks: the same rows, repeated once per deck."""
        return attrs.evolve(self, decks=decks, rows=self.rows // self.decks * decks)

    @functools.cached_property
    def left_slots(self) -> tuple[int, ...]:
        """For each slot, the slot on its left, or :data:`NO_SLOT` in column 0 (for rules)."""
        return tuple(NO_SLOT if left is None else left
                     for left in (self.left_of(slot) for slot in self.slots))

    @functools.cached_property
    def row_ranges(self) -> tuple[range, ...]:
        """The slots of each row, top to bottom (a table for loops over rows)."""
        return tuple(self.row_slots(row) for row in range(self.rows))

    @functools.cached_property
    def row_tails(self) -> tuple[tuple[tuple[int, int, tuple[int, ...]], ...], ...]:
        """For each row, and each count of slots kept from column 0 (0 to RSTEP), the rest
        of the row as (first slot, end, its slots): what a redeal gathers, as a table.

        A redeal extends its list of gathered slots from these tuples in one C
        call, instead of building the ints of a range again for every row.
        """
        return tuple(tuple((first, row.stop, tuple(range(first, row.stop)))
                           for first in range(row.start, row.stop + 1))
                     for row in self.row_ranges)

    @functools.cached_property
    def slot_rows(self) -> tuple[int, ...]:
        """For each slot, its row (a table for loops over many slots)."""
        return tuple(self.row_of(slot) for slot in self.slots)

    @functools.cached_property
    def run_end_slots(self) -> tuple[int, ...]:
        """For each row, the slot where a full run ends (a finished row's last card)."""
        return tuple(start + len(self.sequence_ranks) - 1 for start in self.row_starts())

    @functools.cached_property
    def next_slots(self) -> tuple[int, ...]:
        """For each slot, the next slot number, or :data:`NO_SLOT` after the last.

        PySolFC's Galary looks at this "right neighbour", which for the last
        column is column 0 of the next row.
        """
        return tuple(slot + 1 if slot + 1 < self.rlen else NO_SLOT for slot in self.slots)

    @functools.cached_property
    def neighbour_slots(self) -> tuple[tuple[int, ...], ...]:
        """For each slot, its orthogonal neighbours in slot order (a table for rules)."""
        return tuple(tuple(sorted(self.neighbours(slot))) for slot in self.slots)

    def iter_rows(self) -> Iterator[range]:
        """Yield the slots of each row, top to bottom."""
        for row in range(self.rows):
            yield self.row_slots(row)
