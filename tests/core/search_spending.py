"""Count the positions each of the solver's searches spends, for the schedule's tests."""

from __future__ import annotations

import pytest

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import Engine, new_game
from gapgrid.core.notation import Action
from gapgrid.core.reductions import reductions_for
from gapgrid.core.search import Budget, _Restarts, _Search, _Stop


def count_spending(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Patch the searches for the test's duration; the returned counts grow as they run:
    ``restarts`` (the complete restarts), ``fixed`` (the fixed-heads ones), ``rollouts``,
    ``discrepancies`` (the limited discrepancy search)."""
    spent = {"restarts": 0, "fixed": 0, "rollouts": 0, "discrepancies": 0}
    attempt, rollouts = _Search.attempt, _Search.nested_rollouts
    discrepancies = _Search.discrepancy_turn

    def counted_attempt(search: _Search, order: int, cap: int,
                        family: _Restarts | None = None) -> list[Action] | None:
        before = search.positions
        try:
            return attempt(search, order, cap, family)
        finally:
            spent["restarts" if family is None else "fixed"] += search.positions - before

    def counted_rollouts(search: _Search, until: int) -> list[Action] | None:
        before = search.positions
        try:
            return rollouts(search, until)
        finally:
            spent["rollouts"] += search.positions - before

    def counted_discrepancies(search: _Search, due: int) -> list[Action] | None:
        before = search.positions
        try:
            return discrepancies(search, due)
        finally:
            spent["discrepancies"] += search.positions - before

    monkeypatch.setattr(_Search, "attempt", counted_attempt)
    monkeypatch.setattr(_Search, "discrepancy_turn", counted_discrepancies)
    monkeypatch.setattr(_Search, "nested_rollouts", counted_rollouts)
    return spent


def run_undecided_deal(catalogue: Catalogue, positions: int) -> _Search:
    """Single-round Gaps game 3 (undecided within a few million positions), searched until
    ``positions``; the search, stopped there."""
    rules = catalogue.rules("montana", {"redeals": "0"})
    search = _Search(Engine.from_state(new_game(rules, DealNumber(3))),
                     Budget(seconds=None, positions=positions), None, reductions_for(rules))
    with pytest.raises(_Stop):
        search._take_turns()
    return search
