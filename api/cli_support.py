"""Shared pieces of the command line: the catalogue loaded once per command, arguments
read into domain values (a usage error, exit status 2, when they are not), and JSON output.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import click

from gapgrid import plugins
from gapgrid.api.config import ConfigError, Settings
from gapgrid.api.pysolfc.games import UnknownGameError, entry_for_game_id, saved_board
from gapgrid.api.pysolfc.savefile import MAX_FILE_BYTES, SavedGame, SaveFileError, read_save
from gapgrid.core.board import Board
from gapgrid.core.catalogue import Catalogue, OptionError, UnknownSchemeError, UnknownVariantError
from gapgrid.core.dealnumber import DealNumber, DealNumberError, parse_deal_number
from gapgrid.core.notation import Action, NotationError, parse_actions
from gapgrid.core.registry import PresetInfo, ScoringInfo, VariantInfo
from gapgrid.core.rules import Rules

EXIT_ILLEGAL_MOVE = 1

# Let "-5" reach the NUMBER argument, so it gets a precise "game numbers
# are positive" instead of "no such option".
NUMBER_ARGUMENTS = {"ignore_unknown_options": True}


class Seconds(click.ParamType):  # type: ignore[type-arg]
    """A duration in seconds: a finite number from 0 to a year."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        try:
            seconds = float(value)
        except ValueError:
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not 0 <= seconds <= 366 * 24 * 3600:  # NaN and infinities fail this too
            self.fail(f"{value!r} is not a duration from 0 to a year", param, ctx)
        return seconds


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


def resolve_schemes(ctx: click.Context, names: Sequence[str]) -> dict[str, ScoringInfo]:
    """Find the scoring schemes named; a usage error for an unknown one."""
    try:
        return load_catalogue(ctx).scoring_schemes(names)
    except UnknownSchemeError as error:
        raise click.BadParameter(str(error), param_hint="--scoring") from None


def read_save_file(path: Path) -> SavedGame:
    """Read a PySolFC saved game; a usage error when it cannot be read or is not one."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)  # enough to tell it is too large
    except OSError as error:
        raise click.BadParameter(f"cannot read {path}: {error.strerror or error}",
                                 param_hint="FILE") from None
    try:
        return read_save(data)
    except SaveFileError as error:
        raise click.BadParameter(f"{path}: {error}", param_hint="FILE") from None


@attrs.frozen
class SavedGameFile:
    """A PySolFC saved game, the gapgrid game it is, and the layout it holds."""

    saved: SavedGame
    entry: VariantInfo | PresetInfo
    rules: Rules
    board: Board


def read_saved_game(ctx: click.Context, path: Path) -> SavedGameFile:
    """Read a saved game and find its rules and layout; a usage error when any is wrong."""
    saved = read_save_file(path)
    catalogue = load_catalogue(ctx)
    try:
        entry = entry_for_game_id(catalogue, saved.game_id)
        rules = catalogue.rules(entry.slug)
        return SavedGameFile(saved, entry, rules, saved_board(rules, saved.stacks))
    except (UnknownGameError, SaveFileError) as error:
        raise click.BadParameter(f"{path}: {error}", param_hint="FILE") from None


def api_settings() -> Settings:
    """The service settings from the environment; a usage error when one is unusable."""
    try:
        return Settings.from_environment()
    except ConfigError as error:
        raise click.UsageError(str(error)) from None
