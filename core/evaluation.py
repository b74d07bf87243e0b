"""How promising a position looks: the solver's evaluation (a heuristic, never a proof).

The best-first search of :mod:`core.search` expands the most promising
positions first; nothing here prunes a move, so nothing here can change a
``lost`` verdict, only how soon a win is found.

The evaluation is built once per game from its rules, and reads nothing
but the layout and the fill rule's own answers, so it works for every
variant, built-in or third-party:

* a finished row holds the sequence's ranks (:attr:`Layout.sequence_ranks`)
  in one suit from column 0, so a card's *final column* is known from its
  rank, and *cards in runs* (:mod:`core.runs`) are the cards already home;
* where cards jump into any gap that accepts them (every fill rule that
  decides by the left neighbour: Montana, Jungle, Spaces and Aces,
  Galary ...), a card not home is one move from home once the slot is
  free: what counts is the runs, the slot right after each run (a gap that
  takes the next card, or a card in the way), cards already side by side
  in a finished row's order, and gaps that nothing can fill;
* where cards only slide to a neighbouring gap (Rectangular Rovers), a card
  is as many moves from home as its Manhattan distance to its final column
  in the row its suit is assigned to (the assignment of suits to rows that
  makes the total smallest): the classic estimate for sliding puzzles.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import Final

from gapgrid.core.cards import CARDS_PER_DECK, RANKS_PER_SUIT, SUITS, make_card
from gapgrid.core.fills import FillBase, RoversFill
from gapgrid.core.game import Engine
from gapgrid.core.layout import Layout
from gapgrid.core.rules import Rules
from gapgrid.core.runs import RunShape

RUN_CARD: Final = 100
"""A card in a run: what every other term is weighed against."""

OPEN_RUN_END: Final = 25
"""A gap right after a run: the run's next card may go there now."""

BLOCKED_RUN_END: Final = 15
"""A card right after a run that is not the run's next card: it has to leave first."""

PAIR: Final = 8
"""Two cards side by side in a finished row's order (a run in the making)."""

DEAD_GAP: Final = 12
"""A gap nothing can fill while its left neighbour stays (a gap, or a card with no follower)."""

REDEAL_IN_HAND: Final = 40
"""A redeal still to come (so that a redeal is spent only when it looks worth it)."""

STEP: Final = 30
"""One step of a card's distance from home, where cards slide (Rectangular Rovers)."""

SLIDE_COST: Final = 1
"""A move where cards slide: among positions as far from home, the one nearer the start first."""

JUMP_COST: Final = 1
"""A move where cards jump: nearly greedy (lines are long, and a move changes the score a lot)."""

Evaluation = Callable[[Engine], int]
"""A position's score: higher looks closer to a win."""

_MAX_ASSIGNED_ROWS: Final = 6  # rows up to which suits are assigned to rows by trying all ways


def evaluation_for(rules: Rules) -> tuple[Evaluation, int]:
    """The evaluation of positions of ``rules``' game, and what a move costs against it.

    A best-first search expands first the position whose score minus the
    moves that led to it, times the cost, is highest: with a cost of 0 it
    is greedy; with a cost it is a weighted A*, which does not get stuck
    on a plateau of equal scores (sliding games have deep ones).
    """
    if cards_slide(rules):
        return _sliding_evaluation(rules), SLIDE_COST
    return _jumping_evaluation(rules), JUMP_COST


def cards_slide(rules: Rules) -> bool:
    """Whether cards slide to a neighbouring gap (Rectangular Rovers: a sliding puzzle)
    rather than jump into any gap that takes them."""
    return isinstance(rules.fill, RoversFill)


def redeal_bonus(engine: Engine) -> int:
    """What the redeals still in hand are worth (an unlimited supply counts as one)."""
    rules = engine.rules
    if rules.redeals == 0:
        return 0
    left = rules.redeals_left(engine.redeals_used)
    return REDEAL_IN_HAND * (1 if left is None else min(left, 3))


@functools.lru_cache(maxsize=64)
def final_columns(layout: Layout) -> tuple[int, ...]:
    """For each card code, the column it stands in when its row is finished, or -1 (set aside)."""
    columns = [-1] * CARDS_PER_DECK
    for column, rank in enumerate(layout.sequence_ranks):
        for suit in range(SUITS):
            columns[make_card(rank, suit)] = column
    return tuple(columns)


@functools.lru_cache(maxsize=64)
def sequence_followers(layout: Layout) -> tuple[int, ...]:
    """For each card, the card right of it in a finished row (same suit), or -1."""
    following = [-1] * CARDS_PER_DECK
    for rank, next_rank in itertools.pairwise(layout.sequence_ranks):
        for suit in range(SUITS):
            following[make_card(rank, suit)] = make_card(next_rank, suit)
    return tuple(following)


