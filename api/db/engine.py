"""Opening the database, SQLite or PostgreSQL, and bringing its schema to the newest
revision.

``GAPGRID_DATABASE`` is either a file path (SQLite, embedded: the default)
or a ``postgresql://user:password@host/name`` URL (PostgreSQL through
psycopg 3, with SQLAlchemy's connection pool, for several servers on one
database). Both get the same behaviour from the store:

- a write is one transaction that takes the write lock first (SQLite's
  ``BEGIN IMMEDIATE``; on PostgreSQL the schema's unique constraints and
  row locks order concurrent writers), so a restart loses nothing that was
  answered as stored (SQLite in WAL mode with full sync; PostgreSQL commits
  durably by default);
- a read transaction that asks for it sees one snapshot (SQLite's deferred
  ``BEGIN`` in WAL mode; PostgreSQL's ``REPEATABLE READ``).

:func:`upgrade` applies the migrations (Alembic, ``migrations/``) in one
transaction. Several servers may start at once: on PostgreSQL they queue on
an advisory lock held until that transaction ends, on SQLite on its write
lock, so exactly one of them migrates and the others find the work done.
"""

from __future__ import annotations

import logging
import os
import re
import select
import sqlite3
import time
import urllib.parse
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

import sqlalchemy
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.script.revision import RevisionError
from alembic.util.exc import CommandError
from sqlalchemy import event, exc
from sqlalchemy.engine import URL, Connection, Engine, make_url

from gapgrid.api.db import legacy, schema
from gapgrid.api.text import excerpt

MIGRATIONS: Final = Path(__file__).parent / "migrations"
"""Alembic's script folder, inside the package (the wheel ships it)."""

POSTGRESQL_SCHEMES: Final = ("postgresql", "postgresql+psycopg", "postgres")
"""URL schemes ``GAPGRID_DATABASE`` may name PostgreSQL with; all use psycopg 3."""

UPGRADE_LOCK: Final = zlib.crc32(b"gapgrid schema upgrade")
"""The PostgreSQL advisory lock that servers starting at once queue on to upgrade."""

POOL_SIZE: Final = 10
"""Connections kept open per process: ``gapgrid serve`` runs 8 threads by default."""

CONNECT_SECONDS: Final = 10
"""How long opening a PostgreSQL connection may take (libpq's ``connect_timeout``): a host
that takes the connection and never answers is an outage, not a hang."""

KEEPALIVE: Final = {"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10,
                    "keepalives_count": 3, "tcp_user_timeout": 60_000}
"""TCP keepalives on PostgreSQL connections, and a bound on data sent but never
acknowledged (``tcp_user_timeout``, milliseconds): a server whose machine went away, while
a statement waited for its answer or was being sent, is found within about a minute,
where the socket alone would wait for a quarter of an hour or more."""

LOCK_WAIT_SECONDS: Final = 10
"""How long a statement waits for another transaction's lock (PostgreSQL's
``lock_timeout``): past it, the request is a 503 problem with ``Retry-After``."""

STATEMENT_SECONDS: Final = 30
"""How long one statement may run (PostgreSQL's ``statement_timeout``): gapgrid's take
milliseconds, so a longer one is a database in trouble, answered with a 503 problem."""


USE_ERRORS: Final = (sqlite3.Error, exc.DBAPIError)
"""What a query raises when the database may be at fault once open (a SQLite file damaged
past its header, a PostgreSQL server gone): a one-line reason to a command's user, but
for :data:`BUG_ERRORS`."""

BUG_ERRORS: Final = (exc.IntegrityError, exc.ProgrammingError, exc.InterfaceError,
                     sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError)
"""Among :data:`USE_ERRORS`, the ones gapgrid's own queries cause (a constraint broken, SQL
that does not fit the schema, a misused connection): bugs to report, not the database's
state."""


class DatabaseURLError(ValueError):
    """Raised for a ``GAPGRID_DATABASE`` URL that names no database (a port that is no
    number, a host cut short, another kind of database)."""


OPEN_ERRORS: Final = (OSError, sqlite3.Error, exc.DBAPIError, exc.ArgumentError,
                      DatabaseURLError)
