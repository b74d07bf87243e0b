"""The fixed-heads restarts' levels: past the knee, level K allows K head macros along a line."""

from __future__ import annotations

import pytest

from gapgrid.core import schedule
from gapgrid.core import search as search_module
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.discrepancies import Step
from gapgrid.core.game import Engine, GameState, new_game
from gapgrid.core.head_levels import HEAD_LEVELS, MAX_HEAD_LEVEL, HeadLevels
from gapgrid.core.macro import Macro
from gapgrid.core.reductions import reductions_for
from gapgrid.core.replay import replay_from
from gapgrid.core.schedule import (
    HEAD_LEVELS_SHARE,
    RESTART_UNIT,
    luby,
)
from gapgrid.core.search import (
    Budget,
    _Restarts,
    _Search,
    _Stop,
    solve,
)
from tests.core.search_spending import count_spending, run_undecided_deal
from tests.core.small_layout import deal, small_rules

KNEE = 60_000
"""The knee the tests put in place of PROOFS_LATE (four million positions, over a minute)."""


def _new_search(state: GameState) -> _Search:
    return _Search(Engine.from_state(state), Budget(seconds=None), None,
                   reductions_for(state.rules))


def _level_outcome(state: GameState, search: _Search, family: _Restarts, level: int) -> str:
    """Restarts of ``level`` in ``family`` until one wins ("won") or finishes ("none"),
    each won line replayed and checked for its head macros."""
    search.head_limit = level
    played: list[int] = []
    do = search.do

    def counting_do(action: Step) -> None:
        do(action)
        played.append(search.macros_used)

    search.do = counting_do  # type: ignore[method-assign]
    attempts = 0
    try:
        while True:
            attempts += 1
            line = search.attempt(attempts - 1,
                                  search.positions + luby(attempts) * RESTART_UNIT, family)
            if line is None:
                continue
            if line:
                checked = replay_from(state, line)
                assert checked.ok and checked.won
            assert max(played, default=0) <= level  # never more head macros on a path
            return "won" if line else "none"
    finally:
        del search.do


SMALL_DEALS = range(1, 121)


def test_a_level_wins_what_the_fixed_heads_space_cannot() -> None:
    """On small deals (4 rows of 4), level 0 (no head leaves column 0) leaves some won
    deals without a win, level 1 wins them, and no level ever wins a deal the complete
    search does not (each line replays; a path never holds more macros than its level)."""
    rules = small_rules()
    needs_a_level = 0
    for number in SMALL_DEALS:
        state = deal(rules, number)
        outcomes = [_level_outcome(state, _new_search(state), _Restarts(), level)
                    for level in (0, 1)]
        if outcomes == ["none", "won"]:
            needs_a_level += 1
        if "won" in outcomes:
            assert solve(state, Budget(seconds=None)).verdict == "won"
        assert outcomes != ["won", "none"]  # each level's space holds the one below
    assert needs_a_level >= 3


@pytest.mark.parametrize("order", [(0, 1, 2), (2, 0, 1), (1, 0, 2)])
def test_levels_share_one_table_soundly(order: tuple[int, ...]) -> None:
    """A level's restarts in a table other levels have filled find what they find in a
    table of their own: a position's key holds the head macros still allowed there."""
    rules = small_rules()
    for number in SMALL_DEALS:
        state = deal(rules, number)
        shared_search, shared = _new_search(state), _Restarts()
        for level in order:
            alone = _level_outcome(state, _new_search(state), _Restarts(), level)
            assert _level_outcome(state, shared_search, shared, level) == alone, (number, level)


def test_the_next_level_is_the_one_that_spent_least() -> None:
    levels = HeadLevels(0, attempts_at_floor=7)
    assert list(levels.attempts) == list(range(HEAD_LEVELS)) and levels.attempts[0] == 7
    assert levels.next() == 0
    levels.record(0, 500)
    levels.record(1, 200)
    assert levels.next() == 2
    levels.record(2, 300)
    assert levels.next() == 1 and levels.total == 1000


def test_a_finished_level_takes_the_ones_below_with_it() -> None:
    """Level 1 finished: no line with one head macro wins, so none with none either; the
    levels above go on, and the new one starts even with the least spent of those."""
    levels = HeadLevels(0)
    levels.record(0, 100)
    levels.record(1, 400)
    levels.record(2, 250)
    levels.done(1)
    assert levels.floor == 2 and list(levels.spent) == [2, 3, 4]
    assert levels.spent == {2: 250, 3: 250, 4: 250} and levels.attempts[3] == 0
    assert levels.total == 750  # what was spent stays spent


def test_past_the_knee_the_levels_get_as_many_as_the_complete_restarts(
        catalogue: Catalogue, monkeypatch: pytest.MonkeyPatch) -> None:
    """Single-round Gaps game 3, undecided within 400,000 positions, with the knee at 60,000:
    the fixed-heads restarts go on past it from level 0 with the table they had, beside
    levels 1 and 2, and get as many positions as the complete restarts (within the restart
    that overdraws last); the limited discrepancy search a seventh of those."""
    monkeypatch.setattr(schedule, "PROOFS_LATE", KNEE)
    monkeypatch.setattr(schedule, "DISCREPANCIES_FIRST", 0)  # its seventh from the knee on
    spent = count_spending(monkeypatch)
    at_knee: dict[str, int] = {}
    leave = _Search._leave_to_proofs

    def snapshot(search: _Search) -> None:
        family = search.fixed_heads
        assert family is not None and not family.finished and family.dead
        at_knee.update(spent, dead=len(family.dead))
        leave(search)
        assert search.fixed_heads is family and len(family.dead) == at_knee["dead"]

    monkeypatch.setattr(_Search, "_leave_to_proofs", snapshot)
    search = run_undecided_deal(catalogue, 400_000)
    late = {key: spent[key] - at_knee[key] for key in spent}
    levels = search.head_levels
    assert levels is not None and levels.floor == 0
    assert 0 <= late["fixed"] - levels.total <= 64 * RESTART_UNIT  # but the one cut short
    assert min(levels.spent.values()) > 0  # every level had turns
    assert HEAD_LEVELS_SHARE == 1
    assert abs(late["fixed"] - late["restarts"]) <= 0.1 * late["restarts"] + 64 * RESTART_UNIT
    assert 0.1 * late["restarts"] <= late["discrepancies"] <= 0.2 * late["restarts"]


