"""Runs: the cards of each row that already stand in their finished places.

A run is what the cards of a row hold from column 0 on: the ranks of
:attr:`Layout.sequence_ranks` in order, all of one suit. It is the one
definition behind what a redeal keeps, when a game is won, and the seeds'
"cards in sequence" score, so all three always agree.
"""

from __future__ import annotations

from collections.abc import Sequence

from gapgrid.core.cards import RANKS_PER_SUIT
from gapgrid.core.layout import Layout

Cells = Sequence[int | None]
"""The contents of every slot in reading order: a card, or None for a gap."""

CardIndex = Sequence[Sequence[int]]
"""For each card (0-51), the slots that hold it: one in a one-deck game, up to two in a
two-deck game, none when the card is not in play."""


def run_length(layout: Layout, cells: Cells, row: int) -> int:
    """Return how many cards from column 0 of ``row`` form its run."""
    return _run_from(layout.sequence_ranks, row * layout.rstep, cells)


def run_lengths(layout: Layout, cells: Cells) -> list[int]:
    """Return the run length of every row, top to bottom."""
    sequence = layout.sequence_ranks
    return [_run_from(sequence, start, cells) for start in layout.row_start_slots]


def _run_from(sequence: tuple[int, ...], start: int, cells: Cells) -> int:
    """How many cards from slot ``start`` on hold ``sequence``'s ranks in order, in one suit
    (the one definition of a run, which every function here asks)."""
    head = cells[start]
    if head is None or head % RANKS_PER_SUIT != sequence[0]:
        return 0  # most rows of a game under way: no call needs more
    suit_base = head - sequence[0]
    length, full = 1, len(sequence)
    while length < full and cells[start + length] == suit_base + sequence[length]:
        length += 1
    return length


class RunShape:
    """A layout's runs and rows as plain fields, for the loops a search runs at every position.

    A :class:`Layout`'s tables are cached properties of an attrs class: each read is a
    Python attribute lookup, which cost a compiled search a tenth of its time when the
    functions here read them at every position. This holds the same values, read once;
    an :class:`core.game.Engine` has one (``run_shape``).
    """

    def __init__(self, layout: Layout) -> None:
        sequence = layout.sequence_ranks
        self.sequence: tuple[int, ...] = sequence
        """:attr:`Layout.sequence_ranks`."""
        self.head_rank: int = sequence[0]
        """The rank that heads a run (RBASE)."""
        self.rstep: int = layout.rstep
        """:attr:`Layout.rstep`: the slots of a row."""
        self.row_starts: tuple[int, ...] = layout.row_start_slots
        """:attr:`Layout.row_start_slots`: each row's column-0 slot."""
        self.run_end_slots: tuple[int, ...] = layout.run_end_slots
        """:attr:`Layout.run_end_slots`: where each row's full run ends."""
        self.slot_rows: tuple[int, ...] = layout.slot_rows
        """:attr:`Layout.slot_rows`: each slot's row."""
        self.next_slots: tuple[int, ...] = layout.next_slots
        """:attr:`Layout.next_slots`: each slot's next slot in reading order."""
        self.left_slots: tuple[int, ...] = layout.left_slots
        """:attr:`Layout.left_slots`: each slot's left neighbour."""

    def run_length(self, cells: Cells, row: int) -> int:
        """How many cards from column 0 of ``row`` form its run (:func:`run_length`)."""
        return _run_from(self.sequence, self.row_starts[row], cells)

    def run_ends(self, cells: Cells) -> list[int]:
        """For each row, the slot right after its run (its start when it has none)."""
        sequence = self.sequence
        return [start + _run_from(sequence, start, cells) for start in self.row_starts]

    def all_rows_finished(self, cells: Cells) -> bool:
        """Whether every row's run is full length (:func:`all_rows_finished`): the won
        check of :class:`core.baseline.AllRowsFinished`."""
        return _all_runs_full(self.sequence, self.row_starts, self.run_end_slots, cells)


def cards_in_sequence(layout: Layout, cells: Cells) -> int:
    """Return the number of cards in runs: the seeds' "cards in sequence"."""
    return sum(run_lengths(layout, cells))


def finished_rows(layout: Layout, cells: Cells) -> int:
    """Return the number of rows whose run is full length."""
    full = len(layout.sequence_ranks)
    return sum(1 for length in run_lengths(layout, cells) if length == full)


def all_rows_finished(layout: Layout, cells: Cells) -> bool:
    """Tell whether every row's run is full length."""
    return _all_runs_full(layout.sequence_ranks, layout.row_start_slots, layout.run_end_slots,
                          cells)


def _all_runs_full(sequence: tuple[int, ...], row_starts: tuple[int, ...],
                   run_end_slots: tuple[int, ...], cells: Cells) -> bool:
    """Whether the run from each of ``row_starts`` holds all of ``sequence``.

    Looks first at the last card of each run, which must be the sequence's
    last rank: in a game under way that fails at once, so this check is
    cheap enough to ask after every move.
    """
    last = sequence[-1]
    for slot in run_end_slots:
        card = cells[slot]
        if card is None or card % RANKS_PER_SUIT != last:
            return False
    full = len(sequence)
    return all(_run_from(sequence, start, cells) == full for start in row_starts)
