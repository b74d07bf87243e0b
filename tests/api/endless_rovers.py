"""A third-party plugin for tests: Rectangular Rovers' slides, but no position is ever won.

Every card beside a gap may slide into it, so from any deal the reachable
positions are nearly all arrangements of 20 cards and 4 gaps on 24 slots
(about 10**22): no search can prove the deal lost, and none can win it, so
a solver of any strength spends whatever budget it is given. The tests copy
this module into a folder, beside a ``.dist-info`` declaring it in the
``gapgrid`` entry-point group, and put that folder on a server's
``PYTHONPATH``: gapgrid finds it as it finds any installed plugin.
"""

from __future__ import annotations

from gapgrid import Cells, Layout, Registry, WonRule, hookimpl

SLUG = "endless-rovers"


class NeverWon:
    """The won rule no position meets."""

    def is_won(self, cells: Cells) -> bool:
        """Never won, whatever the cells."""
        return False


class EndlessRoversRules:
    """Rectangular Rovers, with :class:`NeverWon` as its won rule."""

    @hookimpl
    def gapgrid_won_rule(self, layout: Layout) -> WonRule:
        """The won rule of every game of the variant."""
        return NeverWon()


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    """Add the variant, built on Rectangular Rovers."""
    registry.add_variant(slug=SLUG, name="Endless Rovers", base="rectangular-rovers",
                         rules=EndlessRoversRules(),
                         summary="Rectangular Rovers, but no position is ever won.")
