"""How hard a certified puzzle is: a label (easy, medium, hard, expert) and a number.

The method (``docs/difficulty.md`` gives the reasons and the calibration figures):

1. **A simple player's playouts.** :data:`PLAYOUTS` games from the deal by a
   greedy-random player: it plays a card move that extends a row's run when
   there is one, otherwise any move that does not take a card out of a run,
   otherwise any move, choosing at random among equals; it redeals only when
   no card can move, and stops when nothing is left (or after
   :data:`MAX_PLAYOUT_ACTIONS`). Each game scores the share of the run slots
   filled at its end (1 for a win). The generator is seeded from the variant
   and the game number, so a deal always gets the same figures.
2. **The solver's effort**: the positions the solver explored before it found
   the certified win, on a log scale: ``min(1, log10(1 + positions) / 6)``.
3. **The raw difficulty** is the mean of the two: ``0.5 * (1 - mean share) +
   0.5 * effort``, from 0 (trivial) to 1.
4. **Calibration**: ``python -m gapgrid.api.calibrate_difficulty`` certifies
   at least 200 deals per variant and preset the way puzzles are certified
   and keeps the quantiles of their raw difficulties
   (:mod:`gapgrid.api.services.difficulty_table`). A puzzle's ``value`` is
   its percentile among its variant's calibration deals (0 to 100), and the
   label is the quarter it falls in: below 25 easy, below 50 medium, below 75
   hard, else expert, so the labels split the calibration deals evenly. A
   variant without calibration (a third-party one) is rated against the
   deals of every calibrated variant together.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import random
from collections.abc import Mapping, Sequence
from typing import Any, Final

import attrs

from gapgrid.core.cards import RANKS_PER_SUIT
from gapgrid.core.game import Engine, GameState
from gapgrid.core.rules import Rules
from gapgrid.core.runs import cards_in_sequence, run_length

METHOD_VERSION: Final = "1"
"""Changes whenever a rating could change for the same deal and solver figures."""

PLAYOUTS: Final = 32
"""Games the simple player plays from each deal."""

MAX_PLAYOUT_ACTIONS: Final = 1000
"""A playout stops after this many actions (moves can go round in circles)."""

EFFORT_DECADES: Final = 6.0
"""A million positions or more is the most effort the scale tells apart."""

LABELS: Final = ("easy", "medium", "hard", "expert")
"""The labels, easiest first; each covers a quarter of the percentile scale."""


@attrs.frozen
class Playouts:
    """What the simple player achieved from one deal."""

    games: int
    wins: int
    mean_share: float
    """Mean share of the run slots filled at the end of a game (a win fills all)."""


def playout_seed(rules: Rules, deal: str) -> int:
    """The playouts' seed for game ``deal`` under ``rules``: the same deal, the same games."""
    text = f"gapgrid-difficulty|{rules.slug}|{sorted(rules.options.items())}|{deal}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def play_out(state: GameState, generator: random.Random) -> float:
    """One greedy-random game from ``state``; the share of run slots filled at its end."""
    rules = state.rules
    layout = rules.layout
    sequence = layout.sequence_ranks
    rstep = layout.rstep
    total = layout.rows * len(sequence)
    engine = Engine.from_state(state)
    cells = engine.cells
    runs = [run_length(layout, cells, row) for row in range(layout.rows)]
    for _ in range(MAX_PLAYOUT_ACTIONS):
        if engine.won:
            return 1.0
        pairs = engine.legal_pairs()
        if not pairs:
            if engine.redeal_refusal() is not None:
                break
            engine.redeal()
            cells = engine.cells
            runs = [run_length(layout, cells, row) for row in range(layout.rows)]
            continue
        extending, keeping = [], []
        for source, target in pairs:
            row, column = divmod(target, rstep)
            card = cells[source]
            assert card is not None
            if runs[row] == column and column < len(sequence) and (
                    card == cells[target - column] - sequence[0] + sequence[column]  # type: ignore[operator]
                    if column else card % RANKS_PER_SUIT == sequence[0]):
                extending.append((source, target))
            elif source % rstep >= runs[source // rstep]:
                keeping.append((source, target))
        source, target = generator.choice(extending or keeping or pairs)
        engine.play(source, target)
        for row in {source // rstep, target // rstep}:
            runs[row] = run_length(layout, cells, row)
    return cards_in_sequence(layout, cells) / total


def playouts(state: GameState, seed: int, games: int = PLAYOUTS) -> Playouts:
    """``games`` greedy-random games from ``state`` with a generator seeded by ``seed``."""
    generator = random.Random(seed)
    shares = [play_out(state, generator) for _ in range(games)]
    return Playouts(games=games, wins=sum(1 for share in shares if share == 1.0),
                    mean_share=sum(shares) / games)


def effort(positions: int) -> float:
    """The solver's effort on a 0-1 scale: decades of positions, up to a million."""
    return min(1.0, math.log10(1 + max(positions, 0)) / EFFORT_DECADES)


def raw_difficulty(played: Playouts, positions: int) -> float:
    """The raw difficulty, 0 to 1: the simple player's shortfall and the solver's effort,
    weighted alike."""
    return 0.5 * (1.0 - played.mean_share) + 0.5 * effort(positions)


def percentile(quantiles: Sequence[float], raw: float) -> float:
    """Where ``raw`` lies among calibration deals whose quantiles at 0, 5, ..., 100 % are
    ``quantiles``: 0 to 100, interpolated linearly between them."""
    if raw <= quantiles[0]:
        return 0.0
    if raw >= quantiles[-1]:
        return 100.0
    step = 100.0 / (len(quantiles) - 1)
    index = bisect.bisect_right(quantiles, raw) - 1
    low, high = quantiles[index], quantiles[index + 1]
    fraction = 0.0 if high == low else (raw - low) / (high - low)
    return (index + fraction) * step


def label_of(value: float) -> str:
    """The label of a percentile: the quarter it falls in."""
    return LABELS[min(int(value // 25), len(LABELS) - 1)]


def quantiles_of(values: Sequence[float], steps: int = 20) -> list[float]:
    """The quantiles at 0, 100/steps, ..., 100 % of ``values`` (linear interpolation)."""
    ordered = sorted(values)
    found = []
    for step in range(steps + 1):
        place = step / steps * (len(ordered) - 1)
        below = math.floor(place)
        above = min(below + 1, len(ordered) - 1)
        found.append(ordered[below] + (ordered[above] - ordered[below]) * (place - below))
    return found


def rate(slug: str, deal: str, state: GameState, positions: int,
         calibration: Mapping[str, Any]) -> dict[str, Any]:
    """The difficulty document of a certified deal of ``slug`` at its own rules:
    ``{"label", "value", "raw", "playouts", "solver_positions", "calibration", "method"}``.

    ``calibration`` is the table :mod:`gapgrid.api.services.difficulty_table`
    holds; the variant's own quantiles are used when it has them, the pooled
    ones otherwise (``label`` and ``value`` are null when there are none).
    """
    played = playouts(state, playout_seed(state.rules, deal))
    raw = raw_difficulty(played, positions)
    key = slug
    variants = calibration.get("variants", {})
    own = variants.get(key)
    table = own if own is not None else calibration.get("pooled")
    if not table:
        value = None
        label = None
    else:
        value = round(percentile(table["quantiles"], raw), 1)
        label = label_of(value)
    return {"label": label, "value": value, "raw": round(raw, 4),
            "playouts": {"games": played.games, "wins": played.wins,
                         "mean_share": round(played.mean_share, 4)},
            "solver_positions": positions,
            "calibration": key if own is not None else ("pooled" if table else None),
            "method": METHOD_VERSION}

