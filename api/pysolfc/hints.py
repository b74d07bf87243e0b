"""The solver's hint in PySolFC: the Hint command shows the next action of a winning line.

This module runs inside PySolFC. A gapgrid game in PySolFC (see
:mod:`api.pysolfc.bridge`) answers PySolFC's Hint (key H), Ctrl-H and Demo
with the first action of a winning line that gapgrid's solver finds from the
position on the table, through the same use case as ``gapgrid hint`` and
``POST /v1/hint`` (:func:`api.services.solving.hint`): a search of about a
second (:data:`~api.services.solving.HINT_SECONDS`), and a memo of the lines
found, so that a player who follows the hints walks one line to the win and
waits for a search only once.

The position is read off PySolFC's table: the slots, the redeals made (the
talon's round) and the state of the very generator PySolFC will shuffle the
next redeal with. So a hint holds also after a saved game is loaded, when
PySolFC has re-seeded its generator (that of a game numbered 32000 or above,
from its number).

When the solver finds no win within the budget (``unknown``), or knows that
none exists from here (``lost``), the hint falls back to PySolFC's own
Montana hint, which suggests any move that fits. PySolFC's stuck check
(``HINT_LEVEL_STUCK``, run after every move) never starts a search.

PySolFC's hints can only be card moves at the player's levels (a deal is
only for the Demo), so when the next action is a redeal,
:meth:`api.pysolfc.bridge.GapgridGame.showHint` points at the redeal pile
instead (see :func:`show_redeal_hint`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Final

from pysol_cards.random import LCRandom31, MTRandom
from pysollib.games.montana import Montana_Hint
from pysollib.hint import HINT_LEVEL_DEBUG, HINT_LEVEL_DEMO, HINT_LEVEL_PLAYER

from gapgrid.api.services import solving
from gapgrid.core.board import Board
from gapgrid.core.dealnumber import DealNumber, DealNumberError, GameRandom, parse_deal_number
from gapgrid.core.game import GameState, new_game
from gapgrid.core.notation import Action, Move, Redeal, parse_action
from gapgrid.core.replay import replay_from
from gapgrid.core.rules import Rules

SOLVER_LEVELS: Final = (HINT_LEVEL_PLAYER, HINT_LEVEL_DEBUG, HINT_LEVEL_DEMO)
"""The hint levels that ask the solver: H, Ctrl-H and the Demo (not the stuck check)."""

SOLVER_SCORE: Final = 100_000
"""The solver's move's score: above any score of PySolFC's Montana hint (at most 50,000)."""


def game_deal(generator: Any) -> DealNumber | None:
    """The game number of PySolFC's generator ``generator``, or None when gapgrid would not
    continue it with the same kind of generator (and so cannot search from its state)."""
    try:
        deal = parse_deal_number(str(generator.getSeedStr()))
    except (DealNumberError, AttributeError, ValueError):
        return None
    kind = LCRandom31 if deal.uses_lcrandom else MTRandom
    return deal if type(generator) is kind else None


def holds_its_deal(rules: Rules, deal: DealNumber, cells: list[int | None]) -> bool:
    """Whether the slots ``cells`` hold the cards game ``deal`` dealt into them, in any order:
    what every move and redeal keeps. A table loaded from a damaged or doctored saved game
    (PySolFC loads one without a word) may not, and no gapgrid hint or redeal is made
    there: the search's reductions take a position of the game, and a redeal would stop
    half-way, its undo history half-written."""
    dealt = new_game(rules, deal).board.cells
    return Counter(card for card in cells if card is not None) == Counter(
        card for card in dealt if card is not None)


def table_state(rules: Rules, cells: list[int | None], rounds_played: int,
                generator: Any) -> GameState | None:
    """The gapgrid position on PySolFC's table: the slots' cards, the redeals made
    (``rounds_played``, PySolFC's talon round less one) and PySolFC's generator's state;
    None when the generator is not one gapgrid continues, or the slots do not hold the
    game's cards (:func:`holds_its_deal`)."""
    deal = game_deal(generator)
    if deal is None or not holds_its_deal(rules, deal, cells):
        return None
    # GameRandom only reads the state here: the generator PySolFC will redeal with is unchanged.
    return GameState(rules=rules, deal=deal, board=Board(rules.layout, cells),
                     redeals_used=rounds_played, rng_state=GameRandom(generator).getstate())


def solver_hint(state: GameState, memo: solving.LineMemo,
                seconds: float = solving.HINT_SECONDS) -> dict[str, Any]:
    """The hint document of :func:`api.services.solving.hint` for ``state``
    (``verdict``, ``next``, ``remaining``, ``source``, ...)."""
    position = solving.Replayed(state.rules, state.deal, replay_from(state, ()))
    return solving.hint(position, seconds=seconds, memo=memo).document


def next_action(document: dict[str, Any]) -> Action | None:
    """The action a hint document says to play next, or None when it knows of no win."""
    if document.get("verdict") != "won" or document.get("next") is None:
        return None
    return parse_action(document["next"])


class SolverHint(Montana_Hint):  # type: ignore[misc]  # PySolFC is untyped
    """PySolFC's hint class for gapgrid's games: the solver's next move, or Montana's hint.

    ``self.game`` is a :class:`api.pysolfc.bridge.GapgridGame`; its
    :meth:`gapgrid_next_action` searches, once per position.
    """

    def computeHints(self) -> None:
        if self.level not in SOLVER_LEVELS:
            Montana_Hint.computeHints(self)  # the stuck check: any move that fits
            return
        action = self.game.gapgrid_next_action()
        if isinstance(action, Move):
            rows = self.game.s.rows
            self.addHint(SOLVER_SCORE, 1, rows[action.source], rows[action.target])
        elif isinstance(action, Redeal):
            # The Demo's deal hint is added by AbstractHint.getHints itself (the talon can
            # deal); at the player's levels GapgridGame.showHint shows the redeal instead.
            pass
        else:
            Montana_Hint.computeHints(self)  # no win known: PySolFC's usual hint


def show_redeal_hint(game: Any, sleep: float) -> tuple[Any, ...]:
    """Point the player at the redeal pile, as PySolFC's Hint points at a move with an arrow.

    Returns a hint tuple of PySolFC's shape for a deal (no cards, from the talon), which
    ``showHint`` returns too for a deal; with ``sleep`` 0 nothing is drawn (the Demo and
    tests ask that way).
    """
    talon = game.s.talon
    hint = (SOLVER_SCORE, 0, 0, talon, None, None, None)
    if sleep <= 0:
        return hint
    color = game.app.opt.colors.get("hintarrow", "#303030")
    # The talon lies empty between redeals: PySolFC's frame for an empty stack marks it.
    game._highlightEmptyStack([(talon, color)], sleep)
    speech = getattr(game.app, "speech", None)
    if speech is not None:
        speech.speak("Redeal")
    return hint
