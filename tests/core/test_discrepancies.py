"""The limited discrepancy search: complete on small spaces, resumable, its share past the knee."""

from __future__ import annotations

import pytest

from gapgrid.core import schedule
from gapgrid.core import search as search_module
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.discrepancies import Discrepancies
from gapgrid.core.game import Engine, GameState, new_game
from gapgrid.core.notation import Action
from gapgrid.core.reductions import reductions_for
from gapgrid.core.replay import replay_from
from gapgrid.core.schedule import PROOFS_RESTARTS_SHARE, RESTART_UNIT
from gapgrid.core.search import Budget, _Search, _Stop
from tests.core.search_spending import count_spending, run_undecided_deal
from tests.core.small_layout import deal, reference_verdict, small_rules

KNEE = 60_000
"""The knee the tests put in place of PROOFS_LATE (four million positions, over a minute)."""

SMALL_DEALS = range(1, 121)


def _searching(state: GameState, memory: int = 1 << 30) -> _Search:
    """A search of ``state`` with its limited discrepancy search started, as at the knee."""
    search = _Search(Engine.from_state(state), Budget(seconds=None, memory=memory), None,
                     reductions_for(state.rules))
    search.discrepancies = Discrepancies(memory)
    return search


def _in_turns(search: _Search, turn: int) -> tuple[list[Action] | None, list[bytes]]:
    """The limited discrepancy search run in turns of ``turn`` positions to its end: its
    line (None: done without a win), and the board between turns."""
    boards = []
    while True:
        searching = search.discrepancies
        if searching is None or searching.finished:
            return None, boards
        line = search.discrepancy_turn(searching.spent + turn)
        if line:
            return line, boards
        boards.append(bytes(search.engine.codes))


def test_it_wins_every_small_deal_that_can_be_won_and_ends_on_the_others() -> None:
    """On small deals (4 rows of 4) run to its end, it wins exactly the deals a plain search
    wins (each line replayed), and on the others ends once an iteration leaves nothing out,
    its table given back."""
    rules = small_rules()
    won = 0
    for number in SMALL_DEALS:
        state = deal(rules, number)
        search = _searching(state)
        line = search.discrepancy_turn(10**9)
        assert bool(line) == reference_verdict(state), number
        if line:
            won += 1
            assert replay_from(state, line).won
        else:
            assert search.discrepancies is None and search.table_bytes == 0
    assert 0 < won < len(SMALL_DEALS)


def test_turns_take_the_path_back_and_play_it_again(catalogue: Catalogue) -> None:
    """Cut into turns of 997 positions, single-round Gaps game 120 is searched position for
    position as in one turn: the same line from the same position count, and between turns
    the engine is back at the deal's start."""
    state = new_game(catalogue.rules("montana", {"redeals": "0"}), DealNumber(120))
    whole = _searching(state)
    line = whole.discrepancy_turn(3_000_000)
    assert line and replay_from(state, line).won
    search = _searching(state)
    turned, boards = _in_turns(search, 997)
    assert turned == line and search.positions == whole.positions
    assert len(boards) > 100 and set(boards) == {bytes(Engine.from_state(state).codes)}


