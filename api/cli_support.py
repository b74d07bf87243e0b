"""Shared pieces of the command line: the command group that turns refusals into usage
errors (JSON ones under ``--json``), commands that refuse a repeated option, the catalogue
loaded once per command, reading arguments, standard input and files into the plain
values the service layer takes, opening the puzzle service, and JSON output.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import math
import os
import select
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Final

import click

from gapgrid import plugins
from gapgrid.api.config import (
    ConfigError,
    Settings,
    driver_reason,
    max_moves_from_environment,
    unusable_database,
)
from gapgrid.api.pysolfc.savefile import MAX_FILE_BYTES
from gapgrid.api.reading import read_at_most
from gapgrid.api.services import games
from gapgrid.api.services.errors import Fault, ServiceError
from gapgrid.api.services.puzzles import PuzzleService
from gapgrid.api.stand_ins import plain_json
from gapgrid.api.study_stop import signal_of, signal_word
from gapgrid.api.text import bounded, excerpt, plugin_problem_line
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.rules import Rules

EXIT_ILLEGAL_MOVE: Final = 1
EXIT_USAGE: Final = 2
EXIT_INTERRUPTED: Final = 128 + signal.SIGINT
"""Ctrl-C: 128 plus SIGINT's number, as a shell reports a command the signal ended (not 1,
which says a move was refused)."""
EXIT_READER_GONE: Final = 128 + signal.SIGPIPE
"""The reader of standard output went away (``| head -1``): what a shell reports for a
command SIGPIPE stopped, neither a refused move (1) nor a usage error (2)."""

# Let "-5" reach the NUMBER argument, so it gets a precise "game numbers
# are positive" instead of "no such option".
NUMBER_ARGUMENTS: Final = {"ignore_unknown_options": True}

ARGUMENT_OF_FIELD: Final = {
    "variant": "VARIANT", "deal": "NUMBER", "moves": "MOVE", "options": "--option",
    "scoring": "--scoring", "elapsed": "--elapsed", "timed": "--timed", "file": "FILE",
    "date": "--date", "save": "--from-save",
}
"""The service layer's field names, as the command line's arguments are called."""

READ_CHUNK: Final = 64 * 1024
"""Characters of standard input read at a time: all the memory reading moves takes."""


class JsonUsageError(click.ClickException):
    """A usage error printed as JSON on standard output, for a command given ``--json``:
    ``{"error": {"kind": "usage", "message": ..., "parameter": ...}}``, exit status 2."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, parameter: str | None) -> None:
        super().__init__(message)
        self.parameter = parameter

    def show(self, file: IO[Any] | None = None) -> None:
        """Print the error document on standard output (where the answer would have been)."""
        echo_json({"error": {"kind": "usage", "message": self.message,
                             "parameter": self.parameter}})


class SetupError(click.ClickException):
    """The environment cannot be used (the instance folder, the database, the secret): one
    line on standard error, exit status 2, as a usage error; ``{"error": {"kind":
    "environment", ...}}`` on standard output under ``--json``."""

    exit_code = EXIT_USAGE
    kind = "environment"
    """The error document's ``kind`` under ``--json``."""

    def show(self, file: IO[Any] | None = None) -> None:
        """Print ``gapgrid: <the reason>``."""
        click.echo(f"gapgrid: {self.format_message()}", err=True)


class Unavailable(SetupError):
    """What the arguments ask for is not there yet, or not at all (a solution not open
    yet): one line and exit status 2 as a :class:`SetupError`, not a usage block, since
    the arguments are well formed; ``kind`` ``"unavailable"`` under ``--json``."""

    kind = "unavailable"


