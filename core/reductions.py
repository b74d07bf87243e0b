"""What the solver may skip, and in which order it tries moves.

Two different things live here, and the difference matters:

* **Reductions** make the search visit fewer positions. Each one is a
  claim that no winning line is lost, proven in its docstring and checked
  by a test against a search without it on small layouts. Only these may
  shrink a ``lost`` proof.
* **Ordering** (:attr:`Reductions.heuristic_order`, in
  :meth:`Reductions.explore`) only decides which move is tried
  first. It is a heuristic: it makes wins come sooner and cannot change a
  verdict, since every move is still tried.

Which reductions apply is decided per game from its rules: a reduction
that relies on a property of Montana's fill is used only when the rule
object is exactly one of gapgrid's own that has the property, never for a
subclass or a third-party rule, whose behaviour it cannot know.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import attrs

from gapgrid.core.baseline import AllRowsFinished
from gapgrid.core.cards import RANKS_PER_SUIT
from gapgrid.core.fills import AscendingFill, FillBase, JungleFill, MontanaFill
from gapgrid.core.game import Engine
from gapgrid.core.open_heads import OPEN_HEAD_CODE
from gapgrid.core.rules import Rules

_ROW_LOCAL_FILLS: Final = (MontanaFill, JungleFill, AscendingFill)
"""Fill rules that look only at the target's own row (the left neighbour) and at
column 0 of no particular row: the rows are interchangeable under them."""


@attrs.frozen
class Reductions:
    """The reductions a search of one game uses, and its move ordering."""

    rows_interchangeable: bool = False
    """Treat positions that differ only in the order of the rows as one (see
    :func:`rows_interchangeable`)."""

    run_chains: bool = False
    """Explore only a chain of moves that lengthens a frozen run (see :func:`frozen_run_chain`)."""

    head_macros: bool = False
    """Move heads between column-0 gaps only where it is used (:mod:`core.head_macros`)."""

    open_heads: bool = False
    """With head macros: once column 0 is full, choose a row's head only when it matters
    (:mod:`core.open_heads`)."""

    heuristic_order: bool = True
    """Try the moves a player would like first (ordering only, never pruning). Off, the
    search runs its complete restarts alone, with no other search beside them
    (``solve(search="complete")`` turns it off for that; tests, for a plain search)."""

    def explore(self, engine: Engine, pairs: Sequence[tuple[int, int]], ordered: bool = True,
                open_rows: Sequence[int] = ()) -> Sequence[tuple[int, int]]:
        """The card moves to explore from this position, best first.

        A subset of ``pairs`` when a reduction allows it, in the heuristic
        order; in ``pairs``' order when not ``ordered`` (a caller that
        reorders them anyway). ``open_rows`` are the column-0 slots of the
        rows whose head is not chosen yet (:mod:`core.open_heads`): they have
        no run.
        """
        ordered = ordered and self.heuristic_order
        if len(pairs) < 2 or not (self.run_chains or ordered):
            return pairs
        shape = engine.run_shape
        ends = shape.run_ends(engine.cells)  # once, for both
        for start in open_rows:
            ends[shape.slot_rows[start]] = NO_RUN_END
        if self.run_chains and no_redeal_to_come(engine):
            chain = frozen_run_chain(engine, pairs, ends)
            if chain is not None:
                return chain
        if not ordered:
            return pairs
        return sorted(pairs, key=_Scorer(engine, ends).penalty)

    def board_key(self, engine: Engine, open_rows: Sequence[int] = ()) -> bytes:
        """The board as a key for the transposition table.

        With interchangeable rows, and no redeal left to come, the rows are
        sorted, so every reordering of the rows gives the same key. The
        column-0 slots ``open_rows`` show :data:`core.open_heads.OPEN_HEAD_CODE`
        whatever head the engine holds there.
        """
        return shown_key(engine.codes, open_rows, self.key_step(engine))

    def key_step(self, engine: Engine) -> int:
        """The length of the rows :meth:`board_key` sorts: a row's where the rows are
        interchangeable and no redeal is to come (one would tell them apart), else the
        whole board's (kept in order)."""
        if self.rows_interchangeable and no_redeal_to_come(engine):
            return engine.run_shape.rstep
        return len(engine.codes)


