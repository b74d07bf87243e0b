"""The schema and its migrations, on SQLite and on a real PostgreSQL.

A new database of either back end gets exactly the tables of ``schema.py``;
a SQLite database written by gapgrid before Alembic (schema version 3, made
here with that version's own statements, copied verbatim) is upgraded with
every row kept; servers that start at once on one new database upgrade it
once; a database from a newer gapgrid is refused and left alone.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from click.testing import CliRunner

from gapgrid.api.cli import main
from gapgrid.api.config import ConfigError, database_from_environment
from gapgrid.api.db import engine
from gapgrid.api.db.schema import metadata
from gapgrid.api.db.sortkeys import encode_sort_key
from gapgrid.api.store import SCHEMA_VERSION, Player, Store
from tests.postgres import Cluster

# -- gapgrid before Alembic (schema version 3), verbatim -------------------------------------

VERSION_3 = (
    """CREATE TABLE IF NOT EXISTS puzzles (
    id TEXT PRIMARY KEY,
    date TEXT NOT NULL,
    slug TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (date, slug)
)""",
    """CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    puzzle_id TEXT NOT NULL REFERENCES puzzles (id),
    player TEXT NOT NULL,
    player_key TEXT NOT NULL,
    moves_digest TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (puzzle_id, player_key)
)""",
    """CREATE TABLE IF NOT EXISTS ranking_keys (
    submission_id INTEGER NOT NULL REFERENCES submissions (id),
    puzzle_id TEXT NOT NULL,
    scheme TEXT NOT NULL,
    sort_key TEXT NOT NULL,
    total INTEGER NOT NULL,
    PRIMARY KEY (submission_id, scheme)
)""",
    """CREATE INDEX IF NOT EXISTS ranking_keys_order
    ON ranking_keys (puzzle_id, scheme, sort_key, submission_id)""",
    """CREATE TABLE IF NOT EXISTS certificates (
    puzzle_id TEXT PRIMARY KEY REFERENCES puzzles (id),
    deal TEXT NOT NULL,
    certified INTEGER NOT NULL,
    line TEXT NOT NULL,
    par INTEGER,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
)""",
    """CREATE TABLE IF NOT EXISTS leases (
    name TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires_at REAL NOT NULL
)""",
    """CREATE TABLE IF NOT EXISTS hints (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    puzzle_id TEXT NOT NULL,
    token_digest TEXT NOT NULL,
    moves INTEGER NOT NULL,
    asked_at TEXT NOT NULL
)""",
    "CREATE INDEX IF NOT EXISTS hints_by_token ON hints (token_digest)",
    "CREATE INDEX IF NOT EXISTS certificates_by_deal ON certificates (deal)",
)

ROWS: dict[str, list[tuple[Any, ...]]] = {
    "puzzles": [("2026-11-29/montana", "2026-11-29", "montana", '{"deal": "7"}', "t0"),
                ("2026-11-30/montana", "2026-11-30", "montana", '{"deal": "8"}', "t1")],
    "submissions": [(1, "2026-11-29/montana", "Ann", "ann", "d1", '{"player": "Ann"}', "t2"),
                    (2, "2026-11-29/montana", "Ben", "ben", "d2", '{"player": "Ben"}', "t3"),
                    (5, "2026-11-30/montana", "Ann", "ann", "d3", '{"player": "Ann"}', "t4")],
    "ranking_keys": [(1, "2026-11-29/montana", "par", encode_sort_key((0, 12)), 12),
                     (1, "2026-11-29/montana", "cards", encode_sort_key((-3,)), 3),
                     (2, "2026-11-29/montana", "par", encode_sort_key((1, 4)), 4),
                     (5, "2026-11-30/montana", "par", encode_sort_key((0, 9)), 9)],
    "certificates": [("2026-11-29/montana", "7", 1, '["a", "b"]', 2, "{}", "t0", "t5")],
    "leases": [("make 2026-12-01/montana", "pid 7", 1.5e9)],
    "hints": [(3, "2026-11-30/montana", "digest", 4, "t6")],
}
"""A row or more in every table of version 3, ids with gaps as deletions leave them."""


def upgraded(database: Path | str) -> None:
    """Open ``database`` as a server does at start: create or upgrade it."""
    made = engine.create(database)
    try:
        engine.upgrade(made)
    finally:
        made.dispose()


def write_version_3_database(path: Path) -> None:
    """A database as the last gapgrid before Alembic wrote it."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("BEGIN IMMEDIATE")
    for statement in VERSION_3:
        connection.execute(statement)
    for table, rows in ROWS.items():
        marks = ", ".join("?" * len(rows[0]))
        connection.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
    connection.execute("PRAGMA user_version = 3")
    connection.execute("COMMIT")
    connection.close()


