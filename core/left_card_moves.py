"""The legal moves under a fill rule that decides a gap by its left card alone, and the
card-to-slots index they are found by.

Every search asks for the legal moves of every position it reaches, so the
loop that finds them is its own module, compiled with the search
(``python -m gapgrid.api.compiled build``), while the fill rules of
:mod:`core.fills` stay Python classes that plugins subclass. Both
:meth:`core.fills.FillBase.pairs` and :meth:`core.game.Engine.legal_pairs`
come here, with the tables the fill rule made from its layout.
"""

from __future__ import annotations

from collections.abc import Iterable

from gapgrid.core.cards import CARDS_PER_DECK
from gapgrid.core.layout import NO_SLOT
from gapgrid.core.runs import Cells

LeftCardTables = tuple[tuple[int, ...], tuple[int, ...], list[tuple[int, ...]]]
"""What such a rule decides a gap by: for each slot the slot on its left (or
:data:`core.layout.NO_SLOT`), the cards a column-0 gap takes, and for each
card the cards that may stand right of it."""


def card_index(cells: Cells) -> list[list[int]]:
    """Build the card-to-slots index of ``cells`` (what the engine keeps up to date)."""
    where: list[list[int]] = [[] for _ in range(CARDS_PER_DECK)]
    for slot, card in enumerate(cells):
        if card is not None:
            where[card].append(slot)
    return where


def left_card_pairs(tables: LeftCardTables, cells: list[int | None], targets: Iterable[int],
                    where: list[list[int]]) -> list[tuple[int, int]]:
    """Return every move (source, target) into the gaps ``targets``, gap by gap in the
    order given, each gap's sources in slot order.

    A column-0 gap takes the heads, a gap right of a card that card's
    followers, a gap right of a gap nothing. ``where`` is the card-to-slots
    index of ``cells`` (:func:`card_index`). Lists and tuples, not any
    sequence: compiled, their items are read without a call.
    """
    left_slots, heads, follow = tables
    found: list[tuple[int, int]] = []
    for target in targets:
        left = left_slots[target]
        if left == NO_SLOT:
            wanted = heads
        else:
            card = cells[left]
            if card is None:
                continue
            wanted = follow[card]
        if len(wanted) == 1:
            slots = where[wanted[0]]
            if len(slots) == 1:
                found.append((slots[0], target))
            elif len(slots) == 2:  # two decks: the index holds a card's slots in any order
                first, second = slots
                if first > second:
                    first, second = second, first
                found.append((first, target))
                found.append((second, target))
            elif slots:
                found.extend((slot, target) for slot in sorted(slots))
        elif wanted:
            # distinct cards (a follower table, or the heads) never share a slot
            joined = [slot for card in wanted for slot in where[card]]
            joined.sort()
            found.extend([(slot, target) for slot in joined])
    return found