def _jumping_evaluation(rules: Rules) -> Evaluation:
    """Runs, open and blocked run ends, pairs in the making, dead gaps, redeals in hand."""
    layout = rules.layout
    fill = rules.fill
    full = len(layout.sequence_ranks)
    shape = RunShape(layout)  # the run tables read once, not at every evaluation
    starts = shape.row_starts
    following = sequence_followers(layout)
    next_slots, rows_of, left_slots = shape.next_slots, shape.slot_rows, shape.left_slots
    pair_slots = tuple((slot, right) for slot, right in enumerate(next_slots)
                       if right >= 0 and rows_of[right] == rows_of[slot])
    # Which cards leave a gap on their right unfillable: no follower under the fill rule.
    if isinstance(fill, FillBase):
        stops = frozenset(card for card in range(CARDS_PER_DECK) if not fill.next_cards(card))
    else:
        stops = frozenset()

    def evaluate(engine: Engine) -> int:
        cells = engine.cells
        score = 0
        for start, end in zip(starts, shape.run_ends(cells), strict=True):
            length = end - start
            score += RUN_CARD * length
            if length < full:
                score += OPEN_RUN_END if cells[start + length] is None else -BLOCKED_RUN_END
        for slot, right in pair_slots:
            card = cells[slot]
            if card is not None and cells[right] == following[card]:
                score += PAIR
        for gap in engine.gaps:
            left = left_slots[gap]
            if left >= 0:
                left_card = cells[left]
                if left_card is None or left_card in stops:
                    score -= DEAD_GAP
        return score + redeal_bonus(engine)

    return evaluate


def _sliding_evaluation(rules: Rules) -> Evaluation:
    """Minus the cards' Manhattan distances from home plus linear conflicts, rows assigned to
    suits at best."""
    layout = rules.layout
    columns = final_columns(layout)
    shape = RunShape(layout)
    rstep, rows, decks = layout.rstep, layout.rows, layout.decks
    suits_in_play = SUITS * decks
    assignments: list[tuple[int, ...]] = []
    if rows == suits_in_play and rows <= _MAX_ASSIGNED_ROWS:
        assignments = list(itertools.permutations(range(rows)))
    # Each assignment as the places of its costs in the flattened table, summed in C.
    flat_assignments = [tuple(suit * rows + row for suit, row in enumerate(assignment))
                        for assignment in assignments]

    def evaluate(engine: Engine) -> int:
        cells = engine.cells
        horizontal = 0
        # vertical[suit copy][row]: steps for that suit's cards to reach that row
        vertical = [[0] * rows for _ in range(suits_in_play)]
        copies = [0] * SUITS
        placed: list[tuple[int, int, int, int]] = []  # (row, column, suit copy, final column)
        for slot, card in enumerate(cells):
            if card is None:
                continue
            column = columns[card]
            if column < 0:
                continue
            row, at = divmod(slot, rstep)
            horizontal += abs(at - column)
            suit = card // RANKS_PER_SUIT
            index = suit
            if decks > 1:
                index += SUITS * (copies[suit] % decks)
                copies[suit] += 1
            costs = vertical[index]
            for target in range(rows):
                costs[target] += abs(row - target)
            placed.append((row, at, index, column))
        if assignments:
            flat = [cost for costs in vertical for cost in costs]
            totals = [sum(map(flat.__getitem__, places)) for places in flat_assignments]
            best = min(totals)
            home = assignments[totals.index(best)]
        else:
            home = tuple(costs.index(min(costs)) for costs in vertical)
            best = sum(min(costs) for costs in vertical)
        # Two cards in their final row (column) in the wrong order: one must step aside.
        in_row: list[list[int]] = [[] for _ in range(rows)]
        in_column: list[list[int]] = [[] for _ in range(rstep)]
        for row, at, suit, column in placed:  # in slot order: by row, then column
            if home[suit] == row:
                in_row[row].append(column)
            if column == at:
                in_column[at].append(home[suit])
        conflicts = _inversions(in_row) + _inversions(in_column)
        runs = sum(shape.run_length(cells, row) for row in range(rows))
        return runs - STEP * (horizontal + best + conflicts) + redeal_bonus(engine)

    return evaluate


def _inversions(lines: list[list[int]]) -> int:
    """Twice the pairs out of order in each list (each costs a card two extra steps)."""
    count = 0
    for line in lines:
        for index, value in enumerate(line):
            for later in line[index + 1:]:
                if later < value:
                    count += 2
    return count