def test_a_level_0_explored_before_the_knee_goes_on_from_level_1() -> None:
    """Small deal 20 (won only by moving a head out of column 0): its fixed-heads restarts
    explore their space and give their table back; at the knee they start again afresh,
    at level 1, and win."""
    state = deal(small_rules(), 20)
    search = _new_search(state)
    family = search.fixed_heads
    assert family is not None
    assert _level_outcome(state, search, family, 0) == "none"
    search.fixed_heads_done = True
    search._finish(family)
    search._leave_to_proofs()
    levels, fresh = search.head_levels, search.fixed_heads
    assert levels is not None and levels.floor == 1 and list(levels.attempts) == [1, 2, 3]
    assert fresh is not None and fresh is not family and not fresh.finished and not fresh.dead
    assert fresh.packed is None
    line = search._head_levels_turn(10**9)
    assert line and replay_from(state, line).won


def test_a_family_that_filled_its_memory_stays_done_past_the_knee() -> None:
    state = deal(small_rules(), 20)
    search = _new_search(state)
    family = search.fixed_heads
    assert family is not None
    search._finish(family)  # as when its tables reached their part of the memory
    search._leave_to_proofs()
    assert search.head_levels is None and search.fixed_heads is family and family.finished
    assert search._head_levels_turn(10**9) is None


def test_on_a_lost_deal_the_levels_climb_to_the_highest_and_stop() -> None:
    """Small deal 7 (lost): past the knee each level's space is explored in turn, up to
    MAX_HEAD_LEVEL; then the levels are done, their tables given back, and they leave
    the positions to the others."""
    state = deal(small_rules(), 7)
    assert solve(state, Budget(seconds=None)).verdict == "lost"
    search = _new_search(state)
    search._leave_to_proofs()
    assert search._head_levels_turn(10**7) is None
    levels, family = search.head_levels, search.fixed_heads
    assert levels is not None and levels.finished and levels.floor == MAX_HEAD_LEVEL + 1
    assert family is not None and family.finished and not family.dead
    assert family.packed is None  # given back, packed or not
    assert search.table_bytes == 0 and 0 < levels.total < 10**7


def test_levels_that_fill_their_part_of_the_memory_are_done(catalogue: Catalogue) -> None:
    """Single-round Gaps game 3 with a 2 MiB table: the levels fill their half, stop and
    give it back."""
    rules = catalogue.rules("montana", {"redeals": "0"})
    search = _Search(Engine.from_state(new_game(rules, DealNumber(3))),
                     Budget(seconds=None, memory=2 << 20), None, reductions_for(rules))
    search._leave_to_proofs()
    assert search._head_levels_turn(10**7) is None
    family, levels = search.fixed_heads, search.head_levels
    assert family is not None and family.finished and not family.dead
    assert family.packed is None  # given back, packed or not
    assert levels is not None and not levels.finished and 0 < levels.total < 10**7
    assert search.table_bytes == 0


def test_a_full_table_makes_the_levels_give_theirs_back(
        catalogue: Catalogue, monkeypatch: pytest.MonkeyPatch) -> None:
    """Single-round Gaps game 3, knee at 60,000, a 32 MiB table the levels may fill alone:
    when the whole table is full, the levels give theirs back and the search goes on to
    its positions, the complete restarts' table kept; had they kept it, the search would
    have stopped on memory."""
    monkeypatch.setattr(schedule, "PROOFS_LATE", KNEE)
    monkeypatch.setattr(search_module, "FIXED_HEADS_MEMORY_PART", 1)
    rules = catalogue.rules("montana", {"redeals": "0"})

    def stopped_by(search: _Search) -> str:
        with pytest.raises(_Stop) as stopped:
            search._take_turns()
        return stopped.value.what

    def new() -> _Search:
        return _Search(Engine.from_state(new_game(rules, DealNumber(3))),
                       Budget(seconds=None, positions=400_000, memory=32 << 20,
                              pack_at=2.0),  # never packed: the table fills as it did
                       None,
                       reductions_for(rules))

    search = new()
    assert stopped_by(search) == "positions"
    family = search.fixed_heads
    assert family is not None and family.finished and not family.dead
    assert family.packed is None  # given back, packed or not
    assert search.complete.dead and search.table_bytes <= 32 << 20

    def keeping(search: _Search) -> None:
        raise _Stop("memory")

    monkeypatch.setattr(_Search, "_make_room", keeping)
    assert stopped_by(new()) == "memory"


def test_macros_are_counted_along_the_path() -> None:
    """A macro played adds one to the path's count and taking it back removes it."""
    rules = small_rules()
    for number in SMALL_DEALS:
        search = _new_search(deal(rules, number))
        macros = [step for step in search.steps(0) if type(step) is Macro]
        if macros:
            search.do(macros[0])
            assert search.macros_used == 1
            search.undo(macros[0])
            assert search.macros_used == 0
            return
    pytest.fail("no small deal starts with a head macro")
