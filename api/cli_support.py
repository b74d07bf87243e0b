"""Shared pieces of the command line: the command group that turns refusals into usage
errors (JSON ones under ``--json``), the catalogue loaded once per command, reading
arguments and files into the plain values the service layer takes, and JSON output.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any, Final

import click

from gapgrid import plugins
from gapgrid.api.config import ConfigError, Settings
from gapgrid.api.pysolfc.savefile import MAX_FILE_BYTES
from gapgrid.api.services import games
from gapgrid.api.services.errors import ServiceError
from gapgrid.core.catalogue import Catalogue

EXIT_ILLEGAL_MOVE: Final = 1
EXIT_USAGE: Final = 2

# Let "-5" reach the NUMBER argument, so it gets a precise "game numbers
# are positive" instead of "no such option".
NUMBER_ARGUMENTS: Final = {"ignore_unknown_options": True}

ARGUMENT_OF_FIELD: Final = {
    "variant": "VARIANT", "deal": "NUMBER", "moves": "MOVE", "options": "--option",
    "scoring": "--scoring", "elapsed": "--elapsed", "timed": "--timed", "file": "FILE",
    "date": "--date",
}
"""The service layer's field names, as the command line's arguments are called."""


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


class GapgridGroup(click.Group):
    """The ``gapgrid`` command group: a use case's refusal is a usage error naming the
    argument at fault, and with ``--json`` every usage error is a JSON document."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Remember the arguments: whether ``--json`` was asked for is needed even when
        parsing them fails."""
        ctx.meta.setdefault("gapgrid.args", list(args))
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command, translating refusals and usage errors."""
        try:
            try:
                return super().invoke(ctx)
            except ServiceError as error:
                raise usage_error(error) from None
        except click.UsageError as error:
            if not wants_json(ctx.meta.get("gapgrid.args", [])):
                raise
            raise JsonUsageError(error.format_message(), _parameter_of(error)) from None


def wants_json(args: Sequence[str]) -> bool:
    """Whether ``--json`` is among the options (not after a ``--``)."""
    options = args[:args.index("--")] if "--" in args else args
    return "--json" in options


def usage_error(error: ServiceError) -> click.BadParameter:
    """A use case's refusal as a usage error naming the argument the faulty field came from."""
    head = error.field[0] if error.field else None
    hint = ARGUMENT_OF_FIELD.get(head) if isinstance(head, str) else None
    return click.BadParameter(error.message, param_hint=hint)


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
        """Read the number; a usage error naming the option when it is none."""
        try:
            return float(value)
        except ValueError:
            self.fail(f"{value!r} is not a number of seconds", param, ctx)


SECONDS = Seconds()


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


def read_moves(moves: Sequence[str]) -> list[str]:
    """The moves from the arguments, or whitespace-separated from standard input."""
    if moves:
        return list(moves)
    if sys.stdin.isatty():
        click.echo("gapgrid: reading moves from standard input (end with Ctrl-D)", err=True)
    return sys.stdin.read().split()


def echo_json(data: Any) -> None:
    """Print ``data`` as JSON on one line."""
    click.echo(json.dumps(data, ensure_ascii=False))


json_flag = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
option_flag = click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE",
                           help="A rule option, e.g. redeals=unlimited (repeatable).")


def read_saved_game(ctx: click.Context, path: Path) -> games.SavedGameFile:
    """Read a PySolFC saved game and find its game; a usage error naming the file if not."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)  # enough to tell it is too large
    except OSError as error:
        raise click.BadParameter(f"cannot read {path}: {error.strerror or error}",
                                 param_hint="FILE") from None
    try:
        return games.read_saved_game(load_catalogue(ctx), data)
    except ServiceError as error:
        raise click.BadParameter(f"{path}: {error.message}", param_hint="FILE") from None


def api_settings() -> Settings:
    """The service settings from the environment; a usage error when one is unusable."""
    try:
        return Settings.from_environment()
    except ConfigError as error:
        raise click.UsageError(str(error)) from None
