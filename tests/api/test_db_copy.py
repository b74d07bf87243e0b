"""`gapgrid db import SOURCE`: a server's database copied into a new one, SQLite to
PostgreSQL and back, serves the same puzzles, leaderboards and players, and goes on giving
new ids; a copy into a database in use, or from one that is missing or out of date, is
refused with one line and nothing written."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from flask import Flask
from flask.testing import FlaskClient

from gapgrid.api import cli_db
from gapgrid.api.db import copy, engine, schema
from tests.api.conftest import TODAY
from tests.api.live import GAPGRID
from tests.api.test_db_migrations import write_version_3_database
from tests.api.test_ranking import TOKENS, game_lines, ranking, submit_all
from tests.postgres import Cluster


def import_into(target: Path | str, source: Path | str) -> subprocess.CompletedProcess[str]:
    """Run `gapgrid db import SOURCE` with GAPGRID_DATABASE naming the target."""
    environment = {**os.environ, "GAPGRID_DATABASE": str(target)}
    return subprocess.run([str(GAPGRID), "db", "import", str(source)], env=environment,
                          capture_output=True, text=True, timeout=120, check=False)


def every_row(database: Path | str) -> dict[str, list[dict[str, Any]]]:
    """Each table's rows, in primary-key order (leases aside: they are not copied)."""
    made = engine.create(database)
    try:
        with engine.read(made, snapshot=True) as connection:
            return {table.name: [dict(row) for row in connection.execute(
                sqlalchemy.select(table).order_by(*table.primary_key.columns)).mappings()]
                for table in copy.copied_tables()}
    finally:
        made.dispose()


def highest_submission_id(database: Path | str) -> int:
    made = engine.create(database)
    try:
        with engine.read(made) as connection:
            return int(connection.execute(sqlalchemy.select(
                sqlalchemy.func.max(schema.submissions.c.id))).scalar_one())
    finally:
        made.dispose()


def test_a_sqlite_database_copied_to_postgresql_and_back_serves_the_same_games(
        make_app: Callable[..., Flask], postgres_url: str, tmp_path: Path) -> None:
    """Every row arrives as it was, ids included; a server on the copy shows the same
    leaderboard, knows each player's token, and numbers new submissions after the old."""
    source_app = make_app()
    source_database = tmp_path / "instance" / "db.sqlite3"  # conftest.test_settings's
    played = source_app.test_client()
    submit_all(played, game_lines(played, 4))
    original = every_row(source_database)
    assert len(original["submissions"]) == 8 and len(original["players"]) == 8

    result = import_into(postgres_url, source_database)
    assert result.returncode == 0, result.stderr
    assert "submissions: 8 rows" in result.stderr
    assert every_row(postgres_url) == original

    served: FlaskClient = make_app(database=postgres_url).test_client()
    assert ranking(served) == ranking(played)
    again = served.post(f"/v1/puzzles/{TODAY}/montana/submissions",
                        json={"player": "p0", "moves": game_lines(served, 1)[0]},
                        headers={"Authorization": f"Bearer {TOKENS['p0']}"})
    assert again.status_code == 200, again.get_json()
    newcomer = served.post(f"/v1/puzzles/{TODAY}/montana/submissions",
                           json={"player": "newcomer", "moves": game_lines(served, 1)[0]})
    assert newcomer.status_code == 201, newcomer.get_json()
    # numbered after the copied ones (PostgreSQL may skip a number: a refused insert uses one)
    assert highest_submission_id(postgres_url) > highest_submission_id(source_database)
    taken = served.post(f"/v1/puzzles/{TODAY}/montana/submissions",
                        json={"player": "p1", "moves": game_lines(served, 1)[0]})
    assert taken.status_code == 401  # p1's name is still owned by p1's token

    back = tmp_path / "back" / "gapgrid.sqlite3"
    assert import_into(back, postgres_url).returncode == 0
    assert every_row(back) == every_row(postgres_url)


