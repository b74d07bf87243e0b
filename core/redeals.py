"""Redeals: what stays, what is gathered, and where the gaps go afterwards.

This is PySolFC's ``Montana_Talon.dealCards``: row by row, every slot from
the first break of the run onward is gathered (cards in pick-up order), the
cards are shuffled with the generator that dealt the game, and dealt back
over the gathered slots (each slot taking the LAST card of the list), except
for the slots the placement leaves empty.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, MutableSequence
from itertools import repeat
from operator import is_
from typing import ClassVar, cast

import attrs

from gapgrid.core import runs
from gapgrid.core.dealnumber import GameRandom
from gapgrid.core.layout import Layout
from gapgrid.core.rules import KeepRule, RedealPlacement, RuleError
from gapgrid.core.runs import Cells


def _kept_per_row(layout: Layout, cells: Cells, keep: KeepRule) -> list[int]:
    """``keep.kept_per_row``, checked: one count for each row, each within its row."""
    kept = keep.kept_per_row(layout, cells)
    if type(keep) is not KeepRuns:
        _check_kept(layout, keep, kept)
    return kept


def _check_kept(layout: Layout, keep: KeepRule, kept: list[int]) -> None:
    """Raise :class:`RuleError` unless ``kept`` holds one count per row, each within its row.

    :class:`KeepRuns` counts each row's cards by construction; a plugin's rule is checked.
    """
    if len(kept) != layout.rows:
        raise RuleError(f"{type(keep).__name__} kept slots in {len(kept)} rows, the layout has "
                        f"{layout.rows}")
    if not all(0 <= count <= layout.rstep for count in kept):
        raise RuleError(f"{type(keep).__name__} kept {kept} slots per row; a row has "
                        f"{layout.rstep}")


def gathered_slots(layout: Layout, cells: Cells, keep: KeepRule) -> list[int]:
    """The slots a redeal takes up, row by row: everything after what ``keep`` keeps."""
    return [slot for row, count in zip(layout.row_ranges, _kept_per_row(layout, cells, keep),
                                       strict=True)
            for slot in range(row.start + count, row.stop)]


def redeal_cells(layout: Layout, cells: MutableSequence[int | None], keep: KeepRule,
                 placement: RedealPlacement, random: GameRandom) -> list[int]:
    """Redeal ``cells`` in place: gather, shuffle (as the placement says) and deal back.

    Returns the gathered slots: only they changed.
    """
    # A row's gathered slots are consecutive, so a redeal reads and writes
    # them a row at a time with slices rather than slot by slot, the slots
    # coming ready-made from the layout's table (Layout.row_tails): a
    # request may hold hundreds of redeals, a search many more.
    tails: list[tuple[int, int]] = []
    gathered: list[int] = []
    picked: list[int | None] = []
    kept = keep.kept_per_row(layout, cells)  # _kept_per_row() written out: one call less
    if type(keep) is not KeepRuns:
        _check_kept(layout, keep, kept)
    for row_tails, count in zip(layout.row_tails, kept, strict=True):
        first, end, slots = row_tails[count]  # the count is checked to lie in its row
        tails.append((first, end))
        gathered += slots
        picked += cells[first:end]
    # "is not None", not list.count(None) or remove(None): comparing a card
    # with None by == is several times slower than testing identity.
    cards = [card for card in picked if card is not None]
    contents = placement.deal_back(layout, gathered, cards, random)
    if type(placement) not in _EXACT_PLACEMENTS:
        _check_dealt(placement, contents, len(gathered), cards)
    dealt = 0
    for first, end in tails:
        cells[first:end] = contents[dealt:dealt + end - first]
        dealt += end - first
    return gathered


def _check_dealt(placement: RedealPlacement, contents: list[int | None], slots: int,
                 cards: list[int]) -> None:
    """Raise :class:`RuleError` unless ``placement`` dealt ``cards`` back into ``slots`` slots,
    the others gaps: no card made up, lost or dealt twice."""
    gaps = slots - len(cards)
    gaps_dealt = sum(map(is_, contents, repeat(None)))
    if len(contents) != slots or gaps_dealt != gaps:
        raise RuleError(f"{type(placement).__name__} dealt {len(contents)} slots with "
                        f"{gaps_dealt} gaps, expected {slots} with {gaps}")
    if Counter(card for card in contents if card is not None) != Counter(cards):
        raise RuleError(f"{type(placement).__name__} dealt back other cards than the ones "
                        f"it gathered")


def _deal_around(gathered: list[int], gaps: Iterable[int], talon: list[int]) -> list[int | None]:
    """Deal the talon's last card to each gathered slot that is not one of ``gaps``."""
    wanted = sorted(set(gaps))
    positions = [bisect_left(gathered, slot) for slot in wanted]  # gathered is in slot order
    if any(position == len(gathered) or gathered[position] != slot
           for position, slot in zip(positions, wanted, strict=True)):
        raise RuleError(f"cannot leave gaps at {wanted} among the gathered slots")
    return _deal_around_positions(len(gathered), positions, talon)


