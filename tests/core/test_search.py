"""The solver: won lines that replay, lost only after exhausting, unknown at the budget."""

from __future__ import annotations

import itertools
import random
import sys
import time
from collections.abc import Sequence

import attrs
import pytest

from gapgrid.core import search as search_module
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.fills import MontanaFill
from gapgrid.core.game import Engine, GameState, new_game
from gapgrid.core.notation import REDEAL, Action, Move, Undo
from gapgrid.core.reductions import Reductions, reductions_for
from gapgrid.core.replay import replay_from
from gapgrid.core.runs import CardIndex, Cells
from gapgrid.core.schedule import (
    FIRST_ROLLOUT_SHARE,
    LATE_ROLLOUT_SHARE,
    RESTART_UNIT,
    RESTARTS_FIRST,
    ROLLOUT_SHARE,
    ROLLOUTS_LATE,
    luby,
    restarts_first,
    rollout_positions,
    rollout_share,
    rollouts_late,
)
from gapgrid.core.search import (
    _CHECK_EVERY,
    SOLVER_VERSION,
    Budget,
    Progress,
    SearchMode,
    _Search,
    interruptions_surfacing,
    shorten,
    shuffle,
    solve,
)
from tests.core.search_spending import count_spending
from tests.core.small_layout import small_layout, small_rules


def _start(catalogue: Catalogue, slug: str, number: int,
           options: dict[str, str] | None = None) -> GameState:
    return new_game(catalogue.rules(slug, options), DealNumber(number))


def test_a_won_line_replays_to_a_win_and_never_undoes(catalogue: Catalogue) -> None:
    """Line Up game 1 is won; the line wins when replayed and holds only moves and redeals."""
    state = _start(catalogue, "line-up", 1)
    result = solve(state, Budget(seconds=None))
    assert result.verdict == "won" and result.line
    assert not any(isinstance(action, Undo) for action in result.line)
    replayed = replay_from(state, result.line)
    assert replayed.ok and replayed.won
    assert result.positions > 0 and result.seconds >= 0


def test_the_same_input_gives_the_same_line(catalogue: Catalogue) -> None:
    """Two searches of one position answer with the same line."""
    state = _start(catalogue, "line-up", 2)
    assert solve(state).line == solve(state).line


def test_a_lost_game_is_lost_only_after_the_whole_space(catalogue: Catalogue) -> None:
    """Line Up game 4 has no win: the answer is lost, with the positions explored."""
    state = _start(catalogue, "line-up", 4)
    result = solve(state, Budget(seconds=None))
    assert result.verdict == "lost" and result.line == () and result.stopped_by is None


def test_an_exhausted_budget_is_unknown(catalogue: Catalogue) -> None:
    """A position budget too small for a Montana deal gives unknown, saying which limit hit."""
    state = _start(catalogue, "montana", 617, {"redeals": "0"})
    result = solve(state, Budget(seconds=None, positions=1024))
    assert result.verdict == "unknown" and result.stopped_by == "positions"
    assert 1024 <= result.positions < 4096


class _SlowFill(MontanaFill):
    """Montana's fill rule, as slow as a plugin's may be: 20 ms each time it lists sources."""

    def sources(self, cells: Cells, target: int, where: CardIndex | None = None) -> list[int]:
        time.sleep(0.02)
        return super().sources(cells, target, where)


def test_slow_rules_do_not_run_a_search_past_its_seconds(catalogue: Catalogue) -> None:
    """With a rule of 20 ms a call, 1,024 positions (when the clock was read) take over a
    minute, and a search of three seconds ran that long; now the clock is read every tenth
    of a second or so once the rules are seen to be slow (past the first look, at the 16th
    position)."""
    rules = catalogue.rules("montana", {"redeals": "0"})
    slow = attrs.evolve(rules, fill=_SlowFill(rules.layout))
    started = time.monotonic()
    result = solve(new_game(slow, DealNumber(617)), Budget(seconds=3.0))
    assert result.verdict == "unknown" and result.stopped_by == "seconds"
    assert result.positions > 16  # stopped by a slow rules' look, not the first one
    assert time.monotonic() - started < 6  # past a minute without the looks


