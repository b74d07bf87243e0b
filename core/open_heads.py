"""Open heads: once column 0 fills up, decide which head stands in which row only when it matters.

Under Montana's fill with one deck (:func:`core.reductions.single_successor`)
and no redeal to come, a head (a card of rank RBASE) moves only into a
column-0 gap. When the last gap of column 0 is filled by a head and every
column-0 slot then holds a head, no head can ever move again: the
arrangement made at that moment is kept for good. While the gap was open,
head moves could make any arrangement of the heads, so the head macros
(:mod:`core.head_macros`) had to try every one of them, each a game of its
own; a loss proof spent most of its positions playing the same rows again
under each arrangement.

Once column 0 is full, the head of a row matters in two places only: which
card a gap in the row's column 1 takes (the head's follower), and whether
the row is finished. So the search leaves the rows *open*: the arrangement
is chosen lazily.

* The move that fills column 0's last gap is a :class:`Freeze`: every row
  is open.
* An open row's column-1 gap takes the follower of any open row's head: a
  :class:`Commit` *chooses* that head for the row (the search's engine
  exchanges the two heads, then moves the follower) and the row is no
  longer open. Every other move is the engine's own.
* A position is won when its open rows' heads can be arranged so that
  every row is finished (:func:`arrangement_win`).
* The transposition table's key shows an open row's column 0 as
  :data:`OPEN_HEAD_CODE`, whichever head the engine happens to hold there.

Why this is sound (``tests/core/test_open_heads.py`` checks it against the
plain search). Call a position with open rows O an *abstract* position: it
stands for the concrete positions with the same cards outside column 0, the
same heads in the rows not in O, and any arrangement of O's heads among O's
rows. Its value is that of the best of them: it is won when one of them is.

1. *A Freeze loses nothing.* After the last gap is filled, the reachable
   concrete positions are exactly those arrangements: with one gap, head
   moves reach every arrangement of column 0's heads and the gap (a gap
   lets any head jump into it, as a free cell does), and the last head
   then fills the gap wherever it is; the head macros' last-gap macros
   explored exactly these.
2. *The moves agree.* In each concrete position the abstract one stands
   for, a legal move either writes no open row's column-1 slot (then its
   legality does not depend on the heads: a gap in column 2 or further
   takes the follower of the card on its left, and column 0 has no gap),
   and it is a move of the abstract position too; or it puts head h's
   follower into open row r's column 1, where h is r's head in that
   arrangement: the Commit of h to r. Conversely, each move of the
   abstract position is legal in every arrangement consistent with it
   (a plain move), or in those that give r the chosen head (a Commit),
   and it leads to the abstract position that stands for exactly the
   concrete successors. So a concrete line from some arrangement is an
   abstract line, and an abstract line is a concrete line from the
   arrangement its Commits and its final position choose (a committed
   row's head never changes again: its follower stands in its column 1,
   and a follower moves only into a column-1 gap beside its head).
3. *The key is the abstract position*: the open rows' heads are hidden,
   the committed rows' shown; two positions with the same key have the
   same moves and the same won test, so a position proven dead under one
   representative is dead under any. Rows stay interchangeable (the key
   sorts them), and :func:`core.reductions.frozen_run_chain` starts no
   chain at an open row, whose run is not frozen (its column-1 card may
   leave for another open row; ``tests/core/test_open_heads.py`` has a
   position whose win such a chain lost). Its argument then holds: a
   chain starts after a committed row's run, head and follower at least,
   so its cards are at least two ranks above a head and never a
   follower; a Commit moves only a follower and writes only an open
   row's columns 0 and 1, so it neither moves a chain's card nor fills a
   chain's target. A chain may empty an open row's column-1 slot (a card
   there that is not a follower): that only enables Commits.
4. *The won test.* :func:`arrangement_win` is asked only where no step is
   left, which is enough. A position won under an arrangement has no
   column-1 gap, so no Commit; its plain moves (where a win still allows
   moves, with fewer rows than heads) leave every run in place, so it
   stays won. And after a Freeze there is no cycle: the lowest card a
   cycle moved would move twice, but a card moves only beside its
   predecessor (a follower by a Commit, beside its head) and stays there
   while that one does. So the search from it reaches a won position
   with no step left.

A won line is written out concretely (``core.search``, with
:func:`freeze_moves`): the Freeze becomes the head moves that make the
final arrangement, then the last head's move; a Commit is its move alone.
The engine replays it like any line the solver gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from gapgrid.core.fills import FillBase
from gapgrid.core.game import Engine
from gapgrid.core.head_macros import arrange
from gapgrid.core.layout import NO_SLOT
from gapgrid.core.macro import Macro

OPEN_HEAD_CODE: Final = 254
"""The byte an open row's column 0 shows in a key (no card has it, and it is not a gap's)."""


class Freeze:
    """A head from ``source`` into column 0's last gap ``gap``: every row becomes open."""

    __slots__ = ("before", "gap", "source")

    def __init__(self, source: int, gap: int, before: tuple[int | None, ...]) -> None:
        self.source, self.gap = source, gap
        self.before = before
        """What column 0 held just before, row by row (the gap as None)."""


