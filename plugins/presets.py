"""Presets named in the seed documents: a base variant plus rule options, as data."""

from __future__ import annotations

from typing import Any

from gapgrid import Registry, hookimpl

PRESETS: tuple[dict[str, Any], ...] = (
    dict(slug="gaps", name="Gaps", base="montana",
         options={"redeals": 2, "redeal-placement": "after-runs", "redeal-when": "stuck"},
         summary="Montana as seed 002 plays it: two redeals, only when no move is left; "
                 "the gaps go after the runs."),
    dict(slug="gaps-no-shuffle", name="Gaps, no shuffling", base="montana",
         options={"redeal-placement": "no-shuffle", "redeal-when": "stuck"},
         summary="Gaps whose redeals deal the gathered cards back unshuffled, in the order "
                 "they were picked up (seed 002)."),
    dict(slug="gaps-aces-in-redeal", name="Gaps, Aces in the redeal", base="montana",
         options={"redeal-placement": "random", "redeal-when": "stuck"},
         summary="Gaps whose redeals shuffle the Aces back in and take them out again, so "
                 "the gaps land at random (seed 002)."),
    dict(slug="gaps-unlimited", name="Gaps, unlimited redeals", base="montana",
         options={"redeals": "unlimited", "redeal-when": "stuck"},
         summary="Gaps with as many redeals as you like (seed 002)."),
    dict(slug="montana-classic", name="Montana Classic", base="montana",
         options={"redeals": 1, "redeal-placement": "random", "redeal-when": "stuck"},
         summary="One shuffle, with the Aces mixed back in, only when stuck (seed 003)."),
    dict(slug="montana-relax", name="Montana Relax", base="montana",
         options={"redeals": 3, "redeal-placement": "random", "redeal-when": "stuck"},
         summary="Three shuffles, with the Aces mixed back in, only when stuck (seed 003)."),
    dict(slug="blue-moon-classic", name="Blue Moon Classic", base="blue-moon",
         options={"redeal-when": "stuck"},
         summary="Blue Moon with its two redeals offered only when no move remains "
                 "(seed 000)."),
)


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    for preset in PRESETS:
        registry.add_preset(**preset)
