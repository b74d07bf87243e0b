"""The baseline rules: PySolFC's Montana, as a plugin every game starts from.

Every hook is ``trylast``, so a variant overrides exactly what differs and
nothing more. A fresh instance is registered in each game's plugin manager.
"""

from __future__ import annotations

from gapgrid.core import deals, fills, redeals
from gapgrid.core.hookspecs import hookimpl
from gapgrid.core.layout import Layout
from gapgrid.core.rules import DealStyle, FillRule, KeepRule, RedealPlacement, RedealTiming, WonRule
from gapgrid.core.runs import Cells, all_rows_finished
from gapgrid.core.shared_rules import MONTANA_LAYOUT

MONTANA_REDEALS = 2
"""Redeals PySolFC's Montana allows (three rounds)."""


class AllRowsFinished:
    """Won rule: every row's run is complete (PySolFC's ``Montana.isGameWon``).

    The baseline's won rule, and the one every PySolFC variant keeps.
    """

    __slots__ = ("layout",)

    def __init__(self, layout: Layout) -> None:
        self.layout = layout

    def is_won(self, cells: Cells) -> bool:
        """Tell whether every row of ``cells`` holds its full run."""
        return all_rows_finished(self.layout, cells)


def won_leaves_no_move(fill: FillRule, won: WonRule, layout: Layout) -> bool:
    """Tell whether no card move is ever legal in a won position under these rules.

    True for gapgrid's own fills with :class:`AllRowsFinished` on a layout whose rows
    are one slot longer than the sequence, as every built-in one's are. In a won
    position every row holds its full run from column 0, so column 0 has no
    gap and every gap lies in the last column, right of the sequence's last
    rank. Montana's and Jungle's fills let nothing follow that rank; Galary's
    also looks at the next slot, the next row's head, before which nothing
    comes; Spaces and Aces' takes a higher card of the suit, and there is
    none when the sequence ends with the highest rank in play. The engine
    then need not ask whether the game is won before a move it finds legal.
    With longer rows (a third party's layout) a won position has gaps after
    other cards too, which may take a card: the engine must ask.
    """
    if type(won) is not AllRowsFinished or layout.rstep != len(layout.sequence_ranks) + 1:
        return False
    if type(fill) in (fills.MontanaFill, fills.GalaryFill, fills.JungleFill):
        return True
    return type(fill) is fills.AscendingFill and layout.sequence_ranks[-1] == max(layout.ranks)


class BaselineRules:
    """Montana: 4x13 from a 2, Aces out, same-suit fills, 2 redeals any time, gaps after runs."""

    @hookimpl(trylast=True)
    def gapgrid_layout(self) -> Layout:
        return MONTANA_LAYOUT

    @hookimpl(trylast=True)
    def gapgrid_deal_style(self) -> DealStyle:
        return deals.MontanaDeal()

    @hookimpl(trylast=True)
    def gapgrid_fill_rule(self, layout: Layout) -> FillRule:
        return fills.MontanaFill(layout)

    @hookimpl(trylast=True)
    def gapgrid_redeals(self) -> int:
        return MONTANA_REDEALS

    @hookimpl(trylast=True)
    def gapgrid_redeal_keep(self) -> KeepRule:
        return redeals.KeepRuns()

    @hookimpl(trylast=True)
    def gapgrid_redeal_placement(self) -> RedealPlacement:
        return redeals.GapsAfterRuns()

    @hookimpl(trylast=True)
    def gapgrid_redeal_timing(self) -> RedealTiming:
        return RedealTiming.ANYTIME

    @hookimpl(trylast=True)
    def gapgrid_won_rule(self, layout: Layout) -> WonRule:
        return AllRowsFinished(layout)