def test_a_copy_into_a_database_in_use_is_refused_and_changes_nothing(
        make_app: Callable[..., Flask], tmp_path: Path) -> None:
    source_app = make_app()
    source_database = tmp_path / "instance" / "db.sqlite3"  # conftest.test_settings's
    played = source_app.test_client()
    submit_all(played, game_lines(played, 2))
    target = tmp_path / "target.sqlite3"
    assert import_into(target, source_database).returncode == 0
    before = every_row(target)

    result = import_into(target, source_database)
    assert result.returncode == 2
    assert result.stderr.startswith("gapgrid: the target is not empty (it has rows in ")
    assert result.stderr.endswith("): a copy goes into a new database only\n")
    assert every_row(target) == before

    itself = import_into(target, target)
    assert itself.returncode == 2 and "both the source and the target" in itself.stderr


def test_a_missing_or_outdated_source_is_refused_with_what_to_do(
        tmp_path: Path, postgres_cluster: Cluster) -> None:
    """A path that names no file is not made into an empty database; a database of an
    older schema is to be upgraded first; a server that is not there is named, without
    its password. Nothing is written to the target."""
    target = tmp_path / "target.sqlite3"
    missing = tmp_path / "nothing-here.sqlite3"
    result = import_into(target, missing)
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"gapgrid: no database at {missing}\n"
    assert not missing.exists() and not target.exists()

    old = tmp_path / "version-3.sqlite3"
    write_version_3_database(old)
    before = old.read_bytes()
    result = import_into(target, old)
    assert result.returncode == 2
    assert "bring it up to date first (GAPGRID_DATABASE=<it> gapgrid db upgrade)" in result.stderr
    assert not target.exists()
    assert old.read_bytes() == before  # the source is only read: not even its journal mode

    for name, content in (("empty", b""), ("noise", os.urandom(3000))):
        stranger = tmp_path / name
        stranger.write_bytes(content)
        result = import_into(target, stranger)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert stranger.read_bytes() == content and not target.exists()

    absent = postgres_cluster.url("no_such_database").replace("gapgrid@", "gapgrid:secret@")
    result = import_into(target, absent)
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "no_such_database" in result.stderr and "secret" not in result.stderr

    other = import_into(target, "mysql://somewhere/gapgrid")
    assert other.returncode == 2 and "postgresql://" in other.stderr


def test_a_source_whose_name_looks_like_a_uri_is_read_as_named(
        make_app: Callable[..., Flask], tmp_path: Path) -> None:
    """The source is opened read-only through SQLite's URIs: a file name with "?", "#", "%",
    a space and an accent still names that file, not another one made empty."""
    make_app().test_client().get("/v1/daily/montana")
    source = tmp_path / "old server?#%20 é.sqlite3"
    with closing(sqlite3.connect(tmp_path / "instance" / "db.sqlite3")) as serving, \
            closing(sqlite3.connect(source)) as renamed:
        serving.backup(renamed)  # the server's rows, its WAL included
    target = tmp_path / "target.sqlite3"
    result = import_into(target, source)
    assert result.returncode == 0, result.stderr
    assert "puzzles: 1 rows" in result.stderr
    assert every_row(target) == every_row(source)
    assert sorted(path.name for path in tmp_path.iterdir() if "old server" in path.name
                  and not path.name.startswith(source.name)) == []


def test_a_refused_copy_leaves_an_older_database_in_use_as_it_was(
        make_app: Callable[..., Flask], tmp_path: Path) -> None:
    """A target with rows is refused before anything is done to it: a database of an older
    schema, still used by older servers, is not upgraded under them."""
    make_app().test_client().get("/v1/daily/montana")  # a source with a puzzle in it
    target = tmp_path / "version-3.sqlite3"
    write_version_3_database(target)
    before = target.read_bytes()
    result = import_into(target, tmp_path / "instance" / "db.sqlite3")
    assert result.returncode == 2
    assert "the target is not empty (it has rows in " in result.stderr
    assert "puzzles" in result.stderr and "submissions" in result.stderr
    assert target.read_bytes() == before


