"""Storage: puzzles, submissions, players and their ranking keys, written in single
transactions, on SQLite or PostgreSQL (:mod:`gapgrid.api.db`).

Each write is one transaction (:func:`gapgrid.api.db.engine.write`), so a
restart loses nothing that was answered as stored, and concurrent writers
(threads, processes, servers on one PostgreSQL) queue instead of
interleaving. Uniqueness (one puzzle per date and variant, one counted
submission per player and puzzle, one key per submission and scheme, one
owner per name) is enforced by the schema (:mod:`gapgrid.api.db.schema`),
not by the code, so it holds under any concurrency. The statements are
SQLAlchemy Core over that schema, built once (:mod:`gapgrid.api.db.queries`);
where the two back ends differ (the ``INSERT ... ON CONFLICT`` construct
each dialect spells) each gets its own.

Each submission keeps one sort key per scoring scheme in ``ranking_keys``,
so a leaderboard can rank by whichever scheme the server is configured with
(an index on puzzle, scheme and key serves it). A key is a tuple of whole
numbers, ordered ascending, best first; it is stored as text whose byte
order is the tuple's order (:func:`encode_sort_key`).

Ranks and totals are read from tallies kept in the same transactions as
the keys (players per puzzle, keys per bucket of their first parts), so that
neither walks a puzzle's submissions (:mod:`gapgrid.api.db.queries`).

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

``players`` keeps each name a player owns, under its key (the rule of
:mod:`gapgrid.api.names`: ``Bob``, ``bob`` and ``Ｂob`` share one), with the
name as first registered and the SHA-256 digest of the player's token. A
name registered by the upgrade from before players (revision ``0002``) has
no token: the first later submission under it (or ``POST /v1/players``)
claims it. A player is claimed in the transaction that stores the
submission, so a name is never claimed by a submission that was not stored.

The schema's history (SQLite's ``user_version`` 1 to 4 before Alembic, then
Alembic's revisions) is told in :mod:`gapgrid.api.db.legacy` and in
``gapgrid/api/db/migrations/versions``; opening a database upgrades it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import attrs
from sqlalchemy.engine import Connection

from gapgrid.api.db import engine as db
from gapgrid.api.db import queries as q
from gapgrid.api.db.engine import StoreError
from gapgrid.api.db.sortkeys import encode_sort_key

__all__ = ["SCHEMA_VERSION", "Certificate", "NameTaken", "NewSubmission", "Player",
           "PlayerClaim", "RankedSubmission", "RankingKey", "Store", "StoreError",
           "Submission", "TokenTaken", "UnrankedSubmission", "encode_sort_key"]

SCHEMA_VERSION: Final = 7
"""SQLite's ``user_version`` for the newest revision (``0005``): what gapgrid before
Alembic reads to refuse a newer database (see :func:`gapgrid.api.db.engine.user_version`)."""


class NameTaken(Exception):
    """Raised when a name to be claimed has been claimed by another request first."""


class TokenTaken(Exception):
    """Raised when a late submission's start token came with another player's submission
    first (:attr:`NewSubmission.late`)."""


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

    token_digest: str | None = None
    """The SHA-256 digest of the start token the game was submitted with, if any: the
    first player to submit with a token is kept as its player."""

    late: bool = False
    """Submitted after its puzzle's day, which only its start token allows: taken only from
    the token's player (the first to submit with it; this one when nobody did)."""


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


@attrs.frozen
class Pruned:
    """What :meth:`Store.prune` deleted: rows of ``hints`` and of ``start_tokens``."""

    hints: int
    start_tokens: int


