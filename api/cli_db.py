"""``gapgrid db upgrade``: bring the configured database to the newest schema revision.

A server does the same at start (safely when several start at once); this
command lets an operator do it ahead, for instance before starting several
servers of a new version, and needs no secret.
"""

from __future__ import annotations

import click

from gapgrid.api.cli_support import SetupError
from gapgrid.api.config import ConfigError, database_from_environment


@click.group("db")
def db_group() -> None:
    """The database (GAPGRID_DATABASE: a SQLite file, or a postgresql:// URL)."""


@db_group.command("upgrade")
def upgrade_command() -> None:
    """Apply the migrations the database lacks, in one transaction."""
    # Imported here: SQLAlchemy and Alembic would slow down every other command.
    import sqlalchemy.exc

    from gapgrid.api.db import engine

    try:
        database = database_from_environment()
    except ConfigError as error:
        raise SetupError(str(error)) from None
    where = engine.describe(database)
    try:
        made = engine.create(database)
        try:
            with made.connect() as connection:
                before = engine.current(connection)
            engine.upgrade(made)
        finally:
            made.dispose()
    except engine.StoreError as error:
        raise SetupError(str(error)) from None
    except (OSError, sqlalchemy.exc.SQLAlchemyError) as error:
        reason = str(getattr(error, "orig", None) or error).splitlines()[0][:200]
        raise SetupError(f"cannot open the database {where} (GAPGRID_DATABASE): "
                         f"{reason}") from None
    now = engine.head()
    if before == now:
        click.echo(f"{where}: already at revision {now}")
    else:
        click.echo(f"{where}: now at revision {now} (before: {before or 'no revision'})")
