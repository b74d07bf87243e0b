"""The small layouts the solver's reductions are checked on, and a plain search to check against.

:data:`SMALL` is 4 rows of 4, rows Ace to 3 in one suit, the 4s set aside as the gaps: a
third-party-style layout whose whole reachable space is small enough to
exhaust, so a plain search's answer is exact.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import attrs

from gapgrid import plugins
from gapgrid.core.baseline import AllRowsFinished
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.fills import MontanaFill
from gapgrid.core.game import Engine, GameState
from gapgrid.core.layout import Layout
from gapgrid.core.rules import Rules

SMALL: Final = Layout(rows=4, rstep=4, rbase=0, ranks=range(4))


def small_layout(columns: int) -> Layout:
    """4 rows of ``columns``: rows Ace up in one suit, the next rank set aside as the gaps."""
    return Layout(rows=4, rstep=columns, rbase=0, ranks=range(columns))


def small_rules(layout: Layout = SMALL) -> Rules:
    """Montana's rules on a small layout, no redeal."""
    montana = plugins.load_catalogue(entry_points=False, disabled=()).rules(
        "montana", {"redeals": "0"})
    return attrs.evolve(montana, slug="small", layout=layout, fill=MontanaFill(layout),
                        won=AllRowsFinished(layout))


def deal(rules: Rules, number: int) -> GameState:
    """The start of PySolFC game ``number`` under ``rules``."""
    return Engine.start(rules, DealNumber(number)).snapshot()


def reference_verdict(state: GameState,
                      allowed: Callable[[tuple[int, int]], bool] = lambda move: True) -> bool:
    """Whether ``state`` can be won: a plain depth-first search over every legal move.

    Every ``allowed`` move, that is: a check can leave some moves out to
    show that a reduction needs what it keeps.
    """
    engine = Engine.from_state(state)
    seen = {engine.key()}
    pending = [[move for move in engine.legal_pairs() if allowed(move)]]
    path: list[tuple[int, int]] = []
    while pending:
        if engine.won:
            return True
        if not pending[-1]:
            pending.pop()
            if path:
                engine.unplay(*path.pop())
            continue
        move = pending[-1].pop()
        engine.play(*move)
        if engine.key() in seen:
            engine.unplay(*move)
            continue
        seen.add(engine.key())
        path.append(move)
        pending.append([] if engine.won else
                       [move for move in engine.legal_pairs() if allowed(move)])
    return False
