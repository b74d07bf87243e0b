"""Head macros: legal moves that end in their use, and the wins that need them.

The reduction's soundness over whole searches is checked with the others in
``test_reductions.py`` (1,000 small deals, and 2,200 positions part way into
games, against a plain search). Here: what its macros are, that pruning
the head moves without them would lose wins, and positions that need the
macros ending in column 1 (the second one, those that first send the row's
own head to a spare gap, which the cross-checks do not meet).
"""

from __future__ import annotations

import pytest

from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import Engine
from gapgrid.core.head_macros import head_macros
from gapgrid.core.layout import NO_SLOT
from gapgrid.core.reductions import NONE, Reductions
from gapgrid.core.rules import Rules
from gapgrid.core.search import Budget, solve
from tests.core.small_layout import SMALL, deal, reference_verdict, small_layout
from tests.core.small_layout import small_rules as make_small_rules

LEFT = SMALL.left_slots


@pytest.fixture(scope="module")
def small_rules() -> Rules:
    """Montana's rules on the small layout, no redeal."""
    return make_small_rules()


def _column_0_to_column_0(move: tuple[int, int]) -> bool:
    source, target = move
    return LEFT[source] == NO_SLOT and LEFT[target] == NO_SLOT


def test_macros_are_head_moves_then_their_use(small_rules: Rules) -> None:
    """Along winning lines, each macro is legal move by move: head moves, then one that uses them.

    The use is a card into column 1 of a row whose column-0 slot the head
    moves changed, or a head from outside into column 0's last gap. The
    plain moves are all the legal moves but the head moves.
    """
    macros_seen = 0
    for number in range(1, 301):
        state = deal(small_rules, number)
        engine = Engine.from_state(state)
        for action in solve(state, Budget(seconds=None), reductions=NONE).line:
            pairs = engine.legal_pairs()
            split = head_macros(engine, pairs)
            if split is not None:
                plain, macros = split
                assert plain == [move for move in pairs if not _column_0_to_column_0(move)]
                for macro in macros:
                    probe = Engine.from_state(engine.snapshot())
                    *heads, (source, target) = macro
                    for move in heads:
                        assert _column_0_to_column_0(move) and move in probe.legal_pairs()
                        probe.play(*move)
                    assert (source, target) in probe.legal_pairs()
                    assert not _column_0_to_column_0((source, target))
                    if LEFT[target] == NO_SLOT:  # the last gap of column 0, filled
                        assert sum(engine.cells[start] is None
                                   for start in SMALL.row_starts()) == 1
                        probe.play(source, target)
                        assert all(probe.cells[start] is not None
                                   for start in SMALL.row_starts())
                    else:
                        changed = LEFT[target]
                        assert SMALL.column_of(target) == 1
                        assert probe.cells[changed] != engine.cells[changed]
                    macros_seen += 1
            assert engine.apply(action) is None
    assert macros_seen > 100


def test_some_wins_need_head_moves_and_the_macros_keep_them(small_rules: Rules) -> None:
    """Pruning the head moves outright loses wins; with the macros instead, none is lost."""
    needing = [number for number in range(1, 301)
               if reference_verdict(deal(small_rules, number))
               and not reference_verdict(deal(small_rules, number),
                                         lambda move: not _column_0_to_column_0(move))]
    assert len(needing) >= 10
    macros_only = Reductions(head_macros=True, heuristic_order=False)
    for number in needing:
        assert solve(deal(small_rules, number), Budget(seconds=None),
                     reductions=macros_only).verdict == "won"


def test_no_macros_without_a_head_and_a_gap_in_column_0(small_rules: Rules) -> None:
    """With no gap, or no head, in column 0, no head can move there: nothing changes."""
    checked = 0
    for number in range(1, 101):
        engine = Engine.from_state(deal(small_rules, number))
        column_0 = [engine.cells[start] for start in SMALL.row_starts()]
        heads = small_rules.fill.heads()  # type: ignore[attr-defined]
        if None not in column_0 or not any(card in heads for card in column_0):
            assert head_macros(engine, engine.legal_pairs()) is None
            checked += 1
    assert checked > 10


@pytest.mark.parametrize("cells", [
    # Row 0 holds the third suit's 2, 3 and 4 behind the first suit's Ace; the win moves
    # that Ace to row 3's empty column 0 and its 2 beside it, then the third suit's Ace into
    # row 0. Without the macros that end with a card into column 1, the reduced search
    # answered lost here (found by a fuzz).
    [0, 27, 28, 29, None, 26, 2, 3, 13, 1, 39, 41, 42, 15, 16, None, None, 14, None, 40],
    # The same kind, where the row that takes the head must first send its own head to a
    # spare gap: without those three-move macros, lost (found by a reviewer's fuzz).
    [0, 42, 41, 40, None, None, 29, None, 16, 26, 39, None, 14, 3, 2, 13, 1, 28, 15, 27],
], ids=["into-an-empty-column-0", "displacing-a-head"])
def test_a_head_can_be_needed_in_a_row_whose_column_1_its_follower_then_fills(
        cells: list[int | None]) -> None:
    """Positions on 4 rows of 5 that only the column-1 macros win: the reduced search wins them.

    The 1,000 deals' cross-check in ``test_reductions.py`` would not notice
    these macros gone: no deal needs them from its start.
    """
    rules = make_small_rules(small_layout(5))
    start = Engine.start(rules, DealNumber(1))
    state = Engine(rules, DealNumber(1), cells, 0, start.rng_state).snapshot()
    assert reference_verdict(state)
    result = solve(state, Budget(seconds=None),
                   reductions=Reductions(head_macros=True, heuristic_order=False))
    assert result.verdict == "won"