class JsonSetupError(SetupError):
    """A :class:`SetupError` under ``--json``."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind

    def show(self, file: IO[Any] | None = None) -> None:
        """Print the error document on standard output."""
        echo_json({"error": {"kind": self.kind, "message": self.message}})


class GapgridCommand(click.Command):
    """A command that refuses an option given twice, rather than keeping the last value
    silently (``--elapsed 5 --elapsed 50``); options meant to repeat (``--option``,
    ``--scoring``) and on/off flags may repeat."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Refuse a repeated single-value option, and an unknown ``--name`` where unknown
        options reach the arguments (:data:`NUMBER_ARGUMENTS`, for "-5"); then parse as
        click does."""
        options = [param for param in self.get_params(ctx) if isinstance(param, click.Option)]
        known = {name for option in options for name in (*option.opts, *option.secondary_opts)}
        single = {name: option for option in options
                  if not option.multiple and not option.is_flag and not option.count
                  for name in (*option.opts, *option.secondary_opts)}
        seen: set[str] = set()
        for arg in args:
            if arg == "--":
                break
            name = arg.split("=", 1)[0] if arg.startswith("--") else arg
            if ctx.ignore_unknown_options and name.startswith("--") and name not in known:
                # no game number or move starts with "--": without this, "--budget" would
                # be refused as a move
                raise click.NoSuchOption(name, possibilities=sorted(known), ctx=ctx)
            option = single.get(name)
            if option is None:
                continue
            if option.name in seen:
                raise click.UsageError(f"{option.opts[0]} is given twice; give it once",
                                       ctx=ctx)
            seen.add(str(option.name))
        return super().parse_args(ctx, args)


class GapgridGroup(click.Group):
    """The ``gapgrid`` command group: a use case's refusal is a usage error naming the
    argument at fault, and with ``--json`` every usage error is a JSON document. Messages
    that quote a long argument are cut (click quotes arguments whole)."""

    command_class = GapgridCommand

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Remember the arguments: whether ``--json`` was asked for is needed even when
        parsing them fails."""
        ctx.meta.setdefault("gapgrid.args", list(args))
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command, translating refusals, usage errors and Ctrl-C."""
        try:
            try:
                return super().invoke(ctx)
            except ServiceError as error:
                if error.fault is Fault.BUSY:  # another process's work, not the arguments
                    raise SetupError(error.message) from None
                raise usage_error(error) from None
            except KeyboardInterrupt as interruption:
                number = signal_of(interruption)
                word = signal_word(number)
                tell(f"\ngapgrid: {word}")  # after the "^C" a terminal shows, on a line of its own
                if json_asked(ctx):
                    # a program reading standard output gets a document there, as for
                    # a usage error, not an empty stream
                    cause = "SIGTERM" if number == signal.SIGTERM else "Ctrl-C"
                    echo_json({"error": {"kind": word,
                                         "message": f"{word} ({cause}) before an answer"}})
                ctx.exit(128 + number)  # 130 after Ctrl-C, 143 after SIGTERM, as a shell says
        except click.ClickException as error:
            # click declares message final, but its own messages quote arguments whole
            error.message = bounded(error.message)  # type: ignore[misc]
            if type(error) is click.BadParameter:
                # A value refused: said alike whether click, a check in the command or the
                # service found it (click adds the usage block to the first two only). A
                # command line of the wrong shape keeps it: a missing argument, an unknown
                # option. Named as gapgrid's own checks name it (click quotes: '--budget').
                error.ctx = None
                error.param_hint = _parameter_of(error)
            as_json = json_asked(ctx)
            if as_json and isinstance(error, click.UsageError):
                raise JsonUsageError(error.format_message(), _parameter_of(error)) from None
            if as_json and isinstance(error, SetupError) and not isinstance(
                    error, JsonSetupError):
                raise JsonSetupError(error.message, error.kind) from None
            raise


def tell(message: str) -> None:
    """Say ``message`` on standard error, if it can be written: when standard error is full
    (``2>/dev/full``), the exit status is all there is to say it with (a failure here turned
    a usage error's 2, or an interruption's 130, into another status)."""
    with contextlib.suppress(OSError):
        click.echo(message, err=True)


def stdout_reader_gone() -> bool:
    """Whether standard output is a pipe whose reader went away (``| head -1`` once it has
    its line): the descriptor then polls as an error, a file or a terminal never does."""
    poller = select.poll()
    poller.register(1, select.POLLOUT)
    return any(mask & select.POLLERR for _, mask in poller.poll(0))


def stop_writing_to_stdout() -> None:
    """Point standard output's descriptor at the null device once its reader went away, so
    that the interpreter's last flush of what is still buffered does not fail again and
    print a traceback at exit."""
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
    finally:
        os.close(null)


def wants_json(args: Sequence[str]) -> bool:
    """Whether ``--json`` is among the options (not after a ``--``)."""
    options = args[:args.index("--")] if "--" in args else args
    return "--json" in options


def json_asked(ctx: click.Context) -> bool:
    """Whether the command line asked for ``--json``, unless it is of a command that has
    none: ``gapgrid serve --json``, whose refusal is that serve has no such option, says
    so as text. An unknown command may be a misspelt one that has it: JSON, where one of
    its group's commands has ``--json`` (``gapgrid sovle``), text where none has
    (``gapgrid db imprt``)."""
    args: list[str] = ctx.meta.get("gapgrid.args", [])
    if not wants_json(args):
        return False
    command: click.Command = ctx.find_root().command
    for arg in args:  # the command's name, and a group's command's, come before "--json"
        if arg == "--json" or not isinstance(command, click.Group):
            break
        if not arg.startswith("-"):
            found = command.get_command(ctx, arg)
            if found is None:
                return _has_json(ctx, command)
            command = found
    return _takes_json(command)


def _takes_json(command: click.Command) -> bool:
    """Whether ``command`` itself has ``--json``."""
    return any("--json" in param.opts for param in command.params)


def _has_json(ctx: click.Context, command: click.Command) -> bool:
    """Whether ``command``, or a command of it where it is a group, has ``--json``."""
    if _takes_json(command):
        return True
    if not isinstance(command, click.Group):
        return False
    return any(_has_json(ctx, sub) for name in command.list_commands(ctx)
               if (sub := command.get_command(ctx, name)) is not None)


def usage_error(error: ServiceError) -> click.BadParameter:
    """A use case's refusal as a usage error naming the argument the faulty field came from."""
    head = error.field[0] if error.field else None
    hint = ARGUMENT_OF_FIELD.get(head) if isinstance(head, str) else None
    message = error.message
    if error.fault is Fault.UNKNOWN_VARIANT:
        message += " (`gapgrid variants` lists them)"
    return click.BadParameter(message, param_hint=hint)