@pytest.mark.parametrize(("slug", "number", "options"), [
    ("spaces", 11, {}), ("montana", 1, {"redeals": "0"}), ("rectangular-rovers", 2, {})])
def test_looks_at_the_clock_between_the_regular_ones_change_nothing(
        catalogue: Catalogue, monkeypatch: pytest.MonkeyPatch, slug: str, number: int,
        options: dict[str, str]) -> None:
    """The same input gives the same line, position for position, however often the clock
    is read: with every position taken for slow (as a stall, packing a table or a suspended
    process, would make fast rules look for a while), the search is the one it is with the
    looks every 1,024 positions alone."""
    state = _start(catalogue, slug, number, options)
    budget = Budget(seconds=None, positions=40_000)
    regular = solve(state, budget)
    monkeypatch.setattr(search_module, "_SLOW_POSITION", 0.0)  # every look finds it slow
    monkeypatch.setattr(search_module, "_SLOW_LOOK", 0.0)  # and looks again at once
    looked_often = solve(state, budget)
    assert (looked_often.verdict, looked_often.positions, looked_often.line) == (
        regular.verdict, regular.positions, regular.line)
    assert regular.positions > 2_000  # past the first restart's cap, where looks could end it


@pytest.mark.parametrize("positions", [1, 100, 200, 1500])
def test_a_budget_of_positions_stops_the_search_at_that_count(catalogue: Catalogue,
                                                             positions: int) -> None:
    """The search stops at the positions it was given, not at the next multiple of 1,024 (a
    budget of 100 searched 1,024, as one of 200 did: a study retried at 200 after 100 redid
    the same search and recorded it as the larger budget)."""
    state = _start(catalogue, "montana", 617, {"redeals": "0"})
    result = solve(state, Budget(seconds=None, positions=positions))
    assert result.verdict == "unknown" and result.positions == positions


@pytest.mark.parametrize(("slug", "number", "options", "search"), [
    ("double-montana", 10, {}, "whole"),  # two decks: the restarts are a small share
    ("montana", 1, {"redeals": "0"}, "whole"),
    ("montana", 1, {"redeals": "0"}, "complete"),  # by the restarts' depth-first search
])
def test_a_win_at_the_budgets_last_position_is_within_it(
        catalogue: Catalogue, slug: str, number: int, options: dict[str, str],
        search: SearchMode) -> None:
    """A budget of exactly the positions a win takes finds it, the same line (the budget
    was looked at first: Double Montana game 10, won at its 1,118th position, was unknown
    with a budget of 1,118); one position fewer does not."""
    state = _start(catalogue, slug, number, options)
    found = solve(state, Budget(seconds=None, positions=1_000_000), search=search)
    assert found.verdict == "won"
    exactly = solve(state, Budget(seconds=None, positions=found.positions), search=search)
    assert exactly.verdict == "won" and exactly.line == found.line
    assert exactly.positions == found.positions
    short = solve(state, Budget(seconds=None, positions=found.positions - 1), search=search)
    assert short.verdict == "unknown" and short.stopped_by == "positions"


def test_a_full_table_is_unknown_not_a_crash(catalogue: Catalogue) -> None:
    """With a tiny memory cap and no limit of time or positions, the search stops cleanly
    as soon as the table is full, and says so: nothing else would ever stop it."""
    state = _start(catalogue, "montana", 617, {"redeals": "0"})
    result = solve(state, Budget(seconds=None, memory=20_000))
    assert result.verdict == "unknown" and result.stopped_by == "memory"
    assert result.positions < RESTART_UNIT  # within the first restart


def test_once_the_table_is_full_the_rollouts_go_on_and_may_win(catalogue: Catalogue) -> None:
    """A full table stops the searches that keep one, not the rollouts: single-round Gaps
    game 2 fills a 20,000-byte table within the first restart (part way along its path)
    and is still won within the positions given, by a line that replays from the start."""
    state = _start(catalogue, "montana", 2, {"redeals": "0"})
    result = solve(state, Budget(seconds=None, positions=50_000, memory=20_000))
    assert result.verdict == "won" and result.positions > RESTART_UNIT
    replayed = replay_from(state, result.line)
    assert replayed.ok and replayed.won


