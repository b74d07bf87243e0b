"""Levels of the fixed-heads restarts in a long search: level K allows K head macros a line.

The fixed-heads restarts (:data:`core.schedule.FIXED_HEADS_SHARE`) look for
wins where no head leaves column 0. Past :data:`core.schedule.PROOFS_LATE`
(about a minute of a search here) they go on in levels: a restart of level K
may play at most K head macros (:mod:`core.head_macros`) along its path, so
level 0 is the fixed-heads space itself, and each level's space holds the one
below. The levels look for wins only, like level 0.

Their table of dead positions is shared: its key is the position with the
head macros still allowed there, and whether a position can still reach a
win with R more macros does not depend on the level of the restart that
asked (the moves tried from it are the same). A restart of level K that
finishes proves that no line with at most K head macros wins, so every level
up to K is done; the next ones take its place.

Why: on single-round Gaps deals that solver 14 left undecided after 1,200 s
(46) or won only after some 45 million positions of the complete restarts
(12), the fixed-heads restarts alone win at 5.8 million positions; on game 59
(won by solver 14 after 9.4 million positions), level 1 alone wins at 1.7
million, where level 0 had not within 3 million (docs/solver.md, "Kept
(nineteenth sitting)").
"""

from __future__ import annotations

from typing import Final

HEAD_LEVELS: Final = 3
"""How many levels take turns: the lowest one not yet done and the two above it."""

MAX_HEAD_LEVEL: Final = 15
"""The highest level. A line with more head macros is left to the complete restarts; the
levels a lost deal's levels climb through in a long search stop there rather than spend
half of the positions on spaces ever closer to the whole one (not measured: the wins
measured were at levels 0 and 1)."""


class HeadLevels:
    """The levels that take turns, each with its own count of restarts (for Luby's sequence
    and the move order) and the positions it has spent; the next restart goes to the level
    that has spent the fewest, so each gets an even share."""

    __slots__ = ("attempts", "floor", "spent", "total")

    def __init__(self, floor: int, attempts_at_floor: int = 0) -> None:
        """Levels from ``floor`` up; the one at ``floor`` has made ``attempts_at_floor``
        restarts already (level 0's, before the search was left to the proofs)."""
        self.floor = floor
        """The lowest level not known to be done."""
        self.attempts: dict[int, int] = {}
        self.spent: dict[int, int] = {}
        self._join_levels(spent=0)
        if floor in self.attempts:
            self.attempts[floor] = attempts_at_floor
        self.total = 0
        """The positions all levels have spent, those done included."""

    @property
    def finished(self) -> bool:
        """Whether every level up to :data:`MAX_HEAD_LEVEL` is done."""
        return not self.spent

    def next(self) -> int:
        """The level whose turn it is: the one that has spent the fewest positions (the
        lowest of equals)."""
        return min(self.spent, key=lambda level: (self.spent[level], level))

    def record(self, level: int, positions: int) -> None:
        """Count ``positions`` spent by a restart of ``level``."""
        self.spent[level] += positions
        self.total += positions

    def done(self, level: int) -> None:
        """A restart of ``level`` finished without a win: no line with at most ``level`` head
        macros wins, so that level and every one below it are done. The levels above take
        their place, up to :data:`MAX_HEAD_LEVEL`, the new ones starting even with the least
        spent of those left (from 0 when none is left)."""
        for old in [each for each in self.attempts if each <= level]:
            del self.attempts[old]
            del self.spent[old]
        self.floor = level + 1
        self._join_levels(spent=min(self.spent.values(), default=0))

    def _join_levels(self, spent: int) -> None:
        """Add the levels from :attr:`floor` on that are missing (up to :data:`HEAD_LEVELS` of
        them, none past :data:`MAX_HEAD_LEVEL`), each with no restart yet and ``spent``."""
        for new in range(self.floor, min(self.floor + HEAD_LEVELS, MAX_HEAD_LEVEL + 1)):
            if new not in self.attempts:
                self.attempts[new] = 0
                self.spent[new] = spent
