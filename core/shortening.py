"""Shorter winning lines from a winning line: the actions it plays for nothing, cut out.

The solver's searches find wins, not short ones: a depth-first search
wanders, and a nested rollout (:mod:`core.rollouts`) plays random moves
around the ones that matter, so a card may be moved away and back, or a
gap shuttled along a row, dozens of times. A player following a hint
would play those moves too. Two cuts, both cheap and deterministic (the
same line always gives the same result), and both keeping a line a win:

* :func:`without_detours`: every stretch between two visits of one
  position is cut out.
* :func:`without_idle_actions`: greedy action elimination (Nakhost and
  Müller, "Action Elimination and Plan Neighborhood Graph Search: Two
  Algorithms for Plan Improvement", ICAPS 2010): one action at a time,
  the line is replayed without it, skipping each later action the rules
  now refuse; if the game is still won, the shorter line is kept. Moving
  a card away and back, for instance, goes in one step: without the first
  move, the second is refused (its card never left). On a long line,
  stretches of :data:`WINDOWS` actions are left out whole first, once
  each: a wandering line has long idle stretches, and one replay then
  cuts a whole stretch, where one action at a time reached the work cap
  with most of them left.

A line to cut is card moves and redeals that win from the position, as
the solver gives them; anything else (an ``undo``, a refused action, a
line that does not win) is a ValueError. Each cut is checked by the
engine as it is made, so the line that comes out wins too; the solver
replays it once more before answering.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Final

from gapgrid.core.game import Engine, GameState
from gapgrid.core.notation import Action, Move, Redeal

IDLE_CUT_WORK: Final = 400_000
"""The most work :func:`without_idle_actions` (and :func:`tightened`, both cuts together) does
for one line, so that its cost is
bounded whatever the line's length (at most 0.4 s on the machine of ``bench/README.md``):
it is quadratic in the length, and the longest lines (Rectangular Rovers', over a thousand
actions) would take seconds. Past it, the rest of the line is left as it is (the replay
under way when the cap is reached still ends: at most one line's length more)."""

WINDOWS: Final = (64, 16, 4)
"""Before actions are left out one at a time, stretches of this many are, once each (a long
wandering line has long idle stretches: one replay cuts a whole stretch)."""

WINDOWS_PER_LINE: Final = 8
"""A window is tried only on a line at least this many windows long."""

LOOK_WORK: Final = 1
"""The work of looking at a card move the rules refuse, the unit."""

PLAYED_WORK: Final = 5
"""The work of playing a card move and taking it back (measured: about five refused
moves are looked at in the same time)."""

REDEAL_WORK: Final = 60
"""The work of trying a redeal, played or refused: the rules look for a legal move or
shuffle the board (measured: 10 to 20 microseconds, against about 0.3 for a refused
card move)."""


def tightened(state: GameState, line: Sequence[Action]) -> tuple[Action, ...]:
    """``line`` (a win from ``state``) without its detours and its idle actions.

    The two cuts take turns until neither shortens the line (or the idle cut's work cap
    is reached): cutting idle actions can leave a detour behind, the actions that stood
    between two visits of one position gone, the cycle itself kept (a Line Up line kept
    ``0-18 6-0 18-6`` twice over, each action needed by the next; 69 actions, 57 once
    the detour went).
    """
    # without_detours has checked the line; what it returns is a win by construction.
    kept = without_detours(state, line)
    work = 0
    while work < IDLE_CUT_WORK:
        length = len(kept)
        cut, work = _cut_idle_actions(state, list(kept), IDLE_CUT_WORK, work)
        if len(cut) == length:  # nothing went, so no new detour either
            return cut
        work += PLAYED_WORK * len(cut)  # the detour cut replays the line once more
        kept = without_detours(state, cut)
        if len(kept) == len(cut):  # no detour was left: the idle cut has just seen it all
            return kept
    return kept


def without_detours(state: GameState, line: Sequence[Action]) -> tuple[Action, ...]:
    """``line`` with every stretch between two visits of one position cut out.

    Raises ValueError unless ``line`` is card moves and redeals that win from ``state``.
    """
    line = _check_winning(state, line)  # up to its first win
    engine = Engine.from_state(state)
    kept: list[Action] = []
    where: dict[tuple[bytes, int, Hashable], int] = {}
    key = (engine.key(), engine.redeals_used, engine.rng_state)
    where[key] = 0
    for action in line:
        engine.apply(action)  # accepted: checked above
        kept.append(action)
        key = (engine.key(), engine.redeals_used, engine.rng_state)
        earlier = where.get(key)
        if earlier is not None:
            del kept[earlier:]
            where = {known: at for known, at in where.items() if at <= earlier}
        else:
            where[key] = len(kept)
    return tuple(kept)


def without_idle_actions(state: GameState, line: Sequence[Action],
                         max_work: int = IDLE_CUT_WORK) -> tuple[Action, ...]:
    """``line`` (a win from ``state``) without the actions the win does not need.

    Greedy passes from the first action to the last: the line is replayed
    from just before action ``i`` without it, each later action the rules
    refuse being skipped too; when the game is still won at the end, that
    shorter line replaces the rest, and action ``i`` of it is tried next.
    Otherwise action ``i`` stays. The passes go on until one cuts nothing
    (a cut late in the line can make an earlier action idle), so that no
    single action of the result can go, unless ``max_work``
    (:data:`IDLE_CUT_WORK`) stops them first: every line kept is a win, so
    the result is one anyway. Raises ValueError unless ``line`` is card
    moves and redeals that win from ``state``.
    """
    return _cut_idle_actions(state, list(_check_winning(state, line)), max_work)[0]


def _cut_idle_actions(state: GameState, kept: list[Action], max_work: int, work: int = 0
                      ) -> tuple[tuple[Action, ...], int]:
    """:func:`without_idle_actions` on ``kept``, a line already known to win, with ``work``
    done already; returns the line and the running work total."""
    for width in WINDOWS:
        if len(kept) >= width * WINDOWS_PER_LINE and work < max_work:
            work = _one_pass(Engine.from_state(state), kept, work, max_work, width)
    while work < max_work:
        length = len(kept)
        work = _one_pass(Engine.from_state(state), kept, work, max_work)
        if len(kept) == length:
            break
    return tuple(kept), work


def _check_winning(state: GameState, line: Sequence[Action]) -> Sequence[Action]:
    """``line`` up to its first win; ValueError unless it is moves and redeals that win."""
    engine = Engine.from_state(state)
    for played, action in enumerate(line):
        if not isinstance(action, Move | Redeal):
            raise ValueError(f"a line to cut holds card moves and redeals, not {action}")
        refusal = engine.apply(action)
        if refusal is not None:
            raise ValueError(f"{action} is refused: {refusal.reason}")
        if engine.won:
            return line[:played + 1]
    if not engine.won:
        raise ValueError("the line does not win")
    return line  # the start itself is won: empty


def _one_pass(engine: Engine, kept: list[Action], work: int, max_work: int,
              width: int = 1) -> int:
    """One pass of :func:`without_idle_actions`: ``kept`` (a winning line from the
    position ``engine`` stands at) is cut in place, ``width`` actions at a time; returns
    the running work total."""
    index = 0
    while index < len(kept) and work < max_work:
        replayed: list[Action] = []
        for action in kept[index + width:]:
            if type(action) is Move:
                work += LOOK_WORK
                if not engine.allows(action.source, action.target):
                    continue  # most are refused, and a refusal's reason is costly
            else:
                work += REDEAL_WORK
            if engine.apply(action) is None:
                replayed.append(action)
                if engine.won:
                    break
        won = engine.won
        work += PLAYED_WORK * len(replayed)
        for _ in replayed:  # back to just before action ``index``
            refusal = engine.undo()
            assert refusal is None, "an action just played is taken back"
        if won:
            kept[index:] = replayed
            continue
        for action in kept[index:index + width]:
            refusal = engine.apply(action)
            assert refusal is None, "every line kept is a win from the start"
            work += PLAYED_WORK
        index += width
    return work
