"""Nested rollouts: wins that replay, the same line every time, the engine left as it was."""

from __future__ import annotations

import itertools
import random
from collections.abc import Generator

import pytest

from gapgrid.core.cards import parse_card
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber, parse_deal_number
from gapgrid.core.evaluation import evaluation_for
from gapgrid.core.game import Engine, GameState, new_game
from gapgrid.core.notation import REDEAL, Action, Move
from gapgrid.core.replay import replay_from
from gapgrid.core.rollouts import (
    KEEP_GAPS_ALIVE,
    PAIR_UP,
    NestedRollouts,
    decides_by_left_card,
    lets_in_unpaired_cards,
    line_stride,
)
from gapgrid.core.rollouts import Action as Step

STEP_CAP = 50_000
"""More playout actions than any deal below needs (a few hundred to a few thousand)."""


def _rollouts(state: GameState) -> tuple[Engine, Generator[int, None, list[Step] | None]]:
    engine = Engine.from_state(state)
    evaluate, _ = evaluation_for(state.rules)
    return engine, NestedRollouts(engine, evaluate).steps()


def _line(state: GameState) -> list[Action] | None:
    """The rollouts' winning line from ``state``, as actions (None when they end without one)."""
    _, steps = _rollouts(state)
    played = 0
    try:
        while played < STEP_CAP:
            played += next(steps)
    except StopIteration as finished:
        found = finished.value
        return None if found is None else [REDEAL if step is None else Move(*step)
                                           for step in found]
    raise AssertionError(f"no win within {STEP_CAP} playout actions")


def test_a_line_the_rollouts_find_replays_to_a_win(catalogue: Catalogue) -> None:
    """Line Up game 3: the rollouts' line is won when the engine replays it."""
    state = new_game(catalogue.rules("line-up"), DealNumber(3))
    line = _line(state)
    assert line
    replayed = replay_from(state, line)
    assert replayed.ok and replayed.won


def test_the_rollouts_redeal_when_stuck_and_the_line_replays(catalogue: Catalogue) -> None:
    """Montana game 5 is won with both redeals: the redeals are actions of the line."""
    state = new_game(catalogue.rules("montana"), DealNumber(5))
    line = _line(state)
    assert line and line.count(REDEAL) == 2
    replayed = replay_from(state, line)
    assert replayed.ok and replayed.won


def test_the_same_position_gives_the_same_line(catalogue: Catalogue) -> None:
    """Every random choice comes from a seeded generator: two runs find one line."""
    state = new_game(catalogue.rules("line-up"), DealNumber(1))
    assert _line(state) == _line(state)


