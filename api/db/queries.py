"""The store's statements, built once (SQLAlchemy Core over :mod:`.schema`), and the
tallies that rank without walking a puzzle.

Statements are module constants with named parameters (``bindparam``), so a
request pays for executing them, not for building and hashing them again
(building a statement costs some 0.3 to 0.8 ms of Python, a prebuilt one
0.1 ms). The ``INSERT ... ON CONFLICT`` statements differ in construct per
dialect (SQLite's and PostgreSQL's, which SQLAlchemy spells alike), so
:func:`upserts` builds them once per dialect.

Ranks come from tallies kept in the same transactions as the keys (issue
15: ``RANK()`` over 300,000 submissions took a second a request):
``puzzle_players`` counts each puzzle's players, ``ranking_buckets`` the
keys of each puzzle and scheme that share their first
:data:`~.sortkeys.BUCKET_CHARACTERS` characters, each spread over
:data:`~.schema.TALLY_SHARDS` rows so that concurrent submissions rarely
wait for one another's row lock. A key whose bucket sorts
before another key's bucket sorts before that key, so a rank is 1 + a sum
over the lower buckets (a few hundred rows) + the keys of the player's own
bucket below theirs (an index range, short unless many players tie on the
first three parts of the key).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, Final

import attrs
from sqlalchemy import and_, bindparam, func, not_, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from gapgrid.api.db.schema import (
    TALLY_SHARDS,
    certificates,
    hints,
    leases,
    players,
    puzzle_players,
    puzzles,
    ranking_buckets,
    ranking_keys,
    start_tokens,
    submissions,
)
from gapgrid.api.db.sortkeys import BUCKET_CHARACTERS, encode_sort_key

PUZZLE_BODY: Final = select(puzzles.c.body).where(puzzles.c.id == bindparam("puzzle_id"))

PUZZLE_BODY_LOCKED: Final = PUZZLE_BODY.with_for_update(key_share=True)
"""The puzzle's row locked until the transaction ends (on PostgreSQL; SQLite's write lock
covers it), so that its certificate changes one writer at a time. ``FOR NO KEY UPDATE``:
submissions, which only need the puzzle to exist, are not held up."""

PUZZLE_AND_CERTIFICATE: Final = (
    select(puzzles.c.body, certificates.c.deal, certificates.c.certified,
           certificates.c.line, certificates.c.par, certificates.c.body,
           certificates.c.updated_at)
    .select_from(puzzles.outerjoin(certificates, certificates.c.puzzle_id == puzzles.c.id))
    .where(puzzles.c.id == bindparam("puzzle_id")))

CERTIFIED_PUZZLES: Final = select(certificates.c.puzzle_id).where(
    certificates.c.deal == bindparam("deal"), certificates.c.certified)

CERTIFICATE: Final = select(certificates.c.certified, certificates.c.par,
                            certificates.c.body).where(
    certificates.c.puzzle_id == bindparam("puzzle_id"))

LEASE_EXPIRES: Final = select(leases.c.expires_at).where(leases.c.name == bindparam("name"))

HINTS: Final = select(func.count()).select_from(hints).where(
    hints.c.token_digest == bindparam("token_digest"))

PLAYER: Final = select(players.c.player_key, players.c.name, players.c.token_digest).where(
    players.c.player_key == bindparam("player_key"))

STORED_SUBMISSION: Final = select(
    submissions.c.player, submissions.c.moves_digest, submissions.c.body).where(
    submissions.c.puzzle_id == bindparam("puzzle_id"),
    submissions.c.player_key == bindparam("player_key"))

START_TOKEN_PLAYER: Final = select(start_tokens.c.player_key).where(
    start_tokens.c.puzzle_id == bindparam("puzzle_id"),
    start_tokens.c.token_digest == bindparam("token_digest"))

SUBMISSION_TO_REPLACE: Final = select(submissions.c.id).where(
    submissions.c.puzzle_id == bindparam("puzzle_id"),
    submissions.c.player_key == bindparam("player_key"),
    submissions.c.moves_digest == bindparam("moves_digest")).with_for_update(key_share=True)
"""Locked: a concurrent replacement waits, then finds the digest changed."""

_PAGE_KEYS = (select(ranking_keys.c.submission_id, ranking_keys.c.sort_key)
              .where(ranking_keys.c.puzzle_id == bindparam("puzzle_id"),
                     ranking_keys.c.scheme == bindparam("scheme"),
                     ranking_keys.c.sort_key >= bindparam("from_bucket"))
              .order_by(ranking_keys.c.sort_key, ranking_keys.c.submission_id)
              .limit(bindparam("limit")).offset(bindparam("offset")).subquery())
_PAGE_TOTALS = ranking_keys.alias("page_totals")
LEADERBOARD_PAGE: Final = (
    select(_PAGE_KEYS.c.sort_key, submissions.c.player, _PAGE_TOTALS.c.total,
           submissions.c.body, submissions.c.created_at)
    .join(submissions, submissions.c.id == _PAGE_KEYS.c.submission_id)
    .join(_PAGE_TOTALS, and_(_PAGE_TOTALS.c.submission_id == _PAGE_KEYS.c.submission_id,
                             _PAGE_TOTALS.c.scheme == bindparam("scheme")))
    .order_by(_PAGE_KEYS.c.sort_key, _PAGE_KEYS.c.submission_id))
"""One page, ``offset`` keys past the start of the bucket ``from_bucket``: found in the
ranking index alone (an index-only scan: the skipped keys' rows are never read), then
only its rows read, scores included (a join first would read every skipped row too)."""

BUCKETS: Final = (
    select(ranking_buckets.c.bucket, func.sum(ranking_buckets.c.players))
    .where(ranking_buckets.c.puzzle_id == bindparam("puzzle_id"),
           ranking_buckets.c.scheme == bindparam("scheme"))
    .group_by(ranking_buckets.c.bucket).order_by(ranking_buckets.c.bucket))

UNRANKED: Final = (
    select(submissions.c.id, submissions.c.puzzle_id, submissions.c.body)
    .where(submissions.c.puzzle_id == bindparam("puzzle_id"),
           not_(select(ranking_keys.c.submission_id).where(
               ranking_keys.c.submission_id == submissions.c.id,
               ranking_keys.c.scheme == bindparam("scheme")).exists()))
    .order_by(submissions.c.id))

PLAYERS: Final = select(func.coalesce(func.sum(puzzle_players.c.players), 0)).where(
    puzzle_players.c.puzzle_id == bindparam("puzzle_id"))

RANKED: Final = select(func.coalesce(func.sum(ranking_buckets.c.players), 0)).where(
    ranking_buckets.c.puzzle_id == bindparam("puzzle_id"),
    ranking_buckets.c.scheme == bindparam("scheme"))

RANKED_IN_LOWER_BUCKETS: Final = RANKED.where(ranking_buckets.c.bucket < bindparam("bucket"))

RANKED_BEFORE_IN_BUCKET: Final = select(func.count()).select_from(ranking_keys).where(
    ranking_keys.c.puzzle_id == bindparam("puzzle_id"),
    ranking_keys.c.scheme == bindparam("scheme"),
    ranking_keys.c.sort_key >= bindparam("bucket"),
    ranking_keys.c.sort_key < bindparam("sort_key"))
"""The keys of a bucket below a key: they lie between the bucket's prefix and the key."""

_RANKED_KEY = ranking_keys.alias("ranked_key")
_BUCKET = func.substr(_RANKED_KEY.c.sort_key, 1, BUCKET_CHARACTERS)
PLAYER_RANK: Final = (
    select(
        select(func.coalesce(func.sum(ranking_buckets.c.players), 0))
        .where(ranking_buckets.c.puzzle_id == bindparam("puzzle_id"),
               ranking_buckets.c.scheme == bindparam("scheme"),
               ranking_buckets.c.bucket < _BUCKET).scalar_subquery()
        + select(func.count()).select_from(ranking_keys)
        .where(ranking_keys.c.puzzle_id == bindparam("puzzle_id"),
               ranking_keys.c.scheme == bindparam("scheme"),
               ranking_keys.c.sort_key >= _BUCKET,
               ranking_keys.c.sort_key < _RANKED_KEY.c.sort_key).scalar_subquery(),
        RANKED.scalar_subquery())
    .select_from(_RANKED_KEY.join(submissions, submissions.c.id == _RANKED_KEY.c.submission_id))
    .where(submissions.c.puzzle_id == bindparam("puzzle_id"),
           submissions.c.player_key == bindparam("player_key"),
           _RANKED_KEY.c.scheme == bindparam("scheme")))
"""A player's keys ranked before theirs (the lower buckets' tallies, then the keys of
their own bucket below theirs) and the keys ranked, in one statement: one snapshot
without a transaction, and one round trip."""

ALL_RANKED: Final = select(PLAYERS.scalar_subquery() == RANKED.scalar_subquery())
"""Whether every submission of the puzzle has a key for the scheme, in one statement."""

PLAYER_RANK_IF_ALL_RANKED: Final = PLAYER_RANK.add_columns(
    PLAYERS.scalar_subquery() == RANKED.scalar_subquery())
""":data:`PLAYER_RANK` and :data:`ALL_RANKED` in one statement (a submission's answer
needs both: one round trip less)."""

RANK_AND_TOTAL: Final = select(
    RANKED_IN_LOWER_BUCKETS.scalar_subquery() + RANKED_BEFORE_IN_BUCKET.scalar_subquery(),
    RANKED.scalar_subquery())
"""The keys before ``sort_key`` (in ``bucket``) and the keys ranked, in one round trip."""

DELETE_LEASE: Final = leases.delete().where(leases.c.name == bindparam("name"))

DELETE_OWNED_LEASE: Final = DELETE_LEASE.where(leases.c.owner == bindparam("owner"))

INSERT_HINT: Final = hints.insert()

DELETE_HINTS_BEFORE: Final = hints.delete().where(hints.c.puzzle_id < bindparam("before"))
"""The hints of puzzles whose id sorts before ``before`` (ids begin with their ISO date, so
``2026-11-30`` is every puzzle of an earlier day)."""

DELETE_START_TOKENS_BEFORE: Final = start_tokens.delete().where(
    start_tokens.c.puzzle_id < bindparam("before"))
"""The start tokens of puzzles whose id sorts before ``before``, as above."""

UPDATE_SUBMISSION: Final = submissions.update().where(
    submissions.c.id == bindparam("submission_id"))

UNCLAIM: Final = players.update().where(
    players.c.player_key == bindparam("claimed_key"),
    players.c.token_digest == bindparam("claimed_digest")).values(token_digest=None)

DELETE_KEYS: Final = ranking_keys.delete().where(
    ranking_keys.c.submission_id == bindparam("submission_id")).returning(
    ranking_keys.c.scheme, ranking_keys.c.sort_key)

INSERT_CERTIFICATE: Final = certificates.insert()

UPDATE_CERTIFICATE: Final = certificates.update().where(
    certificates.c.puzzle_id == bindparam("target"))


@attrs.frozen
class Upserts:
    """The ``INSERT ... ON CONFLICT`` statements of one dialect."""

    puzzle: Any
    """A puzzle, unless it exists (first wins)."""

    submission: Any
    """A submission unless the player has one; returns its id when inserted."""

    key: Any
    """A ranking key unless the submission has one for the scheme; returns the scheme when
    inserted."""

    players: Any
    """Adds ``change`` to a puzzle's players (made at 0)."""

    bucket: Any
    """Adds ``change`` to a bucket's keys (made at 0)."""

    claim: Any
    """Registers a name, or gives a name without a token its token; returns the key and the
    name as stored when it did (nothing: the name has a token already)."""

    lease: Any
    """Takes a lease, or renews it, unless another owner holds it unexpired (``now``);
    returns the name when taken. One statement decides, so two processes never both take
    it."""

    certificate: Any
    """A certificate, or an improvement on the stored one (certified where it was not, or
    a shorter line)."""

    start_token: Any
    """The player a start token came with first, unless one is kept already (first wins)."""


@functools.cache
def upserts(dialect: str) -> Upserts:
    """The upserts of ``dialect`` (``sqlite`` or ``postgresql``), built once."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    players_tally = insert(puzzle_players).values(puzzle_id=bindparam("puzzle_id"),
                                                  shard=bindparam("shard"),
                                                  players=bindparam("change"))
    bucket_tally = insert(ranking_buckets).values(
        puzzle_id=bindparam("puzzle_id"), scheme=bindparam("scheme"),
        bucket=bindparam("bucket"), shard=bindparam("shard"), players=bindparam("change"))
    claim = insert(players)
    lease = insert(leases)
    certificate = insert(certificates)
    return Upserts(
        puzzle=insert(puzzles).on_conflict_do_nothing(),
        submission=insert(submissions).on_conflict_do_nothing().returning(submissions.c.id),
        start_token=insert(start_tokens).on_conflict_do_nothing(),
        key=insert(ranking_keys).on_conflict_do_nothing().returning(ranking_keys.c.scheme),
        players=players_tally.on_conflict_do_update(
            index_elements=[puzzle_players.c.puzzle_id, puzzle_players.c.shard],
            set_={"players": puzzle_players.c.players + bindparam("change")}),
        bucket=bucket_tally.on_conflict_do_update(
            index_elements=[ranking_buckets.c.puzzle_id, ranking_buckets.c.scheme,
                            ranking_buckets.c.bucket, ranking_buckets.c.shard],
            set_={"players": ranking_buckets.c.players + bindparam("change")}),
        claim=claim.on_conflict_do_update(
            index_elements=[players.c.player_key],
            set_={"token_digest": claim.excluded.token_digest},
            where=players.c.token_digest.is_(None)).returning(players.c.player_key,
                                                              players.c.name),
        lease=lease.on_conflict_do_update(
            index_elements=[leases.c.name],
            set_={"owner": lease.excluded.owner, "expires_at": lease.excluded.expires_at},
            where=or_(leases.c.owner == lease.excluded.owner,
                      leases.c.expires_at <= bindparam("now"))).returning(leases.c.name),
        certificate=certificate.on_conflict_do_update(
            index_elements=[certificates.c.puzzle_id],
            set_={"certified": certificate.excluded.certified,
                  "line": certificate.excluded.line, "par": certificate.excluded.par,
                  "body": certificate.excluded.body,
                  "updated_at": certificate.excluded.updated_at},
            where=and_(certificate.excluded.certified,
                       or_(not_(certificates.c.certified),
                           certificate.excluded.par < certificates.c.par))),
    )


def upsert(connection: Connection) -> Upserts:
    """The upserts of the connection's dialect."""
    return upserts(connection.dialect.name)


def bucket_of(sort_key: str) -> str:
    """The bucket an encoded key is tallied in: its first characters."""
    return sort_key[:BUCKET_CHARACTERS]


def insert_keys(connection: Connection, submission_id: int, puzzle_id: str,
                keys: Mapping[str, tuple[tuple[int, ...], int]]) -> None:
    """Store a submission's keys, ``{scheme: (sort key, total)}`` (one already stored is
    kept), and tally them. Schemes in name order, so that concurrent transactions lock
    tallies in one order (no deadlock on PostgreSQL)."""
    statements = upsert(connection)
    rows = {scheme: encode_sort_key(keys[scheme][0]) for scheme in sorted(keys)}
    # One statement for the keys and one for their tallies, whatever the number of schemes
    # (SQLAlchemy sends each list of parameters as one multi-row INSERT): a round trip and
    # some 0.2 ms of Python less per scheme than a statement each.
    inserted = set(connection.execute(statements.key, [
        {"submission_id": submission_id, "puzzle_id": puzzle_id, "scheme": scheme,
         "sort_key": sort_key, "total": keys[scheme][1]} for scheme, sort_key in rows.items()
    ]).scalars().all()) if rows else set()
    tallies = [{"puzzle_id": puzzle_id, "scheme": scheme, "bucket": bucket_of(sort_key),
                "shard": submission_id % TALLY_SHARDS, "change": 1}
               for scheme, sort_key in rows.items() if scheme in inserted]
    if tallies:
        connection.execute(statements.bucket, tallies)


def delete_keys(connection: Connection, submission_id: int, puzzle_id: str) -> None:
    """Forget a submission's keys, and untally them."""
    deleted = connection.execute(DELETE_KEYS, {"submission_id": submission_id}).all()
    for scheme, sort_key in sorted(deleted):
        connection.execute(upsert(connection).bucket, {
            "puzzle_id": puzzle_id, "scheme": scheme, "bucket": bucket_of(sort_key),
            "shard": submission_id % TALLY_SHARDS, "change": -1})


def count_player(connection: Connection, submission_id: int, puzzle_id: str) -> None:
    """Tally one more player for the puzzle (in the submission's shard)."""
    connection.execute(upsert(connection).players, {
        "puzzle_id": puzzle_id, "shard": submission_id % TALLY_SHARDS, "change": 1})


def players_of(connection: Connection, puzzle_id: str) -> int:
    """The players with a submission for the puzzle, from its tally."""
    return int(connection.execute(PLAYERS, {"puzzle_id": puzzle_id}).scalar_one())


def ranked(connection: Connection, puzzle_id: str, scheme: str) -> int:
    """The submissions of the puzzle with a key for ``scheme``: a sum over its buckets."""
    return int(connection.execute(RANKED, {"puzzle_id": puzzle_id, "scheme": scheme}
                                  ).scalar_one())


DIRECT_OFFSET: Final = 500
"""Below this offset a page is found by skipping keys from the first one; beyond, by
skipping whole buckets first (their tallies), then keys inside the page's bucket."""


def page_start(connection: Connection, puzzle_id: str, scheme: str, offset: int
               ) -> tuple[str, int]:
    """Where the page ``offset`` keys into the ranking begins: a bucket and how many of
    its keys to skip. Keys of a lower bucket sort before every key of a higher one, so
    the buckets' tallies skip them without reading them: a deep page costs its bucket,
    not its offset."""
    if offset < DIRECT_OFFSET:
        return "", offset
    before = 0
    for bucket, keys in connection.execute(BUCKETS, {"puzzle_id": puzzle_id,
                                                     "scheme": scheme}):
        if before + keys > offset:
            return bucket, offset - before
        before += keys
    return "\U0010ffff", 0  # past the last key: an empty page
