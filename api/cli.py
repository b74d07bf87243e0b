"""The ``gapgrid`` command line.

Other tools script against these exact forms:

* ``gapgrid variants [--json]``
* ``gapgrid deal VARIANT NUMBER [--option KEY=VALUE ...] [--json]``
* ``gapgrid verify VARIANT NUMBER [MOVE ...] [--option KEY=VALUE ...] [--scoring NAME ...]
  [--elapsed SECONDS] [--json]``
* ``gapgrid scoring [--json]``

Exit status: 0 when all went well (every move legal), 1 when a move was
refused, 2 for a usage error (unknown variant, bad game number or option,
a move that is not notation).
"""

from __future__ import annotations

import datetime
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import click

from gapgrid.api import render, views
from gapgrid.api.cli_support import (
    EXIT_ILLEGAL_MOVE,
    NUMBER_ARGUMENTS,
    SECONDS,
    api_settings,
    echo_json,
    json_flag,
    load_catalogue,
    option_flag,
    read_saved_game,
    resolve_deal,
    resolve_moves,
    resolve_rules,
    resolve_schemes,
)
from gapgrid.api.puzzles import daily_puzzle
from gapgrid.api.pysolfc.cli import pysolfc
from gapgrid.api.store import Store
from gapgrid.core.catalogue import UnknownVariantError
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import new_game
from gapgrid.core.replay import ReplayResult, replay
from gapgrid.core.rules import Rules
from gapgrid.core.scoring import GameSummary


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gapgrid")
def main() -> None:
    """gapgrid: the Montana family of solitaire games, as PySolFC deals them."""


main.add_command(pysolfc)


EXIT_INTERNAL_ERROR = 3


def run() -> None:
    """The ``gapgrid`` console script: the command line, with a distinct exit status (3)
    for an internal error, so that it is never mistaken for a refused move (1)."""
    try:
        main()
    except Exception as error:  # click handles usage errors itself; this is a bug
        click.echo(f"gapgrid: internal error: {type(error).__name__}: {error}", err=True)
        click.echo("gapgrid: please report it with the command that caused it", err=True)
        sys.exit(EXIT_INTERNAL_ERROR)


@main.command()
@json_flag
@click.pass_context
def variants(ctx: click.Context, as_json: bool) -> None:
    """List the variants and presets."""
    catalogue = load_catalogue(ctx)
    entries = [views.entry_json(catalogue, catalogue.lookup(slug)) for slug in catalogue.slugs()]
    if as_json:
        echo_json(entries)
        return
    for entry in entries:
        pysolfc = f"PySolFC {entry['pysolfc_id']}" if entry["pysolfc_id"] else entry["kind"]
        names = f" (also {', '.join(entry['other_names'])})" if entry["other_names"] else ""
        shape = f"{entry['rows']}x{entry['rstep']}"
        redeals = str(entry["redeals"])  # a number, or "unlimited"
        click.echo(f"{entry['slug']:<20} {shape:>5}  redeals {redeals:<9} {pysolfc:<12} "
                   f"{entry['name']}{names}")


@main.command(context_settings=NUMBER_ARGUMENTS)
@click.argument("variant")
@click.argument("number")
@option_flag
@json_flag
@click.pass_context
def deal(ctx: click.Context, variant: str, number: str, options: Sequence[str],
         as_json: bool) -> None:
    """Show the layout PySolFC deals for game NUMBER of VARIANT."""
    rules = resolve_rules(ctx, variant, options)
    game_number = resolve_deal(number)
    state = new_game(rules, game_number)
    if as_json:
        echo_json(views.deal_json(rules, game_number, state.board))
        return
    click.echo(f"{rules.name}, game {game_number} (PySolFC: {game_number.pysolfc_title})")
    click.echo(render.render_board(state.board))


@main.command(context_settings=NUMBER_ARGUMENTS)
@click.argument("arguments", nargs=-1, metavar="VARIANT NUMBER [MOVE]...")
@option_flag
@click.option("--from-save", "save_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Verify a PySolFC saved game (.pso) instead: no VARIANT, NUMBER or MOVE.")
@click.option("--scoring", "scoring", multiple=True, metavar="NAME",
              help="Add the score of scheme NAME, or of all (repeatable).")
@click.option("--elapsed", type=SECONDS, metavar="SECONDS",
              help="How long the game took, for time bonuses.")
