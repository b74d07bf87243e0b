"""Storage: puzzles, submissions and their ranking keys in SQLite, written in single transactions.

SQLite runs in WAL mode with full sync, so a restart loses nothing that
was answered as stored; each write is one ``BEGIN IMMEDIATE`` transaction,
so concurrent writers (threads or processes) queue on the database lock
instead of interleaving. Uniqueness (one puzzle per date and variant, one
counted submission per player and puzzle, one key per submission and
scheme) is enforced by the schema, not by the code, so it holds under any
concurrency.

Each submission keeps one sort key per scoring scheme in ``ranking_keys``,
so a leaderboard can rank by whichever scheme the server is configured with
(an index on puzzle, scheme and key serves it). A key is a tuple of whole
numbers, ordered ascending, best first; it is stored as text whose byte
order is the tuple's order (:func:`encode_sort_key`).

Each puzzle has at most one certificate (``certificates``): whether a
winning line is known, the shortest one known and its length (par), and the
difficulty. A certificate is written with its puzzle, in the same
transaction, or later for a puzzle stored before certification existed; it
only ever improves (uncertified to certified, a longer line to a shorter
one), and never for another game number than its puzzle's. While one
process creates or certifies a puzzle it holds a lease on it (``leases``),
so that other processes wait for its answer instead of searching too; a
lease expires, so a crashed process blocks nobody for long. Hints asked with
a start token are kept in ``hints``, by the token's digest, so that a
submission made with that token is known to be assisted.

Schema versions live in SQLite's ``user_version``. Version 1 (gapgrid
0.1.0, ``user_version`` 0) kept only the ``par`` scheme's key, in four
columns of ``submissions``; opening such a database migrates it to version 2
in place, in one transaction: every submission, its id and its stored
answer are kept, its ``par`` key comes from those columns and every other
scheme's key from the scores in its stored answer. Version 3 adds the
certificates, leases and hints, and forgets the stored ``par`` keys, whose
ranking changed (the fair leaderboard): the service computes them again from
the stored answers, as it does for any scheme a submission lacks a key for.

Version 4 adds ``players``: each name a player owns, under its key (the
rule of :mod:`gapgrid.api.names`: ``Bob``, ``bob`` and ``Ｂob`` share one),
with the name as first registered and the SHA-256 digest of the player's
token. Upgrading gives each submission's player its key under that rule and
registers every name found, as first submitted, with no token: the first
later submission under such a name (or ``POST /v1/players``) claims it and
gets its token. Two submissions of one puzzle whose names only now become
one player (``Ann Lee`` and ``Ann  Lee``) are both kept: the one that
cannot take the new key keeps its old one (``ann  lee``), so it stays on its
leaderboard, and no name passes for it any more (keys have single spaces).
A player is claimed in the transaction that stores the submission, so a
name is never claimed by a submission that was not stored.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Final

import attrs

from gapgrid.api.names import player_key

SCHEMA_VERSION: Final = 4
"""The schema this code writes; see the module docstring."""

SCHEMA: Final = (
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
    # puzzle_id is repeated here so that one index walk gives a puzzle's ranking
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
    # token_digest is NULL for a name registered by the upgrade to version 4, not claimed yet
    """CREATE TABLE IF NOT EXISTS players (
    player_key TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    token_digest TEXT,
    created_at TEXT NOT NULL
)""",
)
"""Version 4, statement by statement (they run inside one transaction)."""

_KEY_BIAS: Final = 2**63
_KEY_DIGITS: Final = 16


class StoreError(RuntimeError):
    """Raised for a database this code cannot use (written by a newer gapgrid)."""


class NameTaken(Exception):
    """Raised when a name to be claimed has been claimed by another request first."""


def encode_sort_key(key: Sequence[int]) -> str:
    """A sort key as text that sorts byte by byte exactly as the tuple sorts.

    Each number, shifted into 0 .. 2**64-1, is written as 16 hex digits, so
    equal-width parts compare numerically, and a key that is a prefix of
    another sorts first, as tuples do. Numbers must fit in 64 bits (signed).
    """
    parts = []
    for number in key:
        if not -_KEY_BIAS <= number < _KEY_BIAS:
            raise ValueError(f"sort key part {number} does not fit in 64 bits")
        parts.append(f"{number + _KEY_BIAS:0{_KEY_DIGITS}x}")
    return ".".join(parts)


@attrs.frozen
class Submission:
    """A stored submission."""

    player: str
    moves_digest: str
    body: dict[str, Any]
    """The answer given when it was stored."""


@attrs.frozen
class RankedSubmission:
    """One line of a leaderboard."""

    rank: int
    """Shared by ties."""

    player: str
    total: int
    """The ranking scheme's score."""

    body: dict[str, Any]
    created_at: str


