"""The ``par`` scheme, for daily rankings: won first, then fewer moves, then less time.

The total is the number of cards moved (lower is better); the sort key
orders games: won before not won, then fewer moves, then a known time
before an unknown one, then less time.
"""

from __future__ import annotations

import math

from gapgrid import GameSummary, Registry, Score, hookimpl


class ParScheme:
    """Ranking for puzzles: did you win, in how few moves, how fast."""

    def score(self, summary: GameSummary) -> Score:
        known_time = summary.elapsed is not None
        milliseconds = math.ceil(summary.elapsed * 1000) if summary.elapsed is not None else 0
        outcome = "won" if summary.won else "not won"
        timing = f"in {summary.elapsed:.1f} s" if summary.elapsed is not None else "time unknown"
        return Score(
            total=summary.moves,
            breakdown={"won": int(summary.won), "moves": summary.moves,
                       "milliseconds": milliseconds},
            better="lower",
            sort_key=(0 if summary.won else 1, summary.moves, 0 if known_time else 1,
                      milliseconds),
            explanation=f"{outcome} with {summary.moves} moves, {timing}",
            extra={"time_scored": known_time})


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_scoring(
        name="par", scheme=ParScheme(),
        summary="For daily rankings: won first, then fewer moves, then less time.")
