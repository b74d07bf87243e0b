"""The ``gapgrid`` command line: a thin adapter over the service layer.

Other tools script against these exact forms:

* ``gapgrid variants [--json]``
* ``gapgrid deal VARIANT NUMBER [--option KEY=VALUE ...] [--json]``
* ``gapgrid verify VARIANT NUMBER [MOVE ... | -] [--option KEY=VALUE ...] [--scoring NAME ...]
  [--elapsed SECONDS] [--timed] [--json]``
* ``gapgrid moves VARIANT NUMBER [MOVE ... | -] [--option KEY=VALUE ...] [--json]``
* ``gapgrid scoring [--json]``
* ``gapgrid study VARIANT|all [--option KEY=VALUE ...] [--deals N] [--first-deal K]
  [--budget SECONDS] [--workers W | --dask ADDRESS] [--out FILE.csv] [--resume]``
* ``gapgrid db upgrade``

Each command reads its arguments into plain values, calls one use case of
:mod:`gapgrid.api.services`, and prints the document it returns (with
``--json``, unchanged: the HTTP API serves the same documents) or a text
rendering of it. Exit status: 0 when all went well (every move legal), 1
when a move was refused, 2 for a usage error (unknown variant, bad game
number or option, a move that is not notation, an option given twice; with
``--json`` printed as ``{"error": {"kind": "usage", ...}}`` on standard
output) or for an environment the command cannot use (a missing instance
folder, a database it cannot open, a port in use, a full disk), 3 for an
internal error, 130 when Ctrl-C cut a command short (with ``--json``,
``{"error": {"kind": "interrupted", ...}}`` on standard output; ``serve`` exits
with 0: Ctrl-C is how it is stopped), 141 when the reader of standard output
went away.

Moves are read a chunk at a time, from the arguments or standard input
(a lone ``-``, or for ``verify`` no MOVE; ``solve`` and ``hint`` read them so too),
and never more than ``GAPGRID_MAX_MOVES`` (5,000) + 1 of them: the answer is
the first refused move among those, and only when all are legal is a
malformed move, or a move past the cap, a usage error (as the HTTP API
refuses more than 5,000 moves). So the worst input costs the memory of
5,000 moves and one 64 KiB chunk of input, whatever its size.
Text output honours ``NO_COLOR`` and ``TERM=dumb``; ``gapgrid`` alone prints
the help.
"""

from __future__ import annotations

import errno
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, NoReturn

import click

from gapgrid.api import render
from gapgrid.api.cli_db import db_group
from gapgrid.api.cli_puzzles import (
    print_puzzle_facts,
    puzzle_service,
    puzzles_group,
    solution_command,
)
from gapgrid.api.cli_solving import hint_command, solve_command
from gapgrid.api.cli_support import (
    EXIT_ILLEGAL_MOVE,
    EXIT_READER_GONE,
    EXIT_USAGE,
    NUMBER_ARGUMENTS,
    SECONDS,
    GapgridGroup,
    SetupError,
    WholeNumberRange,
    database_faults_said,
    echo_json,
    game_title,
    given_moves,
    json_flag,
    load_catalogue,
    max_moves,
    no_colour,
    option_flag,
    parse_option_pairs,
    read_moves,
    read_saved_game,
    stdout_reader_gone,
    stop_writing_to_stdout,
    tell,
    wants_json,
)
from gapgrid.api.command_settings import HELP_OPTIONS
from gapgrid.api.pysolfc.cli import pysolfc
from gapgrid.api.services import games
from gapgrid.api.services.errors import ServiceError
from gapgrid.api.services.puzzles import parse_day
from gapgrid.api.stand_ins import use_stand_ins
from gapgrid.api.study import study
from gapgrid.api.text import bounded, card_names, ordinal_move
from gapgrid.core.board import Board
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.plugin_code import failing_plugin
from gapgrid.core.score_checks import PluginFault


@click.group(cls=GapgridGroup, invoke_without_command=True,
             context_settings=HELP_OPTIONS)
@click.version_option(package_name="gapgrid")
@click.pass_context
def main(ctx: click.Context) -> None:
    """gapgrid: the Montana family of solitaire games, as PySolFC deals them."""
    if no_colour():
        ctx.color = False  # every command's context inherits it
    if ctx.invoked_subcommand is None:  # `gapgrid` alone asked for help: it is no error
        click.echo(ctx.get_help(), color=ctx.color)


