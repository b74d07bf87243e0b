"""The fill rules of the Montana family: which card may enter a gap.

Each rule is built once per game for its layout, precomputing what it can
(the card that follows each card in its row's sequence), so that
:meth:`accepts` is a couple of list look-ups. The rules follow PySolFC's
``*_RowStack.acceptsCards`` exactly, with one generalisation: "one rank
higher" means "next in the row's sequence" (:attr:`Layout.sequence_ranks`),
which is plain rank + 1 everywhere except Paganini, where 6 follows the Ace.
"""

from __future__ import annotations

import attrs

from gapgrid.core.cards import RANK_NAMES, RANKS_PER_SUIT, card_code, rank_of, suit_of
from gapgrid.core.layout import Layout
from gapgrid.core.runs import Cells

_NONE = -1  # "no card": never equal to a card


def _successors(layout: Layout, same_suit: bool) -> list[int]:
    """Map each card to the card that follows it in its row's sequence (or -1).

    With ``same_suit`` False the table maps to the following *rank* instead.
    """
    following = dict(zip(layout.sequence_ranks, layout.sequence_ranks[1:], strict=False))
    table = [_NONE] * (4 * RANKS_PER_SUIT)
    for card in range(len(table)):
        next_rank = following.get(rank_of(card))
        if next_rank is not None:
            table[card] = suit_of(card) * RANKS_PER_SUIT + next_rank if same_suit else next_rank
    return table


@attrs.define(slots=True, eq=False)
class _FillBase:
    """What every fill rule shares: the layout, and finding sources by trying each slot."""

    layout: Layout

    def accepts(self, cells: Cells, source: int, target: int) -> bool:
        raise NotImplementedError

    def sources(self, cells: Cells, target: int) -> list[int]:
        """Return every slot whose card may move into the gap ``target``."""
        accepts = self.accepts
        return [slot for slot, card in enumerate(cells)
                if card is not None and accepts(cells, slot, target)]

    def refusal(self, cells: Cells, source: int, target: int) -> str:
        """Why not: the first column's rule, a gap on the left, or what may follow the left card."""
        card = cells[source]
        assert card is not None
        if self.layout.is_row_start(target):
            wanted = RANK_NAMES[self.layout.rbase]
            return (f"{card_code(card)} cannot start a row: slot {target} is in the first "
                    f"column, where only a card of rank {wanted} may go")
        left = cells[target - 1]
        if left is None:
            return (f"{card_code(card)} cannot go to slot {target}: the slot on its left "
                    f"is a gap")
        return f"{card_code(card)} does not fit after {card_code(left)}: {self._after(left)}"

    def _after(self, left: int) -> str:
        """What may follow ``left``, for :meth:`refusal`."""
        raise NotImplementedError


@attrs.define(slots=True, eq=False)
class MontanaFill(_FillBase):
    """Montana: a gap takes the next card of the left neighbour's suit; column 0 takes RBASE."""

    successor: list[int] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.successor = _successors(self.layout, same_suit=True)

    def accepts(self, cells: Cells, source: int, target: int) -> bool:
        card = cells[source]
        if target % self.layout.rstep == 0:
            return card is not None and card % RANKS_PER_SUIT == self.layout.rbase
        left = cells[target - 1]
        return left is not None and self.successor[left] == card

    def sources(self, cells: Cells, target: int) -> list[int]:
        if target % self.layout.rstep == 0:
            rbase = self.layout.rbase
            return [slot for slot, card in enumerate(cells)
                    if card is not None and card % RANKS_PER_SUIT == rbase]
        left = cells[target - 1]
        if left is None or self.successor[left] == _NONE:
            return []
        wanted = self.successor[left]
        return [slot for slot, card in enumerate(cells) if card == wanted]

    def _after(self, left: int) -> str:
        if self.successor[left] == _NONE:
            return f"nothing follows {card_code(left)}"
        return f"only {card_code(self.successor[left])} does"


@attrs.define(slots=True, eq=False)
class GalaryFill(MontanaFill):
    """Galary: as Montana, or the card one below the right neighbour, same suit.

    As in PySolFC the right neighbour is the next slot number, so a gap in
    the last column looks at column 0 of the next row.
    """

    predecessor: list[int] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        self.predecessor = [_NONE] * len(self.successor)
        for card, following in enumerate(self.successor):
            if following != _NONE:
                self.predecessor[following] = card

    def accepts(self, cells: Cells, source: int, target: int) -> bool:
        if MontanaFill.accepts(self, cells, source, target):
            return True
        if target % self.layout.rstep == 0 or target + 1 >= len(cells):
            return False
        right = cells[target + 1]
        return right is not None and self.predecessor[right] == cells[source]

    def sources(self, cells: Cells, target: int) -> list[int]:
        return _FillBase.sources(self, cells, target)

    def refusal(self, cells: Cells, source: int, target: int) -> str:
        card = cells[source]
        assert card is not None
        if self.layout.is_row_start(target):
            return MontanaFill.refusal(self, cells, source, target)
        left = cells[target - 1]
        right = cells[target + 1] if target + 1 < len(cells) else None
        after = "a gap" if left is None else card_code(left)
        before = "a gap" if right is None else card_code(right)
        return (f"{card_code(card)} fits neither after {after} nor before {before} "
                f"(slot {target})")


@attrs.define(slots=True, eq=False)
class JungleFill(_FillBase):
    """Jungle: a gap takes any card one rank above its left neighbour, whatever the suit."""

    next_rank: list[int] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.next_rank = _successors(self.layout, same_suit=False)

    def accepts(self, cells: Cells, source: int, target: int) -> bool:
        card = cells[source]
        if card is None:
            return False
        if target % self.layout.rstep == 0:
            return card % RANKS_PER_SUIT == self.layout.rbase
        left = cells[target - 1]
        return left is not None and self.next_rank[left] == card % RANKS_PER_SUIT

    def _after(self, left: int) -> str:
        if self.next_rank[left] == _NONE:
            return f"nothing follows {card_code(left)}"
        return f"only a {RANK_NAMES[self.next_rank[left]]} of any suit does"


@attrs.define(slots=True, eq=False)
class AscendingFill(_FillBase):
    """Spaces and Aces: a gap takes any higher card of its left neighbour's suit."""

    def accepts(self, cells: Cells, source: int, target: int) -> bool:
        card = cells[source]
        if card is None:
            return False
        if target % self.layout.rstep == 0:
            return card % RANKS_PER_SUIT == self.layout.rbase
        left = cells[target - 1]
        return (left is not None and left // RANKS_PER_SUIT == card // RANKS_PER_SUIT
                and left % RANKS_PER_SUIT < card % RANKS_PER_SUIT)

    def _after(self, left: int) -> str:
        return "only a higher card of the same suit does"


@attrs.define(slots=True, eq=False)
class RoversFill(_FillBase):
    """Rectangular Rovers: any orthogonal neighbour may slide into a gap."""

    neighbours: list[frozenset[int]] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.neighbours = [frozenset(self.layout.neighbours(slot)) for slot in self.layout.slots]

    def accepts(self, cells: Cells, source: int, target: int) -> bool:
        return source in self.neighbours[target]

    def sources(self, cells: Cells, target: int) -> list[int]:
        return sorted(slot for slot in self.neighbours[target] if cells[slot] is not None)

    def refusal(self, cells: Cells, source: int, target: int) -> str:
        card = cells[source]
        assert card is not None
        return (f"{card_code(card)} cannot slide to slot {target}: slot {source} is not "
                f"beside it (left, right, above or below)")
