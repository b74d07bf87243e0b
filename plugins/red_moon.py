"""Red Moon (PySolFC 117): Blue Moon's grid with the Aces dealt first and column 1 empty."""

from __future__ import annotations

from gapgrid import RedMoonRules, Registry, hookimpl


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="red-moon", name="Red Moon", base="blue-moon", rules=RedMoonRules(),
        pysolfc_id=117,
        summary="Blue Moon, but the Aces are dealt to the first column (Clubs, Spades, "
                "Hearts, Diamonds), the second column starts empty and the other 48 cards "
                "fill the rest. Two redeals.")
