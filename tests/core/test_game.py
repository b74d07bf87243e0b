"""Game states: moves, redeals, undo, stuck and won, and the reasons for refusals."""

from __future__ import annotations

import csv
import tracemalloc
from collections.abc import Iterable
from pathlib import Path

import attrs
import pytest

from gapgrid.core.baseline import AllRowsFinished
from gapgrid.core.cards import KING, make_card, suit_of
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.fills import MontanaFill
from gapgrid.core.game import Engine, GameState, IllegalActionError, new_game
from gapgrid.core.notation import REDEAL, UNDO, Move, parse_action, parse_actions
from gapgrid.core.rules import Rules
from gapgrid.core.runs import CardIndex, Cells
from tests.boards import board_from_text
from tests.golden import golden_games

MONTANA_27769_OPENING = ["27-40", "redeal", "15-0", "0-39"]  # from the golden games


def _state(catalogue: Catalogue, variant: str = "montana", number: str = "27769") -> GameState:
    return new_game(catalogue.rules(variant), parse_deal_number(number))


def test_apply_returns_a_new_state_and_leaves_the_old_one(catalogue: Catalogue) -> None:
    """States are values: a move makes a new state, the old one is unchanged."""
    start = _state(catalogue)
    after = start.apply(parse_action("27-40"))
    assert start.board.card_at(27) is not None and start.board.card_at(40) is None
    assert after.board.card_at(27) is None and after.board.card_at(40) == start.board.card_at(27)


def test_states_reached_two_ways_are_equal_and_hash_alike(catalogue: Catalogue) -> None:
    """A move and its undo give back a state equal to (and hashing like) the start."""
    start = _state(catalogue)
    back = start.apply(parse_action("27-40")).apply(UNDO)
    assert back == start
    assert hash(back) == hash(start)
    assert {start, back} == {start}


def test_undo_of_a_redeal_restores_board_and_generator(catalogue: Catalogue) -> None:
    """Undoing a redeal restores the layout, and the same redeal then comes out again."""
    state = _state(catalogue).apply(parse_action("27-40"))
    redealt = state.apply(REDEAL)
    undone = redealt.apply(UNDO)
    assert undone == state
    assert undone.redeals_used == 0
    assert undone.apply(REDEAL).board == redealt.board


def test_actions_lists_what_is_in_effect(catalogue: Catalogue) -> None:
    """Undone moves drop out of the history; redeals are listed where they happened."""
    state = _state(catalogue)
    for text in [*MONTANA_27769_OPENING, "undo"]:
        state = state.apply(parse_action(text))
    assert [str(action) for action in state.actions()] == ["27-40", "redeal", "15-0"]


@pytest.mark.parametrize(("move", "kind", "reason"), [
    ("9-18", "to-card", "slot 18 is not a gap: it holds QD"),
    ("24-0", "from-gap", "slot 24 is a gap: there is no card to move"),
    ("0-24", "misfit", "5C does not fit after 7S: only 8S does"),
    ("0-25", "misfit", "5C cannot go to slot 25: the slot on its left is a gap"),
    ("70-24", "off-board", "slot 70 is off the board (slots 0-51)"),
    ("0-52", "off-board", "slot 52 is off the board (slots 0-51)"),
])
def test_refusals_say_why(catalogue: Catalogue, move: str, kind: str, reason: str) -> None:
    """Each kind of illegal move gets its own reason, naming slots and cards."""
    refusal = _state(catalogue).check(parse_action(move))
    assert refusal is not None
    assert (refusal.kind, refusal.reason) == (kind, reason)


def test_apply_raises_on_an_illegal_move(catalogue: Catalogue) -> None:
    """apply() raises IllegalActionError carrying the refusal."""
    with pytest.raises(IllegalActionError, match="slot 18 is not a gap") as caught:
        _state(catalogue).apply(parse_action("9-18"))
    assert caught.value.refusal.kind == "to-card"


def test_redeals_run_out(catalogue: Catalogue) -> None:
    """Montana has two redeals; the third is refused."""
    state = _state(catalogue).apply(REDEAL).apply(REDEAL)
    assert state.redeals_left == 0
    with pytest.raises(IllegalActionError, match="no redeal left: all 2 redeals were used"):
        state.apply(REDEAL)


def test_variant_without_redeal_refuses_one(catalogue: Catalogue) -> None:
    """Line Up has no redeal at all, and says so."""
    refusal = _state(catalogue, "line-up", "5").check(REDEAL)
    assert refusal is not None and refusal.kind == "variant-has-no-redeal"
    assert refusal.reason == "Line Up has no redeal"


