"""The fixed-heads restarts: a search for wins where no head leaves column 0, beside the others."""

from __future__ import annotations

import pytest

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import Engine, new_game
from gapgrid.core.macro import Macro
from gapgrid.core.notation import Action
from gapgrid.core.reductions import NONE, reductions_for
from gapgrid.core.rules import Rules
from gapgrid.core.schedule import (
    FIXED_HEADS_SHARE,
    RESTART_UNIT,
    fixed_heads_apply,
    luby,
)
from gapgrid.core.search import (
    Budget,
    _Search,
    _Stop,
    solve,
)
from tests.core.search_spending import count_spending
from tests.core.small_layout import deal, small_rules


def _search(rules: Rules, number: int) -> _Search:
    """A search of PySolFC game ``number`` under ``rules``, with the reductions they allow."""
    return _Search(Engine.from_state(new_game(rules, DealNumber(number))),
                   Budget(seconds=None), None, reductions_for(rules))


@pytest.mark.parametrize(("slug", "options", "runs"), [
    ("montana", {"redeals": "0"}, True), ("line-up", None, True),
    ("montana", None, False), ("gaps", None, False), ("spaces-and-aces", None, False),
    ("paganini-ii", None, False), ("rectangular-rovers", None, False)])
def test_they_run_in_single_round_games_where_head_macros_apply(
        catalogue: Catalogue, slug: str, options: dict[str, str] | None, runs: bool) -> None:
    """Single-round Gaps and Line Up have them; a game with a redeal to come, another fill
    or two decks has not (the head macros' argument, and the measurements, are for these)."""
    rules = catalogue.rules(slug, options)
    assert fixed_heads_apply(rules) is runs
    search = _search(rules, 1)
    assert (search.fixed_heads is not None) is runs
    plain = _Search(Engine.from_state(new_game(rules, DealNumber(1))), Budget(seconds=None),
                    None, NONE)
    assert plain.fixed_heads is None  # no head macros asked for, none of these either


def test_no_head_leaves_column_0_in_them(catalogue: Catalogue) -> None:
    """Where the complete restarts have head macros, the fixed-heads restarts have none, and
    every other step is the same."""
    rules = catalogue.rules("montana", {"redeals": "0"})
    checked = 0
    for number in range(1, 200):
        search = _search(rules, number)
        complete = search.steps(1)
        if not any(type(step) is Macro for step in complete):
            continue
        fixed = search.steps(1, fixed_heads=True)
        assert not any(type(step) is Macro for step in fixed)
        assert fixed == [step for step in complete if type(step) is not Macro]
        checked += 1
    assert checked >= 5


def test_a_space_they_exhaust_is_not_a_lost_game() -> None:
    """Small deal 20 (4 rows of 4) is won only by moving a head out of column 0: the
    fixed-heads restarts explore their whole space without a win, and the complete restarts,
    whose table of dead positions is their own, still win it; so does the whole solver."""
    rules = small_rules()
    state = deal(rules, 20)
    search = _Search(Engine.from_state(state), Budget(seconds=None), None,
                     reductions_for(rules))
    family = search.fixed_heads
    assert family is not None
    outcome: list[Action] | None = None
    while outcome is None:
        family.attempts += 1
        outcome = search.attempt(family.attempts - 1,
                                 search.positions + luby(family.attempts) * RESTART_UNIT, family)
    assert outcome == [] and family.dead  # explored, and its dead positions are its own
    search._finish(family)
    assert family.finished and not family.dead and not search.complete.dead
    assert family.packed is None and search.complete.packed is None  # nor packed
    won = search.attempt(0, search.positions + 100 * RESTART_UNIT)
    assert won  # a line: the complete restarts were not pruned by the fixed heads' table
    assert solve(state, Budget(seconds=None)).verdict == "won"


def test_they_get_three_quarters_of_a_long_search(catalogue: Catalogue,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """On a single-round Gaps deal no search decides within 200,000 positions, the
    fixed-heads restarts get FIXED_HEADS_SHARE positions for each of the others' (within
    the restart that overdraws last), and the others still run."""
    spent = count_spending(monkeypatch)
    total = 200_000
    result = solve(new_game(catalogue.rules("montana", {"redeals": "0"}), DealNumber(3)),
                   Budget(seconds=None, positions=total))
    assert result.verdict == "unknown" and result.positions >= total
    others = result.positions - spent["fixed"]
    assert spent["restarts"] > 0 and others > spent["restarts"]  # beams, rollouts too
    assert FIXED_HEADS_SHARE == 3
    assert 0.6 * total < spent["fixed"] < 0.9 * total


def test_their_tables_hold_at_most_half_the_memory(catalogue: Catalogue) -> None:
    """Single-round Gaps game 3 with a 16 MiB table: the fixed-heads restarts fill their
    half, stop and give it back, and the search goes on to its positions, the complete
    restarts' table intact. (Without the half they took nearly all of it and the search
    stopped on memory: no loss could have been proven.)"""
    rules = catalogue.rules("montana", {"redeals": "0"})
    search = _Search(Engine.from_state(new_game(rules, DealNumber(3))),
                     Budget(seconds=None, positions=300_000, memory=16 << 20,
                            pack_at=2.0),  # never packed: the table fills as it did
                     None,
                     reductions_for(rules))
    with pytest.raises(_Stop) as stopped:
        search._take_turns()
    family = search.fixed_heads
    assert stopped.value.what == "positions" and family is not None and family.finished
    assert not family.dead and family.packed is None
    assert family.dead_bytes == family.live_bytes == 0
    assert search.complete.dead and search.table_bytes <= 16 << 20
