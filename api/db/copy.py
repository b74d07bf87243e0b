"""Copying one gapgrid database into another: the way from the embedded SQLite file to a
PostgreSQL server shared by several servers (or back).

:func:`copy_database` reads the source in one snapshot and writes the target
in one transaction, so the target ends with every row of the source as it
was at one moment, or, after any error, with none of them. Rows go over in
batches of :data:`BATCH_ROWS`, so the memory it takes does not grow with the
database. The target must be empty: rows merged into a database in use
would break its uniqueness rules (one puzzle per date and variant, one name
per player) in ways no copy can settle.

Ids are kept, with the counters that give the next ones: a player's
submission id is part of the order of a leaderboard's ties, and ids are
never reused (:data:`gapgrid.api.db.schema.submissions`). Leases (who is
making a puzzle, until when) belong to the processes on the source and are
not copied.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Final

import sqlalchemy
from sqlalchemy import Table, func, select
from sqlalchemy.engine import Connection, Engine

from gapgrid.api.db import engine as engines
from gapgrid.api.db import schema
from gapgrid.api.text import excerpt

BATCH_ROWS: Final = 1000
"""Rows read and written at a time."""

SKIPPED: Final = (schema.leases,)
"""Tables not copied: their rows describe the source's running processes."""

COUNTED_IDS: Final = (schema.submissions, schema.hints)
"""Tables whose ``id`` the database counts, and whose counter goes over with the rows."""


class CopyError(RuntimeError):
    """The copy cannot be made (a source that is not there or not up to date, a target that
    is not empty); nothing was written."""


def copied_tables() -> list[Table]:
    """The tables copied, parents before the tables that refer to them."""
    return [table for table in schema.metadata.sorted_tables if table not in SKIPPED]


def open_source(database: Path | str) -> Engine:
    """An engine on the source, which must exist, be at the newest schema revision, and be
    whole (a SQLite file's pages checked once, as ``gapgrid db upgrade`` checks them).

    A SQLite path that names no file is refused here (opening it would make an empty
    database), and so is a database of an older or newer revision: the copy writes the
    newest schema's rows, and upgrading is for ``gapgrid db upgrade`` to do, not a copy.
    """
    if not engines.is_url(database) and not Path(database).is_file():
        raise CopyError(f"no database at {database}")
    # a copy reads whole tables: longer than a request's statements may run
    source = engines.create(database, read_only=True, bounded=False)
    try:
        with engines.read(source) as connection:
            revision = engines.current(connection)
            others = ([] if engines.is_url(database) else engines.foreign_tables(
                connection.connection.driver_connection))  # type: ignore[arg-type]
            # Damage too (once the file is known to be gapgrid's, at this revision): rows
            # copied through a damaged index are quietly left out (players, say, whose
            # submissions then belong to nobody).
            damage = (engines.damage(connection, thorough=True)
                      if not others and revision == engines.head() else None)
    except BaseException:
        source.dispose()
        raise
    if others:
        source.dispose()
        raise CopyError(f"{engines.foreign_database(str(database), others)}: there is "
                        f"nothing of gapgrid's to copy")
    if revision != engines.head():
        source.dispose()
        if revision is not None and not engines.known(revision):
            raise CopyError(f"{engines.describe(database)} was written by a newer gapgrid "
                            f"(schema revision {revision}; this one knows up to "
                            f"{engines.head()}): copy it with that gapgrid")
        if revision is None:
            raise CopyError(f"{engines.describe(database)} holds no gapgrid schema revision: "
                            f"bring it up to date first (GAPGRID_DATABASE=<it> gapgrid db "
                            f"upgrade)")
        raise CopyError(f"{engines.describe(database)} is at schema revision {revision}, "
                        f"this gapgrid writes {engines.head()}: bring it up to date first "
                        f"(GAPGRID_DATABASE=<it> gapgrid db upgrade)")
    if damage is not None:
        source.dispose()
        raise CopyError(f"{engines.describe(database)} is damaged ({excerpt(damage, 120)}): "
                        f"nothing was copied; copy a backup of it instead")
    return source


def copy_database(source: Engine, target: Engine,
                  report: Callable[[str, int, bool], None] = lambda table, rows, done: None
                  ) -> dict[str, int]:
    """Copy every row of ``source`` into ``target`` (upgraded to the newest revision first),
    in one transaction; the rows copied, by table. ``report`` hears, after each batch, of
    the table being copied, its rows so far and whether they are all of it. A
    :class:`CopyError`, with nothing written, when the target holds rows: that is looked at
    before the upgrade too, so that a database in use keeps its schema."""
    with engines.read(target) as looking:
        _refuse_rows(looking)
    engines.upgrade(target)
    counts: dict[str, int] = {}
    with engines.read(source, snapshot=True) as reading, engines.write(target) as writing:
        _refuse_rows(writing)  # again, in the transaction: nothing can have come in between
        for table in copied_tables():
            counts[table.name] = _copy_rows(reading, writing, table, report)
            report(table.name, counts[table.name], True)
        for table in COUNTED_IDS:
            _set_next_id(writing, table, _next_id(reading, table))
    return counts


SQLITE_SIDE_FILES: Final = ("-wal", "-shm", "-journal")
"""What SQLite keeps beside a database file while it is in use."""