@attrs.frozen
class UnrankedSubmission:
    """A stored submission that has no key for some scheme yet."""

    id: int
    puzzle_id: str
    body: dict[str, Any]


@attrs.frozen
class RankingKey:
    """A submission's place under one scheme: the sort key and the score."""

    sort_key: tuple[int, ...]
    total: int


@attrs.frozen
class Player:
    """A registered name."""

    key: str
    """What every spelling of the name shares (:func:`gapgrid.api.names.player_key`)."""

    name: str
    """As first registered: what leaderboards show."""

    token_digest: str | None
    """SHA-256 of the player's token, in hex; None while nobody has claimed the name."""


@attrs.frozen
class PlayerClaim:
    """A name to register, or to claim when it is registered without a token."""

    key: str
    name: str
    token_digest: str
    created_at: str


@attrs.frozen
class NewSubmission:
    """What to store for a verified submission."""

    puzzle_id: str
    player: str
    """The name as the player registered it."""

    player_key: str
    moves_digest: str
    keys: Mapping[str, RankingKey]
    """One entry per scoring scheme: ``{"par": RankingKey((0, 0, 12, 0, 95500), 12), ...}``."""

    body: dict[str, Any]
    created_at: str
    winning_line: tuple[str, ...] | None = None
    """For a won game, the actions in effect (undone ones left out): a winning line, which
    lowers the puzzle's par when it is shorter than the shortest known."""


@attrs.frozen
class Certificate:
    """A puzzle's certificate: whether a winning line is known, the shortest one, and the
    rest of what certifying found (difficulty, the solver's figures)."""

    puzzle_id: str
    deal: str
    """The game number the line is for: always the puzzle's own."""

    certified: bool
    line: tuple[str, ...]
    par: int | None
    """``len(line)`` when certified."""

    body: dict[str, Any]
    updated_at: str


