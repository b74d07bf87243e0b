"""Spaces (PySolFC 116), also Addiction: Montana whose redeals leave the gaps at random."""

from __future__ import annotations

from gapgrid import GapsAtRandom, RedealPlacement, Registry, hookimpl


class SpacesRules:
    """After a redeal the gaps lie at random among the gathered slots."""

    @hookimpl
    def gapgrid_redeal_placement(self) -> RedealPlacement:
        return GapsAtRandom()


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="spaces", name="Spaces", base="montana", rules=SpacesRules(),
        other_names=("Addiction",), pysolfc_id=116,
        summary="Montana, but a redeal leaves its four gaps at random places among the "
                "gathered slots instead of after the runs.")
