"""PySolFC's Hint in gapgrid's games shows the solver's next action (issue 11, item 7).

The plugin file is installed into a temporary plugins folder and loaded as
PySolFC loads it; each game is played headless through PySolFC's own code
(tests/pysolfc_harness.py), and the Hint is asked as the Hint command and the
Demo ask it (``Game.showHint``).

They need a PySolFC source tree: set ``PYSOLFC_DIR`` to it, otherwise they are skipped.
"""

from __future__ import annotations

import pytest

from gapgrid import plugins
from gapgrid.api.pysolfc.games import gapgrid_game_id
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import GameState, new_game
from gapgrid.core.notation import REDEAL, Move, parse_action
from gapgrid.core.search import Budget, solve
from tests.pysolfc_harness import HeadlessGame, pysolfc_dir

PYSOLFC = pysolfc_dir()
if PYSOLFC is None:
    pytest.skip("set PYSOLFC_DIR to a PySolFC source tree to run these tests",
                allow_module_level=True)

CATALOGUE = plugins.load_catalogue(disabled=())

#: Deals the solver wins in a fraction of a second (an LCRandom31 and a Mersenne Twister
#: number), each in a game that redeals only when stuck and one that redeals any time.
SMALL_WINS = [("gaps", "617"), ("gaps", "40000"), ("blue-moon-classic", "3"),
              ("diagonal-gaps", "1")]


def _certified(slug: str, number: str) -> tuple[GameState, list[str]]:
    """The start of the deal, and the solver's winning line from it (the test's premise)."""
    state = new_game(CATALOGUE.rules(slug), parse_deal_number(number))
    result = solve(state, Budget(seconds=30))
    assert result.verdict == "won", f"{slug} {number} should be a deal the solver wins"
    return state, [str(action) for action in result.line]


def _play(game: HeadlessGame, action: str) -> None:
    if action == "redeal":
        assert game.try_redeal()
        return
    move = parse_action(action)
    assert isinstance(move, Move)
    assert game.try_move(move.source, move.target)


@pytest.mark.parametrize(("slug", "number"), SMALL_WINS)
def test_the_hint_is_the_solvers_first_action(game_db: object, slug: str, number: str) -> None:
    """At the deal, the Hint command and the Demo show the first action of the line the
    solver finds, not PySolFC's Montana hint."""
    _, line = _certified(slug, number)
    with HeadlessGame(gapgrid_game_id(slug), number) as game:
        assert game.hint() == line[0]
        assert game.hint(level=2) == line[0]


@pytest.mark.parametrize("level", [0, 2])
@pytest.mark.parametrize(("slug", "number"), SMALL_WINS)
def test_following_the_hints_wins(game_db: object, slug: str, number: str, level: int) -> None:
    """Playing what the Hint shows (or the Demo's hint), one action at a time, wins the deal
    along the solver's line, redeals included (each hint after the first is read off the
    line found, which needs PySolFC's generator to be where gapgrid's is); at every step
    PySolFC's table is the position gapgrid reaches."""
    state, line = _certified(slug, number)
    followed = []
    with HeadlessGame(gapgrid_game_id(slug), number) as game:
        while not game.is_won():
            assert len(followed) <= 2 * len(line), "the hints should lead to the win"
            hinted = game.hint(level)
            assert hinted is not None, f"no hint after {followed}"
            _play(game, hinted)
            state = state.apply(REDEAL if hinted == "redeal" else parse_action(hinted))
            assert game.rows() == state.board.to_rows()
            followed.append(hinted)
        assert game.hint(level) is None  # a won game has nothing left to hint
    assert state.is_won
    assert followed == line


