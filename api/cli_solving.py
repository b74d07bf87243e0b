"""The solver's commands: ``gapgrid solve`` and ``gapgrid hint``, thin adapters over
:mod:`gapgrid.api.services.solving`.

* ``gapgrid solve VARIANT NUMBER [MOVE ...] [--option K=V ...] [--budget SECONDS]
  [--memory MIB] [--json]``
* ``gapgrid solve VARIANT --layout FILE [MOVE ...] [--option redeals=0] [--budget S]
  [--memory MIB] [--json]``
* ``gapgrid hint VARIANT NUMBER [MOVE ...] [--option K=V ...] [--budget SECONDS]
  [--memory MIB] [--json]``

Exit status 0 whenever a search ran, whatever it found; 1 when a move was
refused (no search runs: the answer says which move, as ``gapgrid verify``
does); 2 for a usage error; 130 after Ctrl-C and 143 after SIGTERM, which stop a
search with a line on standard error (and a JSON document under ``--json``). On a
terminal a search that lasts shows a live progress line on standard error, rewritten
in place and erased at the end; never with ``--json``, and never when either output
is not a terminal, so nothing of it reaches a pipe or a log.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import click

from gapgrid.api import render
from gapgrid.api.cli_support import (
    EXIT_ILLEGAL_MOVE,
    NUMBER_ARGUMENTS,
    STDIN_MOVES,
    FiniteFloatRange,
    GapgridCommand,
    WholeNumberRange,
    echo_json,
    game_title,
    given_moves,
    json_flag,
    load_catalogue,
    max_moves,
    option_flag,
    parse_option_pairs,
)
from gapgrid.api.machine_memory import MIN_MEMORY_MIB, check_memory
from gapgrid.api.reading import read_at_most
from gapgrid.api.services import solving
from gapgrid.api.services.errors import ServiceError
from gapgrid.api.study_stop import stop_signals
from gapgrid.api.text import card_names, excerpt
from gapgrid.core.search import DEFAULT_MEMORY, SEARCH_MODES, Progress, SearchMode

SHOW_AFTER: Final = 0.5
"""Seconds of search before the progress line appears: a quick answer needs none."""

REDRAW_EVERY: Final = 0.1
"""Seconds between two redraws of the progress line."""

OPTION_OF_FIELD: Final = {"budget": "--budget", "layout": "--layout"}
"""Fields of the solving use cases that come from this module's own options."""


class ProgressLine:
    """The live line a long search shows on a terminal: positions, rate, elapsed, left.

    It writes to standard error with a carriage return, so each redraw
    replaces the last, and :meth:`close` erases it. It stays silent unless
    ``enabled``.
    """

    def __init__(self, enabled: bool, stream: Any = None) -> None:
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.started = time.monotonic()
        self.drawn_at = 0.0
        self.width = 0

    def __call__(self, progress: Progress) -> None:
        """Redraw the line for ``progress`` (the solver calls this every ~1,000 positions)."""
        if not self.enabled:
            return
        now = time.monotonic()
        if progress.seconds < SHOW_AFTER or now - self.drawn_at < REDRAW_EVERY:
            return
        self.drawn_at = now
        rate = progress.positions / progress.seconds if progress.seconds > 0 else 0.0
        text = (f"searching: {progress.positions:,} positions ({rate:,.0f}/s), "
                f"{progress.seconds:.1f} s elapsed")
        if progress.budget.seconds is not None:
            left = max(progress.budget.seconds - progress.seconds, 0.0)
            text += f", {left:.1f} s left"
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()
        self.width = len(text)

    def close(self) -> None:
        """Erase the line, if one was drawn."""
        if self.enabled and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


def progress_line(as_json: bool) -> ProgressLine:
    """A progress line, enabled only for text output with both outputs on a terminal."""
    return ProgressLine(not as_json and sys.stdout.isatty() and sys.stderr.isatty())


budget_flag = click.option(
    "--budget", type=FiniteFloatRange(min=0, min_open=True, max=solving.MAX_BUDGET_SECONDS),
    default=solving.DEFAULT_BUDGET_SECONDS, show_default=True, metavar="SECONDS",
    help=f"Search for at most this long (at most {solving.MAX_BUDGET_SECONDS:g} s).")


def _memory_bytes(ctx: click.Context, param: click.Parameter, mib: int) -> int:
    """--memory in bytes, refused when given above three quarters of the memory this
    process may use (:func:`gapgrid.api.machine_memory.check_memory`). The default is
    not refused on a smaller machine: there it is a cap the search seldom reaches in
    its budget."""
    given = param.name is not None and ctx.get_parameter_source(param.name) not in (
        click.core.ParameterSource.DEFAULT, None)
    if given:
        check_memory(mib)
    return mib << 20


