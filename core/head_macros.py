"""A reduction for the moves of heads between column-0 gaps: make them only where they are used.

Under Montana's fill with one deck, a *head* (a card of rank RBASE: the 2s
of single-round Gaps) may only go into a column-0 gap, and nothing else
may. While column 0 holds both heads and gaps, the heads can be moved from
one column-0 slot to another in any order, and a plain search explores
every arrangement of them combined with every other move: most of the
positions of a loss proof in single-round Gaps are those arrangements.

:func:`head_macros` replaces the moves of a head from column 0 to column 0
by *macros*: a few such moves, immediately followed by the move that uses
the new arrangement. Every action of a macro is a legal move, so a line
made of them replays as it is.

Why no win is lost (the argument; ``tests/core/test_reductions.py``
checks it against a plain search on 1,000 small deals and 1,000 positions
part way into games, ``tests/core/test_head_macros.py`` on positions that
need each kind of macro). Let P be a
position, A the arrangement of the heads and gaps in its column 0 (the
slots S of column 0 that hold a head or a gap), and call a *head move* a
move of a head from a slot of S to a gap of S. Take a winning line from P
with the fewest moves that are not head moves, n of them. It starts with a
block B of head moves (possibly none), which turns A into A_B, and then a
move v that is not a head move. The reduced successors of P, below, hold
a position Q from which the position after B and v can be reached by head
moves alone, so Q has a winning line with n - 1 moves that are not head
moves; by induction on n (a won position has no column-0 gap, so n = 0 is
the won position itself), every position with a winning line keeps one
through the reduced successors. Two facts are used: (1) with at least one
gap in S, head moves reach every arrangement of S's contents (a gap lets
any head jump into it, as a free cell does); (2) a head can go only into
column 0 (no card is followed by a head), and only heads go there. The
cases for v, moving card c from x to t:

* t is in column 2 or further, or in column 1 of a row whose column-0
  slot B left as it was (c is not a head): v does not depend on A, and B
  does not depend on v (v neither fills nor empties a slot of S). So v is
  a reduced successor, and B can follow it.
* t is in column 1 of a row r whose column-0 slot B changed: A_B puts
  there a head h, and c is h's follower. The macro *(r's head to a gap,
  if it has one) h to r's column 0, c to (r, 1)* gives Q; Q and the
  position after B and v differ only in the arrangement of S outside r,
  with a gap left in it (h's old slot), so by (1) head moves join them.
* t is in column 0 (c is a head from column 1 or further). If S has two
  gaps or more, the plain move of c into any gap gives Q: the two
  arrangements hold the same cards and still a gap, so (1) joins them. If
  S has one gap, filling it fixes the arrangement until a card that is
  not a head leaves column 0; so every arrangement of S with its gap at
  some slot s, each followed by c into s, is a macro (the arrangement A
  itself being the plain move).

Each macro is a real path of legal moves, so a position the reduced search
finds won is won. And every position proven dead in the reduced graph is
dead in the real one: the measure n above is the same for positions that
differ only in the order of their rows, so the argument holds with
:func:`core.reductions.rows_interchangeable`'s keys, and it holds beside
:func:`core.reductions.frozen_run_chain`, which applies only where column
0 has no gap (and keeps n too: its chain is reordered from a winning line).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence

from gapgrid.core.fills import FillBase
from gapgrid.core.game import Engine
from gapgrid.core.layout import NO_SLOT
from gapgrid.core.macro import Macro


def head_macros(engine: Engine, pairs: Sequence[tuple[int, int]], last_gap: bool = True
                ) -> tuple[list[tuple[int, int]], list[Macro]] | None:
    """The moves to explore instead of ``pairs``: plain moves, then macros; None when no head moves.

    For :func:`core.reductions.single_successor` rules with no redeal to
    come (a redeal depends on the whole arrangement). ``pairs`` are the
    position's legal moves. The plain moves are ``pairs`` without the moves
    of a head from column 0 to column 0; the macros are described in the
    module's docstring, which also argues why nothing is lost. Without
    ``last_gap`` the macros that rearrange column 0 before its last gap is
    filled are left out: the caller fills it with :class:`core.open_heads.Freeze`.
    """
    cells, fill = engine.cells, engine.rules.fill
    assert isinstance(fill, FillBase)
    left_slots = engine.run_shape.left_slots
    heads = fill.heads()
    starts = engine.run_shape.row_starts
    column_gaps = [start for start in starts if cells[start] is None]
    headed = [start for start in starts if cells[start] in heads]
    if not column_gaps or not headed:
        return None  # no head can move from column 0 to column 0
    plain = [(source, target) for source, target in pairs
             if left_slots[source] != NO_SLOT or left_slots[target] != NO_SLOT]
    macros: list[Macro] = []
    spare_gap = column_gaps[0]
    where = engine.where
    slots = sorted(headed + column_gaps)  # S: the column-0 slots heads can move among
    for start in slots:  # a head placed here, its follower next to it
        second = start + 1
        if cells[second] is not None:
            continue
        for head_slot in headed:
            if head_slot == start:
                continue
            head = cells[head_slot]
            assert head is not None
            placing: tuple[tuple[int, int], ...] = (
                ((start, spare_gap),) if cells[start] is not None else ())
            placing += ((head_slot, start),)
            macros.extend(Macro((*placing, (slot, second)))
                          for follower in fill.next_cards(head) for slot in where[follower])
    if last_gap and len(column_gaps) == 1:
        macros.extend(_last_gap_fills(engine, slots, heads))
    return plain, macros


def _last_gap_fills(engine: Engine, slots: list[int], heads: tuple[int, ...]) -> list[Macro]:
    """Every other arrangement of ``slots`` (heads, one gap), then an outside head into the gap."""
    cells, left_slots = engine.cells, engine.run_shape.left_slots
    outside = sorted(slot for head in heads for slot in engine.where[head]
                     if left_slots[slot] != NO_SLOT)
    if not outside:
        return []
    return [Macro((*steps, (source, gap)))
            for steps, gap in _rearrangements(tuple(slots), tuple(cells[slot] for slot in slots))
            for source in outside]


@functools.lru_cache(maxsize=4096)
def _rearrangements(slots: tuple[int, ...], now: tuple[int | None, ...]
                    ) -> tuple[tuple[tuple[tuple[int, int], ...], int], ...]:
    """For every arrangement of ``now`` but itself: the head moves that make it, and its gap.

    ``now`` is what ``slots`` hold, one of them a gap. Cached: a search
    meets the same few column-0 arrangements again and again.
    """
    plans = []
    for arrangement in itertools.permutations(now):
        if arrangement != now:
            gap = slots[arrangement.index(None)]
            plans.append((tuple(arrange(list(slots), list(now), arrangement)), gap))
    return tuple(plans)


def arrange(slots: list[int], now: list[int | None], wanted: Sequence[int | None]
             ) -> list[tuple[int, int]]:
    """Head moves that turn the contents ``now`` of ``slots`` (one gap) into ``wanted``.

    The free-cell way: while the gap is not where it belongs, fill it with
    the head that belongs there; when it is, move any misplaced head into it.
    """
    steps = []
    while now != list(wanted):
        gap = now.index(None)
        belongs = wanted[gap]
        if belongs is not None:
            source = now.index(belongs)
        else:
            source = next(index for index, card in enumerate(now) if card != wanted[index])
        steps.append((slots[source], slots[gap]))
        now[gap], now[source] = now[source], None
    return steps