@pytest.mark.parametrize("first", [1_000_000, 20_000])
def test_past_the_knee_it_gets_as_many_as_the_restarts_then_an_eighth(
        catalogue: Catalogue, monkeypatch: pytest.MonkeyPatch, first: int) -> None:
    """Single-round Gaps game 3, undecided within 400,000 positions, with the knee at
    60,000: past it the limited discrepancy search starts, and gets as many positions as the
    complete restarts for its first ``first`` (all of its turns, at 1,000,000), then one for
    each seven of theirs; the rollouts get none."""
    monkeypatch.setattr(schedule, "PROOFS_LATE", KNEE)
    monkeypatch.setattr(schedule, "DISCREPANCIES_FIRST", first)
    spent = count_spending(monkeypatch)
    at_knee: dict[str, int] = {}
    leave = _Search._leave_to_proofs

    def snapshot(search: _Search) -> None:
        assert search.discrepancies is None
        at_knee.update(spent)
        leave(search)

    monkeypatch.setattr(_Search, "_leave_to_proofs", snapshot)
    search = run_undecided_deal(catalogue, 400_000)
    searching = search.discrepancies
    assert searching is not None and searching.limit > 0 and searching.explored_with
    late = {key: spent[key] - at_knee[key] for key in spent}
    assert late["rollouts"] == 0 and late["discrepancies"] == searching.spent
    restarts = late["restarts"]
    due = min(restarts, first) + max(0, restarts - first) // PROOFS_RESTARTS_SHARE
    assert PROOFS_RESTARTS_SHARE == 7 and (first > restarts) == (first == 1_000_000)
    # Its turn follows a complete restart, which the stop may have cut short.
    assert due - 64 * RESTART_UNIT <= searching.spent <= due


def test_once_it_is_done_the_rollouts_get_its_share(
        catalogue: Catalogue, monkeypatch: pytest.MonkeyPatch) -> None:
    """Game 3 again, the limited discrepancy search's memory only 1 MiB: it fills it soon
    after the knee, gives its table back, and the rollouts take its share from there, as
    many positions as it leaves."""
    monkeypatch.setattr(schedule, "PROOFS_LATE", KNEE)
    monkeypatch.setattr(schedule, "DISCREPANCIES_FIRST", 0)
    monkeypatch.setattr(search_module, "DISCREPANCIES_MEMORY_PART", 1024)
    spent = count_spending(monkeypatch)
    at_knee: dict[str, int] = {}
    leave = _Search._leave_to_proofs

    def snapshot(search: _Search) -> None:
        at_knee.update(spent)
        leave(search)

    monkeypatch.setattr(_Search, "_leave_to_proofs", snapshot)
    search = run_undecided_deal(catalogue, 400_000)
    assert search.discrepancies is None
    late = {key: spent[key] - at_knee[key] for key in spent}
    eighth = late["rollouts"] + late["discrepancies"]
    assert late["discrepancies"] > 0 and late["rollouts"] > late["discrepancies"]
    # The rollouts stop at the first whole step past their due: a few positions over.
    assert late["restarts"] // 7 - 64 * RESTART_UNIT // 7 <= eighth <= late["restarts"] // 7 + 100


def test_its_table_is_given_back_first_when_the_table_fills(catalogue: Catalogue) -> None:
    """Single-round Gaps game 3, with a table of 4 MiB that the limited discrepancy search
    may fill alone: when it does, it stops and gives its table back, the search going on."""
    state = new_game(catalogue.rules("montana", {"redeals": "0"}), DealNumber(3))
    search = _searching(state, memory=4 << 20)
    assert search.discrepancy_turn(10**7) is None
    assert search.discrepancies is None and search.table_bytes == 0
    assert bytes(search.engine.codes) == bytes(Engine.from_state(state).codes)


def test_a_full_table_outside_its_turn_takes_its_table_first(catalogue: Catalogue) -> None:
    """The table fills during another search's turn: the limited discrepancy search gives
    its table back, and that search goes on."""
    state = new_game(catalogue.rules("montana", {"redeals": "0"}), DealNumber(3))
    search = _searching(state, memory=8 << 20)
    assert search.discrepancy_turn(20_000) is None
    searching = search.discrepancies
    assert searching is not None and searching.table_bytes > 0
    search.table_bytes = search.budget.memory - 1
    search.charge(b"x" * 40)  # another search's position
    assert search.discrepancies is None
    overhead = search_module._TABLE_ENTRY_OVERHEAD
    assert search.table_bytes == search.budget.memory - 1 + 40 + overhead - searching.table_bytes
    with pytest.raises(_Stop):  # with nothing more to give back, the search stops on memory
        search.charge(b"y" * (search.budget.memory))
