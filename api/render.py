"""Boards as text for a terminal: suit symbols, red suits in red.

Each row is labelled with the slot number of its first column, and the
columns are numbered on top, so the slot of any card (row label + column)
can be read off for move notation.
"""

from __future__ import annotations

import click

from gapgrid.core.board import Board
from gapgrid.core.cards import card_symbol, is_red

CELL_WIDTH = 4


def render_board(board: Board) -> str:
    """Return the board as a grid of cards; styles are stripped when not on a terminal."""
    layout = board.layout
    label_width = len(str(layout.rlen - 1)) + 1
    header = " " * label_width + "".join(
        click.style(f"{column:>{CELL_WIDTH}}", dim=True) for column in range(layout.rstep))
    lines = [header]
    for row_slots in layout.iter_rows():
        label = click.style(f"{row_slots.start:>{label_width}}", dim=True)
        cells = "".join(_cell(board.cells[slot]) for slot in row_slots)
        lines.append(label + cells)
    return "\n".join(lines)


def card_text(card: int, width: int = 0) -> str:
    """A card with its suit symbol (``7♦``), red suits in red, right-aligned in ``width``."""
    text = f"{card_symbol(card):>{width}}"
    return click.style(text, fg="red") if is_red(card) else text


def _cell(card: int | None) -> str:
    if card is None:
        return click.style(f"{'··':>{CELL_WIDTH}}", dim=True)
    return card_text(card, CELL_WIDTH)
