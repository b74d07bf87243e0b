"""Redeals: what stays, what is gathered, and where the gaps go afterwards.

This is PySolFC's ``Montana_Talon.dealCards``: row by row, every slot from
the first break of the run onward is gathered (cards in pick-up order), the
cards are shuffled with the generator that dealt the game, and dealt back
over the gathered slots (each slot taking the LAST card of the list), except
for the slots the placement leaves empty.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import ClassVar

import attrs

from gapgrid.core import runs
from gapgrid.core.dealnumber import GameRandom
from gapgrid.core.layout import Layout
from gapgrid.core.rules import KeepRule, RedealPlacement, RuleError
from gapgrid.core.runs import Cells


def gathered_slots(layout: Layout, cells: Cells, keep: KeepRule) -> list[int]:
    """The slots a redeal takes up, row by row: everything after what ``keep`` keeps."""
    kept = keep.kept_per_row(layout, cells)
    return [slot for row, count in enumerate(kept) for slot in layout.row_slots(row)[count:]]


def redeal_cells(layout: Layout, cells: MutableSequence[int | None], keep: KeepRule,
                 placement: RedealPlacement, random: GameRandom) -> list[int]:
    """Redeal ``cells`` in place: gather, shuffle (as the placement says) and deal back.

    Returns the gathered slots: only they changed.
    """
    gathered = gathered_slots(layout, cells, keep)
    cards = [card for card in (cells[slot] for slot in gathered) if card is not None]
    gaps_wanted = len(gathered) - len(cards)
    contents = placement.deal_back(layout, gathered, cards, random)
    if len(contents) != len(gathered) or contents.count(None) != gaps_wanted:
        raise RuleError(f"{type(placement).__name__} dealt {len(contents)} slots with "
                        f"{contents.count(None)} gaps, expected {len(gathered)} with {gaps_wanted}")
    for slot, card in zip(gathered, contents, strict=True):
        cells[slot] = card
    return gathered


def _deal_around(gathered: list[int], gaps: set[int], talon: list[int]) -> list[int | None]:
    """Deal the talon's last card to each gathered slot that is not a gap."""
    if len(gaps) != len(gathered) - len(talon) or not gaps <= set(gathered):
        raise RuleError(f"cannot leave gaps at {sorted(gaps)} among the gathered slots")
    return [None if slot in gaps else talon.pop() for slot in gathered]


def first_gathered_per_row(layout: Layout, gathered: list[int]) -> set[int]:
    """Return the first gathered slot of each row: the slot right after its kept run."""
    rows, firsts, previous = layout.slot_rows, set(), -1
    for slot in gathered:
        if rows[slot] != previous:
            firsts.add(slot)
            previous = rows[slot]
    return firsts


@attrs.frozen
class KeepRuns:
    """A redeal keeps each row's run (see :mod:`core.runs`) and nothing else."""

    def kept_per_row(self, layout: Layout, cells: Cells) -> list[int]:
        return runs.run_lengths(layout, cells)


@attrs.frozen
class GapsAfterRuns:
    """Shuffle; leave one gap right after each row's kept run (Montana)."""

    name: ClassVar[str] = "after-runs"

    def deal_back(self, layout: Layout, gathered: list[int], cards: list[int],
                  random: GameRandom) -> list[int | None]:
        random.shuffle(cards)
        return _deal_around(gathered, first_gathered_per_row(layout, gathered), cards)


@attrs.frozen
class GapsAtRandom:
    """Shuffle; then draw the gaps from the gathered slots with the same generator (Spaces).

    PySolFC's ``Spaces_Talon`` calls ``choice`` on the gathered slots until
    it has as many different ones as there are gaps; the same happens when
    the Aces are shuffled back in and taken out again.
    """

    name: ClassVar[str] = "random"

    def deal_back(self, layout: Layout, gathered: list[int], cards: list[int],
                  random: GameRandom) -> list[int | None]:
        random.shuffle(cards)
        wanted = len(gathered) - len(cards)
        gaps: list[int] = []
        while len(gaps) != wanted:
            slot = random.choice(gathered)
            if slot not in gaps:
                gaps.append(slot)
        return _deal_around(gathered, set(gaps), cards)


@attrs.frozen
class GapsInLastColumn:
    """Shuffle; leave the last slot of each row empty (Station)."""

    name: ClassVar[str] = "last-column"

    def deal_back(self, layout: Layout, gathered: list[int], cards: list[int],
                  random: GameRandom) -> list[int | None]:
        random.shuffle(cards)
        return _deal_around(gathered, set(layout.last_column_slots()), cards)


@attrs.frozen
class NoShuffle:
    """Deal the cards back unshuffled, in pick-up order, gaps after the runs (seed 002)."""

    name: ClassVar[str] = "no-shuffle"

    def deal_back(self, layout: Layout, gathered: list[int], cards: list[int],
                  random: GameRandom) -> list[int | None]:
        # _deal_around deals from the end of the list, so reverse it to
        # deal the first card picked up first.
        return _deal_around(gathered, first_gathered_per_row(layout, gathered), cards[::-1])


PLACEMENTS: dict[str, RedealPlacement] = {
    placement.name: placement
    for placement in (GapsAfterRuns(), GapsAtRandom(), GapsInLastColumn(), NoShuffle())
}
"""The redeal placements by the names RULES.md and the options use."""