class Store:
    """The database, with one connection per thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        connection = self._connection()
        connection.execute("PRAGMA journal_mode = WAL")  # not allowed inside a transaction
        try:
            with self._write() as transaction:
                _upgrade(transaction)
        finally:
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

    def keep_certified_puzzle(self, puzzle_id: str, date: str, slug: str,
                              body: dict[str, Any], certificate: Certificate, created_at: str,
                              lease: str | None = None) -> tuple[dict[str, Any],
                                                                 Certificate | None]:
        """Store a new puzzle and its certificate together, unless the puzzle exists (first
        wins); release ``lease``; return the stored puzzle and its certificate.

        A certificate for another game number than the stored puzzle's (a
        puzzle another process chose differently) is not stored.
        """
        with self._write() as connection:
            connection.execute(
                "INSERT INTO puzzles (id, date, slug, body, created_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                (puzzle_id, date, slug, json.dumps(body), created_at))
            _keep_certificate(connection, certificate, created_at)
            if lease is not None:
                connection.execute("DELETE FROM leases WHERE name = ?", (lease,))
            stored = _puzzle_and_certificate(connection, puzzle_id)
        assert stored[0] is not None  # inserted above, or there already
        return stored[0], stored[1]

    def keep_certificate(self, certificate: Certificate, now: str,
                         lease: str | None = None) -> Certificate | None:
        """Store the certificate of a stored puzzle when it has none, or when it improves
        the stored one; release ``lease``; return the certificate now stored."""
        with self._write() as connection:
            _keep_certificate(connection, certificate, now)
            if lease is not None:
                connection.execute("DELETE FROM leases WHERE name = ?", (lease,))
            return _puzzle_and_certificate(connection, certificate.puzzle_id)[1]

    def puzzle_and_certificate(self, puzzle_id: str) -> tuple[dict[str, Any] | None,
                                                              Certificate | None]:
        """The stored puzzle and its certificate (either may be missing), in one snapshot."""
        with self._read() as connection:
            return _puzzle_and_certificate(connection, puzzle_id)

    def certified_lines(self, deal: str) -> list[tuple[dict[str, Any], Certificate]]:
        """Every stored puzzle of game number ``deal`` that has a certified line, with it."""
        with self._read() as connection:
            ids = [row[0] for row in connection.execute(
                "SELECT puzzle_id FROM certificates WHERE deal = ? AND certified", (deal,))]
            found = [_puzzle_and_certificate(connection, puzzle) for puzzle in ids]
        return [(body, certificate) for body, certificate in found
                if body is not None and certificate is not None]

    # -- leases ----------------------------------------------------------------

    def take_lease(self, name: str, owner: str, seconds: float, now: float) -> float:
        """Take the lease ``name`` for ``seconds`` from ``now`` (Unix time) unless another
        owner holds it unexpired. Return 0 when taken, else the seconds the holder has left."""
        with self._write() as connection:
            row = connection.execute("SELECT owner, expires_at FROM leases WHERE name = ?",
                                     (name,)).fetchone()
            if row is not None and row[0] != owner and row[1] > now:
                return float(row[1] - now)
            connection.execute(
                "INSERT INTO leases (name, owner, expires_at) VALUES (?, ?, ?) ON CONFLICT "
                "(name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at",
                (name, owner, now + seconds))
        return 0.0

    def release_lease(self, name: str, owner: str) -> None:
        """Give the lease back, if ``owner`` still holds it."""
        with self._write() as connection:
            connection.execute("DELETE FROM leases WHERE name = ? AND owner = ?", (name, owner))

    # -- hints -----------------------------------------------------------------

    def record_hint(self, puzzle_id: str, token_digest: str, moves: int, asked_at: str) -> None:
        """Keep a hint asked with the start token whose digest is ``token_digest``."""
        with self._write() as connection:
            connection.execute(
                "INSERT INTO hints (puzzle_id, token_digest, moves, asked_at) VALUES "
                "(?, ?, ?, ?)", (puzzle_id, token_digest, moves, asked_at))

    def hints_for(self, token_digest: str) -> int:
        """How many hints were asked with the token whose digest is ``token_digest``."""
        row = self._connection().execute("SELECT COUNT(*) FROM hints WHERE token_digest = ?",
                                         (token_digest,)).fetchone()
        return int(row[0])

    # -- players ---------------------------------------------------------------

    def player(self, key: str) -> Player | None:
        """The player registered under ``key``, or None."""
        row = self._connection().execute(
            "SELECT player_key, name, token_digest FROM players WHERE player_key = ?",
            (key,)).fetchone()
        return None if row is None else Player(row[0], row[1], row[2])

    def claim_player(self, claim: PlayerClaim) -> None:
        """Register ``claim``'s name, or give a name registered without a token its token;
        raise :class:`NameTaken` when the name already has a token."""
        with self._write() as connection:
            _claim(connection, claim)

    # -- submissions -----------------------------------------------------------

    def submit(self, new: NewSubmission, claim: PlayerClaim | None = None
               ) -> tuple[Submission, bool]:
        """Store ``new`` and its keys unless the player already has a submission; return
        the stored one. The boolean says whether ``new`` was stored now. With ``claim``,
        the player is claimed first in the same transaction (:meth:`claim_player`): all of
        it happens, or none (:class:`NameTaken`)."""
        with self._write() as connection:
            if claim is not None:
                _claim(connection, claim)
            cursor = connection.execute(
                "INSERT INTO submissions (puzzle_id, player, player_key, moves_digest, body, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (new.puzzle_id, new.player, new.player_key, new.moves_digest,
                 json.dumps(new.body), new.created_at))
            created = cursor.rowcount == 1
            if created:
                _insert_keys(connection, cursor.lastrowid, new.puzzle_id, new.keys)
                if new.winning_line is not None:
                    _improve_line(connection, new.puzzle_id, new.winning_line, new.created_at)
            row = connection.execute(
                "SELECT player, moves_digest, body FROM submissions "
                "WHERE puzzle_id = ? AND player_key = ?",
                (new.puzzle_id, new.player_key)).fetchone()
        return Submission(player=row[0], moves_digest=row[1], body=json.loads(row[2])), created

    def replace_submission(self, new: NewSubmission, replaced_digest: str) -> bool:
        """Put ``new`` in place of the player's stored submission, if that is still the one
        whose moves digest is ``replaced_digest``; its keys go with it. Return whether it
        was replaced (False: another request changed it first)."""
        with self._write() as connection:
            row = connection.execute(
                "SELECT id FROM submissions WHERE puzzle_id = ? AND player_key = ? AND "
                "moves_digest = ?", (new.puzzle_id, new.player_key,
                                     replaced_digest)).fetchone()
            if row is None:
                return False
            connection.execute(
                "UPDATE submissions SET player = ?, moves_digest = ?, body = ?, created_at = ? "
                "WHERE id = ?", (new.player, new.moves_digest, json.dumps(new.body),
                                 new.created_at, row[0]))
            connection.execute("DELETE FROM ranking_keys WHERE submission_id = ?", (row[0],))
            _insert_keys(connection, row[0], new.puzzle_id, new.keys)
            if new.winning_line is not None:
                _improve_line(connection, new.puzzle_id, new.winning_line, new.created_at)
        return True

    def count(self, puzzle_id: str) -> int:
        """How many players have a stored submission for the puzzle."""
        row = self._connection().execute("SELECT COUNT(*) FROM submissions WHERE puzzle_id = ?",
                                         (puzzle_id,)).fetchone()
        return int(row[0])

    def unranked(self, puzzle_id: str, scheme: str) -> list[UnrankedSubmission]:
        """The puzzle's submissions that have no key for ``scheme`` (stored by a server
        that did not have the scheme)."""
        rows = self._connection().execute(
            "SELECT id, puzzle_id, body FROM submissions AS s WHERE puzzle_id = ? AND NOT EXISTS "
            "(SELECT 1 FROM ranking_keys AS k WHERE k.submission_id = s.id AND k.scheme = ?) "
            "ORDER BY id", (puzzle_id, scheme)).fetchall()
        return [UnrankedSubmission(row[0], row[1], json.loads(row[2])) for row in rows]

    def add_keys(self, keys: Sequence[tuple[UnrankedSubmission, str, RankingKey]]) -> None:
        """Store keys for submissions that lack them (a key stored meanwhile is kept)."""
        with self._write() as connection:
            for submission, scheme, key in keys:
                _insert_keys(connection, submission.id, submission.puzzle_id, {scheme: key})

    def rank(self, puzzle_id: str, player_key: str, scheme: str) -> tuple[int, int]:
        """The rank under ``scheme`` of the player whose key is ``player_key`` (ties share
        a rank) and the number ranked."""
        row = self._connection().execute(
            "SELECT ranked.rank, ranked.total FROM (SELECT s.player_key, "
            "RANK() OVER (ORDER BY k.sort_key) AS rank, COUNT(*) OVER () AS total "
            "FROM ranking_keys AS k JOIN submissions AS s ON s.id = k.submission_id "
            "WHERE k.puzzle_id = ? AND k.scheme = ?) AS ranked WHERE ranked.player_key = ?",
            (puzzle_id, scheme, player_key)).fetchone()
        return (row[0], row[1]) if row else (0, 0)

    def leaderboard(self, puzzle_id: str, scheme: str, offset: int, limit: int
                    ) -> tuple[list[RankedSubmission], int]:
        """One page of the ranking under ``scheme``, and the number of ranked players."""
        with self._read() as connection:
            total = connection.execute(
                "SELECT COUNT(*) FROM ranking_keys WHERE puzzle_id = ? AND scheme = ?",
                (puzzle_id, scheme)).fetchone()[0]
            rows = connection.execute(
                "SELECT RANK() OVER (ORDER BY k.sort_key) AS rank, s.player, k.total, s.body, "
                "s.created_at FROM ranking_keys AS k JOIN submissions AS s "
                "ON s.id = k.submission_id WHERE k.puzzle_id = ? AND k.scheme = ? "
                "ORDER BY k.sort_key, k.submission_id LIMIT ? OFFSET ?",
                (puzzle_id, scheme, limit, offset)).fetchall()
        entries = [RankedSubmission(rank, player, score, json.loads(body), created)
                   for rank, player, score, body, created in rows]
        return entries, int(total)

    def close(self) -> None:
        """Close this thread's connection."""
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None