def test_once_the_table_is_full_no_loss_is_claimed(catalogue: Catalogue) -> None:
    """After the table fills, the search runs to the end of its positions (the rollouts)
    and, without a win, answers unknown stopped by memory: the memory is what a loss proof
    lacked. The restarts alone (no rollouts) stop when it fills."""
    state = _start(catalogue, "montana", 1, {"redeals": "0"})
    budget = Budget(seconds=None, positions=20_000, memory=20_000)
    result = solve(state, budget)
    assert result.verdict == "unknown" and result.stopped_by == "memory"
    assert result.positions >= 20_000
    alone = attrs.evolve(reductions_for(state.rules), heuristic_order=False)
    restarts = solve(state, budget, reductions=alone)
    assert restarts.verdict == "unknown" and restarts.stopped_by == "memory"
    assert restarts.positions < RESTART_UNIT


def test_a_search_from_a_position_after_some_moves(catalogue: Catalogue) -> None:
    """Solving after a few moves gives a line that wins from there."""
    start = _start(catalogue, "line-up", 3)
    first = start.legal_moves()[0]
    after = start.apply(first)
    result = solve(after, Budget(seconds=None))
    assert result.verdict in ("won", "lost")
    if result.verdict == "won":
        assert replay_from(after, result.line).won


def test_redeals_are_actions_of_the_line(catalogue: Catalogue) -> None:
    """Some House of Commons deal is won only through a redeal, and its line replays with it."""
    for number in range(1, 60):
        state = _start(catalogue, "house-of-commons", number)
        result = solve(state, Budget(seconds=5))
        if result.verdict == "won" and REDEAL in result.line:
            assert replay_from(state, result.line).won
            return
    pytest.fail("no House of Commons deal among 1-59 was won through a redeal")


def test_every_variant_and_preset_can_be_searched(catalogue: Catalogue) -> None:
    """Each built-in variant and preset runs through the solver; any won line replays."""
    for slug in catalogue.slugs():
        state = _start(catalogue, slug, 5)
        result = solve(state, Budget(seconds=None, positions=3000))
        assert result.verdict in ("won", "lost", "unknown"), slug
        if result.verdict == "won":
            assert replay_from(state, result.line).won, slug


def test_progress_is_reported_on_long_searches(catalogue: Catalogue) -> None:
    """The progress callback hears about the positions explored so far."""
    reports: list[Progress] = []
    state = _start(catalogue, "montana", 617, {"redeals": "0"})
    solve(state, Budget(seconds=None, positions=5000), progress=reports.append)
    assert reports and reports[-1].positions <= 5000
    assert [report.positions for report in reports] == sorted(r.positions for r in reports)


def test_shortening_keeps_a_winning_line_no_longer(catalogue: Catalogue) -> None:
    """A detour (a move and its way back) is cut out of a winning line."""
    state = _start(catalogue, "line-up", 1)
    line = solve(state, Budget(seconds=None)).line
    # Make a detour: a legal move at the start, then its reverse if legal.
    detour: list[Move] = []
    for move in state.legal_moves():
        after = state.apply(move)
        back = Move(move.target, move.source)
        if after.check(back) is None:
            detour = [move, back]
            break
    padded = (*detour, *line)
    shorter = shorten(state, padded, seconds=0.5)
    assert len(shorter) <= len(line)
    assert replay_from(state, shorter).won


def test_shortening_by_positions_gives_the_same_line_every_time(catalogue: Catalogue) -> None:
    """A puzzle's par comes from a pass bounded by positions: the same won line shortens to
    the same line each time, whatever the machine's load (a time bound alone did not)."""
    state = _start(catalogue, "rectangular-rovers", 3)
    line = solve(state, Budget(seconds=None, positions=60_000)).line
    assert line
    first = shorten(state, line, seconds=60.0, positions=5_000)
    assert shorten(state, line, seconds=60.0, positions=5_000) == first
    assert len(first) <= len(line) and replay_from(state, first).won


