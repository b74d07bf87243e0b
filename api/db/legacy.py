"""SQLite databases from before Alembic, brought to its first revision (``0001``).

gapgrid 0.1.0 to the version before Alembic kept their schema version in
SQLite's ``user_version``. Version 1 (``user_version`` 0) kept only the
``par`` scheme's key, in four columns of ``submissions``; version 2 moved
keys to ``ranking_keys``, every scheme's; version 3 added certificates,
leases and hints, and forgot the stored ``par`` keys, whose ranking changed
(the fair leaderboard): the service computes them again from the stored
answers, as it does for any scheme a submission lacks a key for.

This is history, so it stays as it was written, in SQLite's own SQL: the
statements below are version 3's, which revision ``0001`` creates on a new
database. It runs inside the caller's transaction (all of it, or nothing),
on the driver's connection of that transaction.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any, Final

LEGACY_VERSION: Final = 4
"""The last ``user_version`` before Alembic."""

REVISIONS: Final = {3: "0001", 4: "0002"}
"""The Alembic revision whose schema each version before Alembic had."""

VERSION_3: Final = (
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
"""Version 3, statement by statement."""

_PAR_COLUMNS: Final = ("lost", "moves", "time_unknown", "milliseconds")


def is_legacy(connection: sqlite3.Connection) -> bool:
    """Whether the database has gapgrid's tables but no Alembic revision yet."""
    present = tables(connection)
    return "puzzles" in present and "alembic_version" not in present


def user_version(connection: sqlite3.Connection) -> int:
    """SQLite's ``user_version``: the schema version before Alembic."""
    return int(connection.execute("PRAGMA user_version").fetchone()[0])


def upgrade(connection: sqlite3.Connection) -> str:
    """Bring a database from before Alembic to version 3 at least; return the Alembic
    revision it now has (version 4, made by the release before Alembic, has ``0002``'s
    schema, ``players``; it is left as it is)."""
    version = user_version(connection)
    if version < 3:
        upgrade_to_version_3(connection)
        version = 3
    return REVISIONS[version]


def upgrade_to_version_3(connection: sqlite3.Connection) -> None:
    """Bring a database of version 1, 2 or 3 to version 3 (revision ``0001``)."""
    version = user_version(connection)
    columns = {row[1] for row in connection.execute("PRAGMA table_info(submissions)")}
    if version < 3 and "lost" in columns:
        migrate_from_version_1(connection)
    present = tables(connection)
    for statement in VERSION_3:
        connection.execute(statement)
    if version < 3 and "ranking_keys" in present:
        # the par ranking changed in version 3: its keys are computed again from the
        # stored answers (PuzzleService ranks every submission that lacks a key)
        connection.execute("DELETE FROM ranking_keys WHERE scheme = 'par'")


def migrate_from_version_1(connection: sqlite3.Connection) -> None:
    """Version 1 to 2: move the ``par`` columns out of ``submissions`` into ``ranking_keys``.

    SQLite cannot drop columns used by an index, so the table is rebuilt
    (its rows copied with their ids, the old table dropped, the new one
    renamed), then every submission gets a key for each scheme it was
    scored with.
    """
    par_keys = {row[0]: tuple(row[1:]) for row in connection.execute(
        f"SELECT id, {', '.join(_PAR_COLUMNS)} FROM submissions")}
    connection.execute(VERSION_3[1].replace("IF NOT EXISTS submissions",
                                            "submissions_version_2"))
    connection.execute(
        "INSERT INTO submissions_version_2 (id, puzzle_id, player, player_key, moves_digest, "
        "body, created_at) SELECT id, puzzle_id, player, player_key, moves_digest, body, "
        "created_at FROM submissions")
    connection.execute("DROP TABLE submissions")  # its ranking index goes with it
    connection.execute("ALTER TABLE submissions_version_2 RENAME TO submissions")
    connection.execute(VERSION_3[2])
    rows = connection.execute("SELECT id, puzzle_id, body FROM submissions").fetchall()
    for submission_id, puzzle_id, body in rows:
        keys = keys_in_answer(json.loads(body))
        lost, moves, time_unknown, milliseconds = par_keys[submission_id]
        # the columns are what version 1 ranked by: they win over the stored answer
        keys["par"] = ((lost, moves, time_unknown, milliseconds), moves)
        insert_keys(connection, submission_id, puzzle_id, keys)


def insert_keys(connection: sqlite3.Connection, submission_id: int, puzzle_id: str,
                keys: Mapping[str, tuple[tuple[int, ...], int]]) -> None:
    """Store a submission's keys, one per scheme: ``{scheme: (sort key, total)}``."""
    from gapgrid.api.db.sortkeys import encode_sort_key
    connection.executemany(
        "INSERT INTO ranking_keys (submission_id, puzzle_id, scheme, sort_key, total) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        [(submission_id, puzzle_id, scheme, encode_sort_key(key), total)
         for scheme, (key, total) in keys.items()])


def keys_in_answer(body: Mapping[str, Any]) -> dict[str, tuple[tuple[int, ...], int]]:
    """Every scheme's key found in a stored answer's ``result.scores``."""
    result = body.get("result")
    scores = result.get("scores") if isinstance(result, dict) else None
    keys: dict[str, tuple[tuple[int, ...], int]] = {}
    for name, score in (scores or {}).items():
        if not isinstance(score, dict):
            continue  # a summary term (moves, undos, ...), not a scheme
        sort_key, total = score.get("sort_key"), score.get("total")
        if (isinstance(sort_key, list) and all(type(part) is int for part in sort_key)
                and type(total) is int):
            keys[name] = (tuple(sort_key), total)
    return keys


def tables(connection: sqlite3.Connection) -> set[str]:
    """The names of the database's tables, SQLite's own (``sqlite_sequence``) aside."""
    return {row[0] for row in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' "
        "ESCAPE '\\'")}
