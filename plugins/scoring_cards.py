"""The ``cards`` scoring scheme (seed 003): a point per card in sequence, bonus per shuffle left.

1 point per card in sequence (48 at most in Montana), +10 per unused redeal
(unlimited redeals earn nothing), -2 per undo.
"""

from __future__ import annotations

from gapgrid import GameSummary, Registry, Score, hookimpl, points

PER_CARD = 1
PER_UNUSED_REDEAL = 10
PER_UNDO = -2


class CardsScheme:
    """Seed 003's score."""

    def score(self, summary: GameSummary) -> Score:
        breakdown = {
            "cards_in_sequence": PER_CARD * summary.cards_in_sequence,
            "unused_redeals": PER_UNUSED_REDEAL * summary.unused_redeals,
            "undos": PER_UNDO * summary.undos,
        }
        return points(breakdown, f"{_count(summary.cards_in_sequence, 'card')} in sequence, "
                                 f"{_count(summary.unused_redeals, 'redeal')} unused, "
                                 f"{_count(summary.undos, 'undo')}")


def _count(number: int, word: str) -> str:
    return f"{number} {word}" if number == 1 else f"{number} {word}s"


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_scoring(
        name="cards", scheme=CardsScheme(),
        summary="1 point per card in sequence, +10 per unused redeal, -2 per undo.")
