"""Replaying and verifying a sequence of moves from a deal.

The result is either the final state, or the first action that is illegal
with its index and a reason a person understands. A score is always
computed from such a replay, never taken from a client.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from gapgrid.core import runs
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import Engine, GameState
from gapgrid.core.notation import Action, Redeal
from gapgrid.core.rules import Rules


@attrs.frozen
class IllegalAction:
    """The first action a replay refused."""

    index: int
    """Position of the action in the sequence, from 0."""

    move: str
    """The action in notation."""

    kind: str
    """A stable code: see :class:`core.game.Refusal`."""

    reason: str
    """Why, for a person: ``"slot 12 is not a gap: it holds 7H"``."""


@attrs.frozen
class ReplayResult:
    """What replaying a sequence gave."""

    state: GameState
    """The final state, or the state in which the illegal action was tried."""

    applied: int
    """How many actions were applied before the replay stopped."""

    error: IllegalAction | None
    """The first refused action, or None when every action was legal."""

    moves_made: int
    """Card moves applied, including ones later undone."""

    undos: int
    """Undos applied."""

    redeals_asked: int = 0
    """Redeals applied, including ones later undone: what a cap on the redeals one game
    may ask for counts."""

    start_cards_in_sequence: int = 0
    """Cards in runs in the position the replay started from, so that a score can tell
    whether the game made progress."""

    @property
    def ok(self) -> bool:
        """Tell whether every action was legal."""
        return self.error is None

    @property
    def won(self) -> bool:
        """Tell whether the final state is won."""
        return self.state.is_won


def replay(rules: Rules, deal: DealNumber, actions: Sequence[Action]) -> ReplayResult:
    """Deal ``deal`` and apply ``actions`` until the end or the first illegal one."""
    return _run(Engine.start(rules, deal), actions)


def replay_from(state: GameState, actions: Sequence[Action]) -> ReplayResult:
    """Apply ``actions`` from ``state`` until the end or the first illegal one."""
    return _run(Engine.from_state(state), actions)


def redeals_in(actions: Sequence[Action]) -> int:
    """How many of ``actions`` are redeals."""
    return sum(1 for action in actions if isinstance(action, Redeal))


def _run(engine: Engine, actions: Sequence[Action]) -> ReplayResult:
    start_in_sequence = runs.cards_in_sequence(engine.rules.layout, engine.cells)
    error = None
    applied = 0
    apply = engine.apply
    for action in actions:
        refusal = apply(action)
        if refusal is not None:
            error = IllegalAction(applied, str(action), refusal.kind, refusal.reason)
            break
        applied += 1
    return ReplayResult(state=engine.snapshot(), applied=applied, error=error,
                        moves_made=engine.moves_made, undos=engine.undos,
                        redeals_asked=redeals_in(actions[:applied]),
                        start_cards_in_sequence=start_in_sequence)
