"""gapgrid's games as PySolFC games. This module runs inside PySolFC.

The plugin file that ``gapgrid pysolfc install`` writes imports this module
and calls :func:`register_games`. For every gapgrid variant PySolFC does not
already have (the presets, third-party variants), it registers a PySolFC
game whose classes subclass PySolFC's own Montana classes but ask gapgrid
for every rule: the deal (:class:`core.rules.DealStyle`), whether a move is
legal (:func:`core.game.move_refusal`), whether a redeal is allowed
(:func:`core.game.redeal_refusal`), the redeal itself
(:func:`core.redeals.redeal_cells`), and when the game is won. No rule or
check is written here a second time. Its Hint shows the solver's next action
(:mod:`api.pysolfc.hints`).

A redeal is recorded with PySolFC's own atomic moves only (card moves, the
round, and the generator's state before and after), so undo and redo work
and saved games load even where gapgrid is not installed.
"""

from __future__ import annotations

import importlib.metadata
import os
from pathlib import Path
from typing import Any

from pysollib.gamedb import GAME_DB, GI, GameInfo, registerGame
from pysollib.games.montana import Montana, Montana_RowStack, Montana_Talon
from pysollib.hint import HINT_LEVEL_DEMO
from pysollib.stack import BasicRowStack, StackWrapper

from gapgrid import plugins
from gapgrid.api.pysolfc.games import pysolfc_id_of, pysolfc_name
from gapgrid.api.pysolfc.hints import (
    SolverHint,
    game_deal,
    holds_its_deal,
    next_action,
    show_redeal_hint,
    solver_hint,
    table_state,
)
from gapgrid.api.pysolfc.rules_pages import added_slugs, page_name
from gapgrid.api.services import solving
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import GameRandom
from gapgrid.core.game import Refusal, move_refusal, redeal_refusal
from gapgrid.core.notation import Action, Move, Redeal
from gapgrid.core.redeals import gathered_slots, redeal_cells
from gapgrid.core.registry import PresetInfo, VariantInfo
from gapgrid.core.rules import UNLIMITED, Rules

GAPGRID_VERSION = importlib.metadata.version("gapgrid")
"""The installed gapgrid; the plugin file refuses to run against another version."""


def card_number(card: Any) -> int:
    """A PySolFC card as a gapgrid card (suit * 13 + rank)."""
    return int(card.suit) * 13 + int(card.rank)


class GapgridRowStack(Montana_RowStack):  # type: ignore[misc]  # PySolFC is untyped
    """A slot: it accepts a card when gapgrid's engine would play the move."""

    def acceptsCards(self, from_stack: Any, cards: list[Any]) -> bool:
        if not BasicRowStack.acceptsCards(self, from_stack, cards):
            return False
        game = self.game
        if from_stack not in game.s.rows:
            return False
        return move_refusal(game.gapgrid_rules, game.gapgrid_cells(), from_stack.id,
                            self.id) is None


class GapgridTalon(Montana_Talon):  # type: ignore[misc]  # PySolFC is untyped
    """The redeal: allowed when gapgrid's engine allows it, and done by its rules.

    PySolFC draws the pile (its redeal sign and "Redeal" label, or its red
    cross) from :meth:`canDealCards`; :meth:`GapgridGame.updateText` has it
    redrawn after every move, since here card moves change the answer.
    """

    def canDealCards(self) -> bool:
        return self.game.gapgrid_redeal_refusal() is None

    def resize(self, xf: float, yf: float, widthpad: int = 0, heightpad: int = 0) -> None:
        """Redraw the pile after PySolFC redraws it for a new size.

        TalonStack.resize remakes the pile's picture as if a redeal were allowed whenever
        the game has redeals, and shows it without asking :meth:`canDealCards`. PySolFC
        resizes the game when its window first appears and whenever it changes size, so
        in the real program a game that redeals only when stuck showed the green redeal
        sign at every deal until the first move (the headless harness draws no picture and
        never saw it).
        """
        Montana_Talon.resize(self, xf, yf, widthpad=widthpad, heightpad=heightpad)
        if self.game.s.talon is self:
            self.updateText()

    def dealCards(self, sound: bool = False) -> int:
        game = self.game
        if game.gapgrid_redeal_refusal() is not None:  # PySolFC's Demo asks without looking
            return 0
        rules: Rules = game.gapgrid_rules
        rows = game.s.rows
        cells = game.gapgrid_cells()
        for slot in gathered_slots(rules.layout, cells, rules.keep):
            if rows[slot].cards:
                game.moveMove(1, rows[slot], self, frames=0)
        if not self.cards:  # nothing to gather: the game is finished
            return 0
        game.saveSeedMove()  # undo restores the generator from here
        # The engine's own redeal, on a copy of the cells, with PySolFC's generator.
        gathered = redeal_cells(rules.layout, cells, rules.keep, rules.placement,
                                GameRandom(game.random))
        game.nextRoundMove(self)
        # Deal the talon from its top, each card to a slot the engine gave that card.
        free: dict[int, list[int]] = {}
        for slot in gathered:
            card = cells[slot]
            if card is not None:
                free.setdefault(card, []).append(slot)
        dealt = 0
        while self.cards:
            slot = free[card_number(self.cards[-1])].pop(0)
            game.moveMove(1, self, rows[slot], frames=4)
            dealt += 1
        game.saveSeedMove()  # redo leaves the generator where the redeal left it
        return dealt


