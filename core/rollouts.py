"""Nested rollouts: a search for wins that looks ahead by playing games out at random.

Nested Monte Carlo search (Cazenave, "Nested Monte-Carlo Search", IJCAI
2009), at level 1: from the current position, every action is tried and
followed by a *playout*, a game played on to its end with random actions
drawn by a simple policy; the action that starts the best game seen so far
(scored by the game's evaluation, :mod:`core.evaluation`, where it ends) is
played, and the same is done from there, until the game ends. The best game
seen is remembered, so the line only improves. Unlike Cazenave's search,
the next round of trials comes after a few actions of the best game rather
than after one (:data:`SLOTS_PER_STRIDE`). When it ends without a win a
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
after a row's run, one of those most of the time (:data:`EXTEND_RUNS`);
otherwise a move that does not take a card out of a run, when there is
one, and, where the fill rule also lets in cards that pair with neither
neighbour (Spaces and Aces, Jungle), most of the time (:data:`PAIR_UP`) one
that puts a card beside a neighbour of its finished row. Of the moves left
to draw from, most of the time (:data:`KEEP_GAPS_ALIVE`) one that does not
leave behind a gap nothing can fill. Both rules hold only under fill rules
of gapgrid's kind that decide by the left card alone
(:func:`decides_by_left_card`). A redeal only when no card move is left.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator
from typing import Final

from gapgrid.core.cards import CARDS_PER_DECK, RANKS_PER_SUIT
from gapgrid.core.evaluation import sequence_followers
from gapgrid.core.fills import FillBase
from gapgrid.core.game import Engine
from gapgrid.core.layout import Layout
from gapgrid.core.rules import Rules

Action = tuple[int, int] | None
"""A card move (source, target), or None for a redeal."""

EXTEND_RUNS: Final = 0.7
"""How often a playout lengthens a run when it can (else it draws among the other moves)."""

PAIR_UP: Final = 0.7
"""How often a playout that does not lengthen a run keeps to the moves that put a card
beside a neighbour it stands next to in a finished row, when some moves do and some do not.

Under Montana's fill every move outside column 0 does (a gap takes only its
left neighbour's next card), so nothing changes there; under Spaces and
Aces' ascending fill a gap after the 3 of spades also takes the 9, which
blocks the row until the 9 leaves again. The rollouts alone, 2,400,000
playout actions a deal at most, Spaces and Aces game numbers 1 to 50: all
50 won in 6.1 million actions in all with it and 20.5 million without
(seed 1; seed 2: 5.6 and 25.6 million, 49 won without); Jungle 1 to 50,
0.95 and 1.7 million (docs/solver.md, "Kept (eleventh sitting)")."""

KEEP_GAPS_ALIVE: Final = 0.7
"""How often a playout keeps to the moves that leave a gap something may fill, when some
moves do and some do not (where cards jump).