main.add_command(pysolfc)
main.add_command(study)
main.add_command(solve_command)
main.add_command(hint_command)
main.add_command(solution_command)
main.add_command(puzzles_group)
main.add_command(db_group)


EXIT_INTERNAL_ERROR = 3
EXIT_ENVIRONMENT = 2  # as for a database the command cannot open


MACHINE_REFUSED_WRITES: Final = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG,
                                             errno.EROFS})
"""Why a write fails through no fault of gapgrid's: a full disk or quota, a file size
limit (``ulimit -f``), a read-only file system: said in one line, exit 2."""


def run() -> None:
    """The command line (the ``gapgrid`` console script loads it, then runs this), with a
    distinct exit status (3) for an internal error, so that it is never mistaken for a
    refused move (1)."""
    # Started with standard output closed (``>&-``); serve answers over the network only.
    if sys.stdout is None and sys.argv[1:2] != ["serve"]:
        if sys.stderr is not None:
            print("gapgrid: standard output is closed: there is nowhere to answer",
                  file=sys.stderr)
        sys.exit(EXIT_USAGE)
    use_stand_ins()  # a Latin-1 terminal gets 10D for 10♦, not a crash
    try:
        try:
            main()
        finally:  # a write refused now (a file size limit) is said, not lost at the exit
            if sys.stdout is not None:
                sys.stdout.flush()
    except SystemExit as exiting:
        # click ends a command whose reader went away with 1, a refused move's status
        if exiting.code == 1 and stdout_reader_gone():
            stop_writing_to_stdout()
            sys.exit(EXIT_READER_GONE)
        raise
    except BrokenPipeError:  # the reader went away while click printed an error to it
        stop_writing_to_stdout()
        sys.exit(EXIT_READER_GONE)
    except OSError as error:
        if error.errno not in MACHINE_REFUSED_WRITES:
            _internal_error(error)
        # A full disk is the machine's state, not a bug (``> /dev/full`` shows it).
        where = f" {error.filename}" if error.filename else ""
        tell(f"gapgrid: cannot write{where}: {error.strerror}")
        sys.exit(EXIT_ENVIRONMENT)
    except PluginFault as fault:  # a plugin's bug: its name, and how to do without it
        message = bounded(str(fault))
        _plugin_error(fault.plugin, message, said=message)
    except Exception as error:  # click handles usage errors itself; this is a bug
        _internal_error(error)


def _internal_error(error: Exception) -> NoReturn:
    """Report a bug, naming the exception (as JSON too with --json), and exit with 3: a
    plugin's, by the plugin's name, when its code raised it (:func:`failing_plugin`)."""
    message = bounded(f"{type(error).__name__}: {error}")
    plugin = failing_plugin(error)
    if plugin is not None:
        _plugin_error(plugin, message, said=f"the plugin {plugin} failed: {message}")
    if wants_json(sys.argv[1:]):
        echo_json({"error": {"kind": "internal", "message": message}})
    tell(f"gapgrid: internal error: {message}\n"
          f"gapgrid: please report it with the command that caused it")
    sys.exit(EXIT_INTERNAL_ERROR)


def _plugin_error(plugin: str, message: str, *, said: str) -> NoReturn:
    """Report a plugin's bug (``said`` on standard error, ``message`` in JSON with --json),
    with how to turn the plugin off, and exit with 3."""
    if wants_json(sys.argv[1:]):
        echo_json({"error": {"kind": "plugin", "plugin": plugin, "message": message}})
    tell(f"gapgrid: {said}\n"
         f"gapgrid: report it to the plugin's authors, or turn it off with "
         f"GAPGRID_DISABLE_PLUGINS={plugin}")
    sys.exit(EXIT_INTERNAL_ERROR)