class _Watched(NestedRollouts):
    """Rollouts that note how far along its line a level-1 search is at each round of trials."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine, evaluation_for(engine.rules)[0])
        self.along = 0
        self.rounds: list[int] = []

    def _actions(self) -> list[Step]:
        self.rounds.append(self.along)
        return super()._actions()

    def _do(self, action: Step) -> None:
        self.along += 1
        super()._do(action)

    def _undo(self, action: Step) -> None:
        self.along -= 1
        super()._undo(action)


@pytest.mark.parametrize(("variant", "options", "stride"), [
    ("montana", {"redeals": "0"}, 4), ("paganini-ii", {}, 8), ("line-up", {}, 1)])
def test_a_level_one_search_tries_every_action_again_every_few_actions_of_its_line(
        catalogue: Catalogue, variant: str, options: dict[str, str], stride: int) -> None:
    """One round of trials for each 13 slots' worth of actions of the best game: Gaps
    (52 slots) plays 4 of them between two rounds, Paganini II (112) 8, Line Up (24) 1."""
    rules = catalogue.rules(variant, options)
    assert line_stride(rules.layout) == stride
    rollouts = _Watched(Engine.from_state(new_game(rules, DealNumber(2))))
    steps = rollouts.steps()
    for _ in range(3000):
        try:
            next(steps)
        except StopIteration:
            break
    steps.close()
    advances = [after - before for before, after in itertools.pairwise(rollouts.rounds)]
    # a search's rounds go forward, then it takes its line back and the next one starts
    searches = [list(group) for forward, group in itertools.groupby(advances, (0).__lt__)
                if forward]
    assert sum(map(len, searches)) > 10
    for search in searches:  # the last round of a search may come sooner: its game ended
        assert search[:-1] == [stride] * (len(search) - 1) and search[-1] <= stride


def test_the_engine_is_back_at_the_start_when_the_caller_stops(catalogue: Catalogue) -> None:
    """Stopping the rollouts midway (the solver's budget ran out) takes every action back."""
    state = new_game(catalogue.rules("montana", {"redeals": "0"}), DealNumber(3))
    engine, steps = _rollouts(state)
    before = bytes(engine.codes)
    for _ in range(500):  # some way into a level-1 search: moves played at its top
        next(steps)
    steps.close()
    assert bytes(engine.codes) == before


def test_redeals_are_taken_back_too_when_the_caller_stops(catalogue: Catalogue) -> None:
    """Montana Classic game 12: stopped with redeals in the line at play, the board, the
    redeals used and the generator are all back as they were."""
    state = new_game(catalogue.rules("montana-classic"), DealNumber(12))
    engine, steps = _rollouts(state)
    before = (bytes(engine.codes), engine.redeals_used, engine.rng_state)
    for _ in range(300):
        next(steps)
        if engine.redeals_used > 0:
            break
    assert engine.redeals_used > 0  # paused with a redeal at play in the level-1 line
    steps.close()
    assert (bytes(engine.codes), engine.redeals_used, engine.rng_state) == before


def test_a_stuck_start_ends_the_rollouts_at_once(catalogue: Catalogue) -> None:
    """With no action at all from the start there is nothing to play out: None, not a loop."""
    state = new_game(catalogue.rules("line-up"), DealNumber(4))
    for _ in range(200):  # Line Up game 4 is lost: playing the first move gets stuck
        moves = state.legal_moves()
        if not moves:
            break
        state = state.apply(moves[0])
    assert not state.legal_moves() and not state.is_won
    assert _line(state) is None


def test_games_that_never_end_by_themselves_stop_at_the_cap(catalogue: Catalogue) -> None:
    """Rectangular Rovers never gets stuck (a card can always slide back): with a cap of 5
    actions every playout and every level-1 search stops at it, and the next one starts."""
    state = new_game(catalogue.rules("rectangular-rovers"), DealNumber(1))
    engine = Engine.from_state(state)
    evaluate, _ = evaluation_for(state.rules)
    steps = NestedRollouts(engine, evaluate, max_steps=5).steps()
    before = bytes(engine.codes)
    played = sum(next(steps) for _ in range(400))  # many level-1 searches of at most 5 moves
    assert 400 <= played <= 400 * 6
    steps.close()
    assert bytes(engine.codes) == before


@pytest.mark.parametrize("variant", ["montana", "paganini-ii", "spaces-and-aces", "blue-moon"])
def test_the_run_ends_a_playout_steers_by_follow_the_board(catalogue: Catalogue,
                                                           variant: str) -> None:
    """A playout keeps each row's run end up to date from the move alone (not the whole
    board): along random games, with cards taken out of runs (two decks: a run's card
    may follow the other copy of its predecessor) and runs lengthened, it stays what
    the board gives."""
    chooser = random.Random(7)
    for number in ("1", "2", "3"):
        engine = Engine.from_state(new_game(catalogue.rules(variant), parse_deal_number(number)))
        rollouts = NestedRollouts(engine, evaluation_for(engine.rules)[0])
        ends = engine.run_shape.run_ends(engine.cells)
        for _ in range(300):
            pairs = [] if engine.won else engine.legal_pairs()
            if not pairs:
                break
            source, target = chooser.choice(pairs)
            engine.play(source, target)
            rollouts._update_ends(ends, source, target)
            assert ends == engine.run_shape.run_ends(engine.cells)


@pytest.mark.parametrize(("variant", "next_card_only"), [
    ("montana", True), ("paganini", True), ("paganini-ii", True), ("blue-moon", True),
    ("spaces-and-aces", False), ("jungle", False)])
def test_where_only_the_next_card_fits_every_move_after_a_run_lengthens_it(
        catalogue: Catalogue, variant: str, next_card_only: bool) -> None:
    """The playouts skip asking whether a move into the slot right after a run lengthens it
    where the fill lets only the run's next card in (Montana's): along random games every
    such move does; where other cards fit too (Spaces and Aces, Jungle) some do not."""
    chooser = random.Random(11)
    blocking = 0
    for number in ("1", "2", "3"):
        engine = Engine.from_state(new_game(catalogue.rules(variant), parse_deal_number(number)))
        rollouts = NestedRollouts(engine, evaluation_for(engine.rules)[0])
        assert rollouts._next_card_only is next_card_only
        for _ in range(300):
            pairs = [] if engine.won else engine.legal_pairs()
            if not pairs:
                break
            ends = engine.run_shape.run_ends(engine.cells)
            after_runs = [pair for pair in pairs if pair[1] == ends[rollouts._rows[pair[1]]]]
            blocking += sum(not rollouts._lengthens(pair) for pair in after_runs)
            engine.play(*chooser.choice(pairs))
    assert (blocking == 0) is next_card_only


@pytest.mark.parametrize(("variant", "by_left_card", "unpaired"), [
    ("montana", True, False), ("paganini", True, False), ("paganini-ii", True, False),
    ("blue-moon", True, False), ("spaces-and-aces", True, True), ("jungle", True, True),
    ("galary", False, False), ("free-parking", False, False),
    ("rectangular-rovers", False, False)])
def test_the_playout_rules_hold_where_the_left_card_decides(
        catalogue: Catalogue, variant: str, by_left_card: bool, unpaired: bool) -> None:
    """Both rules need a fill that decides by the left card alone (Galary's also looks right,
    Rovers' slides any neighbour in); pairing matters only where other cards may enter."""
    rules = catalogue.rules(variant)
    assert decides_by_left_card(rules) is by_left_card
    assert lets_in_unpaired_cards(rules) is unpaired
    engine = Engine.from_state(new_game(rules, DealNumber(1)))
    rollouts = NestedRollouts(engine, evaluation_for(rules)[0])
    assert (rollouts._gaps_matter, rollouts._pairs_matter) == (by_left_card, unpaired)


def test_a_move_pairs_up_beside_its_finished_row_neighbours(catalogue: Catalogue) -> None:
    """Spaces and Aces: between the 3 and the 5 of spades a gap takes the 4 (a pair either
    side) or a higher spade such as the 9 (none); after the 2 the 4 still pairs up with the
    5 on its right, and with nothing either side it does not; column 0 always counts; in
    the last column the next row's first card is no neighbour."""
    rules = catalogue.rules("spaces-and-aces")
    engine = Engine.from_state(new_game(rules, DealNumber(1)))
    rollouts = NestedRollouts(engine, evaluation_for(rules)[0])
    four, nine = parse_card("4S"), parse_card("9S")
    cells = engine.cells
    four_at, nine_at = 20, 21  # row 1: where the moving cards come from
    cells[1:4] = [parse_card("3S"), None, parse_card("5S")]  # row 0: ?, 3S, gap, 5S
    cells[four_at], cells[nine_at] = four, nine
    assert rollouts._pairing([(four_at, 2), (nine_at, 2)]) == [(four_at, 2)]
    cells[1] = parse_card("2S")  # the 4 does not follow the 2
    assert rollouts._pairing([(four_at, 2), (nine_at, 2)]) == [(four_at, 2)]
    cells[3] = parse_card("QH")
    assert rollouts._pairing([(four_at, 2), (four_at, 0)]) == [(four_at, 0)]
    last = rules.layout.rstep - 1  # row 0's last column; slot ``last + 1`` starts row 1
    cells[last - 1], cells[last], cells[last + 1] = parse_card("2S"), None, parse_card("5S")
    assert rollouts._pairing([(four_at, last)]) == []


def _choices(engine: Engine, pairs: list[tuple[int, int]], **matters: bool) -> float:
    """How often a playout's choice among ``pairs`` (no run to lengthen) is ``pairs[0]``."""
    rollouts = NestedRollouts(engine, evaluation_for(engine.rules)[0], seed=5)
    for name, value in matters.items():
        setattr(rollouts, name, value)
    ends = list(engine.rules.layout.row_starts())  # as if no row had a run
    return sum(rollouts._choose(list(pairs), ends) == pairs[0] for _ in range(4000)) / 4000


def test_the_playouts_mostly_keep_gaps_alive_and_pair_cards_up(catalogue: Catalogue) -> None:
    """Of two moves, one that leaves a live gap (or pairs up) is drawn 0.7 + 0.3 / 2 of the
    time, against one that leaves a dead gap (or pairs with nothing): 85 %, not 50 %."""
    engine = Engine.from_state(new_game(catalogue.rules("montana"), DealNumber(1)))
    cells = engine.cells
    cells[0:4] = [parse_card("9S"), parse_card("5H"), parse_card("KS"), parse_card("7D")]
    live, dead = (1, 40), (3, 40)  # the 5 leaves a gap right of the 9, the 7 right of a King
    expected = KEEP_GAPS_ALIVE + (1 - KEEP_GAPS_ALIVE) / 2
    assert abs(_choices(engine, [live, dead]) - expected) < 0.03
    assert abs(_choices(engine, [live, dead], _gaps_matter=False) - 0.5) < 0.03
    engine = Engine.from_state(new_game(catalogue.rules("spaces-and-aces"), DealNumber(1)))
    cells = engine.cells
    cells[1:4] = [parse_card("3S"), None, parse_card("QH")]
    cells[19:22] = [parse_card("2D"), parse_card("4S"), parse_card("9S")]  # live gaps both
    expected = PAIR_UP + (1 - PAIR_UP) / 2
    assert abs(_choices(engine, [(20, 2), (21, 2)]) - expected) < 0.03
    assert abs(_choices(engine, [(20, 2), (21, 2)], _pairs_matter=False) - 0.5) < 0.03


def test_under_montanas_fill_the_pair_preference_draws_nothing(catalogue: Catalogue) -> None:
    """Where every move pairs up, asking would change nothing but the cost: the playouts
    draw exactly as without the preference (the same random numbers, the same games)."""
    for variant, number in (("montana", "7"), ("paganini-ii", "3")):
        state = new_game(catalogue.rules(variant), parse_deal_number(number))
        games = []
        for matter in (False, True):
            engine = Engine.from_state(state)
            rollouts = NestedRollouts(engine, evaluation_for(state.rules)[0], seed=3)
            rollouts._pairs_matter = matter
            games.append([rollouts._playout() for _ in range(5)])
        assert games[0] == games[1]


def test_a_move_that_leaves_a_dead_gap_is_told_apart(catalogue: Catalogue) -> None:
    """Montana: a card that leaves the slot right of a King, or of a gap, leaves a gap
    nothing can fill; right of any other card, or in column 0, the gap may be filled."""
    rules = catalogue.rules("montana")
    engine = Engine.from_state(new_game(rules, DealNumber(1)))
    rollouts = NestedRollouts(engine, evaluation_for(rules)[0])
    cells = engine.cells
    cells[0:4] = [parse_card("KS"), parse_card("5H"), parse_card("7D"), None]
    # the 5 leaves the slot right of a King; the 7 a gap right of the 5; column 0 takes a 2
    assert rollouts._leaving_live_gaps([(1, 40), (2, 40), (0, 40)]) == [(2, 40), (0, 40)]
    cells[1] = None
    # right of a gap, dead; but the 7 moving left leaves its gap right of itself
    assert rollouts._leaving_live_gaps([(2, 40), (2, 1)]) == [(2, 1)]
    cells[2] = parse_card("KD")
    assert rollouts._leaving_live_gaps([(2, 1)]) == []  # a King moving left leaves it dead
