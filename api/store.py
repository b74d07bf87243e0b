"""Storage: puzzles and submissions in SQLite, written in single transactions.

SQLite runs in WAL mode with full sync, so a restart loses nothing that
was answered as stored; each write is one ``BEGIN IMMEDIATE`` transaction,
so concurrent writers (threads or processes) queue on the database lock
instead of interleaving. Uniqueness (one puzzle per date and variant, one
counted submission per player and puzzle) is enforced by the schema, not
by the code, so it holds under any concurrency.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Final

import attrs

SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS puzzles (
    id TEXT PRIMARY KEY,
    date TEXT NOT NULL,
    slug TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (date, slug)
);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    puzzle_id TEXT NOT NULL REFERENCES puzzles (id),
    player TEXT NOT NULL,
    player_key TEXT NOT NULL,
    moves_digest TEXT NOT NULL,
    lost INTEGER NOT NULL,
    moves INTEGER NOT NULL,
    time_unknown INTEGER NOT NULL,
    milliseconds INTEGER NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (puzzle_id, player_key)
);
CREATE INDEX IF NOT EXISTS submissions_ranking
    ON submissions (puzzle_id, lost, moves, time_unknown, milliseconds, id);
"""

_ORDER: Final = "lost, moves, time_unknown, milliseconds"
"""The par ranking: won first, then fewer moves, then a known time, then less time."""


@attrs.frozen
class Submission:
    """A stored submission."""

    player: str
    moves_digest: str
    body: dict[str, Any]
    """The answer given when it was stored."""


@attrs.frozen
class NewSubmission:
    """What to store for a verified submission."""

    puzzle_id: str
    player: str
    moves_digest: str
    sort_key: tuple[int, int, int, int]
    """The par scheme's sort key: (lost, moves, time unknown, milliseconds)."""

    body: dict[str, Any]
    created_at: str


class Store:
    """The database, with one connection per thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        connection = self._connection()
        connection.execute("PRAGMA journal_mode = WAL")
        connection.executescript(SCHEMA)
        self.close()  # a server that forks after this must not share the connection

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection, opened anew in a forked process."""
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None or getattr(self._local, "pid", None) != os.getpid():
            connection = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            connection.execute("PRAGMA synchronous = FULL")
            connection.execute("PRAGMA foreign_keys = ON")
            connection.execute("PRAGMA busy_timeout = 30000")
            self._local.connection, self._local.pid = connection, os.getpid()
        return connection

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of it is stored, or none of it."""
        with self._transaction("BEGIN IMMEDIATE") as connection:
            yield connection

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: every statement sees the same snapshot."""
        with self._transaction("BEGIN") as connection:
            yield connection

    @contextmanager
    def _transaction(self, begin: str) -> Iterator[sqlite3.Connection]:
        connection = self._connection()
        connection.execute(begin)
        try:
            yield connection
            connection.execute("COMMIT")
        except BaseException:
            with suppress(sqlite3.Error):  # a failed COMMIT may have ended it already
                connection.execute("ROLLBACK")
            raise

    # -- puzzles ---------------------------------------------------------------

    def puzzle(self, puzzle_id: str) -> dict[str, Any] | None:
        """The stored puzzle, or None."""
        row = self._connection().execute("SELECT body FROM puzzles WHERE id = ?",
                                         (puzzle_id,)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def keep_puzzle(self, puzzle_id: str, date: str, slug: str, body: dict[str, Any],
                    created_at: str) -> dict[str, Any]:
        """Store ``body`` unless the puzzle exists; return the stored one (first wins)."""
        with self._write() as connection:
            connection.execute(
                "INSERT INTO puzzles (id, date, slug, body, created_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                (puzzle_id, date, slug, json.dumps(body), created_at))
            row = connection.execute("SELECT body FROM puzzles WHERE id = ?",
                                     (puzzle_id,)).fetchone()
        return json.loads(row[0])  # type: ignore[no-any-return]

    # -- submissions -----------------------------------------------------------

    def submit(self, new: NewSubmission) -> tuple[Submission, bool]:
        """Store ``new`` unless the player already has a submission; return the stored one.

        The boolean says whether ``new`` was stored now.
        """
        lost, moves, time_unknown, milliseconds = new.sort_key
        with self._write() as connection:
            cursor = connection.execute(
                "INSERT INTO submissions (puzzle_id, player, player_key, moves_digest, lost, "
                "moves, time_unknown, milliseconds, body, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (new.puzzle_id, new.player, new.player.casefold(), new.moves_digest, lost, moves,
                 time_unknown, milliseconds, json.dumps(new.body),
                 new.created_at))
            created = cursor.rowcount == 1
            row = connection.execute(
                "SELECT player, moves_digest, body FROM submissions "
                "WHERE puzzle_id = ? AND player_key = ?",
                (new.puzzle_id, new.player.casefold())).fetchone()
        return Submission(player=row[0], moves_digest=row[1], body=json.loads(row[2])), created

    def count(self, puzzle_id: str) -> int:
        """How many players have a stored submission for the puzzle."""
        row = self._connection().execute("SELECT COUNT(*) FROM submissions WHERE puzzle_id = ?",
                                         (puzzle_id,)).fetchone()
        return int(row[0])

    def rank(self, puzzle_id: str, player: str) -> tuple[int, int]:
        """The player's rank (ties share a rank) and the number of ranked players."""
        row = self._connection().execute(
            f"SELECT ranked.rank, ranked.total FROM (SELECT player_key, "
            f"RANK() OVER (ORDER BY {_ORDER}) AS rank, COUNT(*) OVER () AS total "
            f"FROM submissions WHERE puzzle_id = ?) AS ranked WHERE ranked.player_key = ?",
            (puzzle_id, player.casefold())).fetchone()
        return (row[0], row[1]) if row else (0, 0)

    def leaderboard(self, puzzle_id: str, offset: int, limit: int
                    ) -> tuple[list[dict[str, Any]], int]:
        """One page of the ranking, and the number of ranked players."""
        with self._read() as connection:
            total = connection.execute("SELECT COUNT(*) FROM submissions WHERE puzzle_id = ?",
                                       (puzzle_id,)).fetchone()[0]
            rows = connection.execute(
                f"SELECT RANK() OVER (ORDER BY {_ORDER}) AS rank, player, lost, moves, "
                f"time_unknown, milliseconds, created_at FROM submissions WHERE puzzle_id = ? "
                f"ORDER BY {_ORDER}, id LIMIT ? OFFSET ?",
                (puzzle_id, limit, offset)).fetchall()
        entries = [{"rank": rank, "player": name, "won": not lost, "moves": moves,
                    "seconds": None if unknown else milliseconds / 1000,
                    "submitted_at": created}
                   for rank, name, lost, moves, unknown, milliseconds, created in rows]
        return entries, total

    def close(self) -> None:
        """Close this thread's connection."""
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None
