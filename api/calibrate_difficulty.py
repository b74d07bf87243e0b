"""Calibrate the difficulty labels: ``python -m gapgrid.api.calibrate_difficulty``.

For every built-in variant and preset at its own rules, PySolFC game numbers
1, 2, 3, ... are certified the way a daily puzzle's candidates are (a search
of ``--positions`` positions each, a candidate's budget), until ``--deals``
of them are won, or ``--max-candidates`` were tried, or none of the first
``--give-up-after`` was won. Each won deal gets its raw difficulty
(:mod:`gapgrid.api.services.difficulty`): the simple player's playouts and
the solver's positions.

Writes, from the rows of all deals:

* ``data/difficulty-calibration.csv``: one row per deal tried (appended as
  each is done, so an interrupted run resumes where it stopped);
* ``api/services/difficulty_table.py``: the quantiles of the raw difficulty
  of each variant's won deals and of all of them pooled, which the server
  rates puzzles with;
* on standard output, the table of ``docs/difficulty.md``.

Deals run in ``--workers`` processes. The searches are bounded by a count of
positions, so the figures do not depend on the machine or its load.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import csv
import functools
import platform
import statistics
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final

from gapgrid import plugins
from gapgrid.api.services import difficulty
from gapgrid.api.services.certify import CertifyBudget
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import new_game
from gapgrid.core.search import SOLVER_VERSION, Budget, solve

ROOT: Final = Path(__file__).resolve().parents[1]
CSV_PATH: Final = ROOT / "data" / "difficulty-calibration.csv"
TABLE_PATH: Final = ROOT / "api" / "services" / "difficulty_table.py"

COLUMNS: Final = ("variant", "deal", "verdict", "positions", "seconds", "playout_games",
                  "playout_wins", "playout_mean_share", "raw", "solver_version", "method")


@functools.cache
def _catalogue() -> Catalogue:
    """The built-in plugins only, once per worker process."""
    return plugins.load_catalogue(entry_points=False, disabled=())


def calibrate_deal(slug: str, number: int, positions: int) -> dict[str, Any]:
    """Solve one deal as a puzzle candidate is solved; for a won one, add its playouts and
    raw difficulty."""
    rules = _catalogue().rules(slug)
    state = new_game(rules, DealNumber(number))
    budget = CertifyBudget()
    result = solve(state, Budget(seconds=budget.candidate_seconds, positions=positions,
                                 memory=budget.memory))
    row: dict[str, Any] = {"variant": slug, "deal": number, "verdict": result.verdict,
                           "positions": result.positions,
                           "seconds": round(result.seconds, 3), "playout_games": "",
                           "playout_wins": "", "playout_mean_share": "", "raw": "",
                           "solver_version": SOLVER_VERSION,
                           "method": difficulty.METHOD_VERSION}
    if result.verdict == "won":
        played = difficulty.playouts(state, difficulty.playout_seed(rules, str(number)))
        row.update(playout_games=played.games, playout_wins=played.wins,
                   playout_mean_share=round(played.mean_share, 4),
                   raw=round(difficulty.raw_difficulty(played, result.positions), 6))
    return row


def read_rows(path: Path) -> list[dict[str, str]]:
    """The rows already in the CSV (none when it does not exist)."""
    if not path.exists():
        return []
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def _wanted(slug: str, rows: Sequence[dict[str, str]], deals: int, max_candidates: int,
            give_up_after: int) -> bool:
    """Whether ``slug`` needs more deals."""
    mine = [row for row in rows if row["variant"] == slug]
    won = sum(1 for row in mine if row["verdict"] == "won")
    if won >= deals or len(mine) >= max_candidates:
        return False
    return not (len(mine) >= give_up_after and won == 0)


def run(slugs: Sequence[str], *, deals: int, max_candidates: int, give_up_after: int,
        positions: int, workers: int, path: Path) -> list[dict[str, str]]:
    """Calibrate ``slugs``, appending rows to ``path``; return every row."""
    rows = read_rows(path)
    new_file = not path.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", newline="") as handle, concurrent.futures.ProcessPoolExecutor(
            workers) as pool:
        writer = csv.DictWriter(handle, COLUMNS)
        if new_file:
            writer.writeheader()
        for slug in slugs:
            done = {int(row["deal"]) for row in rows if row["variant"] == slug}
            numbers = (number for number in range(1, max_candidates + 1) if number not in done)
            pending: set[concurrent.futures.Future[dict[str, Any]]] = set()
            while True:
                while len(pending) < workers and _wanted(slug, rows, deals, max_candidates,
                                                         give_up_after):
                    number = next(numbers, None)
                    if number is None:
                        break
                    pending.add(pool.submit(calibrate_deal, slug, number, positions))
                    # count it as tried now, so that no more are queued than are wanted
                    rows.append({"variant": slug, "deal": str(number), "verdict": "pending"})
                if not pending:
                    break
                finished, pending = concurrent.futures.wait(
                    pending, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in finished:
                    row = future.result()
                    writer.writerow(row)
                    handle.flush()
                    rows = [kept for kept in rows if not (
                        kept["variant"] == slug and kept["deal"] == str(row["deal"]))]
                    rows.append({key: str(value) for key, value in row.items()})
            summary = summarise(slug, rows)
            print(f"{slug}: {summary['tried']} tried, {summary['won']} won", file=sys.stderr,
                  flush=True)
    return [row for row in read_rows(path)]


def summarise(slug: str, rows: Sequence[dict[str, str]]) -> dict[str, Any]:
    """One variant's figures: deals tried, won, and the won deals' statistics."""
    mine = [row for row in rows if row["variant"] == slug and row["verdict"] != "pending"]
    won = [row for row in mine if row["verdict"] == "won"]
    raws = [float(row["raw"]) for row in won]
    return {
        "slug": slug, "tried": len(mine), "won": len(won),
        "lost": sum(1 for row in mine if row["verdict"] == "lost"),
        "quantiles": difficulty.quantiles_of(raws) if raws else None,
        "median_positions": statistics.median(int(row["positions"]) for row in won)
        if won else None,
        "median_share": statistics.median(float(row["playout_mean_share"]) for row in won)
        if won else None,
        "wins_any_playout": sum(1 for row in won if int(row["playout_wins"]) > 0),
    }


def write_table(rows: Sequence[dict[str, str]], slugs: Sequence[str], path: Path,
                positions: int) -> None:
    """The table module the server rates puzzles with."""
    variants = {}
    pooled: list[float] = []
    for slug in slugs:
        summary = summarise(slug, rows)
        if summary["quantiles"] is None:
            continue
        variants[slug] = {"deals": summary["won"], "tried": summary["tried"],
                          "solver_versions": _solver_versions(slug, rows),
                          "quantiles": [round(value, 6) for value in summary["quantiles"]]}
        pooled += [float(row["raw"]) for row in rows
                   if row["variant"] == slug and row["verdict"] == "won"]
    table = {"method": difficulty.METHOD_VERSION, "written_by_solver_version": SOLVER_VERSION,
             "budget_positions": positions, "variants": variants,
             "pooled": {"deals": len(pooled),
                        "quantiles": [round(value, 6)
                                      for value in difficulty.quantiles_of(pooled)]}
             if pooled else None}
    lines = [
        '"""The difficulty calibration, written by ``python -m '
        'gapgrid.api.calibrate_difficulty``:',
        "do not edit.",
        "",
        "For each variant, the quantiles (0, 5, ..., 100 %) of the raw difficulty of its",
        "won calibration deals; see :mod:`gapgrid.api.services.difficulty`.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Any, Final",
        "",
        f"CALIBRATION: Final[dict[str, Any]] = {_python(table)}",
        "",
    ]
    path.write_text("\n".join(lines))