A card that leaves the slot right of a King, or of a gap, leaves a gap
nothing can fill while its left neighbour stays: one gap fewer to play
with, and a single-round game ends when all its gaps are dead. The rollouts
alone, 2,400,000 playout actions a deal at most (docs/solver.md, "Kept
(eleventh sitting)"), seeds 1 and 2, with a first version of the rule
(a card moving into the slot on its left always counted as leaving a live
gap): Paganini II game numbers 1 to 50, 47 and 47 won against 42 and 44;
the 30 anchor deals of single-round Gaps, 17 and 19 against 17 and 17;
Spaces and Aces and Jungle (with :data:`PAIR_UP`) in 4.2 and 0.39 million
actions against 6.1 and 0.95. This rule, Paganini II, seed 1: 49 won."""

PLAYOUT_STEPS_PER_SLOT: Final = 6
"""A playout stops after this many actions per slot of the grid: where a card may move back
and forth (ascending fills, sliding puzzles), a random game need not end by itself."""

SLOTS_PER_STRIDE: Final = 13
"""A level-1 search tries every action again after each :func:`line_stride` actions of its
line, one for each 13 slots of the grid: 4 for Gaps, 8 for Paganini II.

Trying every action after each action of the line (Cazenave's level 1,
solvers 4 to 9) spends most of a search on positions a move apart, where
most moves touch other gaps than the one just filled, so the trials
mostly choose what they chose a move before. Played a few actions at a
time, a search costs a fraction as much, and the rollouts get through
more of them. The rollouts alone, playout actions to a win on game
numbers 1 to 50, seeds 1, 2 and 3, trying every action after each action
/ after every 8: Paganini II 49, 46 and 46 won within 2,000,000 actions
(23.7, 26.1 and 28.6 million actions in all, a deal stopped at
3,000,000) / 50, 49 and 48 (10.7, 11.7 and 14.9 million, stopped at
2,500,000); Spaces and Aces, seed 1, all 50 won, in 4.4 / 2.3 million
(after every 4: 2.8 million). On the 30 anchor deals of single-round
Gaps (four gaps, where most decisions matter), 2,000,000 actions at
most: after every 8 actions fewer were won (seed 2: 17 against 20),
after every 4 as many (seed 2: 20 and 20; seed 3: 19 and 19), hence a
stride that grows with the grid (docs/solver.md, "Kept (fourteenth
sitting)")."""

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
        shape = self._shape = engine.run_shape
        self._rows, self._row_starts = shape.slot_rows, shape.row_starts
        self.max_steps = max_steps or PLAYOUT_STEPS_PER_SLOT * len(engine.cells)
        """The most actions of a playout; a level-1 search tries no action past this many of
        its own line (its last stride may take the line a few actions further)."""
        self.stride = line_stride(layout)
        """Actions of the best game a level-1 search plays between two rounds of trials."""
        self._following = sequence_followers(layout)
        self._left_slots, self._next_slots = shape.left_slots, shape.next_slots
        self._gaps_matter = decides_by_left_card(engine.rules)
        """Whether a gap right of the last rank or of a gap is dead (:data:`KEEP_GAPS_ALIVE`)."""
        self._pairs_matter = lets_in_unpaired_cards(engine.rules)
        """Whether a move may put a card beside no neighbour of its finished row
        (:data:`PAIR_UP`): not under Montana's fill."""
        self._next_card_only = self._gaps_matter and not self._pairs_matter
        """Whether the slot right after a run takes only the run's next card (Montana's fill:
        a gap takes its left card's follower, column 0 a head), so that every move into it
        lengthens the run and :meth:`_lengthens` need not be asked."""

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
                # loop's own cap. A won game ends the search above, so none of these
                # actions passes a won position.
                for action in best_line[len(played):len(played) + self.stride]:
                    self._do(action)
                    played.append(action)
            return None
        finally:  # back to the start, also when the caller stops early
            for action in reversed(played):
                self._undo(action)

    def _playout(self) -> tuple[int, list[Action]]:
        """Play on at random until the game ends; the end's score and the actions, taken back."""
        engine = self.engine
        # Bound once: a playout's every step calls these (with _next_card_only, 6 % faster).
        cells = engine.cells
        legal_pairs, play, choose, update_ends = (engine.legal_pairs, engine.play, self._choose,
                                                  self._update_ends)
        line: list[Action] = []
        ends = self._shape.run_ends(cells)  # kept up to date move by move below
        steps_left = self.max_steps
        while steps_left and not engine.won:
            steps_left -= 1
            pairs = legal_pairs()
            if pairs:
                source, target = choose(pairs, ends)
                play(source, target)
                update_ends(ends, source, target)
                line.append((source, target))
            elif engine.redeal_refusal() is None:
                engine.redeal()  # taken back by ``undo`` below, as the moves by ``unplay``
                ends = self._shape.run_ends(cells)
                line.append(None)
            else:
                break
        score = _WON if engine.won else self.evaluate(engine)
        unplay, undo = engine.unplay, engine.undo
        for action in reversed(line):
            if action is None:
                undo()
            else:
                unplay(*action)
        return score, line

    def _choose(self, pairs: list[tuple[int, int]], ends: list[int]) -> tuple[int, int]:
        """A playout's card move among ``pairs`` (the policy of the module docstring)."""
        draw, rows = self.random.random, self._rows
        if self._next_card_only:
            lengthening = [pair for pair in pairs if pair[1] == ends[rows[pair[1]]]]
        else:
            lengthening = [pair for pair in pairs if pair[1] == ends[rows[pair[1]]]
                           and self._lengthens(pair)]
        if lengthening and draw() < EXTEND_RUNS:
            pairs = lengthening
        else:
            keeping = [pair for pair in pairs if pair[0] >= ends[rows[pair[0]]]]
            pairs = keeping or pairs
            if self._pairs_matter and len(pairs) > 1:
                pairs = self._mostly(pairs, self._pairing(pairs), PAIR_UP)
        if self._gaps_matter and len(pairs) > 1:
            pairs = self._mostly(pairs, self._leaving_live_gaps(pairs), KEEP_GAPS_ALIVE)
        return pairs[int(draw() * len(pairs))]

    def _mostly(self, pairs: list[tuple[int, int]], wanted: list[tuple[int, int]],
                share: float) -> list[tuple[int, int]]:
        """``wanted`` (some of ``pairs``), ``share`` of the time, when it holds some of them
        but not all; else ``pairs`` (and no random number drawn: nothing to choose)."""
        if wanted and len(wanted) < len(pairs) and self.random.random() < share:
            return wanted
        return pairs

    def _leaving_live_gaps(self, pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """The moves that leave behind a gap something may fill: in column 0 (a head goes
        there), or right of a card that something follows in a finished row (not the last
        rank, nor a gap). One loop rather than a call per move: a playout's every step
        asks."""
        cells, left_slots, following = self.engine.cells, self._left_slots, self._following
        live = []
        for pair in pairs:
            source, target = pair
            left = left_slots[source]
            if left < 0:
                live.append(pair)
                continue
            card = cells[source] if left == target else cells[left]
            if card is not None and following[card] >= 0:
                live.append(pair)
        return live

    def _update_ends(self, ends: list[int], source: int, target: int) -> None:
        """Bring ``ends`` (:meth:`core.runs.RunShape.run_ends`) up to date after the card in
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
            ends[row] = self._row_starts[row] + self._shape.run_length(self.engine.cells, row)

    def _pairing(self, pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """The moves that put their card right after the card it follows in a finished row,
        or right before the card that follows it there, in the same row (a move into
        column 0 counts: a head has nothing to follow). One loop, as
        :meth:`_leaving_live_gaps`."""
        cells, following, rows = self.engine.cells, self._following, self._rows
        left_slots, next_slots = self._left_slots, self._next_slots
        paired = []
        for pair in pairs:
            source, target = pair
            card = cells[source]
            assert card is not None
            left = left_slots[target]
            if left < 0:
                paired.append(pair)
                continue
            left_card = cells[left]
            if left_card is not None and following[left_card] == card:
                paired.append(pair)
                continue
            right = next_slots[target]
            if right >= 0 and rows[right] == rows[target] and cells[right] == following[card]:
                paired.append(pair)
        return paired

    def _lengthens(self, pair: tuple[int, int]) -> bool:
        """Tell whether the move, into the slot right after its row's run (the caller has
        checked that), puts the run's next card there.

        Under Montana's fill a card fills the slot after a run only if it is
        the run's next card; fills that take any higher card (Spaces and Aces)
        may put another one there, which blocks the run instead.
        """
        source, target = pair
        cells, sequence = self.engine.cells, self._shape.sequence
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


def line_stride(layout: Layout) -> int:
    """The actions a level-1 search plays between two rounds of trials: one for each
    :data:`SLOTS_PER_STRIDE` slots of ``layout``, at least one."""
    return max(1, layout.rlen // SLOTS_PER_STRIDE)


def decides_by_left_card(rules: Rules) -> bool:
    """Tell whether ``rules``' fill is of gapgrid's kind that decides a gap by its left card
    alone: a :class:`FillBase` whose ``wanted()`` and ``sources()`` are its own.

    Then a gap right of the last rank, or of a gap, takes nothing, and a card
    may only enter a gap outside column 0 after a card it follows: what the
    playout rules rely on. Not Galary's fill (a gap also takes the card one
    below its right neighbour), not a sliding puzzle's, not a third party's
    own kind of rule.
    """
    fill = rules.fill
    return isinstance(fill, FillBase) and type(fill).decides_by_left_card()


def lets_in_unpaired_cards(rules: Rules) -> bool:
    """Tell whether a gap outside column 0 may take a card that does not follow its left card
    in a finished row: Spaces and Aces' ascending fill (any higher card of the suit) and
    Jungle's (the next rank of any suit), not Montana's (the next card only)."""
    if not decides_by_left_card(rules):
        return False
    fill = rules.fill
    assert isinstance(fill, FillBase)
    following = sequence_followers(rules.layout)
    return any(set(fill.next_cards(card)) - {following[card]}
               for card in range(CARDS_PER_DECK))
