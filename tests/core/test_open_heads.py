"""Open heads: once column 0 is full, a row's head is chosen only when its column 1 is filled.

The reduction's soundness over whole searches is checked with the others in
``test_reductions.py`` (1,000 small deals, and 2,200 positions part way into
games, against a plain search: each of leaving the rows closed at the
freeze, choosing only the engine's own head and missing a win by
arrangement makes it fail). Here: its pieces on hand-made positions, a win
that needs only an arrangement, and what it saves.
"""

from __future__ import annotations

import attrs
import pytest

from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import Engine, GameState
from gapgrid.core.notation import Move
from gapgrid.core.open_heads import OPEN_HEAD_CODE, Commit, commits, freezes
from gapgrid.core.reductions import Reductions, reductions_for
from gapgrid.core.rules import Rules
from gapgrid.core.search import Budget, solve
from tests.core.small_layout import deal, reference_verdict, small_layout
from tests.core.small_layout import small_rules as make_small_rules

# Card codes on the small layout (4 rows of Ace, 2, 3 and a gap column) are suit * 13 + rank.
# Rows 0 and 1 hold each other's 2 and 3, row 3 waits for the last Ace: won only by
# arranging the Aces, with no card of a row moving.
SWAPPED_ROWS = [
    13, 1, 2, None,
    0, 14, 15, None,
    26, 27, 28, None,
    None, 40, 41, 39,
]


@pytest.fixture(scope="module")
def small_rules() -> Rules:
    """Montana's rules on the small layout, no redeal."""
    return make_small_rules()


def _state(rules: Rules, cells: list[int | None]) -> GameState:
    start = Engine.start(rules, DealNumber(1))
    return Engine(rules, DealNumber(1), list(cells), 0, start.rng_state).snapshot()


def test_the_last_gap_of_column_0_is_filled_by_a_freeze(small_rules: Rules) -> None:
    """Only a head from outside into column 0's last gap freezes it; the other moves stay."""
    engine = Engine.from_state(_state(small_rules, SWAPPED_ROWS))
    pairs = engine.legal_pairs()
    split = freezes(engine, pairs)
    assert split is not None
    kept, frozen = split
    assert [(step.source, step.gap) for step in frozen] == [(15, 12)]
    assert kept == [pair for pair in pairs if pair != (15, 12)]  # the head moves stay
    assert frozen[0].before == (13, 0, 26, None)
    # With a second gap in column 0, or a card that is not a head there, nothing freezes.
    two_gaps = list(SWAPPED_ROWS)
    two_gaps[8], two_gaps[11] = None, 26
    not_a_head = list(SWAPPED_ROWS)
    not_a_head[8], not_a_head[9] = 27, 26
    for cells in (two_gaps, not_a_head):
        engine = Engine.from_state(_state(small_rules, cells))
        assert freezes(engine, engine.legal_pairs()) is None


def test_a_win_by_arranging_the_heads_alone_is_found_and_replays(small_rules: Rules) -> None:
    """After the freeze no card can move; the rows are finished under another arrangement."""
    state = _state(small_rules, SWAPPED_ROWS)
    assert reference_verdict(state)
    result = solve(state, Budget(seconds=None),
                   reductions=Reductions(head_macros=True, open_heads=True,
                                         heuristic_order=False))
    assert result.verdict == "won"  # solve() replays the line before answering
    assert result.line[-1] == Move(15, 12)  # the heads arranged first, the last Ace in last


def test_no_frozen_run_chain_starts_at_an_open_row() -> None:
    """On 4 rows of 5, a position about to fill column 0's last gap: won, and found won.

    Once column 0 is full, row 1 looks like a run (the first suit's Ace and
    2), but its 2 may still leave for another open row: a chain started
    after it lost this win (found by a reviewer's fuzz aimed at it).
    """
    rules = make_small_rules(small_layout(5))
    state = _state(rules, [None, 42, 3, 28, 39, 0, 1, None, 14, 15, 13, 41, 29, None, 2,
                           26, 27, None, 16, 40])
    assert reference_verdict(state)
    for ordered in (False, True):
        reductions = attrs.evolve(reductions_for(rules), heuristic_order=ordered)
        assert solve(state, Budget(seconds=None), reductions=reductions).verdict == "won"


def test_an_open_row_takes_the_follower_of_any_open_head(small_rules: Rules) -> None:
    """A column-1 gap of an open row gets one Commit for each open row's head."""
    cells = list(SWAPPED_ROWS)
    cells[12], cells[15] = 39, None  # column 0 full: Aces of suits 1, 0, 2, 3
    cells[1], cells[15] = None, 1  # row 0's column 1 empty, the 2 of suit 0 at the end
    engine = Engine.from_state(_state(small_rules, cells))
    chosen = commits(engine, (0, 4, 8, 12))
    assert {(step.row, step.head_row, step.source) for step in chosen} == {
        (0, 0, engine.where[14][0]), (0, 4, 15), (0, 8, 9), (0, 12, 13)}
    assert all(isinstance(step, Commit) for step in chosen)
    assert commits(engine, (4, 8, 12)) == []  # row 0 closed: no open row has a gap


def test_the_key_hides_only_the_open_rows_heads(small_rules: Rules) -> None:
    """Two arrangements of the open rows' heads give one key; a closed row's head shows."""
    reductions = reductions_for(small_rules)
    full = list(SWAPPED_ROWS)
    full[12], full[15] = 39, None
    exchanged = list(full)
    exchanged[0], exchanged[4] = full[4], full[0]
    keys = [reductions.board_key(Engine.from_state(_state(small_rules, cells)), (0, 4))
            for cells in (full, exchanged)]
    assert keys[0] == keys[1]
    assert keys[0].count(OPEN_HEAD_CODE) == 2
    closed = [reductions.board_key(Engine.from_state(_state(small_rules, cells)), ())
              for cells in (full, exchanged)]
    assert closed[0] != closed[1]


def test_open_heads_shrink_the_proofs_and_keep_the_verdicts() -> None:
    """On 4 rows of 5, deals 1 to 150, restarts alone: same verdicts, fewer positions."""
    rules = make_small_rules(small_layout(5))
    with_macros = attrs.evolve(reductions_for(rules), heuristic_order=False, open_heads=False)
    results = {}
    for open_heads in (False, True):
        reductions = attrs.evolve(with_macros, open_heads=open_heads)
        results[open_heads] = [solve(deal(rules, number), Budget(seconds=None),
                                     reductions=reductions) for number in range(1, 151)]
    assert [r.verdict for r in results[True]] == [r.verdict for r in results[False]]
    lost = [index for index, r in enumerate(results[False]) if r.verdict == "lost"]
    assert len(lost) > 20
    assert (sum(results[True][index].positions for index in lost)
            < 0.8 * sum(results[False][index].positions for index in lost))