@main.command()
@json_flag
@click.pass_context
def variants(ctx: click.Context, as_json: bool) -> None:
    """List the variants and presets."""
    entries = games.list_variants(load_catalogue(ctx))
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
    catalogue = load_catalogue(ctx)
    dealt = games.deal(catalogue, variant, number, parse_option_pairs(options))
    if as_json:
        echo_json(dealt.document)
        return
    native = dealt.document.get("pysolfc_title")  # only for PySolFC's own games
    title = f" (PySolFC: {native})" if native else ""
    click.echo(f"{game_title(ctx, dealt.rules)}, game {dealt.deal}{title}")
    click.echo(render.render_board(dealt.state.board))


@main.command(context_settings=NUMBER_ARGUMENTS)
@click.argument("arguments", nargs=-1, metavar="VARIANT NUMBER [MOVE]...")
@option_flag
@click.option("--from-save", "save_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Verify a PySolFC saved game (.pso) instead: no VARIANT, NUMBER or MOVE.")
@click.option("--scoring", "scoring", multiple=True, metavar="NAME",
              help="Score with scheme NAME only (repeatable; default: every scheme).")
@click.option("--elapsed", type=SECONDS, metavar="SECONDS",
              help="How long the game took, for time bonuses.")
@click.option("--timed", is_flag=True, help="The game was played in the timed (3-minute) mode.")
@json_flag
@click.pass_context
def verify(ctx: click.Context, arguments: Sequence[str], options: Sequence[str],
           save_file: Path | None, scoring: Sequence[str], elapsed: float | None,
           timed: bool, as_json: bool) -> None:
    """Replay MOVES (F-T, redeal, undo) on game NUMBER of VARIANT, check each, and score
    the game with every scheme (or those --scoring names).

    With no MOVE arguments, or a lone -, the moves are read from standard input,
    separated by whitespace, a chunk at a time (at most GAPGRID_MAX_MOVES
    of them). Exit status 1 when a move is refused, and with --from-save
    also when the layout saved in the file differs from the replay's.
    """
    catalogue = load_catalogue(ctx)
    if save_file is not None:
        if arguments or options:
            raise click.UsageError("--from-save takes the variant, number and moves from the "
                                   "file: give no VARIANT, NUMBER, MOVE or --option")
        saved = read_saved_game(ctx, save_file, "--from-save")
        verification = games.verify_saved_game(catalogue, saved, max_moves=max_moves(),
                                               scoring=scoring, elapsed=elapsed, timed=timed)
    elif len(arguments) < 2:
        raise click.UsageError("give VARIANT and NUMBER (or --from-save FILE)")
    else:
        verification = games.verify_stream(
            catalogue, variant=arguments[0], deal=arguments[1], moves=read_moves(arguments[2:]),
            max_moves=max_moves(), options=parse_option_pairs(options), scoring=scoring,
            elapsed=elapsed, timed=timed)
    report = verification.document
    if as_json:
        echo_json(report)
    else:
        _print_replay(game_title(ctx, verification.rules), report,
                      verification.result.state.board)
        schemes = {name: score for name, score in (report["scores"] or {}).items()
                   if isinstance(score, dict)}
        if schemes and (elapsed is not None or timed):
            _print_time(elapsed, timed, any(score.get("time_scored") for score in
                                            schemes.values()))
        for name, score in schemes.items():
            click.echo(f"{name}: {score['total']} ({score['explanation']})")
        if report.get("saved_layout_matches") is False:
            _print_layout_differences(report)
    if not verification.ok or report.get("saved_layout_matches") is False:
        ctx.exit(EXIT_ILLEGAL_MOVE)


def _print_layout_differences(report: dict[str, Any]) -> None:
    """Say where a saved game's layout differs from its replay, and what may explain it."""
    shown = "; ".join(f"slot {each['slot']}: {each['saved'] or 'a gap'} in the file, "
                      f"{each['replayed'] or 'a gap'} in the replay"
                      for each in report["saved_layout_differences"][:3])
    if report["saved_layout_reseeding_may_explain"]:
        why = ("PySolFC re-seeds the generator of a game numbered 32000 or above when it is "
               "reloaded, which changes the redeals after it")
    else:
        why = ("neither a reload nor anything else PySolFC does explains it in a game "
               "without a redeal or numbered below 32000: the file was changed, or is damaged")
    click.echo(f"The layout saved in the file differs from the replay ({shown}): {why}.")