def no_colour(environ: Any = None) -> bool:
    """Whether the user asked for no colour: ``NO_COLOR`` set to anything (no-color.org),
    or a terminal that shows none (``TERM=dumb``)."""
    env = os.environ if environ is None else environ
    return bool(env.get("NO_COLOR")) or env.get("TERM") == "dumb"


def _parameter_of(error: click.UsageError) -> str | None:
    hint = getattr(error, "param_hint", None)
    if isinstance(hint, str):
        return hint
    if hint:
        return " / ".join(hint)
    param = getattr(error, "param", None)
    if isinstance(param, click.Option):
        return param.opts[0]
    if isinstance(param, click.Parameter):
        return param.human_readable_name
    return None


class Seconds(click.ParamType):  # type: ignore[type-arg]
    """A number of seconds (the service decides which durations it accepts)."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        """Read the number (ASCII digits, as NUMBER; ``-0`` is 0); a usage error naming the
        option when it is none."""
        try:
            # float() reads other scripts' digits too, and 1_0 as 10
            if not str(value).isascii() or "_" in str(value):
                raise ValueError(value)
            return float(value) + 0.0  # -0.0 + 0.0 is 0.0: never "Time: -0 s"
        except ValueError:
            self.fail(f"{excerpt(value)} is not a number of seconds", param, ctx)


SECONDS = Seconds()


class FiniteFloatRange(click.FloatRange):
    """:class:`click.FloatRange` that refuses ``nan``: every comparison with NaN is false, so
    a range alone lets it through, and a NaN budget would be no budget at all."""

    name = "number"  # "'abc' is not a valid number", not "... a valid float range"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        """The number, in range and not NaN; a usage error naming the option otherwise."""
        _refuse_other_digits(self, value, param, ctx)
        number = super().convert(value, param, ctx)
        if math.isnan(number):
            self.fail(f"{excerpt(value)} is not a number", param, ctx)
        return number

    def _describe_range(self) -> str:
        return _range_in_words(self)


class WholeNumberRange(click.IntRange):
    """:class:`click.IntRange` of ASCII digits only, as game numbers are: Python reads
    ``١٠٠`` (Arabic-Indic digits) as 100, which a user did not type as such."""

    name = "whole number"  # "'abc' is not a valid whole number", not "... integer range"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        """The whole number, in range; a usage error naming the option otherwise."""
        _refuse_other_digits(self, value, param, ctx)
        return super().convert(value, param, ctx)

    def _describe_range(self) -> str:
        return _range_in_words(self)


def _range_in_words(kind: click.IntRange | click.FloatRange) -> str:
    """A range for the help, written as click writes one (``1<=x<=64``, ``x>=0``), but
    nothing for a range without bounds (click printed ``x<=None``): its limits, if any, are
    checked and said elsewhere. Written here rather than taken from click's own (private)
    method, whose output a click release may change under us."""
    low = "" if kind.min is None else f"{kind.min}{'<' if kind.min_open else '<='}"
    high = "" if kind.max is None else f"{'<' if kind.max_open else '<='}{kind.max}"
    if not (low or high):
        return ""
    if not low:
        return f"x{high}"
    if not high:  # click writes a lower bound alone as x>=N
        return f"x{'>' if kind.min_open else '>='}{kind.min}"
    return f"{low}x{high}"


def _refuse_other_digits(kind: click.ParamType[Any], value: Any, param: click.Parameter | None,
                         ctx: click.Context | None) -> None:
    """A usage error for a number typed with characters other than ASCII ones, or with the
    underscores Python reads between digits (``1_0`` is 10 to it, not to a user)."""
    if isinstance(value, str) and not (value.isascii() and "_" not in value):
        kind.fail(f"{excerpt(value)} is not a number written in ASCII digits", param, ctx)


def load_catalogue(ctx: click.Context) -> Catalogue:
    """Load the plugins once per command; report any that failed on standard error."""
    obj = ctx.ensure_object(dict)
    if "catalogue" not in obj:
        catalogue = plugins.load_catalogue()
        for problem in catalogue.problems:
            click.echo(f"gapgrid: {plugin_problem_line(problem)}", err=True)
        obj["catalogue"] = catalogue
    return obj["catalogue"]  # type: ignore[no-any-return]


def game_title(ctx: click.Context, rules: Rules) -> str:
    """The game's name for a heading, with the options that make its rules differ from its
    variant's or preset's own: ``Montana (redeals=0)``, so that the text says which rules
    were played (the JSON documents carry every option)."""
    own = load_catalogue(ctx).rules(rules.slug).options
    changed = [f"{key}={value}" for key, value in sorted(rules.options.items())
               if own.get(key) != value]
    return f"{rules.name} ({', '.join(changed)})" if changed else rules.name


def parse_option_pairs(pairs: Sequence[str]) -> dict[str, str]:
    """Turn ``KEY=VALUE`` strings into a dict; a malformed pair, or a key given twice, is a
    usage error."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not key.strip():
            raise click.BadParameter(f"{excerpt(pair)} is not KEY=VALUE", param_hint="--option")
        key, value = key.strip(), value.strip()
        if key in options:
            raise click.BadParameter(f"{excerpt(key)} is given twice ({excerpt(options[key])} "
                                     f"and {excerpt(value)}); give it once",
                                     param_hint="--option")
        options[key] = value
    return options


