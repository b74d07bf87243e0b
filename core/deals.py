"""The initial deal: PySolFC's shuffle and its three ways of laying cards out.

PySolFC builds the game's cards in a fixed order (:meth:`Layout.deck_cards`),
reorders them with ``ms_rearrange`` when an ``LCRandom31`` deals exactly 52
cards, shuffles them, and deals from the END of the list. The deal styles
below then decide which slot each card lands in; they reproduce
``Montana.startGame``, ``BlueMoon.startGame`` and ``RedMoon.startGame``.
"""

from __future__ import annotations

from collections import Counter
from typing import Final

import attrs
from pysol_cards.cards import ms_rearrange

from gapgrid.core.cards import RANKS_PER_SUIT, suit_of
from gapgrid.core.dealnumber import DealNumber, GameRandom
from gapgrid.core.layout import Layout
from gapgrid.core.rules import DealStyle, RuleError


def shuffled_deck(layout: Layout, deal: DealNumber, random: GameRandom) -> list[int]:
    """Return the game's cards shuffled as PySolFC's ``Game.shuffle`` does.

    ``random`` must be fresh from :meth:`DealNumber.new_random`; it is left in
    the state PySolFC's generator is in after the deal, ready for redeals.
    """
    cards = layout.deck_cards()
    if deal.uses_lcrandom:
        cards = ms_rearrange(cards)  # a no-op unless there are exactly 52 cards
    random.shuffle(cards)
    return cards


def deal_cells(layout: Layout, style: DealStyle, deal: DealNumber,
               random: GameRandom) -> list[int | None]:
    """Shuffle and deal: return every slot's content after the deal."""
    deck = shuffled_deck(layout, deal, random)
    cells = style.place(layout, list(deck))
    if len(cells) != layout.rlen:
        raise RuleError(f"the deal filled {len(cells)} slots, the layout has {layout.rlen}")
    # A deal style places the deck's cards, or sets some aside: a card it made up, or one it
    # dealt twice, would be a game no one can play (and a solver's "lost" about it). Only a
    # plugin's style is checked: gapgrid's own are tested to deal the deck.
    if (type(style) not in _EXACT_STYLES
            and not Counter(card for card in cells if card is not None) <= Counter(deck)):
        raise RuleError(f"the deal placed cards that are not the deck's: "
                        f"{_strangers(cells, deck)}")
    return cells


def _strangers(cells: list[int | None], deck: list[int]) -> str:
    """The cards ``cells`` hold beyond ``deck``'s, for a message (at most five)."""
    beyond = Counter(card for card in cells if card is not None) - Counter(deck)
    shown = [repr(card) for card in sorted(beyond, key=repr)[:5]]
    return ", ".join(shown) + (", ..." if len(beyond) > 5 else "")


def _check_count(layout: Layout, cards: list[int], wanted: int, style: str) -> None:
    if len(cards) != wanted:
        raise RuleError(f"{style} deal needs {wanted} cards for a {layout.rows}x{layout.rstep} "
                        f"grid, the game has {len(cards)}")


@attrs.frozen
class MontanaDeal:
    """Slot i gets the i-th card dealt; cards of a set-aside rank leave their slot empty."""

    def place(self, layout: Layout, cards: list[int]) -> list[int | None]:
        _check_count(layout, cards, layout.rlen, "a Montana")
        set_aside = set(layout.set_aside_ranks)
        cells: list[int | None] = [None] * layout.rlen
        for slot in layout.slots:
            card = cards.pop()
            if card % RANKS_PER_SUIT not in set_aside:
                cells[slot] = card
        return cells


@attrs.frozen
class BlueMoonDeal:
    """Deal skipping column 0; then, unless told not to, move each RBASE card to column 0.

    The cards of rank RBASE (Blue Moon's Aces) go, in reading order, to
    column 0 of rows 0, 1, 2, ... and leave gaps where they lay. Spaces and
    Aces and Paganini II keep them where they land (``heads_to_column_0=False``).
    """

    heads_to_column_0: bool = True

    def place(self, layout: Layout, cards: list[int]) -> list[int | None]:
        _check_count(layout, cards, layout.rlen - layout.rows, "a Blue Moon")
        cells: list[int | None] = [None] * layout.rlen
        for slot in layout.slots:
            if not layout.is_row_start(slot):
                cells[slot] = cards.pop()
        if self.heads_to_column_0:
            heads = [slot for slot, card in enumerate(cells)
                     if card is not None and card % RANKS_PER_SUIT == layout.rbase]
            # One head per row: zip stops at the shorter of the two.
            for head_slot, row_start in zip(heads, layout.row_starts(), strict=False):
                cells[row_start], cells[head_slot] = cells[head_slot], None
        return cells


@attrs.frozen
class RedMoonDeal:
    """RBASE cards to column 0 (Clubs, Spades, Hearts, Diamonds), column 1 empty, the rest after.

    PySolFC's ``RedMoon._shuffleHook`` moves the Aces to the top of the
    shuffled talon sorted by suit; the deal then fills column 0 of every
    row and, row by row, columns 2 to the end.
    """

    def place(self, layout: Layout, cards: list[int]) -> list[int | None]:
        _check_count(layout, cards, layout.rlen - layout.rows, "a Red Moon")
        heads = [card for card in cards if card % RANKS_PER_SUIT == layout.rbase]
        if len(heads) != layout.rows:
            raise RuleError(f"a Red Moon deal needs one card of rank {layout.rbase} per row")
        # The talon is dealt from its end, so the last of these goes first:
        # Clubs, then Spades, Hearts, Diamonds.
        talon = [card for card in cards if card % RANKS_PER_SUIT != layout.rbase]
        talon += sorted(heads, key=suit_of, reverse=True)
        cells: list[int | None] = [None] * layout.rlen
        for row_start in layout.row_starts():
            cells[row_start] = talon.pop()
        for row in range(layout.rows):
            for slot in layout.row_slots(row)[2:]:
                cells[slot] = talon.pop()
        return cells


_EXACT_STYLES: Final[frozenset[type]] = frozenset({MontanaDeal, BlueMoonDeal, RedMoonDeal})
"""gapgrid's deal styles, exact (not subclasses): their deals are not checked card by card
(about 20 us a deal, a third of a deal's cost)."""