@main.command("moves", context_settings=NUMBER_ARGUMENTS)
@click.argument("variant")
@click.argument("number")
@click.argument("moves", nargs=-1, metavar="[MOVE]...")
@option_flag
@json_flag
@click.pass_context
def moves_command(ctx: click.Context, variant: str, number: str, moves: Sequence[str],
                  options: Sequence[str], as_json: bool) -> None:
    """Show the position MOVES lead to in game NUMBER of VARIANT, and the legal moves there.

    With no MOVE the position is the deal; a lone - reads the moves from
    standard input. When a move is refused, the position is the one before
    it (exit status 1).
    """
    position = games.position_stream(load_catalogue(ctx), variant=variant, deal=number,
                                     moves=given_moves(moves),
                                     max_moves=max_moves(),
                                     options=parse_option_pairs(options))
    document = position.document
    if as_json:
        echo_json(document)
    else:
        board = position.result.state.board
        _print_replay(game_title(ctx, position.rules), document, board)
        _print_choices(document, board)
    if not position.ok:
        ctx.exit(EXIT_ILLEGAL_MOVE)


@main.command("scoring")
@json_flag
@click.pass_context
def scoring_command(ctx: click.Context, as_json: bool) -> None:
    """List the scoring schemes."""
    schemes = games.list_scoring_schemes(load_catalogue(ctx))
    if as_json:
        echo_json(schemes)
        return
    for info in schemes:
        click.echo(f"{info['name']:<12} {info['summary']}")


def _print_replay(name: str, document: dict[str, Any], board: Board) -> None:
    """The verdict on a replay, and the layout it ended in; moves counted from 1."""
    click.echo(f"{name}, game {document['deal']}")
    error = document["error"]
    applied = document["moves_applied"]
    if error is None:
        outcome = "won" if document["won"] else "not won"
        played = {0: "No move was played", 1: "The 1 move is legal"}.get(
            applied, f"All {applied:,} moves are legal")
        click.echo(f"{played}; the game is {outcome}.")
    else:
        click.echo(f"{ordinal_move(error['index'])} ({error['move']}) is refused: "
                   f"{card_names(error['reason'])}.")
        before = {0: "It is the first move; the layout is the deal:",
                  1: "The move before it is legal; the layout then was:"}.get(
            applied, f"The {applied:,} moves before it are legal; the layout then was:")
        click.echo(before)
    click.echo(render.render_board(board))


def _print_time(elapsed: float | None, timed: bool, scored: bool) -> None:
    """The time given with --elapsed or --timed, and whether the schemes shown score it,
    so that neither option goes unnoticed."""
    parts = [] if elapsed is None else [f"{elapsed:g} s"]
    if timed:
        parts.append("timed mode (3 minutes)")
    note = "" if scored else "; none of the schemes shown scores the time"
    click.echo(f"Time: {', '.join(parts)}{note}.")


def _card_at(board: Board, slot: int) -> str:
    card = board.cells[slot]
    return "··" if card is None else render.card_text(card)


def _print_choices(document: dict[str, Any], board: Board) -> None:
    """What can be played in a position: card moves, a redeal, or nothing."""
    legal = document["legal_moves"]
    if legal:
        click.echo(f"Legal moves ({len(legal)}): " + ", ".join(
            f"{move['move']} ({_card_at(board, move['source'])})" for move in legal))
    left = document["redeals_left"]
    redeal = "a redeal is allowed now" if document["redeal_allowed"] else "no redeal now"
    if left != 0 and document["redeals_cap_left"] == 0:  # the rules have some left
        redeal += (f": the game has asked for the {games.MAX_REDEALS} redeals one game may, undone "
                   f"ones included")
    click.echo(f"Redeals left: {left} ({redeal}).")
    if document["won"]:
        click.echo("The game is won.")
    elif document["stuck"]:
        click.echo("Stuck: no card move is left"
                   + ("; redeal or undo." if document["redeal_allowed"] else "; undo."))


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, metavar="HOST",
              help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=WholeNumberRange(0, 65535),
              metavar="PORT", help="Port to listen on (0: any free port, printed).")
@click.option("--threads", default=8, show_default=True, type=WholeNumberRange(1, 256),
              metavar="N", help="Worker threads.")
