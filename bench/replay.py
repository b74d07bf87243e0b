"""Benchmark: replay and verification speed (run by hand; figures go in bench/README.md).

Two measurements, one core, pure Python:

1. Throughput: every golden game (data/pysolfc-games.jsonl) is parsed and
   replayed from its deal, over and over; moves per second counts the
   actions replayed (deal, parsing and replay all included in the time).
2. Latency: 100-action games with redeals are built by random legal play
   (fixed seed) for every variant that has redeals; the median and 99th
   percentile time to verify one (parse the 100 strings, deal, replay)
   is reported.
3. Dispatch: one legality check on the rule object the game resolved once,
   against the same check reached through a pluggy hook call, which is
   what calling a hook per candidate would cost.

Usage: python bench/replay.py [--seconds N]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from pathlib import Path

from gapgrid import plugins
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game
from gapgrid.core.notation import REDEAL, UNDO, parse_actions
from gapgrid.core.replay import replay

DATA = Path(__file__).resolve().parents[1] / "data" / "pysolfc-games.jsonl"


def golden_games() -> list[tuple[str, str, list[str]]]:
    with DATA.open(encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    return [(record["variant"], record["deal"], record["moves"]) for record in records]


def hundred_move_games(catalogue: plugins.Catalogue, per_variant: int,
                       seed: int = 2026) -> list[tuple[str, str, list[str]]]:
    """Random legal games of exactly 100 actions, each with at least one redeal.

    Play picks a random legal move, redeals now and then (and when stuck),
    and takes a move back when stuck with no redeal left, as players do.
    """
    chooser = random.Random(seed)
    games = []
    for slug in catalogue.variants:
        rules = catalogue.rules(slug)
        if rules.redeals == 0:
            continue
        made = 0
        while made < per_variant:
            number = str(chooser.randint(1, 10**20))
            state = new_game(rules, parse_deal_number(number))
            actions: list[str] = []
            while len(actions) < 100:
                moves = state.legal_moves()
                if state.can_redeal() and (not moves or chooser.random() < 0.03):
                    action = REDEAL
                elif moves:
                    action = chooser.choice(moves)
                elif state.can_undo:
                    action = UNDO
                else:
                    break
                state = state.apply(action)
                actions.append(str(action))
            if len(actions) == 100 and "redeal" in actions:
                games.append((slug, number, actions))
                made += 1
    return games


def verify(catalogue: plugins.Catalogue, game: tuple[str, str, list[str]]) -> bool:
    slug, number, moves = game
    return replay(catalogue.rules(slug), parse_deal_number(number), parse_actions(moves)).ok


def dispatch_cost(catalogue: plugins.Catalogue, checks: int = 200_000) -> None:
    """Why rules are objects fetched once: a legality check with and without pluggy dispatch."""
    rules = catalogue.rules("montana")
    state = new_game(rules, parse_deal_number("27769"))
    cells, target = list(state.board.cells), state.board.gaps()[0]
    hook = catalogue.game_plugin_manager(catalogue.variants["montana"], {}).hook
    fill = rules.fill
    begin = time.perf_counter()
    for source in range(checks):
        fill.accepts(cells, source % 52, target)
    direct = (time.perf_counter() - begin) / checks
    begin = time.perf_counter()
    for _ in range(checks):
        hook.gapgrid_redeals()  # the cheapest hook: it only returns a number
    dispatched = (time.perf_counter() - begin) / checks
    print(f"one legality check on the rule object: {direct * 1e9:.0f} ns; one pluggy hook "
          f"call alone: {dispatched * 1e9:.0f} ns")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    args = parser.parse_args()
    catalogue = plugins.load_catalogue(entry_points=False)

    golden = golden_games()
    assert all(verify(catalogue, game) for game in golden)
    actions_per_pass = sum(len(moves) for _, _, moves in golden)
    passes = 0
    started = time.perf_counter()
    while time.perf_counter() - started < args.seconds:
        for game in golden:
            verify(catalogue, game)
        passes += 1
    elapsed = time.perf_counter() - started
    print(f"golden games: {len(golden)} games, {actions_per_pass} actions per pass, "
          f"{passes} passes in {elapsed:.1f} s")
    print(f"throughput: {passes * actions_per_pass / elapsed:,.0f} moves/s "
          f"(deal + parse + replay)")

    games = hundred_move_games(catalogue, per_variant=5)
    assert all(verify(catalogue, game) for game in games)
    timings = []
    started = time.perf_counter()
    while time.perf_counter() - started < args.seconds:
        for game in games:
            begin = time.perf_counter()
            verify(catalogue, game)
            timings.append(time.perf_counter() - begin)
    timings.sort()
    p99 = timings[int(len(timings) * 0.99)]
    print(f"100-action games with redeals: {len(games)} games, {len(timings)} verifications")
    print(f"verify one: median {statistics.median(timings) * 1e6:.0f} us, "
          f"p99 {p99 * 1e6:.0f} us")
    dispatch_cost(catalogue)
    print(f"machine: {platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}, {platform.system()} {platform.release()}")


if __name__ == "__main__":
    main()
