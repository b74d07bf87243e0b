"""A database written by gapgrid 0.1.0 (schema version 1) keeps working after the upgrade.

The database is made here exactly as 0.1.0 made it: its DDL and its
statements are copied below verbatim from 0.1.0's ``api/store.py``, and the
stored answers have the shape 0.1.0 gave. Then the real server opens it,
migrates it in place, and must rank, recognise and keep every submission.
The ``par`` ranking changed since (the fair leaderboard of schema version 3),
so the migrated submissions are ranked as today's ``par`` scheme ranks their
stored answers, not as 0.1.0 did.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gapgrid import plugins
from gapgrid.api.db import legacy
from gapgrid.api.services import games
from gapgrid.api.services.puzzles import make_puzzle, puzzle_id, summary_of_answer
from gapgrid.api.store import SCHEMA_VERSION, Store, StoreError
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game
from gapgrid.core.notation import parse_actions
from gapgrid.core.replay import replay
from gapgrid.core.scoring import GameSummary
from tests.api.live import GAPGRID, LiveServer, request

# -- gapgrid 0.1.0, verbatim ------------------------------------------------------------------

V1_SCHEMA = """
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
V1_INSERT_PUZZLE = (
    "INSERT INTO puzzles (id, date, slug, body, created_at) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT DO NOTHING")
V1_INSERT_SUBMISSION = (
    "INSERT INTO submissions (puzzle_id, player, player_key, moves_digest, lost, "
    "moves, time_unknown, milliseconds, body, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")
V1_ORDER = "lost, moves, time_unknown, milliseconds"
V1_LEADERBOARD = (
    f"SELECT RANK() OVER (ORDER BY {V1_ORDER}) AS rank, player, lost, moves, "
    f"time_unknown, milliseconds, created_at FROM submissions WHERE puzzle_id = ? "
    f"ORDER BY {V1_ORDER}, id LIMIT ? OFFSET ?")

SECRET = "live-test-secret"  # the LiveServer's
SLUG = "montana"

# player, how many legal moves, seconds from a start token (None: no token)
PLAYERS: list[tuple[str, int, float | None]] = [
    ("Ann", 3, 50.5), ("Ben", 1, None), ("Cat", 3, 20.25), ("Dan", 5, 10.0), ("eve", 1, 99.0)]


def legal_moves(catalogue: Catalogue, deal: str, count: int) -> list[str]:
    """The first ``count`` moves of a game that always plays the first legal move."""
    state = new_game(catalogue.rules(SLUG), parse_deal_number(deal))
    moves = []
    for _ in range(count):
        move = state.legal_moves()[0]
        state = state.apply(move)
        moves.append(str(move))
    return moves