def test_a_redeal_hint_points_at_the_redeal_pile(game_db: object) -> None:
    """When the solver's next action is a redeal, the Hint command points at the talon
    (PySolFC's own Montana hint can only suggest card moves)."""
    slug, number = "gaps", "617"
    _, line = _certified(slug, number)
    first_redeal = line.index("redeal")
    with HeadlessGame(gapgrid_game_id(slug), number) as game:
        for action in line[:first_redeal]:
            _play(game, action)
        assert game.hint() == "redeal"
        found = game.game.showHint(0, sleep=0)
        assert found[2] == 0 and found[3] is game.game.s.talon


def test_without_a_known_win_the_hint_is_pysolfcs_own(game_db: object) -> None:
    """When the solver finds no win in its time, the Hint falls back to PySolFC's Montana
    hint: the same moves, in the same order."""
    from pysollib.games.montana import Montana_Hint

    slug, number = "montana-classic", "617"  # no win found in seconds
    with HeadlessGame(gapgrid_game_id(slug), number) as game:
        game.game.gapgrid_hint_seconds = 0.01
        assert game.game.gapgrid_next_action() is None
        montana = [(hint[3].id, hint[4].id) for hint in Montana_Hint(game.game, 0).getHints()]
        shown = [(hint[3].id, hint[4].id) for hint in game.game.getHints(0)]
        assert montana and shown == montana
        assert game.hint() == f"{montana[0][0]}-{montana[0][1]}"


def test_moves_alone_start_no_search(game_db: object) -> None:
    """PySolFC's stuck check after every move uses the plain Montana hint: the solver runs
    only when the player asks for a hint."""
    slug, number = "gaps", "617"
    _, line = _certified(slug, number)
    with HeadlessGame(gapgrid_game_id(slug), number) as game:
        for action in line[:20]:
            _play(game, action)
        assert "gapgrid_answers" not in vars(game.game)
        assert game.hint() == line[20]
        assert "gapgrid_answers" in vars(game.game)


def _ace_in_slot_0(game: HeadlessGame) -> None:
    """Damage the table as a doctored saved game can: an Ace set aside swapped into slot 0."""
    aside = next(stack for stack in game.game.s.internals if stack.cards)
    row = game.game.s.rows[0]
    ace, card = aside.cards.pop(), row.cards.pop()
    row.cards.append(ace)
    aside.cards.append(card)


def _two_cards_in_slot_0(game: HeadlessGame) -> None:
    """Damage the table: a card put on slot 0's."""
    rows = game.game.s.rows
    rows[0].cards.append(next(row for row in rows[1:] if row.cards).cards.pop())


def _every_card_on_the_talon(game: HeadlessGame) -> None:
    """Damage the table: every slot's card moved to the redeal pile."""
    for row in game.game.s.rows:
        game.game.s.talon.cards.extend(row.cards)
        row.cards.clear()


@pytest.mark.parametrize(("damage", "hinted"), [
    (_ace_in_slot_0, True), (_every_card_on_the_talon, True),
    (_two_cards_in_slot_0, False),  # PySolFC's own hint asserts one card a slot
])
def test_a_damaged_table_gets_pysolfcs_hint_and_no_redeal(game_db: object, damage: object,
                                                          hinted: bool) -> None:
    """PySolFC loads a damaged or doctored saved game without a word. The Hint then raised
    from deep in the solver (an Ace where no search expects one, a card lost under
    another), and a redeal stopped half-way with its undo history half-written; now such a
    table gets PySolFC's own hint, and no redeal."""
    from pysollib.games.montana import Montana_Hint

    with HeadlessGame(gapgrid_game_id("gaps-unlimited"), "617") as game:
        assert callable(damage)
        damage(game)
        before = game.rows()
        assert game.game.gapgrid_next_action() is None
        if hinted:
            shown = [(hint[3].id, hint[4].id) for hint in game.game.getHints(0)]
            assert shown == [(hint[3].id, hint[4].id)
                             for hint in Montana_Hint(game.game, 0).getHints()]
        assert not game.can_redeal()
        assert game.game.s.talon.dealCards() == 0  # the Demo deals without asking
        assert game.rows() == before