memory_flag = click.option(
    "--memory", type=WholeNumberRange(min=MIN_MEMORY_MIB), default=DEFAULT_MEMORY >> 20,
    show_default=True, metavar="MIB", callback=_memory_bytes,
    help="The search's tables may hold this many MiB (an estimate; the process needs some "
         "more). Once they are full no loss can be proven: the rollouts go on looking for "
         "a win until the budget's end.")


def _translate(error: ServiceError) -> ServiceError | click.BadParameter:
    """A refusal about this module's own options names the option; others pass through
    to the command group, which names the argument."""
    head = error.field[0] if error.field else None
    if isinstance(head, str) and head in OPTION_OF_FIELD:
        return click.BadParameter(error.message, param_hint=OPTION_OF_FIELD[head])
    return error


def _is_standard_input(path: Path) -> bool:
    """Whether ``path`` names this process's standard input (``/dev/stdin``, a pipe's
    ``/proc/self/fd/0``)."""
    try:
        return os.path.samestat(os.stat(path), os.fstat(0))
    except (OSError, ValueError):  # no such file, or standard input closed
        return False


def _read_layout_file(path: Path) -> object:
    """The rows in a layout file, read with a size limit and a time limit."""
    try:
        data = read_at_most(path, solving.LAYOUT_MAX_BYTES + 1)  # one more: too large
    except OSError as error:
        raise click.BadParameter(f"cannot read {path}: {error.strerror or error}",
                                 param_hint="--layout") from None
    return solving.read_layout(data)


def _position(ctx: click.Context, arguments: Sequence[str], options: Sequence[str],
              layout: Path | None) -> solving.Replayed:
    """The position the arguments name: VARIANT NUMBER [MOVE ...], or VARIANT [MOVE ...]
    with --layout."""
    catalogue = load_catalogue(ctx)
    chosen = parse_option_pairs(options)
    if layout is not None:
        if not arguments:
            raise click.UsageError("give VARIANT (and no NUMBER: the layout is the position)")
        if len(arguments) > 1 and arguments[1].isdigit():  # a move is never a bare number
            raise click.UsageError(f"NUMBER ({excerpt(arguments[1])}) and --layout exclude "
                                   f"each other: the layout is the position, and any MOVE "
                                   f"after VARIANT starts from it")
        if STDIN_MOVES in arguments[1:] and _is_standard_input(layout):
            raise click.UsageError("--layout reads standard input, so the moves cannot be "
                                   "read there too: give them as arguments")
        solving.layout_rules(catalogue, arguments[0], chosen)  # before reading the file
        return solving.layout_position(catalogue, variant=arguments[0],
                                       rows=_read_layout_file(layout),
                                       moves=given_moves(arguments[1:]),
                                       max_moves=max_moves(), options=chosen)
    if len(arguments) < 2:
        raise click.UsageError("give VARIANT and NUMBER (or VARIANT and --layout FILE)")
    return solving.replayed(catalogue, variant=arguments[0], deal=arguments[1],
                            moves=given_moves(arguments[2:]), max_moves=max_moves(),
                            options=chosen)


def _print_position(ctx: click.Context, position: solving.Replayed,
                    document: dict[str, Any]) -> None:
    """Where the search starts: the game, and the refused move if there is one."""
    game = "a layout" if position.deal is None else f"game {position.deal}"
    click.echo(f"{game_title(ctx, position.rules)}, {game}, after {document['moves_applied']} "
               f"move{'' if document['moves_applied'] == 1 else 's'}")
    error = document["error"]
    if error is not None:
        click.echo(f"Move {error['index'] + 1} ({error['move']}) is refused: "
                   f"{card_names(error['reason'])}. Nothing was searched; the layout before it:")
        click.echo(render.render_board(position.state.board))


def _stopped(document: dict[str, Any]) -> str:
    """What stopped an unknown search, in words."""
    if document["stopped_by"] == "memory":
        return "the tables filled their --memory, so no loss could be proven"
    return f"stopped by {document['stopped_by']}"


def _effort(document: dict[str, Any]) -> str:
    return (f"{document['positions']:,} positions, {document['seconds']:.2f} s, solver "
            f"{document['solver_version']}")


@click.command("solve", cls=GapgridCommand, context_settings=NUMBER_ARGUMENTS)
@click.argument("arguments", nargs=-1, metavar="VARIANT [NUMBER] [MOVE]...")
@option_flag
@click.option("--layout", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help='Solve the position in FILE ({"rows": [[card code or null, ...], ...]}, '
                   "as deal --json prints) instead of a game number; only for rules without "
                   "redeals.")