@click.option("--timed", is_flag=True, help="The game was played in the timed (3-minute) mode.")
@json_flag
@click.pass_context
def verify(ctx: click.Context, arguments: Sequence[str], options: Sequence[str],
           save_file: Path | None, scoring: Sequence[str], elapsed: float | None,
           timed: bool, as_json: bool) -> None:
    """Replay MOVES (F-T, redeal, undo) on game NUMBER of VARIANT and check each.

    With no MOVE arguments the moves are read from standard input,
    separated by whitespace. Exit status 1 when a move is refused.
    """
    schemes = resolve_schemes(ctx, scoring)
    saved = None
    if save_file is not None:
        if arguments or options:
            raise click.UsageError("--from-save takes the variant, number and moves from the "
                                   "file: give no VARIANT, NUMBER, MOVE or --option")
        saved = read_saved_game(ctx, save_file)
        rules, game_number = saved.rules, saved.saved.deal
        actions = list(saved.saved.actions)
    elif len(arguments) < 2:
        raise click.UsageError("give VARIANT and NUMBER (or --from-save FILE)")
    else:
        rules = resolve_rules(ctx, arguments[0], options)
        game_number = resolve_deal(arguments[1])
        actions = resolve_moves(arguments[2:])
    result = replay(rules, game_number, actions)
    report = views.verify_json(rules, game_number, result)
    if saved is not None:
        report["saved_layout_matches"] = saved.board == result.state.board
        elapsed = elapsed if elapsed is not None else (saved.saved.elapsed or None)
    if schemes:
        summary = GameSummary.from_replay(result, elapsed=elapsed, timed=timed)
        if saved is not None:  # undone moves are gone from the file; PySolFC counted them
            summary = attrs.evolve(summary, undos=saved.saved.undo_moves)
        report["scores"] = views.scores_json(summary, schemes) if result.ok else None
    if as_json:
        echo_json(report)
    else:
        _print_verdict(rules, game_number, result, report.get("scores"))
        if report.get("saved_layout_matches") is False:
            click.echo("The layout saved in the file differs from the replay (PySolFC re-seeds "
                       "its generator when a game is reloaded, which changes later redeals).")
    if not result.ok or report.get("saved_layout_matches") is False:
        ctx.exit(EXIT_ILLEGAL_MOVE)


@main.command("scoring")
@json_flag
@click.pass_context
def scoring_command(ctx: click.Context, as_json: bool) -> None:
    """List the scoring schemes."""
    schemes = load_catalogue(ctx).scoring
    if as_json:
        echo_json([{"name": info.name, "summary": info.summary, "plugin": info.plugin}
                   for info in schemes.values()])
        return
    for info in schemes.values():
        click.echo(f"{info.name:<12} {info.summary}")


def _print_verdict(rules: Rules, deal_number: DealNumber, result: ReplayResult,
                   scores: dict[str, Any] | None) -> None:
    click.echo(f"{rules.name}, game {deal_number}")
    if result.error is None:
        outcome = "won" if result.won else "not won"
        click.echo(f"All {result.applied} moves are legal; the game is {outcome}.")
    else:
        error = result.error
        click.echo(f"Move {error.index} ({error.move}) is refused: {error.reason}.")
        click.echo(f"The {result.applied} moves before it are legal; the layout then was:")
    click.echo(render.render_board(result.state.board))
    for name, score in (scores or {}).items():
        if isinstance(score, dict):
            click.echo(f"{name}: {score['total']} ({score['explanation']})")


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on.")
@click.option("--threads", default=8, show_default=True, type=click.IntRange(1, 256),
              help="Worker threads.")
def serve(host: str, port: int, threads: int) -> None:
    """Run the puzzle API (waitress; SQLite in ./instance unless configured otherwise)."""
    # Imported here: Flask and waitress would slow down every other command.
    import logging

    import waitress

    from gapgrid.api.app import create_app

    logging.basicConfig(level=logging.INFO, format="gapgrid: %(levelname)s: %(message)s")
    settings = api_settings()
    app = create_app(settings)  # logs a warning when the secret is the development one
    click.echo(f"gapgrid API on http://{host}:{port}/v1/ (database {settings.database}); "
               f"Ctrl-C stops it.", err=True)
    waitress.serve(app, host=host, port=port, threads=threads, ident="gapgrid",
                   clear_untrusted_proxy_headers=True)


@main.command()
@click.argument("variant")
@click.option("--date", "day", metavar="YYYY-MM-DD", help="Another day than today (UTC).")
@json_flag
@click.pass_context
def daily(ctx: click.Context, variant: str, day: str | None, as_json: bool) -> None:
    """Print today's puzzle of VARIANT and how to open it in PySolFC.

    Uses the same configuration (GAPGRID_DATABASE, GAPGRID_SECRET_KEY) as
    `gapgrid serve`, so it prints the puzzle the API serves.
    """
    settings = api_settings()
    catalogue = load_catalogue(ctx)
    try:
        entry = catalogue.lookup(variant)
    except UnknownVariantError as error:
        raise click.BadParameter(str(error), param_hint="VARIANT") from None
    now = datetime.datetime.now(datetime.UTC)
    try:
        date = datetime.date.fromisoformat(day) if day else now.date()
    except ValueError:
        raise click.BadParameter(f"{day!r} is not a date like 2026-11-30",
                                 param_hint="--date") from None
    if not settings.first_day <= date <= now.date():
        raise click.BadParameter(f"puzzles run from {settings.first_day} to today "
                                 f"({now.date()})", param_hint="--date")
    puzzle = daily_puzzle(Store(settings.database), catalogue, settings.secret_key, date, entry,
                          now)
    if as_json:
        echo_json(puzzle)
        return
    click.echo(f"{puzzle['name']}, puzzle of {puzzle['date']}: game {puzzle['deal']} "
               f"(PySolFC: {puzzle['pysolfc']['game_number']})")
    click.echo(puzzle["pysolfc"]["how"])