class Store:
    """The database: a SQLite file or a PostgreSQL URL, upgraded when opened."""

    def __init__(self, database: Path | str) -> None:
        self.database = database
        self.engine = db.create(database)
        try:
            self.created = db.upgrade(self.engine) is None
            """Whether the database was new, without gapgrid's tables, when opened."""
        finally:
            self.engine.dispose()  # a server that forks after this must not share a connection

    @property
    def path(self) -> Path | str:
        """The database's file (SQLite) or URL (PostgreSQL)."""
        return self.database

    # -- puzzles ---------------------------------------------------------------

    def puzzle(self, puzzle_id: str) -> dict[str, Any] | None:
        """The stored puzzle, or None."""
        with db.read(self.engine) as connection:
            body = connection.execute(q.PUZZLE_BODY, {"puzzle_id": puzzle_id}
                                      ).scalar_one_or_none()
        return None if body is None else dict(_stored_json(body))

    def keep_puzzle(self, puzzle_id: str, date: str, slug: str, body: dict[str, Any],
                    created_at: str) -> dict[str, Any]:
        """Store ``body`` unless the puzzle exists; return the stored one (first wins)."""
        with db.write(self.engine) as connection:
            _insert_puzzle(connection, puzzle_id, date, slug, body, created_at)
            stored = connection.execute(q.PUZZLE_BODY, {"puzzle_id": puzzle_id}).scalar_one()
        return dict(_stored_json(stored))

    def keep_certified_puzzle(self, puzzle_id: str, date: str, slug: str,
                              body: dict[str, Any], certificate: Certificate, created_at: str,
                              lease: str | None = None) -> tuple[dict[str, Any],
                                                                 Certificate | None]:
        """Store a new puzzle and its certificate together, unless the puzzle exists (first
        wins); release ``lease``; return the stored puzzle and its certificate.

        A certificate for another game number than the stored puzzle's (a
        puzzle another process chose differently) is not stored.
        """
        with db.write(self.engine) as connection:
            _insert_puzzle(connection, puzzle_id, date, slug, body, created_at)
            _keep_certificate(connection, certificate, created_at)
            if lease is not None:
                connection.execute(q.DELETE_LEASE, {"name": lease})
            stored = _puzzle_and_certificate(connection, puzzle_id)
        assert stored[0] is not None  # inserted above, or there already
        return stored[0], stored[1]

    def keep_certificate(self, certificate: Certificate, now: str,
                         lease: str | None = None) -> Certificate | None:
        """Store the certificate of a stored puzzle when it has none, or when it improves
        the stored one; release ``lease``; return the certificate now stored."""
        with db.write(self.engine) as connection:
            _keep_certificate(connection, certificate, now)
            if lease is not None:
                connection.execute(q.DELETE_LEASE, {"name": lease})
            return _puzzle_and_certificate(connection, certificate.puzzle_id)[1]

    def puzzle_and_certificate(self, puzzle_id: str) -> tuple[dict[str, Any] | None,
                                                              Certificate | None]:
        """The stored puzzle and its certificate (either may be missing), in one read."""
        with db.read(self.engine) as connection:
            return _puzzle_and_certificate(connection, puzzle_id)

    def certified_lines(self, deal: str) -> list[tuple[dict[str, Any], Certificate]]:
        """Every stored puzzle of game number ``deal`` that has a certified line, with it."""
        with db.read(self.engine, snapshot=True) as connection:
            ids = connection.execute(q.CERTIFIED_PUZZLES, {"deal": deal}).scalars().all()
            found = [_puzzle_and_certificate(connection, puzzle) for puzzle in ids]
        return [(body, certificate) for body, certificate in found
                if body is not None and certificate is not None]

    # -- leases ----------------------------------------------------------------

    def take_lease(self, name: str, owner: str, seconds: float, now: float) -> float:
        """Take the lease ``name`` for ``seconds`` from ``now`` (Unix time) unless another
        owner holds it unexpired. Return 0 when taken, else the seconds the holder has left."""
        with db.write(self.engine) as connection:
            taken = connection.execute(q.upsert(connection).lease, {
                "name": name, "owner": owner, "expires_at": now + seconds, "now": now}).first()
            if taken is not None:
                return 0.0
            expires = connection.execute(q.LEASE_EXPIRES, {"name": name}).scalar_one()
        return float(expires - now)

    def release_lease(self, name: str, owner: str) -> None:
        """Give the lease back, if ``owner`` still holds it."""
        with db.write(self.engine) as connection:
            connection.execute(q.DELETE_OWNED_LEASE, {"name": name, "owner": owner})

    # -- hints -----------------------------------------------------------------

    def record_hint(self, puzzle_id: str, token_digest: str, moves: int, asked_at: str) -> None:
        """Keep a hint asked with the start token whose digest is ``token_digest``."""
        with db.write(self.engine) as connection:
            connection.execute(q.INSERT_HINT, {"puzzle_id": puzzle_id,
                                               "token_digest": token_digest, "moves": moves,
                                               "asked_at": asked_at})

    def hints_for(self, token_digest: str) -> int:
        """How many hints were asked with the token whose digest is ``token_digest``."""
        with db.read(self.engine) as connection:
            return int(connection.execute(q.HINTS, {"token_digest": token_digest}
                                          ).scalar_one())

    def prune(self, before: str) -> Pruned:
        """Delete the hints and start tokens of the puzzles of days before ``before`` (an
        ISO date), in one transaction; nothing reads them once their puzzles take no more
        submissions (:func:`gapgrid.api.services.puzzles.first_open_day`)."""
        with db.write(self.engine) as connection:
            db.unbounded(connection)  # a cron job after months without one: many rows
            hints = connection.execute(q.DELETE_HINTS_BEFORE, {"before": before}).rowcount
            tokens = connection.execute(q.DELETE_START_TOKENS_BEFORE, {"before": before}
                                        ).rowcount
        return Pruned(hints=hints, start_tokens=tokens)

    # -- players ---------------------------------------------------------------

    def player(self, key: str) -> Player | None:
        """The player registered under ``key``, or None."""
        with db.read(self.engine) as connection:
            row = connection.execute(q.PLAYER, {"player_key": key}).first()
        return None if row is None else Player(row[0], row[1], row[2])

    def claim_player(self, claim: PlayerClaim) -> None:
        """Register ``claim``'s name, or give a name registered without a token its token;
        raise :class:`NameTaken` when the name already has a token."""
        with db.write(self.engine) as connection:
            _claim(connection, claim)

    def unclaim(self, claim: PlayerClaim) -> None:
        """Take back the token ``claim`` gave a name registered without one, if it is still
        that token: for a request that claimed the name and was then refused, so that its
        token, never given to anyone, does not lock the name."""
        with db.write(self.engine) as connection:
            connection.execute(q.UNCLAIM, {"claimed_key": claim.key,
                                           "claimed_digest": claim.token_digest})

    # -- submissions -----------------------------------------------------------

    def submit(self, new: NewSubmission, claim: PlayerClaim | None = None
               ) -> tuple[Submission, bool]:
        """Store ``new`` and its keys unless the player already has a submission; return
        the stored one. The boolean says whether ``new`` was stored now. With ``claim``,
        the player is claimed first in the same transaction (:meth:`claim_player`): all of
        it happens, or none (:class:`NameTaken`, or :class:`TokenTaken` for a late one whose
        start token is another player's); a name registered without a token keeps the
        spelling it was registered in, in the stored submission too."""
        with db.write(self.engine) as connection:
            if claim is not None:
                registered_as = _claim(connection, claim)
                if registered_as != new.player:  # claimed under the spelling it was stored in
                    new = attrs.evolve(new, player=registered_as,
                                       body={**new.body, "player": registered_as})
            body = json.dumps(new.body)
            submission_id = connection.execute(q.upsert(connection).submission, {
                "puzzle_id": new.puzzle_id, "player": new.player,
                "player_key": new.player_key, "moves_digest": new.moves_digest,
                "body": body, "created_at": new.created_at}
            ).scalar_one_or_none()
            if submission_id is not None:
                q.count_player(connection, submission_id, new.puzzle_id)
                q.insert_keys(connection, submission_id, new.puzzle_id, _keys(new))
                if new.winning_line is not None:
                    _improve_line(connection, new.puzzle_id, new.winning_line, new.created_at)
                _keep_token_player(connection, new)
                # stored now: the row is what was just written, read back as text would be
                row = (new.player, new.moves_digest, body)
            else:
                row = connection.execute(q.STORED_SUBMISSION, {
                    "puzzle_id": new.puzzle_id, "player_key": new.player_key}).one()
        stored = Submission(player=row[0], moves_digest=row[1], body=_stored_json(row[2]))
        return stored, submission_id is not None

    def replace_submission(self, new: NewSubmission, replaced_digest: str) -> bool:
        """Put ``new`` in place of the player's stored submission, if that is still the one
        whose moves digest is ``replaced_digest``; its keys go with it. Return whether it
        was replaced (False: another request changed it first); :class:`TokenTaken`, and
        nothing replaced, for a late one whose start token is another player's."""
        with db.write(self.engine) as connection:
            submission_id = connection.execute(q.SUBMISSION_TO_REPLACE, {
                "puzzle_id": new.puzzle_id, "player_key": new.player_key,
                "moves_digest": replaced_digest}).scalar_one_or_none()
            if submission_id is None:
                return False
            connection.execute(q.UPDATE_SUBMISSION, {
                "submission_id": submission_id, "player": new.player,
                "moves_digest": new.moves_digest, "body": json.dumps(new.body),
                "created_at": new.created_at})
            q.delete_keys(connection, submission_id, new.puzzle_id)
            q.insert_keys(connection, submission_id, new.puzzle_id, _keys(new))
            if new.winning_line is not None:
                _improve_line(connection, new.puzzle_id, new.winning_line, new.created_at)
            _keep_token_player(connection, new)
        return True

    def count(self, puzzle_id: str) -> int:
        """How many players have a stored submission for the puzzle."""
        with db.read(self.engine) as connection:
            return q.players_of(connection, puzzle_id)

    def unranked(self, puzzle_id: str, scheme: str, limit: int | None = None
                 ) -> list[UnrankedSubmission]:
        """The puzzle's submissions that have no key for ``scheme`` (stored by a server
        that did not have the scheme), the first ``limit`` of them at most (None: all).
        Cheap when there are none: the tallies say so."""
        where = {"puzzle_id": puzzle_id, "scheme": scheme}
        with db.read(self.engine) as connection:
            if connection.execute(q.ALL_RANKED, where).scalar_one():
                return []
            query = q.UNRANKED if limit is None else q.UNRANKED.limit(limit)
            rows = connection.execute(query, where).all()
        return [UnrankedSubmission(row[0], row[1], _stored_json(row[2])) for row in rows]

    def add_keys(self, keys: Sequence[tuple[UnrankedSubmission, str, RankingKey]]) -> None:
        """Store keys for submissions that lack them (a key stored meanwhile is kept)."""
        with db.write(self.engine) as connection:
            for submission, scheme, key in keys:
                q.insert_keys(connection, submission.id, submission.puzzle_id,
                              {scheme: (key.sort_key, key.total)})

    def rank(self, puzzle_id: str, player_key: str, scheme: str) -> tuple[int, int]:
        """The rank under ``scheme`` of the player whose key is ``player_key`` (ties share
        a rank) and the number ranked; (0, 0) when the player is not ranked."""
        with db.read(self.engine) as connection:
            found = connection.execute(q.PLAYER_RANK, {
                "puzzle_id": puzzle_id, "player_key": player_key, "scheme": scheme}).first()
        return (0, 0) if found is None else (1 + int(found[0]), int(found[1]))

    def rank_if_all_ranked(self, puzzle_id: str, player_key: str, scheme: str
                           ) -> tuple[int, int] | None:
        """:meth:`rank` when every submission of the puzzle has a key for ``scheme`` (the
        tallies say so, in the same statement); None when some lack one (or the player
        has none), for the caller to key them (:meth:`unranked`) and ask :meth:`rank`.
        One round trip where those two calls take two."""
        with db.read(self.engine) as connection:
            found = connection.execute(q.PLAYER_RANK_IF_ALL_RANKED, {
                "puzzle_id": puzzle_id, "player_key": player_key, "scheme": scheme}).first()
        if found is None or not found[2]:
            return None
        return 1 + int(found[0]), int(found[1])

    def leaderboard(self, puzzle_id: str, scheme: str, offset: int, limit: int
                    ) -> tuple[list[RankedSubmission], int]:
        """One page of the ranking under ``scheme``, and the number of ranked players."""
        where = {"puzzle_id": puzzle_id, "scheme": scheme}
        with db.read(self.engine, snapshot=True) as connection:
            bucket, skip = q.page_start(connection, puzzle_id, scheme, offset)
            rows = connection.execute(q.LEADERBOARD_PAGE, {
                **where, "from_bucket": bucket, "limit": limit, "offset": skip}).all()
            if not rows:
                return [], q.ranked(connection, puzzle_id, scheme)
            before, total = connection.execute(q.RANK_AND_TOTAL, {
                **where, "bucket": q.bucket_of(rows[0][0]), "sort_key": rows[0][0]}).one()
        first = 1 + int(before)
        entries: list[RankedSubmission] = []
        for index, (sort_key, player, score, body, created) in enumerate(rows):
            # RANK(): one more than the keys strictly before; ties share the first's rank
            rank = (first if index == 0 else entries[-1].rank if sort_key == rows[index - 1][0]
                    else offset + index + 1)
            entries.append(RankedSubmission(rank, player, score, _stored_json(body), created))
        return entries, int(total)

    def close(self) -> None:
        """Close the pooled connections (a later call opens new ones)."""
        self.engine.dispose()