def table_rows(path: Path, table: str) -> list[tuple[Any, ...]]:
    """Every row of a table of version 3, in its columns' order, by rowid."""
    connection = sqlite3.connect(path)
    try:
        columns = [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]
        width = len(ROWS[table][0])
        return connection.execute(
            f"SELECT {', '.join(columns[:width])} FROM {table} ORDER BY rowid").fetchall()
    finally:
        connection.close()


def test_a_new_database_gets_exactly_the_schema_module_s_tables(database: Path | str) -> None:
    """The migrations make what ``schema.py`` declares, and nothing else, on both back ends
    (the store's queries are written against ``schema.py``)."""
    upgraded(database)
    made = engine.create(database)
    with made.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), metadata)
        assert engine.current(connection) == engine.head()
    made.dispose()
    assert differences == []


def test_a_version_3_database_is_upgraded_with_nothing_lost(tmp_path: Path) -> None:
    """Every row of every table of the last schema before Alembic is kept, ids and all; the
    database is marked with the newest revision, and with a user_version older gapgrids
    refuse, so that none of them writes to it without the newer tables' rules."""
    path = tmp_path / "gapgrid.sqlite3"
    write_version_3_database(path)
    upgraded(path)
    for table, rows in ROWS.items():
        assert table_rows(path, table) == rows, table
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchall() == [
            (engine.head(),)]
        assert connection.execute("PRAGMA user_version").fetchone()[0] == engine.user_version(
            engine.head())
    upgraded(path)  # a second start changes nothing
    assert table_rows(path, "submissions") == ROWS["submissions"]