def test_a_copy_that_fails_part_way_leaves_no_new_database_behind(
        make_app: Callable[..., Flask], tmp_path: Path) -> None:
    """A source the target's rules refuse (here a submission of a puzzle that is not there,
    which SQLite stored with its foreign keys off) fails the copy part way: the SQLite
    file made for it is taken away with its side files, so that no empty database stands
    where the user asked for a copy; a target that was there already stays."""
    make_app().test_client().get("/v1/daily/montana")
    source = tmp_path / "instance" / "db.sqlite3"
    with closing(sqlite3.connect(source)) as connection, connection:
        connection.execute(
            "INSERT INTO submissions (puzzle_id, player, player_key, moves_digest, body, "
            "created_at) VALUES ('no-such-puzzle', 'ann', 'ann', 'x', '{}', '2026-12-04')")
    target = tmp_path / "new" / "target.sqlite3"
    target.parent.mkdir()
    result = import_into(target, source)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[-1].startswith(f"gapgrid: cannot copy {source} into ")
    assert "FOREIGN KEY" in result.stderr and "Traceback" not in result.stderr
    assert list(target.parent.iterdir()) == []

    empty = tmp_path / "empty.sqlite3"
    sqlite3.connect(empty).close()  # an empty file the operator made for the copy
    assert import_into(empty, source).returncode == 2
    assert empty.exists()


def test_a_file_made_at_the_target_during_the_copy_is_left_as_it_is(tmp_path: Path) -> None:
    """A new SQLite target appears only once the copy is whole, and never in place of a
    file another process made there meanwhile (a server started on it, another copy): the
    copy is then refused and not kept, and that file is not touched (a failed copy used to
    delete whatever stood at the target's name). Nothing hidden is left behind."""
    source = tmp_path / "source.sqlite3"
    made = engine.create(source)
    engine.upgrade(made)
    with engine.write(made) as connection:
        connection.execute(schema.hints.insert(), [
            {"puzzle_id": "2026-12-01-montana", "token_digest": f"t{index}", "moves": index,
             "asked_at": "2026-12-01T00:00:00Z"} for index in range(250_000)])
    made.dispose()
    folder = tmp_path / "new"
    target = folder / "target.sqlite3"
    environment = {**os.environ, "GAPGRID_DATABASE": str(target)}
    copying = subprocess.Popen([str(GAPGRID), "db", "import", str(source)], env=environment,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert copying.stderr is not None
        heard = copying.stderr.readline()  # under way: rows are going into a hidden file
        assert heard.startswith("hints: 100,000 rows so far"), heard
        assert not target.exists()
        target.write_bytes(b"another process's database")
        said = heard + copying.stderr.read()
        assert copying.wait(timeout=120) == 2, said
    finally:
        copying.kill()
    assert (f"{target} was made by another process during the copy (a server started on "
            f"it?): it is left as it is, and the copy is not kept") in said
    assert target.read_bytes() == b"another process's database"
    assert [path.name for path in folder.iterdir()] == ["target.sqlite3"]

    target.unlink()
    assert import_into(target, source).returncode == 0
    assert len(every_row(target)["hints"]) == 250_000
    assert [path.name for path in folder.iterdir()] == ["target.sqlite3"]


def test_another_program_s_file_is_no_source(tmp_path: Path) -> None:
    """A SOURCE that is another program's SQLite file is said to be one, not sent to `db
    upgrade` (which would refuse it in turn)."""
    source = tmp_path / "notes.sqlite3"
    with closing(sqlite3.connect(source)) as connection, connection:
        connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY)")
    result = import_into(tmp_path / "target.sqlite3", source)
    assert result.returncode == 2
    assert result.stderr == (f"gapgrid: the database {source} holds tables gapgrid did not "
                             f"make ('notes'): it is another program's: there is nothing of "
                             f"gapgrid's to copy\n")
    assert not (tmp_path / "target.sqlite3").exists()


def test_urls_that_name_nothing_and_newer_sources_are_one_line_each(
        make_app: Callable[..., Flask], tmp_path: Path) -> None:
    """Whichever side is wrong is named, in one line, with no password and no traceback; a
    database a newer gapgrid wrote is left to that gapgrid."""
    make_app().test_client().get("/v1/daily/montana")
    source = tmp_path / "instance" / "db.sqlite3"
    target = tmp_path / "target.sqlite3"
    for wrong_source in ("://nowhere", "postgresql://ann:hunter2@db:port/gapgrid"):
        result = import_into(target, wrong_source)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert result.stderr.startswith("gapgrid: SOURCE names no database")
        assert "hunter2" not in result.stderr and "Traceback" not in result.stderr
    result = import_into("postgresql://ann:hunter2@db:port/gapgrid", source)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("gapgrid: GAPGRID_DATABASE: the URL cannot be read")
    assert "hunter2" not in result.stderr

    made = engine.create(source)
    with engine.write(made) as connection:
        connection.execute(sqlalchemy.text("UPDATE alembic_version SET version_num = '9999'"))
    made.dispose()
    result = import_into(target, source)
    assert result.returncode == 2
    assert "was written by a newer gapgrid (schema revision 9999" in result.stderr
    assert not target.exists()


