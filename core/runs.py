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
    sequence = layout.sequence_ranks
    start = row * layout.rstep
    head = cells[start]
    if head is None or head % RANKS_PER_SUIT != sequence[0]:
        return 0
    suit_base = head - sequence[0]
    length = 1
    for column in range(1, len(sequence)):
        if cells[start + column] != suit_base + sequence[column]:
            break
        length += 1
    return length


def run_lengths(layout: Layout, cells: Cells) -> list[int]:
    """Return the run length of every row, top to bottom.

    :func:`run_length` for each row, in one loop: every redeal asks this, and
    most rows of a game under way have no run (the head test fails at once).
    """
    sequence = layout.sequence_ranks
    first, full = sequence[0], len(sequence)
    lengths = []
    for row in layout.row_ranges:
        start = row.start
        head = cells[start]
        if head is None or head % RANKS_PER_SUIT != first:
            lengths.append(0)
            continue
        suit_base = head - first
        length = 1
        while length < full and cells[start + length] == suit_base + sequence[length]:
            length += 1
        lengths.append(length)
    return lengths


def cards_in_sequence(layout: Layout, cells: Cells) -> int:
    """Return the number of cards in runs: the seeds' "cards in sequence"."""
    return sum(run_lengths(layout, cells))


def finished_rows(layout: Layout, cells: Cells) -> int:
    """Return the number of rows whose run is full length."""
    full = len(layout.sequence_ranks)
    return sum(1 for length in run_lengths(layout, cells) if length == full)


def all_rows_finished(layout: Layout, cells: Cells) -> bool:
    """Tell whether every row's run is full length.

    Looks first at the last card of each run, which must be the sequence's
    last rank: in a game under way that fails at once, so this check is
    cheap enough to ask after every move.
    """
    last = layout.sequence_ranks[-1]
    for slot in layout.run_end_slots:
        card = cells[slot]
        if card is None or card % RANKS_PER_SUIT != last:
            return False
    full = len(layout.sequence_ranks)
    return all(run_length(layout, cells, row) == full for row in range(layout.rows))
