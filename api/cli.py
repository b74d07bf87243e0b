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
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import click

import plugins
from api import render, views
from api.config import ConfigError, Settings
from api.puzzles import daily_puzzle
from api.pysolfc import install as pysolfc_install
from api.pysolfc.games import UnknownGameError, entry_for_game_id, saved_board
from api.pysolfc.savefile import SavedGame, SaveFileError, read_save
from api.store import Store
from core.catalogue import Catalogue, OptionError, UnknownSchemeError, UnknownVariantError
from core.dealnumber import DealNumber, DealNumberError, parse_deal_number
from core.game import new_game
from core.notation import Action, NotationError, parse_actions
from core.registry import ScoringInfo
from core.replay import ReplayResult, replay
from core.rules import Rules, describe_redeals
from core.scoring import GameSummary

EXIT_ILLEGAL_MOVE = 1
MAX_SAVE_BYTES = 4 * 1024 * 1024

# Let "-5" reach the NUMBER argument, so it gets a precise "game numbers
# are positive" instead of "no such option".
_NUMBER_ARGUMENTS = {"ignore_unknown_options": True}


def load_catalogue(ctx: click.Context) -> Catalogue:
    """Load the plugins once per command; report any that failed on standard error."""
    obj = ctx.ensure_object(dict)
    if "catalogue" not in obj:
        catalogue = plugins.load_catalogue()
        for problem in catalogue.problems:
            click.echo(f"gapgrid: plugin {problem.plugin!r} not loaded: {problem.reason}",
                       err=True)
        obj["catalogue"] = catalogue
    return obj["catalogue"]  # type: ignore[no-any-return]


def parse_option_pairs(pairs: Sequence[str]) -> dict[str, str]:
    """Turn ``KEY=VALUE`` strings into a dict; a malformed pair is a usage error."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not key.strip():
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--option")
        options[key.strip()] = value.strip()
    return options


def resolve_rules(ctx: click.Context, variant: str, options: Sequence[str]) -> Rules:
    """Find the rules of ``variant`` with ``options``; a usage error when unknown or refused."""
    try:
        return load_catalogue(ctx).rules(variant, parse_option_pairs(options))
    except UnknownVariantError as error:
        raise click.BadParameter(str(error), param_hint="VARIANT") from None
    except OptionError as error:
        raise click.BadParameter(str(error), param_hint="--option") from None


def resolve_deal(number: str) -> DealNumber:
    """Read a game number; a usage error when PySolFC would refuse it."""
    try:
        return parse_deal_number(number)
    except DealNumberError as error:
        raise click.BadParameter(str(error), param_hint="NUMBER") from None


def resolve_moves(moves: Sequence[str]) -> list[Action]:
    """Read moves from the arguments, or whitespace-separated from standard input."""
    if not moves:
        if sys.stdin.isatty():
            click.echo("gapgrid: reading moves from standard input (end with Ctrl-D)", err=True)
        moves = sys.stdin.read().split()
    try:
        return parse_actions(moves)
    except NotationError as error:
        raise click.BadParameter(str(error), param_hint="MOVE") from None


def echo_json(data: Any) -> None:
    """Print ``data`` as JSON on one line."""
    click.echo(json.dumps(data, ensure_ascii=False))


json_flag = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
option_flag = click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE",
                           help="A rule option, e.g. redeals=unlimited (repeatable).")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gapgrid")
def main() -> None:
    """gapgrid: the Montana family of solitaire games, as PySolFC deals them."""


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
        redeals = describe_redeals(-1 if entry["redeals"] == "unlimited" else entry["redeals"])
        click.echo(f"{entry['slug']:<20} {shape:>5}  redeals {redeals:<9} {pysolfc:<12} "
                   f"{entry['name']}{names}")


@main.command(context_settings=_NUMBER_ARGUMENTS)
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


@main.command(context_settings=_NUMBER_ARGUMENTS)
@click.argument("arguments", nargs=-1, metavar="VARIANT NUMBER [MOVE]...")
@option_flag
@click.option("--from-save", "save_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Verify a PySolFC saved game (.pso) instead: no VARIANT, NUMBER or MOVE.")
@click.option("--scoring", "scoring", multiple=True, metavar="NAME",
              help="Add the score of scheme NAME, or of all (repeatable).")
@click.option("--elapsed", type=click.FloatRange(min=0), metavar="SECONDS",
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
        saved = read_save_file(save_file)
        rules, game_number, actions = saved_game_rules(ctx, saved), saved.deal, list(saved.actions)
    elif len(arguments) < 2:
        raise click.UsageError("give VARIANT and NUMBER (or --from-save FILE)")
    else:
        rules = resolve_rules(ctx, arguments[0], options)
        game_number = resolve_deal(arguments[1])
        actions = resolve_moves(arguments[2:])
    result = replay(rules, game_number, actions)
    report = views.verify_json(rules, game_number, result)
    if saved is not None:
        report["saved_layout_matches"] = saved_board(rules, saved.stacks) == result.state.board
        elapsed = elapsed if elapsed is not None else (saved.elapsed or None)
    if schemes:
        summary = GameSummary.from_replay(result, elapsed=elapsed, timed=timed)
        if saved is not None:  # undone moves are gone from the file; PySolFC counted them
            summary = attrs.evolve(summary, undos=saved.undo_moves)
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


def resolve_schemes(ctx: click.Context, names: Sequence[str]) -> dict[str, ScoringInfo]:
    """Find the scoring schemes named; a usage error for an unknown one."""
    try:
        return load_catalogue(ctx).scoring_schemes(names)
    except UnknownSchemeError as error:
        raise click.BadParameter(str(error), param_hint="--scoring") from None


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


def read_save_file(path: Path) -> SavedGame:
    """Read a PySolFC saved game; a usage error when it cannot be read or is not one."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_SAVE_BYTES + 1)
    except OSError as error:
        raise click.BadParameter(f"cannot read {path}: {error.strerror or error}",
                                 param_hint="FILE") from None
    try:
        return read_save(data)
    except SaveFileError as error:
        raise click.BadParameter(f"{path}: {error}", param_hint="FILE") from None