def test_luby_sequence() -> None:
    """Restart lengths follow Luby's sequence."""
    assert [luby(number) for number in range(1, 16)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1,
                                                          2, 4, 8]


@pytest.mark.parametrize(("slug", "number", "positions"), [
    ("rectangular-rovers", 3, 20_000),  # cards slide to a neighbouring gap
    ("jungle", 5, 10_000),  # any suit follows, one redeal
    ("spaces-and-aces", 7, 15_000),  # any higher card of the suit follows
    ("paganini-ii", 8, 40_000),  # two decks, 8 rows of 14
    ("montana-classic", 5, 10_000),  # one redeal that scatters the gaps
])
def test_games_beyond_montanas_fills_are_won(catalogue: Catalogue, slug: str, number: int,
                                             positions: int) -> None:
    """A deal of each game the first searches never won is won within a position budget."""
    state = _start(catalogue, slug, number)
    result = solve(state, Budget(seconds=None, positions=positions))
    assert result.verdict == "won", (slug, result)
    assert replay_from(state, result.line).won


def test_the_best_first_search_gives_the_same_line_every_time(catalogue: Catalogue) -> None:
    """A Jungle deal that the best-first search wins (after the first restart) gives one line."""
    state = _start(catalogue, "jungle", 5)
    budget = Budget(seconds=None, positions=10_000)
    first, second = solve(state, budget), solve(state, budget)
    assert first.verdict == "won" and first.positions > 2048  # past the first restart
    assert first.line == second.line and first.positions == second.positions


def test_the_rollouts_take_most_of_the_budget_once_a_space_is_not_small(
        catalogue: Catalogue) -> None:
    """Where cards jump, the rollouts get twice the restarts' positions until the restarts
    have had their first RESTARTS_FIRST (a small space is proven lost as soon as before),
    then many times more (they win most hard deals); a sliding puzzle keeps twice."""
    jumping = rollout_share(catalogue.rules("spaces-and-aces"))
    assert rollout_share(catalogue.rules("rectangular-rovers")) == FIRST_ROLLOUT_SHARE
    assert jumping > 4 * FIRST_ROLLOUT_SHARE
    first, late = RESTARTS_FIRST, ROLLOUTS_LATE  # one deck's
    assert rollout_positions(jumping, 1_000, first, late) == FIRST_ROLLOUT_SHARE * 1_000
    assert (rollout_positions(jumping, RESTARTS_FIRST, first, late)
            == FIRST_ROLLOUT_SHARE * RESTARTS_FIRST)
    assert (rollout_positions(jumping, RESTARTS_FIRST + 1_000, first, late)
            - rollout_positions(jumping, RESTARTS_FIRST, first, late)) == jumping * 1_000


def test_once_the_rollouts_have_had_their_late_share_the_restarts_catch_up(
        catalogue: Catalogue) -> None:
    """With one deck where cards jump, once the rollouts are due ROLLOUTS_LATE positions
    each further position of the restarts gives them LATE_ROLLOUT_SHARE, not ROLLOUT_SHARE:
    a loss proof of a few hundred thousand positions then fits in a minute. Two decks keep
    the rollouts' share (their spaces are never exhausted), and so does a sliding puzzle."""
    montana, paganini_ii = catalogue.rules("montana"), catalogue.rules("paganini-ii")
    assert rollouts_late(montana) == ROLLOUTS_LATE
    assert rollouts_late(paganini_ii) is None
    assert rollouts_late(catalogue.rules("rectangular-rovers")) is None
    share, first, late = rollout_share(montana), RESTARTS_FIRST, ROLLOUTS_LATE
    knee = first + (late - FIRST_ROLLOUT_SHARE * first) // share  # the restarts' count then
    assert rollout_positions(share, knee, first, late) <= late
    assert rollout_positions(share, knee + 1, first, late) == late + LATE_ROLLOUT_SHARE
    beyond = knee + 100_000
    assert (rollout_positions(share, beyond + 1_000, first, late)
            - rollout_positions(share, beyond, first, late)) == LATE_ROLLOUT_SHARE * 1_000
    assert (rollout_positions(share, beyond + 1_000, first, None)
            - rollout_positions(share, beyond, first, None)) == share * 1_000
    # A late point reached within the restarts' first share: from there the late share.
    early_late = 8_000
    at_early_late = early_late // FIRST_ROLLOUT_SHARE  # the restarts' positions then
    assert (rollout_positions(share, at_early_late + 1_000, first, early_late)
            == early_late + LATE_ROLLOUT_SHARE * 1_000)