def shown_key(codes: bytearray, open_rows: Sequence[int], step: int) -> bytes:
    """:meth:`Reductions.board_key` of a board's ``codes``: the column-0 slots ``open_rows``
    shown as :data:`core.open_heads.OPEN_HEAD_CODE`, the rows of ``step`` slots sorted.

    A ``step`` of the whole board keeps the rows in their order. The search asks this
    at every position, so it calls it directly where it knows the step for good.
    """
    if open_rows:
        codes = bytearray(codes)  # a copy: the engine's own codes stay as they are
        for start in open_rows:
            codes[start] = OPEN_HEAD_CODE
    key = bytes(codes)
    if step >= len(key):
        return key
    return b"".join(sorted([key[start:start + step] for start in range(0, len(key), step)]))


NONE: Final = Reductions(rows_interchangeable=False, run_chains=False, head_macros=False,
                         open_heads=False, heuristic_order=False)
"""A plain search: every position distinct, moves in slot order (for cross-checks)."""


def no_redeal_to_come(engine: Engine) -> bool:
    """Tell whether no redeal can happen any more in this game."""
    return engine.never_redeals or engine.rules.redeals_left(engine.redeals_used) == 0


def rows_interchangeable(rules: Rules) -> bool:
    """Tell whether reordering the rows of a position changes nothing that matters.

    Sound when all of these hold, which the check below requires:

    * the fill rule is exactly Montana's, Jungle's or Spaces and Aces' rule:
      a gap outside column 0 takes a card according to the card on its left,
      in the same row, and a gap in column 0 takes a card of rank RBASE
      whatever the row; nothing depends on which row a row is;
    * the won rule is exactly "every row holds its full run", which asks the
      same of every row;
    * no redeal is left to come (checked per position by the key): a redeal
      gathers row by row and deals back in reading order, so it would treat
      two reorderings differently.

    Then a permutation of the rows maps every legal move to a legal move and
    every won position to a won position, in both directions, so a position
    has a winning line exactly when its reordering has one.
    """
    return type(rules.fill) in _ROW_LOCAL_FILLS and type(rules.won) is AllRowsFinished


def single_successor(rules: Rules) -> bool:
    """Tell whether each card has at most one card that may follow it, and one copy.

    True for exactly Montana's fill rule with one deck: a gap outside column 0
    then takes only the card one higher, same suit, than its left neighbour,
    and that card is in one slot. :func:`frozen_run_chain` and
    :func:`core.head_macros.head_macros` rely on it.
    """
    return (type(rules.fill) is MontanaFill and rules.layout.decks == 1
            and type(rules.won) is AllRowsFinished)


def reductions_for(rules: Rules) -> Reductions:
    """Every reduction that is sound for ``rules``, with the heuristic ordering."""
    one_successor = single_successor(rules)
    return Reductions(rows_interchangeable=rows_interchangeable(rules),
                      run_chains=one_successor, head_macros=one_successor,
                      open_heads=one_successor)


NO_RUN_END: Final = -1
"""A row's run end (:meth:`core.runs.RunShape.run_ends`) when the row has no run that is
frozen (an open row)."""