def _keys(new: NewSubmission) -> dict[str, tuple[tuple[int, ...], int]]:
    return {scheme: (key.sort_key, key.total) for scheme, key in new.keys.items()}


def _insert_puzzle(connection: Connection, puzzle_id: str, date: str, slug: str,
                   body: dict[str, Any], created_at: str) -> None:
    connection.execute(q.upsert(connection).puzzle, {
        "id": puzzle_id, "date": date, "slug": slug, "body": json.dumps(body),
        "created_at": created_at})


def _claim(connection: Connection, claim: PlayerClaim) -> str:
    """Register or claim a name inside the caller's transaction (see
    :meth:`Store.claim_player`); return the name as registered (a name claimed keeps the
    spelling it was first stored in)."""
    claimed = connection.execute(q.upsert(connection).claim, {
        "player_key": claim.key, "name": claim.name, "token_digest": claim.token_digest,
        "created_at": claim.created_at}).first()
    if claimed is None:
        raise NameTaken(claim.name)
    return str(claimed[1])


def _keep_token_player(connection: Connection, new: NewSubmission) -> None:
    """For ``new``, stored in this transaction: keep its player as its start token's,
    unless the token has one; for a late submission, raise :class:`TokenTaken` (the
    transaction is rolled back, the submission with it) when that is another player. Only
    a stored submission makes a token its player's: one refused (already submitted) does
    not. The key's uniqueness decides between concurrent submissions: the second waits
    for the first to commit, then finds its row."""
    if new.token_digest is None:
        return
    token = {"puzzle_id": new.puzzle_id, "token_digest": new.token_digest}
    connection.execute(q.upsert(connection).start_token, {
        **token, "player_key": new.player_key, "created_at": new.created_at})
    if new.late and connection.execute(q.START_TOKEN_PLAYER, token).scalar_one() != (
            new.player_key):
        raise TokenTaken(new.token_digest)


