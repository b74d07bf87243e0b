"""Benchmark: what a request full of redeals costs in memory and time (run by hand).

The worst request within the API's limits is the longest game of redeals on
the largest board: ``MAX_REDEALS`` (500) redeals of Double Blue Moon (8 rows
of 14, 104 cards gathered and shuffled each time) with unlimited redeals, on
a number dealt by the Mersenne Twister, whose state each redeal's undo record
keeps, then card moves and undos up to ``GAPGRID_MAX_MOVES`` (5000) in all.
``--redeals 5000`` measures what the request cost before redeals were capped
(the service now refuses it: its ``verify`` column then says so). For each
game below this measures:

* ``peak``: the largest memory the replay holds (``tracemalloc``), and
  ``per redeal`` that divided by the redeals;
* ``replay``: the fastest of several runs of the replay alone, and
  ``verify``: the same through the service layer (``POST /v1/verify``'s use
  case: parsing the moves, replay and scores), in CPU seconds;
* ``undo all``: then taking every redeal back (each restores the generator);
* ``worst``: the whole worst request through the service layer: the redeals,
  then a legal card move and its undo, again and again up to the move cap.

Usage: python bench/redeal_memory.py [--redeals N] [--runs N]
"""

from __future__ import annotations

import argparse
import platform
import time
import tracemalloc
from collections.abc import Callable

from gapgrid import plugins
from gapgrid.api.services import games
from gapgrid.core.dealnumber import DealNumber, parse_deal_number
from gapgrid.core.game import Engine
from gapgrid.core.notation import REDEAL
from gapgrid.core.replay import replay
from gapgrid.core.rules import Rules

GAMES = [
    ("double-blue-moon", "99999999999999999999"),  # the request
    ("double-blue-moon", "ms617"),                 # the same board, LCRandom31
    ("double-montana", "99999999999999999999"),
    ("montana", "99999999999999999999"),
]
"""Games that 5000 redeals do not win (Spaces, whose gaps land anywhere, wins within 500)."""


def cpu_seconds(run: Callable[[], object], runs: int) -> float:
    """The fastest of ``runs`` runs, in CPU seconds (the machine is shared)."""
    best = float("inf")
    for _ in range(runs):
        started = time.process_time()
        run()
        best = min(best, time.process_time() - started)
    return best


def peak_bytes(run: Callable[[], object]) -> int:
    """The most memory ``run`` holds at once, by ``tracemalloc``."""
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def undo_all(rules: Rules, deal: DealNumber, redeals: int) -> float:
    """CPU seconds to take back ``redeals`` redeals one by one (each restores the generator)."""
    engine = Engine.start(rules, deal)
    for _ in range(redeals):
        engine.redeal()
    started = time.process_time()
    for _ in range(redeals):
        assert engine.undo() is None
    return time.process_time() - started


def main() -> None:
    """Measure every game of :data:`GAMES` and print a table for bench/README.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redeals", type=int, default=games.MAX_REDEALS)
    parser.add_argument("--runs", type=int, default=5)
    arguments = parser.parse_args()
    catalogue = plugins.load_catalogue()
    options = {"redeals": "unlimited"}
    print(f"{platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}, {arguments.redeals} redeals")
    print("| game | peak | per redeal | replay | verify | undo all | worst |")
    print("|---|---|---|---|---|---|---|")
    for slug, number in GAMES:
        rules = catalogue.rules(slug, options)
        deal = parse_deal_number(number)
        actions = [REDEAL] * arguments.redeals
        moves = ["redeal"] * arguments.redeals
        assert replay(rules, deal, actions).ok

        def verify(slug: str = slug, number: str = number, moves: list[str] = moves) -> None:
            assert games.verify(catalogue, variant=slug, deal=number, moves=moves,
                                options=options).ok

        peak = peak_bytes(lambda rules=rules, deal=deal, actions=actions:
                          replay(rules, deal, actions))
        replay_time = cpu_seconds(lambda rules=rules, deal=deal, actions=actions:
                                  replay(rules, deal, actions), arguments.runs)
        capped = arguments.redeals <= games.MAX_REDEALS
        verify_time = cpu_seconds(verify, arguments.runs) if capped else None
        undo_time = min(undo_all(rules, deal, arguments.redeals) for _ in range(arguments.runs))
        card = replay(rules, deal, actions).state.legal_moves()
        filler = [str(card[0]), "undo"] * ((5000 - arguments.redeals) // 2) if card else []
        worst = moves + filler

        def whole(slug: str = slug, number: str = number, worst: list[str] = worst) -> None:
            assert games.verify(catalogue, variant=slug, deal=number, moves=worst,
                                options=options).ok

        worst_time = cpu_seconds(whole, arguments.runs) if capped else None
        shown = ("refused" if seconds is None else f"{seconds * 1000:.0f} ms"
                 for seconds in (verify_time, worst_time))
        verify_text, worst_text = shown
        print(f"| {slug} {number} | {peak / 2**20:.1f} MiB | "
              f"{peak / arguments.redeals / 1024:.2f} KiB | {replay_time * 1000:.0f} ms | "
              f"{verify_text} | {undo_time * 1000:.0f} ms | {worst_text} |")


if __name__ == "__main__":
    main()