"""What opening a database raises when the environment is at fault (a missing folder, a
file that is no database, a server that does not answer, a URL that names nothing): a
one-line reason to the user, not an internal error."""


class StoreError(RuntimeError):
    """Raised for a database this code cannot use: written by a newer gapgrid, or another
    program's SQLite file."""


def is_url(database: Path | str) -> bool:
    """Whether ``database`` is a URL (PostgreSQL) rather than a SQLite file path."""
    return isinstance(database, str) and "://" in database


def url_of(database: Path | str) -> URL:
    """The SQLAlchemy URL of a SQLite path or a PostgreSQL URL (psycopg 3 as its driver);
    a :class:`DatabaseURLError` for any other kind of URL, or one that cannot be read."""
    if not is_url(database):
        return URL.create("sqlite", database=str(database))
    try:
        url = make_url(str(database))
    except (ValueError, exc.ArgumentError):  # a port that is no number, "[::1"
        # not the parser's words: some repeat the whole URL, password and all
        raise DatabaseURLError("the URL cannot be read: it is written postgresql://USER:"
                               "PASSWORD@HOST:PORT/DATABASE (the port a number, an IPv6 "
                               "host in brackets, a password's / @ : % written as %2F "
                               "%40 %3A %25)") from None
    if url.drivername not in POSTGRESQL_SCHEMES:
        raise DatabaseURLError(f"only postgresql:// URLs or file paths name a database, not "
                               f"{excerpt(url.drivername, 20)}://")
    return url.set(drivername="postgresql+psycopg")


def describe(database: Path | str) -> str:
    """``database`` as it may be printed: a URL without its password."""
    if not is_url(database):
        return str(database)
    url = url_of(database).set(drivername=make_url(str(database)).drivername)  # as typed
    if "password" in url.query:  # libpq also takes it as a parameter
        url = url.update_query_dict({"password": "***"})
    return url.render_as_string(hide_password=True)


def create(database: Path | str, *, read_only: bool = False, bounded: bool = True
           ) -> Engine:
    """An engine on ``database``, made safe to use in a process forked after it opened
    connections (each process opens its own). ``read_only`` (a copy's source): a SQLite
    file is opened so that nothing, not even its journal mode, is written to it (a file in
    WAL mode still gets the ``-wal`` and ``-shm`` side files every reader of one makes).

    On PostgreSQL, opening a connection takes at most :data:`CONNECT_SECONDS`, and with
    ``bounded`` (all but a copy of whole tables) a statement waits at most
    :data:`LOCK_WAIT_SECONDS` for a lock and runs at most :data:`STATEMENT_SECONDS`: a
    database that is locked or stuck makes a request fail in bounded time (a 503
    problem), not hold the server's threads for as long as it lasts. (SQLite's bound is
    its 30 s busy wait; a local file has no network to wait on.)"""
    url = url_of(database)
    if url.get_backend_name() == "sqlite" and read_only:
        # SQLite's URI form, the path quoted for a name with "?", "#" or "%" in it; given
        # as a URL object, as a string's database part would be unquoted once more
        # (an empty authority, "file://" and the absolute path, so that a path that
        # starts with "//" is not read as a host)
        path = urllib.parse.quote(str(Path(str(url.database)).absolute()))
        engine = sqlalchemy.create_engine(
            URL.create("sqlite", database=f"file://{path}?mode=ro", query={"uri": "true"}),
            connect_args={"timeout": 30})
        _sqlite_transactions(engine, read_only=True)
    elif url.get_backend_name() == "sqlite":
        Path(str(url.database)).parent.mkdir(parents=True, exist_ok=True)
        engine = sqlalchemy.create_engine(url, connect_args={"timeout": 30})
        _sqlite_transactions(engine)
    else:
        # the URL's own settings win: an operator may want another connect_timeout
        connect_args = {key: value for key, value in
                        {"connect_timeout": CONNECT_SECONDS, **KEEPALIVE}.items()
                        if key not in url.query}
        engine = sqlalchemy.create_engine(url, pool_size=POOL_SIZE, max_overflow=2 * POOL_SIZE,
                                          connect_args=connect_args)
        if bounded:
            _bounded_statements(engine)
    _one_process_per_connection(engine)
    if engine.dialect.name == "postgresql":
        # after the check above: a forked process must not look at (or close) its
        # parent's sockets
        _replace_closed_connections(engine)
    return engine


