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

import json
import sys
from collections.abc import Sequence
from typing import Any

import click

import plugins
from api import render, views
from core.catalogue import Catalogue, OptionError, UnknownSchemeError, UnknownVariantError
from core.dealnumber import DealNumber, DealNumberError, parse_deal_number
from core.game import new_game
from core.notation import Action, NotationError, parse_actions
from core.registry import ScoringInfo
from core.replay import ReplayResult, replay
from core.rules import Rules, describe_redeals
from core.scoring import GameSummary

EXIT_ILLEGAL_MOVE = 1

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
@click.argument("variant")
@click.argument("number")
@click.argument("moves", nargs=-1)
@option_flag
@click.option("--scoring", "scoring", multiple=True, metavar="NAME",
              help="Add the score of scheme NAME, or of all (repeatable).")
@click.option("--elapsed", type=click.FloatRange(min=0), metavar="SECONDS",
              help="How long the game took, for time bonuses.")
@click.option("--timed", is_flag=True, help="The game was played in the timed (3-minute) mode.")
@json_flag
@click.pass_context
def verify(ctx: click.Context, variant: str, number: str, moves: Sequence[str],
           options: Sequence[str], scoring: Sequence[str], elapsed: float | None,
           timed: bool, as_json: bool) -> None:
    """Replay MOVES (F-T, redeal, undo) on game NUMBER of VARIANT and check each.

    With no MOVE arguments the moves are read from standard input,
    separated by whitespace. Exit status 1 when a move is refused.
    """
    rules = resolve_rules(ctx, variant, options)
    game_number = resolve_deal(number)
    schemes = resolve_schemes(ctx, scoring)
    actions = resolve_moves(moves)
    result = replay(rules, game_number, actions)
    report = views.verify_json(rules, game_number, result)
    if schemes:
        summary = GameSummary.from_replay(result, elapsed=elapsed, timed=timed)
        report["scores"] = views.scores_json(summary, schemes) if result.ok else None
    if as_json:
        echo_json(report)
    else:
        _print_verdict(rules, game_number, result, report.get("scores"))
    if not result.ok:
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
