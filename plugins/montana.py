"""Montana (PySolFC 53), also Gaps and Vacancies: the baseline rules, unchanged."""

from __future__ import annotations

from gapgrid import Registry, hookimpl


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_variant(
        slug="montana", name="Montana", other_names=("Gaps", "Vacancies"), pysolfc_id=53,
        summary="52 cards in 4 rows of 13, Aces removed. Fill a gap with the card one rank "
                "higher, same suit, than its left neighbour; a gap in the first column takes "
                "any 2. Build each row 2 to King in one suit. Two redeals, at any time: runs "
                "from a 2 stay, the rest is shuffled back with one gap after each run.")
