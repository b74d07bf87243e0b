"""A missing puzzle is made by one request, within its budget, while the others wait or are
told to come back: three real server processes on one database, many clients at once."""

from __future__ import annotations

import concurrent.futures
import datetime
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from tests.api.live import LiveServer, request

VARIANT = "rectangular-rovers"
"""A variant whose puzzles the solver never wins within a few seconds: the request that
makes one always spends its whole budget, so the others certainly overlap it."""

BUDGET = 6
"""GAPGRID_CERTIFY_SECONDS for these servers."""

WAIT = 2.0
"""How long a request waits for a puzzle another one is making (PuzzleService's default)."""


def timed_get(url: str) -> tuple[int, dict[str, str], Any, float]:
    started = time.monotonic()
    status, headers, body = request("GET", url)
    return status, headers, body, time.monotonic() - started


@pytest.mark.slow
def test_one_request_makes_the_puzzle_and_the_others_wait_or_come_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """24 clients ask three servers at once for today's puzzle: one request searches (for
    its budget), the others answer within their wait, as 503 with Retry-After or with the
    puzzle; every puzzle served is the same one, one row is stored, and the lease is gone."""
    monkeypatch.setenv("GAPGRID_CERTIFY_SECONDS", str(BUDGET))
    servers = [LiveServer(tmp_path / "instance").start() for _ in range(3)]
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
        assert puzzle["certified"] is False  # the solver wins no Rovers deal this quickly
    finally:
        for server in servers:
            server.stop()
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    with sqlite3.connect(tmp_path / "instance" / "gapgrid.sqlite3") as connection:
        rows = connection.execute("SELECT body FROM puzzles WHERE date = ? AND slug = ?",
                                  (today, VARIANT)).fetchall()
        leases = connection.execute("SELECT COUNT(*) FROM leases").fetchone()[0]
        tried = connection.execute("SELECT json_array_length(body, '$.tried') FROM "
                                   "certificates").fetchall()
    assert len(rows) == 1 and json.loads(rows[0][0])["deal"] == puzzle["deal"]
    assert leases == 0 and len(tried) == 1 and tried[0][0] >= 1
