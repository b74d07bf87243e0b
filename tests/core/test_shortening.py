"""Winning lines without their detours and idle actions: still wins, shorter, bounded cost."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import pytest

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import Engine, GameState, new_game
from gapgrid.core.notation import Action, Move, parse_actions
from gapgrid.core.replay import replay_from
from gapgrid.core.search import Budget, solve
from gapgrid.core.shortening import tightened, without_detours, without_idle_actions

STUDY = Path(__file__).resolve().parents[2] / "data" / "study" / "solver-4"


def _study_line(catalogue: Catalogue, slug: str, number: int
                ) -> tuple[GameState, list[Action]]:
    """A won line solver 4 found (before its lines were cut), from the committed study."""
    with (STUDY / f"{slug}.csv").open(newline="", encoding="utf-8") as rows:
        row = next(row for row in csv.DictReader(rows) if row["game_number"] == str(number))
    return new_game(catalogue.rules(slug), DealNumber(number)), parse_actions(
        row["line"].split())


def _wins_without(state: GameState, line: Sequence[Action], index: int) -> bool:
    """Whether ``line`` still wins without action ``index``, the later actions the rules
    then refuse skipped: what makes an action idle."""
    engine = Engine.from_state(state)
    for at, action in enumerate(line):
        if at != index and engine.apply(action) is None and engine.won:
            return True
    return False


def test_a_wandering_line_is_cut_to_a_shorter_win(catalogue: Catalogue) -> None:
    """Solver 4's line for Spaces and Aces game 3 shuffles cards about: each cut shortens
    it, and what comes out still wins."""
    state, line = _study_line(catalogue, "spaces-and-aces", 3)
    direct = without_detours(state, line)
    cut = without_idle_actions(state, direct)
    assert len(cut) < len(direct) < len(line)
    assert all(replay_from(state, shorter).won for shorter in (direct, cut))
    assert tightened(state, line) == cut


def test_no_action_of_a_cut_line_is_idle(catalogue: Catalogue) -> None:
    """Whatever single action of the result is left out, the game is no longer won."""
    state, line = _study_line(catalogue, "paganini-ii", 2)
    cut = tightened(state, line)
    assert len(cut) < len(line)
    assert not any(_wins_without(state, cut, index) for index in range(len(cut)))


def test_the_cut_stops_at_its_work_cap_with_a_win(catalogue: Catalogue) -> None:
    """With no work allowed the line is kept; with a little, part of it is cut and the
    result still wins."""
    state, line = _study_line(catalogue, "spaces-and-aces", 3)
    direct = without_detours(state, line)
    assert without_idle_actions(state, direct, max_work=0) == tuple(direct)
    partly = without_idle_actions(state, direct, max_work=10_000)
    full = without_idle_actions(state, direct)
    assert len(full) < len(partly) < len(direct)
    assert replay_from(state, partly).won


def test_a_refused_action_is_an_error(catalogue: Catalogue) -> None:
    """A line the rules refuse is no line to cut: a clear error."""
    state = new_game(catalogue.rules("montana"), DealNumber(1))
    with pytest.raises(ValueError, match="refused"):
        without_detours(state, [Move(0, 0)])
    with pytest.raises(ValueError, match="refused"):
        without_idle_actions(state, [Move(0, 0)])


@pytest.mark.parametrize(("slug", "number"),
                         [("montana", 1), ("spaces-and-aces", 1), ("double-blue-moon", 1)])
def test_the_solvers_lines_come_cut(catalogue: Catalogue, slug: str, number: int) -> None:
    """A won line from the solver has no idle action left."""
    state = new_game(catalogue.rules(slug), DealNumber(number))
    result = solve(state, Budget(seconds=None, positions=60_000))
    assert result.verdict == "won"
    assert not any(_wins_without(state, result.line, index)
                   for index in range(len(result.line)))
