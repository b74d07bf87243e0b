"""Nested rollouts: a search for wins that looks ahead by playing games out at random.

Nested Monte Carlo search (Cazenave, "Nested Monte-Carlo Search", IJCAI
2009), at level 1: from the current position, every action is tried and
followed by a *playout*, a game played on to its end with random actions
drawn by a simple policy; the action that starts the best game seen so far
(scored by the game's evaluation, :mod:`core.evaluation`, where it ends) is
played, and the same is done from there, until the game ends. The best game
seen is remembered, so the line only improves. When it ends without a win a
new level-1 search starts over from the start, with the same generator
going on (a different game).

Why it is in the solver: in the single-round games the greedy orders of
the other searches walk into positions that look good and are dead, where
what matters is whether the gaps stay alive for long; a playout sees that.
With them the solver decides 17 of the 30 anchor deals of single-round
Gaps at 300,000 positions instead of 12 (``docs/solver.md``).

It only looks for wins: it proves nothing, prunes nothing, and a line it
finds is replayed by the engine like any other. Every random choice comes
from a generator seeded by the search, so the same position always gives
the same line.

The playout policy, a heuristic: when some card move fills the slot right
after a row's run, one of those is drawn most of the time
(:data:`EXTEND_RUNS`); otherwise a move that does not take a card out of a
run, when there is one; a redeal only when no card move is left.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator
from typing import Final

from gapgrid.core.cards import RANKS_PER_SUIT
from gapgrid.core.game import Engine
from gapgrid.core.reductions import run_ends
from gapgrid.core.runs import run_length

Action = tuple[int, int] | None
"""A card move (source, target), or None for a redeal."""

EXTEND_RUNS: Final = 0.7
"""How often a playout lengthens a run when it can (else it draws among the other moves)."""

PLAYOUT_STEPS_PER_SLOT: Final = 6
"""A playout stops after this many actions per slot of the grid: where a card may move back
and forth (ascending fills, sliding puzzles), a random game need not end by itself."""

_WON: Final = 1 << 60
"""A playout's score when it wins: above any evaluation."""


class NestedRollouts:
    """A resumable level-1 nested Monte Carlo search from one position.

    :meth:`steps` yields, after each playout, the number of actions it
    played plus one for the action tried before it (the caller's measure of
    work, and its chance to stop, as the other searches stop at their budget
    before looking whether a position is won); it returns the winning line
    at the next call after a playout wins, or None when the start has no
    action at all. It never ends otherwise: each level-1 search that ends without a
    win is followed by another.
    """

    def __init__(self, engine: Engine, evaluate: Callable[[Engine], int], seed: int = 0,
                 max_steps: int | None = None) -> None:
        self.engine = engine
        """The search's own engine, at the start between level-1 searches."""
        self.evaluate = evaluate
        self.random = random.Random(seed)
        layout = engine.rules.layout
        self._rows = layout.slot_rows
        self._layout = layout
        self._row_starts = tuple(layout.row_starts())
        self.max_steps = max_steps or PLAYOUT_STEPS_PER_SLOT * len(engine.cells)
        """The most actions of a playout, and of a level-1 search's own line."""

    def steps(self) -> Generator[int, None, list[Action] | None]:
        """Play level-1 searches one after the other; see the class docstring."""
        while True:
            line = yield from self._level_one()
            if line is not None:
                return line
            if not self._actions():
                return None  # nothing to play from the start: nothing to look for

    # -- one level-1 search ------------------------------------------------------

    def _level_one(self) -> Generator[int, None, list[Action] | None]:
        """One level-1 search from the start; returns the winning line, or None."""
        best_score, best_line = -_WON, list[Action]()
        played: list[Action] = []
        try:
            while len(played) < self.max_steps:
                actions = self._actions()
                if not actions:
                    return None
                for action in actions:
                    self._do(action)
                    score, playout = self._playout()
                    self._undo(action)
                    yield len(playout) + 1
                    if score > best_score:
                        best_score, best_line = score, [*played, action, *playout]
                        if score == _WON:
                            return best_line
                # ``played`` is a beginning of ``best_line``, and shorter: the best game
                # ends where no action is left (caught above) or after the cap, past the
                # loop's own cap.
                action = best_line[len(played)]
                self._do(action)
                played.append(action)
            return None
        finally:  # back to the start, also when the caller stops early
            for action in reversed(played):
                self._undo(action)

    def _playout(self) -> tuple[int, list[Action]]:
        """Play on at random until the game ends; the end's score and the actions, taken back."""
        engine, draw, rows = self.engine, self.random.random, self._rows
        line: list[Action] = []
        ends = run_ends(self._layout, engine.cells)  # kept up to date move by move below
        while len(line) < self.max_steps and not engine.won:
            pairs = engine.legal_pairs()
            if pairs:
                lengthening = [pair for pair in pairs if pair[1] == ends[rows[pair[1]]]
                               and self._lengthens(pair)]
                if lengthening and draw() < EXTEND_RUNS:
                    pairs = lengthening
                else:
                    keeping = [pair for pair in pairs if pair[0] >= ends[rows[pair[0]]]]
                    pairs = keeping or pairs
                action: Action = pairs[int(draw() * len(pairs))]
            elif engine.redeal_refusal() is None:
                action = None
            else:
                break
            self._do(action)
            if action is None:
                ends = run_ends(self._layout, engine.cells)
            else:
                self._update_ends(ends, *action)
            line.append(action)
        score = _WON if engine.won else self.evaluate(engine)
        for action in reversed(line):
            self._undo(action)
        return score, line

    def _update_ends(self, ends: list[int], source: int, target: int) -> None:
        """Bring ``ends`` (:func:`core.reductions.run_ends`) up to date after the card in
        ``source`` moved to ``target``: only those two slots changed, so only a run that
        lost its card at ``source`` gets shorter, and only one that now reaches
        ``target`` longer (a playout's every step needs the runs' ends, and working them
        out over the whole board was a fifth of its time)."""
        rows = self._rows
        row = rows[source]
        if source < ends[row]:
            ends[row] = source
        row = rows[target]
        if target == ends[row]:
            ends[row] = self._row_starts[row] + run_length(self._layout, self.engine.cells, row)

    def _lengthens(self, pair: tuple[int, int]) -> bool:
        """Tell whether the move, into the slot right after its row's run (the caller has
        checked that), puts the run's next card there.

        Under Montana's fill a card fills the slot after a run only if it is
        the run's next card; fills that take any higher card (Spaces and Aces)
        may put another one there, which blocks the run instead.
        """
        source, target = pair
        cells, sequence = self.engine.cells, self._layout.sequence_ranks
        card = cells[source]
        assert card is not None
        length = target - self._row_starts[self._rows[target]]
        if length == 0:
            return card % RANKS_PER_SUIT == sequence[0]
        head = cells[target - length]
        assert head is not None
        return length < len(sequence) and card == head - sequence[0] + sequence[length]

    # -- actions -------------------------------------------------------------------

    def _actions(self) -> list[Action]:
        """The actions from here: every card move, or a redeal when no card move is left."""
        engine = self.engine
        if engine.won:
            return []
        pairs: list[Action] = list(engine.legal_pairs())
        if not pairs and engine.redeal_refusal() is None:
            pairs.append(None)
        return pairs

    def _do(self, action: Action) -> None:
        if action is None:
            refusal = self.engine.redeal()
            assert refusal is None
        else:
            self.engine.play(*action)

    def _undo(self, action: Action) -> None:
        if action is None:
            self.engine.undo()
        else:
            self.engine.unplay(*action)
