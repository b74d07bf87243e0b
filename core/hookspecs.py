"""The hooks a gapgrid plugin implements.

Two kinds of hook:

* :func:`gapgrid_register` is called once per plugin when the catalogue is
  loaded; it adds variants, presets, rule options and scoring schemes to a
  registry.
* The rule hooks (``gapgrid_layout`` ... ``gapgrid_won_rule``) are called
  on a game's own plugin manager, which holds the baseline Montana rules
  (``trylast``), the variant's rule plugins from the root of its family down
  to itself, and the chosen options (``tryfirst``). Each is called once per
  game and returns a value or a rule object; the engine never calls a hook
  per move.

Plugin authors import :data:`hookimpl` from the public API (``from gapgrid
import hookimpl``), never from this module, and implement only the hooks
they need, taking only the arguments they use. Every type named below is
public too (``gapgrid.Layout``, ``gapgrid.FillRule``, ...). docs/plugins.md
describes each hook; a test keeps the two in step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from gapgrid.core.layout import Layout
    from gapgrid.core.registry import Registry
    from gapgrid.core.rules import (
        DealStyle,
        FillRule,
        KeepRule,
        RedealPlacement,
        RedealTiming,
        WonRule,
    )

PROJECT_NAME = "gapgrid"
"""The pluggy project name and the entry-point group third-party plugins use."""

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
"""Marks a hook specification (gapgrid's own, below, or a plugin's new hook)."""

hookimpl = pluggy.HookimplMarker(PROJECT_NAME)
"""Marks a hook implementation: ``@hookimpl``, or ``@hookimpl(tryfirst=True)``."""


@hookspec
def gapgrid_register(registry: Registry) -> None:
    """Add this plugin's variants, presets, rule options and scoring schemes.

    Called once for each plugin when the catalogue is loaded, built-in
    plugins first. Use ``registry.add_variant``, ``registry.add_preset``,
    ``registry.add_option`` and ``registry.add_scoring``, all from this one
    function: a module keeps only the last of two functions with the same
    name, and the loader refuses a plugin module that defines this hook twice.
    A duplicate slug, other name or PySolFC id raises; the plugin is then
    reported with the reason and none of its registrations are kept.

    :param registry: the :class:`gapgrid.Registry` being filled.
    :return: nothing.
    """


@hookspec(firstresult=True)
def gapgrid_layout() -> Layout:
    """Give the game's geometry: rows, slots per row, RBASE, decks and ranks.

    Called once per game. Stops at first non-None result.

    :return: a :class:`gapgrid.Layout`.
    """


@hookspec(firstresult=True)
def gapgrid_deal_style(layout: Layout) -> DealStyle:
    """Give how the initial deal places the shuffled cards.

    Called once per game, after the layout is known. Stops at first
    non-None result.

    :param layout: the game's layout.
    :return: a :class:`gapgrid.DealStyle`, e.g. :class:`gapgrid.BlueMoonDeal`.
    """


@hookspec(firstresult=True)
def gapgrid_fill_rule(layout: Layout) -> FillRule:
    """Give the rule that says which card may fill a gap.

    Called once per game; the engine then calls the rule object's methods
    for every candidate move. Stops at first non-None result.

    :param layout: the game's layout.
    :return: a :class:`gapgrid.FillRule`, e.g. :class:`gapgrid.GalaryFill`.
    """


@hookspec(firstresult=True)
def gapgrid_redeals() -> int:
    """Give how many redeals the game allows.

    Called once per game. Stops at first non-None result.

    :return: 0, 1, 2, ... or :data:`gapgrid.UNLIMITED`.
    """


@hookspec(firstresult=True)
def gapgrid_redeal_keep(layout: Layout) -> KeepRule:
    """Give the rule that says what a redeal leaves in place.

    Called once per game. Stops at first non-None result.

    :param layout: the game's layout.
    :return: a :class:`gapgrid.KeepRule`, e.g. :class:`gapgrid.KeepRuns`.
    """


@hookspec(firstresult=True)
def gapgrid_redeal_placement(layout: Layout) -> RedealPlacement:
    """Give how a redeal deals the gathered cards back and where it leaves the gaps.

    Called once per game. Stops at first non-None result.

    :param layout: the game's layout.
    :return: a :class:`gapgrid.RedealPlacement`, e.g. from :data:`gapgrid.PLACEMENTS`.
    """


@hookspec(firstresult=True)
def gapgrid_redeal_timing() -> RedealTiming:
    """Give when a redeal may be asked for: at any moment, or only when stuck.

    Called once per game. Stops at first non-None result.

    :return: a :class:`gapgrid.RedealTiming`.
    """


@hookspec(firstresult=True)
def gapgrid_won_rule(layout: Layout) -> WonRule:
    """Give the rule that says when the game is won.

    Called once per game. Stops at first non-None result.

    :param layout: the game's layout.
    :return: a :class:`gapgrid.WonRule`, e.g. :class:`gapgrid.AllRowsFinished`.
    """