def write_version_1_database(path: Path, catalogue: Catalogue, day: datetime.date
                             ) -> dict[str, list[str]]:
    """Today's puzzle and a submission per player, stored as gapgrid 0.1.0 stored them;
    return each player's moves."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.executescript(V1_SCHEMA)
    puzzle = make_puzzle(catalogue, SECRET, day, catalogue.lookup(SLUG))
    connection.execute(V1_INSERT_PUZZLE, (puzzle["id"], day.isoformat(), SLUG,
                                          json.dumps(puzzle), f"{day}T00:00:01Z"))
    played = {}
    for minute, (player, count, elapsed) in enumerate(PLAYERS):
        moves = legal_moves(catalogue, puzzle["deal"], count)
        # 0.1.0 answered with the verify document scored by every scheme (its
        # scored_report): the same document games.verify gives today
        report = games.verify(catalogue, variant=SLUG, deal=puzzle["deal"], moves=moves,
                              elapsed=elapsed).document
        created = f"{day}T00:{minute + 10}:00Z"
        body = {"puzzle": puzzle["id"], "player": player, "stored": True,
                "submitted_at": created, "elapsed_seconds": elapsed, "result": report}
        # 0.1.0's par key: (lost, moves, time unknown, milliseconds)
        summary = GameSummary.from_replay(replay(catalogue.rules(SLUG),
                                                 parse_deal_number(puzzle["deal"]),
                                                 parse_actions(moves)), elapsed=elapsed)
        lost, count_moved = int(not summary.won), summary.moves
        time_unknown = int(elapsed is None)
        milliseconds = 0 if elapsed is None else math.ceil(elapsed * 1000)
        digest = hashlib.sha256("\n".join(moves).encode()).hexdigest()
        connection.execute(V1_INSERT_SUBMISSION, (
            puzzle["id"], player, player.casefold(), digest, lost, count_moved, time_unknown,
            milliseconds, json.dumps(body), created))
        played[player] = moves
    connection.close()
    return played


@pytest.fixture
def catalogue() -> Catalogue:
    """The built-in plugins (the real server adds installed ones; the schemes are the same)."""
    return plugins.load_catalogue(entry_points=False, disabled=())


def ranked_by_par_today(catalogue: Catalogue, path: Path, puzzle: str
                        ) -> list[tuple[int, str, str]]:
    """The stored submissions as today's par scheme ranks their answers: (rank, player,
    player key), ties sharing a rank."""
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute("SELECT id, player, body FROM submissions WHERE puzzle_id = ?",
                                  (puzzle,)).fetchall()
        deal = json.loads(connection.execute("SELECT body FROM puzzles WHERE id = ?",
                                             (puzzle,)).fetchone()[0])["deal"]
    finally:
        connection.close()
    start = new_game(catalogue.rules(SLUG), parse_deal_number(deal)).board.cards_in_sequence()
    scheme = catalogue.scoring["par"].scheme
    keys = {player: (scheme.score(summary_of_answer(json.loads(body), start)).sort_key, row)
            for row, player, body in rows}
    ordered = sorted(keys, key=keys.__getitem__)
    return [(1 + sum(1 for other in keys if keys[other][0] < keys[player][0]), player,
             player.casefold()) for player in ordered]


def version_1_leaderboard(path: Path, puzzle: str) -> list[tuple[Any, ...]]:
    """What 0.1.0's leaderboard query gives on the database."""
    connection = sqlite3.connect(path)
    try:
        return connection.execute(V1_LEADERBOARD, (puzzle, 100, 0)).fetchall()
    finally:
        connection.close()


def test_a_version_1_database_is_migrated_and_keeps_working(tmp_path: Path,
                                                           catalogue: Catalogue) -> None:
    """The real server opens a 0.1.0 database: the leaderboard ranks every stored player by
    today's par scheme on their stored answers, a player's resubmission is recognised (same
    moves 200, others 409), new submissions join the ranking, and every row keeps its id
    and its stored answer."""
    instance = tmp_path / "instance"
    instance.mkdir()
    database = instance / "gapgrid.sqlite3"
    day = datetime.datetime.now(datetime.UTC).date()
    played = write_version_1_database(database, catalogue, day)
    puzzle = puzzle_id(day, SLUG)
    before = version_1_leaderboard(database, puzzle)
    with sqlite3.connect(database) as connection:
        stored_before = connection.execute(
            "SELECT id, player, moves_digest, body, created_at FROM submissions ORDER BY id"
        ).fetchall()
    assert [row[1] for row in before] == ["eve", "Ben", "Cat", "Ann", "Dan"]

    server = LiveServer(instance, secret=SECRET).start()
    try:
        url = f"{server.url}/v1/puzzles/{day}/{SLUG}"
        status, _, board = request("GET", f"{url}/leaderboard?per_page=100")
        assert status == 200 and board["ranking"] == "par" and board["total"] == len(PLAYERS)
        by_player = {row[1]: row for row in before}
        expected = ranked_by_par_today(catalogue, database, puzzle)
        assert [(entry["rank"], entry["player"], entry["won"], entry["moves"],
                 entry["seconds"], entry["submitted_at"]) for entry in board["entries"]] == [
            (rank, player, not by_player[player][2], by_player[player][3],
             None if by_player[player][4] else by_player[player][5] / 1000,
             by_player[player][6]) for rank, player, _ in expected]

        # a name stored before names had owners: its first later submission claims it
        status, _, again = request("POST", f"{url}/submissions",
                                   {"player": "ANN", "moves": played["Ann"]})
        assert status == 200 and again["submitted_at"] == f"{day}T00:10:00Z"
        owner = {"Authorization": f"Bearer {again['player_token']}"}
        assert again["rank"] == next(rank for rank, player, _ in expected if player == "Ann")
        assert again["players"] == len(PLAYERS)
        status, _, _ = request("POST", f"{url}/submissions",
                               {"player": "Ann", "moves": played["Ann"][:1]})
        assert status == 401
        status, _, _ = request("POST", f"{url}/submissions",
                               {"player": "Ann", "moves": played["Ann"][:1]}, headers=owner)
        assert status == 409
        status, _, newcomer = request("POST", f"{url}/submissions",
                                      {"player": "Zed", "moves": played["Dan"][:2]})
        assert status == 201 and newcomer["players"] == 6
        now_ranked = ranked_by_par_today(catalogue, database, puzzle)
        assert newcomer["rank"] == next(rank for rank, player, _ in now_ranked
                                        if player == "Zed")
    finally:
        server.stop()

    with sqlite3.connect(database) as connection:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        stored_after = connection.execute(
            "SELECT id, player, moves_digest, body, created_at FROM submissions ORDER BY id"
        ).fetchall()
        schemes = connection.execute(
            "SELECT submission_id, group_concat(scheme) FROM (SELECT submission_id, scheme "
            "FROM ranking_keys ORDER BY scheme) GROUP BY submission_id").fetchall()
    assert stored_after[:len(PLAYERS)] == stored_before
    assert {row[0]: row[1] for row in schemes[:len(PLAYERS)]} == {
        row[0]: "cards,frontier,par" for row in stored_before}