def max_moves() -> int:
    """``GAPGRID_MAX_MOVES``, the cap the HTTP API enforces too; a usage error if unusable."""
    try:
        return max_moves_from_environment()
    except ValueError as error:  # ConfigError, naming the variable
        raise click.UsageError(str(error)) from None


STDIN_MOVES: Final = "-"
"""A lone MOVE ``-`` reads the moves from standard input (no move is written ``-``)."""


def given_moves(moves: Sequence[str]) -> Iterator[str]:
    """The MOVE arguments one at a time; a lone ``-`` reads them from standard input
    (:func:`read_moves`)."""
    return read_moves(moves) if STDIN_MOVES in moves else iter(moves)


def read_moves(moves: Sequence[str]) -> Iterator[str]:
    """The moves from the arguments, or else (none, or a lone ``-``) whitespace-separated
    from standard input, one at a time (:func:`stdin_words`): a use case that stops at a
    refused move stops reading, and one that refuses another argument first reads nothing."""
    if STDIN_MOVES in moves and len(moves) > 1:
        raise click.BadParameter(f"{STDIN_MOVES} reads the moves from standard input: give "
                                 f"it alone, or the moves without it", param_hint="MOVE")
    if moves and STDIN_MOVES not in moves:
        yield from moves
        return
    if sys.stdin is None:  # started with standard input closed (``<&-``)
        raise click.BadParameter("the moves are read from standard input, which is closed: "
                                 "give them as arguments", param_hint="MOVE")
    stdin = sys.stdin.buffer  # bytes: input that is not UTF-8 is refused as moves, not a crash
    if stdin.isatty():
        click.echo("gapgrid: reading moves from standard input (end with Ctrl-D)", err=True)
    try:
        yield from stdin_words(stdin, games.MAX_MOVE_TEXT)
    except OSError as error:  # a descriptor not open for reading (``0<&3`` of a file written)
        raise click.BadParameter(f"cannot read standard input: {error.strerror or error}",
                                 param_hint="MOVE") from None


