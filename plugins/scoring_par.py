"""The ``par`` scheme, for daily rankings: the fair leaderboard.

Games fall into three classes, each ranked above the next:

1. **won**: fewer actions first (card moves and redeals both count, so a win
   by redeals alone is no shortcut), then less time;
2. **not won, with progress** (more cards in runs than the deal had): more
   cards in sequence first, then fewer card moves, then less time;
3. **no progress** (an empty game included): fewer card moves, then less time.

Within a class, a game played without hints ranks above any played with
them (``assisted``), so hints never buy a better place. A known time ranks
before an unknown one. The total is the number of actions (lower is better).
"""

from __future__ import annotations

import math

from gapgrid import GameSummary, Registry, Score, hookimpl

WON, PROGRESS, NO_PROGRESS = 0, 1, 2
"""The classes, best first: the sort key's first part."""


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


class ParScheme:
    """Ranking for puzzles: won first by fewest actions, then progress, then nothing."""

    def score(self, summary: GameSummary) -> Score:
        known_time = summary.elapsed is not None
        milliseconds = math.ceil(summary.elapsed * 1000) if summary.elapsed is not None else 0
        time_key = (0 if known_time else 1, milliseconds)
        assisted = int(summary.assisted)
        if summary.won:
            outcome = WON
            key: tuple[int, ...] = (WON, assisted, summary.actions, *time_key)
            said = f"won with {_plural(summary.actions, 'action')}"
        elif summary.progress:
            outcome = PROGRESS
            key = (PROGRESS, assisted, -summary.cards_in_sequence, summary.moves, *time_key)
            said = (f"not won: {_plural(summary.cards_in_sequence, 'card')} in sequence with "
                    f"{_plural(summary.moves, 'move')}")
        else:
            outcome = NO_PROGRESS
            key = (NO_PROGRESS, assisted, summary.moves, *time_key)
            said = f"no progress ({_plural(summary.moves, 'move')})"
        timing = f"in {summary.elapsed:.1f} s" if summary.elapsed is not None else "time unknown"
        hints = ", with hints" if summary.assisted else ""
        return Score(
            total=summary.actions,
            breakdown={"won": int(summary.won), "actions": summary.actions,
                       "moves": summary.moves, "cards_in_sequence": summary.cards_in_sequence,
                       "progress": int(summary.progress), "assisted": assisted,
                       "milliseconds": milliseconds},
            better="lower",
            sort_key=key,
            explanation=f"{said}, {timing}{hints}",
            extra={"time_scored": known_time, "class": ("won", "progress",
                                                        "no progress")[outcome]})


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_scoring(
        name="par", scheme=ParScheme(),
        summary="For daily rankings: won games first by fewer actions (moves and redeals), "
                "then less time; then games with progress by more cards in sequence, then "
                "fewer moves; games without progress last; hints rank after no hints.")