def test_the_search_gives_the_restarts_more_once_the_rollouts_are_late(
        catalogue: Catalogue, monkeypatch: pytest.MonkeyPatch) -> None:
    """The search follows rollout_positions past the late point: with ROLLOUTS_LATE made
    small, the rollouts of a single-round Gaps deal no search decides within the budget
    get the late share of the restarts' positions, not twice them."""
    late = 10_000
    monkeypatch.setattr("gapgrid.core.schedule.ROLLOUTS_LATE", late)
    monkeypatch.setattr("gapgrid.core.search.FIXED_HEADS_SHARE", 0)  # the others' schedule
    spent = count_spending(monkeypatch)
    result = solve(_start(catalogue, "montana", 6, {"redeals": "0"}),
                   Budget(seconds=None, positions=100_000))
    assert result.verdict == "unknown"
    restarts, knee = spent["restarts"], late // FIRST_ROLLOUT_SHARE
    due = late + LATE_ROLLOUT_SHARE * (restarts - knee)
    assert restarts > 2 * knee  # well past the restarts' knee
    assert spent["rollouts"] <= due + 2 * _CHECK_EVERY < FIRST_ROLLOUT_SHARE * restarts
    assert spent["rollouts"] > late + (restarts - knee) // 2  # and still fed past it


@pytest.mark.parametrize(("variant", "first"), [
    ("montana", RESTARTS_FIRST), ("line-up", RESTARTS_FIRST), ("paganini", RESTARTS_FIRST),
    ("paganini-ii", 0), ("double-montana", 0), ("double-red-moon", 0)])
def test_with_two_decks_the_rollouts_take_their_share_from_the_start(
        catalogue: Catalogue, variant: str, first: int) -> None:
    """A one-deck space may be small enough to prove lost within the budget, so its restarts
    first get a bigger share; a two-deck space never is, and its rollouts, which win its
    deals, get their full share from the first position."""
    rules = catalogue.rules(variant)
    assert restarts_first(rules) == first
    share = rollout_share(rules)
    assert rollout_positions(share, 1_000, first, rollouts_late(rules)) == (
        FIRST_ROLLOUT_SHARE if first else share) * 1_000


@pytest.mark.parametrize(("variant", "number", "options", "two_decks"), [
    ("paganini-ii", 21, {}, True), ("montana", 6, {"redeals": "0"}, False)])
def test_the_search_hands_the_rollouts_their_share_by_the_decks(
        catalogue: Catalogue, monkeypatch: pytest.MonkeyPatch, variant: str, number: int,
        options: dict[str, str], two_decks: bool) -> None:
    """After the first restart (about RESTART_UNIT positions), the rollouts' first turn is
    ROLLOUT_SHARE times its positions with two decks, FIRST_ROLLOUT_SHARE times with one."""
    turns: list[int] = []
    given = _Search.nested_rollouts

    def noted(search: _Search, until: int) -> list[Action] | None:
        turns.append(until - search.positions)
        return given(search, until)

    monkeypatch.setattr(_Search, "nested_rollouts", noted)
    solve(_start(catalogue, variant, number, options), Budget(seconds=None, positions=20_000))
    first_restart = (RESTART_UNIT, RESTART_UNIT + 2 * _CHECK_EVERY)  # checked every so often
    share = ROLLOUT_SHARE if two_decks else FIRST_ROLLOUT_SHARE
    assert turns and share * first_restart[0] <= turns[0] <= share * first_restart[1]


