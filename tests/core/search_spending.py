"""Count the positions each of the solver's searches spends, for the schedule's tests."""

from __future__ import annotations

import pytest

from gapgrid.core.notation import Action
from gapgrid.core.search import _Restarts, _Search


def count_spending(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Patch the searches for the test's duration; the returned counts grow as they run:
    ``restarts`` (the complete restarts), ``fixed`` (the fixed-heads ones), ``rollouts``."""
    spent = {"restarts": 0, "fixed": 0, "rollouts": 0}
    attempt, rollouts = _Search.attempt, _Search.nested_rollouts

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

    monkeypatch.setattr(_Search, "attempt", counted_attempt)
    monkeypatch.setattr(_Search, "nested_rollouts", counted_rollouts)
    return spent