def _solver_versions(slug: str, rows: Sequence[dict[str, str]]) -> list[str]:
    """The solver versions that won ``slug``'s calibration deals: the effort measure counts
    a solver's positions, so a table says which solver counted them."""
    return sorted({row["solver_version"] for row in rows
                   if row["variant"] == slug and row["verdict"] == "won"})


def _python(value: Any, indent: int = 0) -> str:
    """``value`` as Python source, one key a line, short enough for the line limit."""
    pad = " " * (indent + 4)
    if isinstance(value, dict) and value:
        items = [f"{pad}{key!r}: {_python(item, indent + 4)}," for key, item in value.items()]
        return "{\n" + "\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(value, list) and len(value) > 6:
        chunks = [", ".join(repr(item) for item in value[start:start + 6])
                  for start in range(0, len(value), 6)]
        return "[\n" + "\n".join(f"{pad}{chunk}," for chunk in chunks) + "\n" + " " * indent + "]"
    return repr(value)


def markdown(rows: Sequence[dict[str, str]], slugs: Sequence[str]) -> Iterator[str]:
    """The calibration table of ``docs/difficulty.md``."""
    yield ("| variant | deals tried | won (calibrated) | lost | raw at 25 % / 50 % / 75 % "
           "(easy / medium / hard / expert cut) | median solver positions | median playout "
           "share | won by a playout at least once | solver |")
    yield "|---|---|---|---|---|---|---|---|---|"
    for slug in slugs:
        summary = summarise(slug, rows)
        if summary["quantiles"] is None:
            yield (f"| {slug} | {summary['tried']} | 0 | {summary['lost']} | not calibrated "
                   f"| | | | |")
            continue
        quantiles = summary["quantiles"]
        cuts = " / ".join(f"{quantiles[index]:.3f}" for index in (5, 10, 15))
        yield (f"| {slug} | {summary['tried']} | {summary['won']} | {summary['lost']} | "
               f"{cuts} | {summary['median_positions']:,.0f} | "
               f"{summary['median_share']:.3f} | {summary['wins_any_playout']} | "
               f"{', '.join(_solver_versions(slug, rows))} |")


def main(argv: Sequence[str] | None = None) -> None:
    """Run the calibration from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", action="append", default=[],
                        help="calibrate only this slug (repeatable; default: every built-in "
                             "variant and preset)")
    parser.add_argument("--deals", type=int, default=200, help="won deals wanted per variant")
    parser.add_argument("--max-candidates", type=int, default=400,
                        help="deals tried at most per variant")
    parser.add_argument("--give-up-after", type=int, default=60,
                        help="stop a variant when none of this many deals is won")
    parser.add_argument("--positions", type=int, default=CertifyBudget().candidate_positions,
                        help="positions of search per deal (a puzzle candidate's budget)")
    parser.add_argument("--workers", type=int, default=1, help="processes")
    parser.add_argument("--csv", type=Path, default=CSV_PATH)
    parser.add_argument("--table", type=Path, default=TABLE_PATH)
    arguments = parser.parse_args(argv)
    slugs = arguments.variant or _catalogue().slugs()
    rows = run(slugs, deals=arguments.deals, max_candidates=arguments.max_candidates,
               give_up_after=arguments.give_up_after, positions=arguments.positions,
               workers=arguments.workers, path=arguments.csv)
    every = _catalogue().slugs()
    write_table(rows, every, arguments.table, arguments.positions)
    print(f"Machine: {platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}, {arguments.workers} worker(s); solver "
          f"{SOLVER_VERSION}, method {difficulty.METHOD_VERSION}, {arguments.positions:,} "
          f"positions a deal.\n")
    for line in markdown(rows, every):
        print(line)


if __name__ == "__main__":
    main()