def saved_game_rules(ctx: click.Context, saved: SavedGame) -> Rules:
    """The rules of the game a save holds; a usage error if gapgrid does not know it."""
    catalogue = load_catalogue(ctx)
    try:
        return catalogue.rules(entry_for_game_id(catalogue, saved.game_id).slug)
    except UnknownGameError as error:
        raise click.BadParameter(str(error), param_hint="FILE") from None


@main.group()
def pysolfc() -> None:
    """Work with PySolFC: install gapgrid's games into it, read its saved games."""


plugins_dir_flag = click.option(
    "--plugins-dir", type=click.Path(file_okay=False, path_type=Path),
    help="PySolFC's plugins folder (default: ~/.PySolFC/plugins, "
         "on Windows %APPDATA%\\PySolFC\\plugins).")


@pysolfc.command("install")
@plugins_dir_flag
def pysolfc_install_command(plugins_dir: Path | None) -> None:
    """Write the plugin file that adds gapgrid's games to PySolFC."""
    try:
        path = pysolfc_install.install(plugins_dir or pysolfc_install.default_plugins_dir())
    except pysolfc_install.PluginFileError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"Installed {path}.")
    click.echo("Start PySolFC: gapgrid's games appear in its game list under Montana-type "
               "games (Gaps, Montana Classic, ...).")


@pysolfc.command("uninstall")
@plugins_dir_flag
def pysolfc_uninstall_command(plugins_dir: Path | None) -> None:
    """Remove the plugin file."""
    folder = plugins_dir or pysolfc_install.default_plugins_dir()
    try:
        removed = pysolfc_install.uninstall(folder)
    except pysolfc_install.PluginFileError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"Removed {removed}." if removed else f"Nothing to remove in {folder}.")


@pysolfc.command("status")
@plugins_dir_flag
@json_flag
def pysolfc_status_command(plugins_dir: Path | None, as_json: bool) -> None:
    """Say whether the plugin file is installed, where, and for which gapgrid."""
    found = pysolfc_install.status(plugins_dir or pysolfc_install.default_plugins_dir())
    if as_json:
        echo_json({"path": str(found.path), "installed": found.installed,
                   "written_by": found.written_by, "gapgrid": found.current,
                   "up_to_date": found.up_to_date})
        return
    if not found.installed:
        click.echo(f"Not installed (would be {found.path}). Run `gapgrid pysolfc install`.")
    elif found.up_to_date:
        click.echo(f"Installed: {found.path} (gapgrid {found.current}).")
    else:
        click.echo(f"Installed: {found.path}, written by gapgrid {found.written_by}, but gapgrid "
                   f"{found.current} is installed: run `gapgrid pysolfc install` to update it.")


@pysolfc.command("read-save")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@json_flag
@click.pass_context
def pysolfc_read_save_command(ctx: click.Context, file: Path, as_json: bool) -> None:
    """Print the variant, game number and moves of a PySolFC saved game (.pso)."""
    saved = read_save_file(file)
    catalogue = load_catalogue(ctx)
    try:
        entry = entry_for_game_id(catalogue, saved.game_id)
    except UnknownGameError as error:
        raise click.BadParameter(str(error), param_hint="FILE") from None
    rules = catalogue.rules(entry.slug)
    moves = [str(action) for action in saved.actions]
    if as_json:
        echo_json({"variant": entry.slug, "pysolfc_id": saved.game_id, "deal": str(saved.deal),
                   "moves": moves, "undos": saved.undo_moves, "redo_stack": saved.redo_stack,
                   "final": saved_board(rules, saved.stacks).to_rows(),
                   "pysolfc_version": saved.pysolfc_version, "elapsed": saved.elapsed})
        return
    click.echo(f"{rules.name} (PySolFC game {saved.game_id}), game {saved.deal}")
    click.echo(f"{len(moves)} moves in effect ({saved.redo_stack} left on the redo stack): "
               + " ".join(moves))


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on.")
@click.option("--threads", default=8, show_default=True, type=click.IntRange(1, 256),
              help="Worker threads.")
def serve(host: str, port: int, threads: int) -> None:
    """Run the puzzle API (waitress; SQLite in ./instance unless configured otherwise)."""
    import waitress

    from api.app import create_app

    settings = api_settings()
    if settings.uses_development_secret:
        click.echo("gapgrid: WARNING: GAPGRID_SECRET_KEY is not set; using the development "
                   "secret. Set it before serving anyone but yourself.", err=True)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app = create_app(settings)
    click.echo(f"gapgrid API on http://{host}:{port}/v1/ (database {settings.database}); "
               f"Ctrl-C stops it.", err=True)
    waitress.serve(app, host=host, port=port, threads=threads, ident="gapgrid",
                   clear_untrusted_proxy_headers=True)


def api_settings() -> Settings:
    """The service settings from the environment; a usage error when one is unusable."""
    try:
        return Settings.from_environment()
    except ConfigError as error:
        raise click.UsageError(str(error)) from None


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