class Commit:
    """Open row ``row``'s head chosen: the head of ``head_row`` moves its follower beside it.

    ``row`` and ``head_row`` are column-0 slots (the same when the engine
    already holds that head in the row); the follower moves from
    ``source`` to ``row + 1``.
    """

    __slots__ = ("head_row", "row", "source")

    def __init__(self, row: int, head_row: int, source: int) -> None:
        self.row, self.head_row, self.source = row, head_row, source


def freezes(engine: Engine, pairs: Sequence[tuple[int, int]]
            ) -> tuple[list[tuple[int, int]], list[Freeze]] | None:
    """``pairs`` without the moves that fill column 0 for good, and those moves as Freezes.

    None when no move fills column 0 for good: column 0 must have one gap,
    every other slot of it a head. For :func:`core.reductions.single_successor`
    rules with no redeal to come, as :mod:`core.head_macros`.
    """
    cells, fill = engine.cells, engine.rules.fill
    assert isinstance(fill, FillBase)
    heads = fill.heads()
    starts = engine.run_shape.row_starts
    gap = -1
    for start in starts:
        card = cells[start]
        if card is None:
            if gap >= 0:
                return None  # two gaps: a head moving in leaves column 0 open
            gap = start
        elif card not in heads:
            return None  # a card that may leave column 0 again
    if gap < 0:
        return None
    before = tuple(cells[start] for start in starts)
    kept: list[tuple[int, int]] = []
    frozen: list[Freeze] = []
    left_slots = engine.run_shape.left_slots
    for source, target in pairs:
        if target == gap and left_slots[source] != NO_SLOT:  # from outside column 0
            frozen.append(Freeze(source, gap, before))
        else:
            kept.append((source, target))
    return kept, frozen


def commits(engine: Engine, open_rows: Sequence[int]) -> list[Commit]:
    """Every Commit of the position: a head of an open row into an open row's column-1 gap."""
    cells, fill, where = engine.cells, engine.rules.fill, engine.where
    assert isinstance(fill, FillBase)
    chosen: list[Commit] = []
    for row in open_rows:
        if cells[row + 1] is not None:
            continue
        for head_row in open_rows:
            head = cells[head_row]
            assert head is not None
            chosen.extend(Commit(row, head_row, source)
                          for follower in fill.next_cards(head) for source in where[follower])
    return chosen


def plain_moves(pairs: Sequence[tuple[int, int]], open_rows: Sequence[int]
                ) -> list[tuple[int, int]]:
    """``pairs`` without the moves into an open row's column 1 (those are Commits)."""
    column_one = {row + 1 for row in open_rows}
    return [pair for pair in pairs if pair[1] not in column_one]


def arrangement_win(engine: Engine, open_rows: Sequence[int]) -> list[tuple[int, int]] | None:
    """Head exchanges that make the position won, or None when no arrangement wins.

    Each open row needs the head whose follower stands in its column 1;
    those heads must be the open rows' own. The exchanges are made on the
    engine when they win; the caller takes them back (:func:`exchange_back`).
    """
    cells, fill = engine.cells, engine.rules.fill
    assert isinstance(fill, FillBase)
    head_of = {follower: head for head in fill.heads() for follower in fill.next_cards(head)}
    needed: dict[int, int] = {}  # open row -> the head it needs
    for row in open_rows:
        follower = cells[row + 1]
        if follower not in head_of:
            return None
        needed[row] = head_of[follower]
    held = [card for card in (cells[row] for row in open_rows) if card is not None]
    if sorted(needed.values()) != sorted(held):
        return None
    exchanges: list[tuple[int, int]] = []
    for row in open_rows:
        if cells[row] != needed[row]:
            other = next(slot for slot in open_rows if cells[slot] == needed[row])
            engine.exchange(row, other)
            exchanges.append((row, other))
    if engine.won:
        return exchanges
    exchange_back(engine, exchanges)
    return None


def exchange_back(engine: Engine, exchanges: Sequence[tuple[int, int]]) -> None:
    """Take back head exchanges made on ``engine``."""
    for row, other in reversed(exchanges):
        engine.exchange(row, other)


def freeze_moves(freeze: Freeze, starts: Sequence[int], final: Sequence[int | None],
                 moved: int) -> Macro:
    """The moves that stand for ``freeze`` in a concrete line.

    ``final`` is column 0's arrangement at the end of the line (row by
    row), ``moved`` the head ``freeze`` moved in: the heads already in
    column 0 are arranged as ``final`` has them (``moved``'s place left
    as the gap), then ``moved`` fills that place.
    """
    wanted = [None if card == moved else card for card in final]
    steps = arrange(list(starts), list(freeze.before), wanted)
    return Macro((*steps, (freeze.source, starts[final.index(moved)])))
