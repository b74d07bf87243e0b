"""PySolFC game ids for gapgrid's variants, and saved games as gapgrid games.

PySolFC keys statistics and saved games by game id, so the ids gapgrid
gives the games it adds to PySolFC must never change: each is derived from
the slug alone (a CRC-32), inside the range PySolFC leaves to user games
(100000-999999) but outside 200000-299999, which belongs to PySolFC's
Solitaire Wizard.
"""

from __future__ import annotations

import zlib
from typing import Final

from gapgrid.api.pysolfc.savefile import SaveFileError
from gapgrid.core.board import Board
from gapgrid.core.cards import CARDS_PER_DECK
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.layout import Layout
from gapgrid.core.registry import PresetInfo, VariantInfo
from gapgrid.core.rules import Rules

USER_IDS: Final = (100_000, 999_999)
WIZARD_IDS: Final = (200_000, 299_999)
_USABLE = (USER_IDS[1] - USER_IDS[0] + 1) - (WIZARD_IDS[1] - WIZARD_IDS[0] + 1)


class UnknownGameError(LookupError):
    """Raised for a PySolFC game id that is no gapgrid variant."""


def gapgrid_game_id(slug: str) -> int:
    """Return the PySolFC game id gapgrid uses for ``slug``: stable, 100000-999999, not 2xxxxx."""
    offset = zlib.crc32(slug.encode("utf-8")) % _USABLE
    below_wizard = WIZARD_IDS[0] - USER_IDS[0]
    if offset < below_wizard:
        return USER_IDS[0] + offset
    return WIZARD_IDS[1] + 1 + (offset - below_wizard)


def in_pysolfc(entry: VariantInfo | PresetInfo) -> bool:
    """Whether PySolFC has the game itself (otherwise gapgrid's plugin adds it)."""
    return isinstance(entry, VariantInfo) and entry.pysolfc_id is not None


def pysolfc_id_of(entry: VariantInfo | PresetInfo) -> int:
    """The id PySolFC knows the entry by: its own id, or the one gapgrid derives."""
    if isinstance(entry, VariantInfo) and entry.pysolfc_id is not None:
        return entry.pysolfc_id
    return gapgrid_game_id(entry.slug)


def pysolfc_name(entry: VariantInfo | PresetInfo) -> str:
    """The name PySolFC shows: its own for its games, marked "(gapgrid)" for those gapgrid adds."""
    return entry.name if in_pysolfc(entry) else f"{entry.name} (gapgrid)"


def entry_for_game_id(catalogue: Catalogue, game_id: int) -> VariantInfo | PresetInfo:
    """Find the variant or preset PySolFC calls ``game_id``."""
    for slug in catalogue.slugs():
        entry = catalogue.lookup(slug)
        if pysolfc_id_of(entry) == game_id:
            return entry
    raise UnknownGameError(f"PySolFC game {game_id} is not a game of the Montana family "
                           f"that gapgrid knows")


def card_of_pysolfc_id(layout: Layout, card_id: int) -> int:
    """Map a PySolFC card id (cards numbered in creation order) to a gapgrid card."""
    created = layout.deck_cards()
    if not 0 <= card_id < len(created):
        raise ValueError(f"card id {card_id} does not exist in a game of {len(created)} cards")
    return created[card_id] % CARDS_PER_DECK


def saved_board(rules: Rules, stacks: tuple[tuple[int, ...], ...]) -> Board:
    """The board a saved game's row stacks hold (PySolFC's first RLEN stacks are the rows).

    Raises :class:`SaveFileError` when the stacks cannot be a game of ``rules``.
    """
    layout = rules.layout
    if len(stacks) < layout.rlen:
        found = "1 stack" if len(stacks) == 1 else f"{len(stacks)} stacks"
        raise SaveFileError(f"the file has {found}; {rules.name} has {layout.rlen} slots")
    cells: list[int | None] = []
    for slot, stack in enumerate(stacks[:layout.rlen]):
        if len(stack) > 1:
            raise SaveFileError(f"slot {slot} holds {len(stack)} cards in the file")
        try:
            cells.append(card_of_pysolfc_id(layout, stack[0]) if stack else None)
        except ValueError as error:
            raise SaveFileError(f"slot {slot}: {error}") from None
    return Board(layout, cells)