def test_a_failed_upgrade_leaves_the_version_3_database_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The upgrade is one transaction: failing at its end, it leaves no revision, no
    new table, and the next start upgrades the database whole."""
    path = tmp_path / "gapgrid.sqlite3"
    write_version_3_database(path)

    def failing(*args: Any, **kwargs: Any) -> None:
        raise sqlite3.OperationalError("disk full")
    # the last step of the transaction, after the stamp and the migrations
    monkeypatch.setattr(engine, "user_version", failing)
    with pytest.raises(sqlite3.OperationalError, match="disk full"):
        upgraded(path)
    with sqlite3.connect(path) as connection:
        tables = {row[0] for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "alembic_version" not in tables
        assert connection.execute("PRAGMA user_version").fetchone()[0] == 3
    monkeypatch.undo()
    upgraded(path)
    for table, rows in ROWS.items():
        assert table_rows(path, table) == rows, table


def test_servers_starting_at_once_upgrade_the_database_once(database: Path | str) -> None:
    """Six processes' worth of engines upgrading one new database at the same moment all
    succeed, and the database ends at the newest revision, made once."""
    barrier = threading.Barrier(6)
    errors: list[BaseException] = []

    def start() -> None:
        made = engine.create(database)
        try:
            barrier.wait()
            engine.upgrade(made)
        except BaseException as error:  # reported below, with the others
            errors.append(error)
        finally:
            made.dispose()
    threads = [threading.Thread(target=start) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    made = engine.create(database)
    with made.connect() as connection:
        versions = connection.execute(sqlalchemy.text("SELECT version_num FROM alembic_version"))
        assert versions.all() == [(engine.head(),)]
    made.dispose()


def test_a_database_of_a_newer_revision_is_refused(database: Path | str) -> None:
    """A revision this code does not know means a newer gapgrid wrote the database: it is
    refused with that reason, and nothing is written."""
    upgraded(database)
    made = engine.create(database)
    with engine.write(made) as connection:
        connection.execute(sqlalchemy.text("UPDATE alembic_version SET version_num = '9999'"))
    with pytest.raises(engine.StoreError, match="newer gapgrid"):
        upgraded(database)
    with made.connect() as connection:
        assert engine.current(connection) == "9999"
    made.dispose()


def test_gapgrid_db_upgrade_upgrades_the_configured_database(tmp_path: Path) -> None:
    """`gapgrid db upgrade` brings GAPGRID_DATABASE to the newest revision and says so; it
    needs no secret."""
    path = tmp_path / "gapgrid.sqlite3"
    write_version_3_database(path)
    result = CliRunner().invoke(main, ["db", "upgrade"], env={
        "GAPGRID_DATABASE": str(path), "GAPGRID_INSTANCE": str(tmp_path / "nowhere"),
        "GAPGRID_SECRET_KEY": ""})
    assert result.exit_code == 0, result.output + result.stderr
    assert f"now at revision {engine.head()} (before: no revision)" in result.output
    assert table_rows(path, "submissions") == ROWS["submissions"]
    again = CliRunner().invoke(main, ["db", "upgrade"], env={"GAPGRID_DATABASE": str(path)})
    assert again.exit_code == 0 and f"already at revision {engine.head()}" in again.output


def test_gapgrid_db_upgrade_makes_no_instance_where_there_is_none(tmp_path: Path) -> None:
    """Run in the wrong folder, or with a GAPGRID_DATABASE whose folder is mistyped, `db
    upgrade` says that no instance is there (exit 2) rather than make the folders and an
    empty database and report an upgrade. (A new file in an existing folder is made, as a
    server's first start makes it.)"""
    typo = tmp_path / "typo" / "deep" / "gapgrid.sqlite3"
    result = CliRunner().invoke(main, ["db", "upgrade"], env={"GAPGRID_DATABASE": str(typo)})
    assert result.exit_code == 2, result.output
    assert f"no gapgrid instance at {typo.parent}" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_gapgrid_db_upgrade_says_why_a_database_cannot_be_opened(
        postgres_cluster: Cluster) -> None:
    """A PostgreSQL database that does not exist is one line naming it (no password),
    exit status 2."""
    url = postgres_cluster.url("no_such_database").replace("gapgrid@", "gapgrid:secret@")
    result = CliRunner().invoke(main, ["db", "upgrade"], env={"GAPGRID_DATABASE": url})
    assert result.exit_code == 2
    assert "no_such_database" in result.stderr and "secret" not in result.stderr
    assert result.stderr.count("\n") == 1


def test_gapgrid_database_is_a_file_or_a_postgresql_url(tmp_path: Path) -> None:
    """GAPGRID_DATABASE names a SQLite file (by default in the instance folder) or a
    PostgreSQL URL, which is never printed with its password; other URLs are refused."""
    assert database_from_environment({"GAPGRID_INSTANCE": str(tmp_path)}) == (
        tmp_path / "gapgrid.sqlite3")
    url = "postgresql://gapgrid:hunter2@db.example:5432/gapgrid"
    assert database_from_environment({"GAPGRID_DATABASE": url}) == url
    assert engine.describe(url) == "postgresql://gapgrid:***@db.example:5432/gapgrid"  # as typed
    with pytest.raises(ConfigError, match="postgresql:// URL, not a mysql:// URL"):
        database_from_environment({"GAPGRID_DATABASE": "mysql://db.example/gapgrid"})
    # a URL that cannot be read is said so, without the parser's words (some of which
    # repeat the URL, password and all)
    for unreadable in ("postgresql://gapgrid:hunter2@127.0.0.1:port/gapgrid",
                       "postgresql://gapgrid:hunter2@[::1/gapgrid"):
        with pytest.raises(ConfigError, match="GAPGRID_DATABASE: the URL cannot be read") as said:
            database_from_environment({"GAPGRID_DATABASE": unreadable})
        assert "hunter2" not in str(said.value)


@pytest.mark.parametrize("command", [["db", "upgrade"], ["serve", "--port", "0"]])
def test_a_database_url_that_cannot_be_read_is_a_usage_error(command: list[str]) -> None:
    """Not "internal error: ValueError ... please report it" (exit 3): one line, exit 2."""
    result = CliRunner().invoke(main, command, env={
        "GAPGRID_DATABASE": "postgresql://gapgrid:pw@127.0.0.1:port/gapgrid",
        "GAPGRID_SECRET_KEY": "a-test-secret-of-enough-bytes"})
    assert result.exit_code == 2, result.output
    assert "the URL cannot be read" in result.stderr
    assert "internal error" not in result.stderr


def test_the_store_s_schema_version_is_the_newest_revision_s() -> None:
    """What the store announces as SQLite's user_version is what the upgrade writes."""
    assert engine.user_version(engine.head()) == SCHEMA_VERSION


PLAYERS_OF_VERSION_4 = """CREATE TABLE IF NOT EXISTS players (
    player_key TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    token_digest TEXT,
    created_at TEXT NOT NULL
)"""
"""The table gapgrid 1a0a2a7 added as schema version 4 (the last before Alembic), verbatim."""


def test_a_version_4_database_keeps_its_players_and_gets_its_tallies(tmp_path: Path) -> None:
    """A database of the last version before Alembic (4: players own their names) keeps
    every row, its players' tokens included, and its tallies count what it holds."""
    path = tmp_path / "gapgrid.sqlite3"
    write_version_3_database(path)
    with sqlite3.connect(path) as connection:
        connection.execute(PLAYERS_OF_VERSION_4)
        connection.executemany("INSERT INTO players VALUES (?, ?, ?, ?)",
                               [("ann", "Ann", "digest of Ann's token", "t2"),
                                ("ben", "Ben", None, "t3")])
        connection.execute("PRAGMA user_version = 4")
    store = Store(path)
    for table, rows in ROWS.items():
        assert table_rows(path, table) == rows, table
    assert store.player("ann") == Player("ann", "Ann", "digest of Ann's token")
    assert store.count("2026-11-29/montana") == 2 and store.count("2026-11-30/montana") == 1
    assert store.rank("2026-11-29/montana", "ben", "par") == (2, 2)
    assert store.leaderboard("2026-11-29/montana", "cards", 0, 10)[1] == 1
    store.close()


def test_a_new_database_locked_by_another_connection_still_enters_wal(tmp_path: Path) -> None:
    """Switching a new SQLite database to WAL fails at once ("database is locked") while
    another connection holds its lock; a server starting then waits for it instead of failing
    (servers starting together on one new database raced so)."""
    path = tmp_path / "new.db"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("CREATE TABLE t (a)")
    starting = sqlite3.connect(path, isolation_level=None, timeout=30)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        starting.execute("PRAGMA journal_mode = WAL")  # what SQLite itself does
    release = threading.Timer(0.1, holder.execute, ["COMMIT"])
    release.start()
    engine._enter_wal(starting)
    release.join()
    assert starting.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    starting.close()
    holder.close()


def test_another_program_s_sqlite_database_is_refused_and_left_as_it_was(
        tmp_path: Path) -> None:
    """A GAPGRID_DATABASE that names another program's SQLite file (tables, no gapgrid
    schema) is refused, naming a few of its tables, instead of getting gapgrid's tables
    written into it; an empty file is a new database, as before."""
    path = tmp_path / "notes.sqlite3"
    with closing(sqlite3.connect(path)) as connection, connection:
        for name in ("notes", "tags", "authors", "line\nbreak"):
            connection.execute(f'CREATE TABLE "{name}" (id INTEGER PRIMARY KEY)')
        connection.execute("INSERT INTO notes VALUES (1)")
    before = path.read_bytes()
    said = (rf"database {re.escape(str(path))} holds tables gapgrid did not make "
            r"\('authors', 'line\\nbreak', 'notes' and 1 more\): it is another program's")
    with pytest.raises(engine.StoreError, match=said):
        upgraded(path)
    assert path.read_bytes() == before

    result = CliRunner().invoke(main, ["db", "upgrade"], env={"GAPGRID_DATABASE": str(path)})
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "another program's" in result.stderr

    empty = tmp_path / "empty.sqlite3"
    empty.touch()
    upgraded(empty)
    assert table_rows(empty, "puzzles") == []


@pytest.mark.parametrize(("tables", "why"), [
    ({"alembic_version": "version_num VARCHAR(32) NOT NULL", "users": "id INTEGER"},
     "an Alembic program's: every one has alembic_version"),
    ({"puzzles": "id INTEGER, grid TEXT", "solvers": "id INTEGER"},
     "a crossword program's: puzzles is a common name"),
])
def test_a_table_name_alone_does_not_make_a_file_gapgrid_s(
        tmp_path: Path, tables: dict[str, str], why: str) -> None:
    """A file is gapgrid's by its revision (named as gapgrid names them) or by its puzzles
    table's columns, not by the names alembic_version or puzzles: such a file of another
    program was switched to WAL and then called a newer gapgrid's, or had gapgrid's tables
    written into it."""
    path = tmp_path / "theirs.sqlite3"
    with closing(sqlite3.connect(path)) as connection, connection:
        for name, columns in tables.items():
            connection.execute(f"CREATE TABLE {name} ({columns})")
        if "alembic_version" in tables:
            connection.execute("INSERT INTO alembic_version VALUES ('3f2a9c1b7d4e')")
    before = path.read_bytes()
    result = CliRunner().invoke(main, ["db", "upgrade"], env={"GAPGRID_DATABASE": str(path)})
    assert result.exit_code == 2, (why, result.output)
    assert "holds tables gapgrid did not make (" in result.stderr, why
    assert "newer gapgrid" not in result.stderr
    assert path.read_bytes() == before, why


@pytest.mark.parametrize(("statements", "said"), [
    (["CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY)",
      "INSERT INTO alembic_version VALUES ('3f2a9c1b7d4e')"],
     r"alembic_version holds another program's revision \('3f2a9c1b7d4e'\)"),
    (["CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY)",
      "INSERT INTO alembic_version VALUES ('0001')"],
     r"alembic_version holds another program's revision \('0001'\)"),
    (["CREATE TABLE players (id INTEGER)", "CREATE TABLE hints (id INTEGER)"],
     r"already has relations named as gapgrid's \('hints', 'players'\)"),
    (["CREATE VIEW players AS SELECT 1 AS id"],
     r"already has relations named as gapgrid's \('players'\)"),
], ids=["another-alembic-program", "numbered-as-gapgrid-s", "tables-named-as-gapgrid-s",
        "a-view"])
def test_a_postgresql_database_whose_tables_clash_with_gapgrid_s_is_refused(
        postgres_cluster: Cluster, statements: list[str], said: str) -> None:
    """A PostgreSQL database may hold other programs' tables, beside which gapgrid keeps
    its own; but not another Alembic program's revision (it was called a newer gapgrid's,
    or, numbered as gapgrid's, failed on a missing table) nor tables or views named as
    gapgrid's that gapgrid did not make: refused, in one line, and the database is left as
    it was."""
    import psycopg
    url = postgres_cluster.new_database()
    with psycopg.connect(url, autocommit=True) as connection:
        for statement in statements:
            connection.execute(statement)
        connection.execute("CREATE TABLE orders (id INTEGER)")
    with pytest.raises(engine.StoreError, match=said):
        upgraded(url)
    result = CliRunner().invoke(main, ["db", "upgrade"], env={"GAPGRID_DATABASE": url})
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "newer gapgrid" not in result.stderr
    with psycopg.connect(url) as connection:
        tables = {row[0] for row in connection.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert "puzzles" not in tables


def test_gapgrid_s_tables_go_beside_another_program_s_in_postgresql(
        postgres_cluster: Cluster) -> None:
    """Tables of another program whose names are not gapgrid's do not stop it: its schema
    is made beside them, and theirs are untouched."""
    import psycopg
    url = postgres_cluster.new_database()
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE TABLE orders (id INTEGER)")
        connection.execute("INSERT INTO orders VALUES (7)")
    upgraded(url)
    upgraded(url)  # a second start finds gapgrid's revision and changes nothing
    with psycopg.connect(url) as connection:
        assert connection.execute("SELECT id FROM orders").fetchall() == [(7,)]
        assert connection.execute("SELECT count(*) FROM puzzles").fetchone() == (0,)


def test_a_relation_a_later_revision_makes_already_there_is_said_in_one_line(
        postgres_cluster: Cluster) -> None:
    """A gapgrid database at revision 0004 beside which another program made a table named
    as one revision 0005 makes: the upgrade is refused in one line naming the relation
    (it was PostgreSQL's DuplicateTable error, raw), and the database stays at 0004."""
    import psycopg
    from alembic import command
    url = postgres_cluster.new_database()
    made = engine.create(url)
    try:
        with engine.write(made) as connection:
            command.upgrade(engine.alembic_config(connection), "0004")
    finally:
        made.dispose()
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE TABLE start_tokens (id INTEGER)")
    with pytest.raises(engine.StoreError, match=rf"could not be brought to gapgrid's revision "
                                                rf"{engine.head()}: 'relation \"start_tokens\" "):
        upgraded(url)
    with psycopg.connect(url) as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchall() == [
            ("0004",)]