def frozen_run_chain(engine: Engine, pairs: Sequence[tuple[int, int]],
                     ends: list[int] | None = None) -> list[tuple[int, int]] | None:
    """A stubborn set: moves that may be explored alone, or None when none is found.

    For :func:`single_successor` rules, with no redeal to come and every
    column-0 slot holding a card of rank RBASE (every row has its head).

    *Frozen cards.* No column-0 slot can ever become a gap (a head moves only
    into an empty column-0 slot, and there is none), so no head moves; a
    card of a run moves only right of the card before it, which is its own
    slot: every card of every run is frozen for good.

    *The chain.* Let ``t0`` move card ``x0`` from ``s0`` into the slot right
    after a run. While ``x_i`` is not the last rank, ``s_i`` is not in the
    last column and the slot ``s_i + 1`` is a gap, add the move ``t_{i+1}``
    of ``x_{i+1} = succ(x_i)`` (from ``s_{i+1}``) into ``s_i + 1``; it is
    legal now. The chain is accepted when it ends because ``x_k`` is the
    last rank, or ``s_k`` is in the last column, or ``s_k + 1`` already
    holds ``succ(x_k)``; it is refused when ``s_k + 1`` holds another card.

    *Why exploring only the chain keeps every win* (Valmari's stubborn sets,
    which preserve every reachable deadlock; a won position is one, and the
    engine allows no move after a win). Take any sequence ``u`` of moves
    outside the chain. (1) ``t0`` stays legal along ``u``: the card before
    ``x0`` is frozen, only ``x0`` may fill the gap after it, and ``x0`` may
    go nowhere else. (2) Each ``t_i`` commutes with every move of ``u``: the
    moves write different slots, and a move of ``u`` could only be disabled
    by ``t_i`` if it took ``succ(x_i)`` into ``s_i + 1`` while ``x_i`` still
    stood in ``s_i``. For ``i < k`` that move is ``t_{i+1}``, in the chain;
    for ``i = k`` it is impossible (no successor; ``s_k + 1`` in the next
    row's column 0, which takes only heads; or ``succ(x_k)`` already there,
    and it could only leave to the right of ``x_k``, its own slot). And no
    move of ``u`` can disable ``t_i``: ``x_i``'s only destination is right
    of ``x_{i-1}``, which stays put outside the chain, and only ``x_i`` may
    fill the slot right of ``x_{i-1}``. So every path to a deadlock can be
    reordered to start with a move of the chain.
    """
    cells, rules, shape = engine.cells, engine.rules, engine.run_shape
    rbase, last_rank = shape.head_rank, shape.sequence[-1]
    for start in shape.row_starts:  # first the cheap test that every row has its head
        head = cells[start]
        if head is None or head % RANKS_PER_SUIT != rbase:
            return None
    if ends is None:
        ends = shape.run_ends(cells)
    fill = rules.fill
    assert isinstance(fill, FillBase)
    rows, next_slots, where = shape.slot_rows, shape.next_slots, engine.where
    for source, target in pairs:
        if target != ends[rows[target]]:
            continue
        chain = [(source, target)]
        card, slot = cells[source], source
        while True:
            assert card is not None
            right = next_slots[slot]
            if card % RANKS_PER_SUIT == last_rank or right < 0 or rows[right] != rows[slot]:
                return chain
            (successor,) = fill.next_cards(card)
            held = cells[right]
            if held == successor:
                return chain
            if held is not None:
                break
            (successor_slot,) = where[successor]
            chain.append((successor_slot, right))
            card, slot = successor, successor_slot
    return None


class _Scorer:
    """Ranks moves for the ordering: lower penalty first.

    Prefers moves that lengthen a row's run (most of all those that join a
    card already waiting after it), and avoids moves that leave a gap nothing
    can ever fill (right of a row's last rank) or that break a run.
    """

    __slots__ = ("cells", "ends", "fill", "shape")

    def __init__(self, engine: Engine, ends: list[int]) -> None:
        self.cells = engine.cells
        self.shape = engine.run_shape
        fill = engine.rules.fill
        self.fill = fill if isinstance(fill, FillBase) else None
        self.ends = ends
        """The slot right after each row's run (:meth:`core.runs.RunShape.run_ends`)."""

    def penalty(self, pair: tuple[int, int]) -> int:
        source, target = pair
        shape, cells, ends = self.shape, self.cells, self.ends
        score = 0
        rows = shape.slot_rows
        if target == ends[rows[target]]:
            score -= 1000 + 10 * self._joins(target, cells[source])
        if source < ends[rows[source]]:
            score += 2000  # takes a card out of a run
        left = shape.left_slots[source]
        if left >= 0 and self.fill is not None:
            left_card = cells[source] if left == target else cells[left]
            if left_card is None or not self.fill.next_cards(left_card):
                score += 100  # leaves a gap that stays dead
        return score

    def _joins(self, target: int, card: int | None) -> int:
        """How many cards already stand in order right of ``target`` after ``card``."""
        if self.fill is None or card is None:
            return 0
        cells, count = self.cells, 0
        next_slots, rows = self.shape.next_slots, self.shape.slot_rows
        slot = next_slots[target]
        while slot >= 0 and rows[slot] == rows[target]:
            following = cells[slot]
            if following is None or following not in self.fill.next_cards(card):
                break
            card = following
            count += 1
            slot = next_slots[slot]
        return count