def test_nothing_to_undo_at_the_start(catalogue: Catalogue) -> None:
    """Undo at the start of a game is refused, not a crash."""
    refusal = _state(catalogue).check(UNDO)
    assert refusal is not None and refusal.kind == "nothing-to-undo"


def test_legal_moves_and_stuck(catalogue: Catalogue) -> None:
    """Legal moves are listed gap by gap; a position with none is stuck."""
    state = _state(catalogue)
    moves = state.legal_moves()
    assert Move(27, 40) in moves
    assert all(state.check(move) is None for move in moves)
    assert not state.is_stuck


STUCK_MONTANA = """
2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC ..
2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS ..
2H 3H 4H 5H 6H 7H 8H 9H TH QH JH KH ..
2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD ..
"""


def _position(rules: Rules, text: str) -> GameState:
    deal = parse_deal_number("1")
    return GameState(rules=rules, deal=deal, board=board_from_text(rules.layout, text),
                     redeals_used=0, rng_state=deal.new_random().getstate())


def test_stuck_only_redeal_waits_for_no_move(catalogue: Catalogue) -> None:
    """With redeal-when=stuck a redeal is refused, naming a possible move, until none is left."""
    rules = catalogue.rules("montana", {"redeal-when": "stuck"})
    refusal = new_game(rules, parse_deal_number("27769")).check(REDEAL)
    assert refusal is not None and refusal.kind == "not-stuck"
    assert "is possible" in refusal.reason
    stuck = _position(rules, STUCK_MONTANA)
    assert stuck.is_stuck and not stuck.is_won
    redealt = stuck.apply(REDEAL)
    assert redealt.redeals_used == 1


def test_no_move_after_the_game_is_won(catalogue: Catalogue) -> None:
    """Once won, the game is over: a further slide is refused (Rectangular Rovers could slide)."""
    rules = catalogue.rules("rectangular-rovers")
    board = board_from_text(rules.layout, """
AC 2C 3C 4C 5C ..
AS 2S 3S 4S 5S ..
AH 2H 3H 4H 5H ..
AD 2D 3D 4D .. 5D
""")
    deal = parse_deal_number("1")
    engine = Engine(rules, deal, list(board.cells), 0, deal.new_random().getstate())
    assert not engine.won
    assert engine.move(23, 22) is None
    assert engine.won
    refusal = engine.move(4, 5)
    assert refusal is not None and refusal.kind == "won"
    assert engine.snapshot().is_won
    assert engine.undo() is None and not engine.won


def test_won_state_has_no_moves_and_no_redeal(catalogue: Catalogue) -> None:
    """A won position offers no moves and refuses a redeal."""
    won = STUCK_MONTANA.replace("QH JH KH", "JH QH KH")
    state = _position(catalogue.rules("montana"), won)
    assert state.is_won
    assert state.legal_moves() == []
    refusal = state.check(REDEAL)
    assert refusal is not None and refusal.kind == "won"


def test_a_long_run_of_redeals_holds_little_memory(catalogue: Catalogue) -> None:
    """Each redeal's undo record is small (issue 15: 5000 redeals held 120 MiB, 25 KiB each).

    Double Blue Moon with unlimited redeals on a Mersenne Twister number is
    the worst case: the largest board, and the generator with the largest
    state. A thousand redeals must hold under 2 MiB (today about 1.1 MiB).
    """
    rules = catalogue.rules("double-blue-moon", {"redeals": "unlimited"})
    deal = parse_deal_number("99999999999999999999")
    tracemalloc.start()
    try:
        engine = Engine.start(rules, deal)
        for _ in range(1000):
            assert engine.redeal() is None
        state = engine.snapshot()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held < 2 * 2**20, f"{held / 2**20:.1f} MiB"
    assert state.redeals_used == 1000


@pytest.mark.parametrize("number", ["617", "40000"])
def test_undoing_many_redeals_restores_each_generator_state(catalogue: Catalogue,
                                                            number: str) -> None:
    """Taking back redeals one by one passes through the very states (generator included)
    that the redeals left, and the same redeals then come out again."""
    rules = catalogue.rules("double-montana", {"redeals": "unlimited"})
    engine = Engine.start(rules, parse_deal_number(number))
    states = [engine.snapshot()]
    for _ in range(12):
        assert engine.redeal() is None
        states.append(engine.snapshot())
    for expected in reversed(states[:-1]):
        assert engine.undo() is None
        assert engine.snapshot() == expected
        assert engine.key() == bytes(Engine.from_state(expected).codes)
    for expected in states[1:]:
        assert engine.redeal() is None
        assert engine.snapshot() == expected


