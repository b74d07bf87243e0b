"""The tables, defined once for SQLite and PostgreSQL (SQLAlchemy Core).

This is the schema the newest migration in ``migrations/versions`` makes;
the store's queries are written against these objects, and a test compares
the two (``tests/api/test_db_migrations.py``), so they cannot drift apart.

Uniqueness (one puzzle per date and variant, one counted submission per
player and puzzle, one key per submission and scheme) is enforced here, not
by the code, so it holds under any concurrency and on either back end.
Bodies are JSON kept as text: the store reads and writes them whole, and
text compares the same on both back ends.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

NAMING: Final = {
    "ix": "%(table_name)s_%(column_0_N_name)s_index",
    "uq": "%(table_name)s_%(column_0_N_name)s_key",
    "fk": "%(table_name)s_%(column_0_name)s_fkey",
    "pk": "%(table_name)s_pkey",
}
"""Constraint names spelt out, so that both back ends and every migration agree."""

metadata: Final = MetaData(naming_convention=NAMING)

TALLY_SHARDS: Final = 8
"""Rows each tally is spread over (``submission id % 8``). One row a tally would make
every submission of a puzzle wait for the one before to commit (PostgreSQL holds a row
lock until then, some 10 ms of disk sync here), so at most 100 a second; spread, their
commits overlap and PostgreSQL syncs them together."""

# SQLite's rowid needs INTEGER PRIMARY KEY, PostgreSQL's ids should be 64 bits.
Identifier: Final = BigInteger().with_variant(Integer(), "sqlite")

# Sort keys compare byte by byte (SQLite's default); PostgreSQL's default collation follows
# the locale, which may skip punctuation, so it is told to compare bytes too.
SortKey: Final = String().with_variant(String(collation="C"), "postgresql")

puzzles: Final = Table(
    "puzzles", metadata,
    Column("id", String, primary_key=True),
    Column("date", String, nullable=False),
    Column("slug", String, nullable=False),
    Column("body", Text, nullable=False),
    Column("created_at", String, nullable=False),
    UniqueConstraint("date", "slug"),
)
"""One daily puzzle per date and variant; ``body`` is its document."""

submissions: Final = Table(
    "submissions", metadata,
    Column("id", Identifier, primary_key=True, autoincrement=True),
    Column("puzzle_id", String, ForeignKey("puzzles.id"), nullable=False),
    Column("player", String, nullable=False),
    Column("player_key", String, nullable=False),
    Column("moves_digest", String, nullable=False),
    Column("body", Text, nullable=False),
    Column("created_at", String, nullable=False),
    UniqueConstraint("puzzle_id", "player_key"),
    sqlite_autoincrement=True,  # ids are never reused, as in schema version 3
)
"""The counted submission of each player (``player_key``: the compared name) and puzzle;
``body`` is the answer given when it was stored."""

ranking_keys: Final = Table(
    "ranking_keys", metadata,
    Column("submission_id", Identifier, ForeignKey("submissions.id"), primary_key=True),
    Column("puzzle_id", String, nullable=False),
    Column("scheme", String, primary_key=True),
    Column("sort_key", SortKey, nullable=False),
    Column("total", Integer, nullable=False),
    # puzzle_id is repeated here so that one index walk gives a puzzle's ranking
    Index("ranking_keys_order", "puzzle_id", "scheme", "sort_key", "submission_id"),
)
"""A submission's place under each scoring scheme (``sort_key``: text in the tuple's
order, see :func:`gapgrid.api.store.encode_sort_key`)."""

certificates: Final = Table(
    "certificates", metadata,
    Column("puzzle_id", String, ForeignKey("puzzles.id"), primary_key=True),
    Column("deal", String, nullable=False),
    Column("certified", Boolean, nullable=False),
    Column("line", Text, nullable=False),
    Column("par", Integer),
    Column("body", Text, nullable=False),
    Column("created_at", String, nullable=False),
    Column("updated_at", String, nullable=False),
    Index("certificates_by_deal", "deal"),
)
"""A puzzle's certificate: whether a winning line is known, the shortest one, par."""

leases: Final = Table(
    "leases", metadata,
    Column("name", String, primary_key=True),
    Column("owner", String, nullable=False),
    Column("expires_at", Float, nullable=False),
)
"""Who is making or certifying a puzzle, or keying its submissions for a ranking, until when
(Unix time)."""

hints: Final = Table(
    "hints", metadata,
    Column("id", Identifier, primary_key=True, autoincrement=True),
    Column("puzzle_id", String, nullable=False),
    Column("token_digest", String, nullable=False),
    Column("moves", Integer, nullable=False),
    Column("asked_at", String, nullable=False),
    Index("hints_by_token", "token_digest"),
    sqlite_autoincrement=True,
)
"""Hints asked with a start token, by the token's digest."""

start_tokens: Final = Table(
    "start_tokens", metadata,
    Column("puzzle_id", String, ForeignKey("puzzles.id"), primary_key=True),
    Column("token_digest", String, primary_key=True),
    Column("player_key", String, nullable=False),
    Column("created_at", String, nullable=False),
)
"""The player whose submission a start token (by its digest) came with first. A token
only times a game during its puzzle's day; after midnight it is what lets a game started
then be submitted late, and it does so for this player only (the key makes it one)."""

players: Final = Table(
    "players", metadata,
    Column("player_key", String, primary_key=True),
    Column("name", String, nullable=False),
    Column("token_digest", String),
    Column("created_at", String, nullable=False),
)
"""Each name a player owns, under its key (:func:`gapgrid.api.names.player_key`), the name as
first registered and the SHA-256 digest of the player's token (NULL: registered by the
upgrade from before players, not claimed yet)."""

puzzle_players: Final = Table(
    "puzzle_players", metadata,
    Column("puzzle_id", String, ForeignKey("puzzles.id"), primary_key=True),
    Column("shard", Integer, primary_key=True),
    Column("players", Integer, nullable=False),
)
"""How many players have a submission for each puzzle, kept with the submissions, in
:data:`TALLY_SHARDS` rows a puzzle (by submission id), so that concurrent submissions
rarely wait for one another's row lock."""

ranking_buckets: Final = Table(
    "ranking_buckets", metadata,
    Column("puzzle_id", String, ForeignKey("puzzles.id"), primary_key=True),
    Column("scheme", String, primary_key=True),
    Column("bucket", SortKey, primary_key=True),
    Column("shard", Integer, primary_key=True),
    Column("players", Integer, nullable=False),
)
"""How many keys of each puzzle and scheme begin with ``bucket`` (the first
:data:`~gapgrid.api.db.sortkeys.BUCKET_CHARACTERS` characters of the key), kept with the
keys, in shards as ``puzzle_players``: a rank is a sum over these and a short index range,
never a walk over a puzzle."""
