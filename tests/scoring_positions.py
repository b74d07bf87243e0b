"""A Montana position one move from the win, for scoring tests worked out on paper.

Rows 1, 2 and 4 are finished (12 cards each); row 3 runs 2H to QH (11 cards),
then a gap, then KH. ``38-37`` wins. A redeal here changes nothing visible:
row 3 gathers only slots 37 and 38 and deals KH back to slot 38.
"""

from __future__ import annotations

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.notation import parse_actions
from gapgrid.core.replay import ReplayResult, replay_from
from gapgrid.core.scoring import GameSummary
from tests.boards import position

ONE_MOVE_FROM_WON = """
2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC ..
2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS ..
2H 3H 4H 5H 6H 7H 8H 9H TH JH QH .. KH
2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD ..
"""


def play(catalogue: Catalogue, moves: str, variant: str = "montana",
         options: dict[str, str] | None = None) -> ReplayResult:
    """Replay ``moves`` (space-separated) from the position; they must all be legal."""
    rules = catalogue.rules(variant, options)
    result = replay_from(position(rules, ONE_MOVE_FROM_WON), parse_actions(moves.split()))
    assert result.ok, result.error
    return result


def summary(catalogue: Catalogue, moves: str, elapsed: float | None = None,
            timed: bool = False, variant: str = "montana",
            options: dict[str, str] | None = None) -> GameSummary:
    """The scoring summary of ``moves`` played from the position."""
    return GameSummary.from_replay(play(catalogue, moves, variant, options), elapsed=elapsed,
                                   timed=timed)
