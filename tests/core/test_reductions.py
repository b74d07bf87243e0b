"""The solver's reductions keep every win: verdicts agree with a plain search on small layouts.

Each reduction is checked alone and all together against an independent,
deliberately plain reference search (``tests/core/small_layout.py``:
depth-first, every legal move, every position distinct), on 1,000 deals of
a small third-party-style layout: 4 rows of 4, rows Ace to 3 in one suit,
the 4s set aside as the gaps. Its whole reachable space is small enough to
exhaust, so both answers are exact. (Wider rows are checked by hand:
``python bench/solve.py cross-check --columns 5``.)
"""

from __future__ import annotations

import random

import attrs
import pytest

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import Engine
from gapgrid.core.head_macros import head_macros
from gapgrid.core.reductions import (
    NONE,
    Reductions,
    frozen_run_chain,
    reductions_for,
    rows_interchangeable,
)
from gapgrid.core.rules import Rules
from gapgrid.core.search import Budget, solve
from tests.core.small_layout import SMALL, deal, reference_verdict, small_layout
from tests.core.small_layout import small_rules as make_small_rules

DEALS = range(1, 1001)


@pytest.fixture(scope="module")
def small_rules() -> Rules:
    """Montana's rules on the small layout, no redeal."""
    return make_small_rules()


def _verdicts(rules: Rules, reductions: Reductions) -> list[str]:
    return [solve(deal(rules, number), Budget(seconds=None), reductions=reductions).verdict
            for number in DEALS]


@pytest.fixture(scope="module")
def expected(small_rules: Rules) -> list[str]:
    """The reference verdicts of the 1,000 small deals."""
    return ["won" if reference_verdict(deal(small_rules, number)) else "lost"
            for number in DEALS]


def test_the_small_deals_are_not_all_alike(expected: list[str]) -> None:
    """The cross-checks mean something: the small deals are both won and lost."""
    assert expected.count("won") > 100 and expected.count("lost") > 50


@pytest.mark.parametrize("reductions", [
    NONE,
    Reductions(rows_interchangeable=True, heuristic_order=False),
    Reductions(run_chains=True, heuristic_order=False),
    Reductions(head_macros=True, heuristic_order=False),
    Reductions(head_macros=True, open_heads=True, heuristic_order=False),
    Reductions(heuristic_order=True),
], ids=["plain", "interchangeable-rows", "frozen-run-chains", "head-macros", "open-heads",
        "ordering-and-beams"])
def test_each_reduction_keeps_every_verdict(small_rules: Rules, expected: list[str],
                                            reductions: Reductions) -> None:
    """With each reduction alone, every small deal gets the reference verdict."""
    assert _verdicts(small_rules, reductions) == expected


def test_all_reductions_together_keep_every_verdict(small_rules: Rules,
                                                    expected: list[str]) -> None:
    """With every reduction the rules allow, every small deal gets the reference verdict."""
    chosen = reductions_for(small_rules)
    assert chosen.rows_interchangeable and chosen.run_chains and chosen.head_macros
    assert chosen.open_heads
    assert _verdicts(small_rules, chosen) == expected


def test_rows_are_interchangeable_only_under_row_local_rules(catalogue: Catalogue) -> None:
    """Montana's, Jungle's and Spaces and Aces' fills qualify; Galary's and the Rovers' do not."""
    assert rows_interchangeable(catalogue.rules("montana"))
    assert rows_interchangeable(catalogue.rules("jungle"))
    assert rows_interchangeable(catalogue.rules("spaces-and-aces"))
    assert not rows_interchangeable(catalogue.rules("galary"))  # looks into the next row
    assert not rows_interchangeable(catalogue.rules("rectangular-rovers"))  # looks up and down


def test_interchangeable_rows_give_one_key_with_no_redeal_left(small_rules: Rules) -> None:
    """Two positions that differ only in the order of their rows share a key."""
    engine = Engine.start(small_rules, DealNumber(7))
    cells = list(engine.cells)
    step = SMALL.rstep
    swapped = cells[step:2 * step] + cells[:step] + cells[2 * step:]
    other = Engine(small_rules, DealNumber(7), swapped, 0, engine.rng_state)
    symmetric = Reductions(rows_interchangeable=True)
    assert symmetric.board_key(engine) == symmetric.board_key(other)
    assert NONE.board_key(engine) != NONE.board_key(other)


def test_a_frozen_run_chain_needs_every_row_headed(small_rules: Rules) -> None:
    """No chain while a column-0 slot lacks its head: a head could still move."""
    engine = Engine.start(small_rules, DealNumber(1))
    heads_placed = all(engine.cells[start] is not None and engine.cells[start] % 13 == 0
                       for start in SMALL.row_starts())
    if not heads_placed:
        assert frozen_run_chain(engine, engine.legal_pairs()) is None


def test_a_frozen_run_chain_starts_by_lengthening_a_run(small_rules: Rules) -> None:
    """Along winning lines, each chain found starts right after a run and is all legal moves."""
    found = 0
    for number in range(1, 200):
        state = deal(small_rules, number)
        result = solve(state, Budget(seconds=None), reductions=NONE)
        engine = Engine.from_state(state)
        for action in result.line:
            chain = frozen_run_chain(engine, engine.legal_pairs())
            if chain is not None:
                _, target = chain[0]
                row = SMALL.row_of(target)
                run = SMALL.row_starts()[row]
                while engine.cells[run] is not None and run < target:
                    run += 1
                assert target == run
                assert set(chain) <= set(engine.legal_pairs())
                found += 1
            assert engine.apply(action) is None
    assert found > 10


@pytest.mark.parametrize(("columns", "count"), [(4, 1000), (5, 1200)])
def test_all_reductions_keep_every_verdict_from_the_middle_of_a_game(columns: int,
                                                                     count: int) -> None:
    """From positions part way into a game (random legal moves from a deal), verdicts agree too.

    A search meets such positions on its way, but a reduction that lost a
    win from one could still find another from the deal's start; asked from
    there directly, it cannot hide. The positions are those where a head
    could move between column-0 gaps, where most reductions apply at once.
    Without the head macros that end in column 1, both layouts find
    disagreements; those that first send a row's own head to a spare gap
    are needed by rarer positions (``test_head_macros.py`` has one).
    ``bench/solve.py cross-check --middle`` makes the same positions, as
    many as asked for.
    """
    rules = make_small_rules(small_layout(columns))
    chosen = reductions_for(rules)
    shuffler = random.Random(1)
    checked = won = 0
    while checked < count:
        engine = Engine.start(rules, DealNumber(shuffler.randrange(1, 1_000_000)))
        for _ in range(shuffler.randrange(10, 60)):
            moves = [] if engine.won else engine.legal_pairs()
            if not moves:
                break
            engine.play(*shuffler.choice(moves))
        if engine.won or head_macros(engine, engine.legal_pairs()) is None:
            continue
        state = engine.snapshot()
        expected = "won" if reference_verdict(state) else "lost"
        assert solve(state, Budget(seconds=None), reductions=chosen).verdict == expected
        assert solve(state, Budget(seconds=None),
                     reductions=attrs.evolve(chosen, heuristic_order=False)).verdict == expected
        checked += 1
        won += expected == "won"
    assert count // 10 < won < count - count // 10  # both kinds of answer were checked
