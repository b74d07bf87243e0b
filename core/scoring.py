"""Scores: what a scheme is given, and what it gives back.

A score is always computed from a replay (:class:`GameSummary.from_replay`),
never from figures a client sends. The summary's terms are defined once
here, from :mod:`core.runs` (the same runs that decide redeals and the
win), so every scheme counts alike. Schemes are plugins registered with
``registry.add_scoring``; the built-in ones are in ``plugins/scoring_*.py``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Final, Literal, Protocol

import attrs

from gapgrid.core import runs
from gapgrid.core.replay import ReplayResult
from gapgrid.core.rules import UNLIMITED

SUMMARY_FIELDS: Final = ("cards_in_sequence", "finished_rows", "redeals_used", "undos", "moves")
"""The summary terms the JSON ``scores`` object carries beside the schemes."""


@attrs.frozen
class GameSummary:
    """The facts of a replayed game that scores are computed from."""

    won: bool
    """Whether the final position is won."""

    cards_in_sequence: int
    """Cards standing in runs at the end (the seeds' "ordered sequence counter")."""

    finished_rows: int
    """Rows whose run is complete at the end."""

    rows: int
    """Rows on the board."""

    redeals_allowed: int
    """Redeals the rules allow, or :data:`core.rules.UNLIMITED`."""

    redeals_used: int
    """Redeals in effect at the end (an undone redeal is not used)."""

    undos: int
    """Undos played."""

    moves: int
    """Cards moved, including moves later taken back; redeals and undos are not moves."""

    elapsed: float | None = None
    """Seconds the game took, when known."""

    timed: bool = False
    """Whether the game was played in the timed mode (a 3-minute allowance)."""

    start_cards_in_sequence: int = 0
    """Cards in runs when the game started (the deal's), to tell progress from none."""

    assisted: bool = False
    """Whether the player asked for hints (a daily puzzle's start token records them)."""

    @classmethod
    def from_replay(cls, result: ReplayResult, elapsed: float | None = None,
                    timed: bool = False, assisted: bool = False) -> GameSummary:
        """Summarise a replay (it should be ``ok``: scores of a refused game mean nothing)."""
        state = result.state
        layout, cells = state.rules.layout, state.board.cells
        return cls(won=result.won, cards_in_sequence=runs.cards_in_sequence(layout, cells),
                   finished_rows=runs.finished_rows(layout, cells), rows=layout.rows,
                   redeals_allowed=state.rules.redeals, redeals_used=state.redeals_used,
                   undos=result.undos, moves=result.moves_made, elapsed=elapsed, timed=timed,
                   start_cards_in_sequence=result.start_cards_in_sequence, assisted=assisted)

    @property
    def actions(self) -> int:
        """Card moves and redeals: what a winning line is measured in (par)."""
        return self.moves + self.redeals_used

    @property
    def progress(self) -> bool:
        """Whether the game got anywhere: won, or more cards in runs than at the start."""
        return self.won or self.cards_in_sequence > self.start_cards_in_sequence

    @property
    def unused_redeals(self) -> int:
        """Redeals left unused; 0 when redeals are unlimited (there is no count to reward)."""
        if self.redeals_allowed == UNLIMITED:
            return 0
        return max(self.redeals_allowed - self.redeals_used, 0)

    @property
    def redeals_to_spare(self) -> bool:
        """Whether at least one more redeal was allowed (always, when unlimited)."""
        return self.redeals_allowed == UNLIMITED or self.redeals_used < self.redeals_allowed

    def seconds_left(self, allowance: float) -> int | None:
        """Whole seconds left of ``allowance`` (0 at most), or None when the time is unknown."""
        if self.elapsed is None:
            return None
        return max(math.floor(allowance - self.elapsed), 0)

    def terms(self) -> dict[str, int]:
        """The summary terms the JSON ``scores`` object carries."""
        return {name: getattr(self, name) for name in SUMMARY_FIELDS}


@attrs.frozen
class Score:
    """One scheme's verdict on a game."""

    total: int
    """The score."""

    breakdown: Mapping[str, int]
    """Points (or counts) per term; for point schemes they add up to ``total``."""

    better: Literal["higher", "lower"]
    """Which way ``total`` improves."""

    sort_key: tuple[int, ...]
    """Sorts games best first, ascending: ties broken as the scheme says."""

    explanation: str
    """The score in a sentence."""

    extra: Mapping[str, object] = attrs.Factory(dict)
    """Scheme-specific facts (badges, whether time was scored, ...)."""


class ScoringScheme(Protocol):
    """What ``registry.add_scoring`` expects: an object that scores a game summary."""

    def score(self, summary: GameSummary) -> Score:
        """Return the score of the game ``summary`` describes."""
        ...


def points(breakdown: Mapping[str, int], explanation: str,
           extra: Mapping[str, object] | None = None) -> Score:
    """Build a points score: the total is the sum of the breakdown, higher is better."""
    total = sum(breakdown.values())
    return Score(total=total, breakdown=dict(breakdown), better="higher", sort_key=(-total,),
                 explanation=explanation, extra=dict(extra or {}))