def stdin_words(stream: IO[bytes], longest: int) -> Iterator[str]:
    """Whitespace-separated words of ``stream`` (UTF-8; undecodable bytes become U+FFFD),
    read :data:`READ_CHUNK` bytes at a time.

    A word longer than ``longest`` is handed on as soon as it is seen to be,
    cut where it was when seen, without reading the rest of it: the caller
    refuses it, so a 50 MB word costs one chunk of memory, not 50 MB.
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    partial = ""
    while True:
        data = stream.read(READ_CHUNK)
        text = partial + decoder.decode(data, final=not data)
        words = text.split()
        partial = words.pop() if words and not text[-1].isspace() else ""
        yield from words
        if len(partial) > longest or not data:
            break
    if partial:
        yield partial


def echo_json(data: Any) -> None:
    """Print ``data`` as JSON on one line: in UTF-8 as it is, else in ASCII with escapes
    (a Latin-1 terminal's stand-ins would change names and reasons). Text that is no
    Unicode (a file name's bytes, which Python keeps as lone surrogates) is escaped too:
    written as it is, it would make the document no UTF-8, which JSON readers refuse."""
    text = json.dumps(data, ensure_ascii=plain_json())
    if not text.isascii() and _has_lone_surrogate(text):
        text = json.dumps(data, ensure_ascii=True)
    click.echo(text)


def _has_lone_surrogate(text: str) -> bool:
    """Whether ``text`` holds a surrogate code point, which no UTF-8 text can."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


json_flag = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
option_flag = click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE",
                           help="A rule option, e.g. redeals=unlimited (repeatable).")


def read_saved_game(ctx: click.Context, path: Path, argument: str = "FILE"
                    ) -> games.SavedGameFile:
    """Read a PySolFC saved game and find its game; if not, a usage error naming the file and
    the ``argument`` it was given as."""
    try:
        data = read_at_most(path, MAX_FILE_BYTES + 1)  # one more: too large
    except OSError as error:
        raise click.BadParameter(f"cannot read {path}: {error.strerror or error}",
                                 param_hint=argument) from None
    try:
        return games.read_saved_game(load_catalogue(ctx), data)
    except ServiceError as error:
        raise click.BadParameter(f"{path}: {error.message}", param_hint=argument) from None


def api_settings() -> Settings:
    """The service settings from the environment (the secret read from the instance folder,
    never created); a :class:`SetupError` when one is unusable."""
    try:
        return Settings.from_environment()
    except ConfigError as error:
        raise SetupError(str(error)) from None


@contextmanager
def database_faults_said() -> Iterator[None]:
    """Say a database that fails once open (a SQLite file damaged past its header, one
    written by a newer gapgrid, a PostgreSQL server gone) in one line, exit status 2, as
    for one that cannot be opened: the environment's fault, not a bug to report. Only the
    database's own errors: an output error inside is not the database's."""
    from gapgrid.api.db.engine import BUG_ERRORS, USE_ERRORS, StoreError, describe

    try:
        yield
    except StoreError as error:
        raise SetupError(str(error)) from None
    except USE_ERRORS as error:
        if isinstance(error, BUG_ERRORS):
            raise
        raise SetupError(f"cannot use the database {describe(api_settings().database)} "
                         f"(GAPGRID_DATABASE): {driver_reason(error)}") from None


def require_database_folder(database: Path | str) -> None:
    """A :class:`SetupError` when the SQLite file's folder does not exist: a command run
    in the wrong place, or a mistyped GAPGRID_DATABASE, is told so instead of making a new
    instance there (only ``gapgrid serve`` and ``puzzles prepare`` make one)."""
    folder = database.parent if isinstance(database, Path) else None
    try:
        missing = folder is not None and not folder.is_dir()
    except OSError:  # not even looked at (a name too long): opening it says why
        missing = False
    if missing:
        raise SetupError(f"no gapgrid instance at {folder}: run this where `gapgrid serve` "
                         f"runs, or set GAPGRID_INSTANCE to its folder (or GAPGRID_DATABASE "
                         f"to its database)")


def puzzle_service(ctx: click.Context) -> PuzzleService:
    """The puzzles of the server configured in the environment, for commands that read
    them; never creates an instance folder where there is none (the command may be run
    anywhere), and an unusable folder or database is a :class:`SetupError`."""
    from gapgrid.api.db.engine import OPEN_ERRORS, StoreError  # SQLAlchemy: only here

    settings = api_settings()
    require_database_folder(settings.database)
    try:
        return PuzzleService.open(settings, load_catalogue(ctx))
    except OPEN_ERRORS as error:
        raise SetupError(str(unusable_database(settings, error))) from None
    except StoreError as error:  # written by a newer gapgrid, or another program's file
        raise SetupError(str(error)) from None
