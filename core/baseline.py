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