@budget_flag
@click.option("--max-positions", type=WholeNumberRange(min=1), default=None, metavar="P",
              help="Also stop after P positions: a budget that gives the same answer on "
                   "any machine, however loaded (with a --budget long enough not to stop "
                   "the search first).")
@memory_flag
@click.option("--search", type=click.Choice(SEARCH_MODES), default="whole", show_default=True,
              help="What the solver runs: every search it has, or the complete restarts "
                   "alone with the whole budget, the search that proves a loss in a large "
                   "space (for a deal the whole search leaves unknown), or the entry probes "
                   "alone, a search for the wins the complete restarts reach late (once "
                   "their tables are full either stops there, unknown).")
@json_flag
@click.pass_context
def solve_command(ctx: click.Context, arguments: Sequence[str], options: Sequence[str],
                  layout: Path | None, budget: float, max_positions: int | None,
                  memory: int, search: SearchMode, as_json: bool) -> None:
    """Search for a win from the deal of game NUMBER of VARIANT, or from the position MOVES
    lead to: won (with a line of actions that wins), lost (no line wins), or unknown
    (the budget ran out).

    A lone - as MOVE reads the moves from standard input.
    """
    try:
        # From here to the answer, Ctrl-C and SIGTERM stop the command at once, and a second
        # signal cannot cut short the saying so (api/study_stop.py)
        with stop_signals(interruptible=True) as stop:
            position = _position(ctx, arguments, options, layout)
            line = progress_line(as_json)
            try:
                solved = solving.solve_position(position, seconds=budget, memory=memory,
                                                progress=line, search=search,
                                                positions=max_positions)
            finally:
                line.close()
                stop.interruptible = False  # the answer is printed whole
    except ServiceError as error:
        raise _translate(error) from None
    document = solved.document
    if as_json:
        echo_json(document)
    else:
        _print_position(ctx, position, document)
        verdict = document["verdict"]
        if verdict == "won":
            moves = document["line"]
            click.echo(f"Won: a line of {len(moves)} actions wins ({_effort(document)}):")
            click.echo(" ".join(moves) if moves else "(the position is won already)")
        elif verdict == "lost":
            click.echo(f"Lost: no line of actions wins from here ({_effort(document)}).")
        elif verdict == "unknown":
            click.echo(f"Unknown: no win and no proof of a loss within the budget "
                       f"({_stopped(document)}; {_effort(document)}).")
    if not position.result.ok:
        ctx.exit(EXIT_ILLEGAL_MOVE)


@click.command("hint", cls=GapgridCommand, context_settings=NUMBER_ARGUMENTS)
@click.argument("variant")
@click.argument("number")
@click.argument("moves", nargs=-1, metavar="[MOVE]...")
@option_flag
@budget_flag
@memory_flag
@json_flag
@click.pass_context
def hint_command(ctx: click.Context, variant: str, number: str, moves: Sequence[str],
                 options: Sequence[str], budget: float, memory: int, as_json: bool) -> None:
    """The next action of a winning line from the position MOVES lead to in game NUMBER of
    VARIANT, and how many actions the line has left; or that the position is lost; or that
    no win was found within the budget.

    A lone - as MOVE reads the moves from standard input.
    """
    try:
        with stop_signals(interruptible=True) as stop:  # as for solve
            position = solving.replayed(load_catalogue(ctx), variant=variant, deal=number,
                                        moves=given_moves(moves), max_moves=max_moves(),
                                        options=parse_option_pairs(options))
            line = progress_line(as_json)
            try:
                hinted = solving.hint(position, seconds=budget, memory=memory, progress=line)
            finally:
                line.close()
                stop.interruptible = False
    except ServiceError as error:
        raise _translate(error) from None
    document = hinted.document
    if as_json:
        echo_json(document)
    else:
        _print_position(ctx, position, document)
        verdict = document["verdict"]
        if verdict == "won" and document["next"] is None:
            click.echo("The game is won: nothing is left to play.")
        elif verdict == "won":
            remaining = document["remaining"]
            click.echo(f"Hint: {document['next']} ({remaining} action"
                       f"{'' if remaining == 1 else 's'} to win, this one included; "
                       f"{_effort(document)}).")
        elif verdict == "lost":
            advice = "undo some moves" if document["moves_applied"] else "the deal cannot be won"
            click.echo(f"Lost: no line wins from here; {advice} ({_effort(document)}).")
        elif verdict == "unknown":
            click.echo(f"No win found within the budget ({_effort(document)}).")
    if not position.result.ok:
        ctx.exit(EXIT_ILLEGAL_MOVE)
