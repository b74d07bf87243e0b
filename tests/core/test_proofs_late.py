"""Past PROOFS_LATE positions a search is left to the proofs: the complete restarts get seven
positions for each one of the limited discrepancy search's (then the rollouts'), the
fixed-heads restarts go on in levels, the best-first search and the beams stop."""

from __future__ import annotations

import pytest

from gapgrid.core import schedule
from gapgrid.core import search as search_module
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import Engine, new_game
from gapgrid.core.reductions import reductions_for
from gapgrid.core.schedule import (
    PROOFS_RESTARTS_SHARE,
    proofs_late,
)
from gapgrid.core.search import (
    Budget,
    _Search,
    _Stop,
    solve,
)
from tests.core.search_spending import count_spending, run_undecided_deal

KNEE = 60_000
"""The knee the tests put in place of PROOFS_LATE (four million positions, over a minute)."""


@pytest.mark.parametrize(("slug", "options", "applies"), [
    ("montana", {"redeals": "0"}, True), ("line-up", None, True),
    ("spaces-and-aces", None, True), ("montana", None, False), ("gaps-unlimited", None, False),
    ("paganini-ii", None, False), ("double-montana", None, False),
    ("rectangular-rovers", None, False)])
def test_the_proofs_take_over_where_losses_can_be_proven(
        catalogue: Catalogue, slug: str, options: dict[str, str] | None, applies: bool) -> None:
    """In single-round games with one deck where cards jump; not with redeals (no study has
    proven such a loss, and with unlimited ones the restarts never finish), two decks (no
    deal's space is ever exhausted) nor in the sliding puzzle."""
    rules = catalogue.rules(slug, options)
    assert (proofs_late(rules) is not None) == applies


def test_past_the_knee_the_best_first_search_and_the_beams_stop(
        catalogue: Catalogue, monkeypatch: pytest.MonkeyPatch) -> None:
    """Single-round Gaps game 3, undecided within 400,000 positions, with the knee at 60,000:
    past it the best-first search and the beams stop and give their table back; the
    complete restarts get seven positions for each one of the limited discrepancy search's
    (tests/core/test_discrepancies.py), the fixed-heads restarts go on in levels
    (tests/core/test_head_levels.py); before it, every search ran but that one."""
    monkeypatch.setattr(schedule, "PROOFS_LATE", KNEE)
    monkeypatch.setattr(schedule, "DISCREPANCIES_FIRST", 0)  # its seventh from the knee on
    spent = count_spending(monkeypatch)
    at_knee: dict[str, int] = {}
    leave = _Search._leave_to_proofs

    def snapshot(search: _Search) -> None:
        assert search.best_first_bytes > 0
        held = search.best_first_bytes
        at_knee.update(spent, positions=search.positions, table=search.table_bytes, held=held)
        leave(search)
        assert search.table_bytes == at_knee["table"] - held  # its bytes given back

    monkeypatch.setattr(_Search, "_leave_to_proofs", snapshot)
    search = run_undecided_deal(catalogue, 400_000)
    assert KNEE <= at_knee["positions"] < 2 * KNEE
    before = at_knee["positions"] - at_knee["restarts"] - at_knee["fixed"] - at_knee["rollouts"]
    assert min(at_knee["restarts"], at_knee["fixed"], at_knee["rollouts"], before) > 0
    assert at_knee["discrepancies"] == 0
    late = {key: spent[key] - at_knee[key] for key in spent}
    total = search.positions - at_knee["positions"]
    assert sum(late.values()) == total  # nothing else ran: no best-first search, no beam
    assert late["discrepancies"] > 0
    assert PROOFS_RESTARTS_SHARE == 7  # an eighth to the limited discrepancy search
    assert 6 * late["discrepancies"] <= late["restarts"] <= 8 * late["discrepancies"]
    assert search.open is None and not search.open_seen


def test_before_the_knee_nothing_changes(catalogue: Catalogue,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A search that stops just before the knee spends its positions exactly as one where
    the proofs never take over: same positions for each search, same table."""
    monkeypatch.setattr(schedule, "PROOFS_LATE", KNEE)
    rules = catalogue.rules("montana", {"redeals": "0"})
    outcomes = []
    for knee in (KNEE, None):
        monkeypatch.setattr(search_module, "proofs_late", lambda rules, knee=knee: knee)
        spent = count_spending(monkeypatch)
        search = _Search(Engine.from_state(new_game(rules, DealNumber(3))),
                         Budget(seconds=None, positions=KNEE - 4096), None,
                         reductions_for(rules))
        with pytest.raises(_Stop):
            search._take_turns()
        outcomes.append((dict(spent), search.positions, search.table_bytes))
        monkeypatch.undo()
        monkeypatch.setattr(schedule, "PROOFS_LATE", KNEE)
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][1] < KNEE


def test_a_loss_is_still_proven_past_the_knee(catalogue: Catalogue,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Line Up game 11, lost (a proof of some 63,000 positions), with the knee at 20,000:
    the complete restarts finish it, as before, beside the head levels (from level 1: the
    fixed-heads restarts had explored level 0 by the knee)."""
    monkeypatch.setattr(schedule, "PROOFS_LATE", 20_000)
    left = []
    floors = []
    leave = _Search._leave_to_proofs

    def noting(search: _Search) -> None:
        left.append(search.positions)
        leave(search)
        floors.append(search.head_levels.floor if search.head_levels is not None else None)

    monkeypatch.setattr(_Search, "_leave_to_proofs", noting)
    result = solve(new_game(catalogue.rules("line-up"), DealNumber(11)),
                   Budget(seconds=None, positions=2_000_000))
    assert result.verdict == "lost" and left and result.positions > left[0]
    assert floors == [1]  # its fixed-heads space was explored before: the levels start at 1
