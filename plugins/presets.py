"""Presets: a base variant plus rule options, as data (the Gaps, Montana and Blue Moon rules
that card-game books and other programs play, under their own names)."""

from __future__ import annotations

from typing import Any

from gapgrid import Registry, hookimpl

PRESETS: tuple[dict[str, Any], ...] = (
    dict(slug="gaps", name="Gaps", base="montana",
         options={"redeals": 2, "redeal-placement": "after-runs", "redeal-when": "stuck"},
         summary="Montana as Gaps is usually played: two redeals, only when no move is "
                 "left; the gaps go after the runs."),
    dict(slug="gaps-no-shuffle", name="Gaps, no shuffling", base="montana",
         options={"redeal-placement": "no-shuffle", "redeal-when": "stuck"},
         summary="Gaps whose redeals deal the gathered cards back unshuffled, in the order "
                 "they were picked up."),
    dict(slug="gaps-aces-in-redeal", name="Gaps, Aces in the redeal", base="montana",
         options={"redeal-placement": "random", "redeal-when": "stuck"},
         summary="Gaps whose redeals shuffle the Aces back in and take them out again, so "
                 "the gaps land at random."),
    dict(slug="gaps-unlimited", name="Gaps, unlimited redeals", base="montana",
         options={"redeals": "unlimited", "redeal-when": "stuck"},
         summary="Gaps with as many redeals as you like."),
    dict(slug="montana-classic", name="Montana Classic", base="montana",
         options={"redeals": 1, "redeal-placement": "random", "redeal-when": "stuck"},
         summary="One shuffle, with the Aces mixed back in, only when stuck."),
    dict(slug="montana-relax", name="Montana Relax", base="montana",
         options={"redeals": 3, "redeal-placement": "random", "redeal-when": "stuck"},
         summary="Three shuffles, with the Aces mixed back in, only when stuck."),
    dict(slug="blue-moon-classic", name="Blue Moon Classic", base="blue-moon",
         options={"redeal-when": "stuck"},
         summary="Blue Moon with its two redeals offered only when no move remains."),
)


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    for preset in PRESETS:
        registry.add_preset(**preset)
