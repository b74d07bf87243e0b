"""The fill rules of the Montana family: which card may enter a gap.

Every rule here is stated once, as data derived from the :class:`Layout`
when the game starts:

* :class:`FillBase` holds what the whole family shares: a gap in the first
  column takes a card of rank RBASE, any other gap looks at the card on its
  left, and a gap whose left neighbour is a gap takes nothing. A subclass
  only says which cards may stand right of a given card
  (:meth:`FillBase.followers`), and the base turns that into a table.
* The engine keeps an index from each card to the slots holding it, so
  :meth:`FillBase.sources` finds the cards a gap wants by look-up instead of
  scanning the board: a gap costs a few list reads, whatever the board size.

The rules follow PySolFC's ``*_RowStack.acceptsCards`` exactly, with one
generalisation: "one rank higher" means "next in the row's sequence"
(:attr:`Layout.sequence_ranks`), which is plain rank + 1 everywhere except
Paganini, where 6 follows the Ace.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from gapgrid.core.cards import (
    CARDS_PER_DECK,
    RANK_NAMES,
    RANKS_PER_SUIT,
    SUITS,
    card_code,
    make_card,
    rank_of,
    suit_of,
)
from gapgrid.core.layout import NO_SLOT, Layout
from gapgrid.core.left_card_moves import LeftCardTables, card_index, left_card_pairs
from gapgrid.core.runs import CardIndex, Cells

if TYPE_CHECKING:
    from gapgrid.core.rules import FillRule


def pairs_by_sources(fill: FillRule, cells: Cells, targets: Iterable[int], where: CardIndex
                     ) -> list[tuple[int, int]]:
    """Every move (source, target) into the gaps ``targets`` that ``fill`` allows, gap by
    gap, through its :meth:`~core.rules.FillRule.sources` (any rule, a third party's too)."""
    sources = fill.sources
    return [(source, target) for target in targets for source in sources(cells, target, where)]


class FillBase:
    """A fill rule: the first column takes RBASE; elsewhere the left card decides.

    Subclass and implement :meth:`followers`; override :meth:`wanted` when a
    gap also looks elsewhere (Galary), or :meth:`sources` and :meth:`accepts`
    when the rule is not about cards at all (Rectangular Rovers).
    """

    __slots__ = ("_follow", "_heads", "_left", "layout")

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self._left = layout.left_slots
        self._heads: tuple[int, ...] = tuple(make_card(layout.rbase, suit)
                                             for suit in range(SUITS))
        self._follow: list[tuple[int, ...]] = [tuple(self.followers(card))
                                               for card in range(CARDS_PER_DECK)]

    def followers(self, card: int) -> Iterable[int]:
        """Return the cards that may fill a gap right of ``card``."""
        raise NotImplementedError

    def next_cards(self, card: int) -> tuple[int, ...]:
        """Return the cards that may fill a gap right of ``card`` (from the table)."""
        return self._follow[card]

    def heads(self) -> tuple[int, ...]:
        """Return the cards that may fill a gap in the first column (the RBASE of each suit)."""
        return self._heads

    def wanted(self, cells: Cells, target: int) -> Sequence[int]:
        """Return the cards that may fill the gap ``target``.

        A card of rank RBASE in the first column; elsewhere the followers of
        the card on the left, and nothing right of a gap.
        """
        left = self._left[target]
        if left == NO_SLOT:
            return self._heads
        card = cells[left]
        return () if card is None else self._follow[card]

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        # accepts() and pairs() below are wanted() and sources() inlined, which is only
        # right while those are FillBase's: a class that changes them goes through them.
        if cls.wanted is not FillBase.wanted and cls.accepts is FillBase.accepts:
            cls.accepts = FillBase._accepts_wanted  # type: ignore[method-assign]
        if not cls.decides_by_left_card() and cls.pairs is FillBase.pairs:
            cls.pairs = FillBase._pairs_by_sources  # type: ignore[method-assign]

    @classmethod
    def decides_by_left_card(cls) -> bool:
        """Tell whether this kind of rule decides a gap by its left card alone: its
        ``wanted()`` and ``sources()`` are FillBase's (not Galary's, which also looks right,
        nor a sliding puzzle's)."""
        return cls.wanted is FillBase.wanted and cls.sources is FillBase.sources

    def accepts(self, cells: Cells, source: int, target: int) -> bool:
        """Tell whether the card in ``source`` may move into the gap ``target``."""
        # wanted(), inlined, decided per class rather than per call (see
        # __init_subclass__): this runs once per move replayed.
        left = self._left[target]
        if left == NO_SLOT:
            return cells[source] in self._heads
        left_card = cells[left]
        return left_card is not None and cells[source] in self._follow[left_card]

    def _accepts_wanted(self, cells: Cells, source: int, target: int) -> bool:
        """:meth:`accepts` for a class whose :meth:`wanted` looks beyond the left card."""
        return cells[source] in self.wanted(cells, target)

    def sources(self, cells: Cells, target: int, where: CardIndex | None = None) -> list[int]:
        """Return the slots whose card may move into the gap ``target``, in slot order.

        ``where`` is the card-to-slots index of ``cells`` (see
        :func:`core.left_card_moves.card_index`);
        without it one is built, which costs a pass over the board.
        """
        if where is None:
            where = card_index(cells)
        wanted = self.wanted(cells, target)
        if len(wanted) == 1:
            slots = where[wanted[0]]
            # Two decks hold two of a card; moves keep the index up to date in
            # place, which leaves their slots in any order.
            return list(slots) if len(slots) < 2 else sorted(slots)
        return sorted({slot for card in wanted for slot in where[card]})

    def pairs(self, cells: Cells, targets: Iterable[int], where: CardIndex
              ) -> list[tuple[int, int]]:
        """Return every move (source, target) into the gaps ``targets``, gap by gap in the
        order given, each gap's sources in slot order: :meth:`sources` for each gap.

        :meth:`wanted` and :meth:`sources` inlined into one loop, compiled with
        the search (:func:`core.left_card_moves.left_card_pairs`; decided per
        class, see ``__init_subclass__``). The engine calls that loop itself
        where this method is FillBase's own (:meth:`left_card_tables`); this
        hands it copies of ``cells`` and ``where`` as lists.
        """
        return left_card_pairs(self.left_card_tables(), list(cells), targets,
                               [list(slots) for slots in where])

    def left_card_tables(self) -> LeftCardTables:
        """The tables :meth:`pairs` decides by (:data:`core.left_card_moves.LeftCardTables`),
        for an engine that finds the moves without calling :meth:`pairs` each time."""
        return self._left, self._heads, self._follow

    def _pairs_by_sources(self, cells: Cells, targets: Iterable[int], where: CardIndex
                          ) -> list[tuple[int, int]]:
        """:meth:`pairs` for a class whose :meth:`wanted` or :meth:`sources` is its own."""
        return pairs_by_sources(self, cells, targets, where)

    def refusal(self, cells: Cells, source: int, target: int) -> str:
        """Why not, for a person: the first column's rule, a gap on the left, or what may follow."""
        card = cells[source]
        assert card is not None
        left = self._left[target]
        if left == NO_SLOT:
            wanted = RANK_NAMES[self.layout.rbase]
            return (f"{card_code(card)} cannot start a row: slot {target} is in the first "
                    f"column, where only a card of rank {wanted} may go")
        left_card = cells[left]
        if left_card is None:
            return (f"{card_code(card)} cannot go to slot {target}: the slot on its left "
                    f"is a gap")
        return (f"{card_code(card)} does not fit after {card_code(left_card)}: "
                f"{self._after(left_card)}")

    def _after(self, left: int) -> str:
        """What may follow ``left``, for :meth:`refusal`."""
        followers = self._follow[left]
        if not followers:
            return f"nothing follows {card_code(left)}"
        return f"only {' or '.join(card_code(card) for card in followers)} does"


def _next_in_sequence(layout: Layout, card: int) -> int | None:
    """The card after ``card`` in its row's sequence, same suit, or None after the last."""
    sequence = layout.sequence_ranks
    rank = rank_of(card)
    if rank not in sequence or rank == sequence[-1]:
        return None
    return make_card(sequence[sequence.index(rank) + 1], suit_of(card))


class MontanaFill(FillBase):
    """Montana: a gap takes the next card of its left neighbour's suit."""

    __slots__ = ()

    def followers(self, card: int) -> Iterable[int]:
        following = _next_in_sequence(self.layout, card)
        return () if following is None else (following,)


class GalaryFill(MontanaFill):
    """Galary: as Montana, or the card one below the right neighbour, same suit.

    As in PySolFC the right neighbour is the next slot number
    (:attr:`Layout.next_slots`), so a gap in the last column looks at column 0
    of the next row; a gap in the first column takes only a card of rank RBASE.
    """

    __slots__ = ("_before", "_next")

    def __init__(self, layout: Layout) -> None:
        super().__init__(layout)
        self._next = layout.next_slots
        self._before: list[tuple[int, ...]] = [() for _ in range(CARDS_PER_DECK)]
        for card, followers in enumerate(self._follow):
            for following in followers:
                self._before[following] += (card,)

    def wanted(self, cells: Cells, target: int) -> Sequence[int]:
        after_left = super().wanted(cells, target)
        right = self._next[target]
        if self._left[target] == NO_SLOT or right == NO_SLOT:
            return after_left
        right_card = cells[right]
        if right_card is None:
            return after_left
        return (*after_left, *self._before[right_card])

    def refusal(self, cells: Cells, source: int, target: int) -> str:
        card = cells[source]
        assert card is not None
        if self._left[target] == NO_SLOT:
            return super().refusal(cells, source, target)
        left = cells[self._left[target]]
        right_slot = self._next[target]
        right = None if right_slot == NO_SLOT else cells[right_slot]
        after = "a gap" if left is None else card_code(left)
        before = "a gap" if right is None else card_code(right)
        return (f"{card_code(card)} fits neither after {after} nor before {before} "
                f"(slot {target})")


class JungleFill(FillBase):
    """Jungle: a gap takes any card one rank above its left neighbour, whatever the suit."""

    __slots__ = ()

    def followers(self, card: int) -> Iterable[int]:
        following = _next_in_sequence(self.layout, card)
        if following is None:
            return ()
        return tuple(make_card(rank_of(following), suit) for suit in range(SUITS))

    def _after(self, left: int) -> str:
        if not self._follow[left]:
            return f"nothing follows {card_code(left)}"
        return f"only a {RANK_NAMES[rank_of(self._follow[left][0])]} of any suit does"


class AscendingFill(FillBase):
    """Spaces and Aces: a gap takes any higher card of its left neighbour's suit."""

    __slots__ = ()

    def followers(self, card: int) -> Iterable[int]:
        return tuple(make_card(rank, suit_of(card))
                     for rank in range(rank_of(card) + 1, RANKS_PER_SUIT))

    def _after(self, left: int) -> str:
        return "only a higher card of the same suit does"


class RoversFill(FillBase):
    """Rectangular Rovers: any orthogonal neighbour may slide into a gap, whatever it is."""

    __slots__ = ("_neighbours",)

    def __init__(self, layout: Layout) -> None:
        super().__init__(layout)
        self._neighbours = layout.neighbour_slots

    def followers(self, card: int) -> Iterable[int]:
        return ()  # not a rule about cards: see sources

    def accepts(self, cells: Cells, source: int, target: int) -> bool:
        return source in self._neighbours[target]

    def sources(self, cells: Cells, target: int, where: CardIndex | None = None) -> list[int]:
        return [slot for slot in self._neighbours[target] if cells[slot] is not None]

    def refusal(self, cells: Cells, source: int, target: int) -> str:
        card = cells[source]
        assert card is not None
        return (f"{card_code(card)} cannot slide to slot {target}: slot {source} is not "
                f"beside it (left, right, above or below)")
