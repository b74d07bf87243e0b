"""The daily puzzles' commands beside ``gapgrid daily``: ``gapgrid solution`` and
``gapgrid puzzles prepare``, thin adapters over
:class:`~gapgrid.api.services.puzzles.PuzzleService`.

* ``gapgrid solution DATE VARIANT [--json]``: the shortest winning line known for
  a day's puzzle, an hour after the day is over (UTC); before then a usage
  error saying when it opens.
* ``gapgrid puzzles prepare [--days N] [--from DATE] [--variant SLUG ...]
  [--positions P] [--seconds S] [--json]``: creates and certifies the coming
  days' puzzles ahead of time (and certifies stored ones that are not), with a
  progress bar on standard error, then a line per puzzle.

They use the configuration ``gapgrid serve`` uses (``GAPGRID_DATABASE``,
``GAPGRID_SECRET_KEY``, ...), so they read and write the puzzles the API
serves; several can run beside servers on one database (a puzzle being made
elsewhere is waited for).
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import attrs
import click
from tqdm import tqdm

from gapgrid.api import cli_support, render
from gapgrid.api.cli_support import (
    FiniteFloatRange,
    SetupError,
    Unavailable,
    WholeNumberRange,
    database_faults_said,
    echo_json,
    json_flag,
    load_catalogue,
    usage_error,
)
from gapgrid.api.config import (
    ConfigError,
    Settings,
    first_day_from_environment,
    unusable_database,
)
from gapgrid.api.services import games
from gapgrid.api.services.certify import CertifyBudget
from gapgrid.api.services.errors import ServiceError
from gapgrid.api.services.puzzles import (
    DATE,
    PREPARE_BUDGET,
    Prepared,
    PuzzleService,
    SolutionUnavailable,
    parse_day,
    utc_now,
)
from gapgrid.core.board import Board
from gapgrid.core.catalogue import Catalogue

MAX_DAYS: Final = 366
"""The most days one ``prepare`` covers: a year."""

LAST_DAY: Final = datetime.date.max - datetime.timedelta(days=1)
"""The last day a puzzle can have: its day ends at the next midnight, which must be a date."""

COMMAND_WAIT_SECONDS: Final = 600.0
"""How long a command waits for a puzzle another process is making (a command has time a
web request has not)."""


def puzzle_service(ctx: click.Context, *, create: bool = False) -> PuzzleService:
    """The puzzles of the configured server, waiting as long as a command may.

    Opened by :func:`gapgrid.api.cli_support.puzzle_service`, so a folder or database
    that cannot be used is a one-line error, exit status 2, never an internal error.
    Without ``create`` no instance folder is made where there is none; with it
    (``puzzles prepare``, which may run before a server's first start) the instance
    folder and its secret are made as ``gapgrid serve`` makes them.
    """
    if create:
        try:
            settings = Settings.from_environment(create_secret=True)
        except ConfigError as error:
            raise SetupError(str(error)) from None
        except OSError as error:
            raise SetupError(f"cannot make the instance folder {error.filename} "
                             f"(GAPGRID_INSTANCE): {error.strerror}") from None
        if isinstance(settings.database, Path):
            try:
                settings.database.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise SetupError(str(unusable_database(settings, error))) from None
    return attrs.evolve(cli_support.puzzle_service(ctx), wait_seconds=COMMAND_WAIT_SECONDS,
                        on_wait=_say_waiting)


def _say_waiting(puzzle_id: str) -> None:
    click.echo(f"gapgrid: the puzzle {puzzle_id} is being prepared by another process; "
               f"waiting for it, up to {COMMAND_WAIT_SECONDS:g} s (Ctrl-C stops)", err=True)


def print_puzzle_facts(catalogue: Catalogue, puzzle: dict[str, Any]) -> None:
    """The board of a puzzle, then its par and difficulty (or why there are none)."""
    rules = catalogue.rules(puzzle["variant"], puzzle["options"])
    click.echo(render.render_board(Board.from_rows(rules.layout, puzzle["rows"])))
    if puzzle.get("certified"):
        rating = puzzle.get("difficulty")
        difficulty = (f"{rating['label']} ({rating['value']:g} of 100)" if rating
                      else "not rated")
        click.echo(f"Certified winnable. Par: {puzzle['par']} actions (card moves and "
                   f"redeals). Difficulty: {difficulty}.")
    else:
        click.echo("Not certified: no win was found for it within the budget (par and "
                   "difficulty come with certification).")


@click.command("solution")
@click.argument("date", metavar="DATE")
@click.argument("variant")
@json_flag
@click.pass_context
def solution_command(ctx: click.Context, date: str, variant: str, as_json: bool) -> None:
    """Print the shortest winning line known for the puzzle of VARIANT on DATE
    (YYYY-MM-DD), an hour after that day is over (UTC). VARIANT DATE, the order of `daily`,
    works too."""
    if not DATE.fullmatch(date) and DATE.fullmatch(variant):
        date, variant = variant, date
    try:
        parse_day(date)  # before the instance is opened: a mistyped date is said first
        with database_faults_said():
            document = puzzle_service(ctx).solution(date, variant)
    except SolutionUnavailable as error:
        # a day with a puzzle, so DATE is right, and a usage block would say it is not
        raise Unavailable(error.message) from None
    except ServiceError as error:
        if error.field[:1] == ("date",):  # here DATE is an argument, not --date
            raise click.BadParameter(error.message, param_hint="DATE") from None
        raise
    if as_json:
        echo_json(document)
        return
    source = "a player's" if document["line_from"] == "submission" else "the solver's"
    # the variant's name, as daily prints it, not its slug
    name = load_catalogue(ctx).rules(document["variant"], document["options"]).name
    click.echo(f"{name}, puzzle of {document['date']}: game "
               f"{document['deal']}; {source} line of {document['par']} actions wins:")
    click.echo(" ".join(document["line"]))


@click.group("puzzles")
def puzzles_group() -> None:
    """Daily puzzles, ahead of time."""


@puzzles_group.command("prepare")
@click.option("--days", type=WholeNumberRange(1, MAX_DAYS), default=7, show_default=True,
              metavar="N",
              help=f"How many days, from --from on (at most {MAX_DAYS}).")
@click.option("--from", "first", metavar="YYYY-MM-DD",
              help="The first day (default: today, UTC).")
@click.option("--variant", "variants", multiple=True, metavar="SLUG",
              help="Only this variant or preset (repeatable; default: every one).")
@click.option("--positions", type=WholeNumberRange(1000, 100_000_000), metavar="P",
              default=PREPARE_BUDGET.candidate_positions, show_default=True,
              help="Search for one candidate number, in positions.")
@click.option("--seconds", type=FiniteFloatRange(1, 3600), metavar="S",
              default=PREPARE_BUDGET.total_seconds, show_default=True,
              help="Search for one puzzle, all candidates together, at most.")
@json_flag
@click.pass_context
def prepare_command(ctx: click.Context, days: int, first: str | None,
                    variants: Sequence[str], positions: int, seconds: float,
                    as_json: bool) -> None:
    """Create and certify the puzzles of the coming days (and certify stored ones that are
    not), so that no player waits for a search.

    A coming day none of whose candidates is won within the budget is left unmade (a later
    run, or the day's first request, tries again); today's is stored uncertified.
    """
    try:  # the days first: a refused one makes no instance
        first_day = first_day_from_environment()
    except ConfigError as error:
        raise SetupError(str(error)) from None
    try:
        start = parse_day(first) if first else utc_now().date()
    except ServiceError as error:
        raise click.BadParameter(error.message, param_hint="--from") from None
    if start < first_day:  # never served: daily refuses those days
        raise click.BadParameter(f"puzzles start on {first_day} (GAPGRID_FIRST_DAY)",
                                 param_hint="--from")
    if start > LAST_DAY - datetime.timedelta(days=days - 1):
        span = "1 day from {} goes" if days == 1 else f"{days} days from {{}} go"
        raise click.BadParameter(f"{span.format(start)} past the last day a puzzle can "
                                 f"have, {LAST_DAY}", param_hint="--from / --days")
    catalogue = load_catalogue(ctx)  # the service's: the names are checked before it is made
    try:  # every name checked before any search; two names of one game make it once
        slugs = list(dict.fromkeys(games.find_entry(catalogue, name).slug
                                   for name in variants)) or catalogue.slugs()
    except ServiceError as error:
        refusal = usage_error(error)  # with the pointer to `gapgrid variants`
        refusal.param_hint = "--variant"
        raise refusal from None
    service = puzzle_service(ctx, create=True)
    budget: CertifyBudget = attrs.evolve(PREPARE_BUDGET, candidate_positions=positions,
                                         total_seconds=seconds)
    jobs = [(start + datetime.timedelta(days=offset), slug)
            for offset in range(days) for slug in slugs]
    done: list[tuple[datetime.date, str, Prepared]] = []
    with tqdm(jobs, desc="preparing", unit="puzzle", disable=None, leave=False) as bar:
        for date, slug in bar:
            bar.set_postfix_str(f"{date} {slug}")
            with database_faults_said():
                done.append((date, slug, service.prepare(date, slug, budget)))
    if as_json:
        echo_json([{"date": date.isoformat(), "variant": slug, "action": prepared.action,
                    "seconds": prepared.seconds, "candidates": prepared.tried,
                    "puzzle": prepared.document} for date, slug, prepared in done])
        return
    for date, slug, prepared in done:
        puzzle = prepared.document
        rating = puzzle["difficulty"]
        facts = (f"par {puzzle['par']}, {rating['label'] if rating else 'not rated'}"
                 if puzzle["certified"] else "NOT certified")
        click.echo(f"{date} {slug:<20} {prepared.action:<11} game {puzzle['deal'] or '-':>20}  "
                   f"{facts}  ({prepared.tried} candidate{'' if prepared.tried == 1 else 's'}, "
                   f"{prepared.seconds:.1f} s)")
    missing = sum(1 for _, _, prepared in done if not prepared.document["certified"])
    unmade = sum(1 for _, _, prepared in done if prepared.action == "not stored")
    click.echo(f"{len(done)} puzzle{'' if len(done) == 1 else 's'}: {len(done) - missing} "
               f"certified, {missing} not"
               + (f" ({unmade} of them not stored: run again with more --seconds or "
                  f"--positions)." if unmade else "."))