def test_a_long_copy_reports_each_batch_of_a_large_table(tmp_path: Path) -> None:
    """A table of thousands of rows is reported batch by batch, so that a copy of millions
    of rows shows it is going on, and the last report says the table is done."""
    source, target = tmp_path / "source.sqlite3", tmp_path / "target.sqlite3"
    made = engine.create(source)
    engine.upgrade(made)
    with engine.write(made) as connection:
        connection.execute(schema.hints.insert(), [
            {"puzzle_id": "2026-12-01-montana", "token_digest": f"t{index}", "moves": index,
             "asked_at": "2026-12-01T00:00:00Z"} for index in range(2 * copy.BATCH_ROWS + 5)])
    made.dispose()
    reports: list[tuple[str, int, bool]] = []
    reading, writing = copy.open_source(source), engine.create(target)
    try:
        copy.copy_database(reading, writing, report=lambda *heard: reports.append(heard))
    finally:
        reading.dispose()
        writing.dispose()
    assert [heard for heard in reports if heard[0] == "hints"] == [
        ("hints", copy.BATCH_ROWS, False), ("hints", 2 * copy.BATCH_ROWS, False),
        ("hints", 2 * copy.BATCH_ROWS + 5, False), ("hints", 2 * copy.BATCH_ROWS + 5, True)]
    assert every_row(target)["hints"] == every_row(source)["hints"]


def test_a_copy_says_how_far_it_has_come_every_100_000_rows(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The lines ``gapgrid db import`` prints for the reports of a table's batches: one each
    time it passes another 100,000 rows, whatever the batches' size, and the total."""
    report = cli_db.CopyReport()
    for rows in (*range(30_000, 250_000, 30_000), 250_000):
        report("hints", rows, False)
    report("hints", 250_000, True)
    report("players", 7, True)
    assert capsys.readouterr().err.splitlines() == [
        "hints: 120,000 rows so far...", "hints: 210,000 rows so far...",
        "hints: 250,000 rows", "players: 7 rows"]


def halve_an_index_page(database: Path, index: str) -> None:
    """Damage ``index`` as a bad disk might: its first leaf page said to hold half the cells
    it holds. SQLite still reads the file; a scan through the index misses the rest."""
    with closing(sqlite3.connect(database)) as connection, connection:
        connection.execute("pragma wal_checkpoint(truncate)")  # every page into the file
        page_size = connection.execute("pragma page_size").fetchone()[0]
        [page] = connection.execute("select pageno from dbstat where name = ? and "
                                    "pagetype = 'leaf' limit 1", (index,)).fetchone()
    with database.open("r+b") as file:
        cells_at = (page - 1) * page_size + 3  # a b-tree page's cell count, after its flags
        file.seek(cells_at)
        cells = int.from_bytes(file.read(2), "big")
        file.seek(cells_at)
        file.write((cells // 2).to_bytes(2, "big"))


def test_a_damaged_source_is_refused_and_nothing_is_copied(
        make_app: Callable[..., Flask], tmp_path: Path) -> None:
    """A source whose players' index is damaged was copied without a word (exit 0), the
    players only the damaged page pointed to left out, and their names free for anyone to
    take in the copy. Its pages are checked first now, as `db upgrade` checks them: one
    line, exit 2, no target."""
    client = make_app().test_client()
    for number in range(60):
        assert client.post("/v1/players", json={"player": f"player{number}"}).status_code == 201
    source = tmp_path / "instance" / "db.sqlite3"
    halve_an_index_page(source, "sqlite_autoindex_players_1")
    target = tmp_path / "target.sqlite3"
    result = import_into(target, source)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"gapgrid: {source} is damaged (")
    assert result.stderr.endswith("): nothing was copied; copy a backup of it instead\n")
    assert result.stderr.count("\n") == 1 and not target.exists()
