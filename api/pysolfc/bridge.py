"""gapgrid's games as PySolFC games. This module runs inside PySolFC.

The plugin file that ``gapgrid pysolfc install`` writes imports this module
and calls :func:`register_games`. For every gapgrid variant PySolFC does not
already have (the presets, third-party variants), it registers a PySolFC
game whose classes subclass PySolFC's own Montana classes but ask gapgrid
for every rule: the deal (:class:`core.rules.DealStyle`), which card may
fill a gap (:class:`core.rules.FillRule`), what a redeal keeps and where it
leaves the gaps, when a redeal is allowed, and when the game is won. No
rule is written here a second time.

A redeal is recorded with PySolFC's own atomic moves only (card moves, the
round, and the generator's state before and after), so undo and redo work
and saved games load even where gapgrid is not installed.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterable
from typing import Any

from pysollib.gamedb import GAME_DB, GI, GameInfo, registerGame
from pysollib.games.montana import Montana, Montana_Hint, Montana_RowStack, Montana_Talon
from pysollib.stack import BasicRowStack, StackWrapper

from gapgrid import plugins
from gapgrid.api.pysolfc.games import in_pysolfc, pysolfc_id_of, pysolfc_name
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import GameRandom
from gapgrid.core.redeals import gathered_slots
from gapgrid.core.registry import PresetInfo, VariantInfo
from gapgrid.core.rules import UNLIMITED, RedealTiming, Rules

GAPGRID_VERSION = importlib.metadata.version("gapgrid")
"""The installed gapgrid; the plugin file refuses to run against another version."""


def card_number(card: Any) -> int:
    """A PySolFC card as a gapgrid card (suit * 13 + rank)."""
    return int(card.suit) * 13 + int(card.rank)


class GapgridRowStack(Montana_RowStack):  # type: ignore[misc]  # PySolFC is untyped
    """A slot: it accepts a card when gapgrid's fill rule says so."""

    def acceptsCards(self, from_stack: Any, cards: list[Any]) -> bool:
        if not BasicRowStack.acceptsCards(self, from_stack, cards):
            return False
        game = self.game
        if from_stack not in game.s.rows:
            return False
        return bool(game.gapgrid_rules.fill.accepts(game.gapgrid_cells(), from_stack.id, self.id))


class GapgridTalon(Montana_Talon):  # type: ignore[misc]  # PySolFC is untyped
    """The redeal: gathered, shuffled and dealt back by gapgrid's rules."""

    def canDealCards(self) -> bool:
        game = self.game
        if self.round == self.max_rounds or game.isGameWon():
            return False
        if game.gapgrid_rules.timing is RedealTiming.STUCK:
            return not game.gapgrid_has_move()
        return True

    def dealCards(self, sound: bool = False) -> int:
        game = self.game
        rules: Rules = game.gapgrid_rules
        layout, rows = rules.layout, game.s.rows
        gathered = gathered_slots(layout, game.gapgrid_cells(), rules.keep)
        for slot in gathered:
            if rows[slot].cards:
                game.moveMove(1, rows[slot], self, frames=0)
        if not self.cards:  # nothing to gather: the game is finished
            return 0
        game.saveSeedMove()  # undo restores the generator from here
        contents = rules.placement.deal_back(layout, gathered, [card_number(c) for c in self.cards],
                                             GameRandom(game.random))
        game.nextRoundMove(self)
        # Deal the talon from its top, each card to a slot gapgrid gave that card.
        free: dict[int, list[int]] = {}
        for slot, card in zip(gathered, contents, strict=True):
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
    Hint_Class = Montana_Hint

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

    def gapgrid_cells(self) -> list[int | None]:
        """The slots' contents as gapgrid sees them."""
        return [card_number(row.cards[-1]) if row.cards else None for row in self.s.rows]

    def gapgrid_has_move(self) -> bool:
        """Whether any card may fill any gap."""
        cells = self.gapgrid_cells()
        fill = self.gapgrid_rules.fill
        return any(fill.sources(cells, slot) for slot, card in enumerate(cells) if card is None)


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


def game_info(entry: VariantInfo | PresetInfo, rules: Rules, name: str) -> Any:
    """PySolFC's GameInfo for a gapgrid game."""
    layout = rules.layout
    return GameInfo(pysolfc_id_of(entry), game_class(rules), name,
                    GI.GT_MONTANA | GI.GT_OPEN, layout.decks,
                    -1 if rules.redeals == UNLIMITED else rules.redeals,
                    GI.SL_MOSTLY_SKILL, ranks=list(layout.ranks))


def register_games(catalogue: Catalogue | None = None) -> list[str]:
    """Register every gapgrid game PySolFC lacks; return messages about any left out."""
    catalogue = catalogue or plugins.load_catalogue()
    messages = [f"plugin {problem.plugin!r} not loaded: {problem.reason}"
                for problem in catalogue.problems]
    for slug in _slugs_pysolfc_lacks(catalogue):
        entry = catalogue.lookup(slug)
        game_id = pysolfc_id_of(entry)
        if GAME_DB.get(game_id) is not None:
            messages.append(f"{slug} not added: PySolFC game id {game_id} is taken")
            continue
        try:
            rules = catalogue.rules(slug)
            registerGame(game_info(entry, rules, pysolfc_name(entry)))
        except Exception as error:  # one bad variant must not keep PySolFC from starting
            messages.append(f"{slug} not added: {type(error).__name__}: {error}")
    return messages


def _slugs_pysolfc_lacks(catalogue: Catalogue) -> Iterable[str]:
    return [slug for slug in catalogue.slugs() if not in_pysolfc(catalogue.lookup(slug))]