@contextmanager
def write(engine: Engine) -> Iterator[Connection]:
    """One write transaction: all of it is stored, or none of it."""
    with engine.connect().execution_options(gapgrid_write=True) as connection, \
            connection.begin():
        yield connection


@contextmanager
def read(engine: Engine, *, snapshot: bool = False) -> Iterator[Connection]:
    """A read; with ``snapshot``, one transaction whose statements all see the same
    snapshot (SQLite's transactions always do; PostgreSQL's need ``REPEATABLE READ``),
    else each statement sees what is committed when it runs (for one statement, the
    same)."""
    options: dict[str, Any] = {}
    if engine.dialect.name == "postgresql":
        # a read of one statement needs no BEGIN and ROLLBACK: two round trips saved
        options["isolation_level"] = "REPEATABLE READ" if snapshot else "AUTOCOMMIT"
    with engine.connect().execution_options(**options) as connection, connection.begin():
        yield connection


def _sqlite_transactions(engine: Engine, *, read_only: bool = False) -> None:
    """SQLite pragmas on every connection, and transactions begun by gapgrid itself.

    Python's sqlite3 module begins transactions only before data changes, so
    schema changes would run outside them and reads would see no snapshot:
    as SQLAlchemy documents, the module's own handling is switched off and
    each transaction begins explicitly, ``IMMEDIATE`` for writes (the write
    lock first, so that concurrent writers queue instead of failing).
    """
    @event.listens_for(engine, "connect")
    def connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        for pragma in ("busy_timeout = 30000", "synchronous = FULL", "foreign_keys = ON"):
            dbapi_connection.execute(f"PRAGMA {pragma}")
        # a reader takes the file's journal mode as it is; another program's file is left
        # as it is, for the upgrade to refuse
        if not read_only and not foreign_tables(dbapi_connection):
            _enter_wal(dbapi_connection)

    @event.listens_for(engine, "begin")
    def begin(connection: Connection) -> None:
        immediate = connection.get_execution_options().get("gapgrid_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


WAL_ATTEMPTS: Final = 50
"""Tries at switching a new database to WAL while other processes do the same (see below)."""


def _enter_wal(dbapi_connection: Any) -> None:
    """``PRAGMA journal_mode = WAL``, tried again while another connection holds the lock.

    Switching a new database's journal mode needs an exclusive lock, and
    SQLite answers "database is locked" at once there instead of waiting in
    the busy handler; servers starting together on one new database (each
    upgrading it) then race for it. A few short waits settle it: the first
    to switch makes the change for all (WAL is kept in the file).
    """
    for attempt in range(WAL_ATTEMPTS):
        try:
            dbapi_connection.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or attempt == WAL_ATTEMPTS - 1:
                raise
            time.sleep(0.01 * (attempt + 1))


def _bounded_statements(engine: Engine) -> None:
    """``lock_timeout`` and ``statement_timeout`` on every new PostgreSQL connection, set by
    statements (one round trip a connection, which the pool keeps) rather than as startup
    options, which PgBouncer refuses. (Behind PgBouncer in transaction pooling a session's
    settings do not follow it: docs/deploy.md says to set them on the role there.)"""
    @event.listens_for(engine, "connect")
    def connect(dbapi_connection: Any, _record: Any) -> None:
        with dbapi_connection.cursor() as cursor:
            cursor.execute(f"SET lock_timeout = '{LOCK_WAIT_SECONDS}s'")
            cursor.execute(f"SET statement_timeout = '{STATEMENT_SECONDS}s'")
        dbapi_connection.commit()  # a SET rolled back with its transaction would be undone


UNBOUNDED: Final = ("SET LOCAL lock_timeout = 0", "SET LOCAL statement_timeout = 0")
"""Lift the bounds for the rest of one transaction (:func:`unbounded`)."""


def unbounded(connection: Connection) -> None:
    """Lift :data:`LOCK_WAIT_SECONDS` and :data:`STATEMENT_SECONDS` for the rest of the
    transaction ``connection`` is in: a migration, which also waits for another server's,
    or ``db prune`` after months of rows, may take longer than a request ever should."""
    if connection.dialect.name == "postgresql":
        for statement in UNBOUNDED:
            connection.exec_driver_sql(statement)


def _one_process_per_connection(engine: Engine) -> None:
    """A pooled connection is never used by a process forked after it was opened (the
    recipe of SQLAlchemy's documentation on pools and ``os.fork()``)."""
    @event.listens_for(engine, "connect")
    def connect(_dbapi_connection: Any, record: Any) -> None:
        record.info["pid"] = os.getpid()

    @event.listens_for(engine, "checkout")
    def checkout(_dbapi_connection: Any, record: Any, proxy: Any) -> None:
        if record.info["pid"] != os.getpid():
            record.dbapi_connection = proxy.dbapi_connection = None
            raise exc.DisconnectionError("connection opened by another process")


def _replace_closed_connections(engine: Engine) -> None:
    """A pooled PostgreSQL connection the server has closed is replaced before use.

    When PostgreSQL restarts or ends a session, it sends the client a last
    message and closes the socket, so the idle connection's socket becomes
    readable; an idle connection in good health has nothing to read (gapgrid
    never LISTENs, and the server reports a changed setting only with the
    answer to a query). Looking costs one ``poll`` call and no round trip,
    where a ping before every use (``pool_pre_ping``) would be a round trip
    for every transaction. Only a connection with something to read is
    pinged (something in between, a proxy, might have written to it); if the
    ping fails, ``DisconnectionError`` makes the pool open a fresh connection
    in its place, and the request goes on unharmed. A connection lost
    without a word (a cable cut) is still only found by the statement that
    meets it.
    """
    @event.listens_for(engine, "checkout")
    def checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        if dbapi_connection.closed:
            raise exc.DisconnectionError("the connection is closed")
        if _readable(dbapi_connection.fileno()):
            try:
                engine.dialect.do_ping(dbapi_connection)
            except Exception as error:  # whatever the driver says, this one is done for
                raise exc.DisconnectionError("the database closed the connection") from error


def _readable(descriptor: int) -> bool:
    """Whether a socket has something to read (or has reached its end) right now."""
    if not hasattr(select, "poll"):  # Windows
        return bool(select.select([descriptor], [], [], 0)[0])
    poller = select.poll()  # unlike select(), any descriptor number
    poller.register(descriptor, select.POLLIN)
    return bool(poller.poll(0))


OUTAGE_SQLSTATES: Final = ("08", "53", "58", "57P01", "57P02", "57P03", "57014", "55P03",
                           "25006", "42501")
"""Beginnings of PostgreSQL's error codes for a database that cannot answer now: class 08
(connection failures), class 53 (out of disk, memory or connection slots), class 58 (the
disk failing), shut down by an administrator or a crash, starting up, a statement past
:data:`STATEMENT_SECONDS` or cancelled, a lock not granted within
:data:`LOCK_WAIT_SECONDS`, a read-only database (a standby, or one an operator locked),
and a privilege taken away while the server runs (a user without one is refused at
start: :func:`write_refusal`)."""

SQLITE_OUTAGES: Final = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED,
                                    sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL,
                                    sqlite3.SQLITE_CANTOPEN})
