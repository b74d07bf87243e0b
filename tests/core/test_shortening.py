"""Winning lines without their detours and idle actions: still wins, shorter, bounded cost."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import pytest

from gapgrid.core import shortening
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import Engine, GameState, new_game
from gapgrid.core.notation import REDEAL, UNDO, Action, Move, parse_actions
from gapgrid.core.replay import replay_from
from gapgrid.core.search import Budget, solve
from gapgrid.core.shortening import tightened, without_detours, without_idle_actions

STUDIES = Path(__file__).resolve().parents[2] / "data" / "study"


def _study_line(catalogue: Catalogue, slug: str, number: int, solver: int = 4
                ) -> tuple[GameState, list[Action]]:
    """A won line solver 3 or 4 found (before lines were cut), from the committed studies."""
    path = STUDIES / f"solver-{solver}" / f"{slug}.csv"
    with path.open(newline="", encoding="utf-8") as rows:
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
    both = tightened(state, line)
    assert len(both) <= len(cut) and replay_from(state, both).won


def test_no_action_of_a_cut_line_is_idle(catalogue: Catalogue) -> None:
    """Whatever single action of the result is left out, the game is no longer won."""
    state, line = _study_line(catalogue, "paganini-ii", 2)
    cut = tightened(state, line)
    assert len(cut) < len(line) and replay_from(state, cut).won
    assert not any(_wins_without(state, cut, index) for index in range(len(cut)))


def test_the_cut_stops_at_its_work_cap_with_a_win(catalogue: Catalogue) -> None:
    """With no work allowed the line is kept; with a little, part of it is cut and the
    result still wins."""
    state, line = _study_line(catalogue, "spaces-and-aces", 3)
    direct = without_detours(state, line)
    assert without_idle_actions(state, direct, max_work=0) == tuple(direct)
    partly = without_idle_actions(state, direct, max_work=20_000)
    full = without_idle_actions(state, direct)
    assert len(full) < len(partly) < len(direct)
    assert replay_from(state, partly).won


def test_long_idle_stretches_go_whole_before_single_actions(
        catalogue: Catalogue, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long wandering line (solver 3's for Double Montana game 10, 1,118 actions) has long
    idle stretches: left out whole first, 64, 16 and 4 actions at a time, they go within the
    work cap, where one action at a time reached the cap with 1,020 actions left."""
    state, line = _study_line(catalogue, "double-montana", 10, solver=3)
    cut = tightened(state, line)
    assert replay_from(state, cut).won and len(cut) < len(line) / 2
    monkeypatch.setattr(shortening, "WINDOWS", ())
    assert len(tightened(state, line)) > 2 * len(cut)


def test_only_a_winning_line_of_moves_and_redeals_is_cut(catalogue: Catalogue) -> None:
    """A refused action, an undo, or a line that does not win is no line to cut: a clear
    error from both cuts."""
    state, line = _study_line(catalogue, "spaces-and-aces", 3)
    for cut in (without_detours, without_idle_actions, tightened):
        with pytest.raises(ValueError, match="refused"):
            cut(state, [Move(0, 0)])
        with pytest.raises(ValueError, match="card moves and redeals"):
            cut(state, [*line[:2], UNDO, *line[2:]])
        with pytest.raises(ValueError, match="does not win"):
            cut(state, line[:-1])


def test_lines_with_redeals_and_after_earlier_moves_are_cut_to_wins(
        catalogue: Catalogue) -> None:
    """Solver 3's lines for Montana Relax (three redeals each) and Gaps (two), cut from the
    deal and from the position after the line's first action: wins, none longer, the same
    each time."""
    for slug, number in (("montana-relax", 1), ("montana-relax", 2), ("gaps", 2)):
        state, line = _study_line(catalogue, slug, number, solver=3)
        assert REDEAL in line
        later = state.apply(line[0])
        for start, rest in ((state, line), (later, line[1:])):
            cut = tightened(start, rest)
            assert len(cut) <= len(rest) and replay_from(start, cut).won
            assert tightened(start, rest) == cut


def test_a_won_position_needs_no_line(catalogue: Catalogue) -> None:
    """From a won position the line is empty, and stays so."""
    state, line = _study_line(catalogue, "spaces-and-aces", 3)
    won = replay_from(state, line).state
    assert won.is_won
    assert tightened(won, []) == ()


@pytest.mark.parametrize(("slug", "number"),
                         [("montana", 1), ("spaces-and-aces", 1), ("double-blue-moon", 1),
                          ("line-up", 58259342821452908263)])
def test_the_solvers_lines_come_cut(catalogue: Catalogue, slug: str, number: int) -> None:
    """A won line from the solver has no idle action and no detour left: the Line Up deal
    (the daily puzzle of 2026-11-29) came with ``0-18 6-0 18-6`` played twice over, the
    position after it the one before, left behind by the idle cut (69 actions, not 57)."""
    state = new_game(catalogue.rules(slug), DealNumber(number))
    result = solve(state, Budget(seconds=None, positions=60_000))
    assert result.verdict == "won"
    assert not any(_wins_without(state, result.line, index)
                   for index in range(len(result.line)))
    assert without_detours(state, result.line) == tuple(result.line)


def test_both_cuts_take_turns_until_neither_cuts(catalogue: Catalogue) -> None:
    """What :func:`tightened` returns is left as it is by either cut, and has no detour even
    where the work cap stops the idle cut: on Free Parking game 4 (solver 3's line, 764
    actions) fewer than the 552 that one detour cut and one idle cut, as solvers 5 to 16
    made them, left with detours in them."""
    for slug, number, solver in (("spaces-and-aces", 3, 4), ("paganini-ii", 2, 4),
                                 ("montana-relax", 1, 3), ("gaps", 2, 3)):
        state, line = _study_line(catalogue, slug, number, solver=solver)
        cut = tightened(state, line)
        assert without_detours(state, cut) == cut
        assert without_idle_actions(state, cut) == cut
    state, line = _study_line(catalogue, "free-parking", 4, solver=3)
    cut = tightened(state, line)
    once = without_idle_actions(state, without_detours(state, line))
    assert without_detours(state, cut) == cut and replay_from(state, cut).won
    assert len(cut) < len(once) and without_detours(state, once) != once
