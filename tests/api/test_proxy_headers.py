"""The trusted proxy's forwarding headers, through a real ``gapgrid serve``: the client
they name is the one the rate limits count, nobody else's are believed, and a malformed one
is a problem document with its log line."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.live import LiveServer, request

READS = "3 per minute"


@pytest.fixture(scope="module")
def behind_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server whose proxy is this machine (the tests' requests come from 127.0.0.1)."""
    folder = tmp_path_factory.mktemp("proxy")
    server = LiveServer(folder / "instance", log=folder / "server.log", environment={
        "GAPGRID_TRUSTED_PROXY": "127.0.0.1", "GAPGRID_LIMIT_READS": READS}).start()
    yield server
    server.stop()


@pytest.fixture(scope="module", params=["", "192.0.2.1"], ids=["no proxy", "another proxy"])
def not_behind(request: pytest.FixtureRequest,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server that trusts no proxy, then one that trusts a proxy at another address than
    the tests' requests come from."""
    folder = tmp_path_factory.mktemp("direct")
    environment = {"GAPGRID_LIMIT_READS": READS}
    if request.param:
        environment["GAPGRID_TRUSTED_PROXY"] = request.param
    server = LiveServer(folder / "instance", environment=environment).start()
    yield server
    server.stop()


def reads(server: LiveServer, client: str, count: int) -> list[int]:
    """The statuses of ``count`` reads said by the proxy to come from ``client``."""
    return [request("GET", f"{server.url}/v1/variants/gaps",
                    headers={"X-Forwarded-For": f"203.0.113.250, {client}"})[0]
            for _ in range(count)]


def test_the_proxy_s_client_is_the_one_the_limits_count(behind_proxy: LiveServer) -> None:
    """Each client the proxy names has its own allowance (the rightmost address: the one
    the proxy saw; the others are the client's to write)."""
    assert reads(behind_proxy, "198.51.100.1", 4) == [200, 200, 200, 429]
    assert reads(behind_proxy, "198.51.100.2", 1) == [200]


CLIENTS = ("198.51.100.11", "198.51.100.12", "198.51.100.13", "198.51.100.14")


def test_a_header_not_from_the_trusted_proxy_is_not_believed(not_behind: LiveServer,
                                                             behind_proxy: LiveServer) -> None:
    """A client cannot buy a fresh allowance by naming another address each time: a server
    it reaches directly, trusting no proxy or a proxy elsewhere, counts it once (the
    allowance runs out within four reads, the start-up check's included), where the one
    behind the proxy counts four clients."""
    assert 429 in [status for client in CLIENTS for status in reads(not_behind, client, 1)]
    assert [status for client in CLIENTS for status in reads(behind_proxy, client, 1)] == [
        200, 200, 200, 200]


@pytest.mark.parametrize(("header", "value", "slug"), [
    ("X-Forwarded-For", 'garbage"', "montana"),
    ("X-Forwarded-Proto", "ftp", "spaces"),
])
def test_a_malformed_header_from_the_proxy_is_a_problem_and_logged(
        behind_proxy: LiveServer, header: str, value: str, slug: str) -> None:
    """A 400 problem document naming the header, with its access-log line (it was
    waitress's plain-text page, and no line)."""
    status, headers, body = request("GET", f"{behind_proxy.url}/v1/variants/{slug}",
                                    headers={header: value})
    assert status == 400
    assert headers["Content-Type"] == "application/problem+json"
    assert body["status"] == 400 and header in body["detail"]
    assert behind_proxy.log is not None
    assert logged(Path(behind_proxy.log), f"GET /v1/variants/{slug} 400")


def logged(log: Path, text: str) -> bool:
    """Whether ``text`` comes into the server's log within 5 s: a request's line is written
    once its answer has gone out, so it may follow the answer by a moment."""
    deadline = time.monotonic() + 5
    while text not in log.read_text():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