def test_questions_between_moves_see_the_board_the_moves_made(catalogue: Catalogue) -> None:
    """The engine builds its index (codes, card slots, gaps) only when a question needs it
    and then keeps it up to date: asked at any point of a golden game, with moves,
    redeals and undos in between, it answers as an engine built afresh there."""
    for record in golden_games():
        if "redeal" not in record["moves"]:
            continue
        rules = catalogue.rules(record["variant"])
        engine = Engine.start(rules, parse_deal_number(record["deal"]))
        for index, action in enumerate(parse_actions(record["moves"])):
            assert engine.apply(action) is None
            if index % 3 == 0:  # questions now and then: the index is out of date in between
                fresh = Engine.from_state(engine.snapshot())
                assert engine.key() == fresh.key()
                assert engine.legal_pairs() == fresh.legal_pairs()
                assert sorted(engine.gaps) == sorted(fresh.gaps)
        assert engine.undo() is None
        assert engine.snapshot() == Engine.from_state(engine.snapshot()).snapshot()


@pytest.mark.parametrize("variant", ["montana", "spaces-and-aces", "rectangular-rovers"])
def test_allows_agrees_with_move_on_every_pair_of_slots(catalogue: Catalogue,
                                                        variant: str) -> None:
    """The cheap check says yes exactly where a move is accepted, off-board slots included."""
    engine = Engine.from_state(_state(catalogue, variant, "5"))
    slots = range(-1, len(engine.cells) + 1)
    for source in slots:
        for target in slots:
            allowed = engine.allows(source, target)
            accepted = engine.move(source, target) is None
            if accepted:
                engine.undo()
            assert allowed == accepted, (source, target)


def test_allows_agrees_with_move_once_rectangular_rovers_is_won(catalogue: Catalogue) -> None:
    """Rectangular Rovers' slides would go on after the win; the engine refuses them, and
    the cheap check too (the committed study's line for game 3 wins it)."""
    study = Path(__file__).resolve().parents[2] / "data" / "study" / "solver-3"
    with (study / "rectangular-rovers.csv").open(newline="", encoding="utf-8") as rows:
        row = next(row for row in csv.DictReader(rows) if row["game_number"] == "3")
    engine = Engine.from_state(_state(catalogue, "rectangular-rovers", "3"))
    for action in parse_actions(row["line"].split()):
        assert engine.apply(action) is None
    assert engine.won
    slots = range(len(engine.cells))
    assert not any(engine.allows(source, target) or engine.move(source, target) is None
                   for source in slots for target in slots)


class _NoMovesFill(MontanaFill):
    """A plugin's fill that finds its moves its own way (here: none at all)."""

    def pairs(self, cells: Cells, targets: Iterable[int], where: CardIndex
              ) -> list[tuple[int, int]]:
        return []


class _OnlyKingsFollowFill(MontanaFill):
    """A plugin's fill that changes only which cards follow which (a King follows anything)."""

    def followers(self, card: int) -> Iterable[int]:
        return [make_card(KING, suit_of(card))]


class _NeverWon(AllRowsFinished):
    """A plugin's won rule built on the baseline's: no position is ever won."""

    def is_won(self, cells: Cells) -> bool:
        return False


def test_the_engine_asks_a_plugins_own_fill_and_won_rule(catalogue: Catalogue) -> None:
    """The engine finds gapgrid's own rules' moves and wins without calling through them,
    but a plugin's subclass that finds moves or decides a win its own way is asked."""
    montana = catalogue.rules("montana", {"redeals": "0"})
    layout = montana.layout
    finished = STUCK_MONTANA.replace("QH JH", "JH QH")
    assert Engine.from_state(_position(montana, finished)).won
    never = attrs.evolve(montana, won=_NeverWon(layout))
    assert not Engine.from_state(_position(never, finished)).won

    deal = parse_deal_number("5")
    assert Engine.from_state(new_game(montana, deal)).legal_pairs()
    own_way = attrs.evolve(montana, fill=_NoMovesFill(layout))
    assert Engine.from_state(new_game(own_way, deal)).legal_pairs() == []

    kings = _OnlyKingsFollowFill(layout)
    engine = Engine.from_state(new_game(attrs.evolve(montana, fill=kings), deal))
    cells = engine.cells
    gaps = sorted(slot for slot, card in enumerate(cells) if card is None)
    expected = [(source, target) for target in gaps for source, card in enumerate(cells)
                if card is not None and kings.accepts(cells, source, target)]
    assert engine.legal_pairs() == expected
    assert any(cells[source] is not None and cells[source] % 13 == KING
               and layout.left_of(target) is not None for source, target in expected)
