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

from tests.api.live import LiveServer, request
from tests.postgres import Cluster

pytestmark = pytest.mark.slow


def test_a_stopped_database_is_a_503_and_after_its_restart_every_request_succeeds(
        postgres_cluster: Cluster, postgres_url: str, tmp_path: Path) -> None:
    day = datetime.datetime.now(datetime.UTC).date().isoformat()
    board = f"/v1/puzzles/{day}/montana/leaderboard"
    server = LiveServer(tmp_path / "instance", log=tmp_path / "server.log", environment={
        "GAPGRID_DATABASE": postgres_url, "GAPGRID_CERTIFY_SECONDS": "0",
        "GAPGRID_LIMIT_READS": "off"}).start()
    try:
        # several requests at once, so that the pool holds several connections
        with ThreadPoolExecutor(max_workers=8) as pool:
            before = list(pool.map(lambda _: request("GET", server.url + board)[0], range(16)))
        assert before == [200] * 16

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

        after = [request("GET", server.url + board) for _ in range(12)]
        assert [status for status, _, _ in after] == [200] * 12, after
    finally:
        server.stop()
