"""A PostgreSQL that is locked, stuck, read-only or out of reach costs a request bounded
time and a clear answer (deploy.md, "PostgreSQL"): a 503 problem within the lock wait,
one line at start, never a hang.

The server is the real command on a free port, the database a real PostgreSQL
started by the test session (:mod:`tests.postgres`); the host that never
answers is a real socket that takes connections and says nothing.
"""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import sqlalchemy

from gapgrid.api.db import engine
from tests.api.live import GAPGRID, LiveServer, request
from tests.postgres import Cluster

pytestmark = pytest.mark.slow


def test_every_connection_has_the_bounds_and_a_copy_of_whole_tables_lifts_them(
        postgres_url: str) -> None:
    """A request's statements wait at most LOCK_WAIT_SECONDS for a lock and run at most
    STATEMENT_SECONDS; a copy (``db import``) has neither bound, nor has a transaction
    that lifts them (a migration, ``db prune``)."""
    bounded = engine.create(postgres_url)
    unbounded = engine.create(postgres_url, bounded=False)
    try:
        with engine.read(bounded) as connection:
            assert connection.exec_driver_sql("SHOW lock_timeout").scalar_one() == (
                f"{engine.LOCK_WAIT_SECONDS}s")
            assert connection.exec_driver_sql("SHOW statement_timeout").scalar_one() == (
                f"{engine.STATEMENT_SECONDS}s")
        with engine.read(unbounded) as connection:
            assert connection.exec_driver_sql("SHOW lock_timeout").scalar_one() == "0"
            assert connection.exec_driver_sql("SHOW statement_timeout").scalar_one() == "0"
        # a migration or a prune lifts them for its own transaction, and only for it
        with engine.write(bounded) as connection:
            engine.unbounded(connection)
            assert connection.exec_driver_sql("SHOW lock_timeout").scalar_one() == "0"
            assert connection.exec_driver_sql("SHOW statement_timeout").scalar_one() == "0"
        with engine.read(bounded) as connection:
            assert connection.exec_driver_sql("SHOW statement_timeout").scalar_one() == (
                f"{engine.STATEMENT_SECONDS}s")
    finally:
        bounded.dispose()
        unbounded.dispose()


def _error_of(database: sqlalchemy.Engine, *statements: str) -> BaseException:
    """What running ``statements`` in one transaction on ``database`` raises (it must)."""
    with pytest.raises(sqlalchemy.exc.SQLAlchemyError) as raised, \
            database.connect() as connection, connection.begin():
        for statement in statements:
            connection.exec_driver_sql(statement)
    return raised.value


def test_a_statement_past_its_time_a_lock_not_granted_and_a_read_only_database_are_outages(
        postgres_url: str) -> None:
    """Each is a 503 "try again later", not a 500 bug: a statement cut off by its time, a
    lock another transaction holds past the wait, a database made read-only (a standby)."""
    served = engine.create(postgres_url)
    try:
        slow = _error_of(served, "SET LOCAL statement_timeout = '50ms'", "SELECT pg_sleep(2)")
        assert engine.is_outage(slow)
        with served.connect() as connection:
            connection.exec_driver_sql("CREATE TABLE held (n integer)")
            connection.commit()
        with served.connect() as holder, holder.begin():
            holder.exec_driver_sql("LOCK TABLE held IN ACCESS EXCLUSIVE MODE")
            locked = _error_of(served, "SET LOCAL lock_timeout = '50ms'", "SELECT * FROM held")
        assert engine.is_outage(locked)
        read_only = _error_of(served, "SET TRANSACTION READ ONLY", "INSERT INTO held VALUES (1)")
        assert engine.is_outage(read_only)
        # a statement cut off may be a query a bug made slow: its log line names it
        assert engine.statement_hint(slow) == " (statement: 'SELECT pg_sleep(2)')"
        assert engine.statement_hint(read_only) == ""
    finally:
        served.dispose()


def test_a_locked_table_makes_the_health_check_a_503_within_the_lock_wait(
        postgres_url: str, tmp_path: Path) -> None:
    """While another transaction holds the puzzles table, the health check answers 503 with
    Retry-After once the lock wait is over, its reason logged in one line; not 200 once the
    lock goes, however long that takes."""
    log = tmp_path / "server.log"
    server = LiveServer(tmp_path / "instance", log=log, environment={
        "GAPGRID_DATABASE": postgres_url, "GAPGRID_CERTIFY_SECONDS": "0"}).start()
    try:
        assert request("GET", server.url + "/v1/health")[0] == 200
        with psycopg.connect(postgres_url) as holder:
            holder.execute("LOCK TABLE puzzles IN ACCESS EXCLUSIVE MODE")
            started = time.monotonic()
            status, headers, problem = request("GET", server.url + "/v1/health")
            waited = time.monotonic() - started
            holder.rollback()
        assert status == 503, problem
        assert headers["Content-Type"] == "application/problem+json"
        assert int(headers["Retry-After"]) > 0
        assert engine.LOCK_WAIT_SECONDS - 1 < waited < engine.LOCK_WAIT_SECONDS + 10
        assert request("GET", server.url + "/v1/health")[0] == 200
    finally:
        server.stop()
    logged = log.read_text()
    assert "health check: the database does not answer: " in logged
    assert "lock timeout" in logged
    assert "Traceback" not in logged  # one line, not one for each frame