class GapgridGame(Montana):  # type: ignore[misc]  # PySolFC is untyped
    """A Montana-family game whose rules come from gapgrid; subclassed once per variant."""

    gapgrid_rules: Rules
    RowStack_Class = GapgridRowStack
    Hint_Class = SolverHint
    gapgrid_hint_seconds = solving.HINT_SECONDS
    """The solver's time for one hint: the player waits for it."""

    def createGame(self) -> None:
        Montana.createGame(self, round_text=self.gapgrid_rules.redeals != 0)

    def startGame(self) -> None:
        rules = self.gapgrid_rules
        talon = self.s.talon
        cells = rules.deal_style.place(rules.layout, [card_number(c) for c in talon.cards])
        waiting: dict[int, list[Any]] = {}
        for card in talon.cards:
            waiting.setdefault(card_number(card), []).append(card)
        order = []
        for slot, card in enumerate(cells):
            if card is not None:
                order.append((slot, waiting[card].pop()))
        set_aside = [card for cards in waiting.values() for card in cards]
        # Arrange the talon so that dealing from its top puts each card in its slot.
        talon.cards = set_aside + [card for _, card in reversed(order)]
        for slot, _ in order:
            talon.dealRow(rows=(self.s.rows[slot],), frames=0)
        if set_aside:
            talon.dealRow(rows=self.s.internals * len(set_aside), frames=0)

    def isGameWon(self) -> bool:
        return bool(self.gapgrid_rules.won.is_won(self.gapgrid_cells()))

    def updateText(self) -> None:
        """Redraw the redeal pile too: PySolFC calls this after every move, undo and redo, but
        redraws the pile itself only when cards enter or leave it, and here a card move can
        make a redeal allowed (the player is stuck) or not."""
        Montana.updateText(self)
        talon = self.s.talon
        if talon is not None and self.preview <= 1:
            talon.updateText()

    def showHint(self, level: int = 0, sleep: float = 1.5, taken_hint: Any = None) -> Any:
        """PySolFC's Hint, which also points at the redeal pile when the solver's next action
        is a redeal (PySolFC's hints at the player's levels can only be card moves)."""
        if level < HINT_LEVEL_DEMO and not (taken_hint and taken_hint[6]) and isinstance(
                self.gapgrid_next_action(), Redeal):
            return show_redeal_hint(self, sleep)
        return Montana.showHint(self, level, sleep, taken_hint)

    def gapgrid_next_action(self) -> Action | None:
        """The solver's next action from the position on the table, or None when it knows of
        no win; searched once per position (PySolFC asks again as the player presses H)."""
        state = table_state(self.gapgrid_rules, self.gapgrid_cells(), self.s.talon.round - 1,
                            self.random)
        if state is None or not self.gapgrid_one_card_a_slot():
            return None
        # Kept on the game object, which PySolFC builds anew for each game it starts.
        memo = self.__dict__.setdefault("gapgrid_memo", solving.LineMemo(capacity=5_000))
        answers: dict[Any, Action | None] = self.__dict__.setdefault("gapgrid_answers", {})
        key = solving.position_key(state)
        if key not in answers:
            answers.clear()  # only the position on the table is asked about again
            answers[key] = next_action(solver_hint(state, memo, self.gapgrid_hint_seconds))
        return answers[key]

    def gapgrid_one_card_a_slot(self) -> bool:
        """Whether no slot holds more than one card (a damaged saved game's may)."""
        return all(len(row.cards) <= 1 for row in self.s.rows)

    def gapgrid_cells(self) -> list[int | None]:
        """The slots' contents as gapgrid sees them."""
        return [card_number(row.cards[-1]) if row.cards else None for row in self.s.rows]

    def gapgrid_redeal_refusal(self) -> Refusal | None:
        """Why gapgrid's engine refuses a redeal now, or None when it allows one; refused too
        on a table that does not hold the game's cards, one to a slot (a damaged saved
        game's: :func:`api.pysolfc.hints.holds_its_deal`)."""
        rules, cells = self.gapgrid_rules, self.gapgrid_cells()
        deal = game_deal(self.random)
        if ((deal is not None and not holds_its_deal(rules, deal, cells))
                or not self.gapgrid_one_card_a_slot()):
            return Refusal("damaged-table", "the table does not hold this game's cards, one "
                                            "to a slot (a damaged saved game?)")
        return redeal_refusal(rules, cells, self.s.talon.round - 1,
                              lambda: first_legal_move(rules, cells))


