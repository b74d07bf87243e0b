"""``gapgrid db prune``: the hints and start tokens of closed puzzles go, nothing else."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from gapgrid.api.cli import main
from gapgrid.api.cli_db import PRUNE_MARGIN
from gapgrid.api.db import schema
from gapgrid.api.services.puzzles import first_open_day
from gapgrid.api.store import Store

OLD: datetime.date = datetime.date(2020, 1, 1)
"""A day whose puzzles closed long ago, whenever the tests run."""

AHEAD: datetime.date = datetime.date(2999, 1, 1)
"""A day whose puzzles still take submissions, whenever the tests run."""


@pytest.mark.parametrize(("now", "first_open"), [
    ("2026-11-30T00:59:59+00:00", "2026-11-29"),  # yesterday's late hour
    ("2026-11-30T01:00:00+00:00", "2026-11-30"),  # over: its solution opens
    ("2026-11-30T23:59:59+00:00", "2026-11-30"),
    ("2026-11-30T02:30:00+03:00", "2026-11-29"),  # 23:30 UTC: the zone does not count
])
def test_the_first_open_day_keeps_yesterday_through_its_late_hour(now: str,
                                                                  first_open: str) -> None:
    assert first_open_day(datetime.datetime.fromisoformat(now)).isoformat() == first_open


def fill(store: Store, day: datetime.date, n: int) -> None:
    """A puzzle of ``day`` with ``n`` hints and ``n`` start tokens."""
    pid = f"{day.isoformat()}-montana"
    store.keep_puzzle(pid, day.isoformat(), "montana", {"id": pid, "date": day.isoformat()},
                      "2020-01-01T00:00:00Z")
    with store.engine.begin() as connection:
        for k in range(n):
            connection.execute(schema.start_tokens.insert(), {
                "puzzle_id": pid, "token_digest": f"{day}-{k}", "player_key": f"p{k}",
                "created_at": "2020-01-01T00:00:00Z"})
    for k in range(n):
        store.record_hint(pid, f"{day}-{k}", k, "2020-01-01T00:00:00Z")


def count(store: Store, table: schema.Table, day: datetime.date) -> int:
    with store.engine.connect() as connection:
        return len(connection.execute(table.select().where(
            table.c.puzzle_id == f"{day.isoformat()}-montana")).all())


def test_prune_deletes_the_hints_and_tokens_of_closed_puzzles_only(
        database: Path | str) -> None:
    """On SQLite and PostgreSQL: the rows of a day long closed go, and those of the day
    before the first one kept (the first open day of an hour ago); those of that day and of
    a day still open stay, and so do the puzzles; a second run finds nothing to delete."""
    kept = first_open_day(datetime.datetime.now(datetime.UTC) - PRUNE_MARGIN)
    closed = kept - datetime.timedelta(days=1)
    store = Store(database)
    try:
        fill(store, OLD, 3)
        fill(store, closed, 1)
        fill(store, kept, 1)
        fill(store, AHEAD, 2)
    finally:
        store.close()
    environment = {"GAPGRID_DATABASE": str(database)}
    result = CliRunner().invoke(main, ["db", "prune"], env=environment)
    assert result.exit_code == 0, result.output
    assert f"deleted 4 hints and 4 start tokens of puzzles before {kept}" in result.output
    store = Store(database)
    days = (OLD, closed, kept, AHEAD)
    try:
        assert [count(store, schema.hints, day) for day in days] == [0, 0, 1, 2]
        assert [count(store, schema.start_tokens, day) for day in days] == [0, 0, 1, 2]
        assert store.puzzle(f"{OLD.isoformat()}-montana") is not None
        assert store.hints_for(f"{AHEAD}-1") == 1
    finally:
        store.close()
    again = CliRunner().invoke(main, ["db", "prune"], env=environment)
    assert again.exit_code == 0, again.output
    assert "deleted 0 hints and 0 start tokens" in again.output


def test_prune_makes_no_database_where_there_is_none(tmp_path: Path) -> None:
    """A mistyped file name is said, not made into an empty database."""
    missing = tmp_path / "typo.sqlite3"
    result = CliRunner().invoke(main, ["db", "prune"], env={"GAPGRID_DATABASE": str(missing)})
    assert result.exit_code == 2
    assert f"no database at {missing}" in result.output
    assert not missing.exists()