def _puzzle_deal(connection: Connection, puzzle_id: str) -> str | None:
    """The game number of a stored puzzle, its row locked (:data:`~gapgrid.api.db.queries.
    PUZZLE_BODY_LOCKED`)."""
    body = connection.execute(q.PUZZLE_BODY_LOCKED, {"puzzle_id": puzzle_id}
                              ).scalar_one_or_none()
    return None if body is None else str(_stored_json(body)["deal"])


def _keep_certificate(connection: Connection, certificate: Certificate, now: str) -> None:
    """Insert ``certificate``, or let it replace the stored one if it is an improvement: a
    certificate where there was none certified, or a shorter line; never for a game number
    other than the stored puzzle's."""
    if _puzzle_deal(connection, certificate.puzzle_id) != certificate.deal:
        return
    connection.execute(q.upsert(connection).certificate, {
        "puzzle_id": certificate.puzzle_id, "deal": certificate.deal,
        "certified": certificate.certified, "line": json.dumps(list(certificate.line)),
        "par": certificate.par, "body": json.dumps(certificate.body), "created_at": now,
        "updated_at": now})


def _improve_line(connection: Connection, puzzle_id: str, line: Sequence[str],
                  now: str) -> None:
    """Make ``line`` (a verified winning line of the puzzle) its shortest known line if it
    is shorter than the stored one, or if none was known (the puzzle is then certified by a
    player: no difficulty, since no search rated it)."""
    def improves(known: Any) -> bool:
        return known is None or not known.certified or known.par > len(line)
    if not improves(connection.execute(q.CERTIFICATE, {"puzzle_id": puzzle_id}).first()):
        return  # the usual case, decided without a lock
    deal = _puzzle_deal(connection, puzzle_id)
    known = connection.execute(q.CERTIFICATE, {"puzzle_id": puzzle_id}).first()  # locked now
    if deal is None or not improves(known):
        return
    values = {"certified": True, "line": json.dumps(list(line)), "par": len(line),
              "updated_at": now}
    if known is None:
        body: dict[str, Any] = {"difficulty": None, "solver_version": None, "tried": [],
                                "line_from": "submission"}
        connection.execute(q.INSERT_CERTIFICATE, {
            "puzzle_id": puzzle_id, "deal": deal, "body": json.dumps(body),
            "created_at": now, **values})
    else:
        body = {**_stored_json(known.body), "line_from": "submission"}
        connection.execute(q.UPDATE_CERTIFICATE, {"target": puzzle_id,
                                                  "body": json.dumps(body), **values})


def _puzzle_and_certificate(connection: Connection, puzzle_id: str
                            ) -> tuple[dict[str, Any] | None, Certificate | None]:
    row = connection.execute(q.PUZZLE_AND_CERTIFICATE, {"puzzle_id": puzzle_id}).first()
    if row is None:
        return None, None
    body = dict(_stored_json(row[0]))
    if row[1] is None:
        return body, None
    return body, Certificate(puzzle_id=puzzle_id, deal=row[1], certified=bool(row[2]),
                             line=tuple(_stored_json(row[3], list)), par=row[4],
                             body=dict(_stored_json(row[5])), updated_at=row[6])


def _stored_json(text: str, kind: type = dict) -> Any:
    """A JSON column's value, which must be a ``kind`` (an object, or a list for a line); a
    :class:`StoreError` where it is not: gapgrid writes only those there, so the database
    was edited by hand or damaged, which is said as such (exit 2 from a command) rather
    than as a bug."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        value = None
    if not isinstance(value, kind):
        raise StoreError("the database holds a value gapgrid did not write (not a JSON "
                         f"{'list' if kind is list else 'object'}): it was edited by hand "
                         "or is damaged")
    return value
