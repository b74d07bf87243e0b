"""Hand-built boards for tests: rows of card codes, ``..`` for a gap."""

from __future__ import annotations

from gapgrid.core.board import Board
from gapgrid.core.cards import RANK_LETTERS
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import GameState
from gapgrid.core.layout import Layout
from gapgrid.core.rules import Rules


def board_from_text(layout: Layout, text: str) -> Board:
    """Build a board from one line of codes per row (``..`` is a gap)."""
    rows = [line.split() for line in text.strip().splitlines() if line.strip()]
    return Board.from_rows(layout, [[None if code == ".." else code for code in row]
                                    for row in rows])


def position(rules: Rules, text: str, redeals_used: int = 0, number: str = "1") -> GameState:
    """A game state on a hand-built board, with game ``number``'s generator for redeals."""
    deal = parse_deal_number(number)
    return GameState(rules=rules, deal=deal, board=board_from_text(rules.layout, text),
                     redeals_used=redeals_used, rng_state=deal.new_random().getstate())


def solved_text(layout: Layout) -> str:
    """The won board of a layout: each row its full sequence in one suit, gaps after."""
    lines = []
    for row in range(layout.rows):
        suit = "CSHD"[row % 4]
        codes = [RANK_LETTERS[rank] + suit for rank in layout.sequence_ranks]
        codes += [".."] * (layout.rstep - len(codes))
        lines.append(" ".join(codes))
    return "\n".join(lines)