def test_a_ctrl_c_in_the_middle_of_a_move_reaches_the_caller_as_itself(
        catalogue: Catalogue, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C (KeyboardInterrupt) lands between any two steps, so it may leave the search's
    engine half way through a move, and taking the search's moves back then fails. The
    caller (``gapgrid solve`` and ``hint``, a study, a notebook) must get the interruption,
    not that failure: ``gapgrid solve`` said "internal error: ValueError: 40 is not in
    list" for one Ctrl-C in four. The 20,000th move of this search is one whose unwinding
    fails so (the 1st, 700th and 5,000th are not)."""
    moves = itertools.count(1)
    real_play = Engine.play

    def interrupted_half_way(engine: Engine, source: int, target: int) -> None:
        if next(moves) == 20_000:
            engine.cells[target] = engine.cells[source]  # the first of the move's writes
            raise KeyboardInterrupt
        real_play(engine, source, target)

    monkeypatch.setattr(Engine, "play", interrupted_half_way)
    state = new_game(catalogue.rules("montana", {"redeals": "0"}), DealNumber(6))  # undecided
    with pytest.raises(KeyboardInterrupt):
        solve(state, Budget(seconds=None, positions=100_000))


def test_a_failure_while_a_ctrl_c_unwinds_is_the_ctrl_c_and_other_failures_are_themselves(
        ) -> None:
    """What :func:`interruptions_surfacing` hands on: the interruption a failure was raised
    under; a failure of its own otherwise, also when the caller is itself handling an
    earlier Ctrl-C (that one is the caller's business, not the block's)."""
    interruption = KeyboardInterrupt()
    with pytest.raises(KeyboardInterrupt) as surfaced, interruptions_surfacing():
        try:
            raise interruption
        finally:
            [].index(1)  # taking back a half-made move fails
    assert surfaced.value is interruption

    with pytest.raises(ValueError), interruptions_surfacing():
        [].index(1)

    raised: BaseException | None = None
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt:
        try:  # caught whatever it is: a Ctrl-C escaping here would stop the test run
            with interruptions_surfacing():
                [].index(1)  # a bug, met while the caller cleans up after its own Ctrl-C
        except BaseException as error:  # looked at just below
            raised = error
    assert type(raised) is ValueError


def test_the_restarts_shuffle_alike_under_every_python() -> None:
    """A restart's order comes from the search's own shuffle, Python 3.11's draws, so a
    study or a puzzle's search makes the same choices whichever Python runs it."""
    numbers = list(range(10))
    shuffle(random.Random(7), numbers)
    assert numbers == [8, 3, 1, 4, 7, 0, 9, 6, 2, 5]
    letters = list("abcdefghijklmnopqrstuvwxyz")
    shuffle(random.Random(12345), letters)
    assert "".join(letters) == "opmdyqhwkcteurbvfzsigljaxn"


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="Python 3.11's shuffle is the model")
def test_the_restarts_shuffle_as_python_3_11_does() -> None:
    """Every length and many seeds: the same order and the same generator state after."""
    for seed, length in itertools.product(range(60), range(25)):
        ours, model = list(range(length)), list(range(length))
        drawing, reference = random.Random(seed), random.Random(seed)
        shuffle(drawing, ours)
        reference.shuffle(model)
        assert ours == model
        assert drawing.getstate() == reference.getstate()


@pytest.mark.parametrize(("slug", "options", "sorted_rows"), [
    ("montana", {"redeals": "0"}, True), ("line-up", None, True), ("paganini", None, False),
    ("montana", None, False), ("rectangular-rovers", None, False)])
