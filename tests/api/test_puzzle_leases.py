"""A missing puzzle is made by one request, within its budget, while the others wait or are
told to come back: three real server processes on one database, many clients at once."""

from __future__ import annotations

import concurrent.futures
import datetime
import json
import os
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from tests.api import endless_rovers
from tests.api.live import LiveServer, request

VARIANT = endless_rovers.SLUG
"""A variant (a third-party plugin) none of whose deals is ever won, nor can be proven lost
within seconds: the request that makes its puzzle spends its whole budget whatever the
solver's strength, so the others certainly overlap it. (A built-in variant cannot serve:
the solver wins every one of them within a few seconds.)"""

BUDGET = 6
"""GAPGRID_CERTIFY_SECONDS for these servers."""

WAIT = 2.0
"""How long a request waits for a puzzle another one is making (PuzzleService's default)."""


def install_plugin(folder: Path) -> dict[str, str]:
    """Install :mod:`tests.api.endless_rovers` in ``folder`` as a user's plugin is found: the
    module beside a ``.dist-info`` declaring it in the ``gapgrid`` entry-point group.
    Returns the environment that puts it on a server's path."""
    folder.mkdir()
    shutil.copy(Path(endless_rovers.__file__), folder / "gapgrid_endless_rovers.py")
    info = folder / "gapgrid_endless_rovers-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gapgrid-endless-rovers\n"
                                   "Version: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[gapgrid]\nendless-rovers = gapgrid_endless_rovers\n",
                                           encoding="utf-8")
    path = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))
    return {"PYTHONPATH": path}


def timed_get(url: str) -> tuple[int, dict[str, str], Any, float]:
    started = time.monotonic()
    status, headers, body = request("GET", url)
    return status, headers, body, time.monotonic() - started


@pytest.mark.slow
def test_one_request_makes_the_puzzle_and_the_others_wait_or_come_back(tmp_path: Path) -> None:
    """24 clients ask three servers at once for today's puzzle: one request searches (for
    its budget), the others answer within their wait, as 503 with Retry-After or with the
    puzzle; every puzzle served is the same one, one row is stored, and the lease is gone."""
    environment = {**install_plugin(tmp_path / "plugins"),
                   "GAPGRID_CERTIFY_SECONDS": str(BUDGET)}
    servers = [LiveServer(tmp_path / "instance", environment=environment).start()
               for _ in range(3)]
    try:
        urls = [f"{server.url}/v1/daily/{VARIANT}" for server in servers]
        with concurrent.futures.ThreadPoolExecutor(max_workers=24) as pool:
            first_wave = list(pool.map(timed_get, [urls[index % 3] for index in range(24)]))
        slow = [answer for answer in first_wave if answer[3] > WAIT + 2.5]
        assert len(slow) == 1, [(status, round(seconds, 2)) for status, *_, seconds in
                                first_wave]
        assert slow[0][0] == 200 and slow[0][3] >= BUDGET - 0.5  # the one that searched
        busy = [answer for answer in first_wave if answer[0] == 503]
        assert busy, "no request overlapped the search"
        for _, headers, body, _ in busy:
            assert headers["Content-Type"] == "application/problem+json"
            assert int(headers["Retry-After"]) >= 1
            assert body["status"] == 503 and "being prepared" in body["detail"]
        assert all(status in (200, 503) for status, *_ in first_wave)
        with concurrent.futures.ThreadPoolExecutor(max_workers=24) as pool:
            second_wave = list(pool.map(timed_get, [urls[index % 3] for index in range(24)]))
        assert all(status == 200 for status, *_ in second_wave)
        served = {json.dumps(body, sort_keys=True)
                  for status, _, body, _ in first_wave + second_wave if status == 200}
        assert len(served) == 1
        puzzle = json.loads(served.pop())
        assert puzzle["certified"] is False  # no deal of the variant is ever won
    finally:
        for server in servers:
            server.stop()
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    with sqlite3.connect(tmp_path / "instance" / "gapgrid.sqlite3") as connection:
        rows = connection.execute("SELECT body FROM puzzles WHERE date = ? AND slug = ?",
                                  (today, VARIANT)).fetchall()
        leases = connection.execute("SELECT COUNT(*) FROM leases").fetchone()[0]
        tried = connection.execute("SELECT json_extract(body, '$.tried') FROM "
                                   "certificates").fetchall()
    assert len(rows) == 1 and json.loads(rows[0][0])["deal"] == puzzle["deal"]
    assert leases == 0 and len(tried) == 1
    verdicts = [candidate["verdict"] for candidate in json.loads(tried[0][0])]
    assert verdicts and set(verdicts) == {"unknown"}  # searched until the budget ran out