def _claim(connection: sqlite3.Connection, claim: PlayerClaim) -> None:
    """Register or claim a name inside the caller's transaction (see :meth:`Store.claim_player`)."""
    cursor = connection.execute(
        "INSERT INTO players (player_key, name, token_digest, created_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (player_key) DO UPDATE SET token_digest = excluded.token_digest "
        "WHERE players.token_digest IS NULL",
        (claim.key, claim.name, claim.token_digest, claim.created_at))
    if cursor.rowcount != 1:
        raise NameTaken(claim.name)


def _insert_keys(connection: sqlite3.Connection, submission_id: int | None, puzzle_id: str,
                 keys: Mapping[str, RankingKey]) -> None:
    connection.executemany(
        "INSERT INTO ranking_keys (submission_id, puzzle_id, scheme, sort_key, total) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        [(submission_id, puzzle_id, scheme, encode_sort_key(key.sort_key), key.total)
         for scheme, key in keys.items()])


def _keep_certificate(connection: sqlite3.Connection, certificate: Certificate,
                      now: str) -> None:
    """Insert ``certificate``, or let it replace the stored one if it is an improvement: a
    certificate where there was none certified, or a shorter line; never for a game number
    other than the stored puzzle's."""
    row = connection.execute("SELECT json_extract(body, '$.deal') FROM puzzles WHERE id = ?",
                             (certificate.puzzle_id,)).fetchone()
    if row is None or row[0] != certificate.deal:
        return
    connection.execute(
        "INSERT INTO certificates (puzzle_id, deal, certified, line, par, body, created_at, "
        "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (puzzle_id) DO UPDATE SET "
        "certified = excluded.certified, line = excluded.line, par = excluded.par, "
        "body = excluded.body, updated_at = excluded.updated_at "
        "WHERE excluded.certified AND (NOT certificates.certified "
        "OR excluded.par < certificates.par)",
        (certificate.puzzle_id, certificate.deal, int(certificate.certified),
         json.dumps(list(certificate.line)), certificate.par, json.dumps(certificate.body),
         now, now))