"""SQLite's primary result codes for a file that cannot be used now: locked past the
wait, a disk that fails or is full, a file that cannot be opened."""


SAID_WITH_STATEMENT: Final = ("57014", "42501")
"""Outages a bug may cause too (a query made slow, a privilege the code needs): their log
line names the statement, so that which query it was can be told."""


def statement_hint(error: BaseException) -> str:
    """`` (statement: SELECT ...)``, the statement's first line without its parameters, for
    an error of :data:`SAID_WITH_STATEMENT`; else nothing."""
    state = getattr(getattr(error, "orig", None), "sqlstate", None)
    statement = getattr(error, "statement", None)
    if state not in SAID_WITH_STATEMENT or not isinstance(statement, str):
        return ""
    first = (statement.strip().splitlines() or [""])[0]
    return f" (statement: {excerpt(first, 120)})"


def is_outage(error: BaseException) -> bool:
    """Whether ``error`` says the database cannot answer now (it is down, restarting,
    locked past the wait, out of connections or disk), rather than that a statement is
    wrong: the first is for a client to try again later, the second a bug."""
    if isinstance(error, exc.TimeoutError):  # no pooled connection free in time
        return True
    if not isinstance(error, exc.DBAPIError):
        return False
    if error.connection_invalidated:
        return True
    cause = error.orig
    code = getattr(cause, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in SQLITE_OUTAGES  # the extended code's primary part
    state = getattr(cause, "sqlstate", "")
    if isinstance(error, exc.OperationalError) and state is None:
        return True  # psycopg's own: no answer from a server at all
    return isinstance(state, str) and state.startswith(OUTAGE_SQLSTATES)


def damage(connection: Connection, *, thorough: bool = False) -> str | None:
    """What SQLite's ``quick_check`` finds wrong with the file (its first finding), or None
    when nothing is, or the database is PostgreSQL's (left to PostgreSQL's own means:
    data checksums, ``pg_amcheck``). It reads the whole file once: for ``gapgrid db
    upgrade``, not for every start. ``thorough``: ``integrity_check`` instead, which also
    matches every index against its table (an index missing rows hides them from a copy
    that reads through it), at some more time: for ``gapgrid db import``."""
    if connection.dialect.name != "sqlite":
        return None
    check = "integrity_check" if thorough else "quick_check"
    finding = str(connection.exec_driver_sql(f"PRAGMA {check}(1)").scalar_one())
    # SQLite heads its findings with the schema's name, which says nothing here
    return None if finding == "ok" else finding.removeprefix("*** in database main ***\n")


# -- migrations --------------------------------------------------------------------------


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration: the packaged scripts, and the connection to migrate."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head() -> str:
    """The newest revision this code knows."""
    revision = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert revision is not None  # there is at least one migration
    return revision


def current(connection: Connection) -> str | None:
    """The database's revision (None: no gapgrid schema yet)."""
    return MigrationContext.configure(connection).get_current_revision()


def known(revision: str) -> bool:
    """Whether this code knows ``revision`` (else a newer gapgrid wrote the database)."""
    try:
        ScriptDirectory.from_config(alembic_config()).get_revision(revision)
    except (CommandError, RevisionError):
        return False
    return True


def user_version(revision: str) -> int:
    """The SQLite ``user_version`` a revision is marked with: the version numbers before
    Alembic went on from 3 (revision ``0001``), and gapgrid before Alembic refuses a
    database whose version it does not know instead of writing to it without the newer
    tables' rules."""
    return int(revision) + 2


def upgrade(engine: Engine) -> str | None:
    """Bring the database to the newest revision, in one transaction, safe when several
    processes start at once, and return the revision it was at (None: a new database,
    which now has gapgrid's tables); a :class:`StoreError` for a database of a newer
    gapgrid, for another program's SQLite file, or for a PostgreSQL database gapgrid
    could not write to (:func:`write_refusal`)."""
    logging.getLogger("alembic").setLevel(logging.WARNING)  # not its chatter at each start
    with write(engine) as connection:
        if connection.dialect.name == "postgresql":
            # held until this transaction ends: one server migrates, the others then
            # find the database at the newest revision and change nothing
            unbounded(connection)
            connection.execute(sqlalchemy.text("SELECT pg_advisory_xact_lock(:key)"),
                               {"key": UPGRADE_LOCK})
            clash = postgresql_clash(connection)
            if clash is not None:
                raise StoreError(clash)
        else:
            _upgrade_legacy(connection)
        revision = current(connection)
        if revision is not None and not known(revision):
            raise StoreError(f"the database was written by a newer gapgrid (schema revision "
                             f"{revision}; this one knows up to {head()})")
        if revision != head():
            try:
                command.upgrade(alembic_config(connection), "head")
            except exc.ProgrammingError as error:
                if connection.dialect.name != "postgresql":
                    raise
                # a relation a later revision makes, already made by another program
                found = str(error.orig).splitlines()[0] if error.orig else str(error)
                raise StoreError(f"the database could not be brought to gapgrid's revision "
                                 f"{head()}: {excerpt(found, 200)}; {OWN_DATABASE}") from None
        if connection.dialect.name == "sqlite":
            connection.exec_driver_sql(f"PRAGMA user_version = {user_version(head())}")
        else:
            refusal = write_refusal(connection)
            if refusal is not None:
                raise StoreError(refusal)
    return revision


TABLE_PRIVILEGES: Final = ("SELECT", "INSERT", "UPDATE", "DELETE")
"""What gapgrid does to its tables, each of which its database user must be granted."""


def write_refusal(connection: Connection) -> str | None:
    """Why gapgrid could not write to this PostgreSQL database, or None: a database that
    is read-only (a standby, ``default_transaction_read_only``), or a user without a
    privilege gapgrid needs on its tables or their id sequences. Checked at start, so
    that such a server refuses to start in one line rather than serve reads and answer
    every write with an error."""
    if connection.exec_driver_sql("SHOW transaction_read_only").scalar_one() == "on":
        return ("the database is read-only (a standby, or default_transaction_read_only "
                "set for the database or its user), and gapgrid writes to it: name the "
                "primary in GAPGRID_DATABASE, or allow writes")
    missing = []
    for table in schema.metadata.tables.values():
        for privilege in TABLE_PRIVILEGES:
            if not connection.execute(sqlalchemy.text("SELECT has_table_privilege(:t, :p)"),
                                      {"t": table.name, "p": privilege}).scalar_one():
                missing.append(f"{privilege} on {table.name}")
        for column in table.primary_key.columns:
            if column.autoincrement is not True:
                continue
            sequence = connection.execute(
                sqlalchemy.text("SELECT pg_get_serial_sequence(:t, :c)"),
                {"t": table.name, "c": column.name}).scalar_one()
            if sequence is not None and not connection.execute(
                    sqlalchemy.text("SELECT has_sequence_privilege(:s, 'USAGE')"),
                    {"s": sequence}).scalar_one():
                missing.append(f"USAGE on {sequence}")
    if not missing:
        return None
    shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3
                                      else "")
    return (f"the database user may not write gapgrid's tables (it lacks {shown}): grant "
            f"it SELECT, INSERT, UPDATE and DELETE on them and USAGE on their sequences, or "
            f"let gapgrid's own user own them")


