"""Experiment: limited discrepancy search along the solver's heuristic order (run by hand).

Not part of the solver. It measures whether trusting the first restart's
move order (``core/reductions.py``'s heuristic ordering, with head macros,
Freezes and Commits as the depth-first restarts play them) wins the deals
the solver finds hard. Iteration k explores every line that leaves that
order at most k times; a table maps each position to the most
discrepancies left it was explored with, so a position is explored again
only with more left, across iterations too. Leaving the order costs one
for any move but the first (``--cost plain``), or i for the i-th move from
0 (``--cost weighted``). Only wins are looked for: a won line is replayed
by the engine before it is reported; no loss is ever claimed.

Positions are counted as the restarts count them (each expansion, again
in each iteration), so the figures compare with ``gapgrid solve``'s.
Deals are single-round Gaps (Montana with ``redeals=0``): PySolFC game
numbers, or ``a005`` for the anchor deal ``s12345-005`` of ``data/anchors``.
The twenty-seventh sitting's figures are in docs/solver.md.

Usage: python bench/discrepancy.py [--positions 10000000] [--cost weighted] DEAL ...
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from gapgrid import plugins
from gapgrid.core.board import Board
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.discrepancies import Step
from gapgrid.core.game import Engine, GameState, new_game
from gapgrid.core.open_heads import arrangement_win
from gapgrid.core.reductions import reductions_for
from gapgrid.core.replay import replay_from
from gapgrid.core.rules import Rules
from gapgrid.core.search import Budget, _Search

ANCHORS = Path(__file__).resolve().parents[1] / "data" / "anchors" / "gaps-deals30.jsonl"


class _Won(Exception):
    """The search stands on a won position (or one its open heads can arrange to a win)."""


class _OutOfPositions(Exception):
    """The position cap is reached."""


def deal_state(rules: Rules, name: str) -> GameState:
    """The starting state of ``name``: a PySolFC game number, or ``aNNN`` for an anchor deal."""
    if name.isdigit():
        return new_game(rules, DealNumber(int(name)))
    if not name.startswith("a"):
        raise SystemExit(f"{name!r} is neither a game number nor an anchor (a005)")
    for line in ANCHORS.read_text().splitlines():
        record = json.loads(line)
        if record["id"].endswith("-" + name[1:]):
            deal = DealNumber(1)  # no redeal: the generator is never used
            return GameState(rules=rules, deal=deal,
                             board=Board.from_rows(rules.layout, record["rows"]),
                             redeals_used=0, rng_state=deal.new_random().getstate())
    raise SystemExit(f"no anchor deal {name!r} in {ANCHORS}")


def discrepancy_search(state: GameState, cap: int, weighted: bool) -> str:
    """Iterations of limited discrepancy search from ``state`` until a win or ``cap`` positions;
    a line saying which, and where."""
    engine = Engine.from_state(state)
    search = _Search(engine, Budget(seconds=None, positions=None, memory=1 << 40), None,
                     reductions_for(state.rules))
    explored_with: dict[bytes, int] = {}
    path: list[Step] = []
    positions = 0
    started = time.monotonic()

    def explore(left: int) -> None:
        nonlocal positions
        positions += 1
        if positions >= cap:
            raise _OutOfPositions
        if engine.won:
            raise _Won
        steps = search.steps(0)
        if not steps and search.open_rows and arrangement_win(engine, search.open_rows):
            raise _Won
        for index, step in enumerate(steps):
            cost = index if weighted else min(index, 1)
            if cost > left:
                break  # the steps are in order: the later ones cost more still
            search.do(step)
            key = search.key()
            if explored_with.get(key, -1) >= left - cost:
                search.undo(step)
                continue
            explored_with[key] = left - cost
            path.append(step)
            explore(left - cost)
            path.pop()
            search.undo(step)

    discrepancies = 0
    while True:
        explored_with[search.key()] = discrepancies
        try:
            explore(discrepancies)
        except _Won:
            line = search.line(path)
            replayed = replay_from(state, line)
            if not (replayed.ok and replayed.won):
                raise AssertionError("a won line does not replay to a win") from None
            return (f"won at k = {discrepancies}: {positions:,} positions, "
                    f"{time.monotonic() - started:.1f} s, a line of {len(line)}")
        except _OutOfPositions:
            return (f"no win at {positions:,} positions (k = {discrepancies}), "
                    f"{time.monotonic() - started:.1f} s, {len(explored_with):,} in the table")
        discrepancies += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("deals", nargs="+", help="PySolFC game numbers, or aNNN for an anchor")
    parser.add_argument("--positions", type=int, default=10_000_000)
    parser.add_argument("--cost", choices=["plain", "weighted"], default="weighted")
    args = parser.parse_args()
    sys.setrecursionlimit(100_000)  # one frame per move of a line: some 200 deep
    rules = plugins.load_catalogue(entry_points=False).rules("montana", {"redeals": "0"})
    for name in args.deals:
        verdict = discrepancy_search(deal_state(rules, name), args.positions,
                                     args.cost == "weighted")
        print(f"{name:<6} {args.cost}: {verdict}", flush=True)


if __name__ == "__main__":
    main()