def test_the_search_keys_a_position_as_its_reductions_do(catalogue: Catalogue, slug: str,
                                                         options: dict[str, str] | None,
                                                         sorted_rows: bool) -> None:
    """The search's own way to the key, for games without redeals, gives the reductions'
    key: rows sorted where they are interchangeable, open heads hidden; and positions
    that differ only in the order of their rows share it exactly when the rules allow
    (single-round Gaps and Line Up; not games with a redeal to come, nor a sliding
    puzzle, whose rows are not interchangeable)."""
    rules = catalogue.rules(slug, options)
    reductions = reductions_for(rules)
    search = _Search(Engine.from_state(new_game(rules, DealNumber(4))), Budget(seconds=None),
                     None, reductions)
    engine = search.engine
    starts = rules.layout.row_start_slots
    for open_rows in [(), starts[:2]]:
        search.open_rows = open_rows
        board = reductions.board_key(engine, open_rows)
        assert search.key()[:len(board)] == board
    search.open_rows = ()
    before = search.key()
    codes = bytes(engine.codes)  # the key made here, the plain way
    rows = [codes[start:start + rules.layout.rstep] for start in starts]
    assert before[:len(codes)] == (b"".join(sorted(rows)) if sorted_rows else codes)
    for first, second in zip(rules.layout.row_ranges[0], rules.layout.row_ranges[1],
                             strict=True):
        card = engine.cells[first]
        engine.cells[first] = engine.cells[second]
        engine.cells[second] = card
    engine._indexed = False  # the cells changed behind the engine's back
    assert (search.key() == before) is sorted_rows  # a redeal to come tells the rows apart


class _EveryBoardAlike(Reductions):
    """A caller's own reductions, whose key makes every position one."""

    def board_key(self, engine: Engine, open_rows: Sequence[int] = ()) -> bytes:
        return b"one position"


def test_the_search_keys_a_position_by_a_callers_own_reductions(catalogue: Catalogue) -> None:
    """Reductions whose board_key is their own are asked for the key, never bypassed."""
    rules = catalogue.rules("montana", {"redeals": "0"})
    search = _Search(Engine.from_state(new_game(rules, DealNumber(4))), Budget(seconds=None),
                     None, _EveryBoardAlike(rows_interchangeable=True))
    assert search.key() == b"one position"


def test_the_complete_search_runs_the_complete_restarts_alone(
        catalogue: Catalogue, monkeypatch: pytest.MonkeyPatch) -> None:
    """``search="complete"`` spends every position in the complete restarts, none in the
    other searches the whole search runs beside them on a single-round Gaps deal, and its
    answer says so in its version."""
    state = _start(catalogue, "montana", 3, {"redeals": "0"})
    spent = count_spending(monkeypatch)
    whole = solve(state, Budget(seconds=None, positions=60_000))
    assert whole.version == SOLVER_VERSION
    assert spent["fixed"] > 0 and spent["rollouts"] > 0  # what the complete search leaves out
    spent.update(dict.fromkeys(spent, 0))
    complete = solve(state, Budget(seconds=None, positions=60_000), search="complete")
    assert (complete.verdict, complete.stopped_by) == ("unknown", "positions")
    assert complete.version == f"{SOLVER_VERSION}-complete"
    assert spent == {"restarts": complete.positions, "fixed": 0, "rollouts": 0,
                     "discrepancies": 0}


def test_the_complete_search_agrees_with_the_whole_one_and_proves_a_loss_sooner() -> None:
    """On 60 small deals the complete restarts alone give the whole search's verdict, with a
    line that replays; on a lost deal of 4 rows of 7 (game 10) their proof takes fewer
    positions than the whole search's, which shares them out (the reason to run it alone)."""
    rules = small_rules(small_layout(5))
    for number in range(1, 61):
        state = new_game(rules, DealNumber(number))
        whole = solve(state, Budget(seconds=None))
        complete = solve(state, Budget(seconds=None), search="complete")
        assert complete.verdict == whole.verdict != "unknown", number
        if complete.verdict == "won":
            replayed = replay_from(state, complete.line)
            assert replayed.ok and replayed.won, number
    state = new_game(small_rules(small_layout(7)), DealNumber(10))
    whole = solve(state, Budget(seconds=None))
    complete = solve(state, Budget(seconds=None), search="complete")
    assert whole.verdict == complete.verdict == "lost"
    assert complete.positions < whole.positions


def test_an_unknown_search_is_refused(catalogue: Catalogue) -> None:
    """A search the solver does not have is a ValueError naming the ones it has."""
    with pytest.raises(ValueError, match="whole, complete"):
        solve(_start(catalogue, "line-up", 1), search="partial")  # type: ignore[arg-type]