@pytest.fixture
def silent_host() -> Iterator[int]:
    """A port whose listener takes every connection and never says a word: a host that
    hangs. Its port."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    taken: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                taken.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        stop.set()
        thread.join()
        for connection in taken:
            connection.close()
        listener.close()


@pytest.mark.parametrize("command", [["db", "upgrade"], ["serve", "--port", "0"]])
def test_a_database_host_that_never_answers_is_one_line_within_the_connect_timeout(
        silent_host: int, tmp_path: Path, command: list[str]) -> None:
    """``serve`` and ``db upgrade`` give up after CONNECT_SECONDS, exit 2, one line; they
    used to wait for as long as the host kept silent."""
    url = f"postgresql://gapgrid:pw@127.0.0.1:{silent_host}/gapgrid"
    started = time.monotonic()
    finished = subprocess.run(
        [str(GAPGRID), *command], capture_output=True, text=True,
        timeout=engine.CONNECT_SECONDS + 50, cwd=tmp_path,
        env={"GAPGRID_DATABASE": url, "GAPGRID_SECRET_KEY": "a-test-secret-of-enough-bytes",
             "PATH": "/usr/bin:/bin"})
    took = time.monotonic() - started
    assert finished.returncode == 2, finished.stderr
    assert f"127.0.0.1:{silent_host}" in finished.stderr
    assert "timeout" in finished.stderr.lower()
    assert finished.stderr.count("\n") == 1, finished.stderr
    assert took < engine.CONNECT_SECONDS + 20


def test_a_database_gapgrid_cannot_write_is_refused_at_start(
        postgres_cluster: Cluster, postgres_url: str, tmp_path: Path) -> None:
    """A user granted only SELECT, or a read-only database (a standby), used to start and
    answer every write with a 500; the start now refuses them in one line, exit 2."""
    environment = {"GAPGRID_SECRET_KEY": "a-test-secret-of-enough-bytes",
                   "PATH": "/usr/bin:/bin"}
    ready = subprocess.run([str(GAPGRID), "db", "upgrade"], capture_output=True, text=True,
                           timeout=60, env={**environment, "GAPGRID_DATABASE": postgres_url})
    assert ready.returncode == 0, ready.stderr
    name = postgres_url.rsplit("/", 1)[1]
    reader = f"reader_{name}"
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {reader} LOGIN")
        admin.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {reader}")
    read_only_user = postgres_url.replace("gapgrid@", f"{reader}@")
    refused = subprocess.run([str(GAPGRID), "serve", "--port", "0"], capture_output=True,
                             text=True, timeout=60, cwd=tmp_path,
                             env={**environment, "GAPGRID_DATABASE": read_only_user})
    assert refused.returncode == 2, refused.stderr
    assert "the database user may not write gapgrid's tables (it lacks INSERT on" in (
        refused.stderr)
    assert refused.stderr.count("\n") == 1, refused.stderr

    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(f"ALTER DATABASE {name} SET default_transaction_read_only = on")
    standby = subprocess.run([str(GAPGRID), "serve", "--port", "0"], capture_output=True,
                             text=True, timeout=60, cwd=tmp_path,
                             env={**environment, "GAPGRID_DATABASE": postgres_url})
    assert standby.returncode == 2, standby.stderr
    assert "the database is read-only" in standby.stderr


def test_the_banner_says_a_postgresql_database_is_new_to_gapgrid_as_typed(
        postgres_url: str, tmp_path: Path) -> None:
    """As on SQLite, the first start on an empty PostgreSQL database says it is new (a
    mistyped database name would be), the URL as the operator typed it."""
    log = tmp_path / "server.log"
    typed = postgres_url.replace("postgresql://", "postgres://")
    server = LiveServer(tmp_path / "instance", log=log, environment={
        "GAPGRID_DATABASE": typed, "GAPGRID_CERTIFY_SECONDS": "0"})
    server.start()
    server.stop()
    assert f"(a database new to gapgrid {typed}); " in log.read_text()
    server.start()
    server.stop()
    assert f"(database {typed}); " in log.read_text()  # the second start's
