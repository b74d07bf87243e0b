"""Benchmark: how much shorter the won lines of a study get when cut, and what that costs.

For the won rows of each study CSV given (the committed ones under
``data/study`` hold lines solver 3 and solver 4 gave before lines were cut),
the first ``--lines`` of them: the mean length of the line as found, without
its detours, and without its idle actions as well
(:func:`gapgrid.core.shortening.tightened`, what solver 5 hands out), and the
CPU milliseconds the cut took, mean and most. Every cut line is replayed
to a win. Figures go in ``docs/solver.md`` ("Kept (eighth sitting)").

Usage: python bench/cut_lines.py data/study/solver-4/*.csv [--lines 50]
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from pathlib import Path

from gapgrid import plugins
from gapgrid.api.cli_support import parse_option_pairs
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import new_game
from gapgrid.core.notation import parse_actions
from gapgrid.core.replay import replay_from
from gapgrid.core.shortening import tightened, without_detours


def measure(path: Path, lines: int) -> str:
    """One table row for the study in ``path``."""
    catalogue = plugins.load_catalogue(entry_points=False)
    found: list[int] = []
    direct: list[int] = []
    cut: list[int] = []
    milliseconds: list[float] = []
    with path.open(newline="", encoding="utf-8") as rows:
        won = [row for row in csv.DictReader(rows) if row["verdict"] == "won"][:lines]
    for row in won:
        rules = catalogue.rules(row["variant"], parse_option_pairs(row["options"].split()))
        state = new_game(rules, DealNumber(int(row["game_number"])))
        line = parse_actions(row["line"].split())
        started = time.process_time()
        shorter = tightened(state, line)
        milliseconds.append(1000 * (time.process_time() - started))
        replayed = replay_from(state, shorter)
        if not (replayed.ok and replayed.won):
            raise AssertionError(f"{path.name} {row['game_number']}: the cut line does not win")
        found.append(len(line))
        direct.append(len(without_detours(state, line)))
        cut.append(len(shorter))
    name = f"`{path.parent.name}/{path.name}`"
    return (f"| {name} | {len(won)} | {statistics.mean(found):.1f} | "
            f"{statistics.mean(direct):.1f} | {statistics.mean(cut):.1f} | "
            f"{statistics.mean(milliseconds):.0f} | {max(milliseconds):.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, help="study CSV files")
    parser.add_argument("--lines", type=int, default=50, help="won lines per file")
    args = parser.parse_args()
    print("| study | lines | found | without detours | cut (solver 5) | ms mean | ms most |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for path in args.files:
        print(measure(path, args.lines), flush=True)


if __name__ == "__main__":
    main()