def first_legal_move(rules: Rules, cells: list[int | None]) -> Move | None:
    """A card move gapgrid's fill rule allows in ``cells`` (the first, gap by gap), or None."""
    for target, card in enumerate(cells):
        if card is None:
            sources = rules.fill.sources(cells, target)
            if sources:
                return Move(sources[0], target)
    return None


def game_class(rules: Rules) -> type[GapgridGame]:
    """A PySolFC game class for ``rules`` (PySolFC wants one class per game)."""
    layout = rules.layout
    rounds = -1 if rules.redeals == UNLIMITED else rules.redeals + 1
    set_aside = layout.set_aside_ranks
    return type(f"Gapgrid_{rules.slug.replace('-', '_')}", (GapgridGame,), {
        "gapgrid_rules": rules,
        "RLEN": layout.rlen, "RSTEP": layout.rstep, "RBASE": layout.rbase,
        # Montana.createGame makes a hidden stack for set-aside cards when this
        # rank lies outside the rows' sequence.
        "SpaceRank": set_aside[0] if set_aside else layout.rbase,
        "Talon_Class": StackWrapper(GapgridTalon, max_rounds=rounds),
    })


def game_info(entry: VariantInfo | PresetInfo, rules: Rules, name: str,
              rules_page: str | None = None) -> Any:
    """PySolFC's GameInfo for a gapgrid game; ``rules_page`` is its page's absolute path."""
    layout = rules.layout
    return GameInfo(pysolfc_id_of(entry), game_class(rules), name,
                    GI.GT_MONTANA | GI.GT_OPEN, layout.decks,
                    -1 if rules.redeals == UNLIMITED else rules.redeals,
                    GI.SL_MOSTLY_SKILL, ranks=list(layout.ranks), rules_filename=rules_page)


def register_games(catalogue: Catalogue | None = None,
                   rules_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """Register every gapgrid game PySolFC lacks; return messages about any left out.

    ``rules_dir`` is the folder of rules pages ``gapgrid pysolfc install`` wrote; a game
    whose page is there gets it as its rules (without one, PySolFC greys the button out).
    """
    catalogue = catalogue or plugins.load_catalogue()
    messages = [f"plugin {problem.plugin!r} not loaded: {problem.reason}"
                for problem in catalogue.problems]
    missing = []
    for slug in added_slugs(catalogue):
        entry = catalogue.lookup(slug)
        game_id = pysolfc_id_of(entry)
        if GAME_DB.get(game_id) is not None:
            messages.append(f"{slug} not added: PySolFC game id {game_id} is taken")
            continue
        page = Path(rules_dir, page_name(slug)) if rules_dir is not None else None
        if page is not None and not page.is_file():
            missing.append(slug)
        try:
            rules = catalogue.rules(slug)
            registerGame(game_info(entry, rules, pysolfc_name(entry),
                                   str(page.resolve()) if page and page.is_file() else None))
        except Exception as error:  # one bad variant must not keep PySolFC from starting
            messages.append(f"{slug} not added: {type(error).__name__}: {error}")
    if missing:
        games = "game has" if len(missing) == 1 else "games have"
        messages.append(f"{len(missing)} {games} no rules page ({', '.join(missing)}): run "
                        f"`gapgrid pysolfc install` again to write them")
    return messages
