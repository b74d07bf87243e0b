"""The entry probes: exact on small spaces, and no loss claimed from a sample."""

from __future__ import annotations

import itertools

import pytest

from gapgrid import plugins
from gapgrid.core import entry_probes
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.entry_probes import _Round
from gapgrid.core.game import Engine, GameState, new_game
from gapgrid.core.reductions import reductions_for
from gapgrid.core.replay import replay_from
from gapgrid.core.search import SOLVER_VERSION, Budget, SearchMode, _Search, solve
from tests.core.small_layout import deal, reference_verdict, small_layout, small_rules


def _search(state: GameState) -> _Search:
    """A search of ``state`` with the steps the entry probes take (the restarts' own)."""
    return _Search(Engine.from_state(state), Budget(seconds=None), None,
                   reductions_for(state.rules))


def _looks_counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the looks into entries from now on (in one list item)."""
    looks = [0]
    explore = _Round._explore

    def counted(self: _Round, path: list[entry_probes.Step], cap: int | None) -> object:
        looks[0] += cap is not None
        return explore(self, path, cap)

    monkeypatch.setattr(_Round, "_explore", counted)
    return looks


@pytest.mark.parametrize("search", ["entries", "entries-shuffled", "entries-freezes-first",
                                    "entries-lowest-first"])
def test_they_win_exactly_the_small_deals_that_can_be_won_and_prove_the_others_lost(
        monkeypatch: pytest.MonkeyPatch, search: SearchMode) -> None:
    """On 120 small deals (4 rows of 4) run to their end, the entry probes, in slot order
    first, shuffled from the start, with the Freezes first or with the lowest slots first,
    win exactly the deals a plain search wins, each line replayed, and prove the others lost,
    looking into entries on the way; the answers name the search."""
    looks = _looks_counted(monkeypatch)
    rules = small_rules()
    verdicts = set()
    for number in range(1, 121):
        state = deal(rules, number)
        result = solve(state, Budget(seconds=None), search=search)
        assert result.verdict == ("won" if reference_verdict(state) else "lost"), number
        assert result.version == f"{SOLVER_VERSION}-{search}"
        if result.verdict == "won":
            replayed = replay_from(state, result.line)
            assert replayed.ok and replayed.won, number
        verdicts.add(result.verdict)
    assert verdicts == {"won", "lost"}
    assert looks[0] > 0


def test_a_round_that_leaves_entries_out_claims_nothing() -> None:
    """A lost deal of 4 rows of 6 (game 54): a round that looks into every entry, each to its
    end, has explored everything; one that samples half of them, or cuts its looks short
    after 20 positions, has not, and the search goes on to a round that does. Where no
    entry is met (Line Up game 55, lost), the first round, sampling or not, has."""
    state = new_game(small_rules(small_layout(6)), DealNumber(54))
    assert _Round(_search(state), 0, 1.0, 10**9, 1).run() is True
    assert _Round(_search(state), 0, 0.5, 10**9, 1).run() is False
    assert _Round(_search(state), 0, 1.0, 20, 1).run() is False
    search = _search(state)
    assert entry_probes.search_entries(search) is None
    assert search.table_bytes == 0  # every round gave its tables back
    assert bytes(search.engine.codes) == bytes(Engine.from_state(state).codes)
    line_up = plugins.load_catalogue().rules("line-up")
    assert _Round(_search(new_game(line_up, DealNumber(55))), 0, 1 / 64, 10, 1).run() is True


def test_they_win_a_single_round_gaps_deal_and_stop_at_the_budget() -> None:
    """Single-round Gaps game 1 is won (the line replays); game 3, which no search of a
    minute decides, stops at its positions, unknown."""
    rules = plugins.load_catalogue().rules("montana", {"redeals": "0"})
    won = solve(new_game(rules, DealNumber(1)), Budget(seconds=None, positions=400_000),
                search="entries")
    assert won.verdict == "won"
    replayed = replay_from(new_game(rules, DealNumber(1)), won.line)
    assert replayed.ok and replayed.won
    unknown = solve(new_game(rules, DealNumber(3)), Budget(seconds=None, positions=20_000),
                    search="entries")
    assert (unknown.verdict, unknown.stopped_by) == ("unknown", "positions")
    assert 20_000 <= unknown.positions < 20_000 + 1024


def test_the_other_probes_meet_other_entries_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second, third or fourth try is a different search: on single-round Gaps game 97,
    the shuffled probes, the Freezes-first ones and the lowest-first ones meet their first
    200 entries in another order than the plain probes and than each other, with others among
    them, and meet the same again when run again (the same input, the same search)."""
    met: list[bytes] = []
    entry = _Round._entry

    def recorded(self: _Round, path: list[entry_probes.Step]) -> object:
        met.append(self.search.key())
        return entry(self, path)

    monkeypatch.setattr(_Round, "_entry", recorded)
    state = new_game(plugins.load_catalogue().rules("montana", {"redeals": "0"}),
                     DealNumber(97))
    firsts: dict[SearchMode, list[bytes]] = {}
    searches: list[SearchMode] = ["entries", "entries-shuffled", "entries-freezes-first",
                                  "entries-lowest-first"]
    for search in searches + searches[1:]:
        met.clear()
        result = solve(state, Budget(seconds=None, positions=20_000), search=search)
        assert result.verdict == "unknown" and len(met) >= 200, search
        assert firsts.setdefault(search, met[:200]) == met[:200], search  # the same again
    for one, other in itertools.combinations(firsts.values(), 2):
        assert one[0] != other[0] and set(one) != set(other)
