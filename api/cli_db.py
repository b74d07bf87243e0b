"""``gapgrid db``: the configured database's schema, its pruning, and copying another
database into it.

``gapgrid db upgrade`` brings the database to the newest schema revision. A
server does the same at start (safely when several start at once); this
command lets an operator do it ahead, for instance before starting several
servers of a new version, and needs no secret.

``gapgrid db prune`` deletes what no request reads again: the hints and
start tokens of puzzles that take no more submissions.

``gapgrid db import SOURCE`` copies every row of another gapgrid database
into the configured one, which must be empty: the way from the embedded
SQLite file to PostgreSQL when one server becomes several. The target's
URL, with its password, stays in the environment, out of the process list
(a PostgreSQL source's password goes in PGPASSWORD or ~/.pgpass).
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import click

from gapgrid.api.cli_support import SetupError, require_database_folder
from gapgrid.api.config import ConfigError, database_from_environment, driver_reason
from gapgrid.api.text import excerpt


@click.group("db")
def db_group() -> None:
    """The database (GAPGRID_DATABASE: a SQLite file, or a postgresql:// URL)."""


def _configured_database() -> Path | str:
    """GAPGRID_DATABASE (or the instance's file), in a folder that exists; a
    :class:`SetupError` that says why otherwise."""
    try:
        database = database_from_environment()
    except ConfigError as error:
        raise SetupError(str(error)) from None
    require_database_folder(database)
    return database


@contextmanager
def _database_errors(doing: str, where: str) -> Iterator[None]:
    """The database's refusals and failures as one-line :class:`SetupError` messages:
    ``cannot {doing} the database {where}: why``."""
    import sqlalchemy.exc

    from gapgrid.api.db import engine

    try:
        yield
    except engine.StoreError as error:
        raise SetupError(str(error)) from None
    except (OSError, sqlalchemy.exc.SQLAlchemyError) as error:
        raise SetupError(f"cannot {doing} the database {where} (GAPGRID_DATABASE): "
                         f"{driver_reason(error)}") from None


@db_group.command("upgrade")
def upgrade_command() -> None:
    """Check a SQLite file's pages (exit 2, nothing written, if they are damaged), then
    apply the migrations the database lacks, in one transaction."""
    # Imported here: SQLAlchemy and Alembic would slow down every other command.
    from gapgrid.api.db import engine

    database = _configured_database()
    where = engine.describe(database)
    with _database_errors("open", where):
        made = engine.create(database)
        try:
            with made.connect() as connection:
                before = engine.current(connection)
                damage = engine.damage(connection)
            if damage is None:  # nothing is written to a damaged file: it could get worse
                engine.upgrade(made)
        finally:
            made.dispose()
    if damage is not None:
        raise SetupError(f"the database {where} (GAPGRID_DATABASE) is damaged "
                         f"({excerpt(damage, 120)}): restore it from a backup")
    now = engine.head()
    if before == now:
        click.echo(f"{where}: already at revision {now}")
    else:
        click.echo(f"{where}: now at revision {now} (before: {before or 'no revision'})")


@db_group.command("import")
@click.argument("source")
def import_command(source: str) -> None:
    """Copy every row of SOURCE (another gapgrid database: a SQLite file or a postgresql://
    URL, at the newest schema revision) into the configured database, which must hold none
    yet. All of it is copied in one transaction, or nothing; a new SQLite file appears
    only once the copy is whole. SOURCE's rows are left as they are. Give a PostgreSQL
    SOURCE's password by PGPASSWORD or ~/.pgpass, not in the URL: the command line is seen
    by every user of the machine."""
    import sqlalchemy.exc

    from gapgrid.api.db import copy, engine

    try:
        database = database_from_environment()
        source_database: Path | str = source if engine.is_url(source) else Path(source)
    except ConfigError as error:
        raise SetupError(str(error)) from None
    for named, value in (("SOURCE", source_database), ("GAPGRID_DATABASE", database)):
        try:
            engine.url_of(value)
        except (ValueError, sqlalchemy.exc.ArgumentError) as error:
            raise SetupError(f"{named} names no database: {str(error)[:200]}") from None
    if _same(source_database, database):
        raise SetupError(f"{engine.describe(database)} is both the source and the target")
    what = f"{engine.describe(source_database)} into {engine.describe(database)}"
    try:
        reading = copy.open_source(source_database)
        try:
            if isinstance(database, Path) and not os.path.lexists(database):
                copy.copy_to_new_file(reading, database, report=CopyReport())
            else:
                writing = engine.create(database, bounded=False)  # whole tables
                try:
                    copy.copy_database(reading, writing, report=CopyReport())
                finally:
                    writing.dispose()
        finally:
            reading.dispose()
    except (copy.CopyError, engine.StoreError) as error:
        raise SetupError(str(error)) from None
    except (OSError, ValueError, sqlalchemy.exc.SQLAlchemyError) as error:
        reason = str(getattr(error, "orig", None) or error).splitlines()[0][:200]
        raise SetupError(f"cannot copy {what}: {reason}") from None
    click.echo(f"copied {what}")


@db_group.command("prune")
def prune_command() -> None:
    """Delete the hints and start tokens of the puzzles that take no more submissions
    (days over, and their late hour too, an hour ago): nothing reads them again, and they would grow
    with every game played. Puzzles, submissions, leaderboards and players are kept.
    Safe while servers run; run it daily (cron, a systemd timer), or never, to keep them."""
    from gapgrid.api.db import engine
    from gapgrid.api.services.puzzles import first_open_day
    from gapgrid.api.store import Store

    database = _configured_database()
    where = engine.describe(database)
    if isinstance(database, Path) and not database.exists():  # not made by pruning it
        raise SetupError(f"no database at {database} (GAPGRID_DATABASE): nothing to prune")
    # an hour to spare: a server whose clock runs behind this machine's, or a late
    # submission checked before its hour ended and stored after, still finds its token
    before = first_open_day(datetime.datetime.now(datetime.UTC) - PRUNE_MARGIN).isoformat()
    with _database_errors("prune", where):
        store = Store(database)
        try:
            pruned = store.prune(before)
        finally:
            store.close()
    click.echo(f"{where}: deleted {pruned.hints:,} hints and {pruned.start_tokens:,} start "
               f"tokens of puzzles before {before}")


PRUNE_MARGIN: Final = datetime.timedelta(hours=1)
"""How long after its late hour a puzzle's hints and start tokens are still kept."""

PROGRESS_ROWS: Final = 100_000
"""Rows between two progress lines while one table is being copied."""


class CopyReport:
    """What ``gapgrid db import`` says as it goes, on standard error: each table's rows when
    it is done, and a line each time a large one passes another :data:`PROGRESS_ROWS`
    rows, so that a long copy is seen to go on (whatever the batches' size)."""

    def __init__(self) -> None:
        self.said: dict[str, int] = {}
        """Each table's rows at its last progress line."""

    def __call__(self, table: str, rows: int, done: bool) -> None:
        if done:
            click.echo(f"{table}: {rows:,} rows", err=True)
        elif rows // PROGRESS_ROWS > self.said.get(table, 0) // PROGRESS_ROWS:
            self.said[table] = rows
            click.echo(f"{table}: {rows:,} rows so far...", err=True)


def _same(one: Path | str, other: Path | str) -> bool:
    """Whether two databases are one: the same file, or the same URL."""
    if isinstance(one, Path) and isinstance(other, Path):
        return one.resolve() == other.resolve()
    return one == other
