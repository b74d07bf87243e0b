"""Benchmark: how much the solver decides (run by hand; figures go in bench/README.md).

Two measurements, one core each, every won line replayed by the engine:

1. ``anchors``: the 30 single-round Gaps deals of ``data/anchors`` (Montana
   with ``redeals=0``), ``--seconds`` each (10 in the issue), side by side
   with what Solvitaire decided on them at 10 s (``data/anchors/solvitaire-10s.log``,
   measured on this machine kind): decided, won, lost, positions per second.
2. ``variants``: every variant and preset at its own rules, ``--deals``
   PySolFC game numbers each (1, 2, ...), ``--seconds`` each: the share
   decided and the median time to a decision.
3. ``cross-check``: the reductions' soundness on wider small layouts than
   the test suite's (4 rows of ``--columns``, rows Ace up in one suit, the
   next rank set aside as the gaps): for ``--deals`` deals, the verdict of
   a plain search (no reduction) against the depth-first restarts with
   every reduction the rules allow, and against the whole solver; any
   disagreement is printed, with the positions each spent. ``--middle``
   asks from ``--deals`` positions part way into games instead, where a
   head could move between column-0 gaps (the test suite does this on 4
   rows of 4 only: the plain search's cost is heavy-tailed).

``--positions N`` replaces the time budget by a count of positions (each
deal gets at most N positions, whatever the load): the way to compare two
versions of the search on a shared machine. ``--search complete|entries``
measures one of the searches run alone (:data:`gapgrid.core.search.SearchMode`)
on the anchors or the variants.

Usage: python bench/solve.py anchors [--seconds 10] [--positions N] [--search MODE]
       python bench/solve.py variants [--deals 50] [--seconds 10] [--positions N]
                                      [--only SLUG ...] [--search MODE]
       python bench/solve.py cross-check [--columns 5] [--deals 50] [--middle]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

import attrs

from gapgrid import plugins
from gapgrid.core.baseline import AllRowsFinished
from gapgrid.core.board import Board
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.fills import MontanaFill
from gapgrid.core.game import Engine, GameState, new_game
from gapgrid.core.head_macros import head_macros
from gapgrid.core.layout import Layout
from gapgrid.core.reductions import NONE, reductions_for
from gapgrid.core.replay import replay_from
from gapgrid.core.rules import Rules
from gapgrid.core.search import (
    SEARCH_MODES,
    Budget,
    SearchMode,
    SearchResult,
    solve,
    version_of,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "anchors"


def checked(state: GameState, result: SearchResult) -> SearchResult:
    """``result``, after replaying its line when it says won."""
    if result.verdict == "won":
        replayed = replay_from(state, result.line)
        if not (replayed.ok and replayed.won):
            raise AssertionError("a won line does not replay to a win")
    return result


def solvitaire_verdicts() -> dict[str, str]:
    """What Solvitaire decided on each anchor deal at 10 s."""
    verdicts = {}
    for line in (DATA / "solvitaire-10s.log").read_text().splitlines():
        fields = line.split()
        if fields and fields[0].startswith("s12345-"):
            verdicts[fields[0]] = {"solved": "won", "unsolvable": "lost"}.get(fields[1], "unknown")
    return verdicts


def budget_of(seconds: float, positions: int | None) -> Budget:
    """A budget of ``positions`` positions when given (no time limit), else of ``seconds``."""
    if positions is not None:
        return Budget(seconds=None, positions=positions)
    return Budget(seconds=seconds)


def anchors(budget: Budget, search: SearchMode = "whole") -> None:
    catalogue = plugins.load_catalogue(entry_points=False)
    rules = catalogue.rules("montana", {"redeals": "0"})
    theirs = solvitaire_verdicts()
    counts = {"won": 0, "lost": 0, "unknown": 0}
    positions = elapsed = 0.0
    print(f"{'deal':<12} {'gapgrid':<8} {'line':>5} {'positions':>10} {'seconds':>8}  Solvitaire")
    for record in map(json.loads, (DATA / "gaps-deals30.jsonl").read_text().splitlines()):
        deal = DealNumber(1)  # no redeal: the generator is never used
        state = GameState(rules=rules, deal=deal, board=Board.from_rows(rules.layout,
                                                                        record["rows"]),
                          redeals_used=0, rng_state=deal.new_random().getstate())
        result = checked(state, solve(state, budget, search=search))
        counts[result.verdict] += 1
        positions += result.positions
        elapsed += result.seconds
        print(f"{record['id']:<12} {result.verdict:<8} {len(result.line):>5} "
              f"{result.positions:>10,} {result.seconds:>8.2f}  {theirs.get(record['id'], '?')}",
              flush=True)
    decided = counts["won"] + counts["lost"]
    their_decided = sum(1 for verdict in theirs.values() if verdict != "unknown")
    print(f"gapgrid {version_of(search)}: decided {decided} of 30 ({counts['won']} won, "
          f"{counts['lost']} lost) at {describe(budget)} each; "
          f"{positions / elapsed:,.0f} positions/s")
    print(f"Solvitaire (10 s, same machine kind): decided {their_decided} of 30")


def describe(budget: Budget) -> str:
    """The budget in words."""
    if budget.positions is not None:
        return f"{budget.positions:,} positions"
    return f"{budget.seconds:g} s"


def variants(deals: int, budget: Budget, only: list[str], search: SearchMode = "whole"
             ) -> None:
    catalogue = plugins.load_catalogue(entry_points=False)
    print(f"solver {version_of(search)}, {describe(budget)} a deal")
    print(f"{'variant':<22} {'decided':>8} {'won':>4} {'lost':>4} {'unknown':>7} "
          f"{'median s':>9} {'median pos':>11} {'positions/s':>11}")
    for slug in only or catalogue.slugs():
        rules = catalogue.rules(slug)
        counts = {"won": 0, "lost": 0, "unknown": 0}
        times: list[float] = []
        spent: list[int] = []
        used: list[float] = []
        to_decide: list[int] = []
        for number in range(1, deals + 1):
            state = new_game(rules, DealNumber(number))
            result = checked(state, solve(state, budget, search=search))
            counts[result.verdict] += 1
            spent.append(result.positions)
            used.append(result.seconds)
            if result.verdict != "unknown":
                times.append(result.seconds)
                to_decide.append(result.positions)
        decided = counts["won"] + counts["lost"]
        median = f"{statistics.median(times):.2f}" if times else "-"
        median_positions = f"{statistics.median(to_decide):,.0f}" if to_decide else "-"
        rate = sum(spent) / max(sum(used), 1e-9)
        print(f"{slug:<22} {decided / deals:>8.0%} {counts['won']:>4} {counts['lost']:>4} "
              f"{counts['unknown']:>7} {median:>9} {median_positions:>11} {rate:>11,.0f}",
              flush=True)


def cross_check(columns: int, deals: int, middle: bool) -> None:
    layout = Layout(rows=4, rstep=columns, rbase=0, ranks=range(columns))
    montana = plugins.load_catalogue(entry_points=False).rules("montana", {"redeals": "0"})
    rules = attrs.evolve(montana, slug="small", layout=layout, fill=MontanaFill(layout),
                         won=AllRowsFinished(layout))
    chosen = reductions_for(rules)
    searches = {"plain": NONE, "restarts": attrs.evolve(chosen, heuristic_order=False),
                "solver": chosen}
    spent = dict.fromkeys(searches, 0)
    won = disagreements = compared = 0
    for number, state in _cross_check_positions(rules, deals, middle):
        verdicts = {}
        for name, reductions in searches.items():
            # the plain search's tail is long from the middle of a game: a position it cannot
            # settle within a million positions is left out
            budget = Budget(seconds=None, positions=1_000_000 if name == "plain" else None)
            result = checked(state, solve(state, budget, reductions=reductions))
            verdicts[name] = result.verdict
            spent[name] += result.positions
            if result.verdict == "unknown":
                break
        if "unknown" in verdicts.values():
            continue
        compared += 1
        won += verdicts["plain"] == "won"
        if len(set(verdicts.values())) > 1:
            disagreements += 1
            print(f"{number}: {verdicts}; cells {state.board.cells}", flush=True)
    where = "positions part way into games" if middle else "deals"
    print(f"4 rows of {columns}, {compared} {where}: {won} won by the plain search, "
          f"{disagreements} disagreements; positions: "
          + ", ".join(f"{name} {count:,}" for name, count in spent.items()))


def _cross_check_positions(rules: Rules, count: int, middle: bool
                           ) -> Iterator[tuple[str, GameState]]:
    """Deals 1 to ``count``; or ``count`` positions part way into games where a head could move
    between column-0 gaps (10 to 59 random legal moves from a random deal, seeded)."""
    if not middle:
        for number in range(1, count + 1):
            yield f"deal {number}", new_game(rules, DealNumber(number))
        return
    shuffler = random.Random(1)
    found = 0
    while found < count:
        number = shuffler.randrange(1, 1_000_000)
        engine = Engine.start(rules, DealNumber(number))
        for _ in range(shuffler.randrange(10, 60)):
            moves = [] if engine.won else engine.legal_pairs()
            if not moves:
                break
            engine.play(*shuffler.choice(moves))
        if engine.won or head_macros(engine, engine.legal_pairs()) is None:
            continue
        found += 1
        yield f"from deal {number}", engine.snapshot()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["anchors", "variants", "cross-check"])
    parser.add_argument("--seconds", type=float, default=10.0, help="budget per deal")
    parser.add_argument("--positions", type=int, default=None,
                        help="budget per deal in positions (replaces --seconds)")
    parser.add_argument("--deals", type=int, default=50, help="game numbers per variant")
    parser.add_argument("--only", nargs="*", default=[], help="variants or presets to run")
    parser.add_argument("--columns", type=int, default=5, help="cross-check: columns a row")
    parser.add_argument("--search", choices=SEARCH_MODES, default="whole",
                        help="anchors and variants: the search to run (the whole one)")
    parser.add_argument("--middle", action="store_true",
                        help="cross-check: positions part way into games, not deals")
    args = parser.parse_args()
    started = time.monotonic()
    if args.what == "anchors":
        anchors(budget_of(args.seconds, args.positions), args.search)
    elif args.what == "cross-check":
        cross_check(args.columns, args.deals, args.middle)
    else:
        variants(args.deals, budget_of(args.seconds, args.positions), args.only, args.search)
    print(f"machine: {platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}, {platform.system()} {platform.release()}; "
          f"{time.monotonic() - started:.0f} s in all")


if __name__ == "__main__":
    main()