def _upgrade_legacy(connection: Connection) -> None:
    """A SQLite database from before Alembic: refuse a newer one, bring an older one to
    version 3, and stamp it with revision ``0001``, in the caller's transaction; refuse
    another program's database."""
    driver = connection.connection.driver_connection
    others = foreign_tables(driver)  # type: ignore[arg-type]
    if others:
        raise StoreError(f"{foreign_database(str(connection.engine.url.database), others)}; "
                         f"name a new file or a gapgrid database in GAPGRID_DATABASE")
    version = legacy.user_version(driver)  # type: ignore[arg-type]
    if current(connection) is None and version > legacy.LEGACY_VERSION:
        raise StoreError(f"the database was written by a newer gapgrid (schema version "
                         f"{version}; this one reads up to {legacy.LEGACY_VERSION})")
    if legacy.is_legacy(driver):  # type: ignore[arg-type]
        command.stamp(alembic_config(connection), legacy.upgrade(driver))  # type: ignore[arg-type]


def foreign_database(where: str, tables: list[str]) -> str:
    """Why the SQLite file ``where``, holding ``tables`` (:func:`foreign_tables`), is not
    used: a few of its tables named, quoted (a table's name may be anything)."""
    shown = ", ".join(excerpt(name) for name in tables[:3]) + (
        f" and {len(tables) - 3} more" if len(tables) > 3 else "")
    return (f"the database {where} holds tables gapgrid did not make ({shown}): it is "
            f"another program's")


