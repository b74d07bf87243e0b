"""A PostgreSQL restart costs a running server no request, and while the database is down
requests get a 503 problem (deploy.md, "PostgreSQL").

The server is the real command on a free port, the database a real
PostgreSQL started by the test session (:mod:`tests.postgres`), stopped and
started again under the server with ``pg_ctl``.
"""

from __future__ import annotations

import datetime
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import sqlalchemy

from gapgrid.api.db import engine
from tests.api.live import LiveServer, free_port, request
from tests.postgres import Cluster

pytestmark = pytest.mark.slow


def _fill_the_pool(server: LiveServer, path: str) -> None:
    """Requests at once, so that the server's pool holds several connections."""
    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(lambda _: request("GET", server.url + path)[0], range(16)))
    assert statuses == [200] * 16


def test_after_a_database_restart_every_request_succeeds_and_meanwhile_each_is_a_503(
        postgres_cluster: Cluster, postgres_url: str, tmp_path: Path) -> None:
    """A restart with no request meanwhile: the pooled connections the database closed are
    replaced, and no request fails. A request while it is down: a 503 problem, its reason
    logged in one line."""
    day = datetime.datetime.now(datetime.UTC).date().isoformat()
    board = f"/v1/puzzles/{day}/montana/leaderboard"
    server = LiveServer(tmp_path / "instance", log=tmp_path / "server.log", environment={
        "GAPGRID_DATABASE": postgres_url, "GAPGRID_CERTIFY_SECONDS": "0",
        "GAPGRID_LIMIT_READS": "off"}).start()
    try:
        _fill_the_pool(server, board)
        postgres_cluster.pause()
        postgres_cluster.resume()
        # nothing met the closed connections while the database was down (such a request
        # would make the pool drop them all): each is found at its checkout
        after = [request("GET", server.url + board) for _ in range(12)]
        assert [status for status, _, _ in after] == [200] * 12, after

        _fill_the_pool(server, board)
        postgres_cluster.pause()
        try:
            status, headers, problem = request("GET", server.url + board)
        finally:
            postgres_cluster.resume()
        assert status == 503
        assert headers["Content-Type"] == "application/problem+json"
        assert int(headers["Retry-After"]) > 0
        assert "database" in problem["detail"]
        logged = (tmp_path / "server.log").read_text()
        assert f"the database does not answer on GET {board}" in logged
        assert "[SQL:" not in logged  # the reason alone: no statement, no parameters
        assert request("GET", server.url + board)[0] == 200
    finally:
        server.stop()


def _error_of(database: sqlalchemy.Engine, statement: str) -> BaseException:
    """What running ``statement`` on ``database`` raises (it must raise)."""
    with pytest.raises(sqlalchemy.exc.SQLAlchemyError) as raised, \
            database.connect() as connection:
        connection.exec_driver_sql(statement)
    return raised.value


def test_only_a_database_that_cannot_answer_is_an_outage(tmp_path: Path,
                                                         postgres_url: str) -> None:
    """A 503 "try again later" is for a database that is down, locked past the wait or
    out of reach; a statement it refuses (no such table, bad syntax) is a bug, a 500 with
    its traceback logged."""
    lite = sqlalchemy.create_engine(f"sqlite:///{tmp_path / 'lite.sqlite3'}",
                                    connect_args={"timeout": 0})
    assert not engine.is_outage(_error_of(lite, "SELECT * FROM no_such_table"))
    with lite.connect() as holder:
        holder.exec_driver_sql("BEGIN IMMEDIATE")  # the write lock, held
        assert engine.is_outage(_error_of(lite, "BEGIN IMMEDIATE"))
        holder.exec_driver_sql("ROLLBACK")

    served = engine.create(postgres_url)
    assert not engine.is_outage(_error_of(served, "SELEKT 1"))
    with served.connect() as victim:
        pid = victim.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
        with served.connect() as admin:
            admin.exec_driver_sql(f"SELECT pg_terminate_backend({pid})")
        with pytest.raises(sqlalchemy.exc.DBAPIError) as terminated:
            victim.exec_driver_sql("SELECT 1")
        assert engine.is_outage(terminated.value)
    served.dispose()

    nowhere = engine.create(f"postgresql://gapgrid@127.0.0.1:{free_port()}/gapgrid")
    assert engine.is_outage(_error_of(nowhere, "SELECT 1"))