def copy_to_new_file(source: Engine, path: Path,
                     report: Callable[[str, int, bool], None] = lambda table, rows, done: None
                     ) -> dict[str, int]:
    """:func:`copy_database` into a new SQLite file at ``path``, which appears only once the
    copy is whole: the rows go into a hidden file beside it, which is then linked to
    ``path`` only if nothing is there yet. A failed copy leaves nothing behind, and a file
    another process makes at ``path`` meanwhile (a server started on it, another copy)
    is left as it is: a :class:`CopyError`, and this copy is not kept."""
    path.parent.mkdir(parents=True, exist_ok=True)
    building = path.with_name(f".{path.name}.{secrets.token_hex(8)}.gapgrid-import")
    os.close(os.open(building, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))  # the umask's mode
    try:
        target = engines.create(building)
        try:
            counts = copy_database(source, target, report)
        finally:
            target.dispose()  # the last connection closed: SQLite moves its WAL into the file
        if any(Path(f"{building}{side}").exists() for side in SQLITE_SIDE_FILES):
            raise CopyError(f"the copy's SQLite file {building} kept side files once closed; "
                            f"nothing was made at {path}")
        _publish(building, path)
    finally:
        for name in ("", *SQLITE_SIDE_FILES):  # after the link: only the hidden name goes
            with contextlib.suppress(OSError):  # at worst a hidden file is left behind
                Path(f"{building}{name}").unlink()
    return counts


def _publish(building: Path, path: Path) -> None:
    """Give the finished copy at ``building`` the name ``path``, unless something has it."""
    taken = CopyError(f"{path} was made by another process during the copy (a server "
                      f"started on it?): it is left as it is, and the copy is not kept")
    try:
        os.link(building, path)  # fails if the name is taken: never a file replaced
    except FileExistsError:
        raise taken from None
    except OSError:  # a file system without hard links: looked at, then renamed
        if os.path.lexists(path):
            raise taken from None
        os.rename(building, path)


def _refuse_rows(connection: Connection) -> None:
    """A :class:`CopyError` when the copied tables the database has hold any row."""
    present = set(sqlalchemy.inspect(connection).get_table_names())
    occupied = [table.name for table in copied_tables()
                if table.name in present and _has_rows(connection, table)]
    if occupied:
        raise CopyError(f"the target is not empty (it has rows in {', '.join(occupied)}): "
                        f"a copy goes into a new database only")


def _has_rows(connection: Connection, table: Table) -> bool:
    return connection.execute(select(sqlalchemy.literal(1)).select_from(table).limit(1)
                              ).first() is not None


def _copy_rows(reading: Connection, writing: Connection, table: Table,
               report: Callable[[str, int, bool], None]) -> int:
    """Stream ``table`` from one connection to the other in primary-key order; the rows."""
    rows = 0
    result = reading.execution_options(yield_per=BATCH_ROWS).execute(
        select(table).order_by(*table.primary_key.columns))
    for batch in result.mappings().partitions():
        writing.execute(table.insert(), [dict(row) for row in batch])
        rows += len(batch)
        report(table.name, rows, False)
    return rows


def _next_id(connection: Connection, table: Table) -> int:
    """The id the source would give ``table``'s next row: past every id it holds and every
    id it ever gave (a row deleted since keeps its id used)."""
    highest = connection.execute(select(func.coalesce(func.max(table.c.id), 0))).scalar_one()
    if connection.dialect.name == "sqlite":
        given = connection.execute(sqlalchemy.text(
            "SELECT seq FROM sqlite_sequence WHERE name = :name"), {"name": table.name}
        ).scalar_one_or_none()
    else:
        given = connection.execute(sqlalchemy.text(
            f"SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END "
            f"FROM {_sequence(connection, table)}")).scalar_one()
    return max(int(highest), int(given or 0)) + 1


def _set_next_id(connection: Connection, table: Table, next_id: int) -> None:
    """Make ``table``'s next row get ``next_id`` (the rows copied already hold lower ids)."""
    if connection.dialect.name == "sqlite":
        # the inserts with their ids have made the table's counter row; it only moves up
        connection.execute(sqlalchemy.text(
            "UPDATE sqlite_sequence SET seq = :seq WHERE name = :name"),
            {"seq": next_id - 1, "name": table.name})
        connection.execute(sqlalchemy.text(
            "INSERT INTO sqlite_sequence (name, seq) SELECT :name, :seq WHERE NOT EXISTS "
            "(SELECT 1 FROM sqlite_sequence WHERE name = :name)"),
            {"seq": next_id - 1, "name": table.name})
    else:
        connection.execute(sqlalchemy.text(
            f"SELECT setval('{_sequence(connection, table)}', :value, false)"),
            {"value": next_id})


def _sequence(connection: Connection, table: Table) -> str:
    """The name of the PostgreSQL sequence behind ``table.id`` (a schema's own name, never
    a user's: safe to put into the statement)."""
    name = connection.execute(sqlalchemy.text("SELECT pg_get_serial_sequence(:table, 'id')"),
                              {"table": table.name}).scalar_one()
    if name is None:
        raise CopyError(f"{table.name}.id has no sequence on this PostgreSQL database")
    return str(name)
