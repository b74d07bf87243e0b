"""Rules that several variants share: named layouts and rules plugins, each defined once.

A variant module in ``plugins/`` registers its variant with a *rules plugin*,
an object whose hooks say what differs from the variant it builds on. When
two variants differ from their bases in the same way, that object lives here
and both variant modules take it from the public API (``from gapgrid import
GalaryRules``), so no variant module imports another and no rule is pasted
twice:

* :class:`GalaryRules`: Galary and Free Parking (Galary's two-sided fills).
* :class:`RedMoonRules`: Red Moon and Double Red Moon (the Red Moon deal).
* :class:`AcesStayRules`: Spaces and Aces and Paganini II (the Aces stay
  where the deal puts them, no redeal).
* :data:`MONTANA_LAYOUT` and :data:`BLUE_MOON_LAYOUT`: the two grids the
  one- and two-deck variants are built from (``layout.with_decks(2)``).

The implementations these plugins return (fills, deals) are in
:mod:`gapgrid.core.fills` and :mod:`gapgrid.core.deals`.
"""

from __future__ import annotations

from typing import Final

from gapgrid.core.deals import BlueMoonDeal, RedMoonDeal
from gapgrid.core.fills import GalaryFill
from gapgrid.core.hookspecs import hookimpl
from gapgrid.core.layout import Layout
from gapgrid.core.rules import DealStyle, FillRule

MONTANA_LAYOUT: Final = Layout(rows=4, rstep=13, rbase=1)
"""Four rows of thirteen, rows headed by a 2, one full deck (PySolFC: 52, 13, 1)."""

BLUE_MOON_LAYOUT: Final = Layout(rows=4, rstep=14, rbase=0)
"""Four rows of fourteen, rows headed by an Ace (PySolFC: 56, 14, 0)."""


class GalaryRules:
    """Rules plugin: a gap also takes the card one rank below its right neighbour, same suit.

    Galary (on Red Moon) and Free Parking (on Montana) differ from their
    bases by exactly this.
    """

    @hookimpl
    def gapgrid_fill_rule(self, layout: Layout) -> FillRule:
        return GalaryFill(layout)


class RedMoonRules:
    """Rules plugin: RBASE cards dealt to column 0, column 1 left empty, the other cards after.

    Red Moon (on Blue Moon) and Double Red Moon (on Double Blue Moon) differ
    from their bases by exactly this.
    """

    @hookimpl
    def gapgrid_deal_style(self) -> DealStyle:
        return RedMoonDeal()


class AcesStayRules:
    """Rules plugin: the Aces stay where the Blue Moon deal puts them, and there is no redeal.

    Paganini II (on Double Blue Moon) differs from its base by exactly this;
    Spaces and Aces (on Blue Moon) adds its ascending fills.
    """

    @hookimpl
    def gapgrid_deal_style(self) -> DealStyle:
        return BlueMoonDeal(heads_to_column_0=False)

    @hookimpl
    def gapgrid_redeals(self) -> int:
        return 0
