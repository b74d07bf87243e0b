"""Trying a third party's fill rule at load: its two answers must agree.

A fill rule answers one question twice: :meth:`~core.rules.FillRule.accepts`
says whether a card may fill a gap (replay and verification ask it), and
:meth:`~core.rules.FillRule.sources` lists the cards that may (the moves a
player is offered, the hints, the solver's search). Where they disagree,
gapgrid contradicts itself: a solver proves "lost" a game verification then
accepts won, or offers moves replay refuses. gapgrid's own rules are tested
for this; a plugin's are tried when the catalogue loads
(:mod:`core.catalogue`), on the starts of a few deals and the positions of a
seeded random game from each, within :data:`TRIAL_SECONDS`.
"""

from __future__ import annotations

import random
import time
from typing import Final

from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import Engine
from gapgrid.core.rules import RuleError, Rules

TRIAL_DEALS: Final = (1, 2, 3)
"""The game numbers whose play the fill rule is tried on."""

TRIAL_MOVES: Final = 40
"""Moves of the random game from each deal's start (the rule is tried at each position)."""

TRIAL_SECONDS: Final = 0.5
"""How long the trial may take at most, however slow the rule: it is part of every command's
start with the plugin installed. A rule slower than that is tried on fewer positions."""


def try_fill_rule(rules: Rules) -> None:
    """Raise :class:`RuleError` where ``rules``' fill rule lists a source it does not accept,
    or accepts one it does not list, or lists a slot twice, out of slot order, or one that
    holds no card."""
    deadline = time.monotonic() + TRIAL_SECONDS
    picker = random.Random(0)  # the same trial every time
    try:
        for number in TRIAL_DEALS:
            engine = Engine.start(rules, DealNumber(number))
            for _ in range(TRIAL_MOVES):
                _check_position(rules, engine, deadline)
                pairs = engine.legal_pairs() if not engine.won else []
                if not pairs:
                    break
                engine.play(*picker.choice(pairs))
    except _OutOfTime:
        return


class _OutOfTime(Exception):
    """The trial's seconds are spent: what was tried agreed."""


def _check_position(rules: Rules, engine: Engine, deadline: float) -> None:
    """Compare, for every gap of ``engine``'s position, the moves the engine lists (its
    :meth:`~core.game.Engine.legal_pairs`, through the fill rule's ``sources``) with the ones
    it accepts (:meth:`~core.game.Engine.allows`, through ``accepts``, as replay does)."""
    if engine.won:
        return
    cells = engine.cells
    listed_by_gap: dict[int, list[int]] = {}
    for source, target in engine.legal_pairs():
        listed_by_gap.setdefault(target, []).append(source)
    cards = [slot for slot, card in enumerate(cells) if card is not None]
    for target in sorted(engine.gaps):
        if time.monotonic() > deadline:  # a gap at a time: a slow rule's trial stops soon
            raise _OutOfTime
        listed = listed_by_gap.get(target, [])
        if not all(_holds_card(cells, slot) for slot in listed):
            raise RuleError(f"its fill rule's sources() for gap {target} name slots that hold "
                            f"no card: {_few(listed)}")
        if listed != sorted(set(listed)):
            raise RuleError(f"its fill rule's sources() for gap {target} are not in slot "
                            f"order, each once: {_few(listed)}")
        accepted = [source for source in cards if engine.allows(source, target)]
        if accepted != listed:
            raise RuleError(f"its fill rule disagrees with itself at gap {target} of a game "
                            f"of deal 1 to 3: sources() lists {_few(listed)}, accepts() takes "
                            f"{_few(accepted)}")


def _holds_card(cells: list[int | None], slot: object) -> bool:
    """Whether ``slot`` is a slot of the board that holds a card."""
    return (isinstance(slot, int) and not isinstance(slot, bool) and 0 <= slot < len(cells)
            and cells[slot] is not None)


def _few(slots: list[int]) -> str:
    """Slots for a message: the first few."""
    shown = ", ".join(repr(slot) for slot in slots[:8])
    return f"[{shown}{', ...' if len(slots) > 8 else ''}]"
