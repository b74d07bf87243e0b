"""Issue 15's budget: with 300,000 submissions on one puzzle, a submission and a leaderboard
page each take under 20 ms, on SQLite and on PostgreSQL.

Fills a fresh database fast, with direct inserts (SQLAlchemy Core, batches of
10,000): today's puzzle, one real verified answer, and ``--submissions``
more rows shaped like it (its stored answer, each with its own player and
ranking keys spread as a day's players would spread: outcome, actions and
milliseconds drawn at random), then the tallies the store keeps, counted as
the migration that made them counts them. Then times, through the service
layer (``PuzzleService``, as the HTTP routes call it), each ``--repeat``
times:

- a submission by a new player (verification and storing, the rank and the
  total in the answer), and the verification alone, to tell the database's
  share;
- the leaderboard's first page (20 entries), a page in the middle, the last
  page;
- as a reference, the query the store ran before (``RANK()`` over the whole
  puzzle), once.

Prints the median and the slowest of each. SQLite always; PostgreSQL too
with ``--database postgresql://...`` (an empty database: it is filled), or
``--postgres`` (a throwaway cluster from this machine's ``initdb`` and
``pg_ctl``, as the tests start one).

Usage: python bench/leaderboard.py [--submissions 300000] [--repeat 30]
       [--database postgresql://... | --postgres] [--no-sqlite]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlalchemy

from gapgrid import plugins
from gapgrid.api.config import Settings
from gapgrid.api.db import engine as db
from gapgrid.api.db.schema import (
    TALLY_SHARDS,
    puzzle_players,
    ranking_buckets,
    ranking_keys,
    submissions,
)
from gapgrid.api.db.sortkeys import BUCKET_CHARACTERS, encode_sort_key
from gapgrid.api.services import games
from gapgrid.api.services.puzzles import PuzzleService
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game

DAY = datetime.datetime(2026, 11, 30, 12, 0, tzinfo=datetime.UTC)
VARIANT = "montana"
BATCH = 10_000

OLD_RANK = sqlalchemy.text(
    "SELECT ranked.rank, ranked.total FROM (SELECT s.player_key, "
    "RANK() OVER (ORDER BY k.sort_key) AS rank, COUNT(*) OVER () AS total "
    "FROM ranking_keys AS k JOIN submissions AS s ON s.id = k.submission_id "
    "WHERE k.puzzle_id = :puzzle AND k.scheme = :scheme) AS ranked "
    "WHERE ranked.player_key = :player")
"""What ``Store.rank`` ran before the tallies (issue 15: about 1 s at 300,000)."""


def legal_moves(catalogue: Catalogue, deal: str, count: int, chosen: random.Random
                ) -> list[str]:
    """``count`` moves of a game that plays a random legal move each time (fewer if stuck)."""
    state = new_game(catalogue.rules(VARIANT), parse_deal_number(deal))
    moves = []
    for _ in range(count):
        legal = state.legal_moves()
        if not legal:
            break
        move = chosen.choice(legal)
        state = state.apply(move)
        moves.append(str(move))
    return moves


def fill(service: PuzzleService, puzzle: dict[str, Any], seed_player: str, count: int,
         chosen: random.Random) -> None:
    """``count`` submissions shaped like the seed player's, by direct inserts."""
    engine = service.store.engine
    with db.read(engine) as connection:
        body = connection.execute(sqlalchemy.select(submissions.c.body).where(
            submissions.c.player_key == seed_player.lower())).scalar_one()
        seed_keys = connection.execute(sqlalchemy.select(
            ranking_keys.c.scheme, ranking_keys.c.sort_key, ranking_keys.c.total)).all()
    schemes = {scheme: total for scheme, _, total in seed_keys}
    answer = json.loads(body)
    with db.write(engine) as connection:
        first_id = int(connection.execute(sqlalchemy.select(
            sqlalchemy.func.max(submissions.c.id))).scalar_one()) + 1
    for start in range(0, count, BATCH):
        rows, keys = [], []
        for number in range(start, min(count, start + BATCH)):
            player = f"Filler {number}"
            rows.append({"id": first_id + number, "puzzle_id": puzzle["id"], "player": player,
                         "player_key": player.lower(), "moves_digest": f"{number:064x}",
                         "body": json.dumps({**answer, "player": player}),
                         "created_at": "2026-11-30T11:00:00Z"})
            won = chosen.random() < 0.3
            actions = chosen.randint(60, 160) if won else chosen.randint(5, 60)
            milliseconds = chosen.randint(30_000, 3_600_000)
            cards = chosen.randint(0, 40)
            for scheme, total in schemes.items():
                # the shapes the built-in schemes give (par: won, hints, actions, time
                # known, milliseconds; or not won, hints, -cards in sequence, moves, ...)
                if scheme == "par":
                    key: tuple[int, ...] = ((0, 0, actions, 0, milliseconds) if won else
                                            (1, 0, -cards, actions, 0, milliseconds))
                else:  # a points scheme: minus its total
                    key = (-chosen.randint(0, 52 if scheme == "cards" else 3000),)
                keys.append({"submission_id": first_id + number, "puzzle_id": puzzle["id"],
                             "scheme": scheme, "sort_key": encode_sort_key(key),
                             "total": total})
        with db.write(engine) as connection:
            connection.execute(submissions.insert(), rows)
            connection.execute(ranking_keys.insert(), keys)
    if engine.dialect.name == "postgresql":  # ids were given: the sequence goes on after them
        with db.write(engine) as connection:
            connection.exec_driver_sql("SELECT setval(pg_get_serial_sequence('submissions', "
                                       "'id'), (SELECT max(id) FROM submissions))")
    bucket = sqlalchemy.func.substr(ranking_keys.c.sort_key, 1, BUCKET_CHARACTERS)
    shard = submissions.c.id % TALLY_SHARDS
    key_shard = ranking_keys.c.submission_id % TALLY_SHARDS
    with db.write(engine) as connection:  # the tallies, counted as revision 0004 counts them
        connection.execute(puzzle_players.delete())
        connection.execute(ranking_buckets.delete())
        connection.execute(puzzle_players.insert().from_select(
            ["puzzle_id", "shard", "players"],
            sqlalchemy.select(submissions.c.puzzle_id, shard, sqlalchemy.func.count())
            .group_by(submissions.c.puzzle_id, shard)))
        connection.execute(ranking_buckets.insert().from_select(
            ["puzzle_id", "scheme", "bucket", "shard", "players"],
            sqlalchemy.select(ranking_keys.c.puzzle_id, ranking_keys.c.scheme, bucket,
                              key_shard, sqlalchemy.func.count())
            .group_by(ranking_keys.c.puzzle_id, ranking_keys.c.scheme, bucket, key_shard)))
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("VACUUM ANALYZE")  # as autovacuum would, after a bulk load
    else:
        with db.write(engine) as connection:
            connection.exec_driver_sql("ANALYZE")


