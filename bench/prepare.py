"""Prepare daily puzzles ahead, as ``gapgrid puzzles prepare`` does, and check every one.

The acceptance run of issue 11: for each built-in variant and preset, ``--days``
consecutive days are prepared in this one process (one core), with the
budget ``gapgrid puzzles prepare`` uses; then each stored line is sent to
``POST /v1/verify`` (through the app, on the same database), which must
answer ``ok`` and ``won``, and its length must be the puzzle's ``par``.

Prints, per variant: the days certified, the CPU seconds per puzzle (median
and most: the process's own time, so other work on the machine does not
count), the wall seconds, and the candidates tried; then the CPU seconds to
prepare one day of every variant (median over the days). Writes every
puzzle's figures as JSON lines to ``--out``. The instance folder is kept, so
a run that was stopped goes on where it was (prepared puzzles are kept).

Usage: python bench/prepare.py [--days 14] [--from 2026-12-01] [--variant SLUG ...]
       [--instance DIR] [--seconds 300] [--out FILE.jsonl]
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import attrs

from gapgrid import plugins
from gapgrid.api.app import create_app
from gapgrid.api.config import Settings
from gapgrid.api.services.puzzles import PREPARE_BUDGET, PuzzleService, puzzle_id

SECRET = "bench-prepare-secret"


def prepare_all(service: PuzzleService, slugs: list[str], first: datetime.date, days: int,
                seconds: float, out: Path) -> list[dict[str, Any]]:
    """Prepare every (day, variant); append each one's figures to ``out`` as it is done."""
    budget = attrs.evolve(PREPARE_BUDGET, total_seconds=seconds)
    rows = []
    with out.open("a") as handle:
        for offset in range(days):
            date = first + datetime.timedelta(days=offset)
            for slug in slugs:
                wall, cpu = time.monotonic(), time.process_time()
                prepared = service.prepare(date, slug, budget)
                row = {"date": date.isoformat(), "variant": slug, "action": prepared.action,
                       "certified": prepared.document["certified"],
                       "par": prepared.document["par"], "deal": prepared.document["deal"],
                       "difficulty": prepared.document["difficulty"],
                       "candidates": prepared.tried,
                       "cpu_seconds": round(time.process_time() - cpu, 3),
                       "wall_seconds": round(time.monotonic() - wall, 3)}
                rows.append(row)
                handle.write(json.dumps(row) + "\n")
                handle.flush()
                print(f"{date} {slug:<20} {row['action']:<11} certified={row['certified']!s:<5} "
                      f"par={row['par']} {row['candidates']} candidates "
                      f"{row['cpu_seconds']:.1f} s CPU", file=sys.stderr, flush=True)
    return rows


def verify_all(settings: Settings, rows: list[dict[str, Any]]) -> list[str]:
    """Replay every stored line through POST /v1/verify; return what failed."""
    app = create_app(settings, catalogue=plugins.load_catalogue(entry_points=False))
    client = app.test_client()
    store = app.extensions["gapgrid"].puzzles.store
    failures = []
    for row in rows:
        date = datetime.date.fromisoformat(row["date"])
        body, certificate = store.puzzle_and_certificate(puzzle_id(date, row["variant"]))
        if body is None or certificate is None or not certificate.certified:
            failures.append(f"{row['date']} {row['variant']}: not certified")
            continue
        answer = client.post("/v1/verify", json={"variant": row["variant"],
                                                 "deal": body["deal"],
                                                 "moves": list(certificate.line)}).get_json()
        if not (answer["ok"] and answer["won"] and len(certificate.line) == certificate.par
                == row["par"]):
            failures.append(f"{row['date']} {row['variant']}: the line does not win in par "
                            f"({answer['ok']=}, {answer['won']=}, {len(certificate.line)=}, "
                            f"{certificate.par=}, {row['par']=})")
    return failures


def report(rows: list[dict[str, Any]], slugs: list[str], days: int) -> None:
    """The table of bench/README.md."""
    print(f"Machine: {platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}; {days} days from {rows[0]['date']}; one process.\n")
    print("| variant | certified | CPU s per puzzle, median / most | wall s, median | "
          "candidates, mean / most |")
    print("|---|---|---|---|---|")
    for slug in slugs:
        mine = [row for row in rows if row["variant"] == slug]
        cpu = [row["cpu_seconds"] for row in mine]
        wall = [row["wall_seconds"] for row in mine]
        candidates = [row["candidates"] for row in mine]
        certified = sum(1 for row in mine if row["certified"])
        print(f"| {slug} | {certified} of {len(mine)} | {statistics.median(cpu):.1f} / "
              f"{max(cpu):.1f} | {statistics.median(wall):.1f} | "
              f"{statistics.mean(candidates):.1f} / {max(candidates)} |")
    per_day = {}
    for row in rows:
        per_day[row["date"]] = per_day.get(row["date"], 0.0) + row["cpu_seconds"]
    print(f"\nOne day of all {len(slugs)}: {statistics.median(per_day.values()):.0f} s CPU "
          f"(median over {len(per_day)} days; least {min(per_day.values()):.0f}, most "
          f"{max(per_day.values()):.0f}).")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=14)
    parser.add_argument("--from", dest="first", default=None,
                        help="the first day (default: tomorrow, UTC)")
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--instance", type=Path, default=None,
                        help="the instance folder (kept; default: a new temporary one)")
    parser.add_argument("--seconds", type=float, default=PREPARE_BUDGET.total_seconds,
                        help="search for one puzzle, all candidates together, at most")
    parser.add_argument("--out", type=Path, default=Path("bench-prepare.jsonl"))
    arguments = parser.parse_args()
    catalogue = plugins.load_catalogue(entry_points=False)
    slugs = arguments.variant or catalogue.slugs()
    first = (datetime.date.fromisoformat(arguments.first) if arguments.first
             else datetime.datetime.now(datetime.UTC).date() + datetime.timedelta(days=1))
    instance = arguments.instance or Path(tempfile.mkdtemp(prefix="gapgrid-prepare-"))
    settings = Settings(instance=instance, database=instance / "gapgrid.sqlite3",
                        secret_key=SECRET, first_day=datetime.date(2026, 1, 1))
    service = PuzzleService.open(settings, catalogue, wait_seconds=600)
    rows = prepare_all(service, slugs, first, arguments.days, arguments.seconds,
                       arguments.out)
    failures = verify_all(settings, rows)
    report(rows, slugs, arguments.days)
    verified = len(rows) - len(failures)
    print(f"\nPOST /v1/verify: {verified} of {len(rows)} stored lines win in exactly par "
          f"actions.")
    for failure in failures:
        print(f"  {failure}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
