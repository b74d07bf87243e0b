"""``gapgrid pysolfc ...``: install gapgrid's games into PySolFC, and read its saved games."""

from __future__ import annotations

from pathlib import Path

import click

from gapgrid.api.cli_support import echo_json, json_flag, read_saved_game
from gapgrid.api.pysolfc import install as pysolfc_install
from gapgrid.api.services import games


@click.group()
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
    found = read_saved_game(ctx, file)
    document = games.saved_game_document(found)
    if as_json:
        echo_json(document)
        return
    saved = found.saved
    moves = document["moves"]
    click.echo(f"{found.rules.name} (PySolFC game {saved.game_id}), game {saved.deal}")
    click.echo(f"{len(moves)} moves in effect ({saved.redo_stack} left on the redo stack): "
               + " ".join(moves))
