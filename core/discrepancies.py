"""Limited discrepancy search along the restarts' heuristic order: a search for wins only.

The first depth-first restart follows the heuristic order of
:mod:`core.reductions` (with head macros, Freezes and Commits as the
restarts play them). Limited discrepancy search (Harvey and Ginsberg)
trusts that order: iteration K explores every line that departs from it by
at most K discrepancies, where taking the i-th step of a position (from 0)
costs i of them. So the lines the order almost chose come first, whatever
their depth, where a depth-first restart stays in the subtree of its first
choices.

One table maps each position to the most discrepancies left that it was
explored with, kept across iterations: a position is explored again only
with more left (and each time counted as a position, as the restarts
count theirs). An iteration that leaves no step out for want of
discrepancies has explored the whole space; the search is then done, and
claims nothing (losses are the complete restarts' to prove).

This module keeps the search's state between its turns; the turns
themselves are :meth:`core.search._Search.discrepancy_turn`, which share the
solver's engine: between turns the path is taken back, and played again at
the next turn.

It runs past :data:`core.schedule.PROOFS_LATE`, in the share that the
rollouts had there, and more at first (:func:`core.schedule.beside_levels_due`).
Why: alone, on the single-round Gaps deals that solver 15 won only past
that knee, it won 12 of 61 within 3 million positions, some in a few
hundred thousand where solver 15 needed tens of millions (game 850: 57,089
against 14,486,359; game 120: 1.3 million against 64 million); and it won
game 261, which solver 15 left unknown after 1,200 s, and anchor 012,
which no search of ours had won (docs/solver.md, "Kept (twenty-eighth
sitting)").
"""

from __future__ import annotations

from gapgrid.core.macro import Macro
from gapgrid.core.open_heads import Commit, Freeze

Step = tuple[int, int] | Macro | Freeze | Commit | None
"""A step of the depth-first searches: a card move, a head macro, column 0's last gap filled
for good, an open row's head chosen (:mod:`core.open_heads`), or a redeal (None)."""


class DiscrepancyFrame:
    """One position on the path: its steps in the heuristic order, the next one to try,
    and the discrepancies left there."""

    __slots__ = ("cursor", "left", "steps")

    def __init__(self, steps: list[Step], left: int) -> None:
        self.steps = steps
        self.cursor = 0
        self.left = left


class Discrepancies:
    """The search's state between turns: the iteration under way, its path, the table."""

    __slots__ = ("cut", "explored_with", "finished", "frames", "limit", "memory", "path",
                 "spent", "table_bytes")

    def __init__(self, memory: int) -> None:
        self.explored_with: dict[bytes, int] = {}
        """Each position explored, and the most discrepancies left it was explored with."""
        self.table_bytes = 0
        """The bytes :attr:`explored_with` is charged with (as the search counts them)."""
        self.memory = memory
        """The bytes its table may hold; past them the search is done and gives it back."""
        self.limit = -1
        """The discrepancies allowed in the iteration under way (-1: none started yet)."""
        self.frames: list[DiscrepancyFrame] = []
        """The positions on the path of the iteration under way (empty: none under way)."""
        self.path: list[Step] = []
        """The steps from the start to the last frame's position (one fewer than frames)."""
        self.cut = False
        """Whether the iteration under way left a step out for want of discrepancies."""
        self.finished = False
        """Whether it is done: it explored the whole space, or its table filled its memory."""
        self.spent = 0
        """The positions it has explored, in all its turns."""

    @property
    def full(self) -> bool:
        """Whether its table holds more than its memory."""
        return self.table_bytes > self.memory

    def next_iteration(self) -> bool:
        """Start the next iteration (the first allows no discrepancy); False when the last
        one left no step out for want of discrepancies: it explored the whole space, and
        there is nothing more to try."""
        if self.limit >= 0 and not self.cut:
            return False
        self.limit += 1
        self.cut = False
        return True