def timed(work: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """Median and slowest wall milliseconds of ``repeat`` calls (after one to warm up)."""
    work()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times)


def measure(name: str, database: Path | str, count: int, repeat: int) -> None:
    """Fill ``database`` and print the timings."""
    catalogue = plugins.load_catalogue()
    instance = Path(tempfile.mkdtemp(prefix="gapgrid-leaderboard-"))
    settings = Settings(instance=instance, database=database, secret_key="bench-leaderboard",
                        first_day=datetime.date(2026, 1, 1), certify_seconds=0,
                        limit_writes=None)
    service = PuzzleService.open(settings, catalogue, clock=lambda: DAY)
    today = DAY.date().isoformat()
    puzzle = service.puzzle(today, VARIANT).document
    chosen = random.Random(15)
    service.submit(today, VARIANT, player="Seed", moves=legal_moves(
        catalogue, puzzle["deal"], 40, chosen))
    started = time.perf_counter()
    fill(service, puzzle, "Seed", count, chosen)
    print(f"{name}: filled {count:,} submissions in {time.perf_counter() - started:.0f} s")

    players = iter(range(10**9))
    games_played = [legal_moves(catalogue, puzzle["deal"], chosen.randint(5, 40), chosen)
                    for _ in range(repeat + 1)]
    moves = iter(games_played * 2)

    def submit() -> None:
        answer = service.submit(today, VARIANT, player=f"Newcomer {next(players)}",
                                moves=next(moves))
        assert answer.created and answer.document["players"] > count

    def verify_only() -> None:
        games.verify(catalogue, variant=VARIANT, deal=puzzle["deal"], moves=next(moves))

    pages = -(-(count + 1) // 20)
    figures = {
        "submission (verify + store + rank)": timed(submit, repeat),
        "  of which verification alone": timed(verify_only, repeat),
        "leaderboard page 1 of 20": timed(
            lambda: service.leaderboard(today, VARIANT, page=1, per_page=20), repeat),
        f"leaderboard page {pages // 2:,} of 20": timed(
            lambda: service.leaderboard(today, VARIANT, page=pages // 2, per_page=20), repeat),
        f"leaderboard page {pages:,} (the last)": timed(
            lambda: service.leaderboard(today, VARIANT, page=pages, per_page=20), repeat),
    }
    with db.read(service.store.engine) as connection:
        old = timed(lambda: connection.execute(OLD_RANK, {
            "puzzle": puzzle["id"], "scheme": "par", "player": "seed"}).all(), 1)
    figures["before: RANK() over the puzzle (one query)"] = old
    for what, (median, slowest) in figures.items():
        print(f"{name}: {what}: median {median:.1f} ms, slowest {slowest:.1f} ms")
    service.store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=300_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--no-sqlite", action="store_true", help="PostgreSQL only")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--database", help="an empty PostgreSQL database to fill too")
    where.add_argument("--postgres", action="store_true",
                       help="start a throwaway PostgreSQL cluster and fill it too")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"{platform.python_implementation()} {platform.python_version()}; "
          f"load average {os.getloadavg()[0]:.1f}")
    if not args.no_sqlite:
        measure("SQLite", Path(tempfile.mkdtemp(prefix="gapgrid-sqlite-")) / "gapgrid.sqlite3",
                args.submissions, args.repeat)
    cluster = None
    if args.postgres:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from tests.postgres import start_cluster  # the tests' own throwaway cluster
        cluster, why = start_cluster(durable=True)
        if cluster is None:
            raise SystemExit(why)
        args.database = cluster.new_database()
    try:
        if args.database:
            measure("PostgreSQL", args.database, args.submissions, args.repeat)
    finally:
        if cluster is not None:
            cluster.stop()
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