def _improve_line(connection: sqlite3.Connection, puzzle_id: str, line: Sequence[str],
                  now: str) -> None:
    """Make ``line`` (a verified winning line of the puzzle) its shortest known line if it
    is shorter than the stored one, or if none was known (the puzzle is then certified by a
    player: no difficulty, since no search rated it)."""
    body = json.dumps({"difficulty": None, "solver_version": None, "tried": [],
                       "line_from": "submission"})
    connection.execute(
        "INSERT INTO certificates (puzzle_id, deal, certified, line, par, body, created_at, "
        "updated_at) SELECT id, json_extract(body, '$.deal'), 1, ?, ?, ?, ?, ? FROM puzzles "
        "WHERE id = ? ON CONFLICT (puzzle_id) DO UPDATE SET certified = 1, "
        "line = excluded.line, par = excluded.par, updated_at = excluded.updated_at, "
        "body = json_set(certificates.body, '$.line_from', 'submission') "
        "WHERE NOT certificates.certified OR certificates.par > excluded.par",
        (json.dumps(list(line)), len(line), body, now, now, puzzle_id))


def _puzzle_and_certificate(connection: sqlite3.Connection, puzzle_id: str
                            ) -> tuple[dict[str, Any] | None, Certificate | None]:
    row = connection.execute(
        "SELECT p.body, c.deal, c.certified, c.line, c.par, c.body, c.updated_at "
        "FROM puzzles AS p LEFT JOIN certificates AS c ON c.puzzle_id = p.id "
        "WHERE p.id = ?", (puzzle_id,)).fetchone()
    if row is None:
        return None, None
    body = dict(json.loads(row[0]))
    if row[1] is None:
        return body, None
    return body, Certificate(puzzle_id=puzzle_id, deal=row[1], certified=bool(row[2]),
                             line=tuple(json.loads(row[3])), par=row[4],
                             body=dict(json.loads(row[5])), updated_at=row[6])


# -- schema versions -------------------------------------------------------------------------