@click.pass_context
def serve(ctx: click.Context, host: str, port: int, threads: int) -> None:
    """Run the puzzle API (waitress; SQLite in ./instance unless configured otherwise).

    The first start creates the instance folder and, unless GAPGRID_SECRET_KEY
    is set, a random secret in it. A configuration it cannot serve with (a bad
    setting, a ranking scheme no plugin provides, a database it cannot open or
    one from a newer gapgrid) or an address it cannot listen on (a busy port, a
    host that does not resolve) is refused in one line, exit status 2. Each
    request is logged on standard error: method, path, status, milliseconds.
    """
    # Imported here: Flask and waitress would slow down every other command.
    import logging

    from gapgrid.api.app import create_app
    from gapgrid.api.config import ConfigError, Settings
    from gapgrid.api.db.engine import describe
    from gapgrid.api.routes import EXTENSION
    from gapgrid.api.server import ACCESS_LOG, ServeError, build_server, listening_on
    from gapgrid.api.store import StoreError

    logging.basicConfig(level=logging.INFO, format="gapgrid: %(levelname)s: %(message)s")
    if not ACCESS_LOG.handlers:  # its own line format, on standard error
        access = logging.StreamHandler()
        access.setFormatter(logging.Formatter("gapgrid: access: %(message)s"))
        ACCESS_LOG.addHandler(access)
        ACCESS_LOG.setLevel(logging.INFO)
        ACCESS_LOG.propagate = False
    try:
        settings = Settings.from_environment(create_secret=True)
        app = create_app(settings)
        server = build_server(app, settings, host=host, port=port, threads=threads)
        puzzles = app.extensions[EXTENSION].puzzles
        # said in the banner: a mistyped GAPGRID_DATABASE makes a new one, not an error
        new = puzzles.store.created
        unmade = len(puzzles.unmade_today())
    except (ConfigError, StoreError, ServeError) as error:
        click.echo(f"gapgrid: cannot serve: {error}", err=True)
        ctx.exit(EXIT_USAGE)
    # a PostgreSQL database new to gapgrid may hold other programs' tables
    fresh = "a new, empty database" if isinstance(settings.database, Path) else (
        "a database new to gapgrid")
    database = f"{fresh if new else 'database'} {describe(settings.database)}"
    for address in listening_on(server):
        click.echo(f"gapgrid API on {address}/v1/ and the player's page on {address}/ "
                   f"({database}); Ctrl-C stops it.", err=True)
    if unmade:  # else the first page of the day waits for them, unsaid
        verb = "is" if unmade == 1 else "are"
        click.echo(f"gapgrid: {unmade} of today's puzzles {verb} not made yet: the first "
                   f"requests make them, up to {settings.certify_seconds:g} s of search "
                   f"each; gapgrid puzzles prepare makes them ahead", err=True)
    server.run()


@main.command()
@click.argument("variant")
@click.option("--date", "day", metavar="YYYY-MM-DD", help="Another day than today (UTC).")
@json_flag
@click.pass_context
def daily(ctx: click.Context, variant: str, day: str | None, as_json: bool) -> None:
    """Print today's puzzle of VARIANT: its board, par and difficulty, and how to open it in
    PySolFC.

    Uses the same configuration (GAPGRID_DATABASE, GAPGRID_SECRET_KEY) as
    `gapgrid serve`, so it prints the puzzle the API serves.
    """
    if day is not None:  # before the instance is opened: a mistyped date is said first,
        parse_day(day)  # refused as the days without a puzzle are
    try:
        with database_faults_said():
            puzzle = puzzle_service(ctx).puzzle(day, variant).document
    except ServiceError as error:
        if day is None and error.field[:1] == ("date",):  # today: no --date to blame
            raise SetupError(f"no puzzle today: {error.message} (GAPGRID_FIRST_DAY)"
                             ) from None
        raise
    if as_json:
        echo_json(puzzle)
        return
    catalogue = load_catalogue(ctx)
    native = games.pysolfc_title(catalogue, puzzle["variant"],
                                 parse_deal_number(puzzle["deal"]))
    click.echo(f"{puzzle['name']}, puzzle of {puzzle['date']}: game {puzzle['deal']}"
               + (f" (PySolFC: {native})" if native else ""))
    print_puzzle_facts(catalogue, puzzle)
    click.echo(puzzle["pysolfc"]["how"])
