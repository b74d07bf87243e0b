"""``gapgrid pysolfc ...``: install gapgrid's games into PySolFC, and read its saved games."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from gapgrid.api.cli_support import (
    SetupError,
    echo_json,
    json_flag,
    load_catalogue,
    read_saved_game,
)
from gapgrid.api.pysolfc import install as pysolfc_install
from gapgrid.api.pysolfc import rules_pages
from gapgrid.api.services import games


@click.group()
def pysolfc() -> None:
    """Work with PySolFC: install gapgrid's games into it, read its saved games."""


def _plugins_dir(_ctx: click.Context, _param: click.Parameter, value: str | None
                 ) -> Path | None:
    """The folder named, as a path; an empty name (an unset shell variable) is refused, where
    it was the current folder."""
    if value is None:
        return None
    if not value.strip():
        raise click.BadParameter("is empty: name PySolFC's plugins folder, or leave the "
                                 "option out for the default one")
    return Path(value)


plugins_dir_flag = click.option(
    "--plugins-dir", type=click.Path(file_okay=False), callback=_plugins_dir,
    help="PySolFC's plugins folder (default: ~/.PySolFC/plugins, "
         "on Windows %APPDATA%\\PySolFC\\plugins).")


def _plural(count: int, word: str, plural: str | None = None) -> str:
    """``1 move``, ``2 moves``: a count and its noun, agreeing."""
    return f"{count} {word if count == 1 else plural or word + 's'}"


def _install_command(plugins_dir: Path | None) -> str:
    """The install command for the folder the user named (none: the default one)."""
    if plugins_dir is None:
        return "gapgrid pysolfc install"
    return f"gapgrid pysolfc install --plugins-dir {shlex.quote(str(plugins_dir))}"


@pysolfc.command("install")
@plugins_dir_flag
@click.pass_context
def pysolfc_install_command(ctx: click.Context, plugins_dir: Path | None) -> None:
    """Write the plugin file that adds gapgrid's games to PySolFC, and their rules pages."""
    catalogue = load_catalogue(ctx)
    try:
        path = pysolfc_install.install(plugins_dir or pysolfc_install.default_plugins_dir(),
                                       catalogue)
    except pysolfc_install.PluginFileError as error:
        raise SetupError(str(error)) from None  # the folder's state: exit 2, as documented
    pages = len(rules_pages.added_slugs(catalogue))
    click.echo(f"Installed {path}, and {_plural(pages, 'rules page')} beside it.")
    click.echo("Start PySolFC: gapgrid's games appear in its game list under Montana-type "
               "games (Gaps, Montana Classic, ...).")


@pysolfc.command("uninstall")
@plugins_dir_flag
def pysolfc_uninstall_command(plugins_dir: Path | None) -> None:
    """Remove the plugin file and the rules pages."""
    folder = plugins_dir or pysolfc_install.default_plugins_dir()
    try:
        removed = pysolfc_install.uninstall(folder)
    except pysolfc_install.PluginFileError as error:
        raise SetupError(str(error)) from None  # the folder's state: exit 2, as documented
    pages = _plural(removed.pages, "rules page")
    if removed.plugin is not None:
        click.echo(f"Removed {removed.plugin} and {pages}.")
    elif removed.pages:
        click.echo(f"No plugin file in {folder}; removed {pages} left from an install.")
    else:
        click.echo(f"Nothing to remove in {folder}.")


@pysolfc.command("status")
@plugins_dir_flag
@json_flag
@click.pass_context
def pysolfc_status_command(ctx: click.Context, plugins_dir: Path | None, as_json: bool) -> None:
    """Say whether the plugin file is installed, where, and for which gapgrid."""
    found = pysolfc_install.status(plugins_dir or pysolfc_install.default_plugins_dir(),
                                   load_catalogue(ctx))
    install = _install_command(plugins_dir)
    if as_json:
        echo_json({"path": str(found.path), "installed": found.installed,
                   "written_by": found.written_by, "gapgrid": found.current,
                   "up_to_date": found.up_to_date, "as_written_now": found.as_written_now,
                   "missing_rules_pages": list(found.missing_pages),
                   "foreign_file": found.foreign,
                   "install_command": None if found.up_to_date else install})
        return
    if found.foreign:
        click.echo(f"Not installed: {found.path} is a file gapgrid did not write, which "
                   f"install will not replace. Move it away, then run `{install}`.")
    elif not found.installed:
        click.echo(f"Not installed (would be {found.path}). Run `{install}`.")
    elif found.written_by != found.current:
        click.echo(f"Installed: {found.path}, written by gapgrid {found.written_by}, but gapgrid "
                   f"{found.current} is installed: run `{install}` to update it.")
    elif not found.as_written_now:
        click.echo(f"Installed: {found.path}, written by gapgrid {found.written_by}, but not as "
                   f"this gapgrid writes it (changed since, or installed elsewhere): run "
                   f"`{install}` to update it.")
    elif found.missing_pages:
        click.echo(f"Installed: {found.path} (gapgrid {found.current}), but "
                   f"{_plural(len(found.missing_pages), 'game')} "
                   f"{'has' if len(found.missing_pages) == 1 else 'have'} no rules page "
                   f"({', '.join(found.missing_pages)}): run `{install}` to write "
                   f"{'it' if len(found.missing_pages) == 1 else 'them'}.")
    else:
        click.echo(f"Installed: {found.path} (gapgrid {found.current}).")


@pysolfc.command("read-save")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@json_flag
@click.pass_context
def pysolfc_read_save_command(ctx: click.Context, file: Path, as_json: bool) -> None:
    """Print the variant, game number and moves of a PySolFC saved game (.pso)."""
    found = read_saved_game(ctx, file)
    document = games.saved_game_document(found)
    if as_json:
        echo_json(document)
        return
    saved = found.saved
    moves = document["moves"]
    click.echo(f"{found.rules.name} (PySolFC game {saved.game_id}), game {saved.deal}")
    undone = f"{_plural(saved.redo_stack, 'step')} undone and left to redo"
    if not moves:
        click.echo(f"No move in effect ({undone}).")
    else:
        click.echo(f"{_plural(len(moves), 'move')} in effect ({undone}): " + " ".join(moves))