def test_a_failed_migration_changes_nothing(tmp_path: Path, catalogue: Catalogue,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The migration is one transaction: when it fails half-way, the database is still the
    0.1.0 one, whole, and the next start migrates it."""
    database = tmp_path / "gapgrid.sqlite3"
    day = datetime.date(2026, 11, 30)
    write_version_1_database(database, catalogue, day)
    original = legacy.insert_keys
    calls = 0

    def failing(*args: Any, **kwargs: Any) -> None:
        nonlocal calls
        calls += 1
        if calls == 3:  # after two submissions' keys: tables already rebuilt
            raise sqlite3.OperationalError("disk full")
        original(*args, **kwargs)
    monkeypatch.setattr(legacy, "insert_keys", failing)
    with pytest.raises(sqlite3.OperationalError, match="disk full"):
        Store(database)
    with sqlite3.connect(database) as connection:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == 0
        columns = [row[1] for row in connection.execute("PRAGMA table_info(submissions)")]
        assert "lost" in columns
        tables = {row[0] for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "ranking_keys" not in tables and "submissions_version_2" not in tables
    assert len(version_1_leaderboard(database, puzzle_id(day, SLUG))) == len(PLAYERS)

    monkeypatch.setattr(legacy, "insert_keys", original)
    store = Store(database)
    _, total = store.leaderboard(puzzle_id(day, SLUG), "cards", 0, 100)
    assert total == len(PLAYERS)
    # version 3 forgets the par keys, whose ranking changed: the service computes them again
    assert [submission.body["player"] for submission in store.unranked(
        puzzle_id(day, SLUG), "par")] == [player for player, _, _ in PLAYERS]


def test_a_database_from_a_newer_gapgrid_is_refused(tmp_path: Path) -> None:
    """A schema version this code does not know is never written to: the store refuses it,
    and `gapgrid serve` says so in one line, exit status 2."""
    instance = tmp_path / "instance"
    instance.mkdir()
    with sqlite3.connect(instance / "gapgrid.sqlite3") as connection:
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer gapgrid"):
        Store(instance / "gapgrid.sqlite3")
    finished = subprocess.run([str(GAPGRID), "serve", "--port", "0"], capture_output=True,
                              text=True, timeout=60,
                              env={**os.environ, "GAPGRID_INSTANCE": str(instance),
                                   "GAPGRID_SECRET_KEY": "test-secret-16-b"})
    assert finished.returncode == 2
    assert finished.stderr.count("\n") == 1 and "newer gapgrid" in finished.stderr