GAPGRID_REVISION: Final = re.compile(r"[0-9]{4}")
"""How gapgrid's Alembic revisions are named (``0001``, ...), a newer gapgrid's too: another
program's Alembic revisions are hashes such as ``3f2a9c1b7d4e``."""

PUZZLES_COLUMNS: Final = frozenset({"id", "date", "slug", "body", "created_at"})
"""The columns every gapgrid before Alembic gave its ``puzzles`` table."""


def postgresql_clash(connection: Connection) -> str | None:
    """Why gapgrid cannot keep its tables in this PostgreSQL database (its schema on the
    search path), or None. Such a database may be shared with other programs' tables, and
    gapgrid's go beside them, but not where another program that uses Alembic keeps its
    revision in ``alembic_version`` (gapgrid's place for its own: it was read as a newer
    gapgrid's), nor where a relation named as one of gapgrid's (a table, a view, an
    index: they share one namespace) is already there without gapgrid's revision."""
    relations = set(connection.execute(sqlalchemy.text(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = current_schema()")).scalars())
    if "alembic_version" in relations:
        revisions = [str(revision) for revision in connection.execute(
            sqlalchemy.text("SELECT version_num FROM alembic_version")).scalars()]
        theirs = [revision for revision in revisions
                  if not GAPGRID_REVISION.fullmatch(revision)]
        if theirs or (revisions and not _has_gapgrid_puzzles(connection, relations)):
            # numbered as gapgrid numbers its own, but without gapgrid's tables: theirs too
            return (f"the database's alembic_version holds another program's revision "
                    f"({excerpt((theirs or revisions)[0])}), where gapgrid keeps its own: "
                    f"{OWN_DATABASE}")
        if revisions:
            return None  # gapgrid's, at some revision (a later one's clash: see upgrade())
    clashes = sorted(relations & _gapgrid_relations())
    if clashes:
        shown = ", ".join(excerpt(name) for name in clashes[:3]) + (
            f" and {len(clashes) - 3} more" if len(clashes) > 3 else "")
        return (f"the database already has relations named as gapgrid's ({shown}) that "
                f"gapgrid did not make: they are another program's; {OWN_DATABASE}")
    return None


OWN_DATABASE: Final = "give gapgrid a database, or a schema on its user's search path, of its own"


def _has_gapgrid_puzzles(connection: Connection, relations: set[str]) -> bool:
    """Whether the database's ``puzzles`` table has the columns gapgrid gives it."""
    if "puzzles" not in relations:
        return False
    columns = {column["name"] for column in sqlalchemy.inspect(connection).get_columns(
        "puzzles")}
    return columns >= PUZZLES_COLUMNS


def _gapgrid_relations() -> set[str]:
    """The names of the relations gapgrid's schema makes: its tables, their primary keys'
    indexes and sequences, and its named indexes."""
    names: set[str] = set()
    for table in schema.metadata.tables.values():
        names |= {table.name, f"{table.name}_pkey"}
        names |= {f"{table.name}_{column.name}_seq" for column in table.primary_key.columns
                  if column.autoincrement is True}
        names |= {str(index.name) for index in table.indexes if index.name}
    return names


def foreign_tables(connection: sqlite3.Connection) -> list[str]:
    """The tables of a SQLite file that holds tables but no gapgrid schema: another
    program's database (a mistyped GAPGRID_DATABASE), which gapgrid must neither write its
    tables into nor switch to WAL; none for a new file or a gapgrid database.

    A file is gapgrid's when its ``alembic_version`` holds a revision named as
    gapgrid names them (a newer gapgrid's is refused later, as such), or, with
    no ``alembic_version``, when its ``puzzles`` table has the columns of every
    gapgrid before Alembic. A table name alone proves nothing: every program
    that uses Alembic has ``alembic_version``, and ``puzzles`` is a common name.
    (A PostgreSQL database may well be shared with other programs' tables:
    :func:`postgresql_clash` refuses only one whose tables would clash with
    gapgrid's.)
    """
    tables = legacy.tables(connection)
    if not tables - {"alembic_version"}:
        return []  # a new database (or one whose first revision was never written)
    if "alembic_version" in tables:
        revisions = [row[0] for row in connection.execute(
            "SELECT version_num FROM alembic_version")]
        if revisions and all(isinstance(revision, str) and GAPGRID_REVISION.fullmatch(revision)
                             for revision in revisions):
            return []
    elif "puzzles" in tables:
        columns = {row[1] for row in connection.execute("PRAGMA table_info(puzzles)")}
        if columns >= PUZZLES_COLUMNS:
            return []
    return sorted(tables)
