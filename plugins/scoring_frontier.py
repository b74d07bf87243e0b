"""The ``frontier`` scoring scheme: seed 001's Frontier Ledger, with its badges.

+100 per card in sequence, +1,000 per finished row, +500 per unused redeal,
+10 per second of time bonus, -5 per card moved. The time bonus is the
whole seconds left of a 10-minute allowance (3 minutes in the timed mode),
counted only for a won game whose elapsed time is known.
Badges: bronze (at least 2 finished rows when the game ends), silver (won
after using every redeal), gold (won with a redeal to spare).
"""

from __future__ import annotations

from gapgrid import GameSummary, Registry, Score, hookimpl, points

PER_CARD = 100
PER_FINISHED_ROW = 1_000
PER_UNUSED_REDEAL = 500
PER_SECOND_LEFT = 10
PER_MOVE = -5
ALLOWANCE_SECONDS = 600
TIMED_ALLOWANCE_SECONDS = 180
BRONZE_ROWS = 2


def badges(summary: GameSummary) -> list[str]:
    """The Frontier badges a game earns."""
    earned = []
    if summary.finished_rows >= BRONZE_ROWS:
        earned.append("bronze")
    if summary.won and not summary.redeals_to_spare:
        earned.append("silver")
    if summary.won and summary.redeals_to_spare:
        earned.append("gold")
    return earned


class FrontierScheme:
    """Seed 001's Frontier Ledger."""

    def score(self, summary: GameSummary) -> Score:
        allowance = TIMED_ALLOWANCE_SECONDS if summary.timed else ALLOWANCE_SECONDS
        seconds_left = summary.seconds_left(allowance) if summary.won else None
        breakdown = {
            "cards_in_sequence": PER_CARD * summary.cards_in_sequence,
            "finished_rows": PER_FINISHED_ROW * summary.finished_rows,
            "unused_redeals": PER_UNUSED_REDEAL * summary.unused_redeals,
            "time_bonus": PER_SECOND_LEFT * (seconds_left or 0),
            "moves": PER_MOVE * summary.moves,
        }
        if seconds_left is None:
            timing = ("time not scored: the game is not won" if not summary.won
                      else "time not scored: the elapsed time is unknown")
        else:
            timing = f"{seconds_left} s left of {allowance} s"
        return points(breakdown,
                      f"{_count(summary.cards_in_sequence, 'card')} in sequence, "
                      f"{_count(summary.finished_rows, 'row')} finished, "
                      f"{_count(summary.unused_redeals, 'redeal')} unused, "
                      f"{_count(summary.moves, 'move')}; {timing}",
                      extra={"badges": badges(summary), "time_scored": seconds_left is not None,
                             "allowance_seconds": allowance})


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_scoring(
        name="frontier", scheme=FrontierScheme(),
        summary="+100 per card in sequence, +1,000 per finished row, +500 per unused redeal, "
                "+10 per second left, -5 per move; badges.")


def _count(number: int, word: str) -> str:
    return f"{number} {word}" if number == 1 else f"{number} {word}s"