def _upgrade(connection: sqlite3.Connection) -> None:
    """Bring the database to :data:`SCHEMA_VERSION`, inside the caller's transaction."""
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError(f"the database was written by a newer gapgrid (schema version "
                         f"{version}; this one reads up to {SCHEMA_VERSION})")
    columns = {row[1] for row in connection.execute("PRAGMA table_info(submissions)")}
    if version < SCHEMA_VERSION and "lost" in columns:
        _migrate_from_version_1(connection)
    tables = {row[0] for row in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    for statement in SCHEMA:
        connection.execute(statement)
    if version < 3 and "ranking_keys" in tables:
        # the par ranking changed in version 3: its keys are computed again from the
        # stored answers (PuzzleService ranks every submission that lacks a key)
        connection.execute("DELETE FROM ranking_keys WHERE scheme = 'par'")
    if version < 4:
        _register_players(connection)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _register_players(connection: sqlite3.Connection) -> None:
    """Version 3 to 4: key each submission's player by today's name rule and register every
    name, as first submitted, without a token (see the module docstring)."""
    rows = connection.execute(
        "SELECT id, puzzle_id, player, player_key, created_at FROM submissions ORDER BY id"
    ).fetchall()
    taken = {(puzzle, key) for _, puzzle, _, key, _ in rows}
    for submission_id, puzzle, name, old_key, created_at in rows:
        key = player_key(name)
        if key != old_key:
            if (puzzle, key) in taken:
                key = old_key  # another submission of the puzzle has the key: keep both
            else:
                taken.discard((puzzle, old_key))
                taken.add((puzzle, key))
                connection.execute("UPDATE submissions SET player_key = ? WHERE id = ?",
                                   (key, submission_id))
        connection.execute(
            "INSERT INTO players (player_key, name, token_digest, created_at) "
            "VALUES (?, ?, NULL, ?) ON CONFLICT DO NOTHING", (key, name, created_at))


_PAR_COLUMNS: Final = ("lost", "moves", "time_unknown", "milliseconds")


def _migrate_from_version_1(connection: sqlite3.Connection) -> None:
    """Version 1 to 2: move the ``par`` columns out of ``submissions`` into ``ranking_keys``.

    SQLite cannot drop columns used by an index, so the table is rebuilt
    (its rows copied with their ids, the old table dropped, the new one
    renamed), then every submission gets a key for each scheme it was
    scored with. Runs inside the caller's transaction: all of it, or nothing.
    """
    par_keys = {row[0]: tuple(row[1:]) for row in connection.execute(
        f"SELECT id, {', '.join(_PAR_COLUMNS)} FROM submissions")}
    connection.execute(SCHEMA[1].replace("IF NOT EXISTS submissions", "submissions_version_2"))
    connection.execute(
        "INSERT INTO submissions_version_2 (id, puzzle_id, player, player_key, moves_digest, "
        "body, created_at) SELECT id, puzzle_id, player, player_key, moves_digest, body, "
        "created_at FROM submissions")
    connection.execute("DROP TABLE submissions")  # its ranking index goes with it
    connection.execute("ALTER TABLE submissions_version_2 RENAME TO submissions")
    connection.execute(SCHEMA[2])
    rows = connection.execute("SELECT id, puzzle_id, body FROM submissions").fetchall()
    for submission_id, puzzle_id, body in rows:
        keys = _keys_in_answer(json.loads(body))
        lost, moves, time_unknown, milliseconds = par_keys[submission_id]
        # the columns are what version 1 ranked by: they win over the stored answer
        keys["par"] = RankingKey((lost, moves, time_unknown, milliseconds), moves)
        _insert_keys(connection, submission_id, puzzle_id, keys)


def _keys_in_answer(body: Mapping[str, Any]) -> dict[str, RankingKey]:
    """Every scheme's key found in a stored answer's ``result.scores``."""
    result = body.get("result")
    scores = result.get("scores") if isinstance(result, dict) else None
    keys: dict[str, RankingKey] = {}
    for name, score in (scores or {}).items():
        if not isinstance(score, dict):
            continue  # a summary term (moves, undos, ...), not a scheme
        sort_key, total = score.get("sort_key"), score.get("total")
        if (isinstance(sort_key, list) and all(type(part) is int for part in sort_key)
                and type(total) is int):
            keys[name] = RankingKey(tuple(sort_key), total)
    return keys