def _deal_around_positions(length: int, positions: list[int], talon: list[int]
                           ) -> list[int | None]:
    """Deal the talon's last card to each of ``length`` places but the gaps at ``positions``.

    ``positions`` are increasing indexes into the gathered slots.
    """
    if len(positions) != length - len(talon):
        raise RuleError(f"cannot leave {len(positions)} gaps among {length} gathered slots "
                        f"for {len(talon)} cards")
    # The talon's LAST card goes to the first slot; a list of cards is one of
    # slot contents (cast: list is invariant), and is not copied again.
    contents = cast("list[int | None]", talon[::-1])
    # Increasing positions: each gap goes in where the cards before it are final.
    for position in positions:
        contents.insert(position, None)
    return contents


def _first_of_each_row(layout: Layout, gathered: list[int]) -> list[int]:
    """The index in ``gathered`` (in slot order) of each row's first gathered slot."""
    firsts = []
    for row in layout.row_ranges:
        index = bisect_left(gathered, row.start)
        if index < len(gathered) and gathered[index] < row.stop:
            firsts.append(index)
    return firsts


@attrs.frozen
class KeepRuns:
    """A redeal keeps each row's run (see :mod:`core.runs`) and nothing else."""

    kept_per_row = staticmethod(runs.run_lengths)
    """Each row's run length (:func:`core.runs.run_lengths` itself: no call in between)."""


@attrs.frozen
class GapsAfterRuns:
    """Shuffle; leave one gap right after each row's kept run (Montana)."""

    name: ClassVar[str] = "after-runs"

    def deal_back(self, layout: Layout, gathered: list[int], cards: list[int],
                  random: GameRandom) -> list[int | None]:
        random.shuffle(cards)
        return _deal_around_positions(len(gathered), _first_of_each_row(layout, gathered),
                                      cards)


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
        return _deal_around(gathered, gaps, cards)


@attrs.frozen
class GapsInLastColumn:
    """Shuffle; leave the last slot of each row empty (Station)."""

    name: ClassVar[str] = "last-column"

    def deal_back(self, layout: Layout, gathered: list[int], cards: list[int],
                  random: GameRandom) -> list[int | None]:
        random.shuffle(cards)
        return _deal_around(gathered, layout.last_column_slots(), cards)


@attrs.frozen
class NoShuffle:
    """Deal the cards back unshuffled, in pick-up order, gaps after the runs (seed 002)."""

    name: ClassVar[str] = "no-shuffle"

    def deal_back(self, layout: Layout, gathered: list[int], cards: list[int],
                  random: GameRandom) -> list[int | None]:
        # _deal_around_positions deals from the end of the list, so reverse it to
        # deal the first card picked up first.
        return _deal_around_positions(len(gathered), _first_of_each_row(layout, gathered),
                                      cards[::-1])


_EXACT_PLACEMENTS: frozenset[type] = frozenset({GapsAfterRuns, GapsAtRandom, GapsInLastColumn,
                                               NoShuffle})
"""The placements above, which deal exactly the gathered slots and gaps by construction
(``_deal_around_positions`` refuses a wrong count; tests/core/test_redeals.py runs every
one on random boards): :func:`redeal_cells` checks only a plugin's own placement."""

_ONE_GAP_PER_ROW: frozenset[type] = frozenset({GapsAfterRuns, GapsInLastColumn, NoShuffle})


def leaves_one_gap_per_row(placement: RedealPlacement) -> bool:
    """Tell whether ``placement`` is one of the above that leave exactly one gap in each
    row: it can redeal only a game that has as many gaps as rows (any other stops with an
    error at its first redeal)."""
    return type(placement) in _ONE_GAP_PER_ROW


PLACEMENTS: dict[str, RedealPlacement] = {
    placement.name: placement
    for placement in (GapsAfterRuns(), GapsAtRandom(), GapsInLastColumn(), NoShuffle())
}
"""The redeal placements by the names the ``redeal-placement`` option uses."""
