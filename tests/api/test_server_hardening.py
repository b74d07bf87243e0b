"""Attacks on the real server (`gapgrid serve`, waitress), each kept as a test: slow clients,
huge bodies and headers, waitress's own plain-text errors, and no access log."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.live import LiveServer, request

pytestmark = pytest.mark.slow


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    """`gapgrid serve` with its standard error kept in ``server.log``."""
    live = LiveServer(tmp_path / "instance", log=tmp_path / "server.log").start()
    yield live
    live.stop()


def _address(server: LiveServer) -> tuple[str, int]:
    host, port = server.url.removeprefix("http://").split(":")
    return host, int(port)


def raw_exchange(server: LiveServer, data: bytes, timeout: float = 5
                 ) -> tuple[int, dict[str, str], Any, float]:
    """Send ``data`` on a new connection and read the answer until the server closes it;
    status, headers, JSON body, and the seconds it took."""
    began = time.monotonic()
    with socket.create_connection(_address(server), timeout=timeout) as connection:
        received = b""
        try:
            connection.sendall(data)
            while b"\r\n\r\n" not in received or not _complete(received):
                chunk = connection.recv(65536)
                if not chunk:
                    break
                received += chunk
        except ConnectionResetError:  # the server answered and closed before reading it all
            pass
    head, _, body = received.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), headers, json.loads(body), time.monotonic() - began


def _complete(received: bytes) -> bool:
    head, _, body = received.partition(b"\r\n\r\n")
    found = re.search(rb"Content-Length: (\d+)", head)
    return found is not None and len(body) >= int(found.group(1))


def _is_problem(status: int, headers: dict[str, str], body: Any, expected: int) -> None:
    assert status == expected, body
    assert headers["Content-Type"] == "application/problem+json"
    assert body["status"] == expected and body["title"] and body["detail"]


def test_a_huge_body_is_refused_before_it_is_read(server: LiveServer) -> None:
    """A request announcing 1 GiB is answered 413 (a problem document) at once, from its
    headers alone: waitress no longer spools it to disk first."""
    status, headers, body, seconds = raw_exchange(server, (
        b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 1073741824\r\n\r\n{"))
    _is_problem(status, headers, body, 413)
    assert "larger than 262144 bytes" in body["detail"] and seconds < 2
    # as the app's own problems: the request named, and a page on another origin may read it
    assert body["instance"] == "/v1/verify" and headers["Access-Control-Allow-Origin"] == "*"


def test_a_chunked_body_over_the_limit_is_a_413_problem(server: LiveServer) -> None:
    """A chunked body is cut off as soon as it passes the limit."""
    chunk = b"40000\r\n" + b"[" * 0x40000 + b"\r\n"
    status, headers, body, _ = raw_exchange(server, (
        b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n" + chunk * 2 + b"0\r\n\r\n"))
    _is_problem(status, headers, body, 413)


def test_oversized_headers_are_a_431_problem(server: LiveServer) -> None:
    """Headers above GAPGRID_MAX_HEADER (16 KiB) are refused with a 431 problem (waitress's
    default let 256 KiB through, and answered in plain text above it)."""
    status, headers, body, _ = raw_exchange(server, (
        b"GET /v1/variants HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"a" * 20_000 +
        b"\r\n\r\n"))
    _is_problem(status, headers, body, 431)
    assert "16384 bytes" in body["detail"]
    assert "instance" not in body  # waitress parsed a stand-in request ("GET /"), not this one


@pytest.mark.parametrize("data", [
    b"GET /v1/variants HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n",
    b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: lots\r\n\r\n",
    b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
])
def test_requests_waitress_cannot_parse_get_problem_documents(server: LiveServer,
                                                              data: bytes) -> None:
    """Waitress's own 400 and 501 answers are problem documents, not text/plain."""
    status, headers, body, _ = raw_exchange(server, data)
    assert status in (400, 501)
    _is_problem(status, headers, body, status)


def _trickle(server: LiveServer, sockets: list[socket.socket], stop: threading.Event,
             closed: list[float], began: float) -> None:
    """Keep every socket sending one header byte every half second, never finishing;
    note when the server closes each."""
    for connection in sockets:
        connection.sendall(b"GET /v1/variants HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    alive = list(sockets)
    while alive and not stop.is_set():
        for connection in list(alive):
            try:
                connection.sendall(b"a")
                connection.setblocking(False)
                if connection.recv(1024) == b"":
                    raise ConnectionResetError
            except BlockingIOError:
                pass
            except OSError:
                closed.append(time.monotonic() - began)
                alive.remove(connection)
            finally:
                connection.setblocking(True)
        stop.wait(0.5)


def test_slow_clients_neither_fill_the_server_nor_stay(tmp_path: Path) -> None:
    """150 connections trickling one header byte at a time (more than waitress's default
    limit of 100, whose idle timeout restarted with every byte) leave other requests
    answered at once, and each is closed once its request has taken longer than
    GAPGRID_REQUEST_TIMEOUT."""
    live = LiveServer(tmp_path / "instance", environment={
        "GAPGRID_REQUEST_TIMEOUT": "3", "GAPGRID_IDLE_TIMEOUT": "6"}).start()
    sockets = [socket.create_connection(_address(live), timeout=5) for _ in range(150)]
    stop, closed, began = threading.Event(), [], time.monotonic()
    trickler = threading.Thread(target=_trickle, args=(live, sockets, stop, closed, began))
    trickler.start()
    try:
        time.sleep(1)
        latencies = []
        for _ in range(20):
            sent = time.monotonic()
            status, _, _ = request("GET", f"{live.url}/v1/variants/montana")
            latencies.append(time.monotonic() - sent)
            assert status == 200
        assert max(latencies) < 1.0, latencies
        deadline = time.monotonic() + 15
        while len(closed) < len(sockets) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(closed) == len(sockets), f"{len(closed)} of {len(sockets)} closed"
        assert min(closed) > 2.5 and max(closed) < 3 + 1 + 2, (min(closed), max(closed))
    finally:
        stop.set()
        trickler.join()
        for connection in sockets:
            connection.close()
        live.stop()


def test_one_access_log_line_per_request(server: LiveServer, tmp_path: Path) -> None:
    """Every request, waitress's own refusals included, is one line: method, path (control
    characters escaped, never a line of its own), status, milliseconds."""
    request("GET", f"{server.url}/v1/variants/montana")
    request("GET", f"{server.url}/v1/no%0Awhere")
    raw_exchange(server, b"GET /v1/variants HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n")
    request("GET", f"{server.url}/v1/health")
    time.sleep(0.3)
    lines = [line for line in (tmp_path / "server.log").read_text().splitlines()
             if line.startswith("gapgrid: access: ")]
    pattern = r"gapgrid: access: (\S+) (\S+) (\d{3}) (\d+\.\d) ms"
    found = [re.fullmatch(pattern, line) for line in lines]
    assert all(found), lines
    seen = [(match.group(1), match.group(2), match.group(3)) for match in found if match]
    assert ("GET", "/v1/variants/montana", "200") in seen
    assert ("GET", "/v1/no%0Awhere", "404") in seen
    assert any(status == "400" for _, _, status in seen)
    assert seen[-1] == ("GET", "/v1/health", "200")


def test_the_real_server_answers_options_cors_and_health(server: LiveServer) -> None:
    """Through waitress too: OPTIONS in JSON, CORS headers, and the health check."""
    status, headers, body = request("OPTIONS", f"{server.url}/v1/verify",
                                    headers={"Origin": "https://any.example"})
    assert status == 200 and body == {"allow": ["OPTIONS", "POST"]}
    assert headers["Access-Control-Allow-Origin"] == "*"
    status, _, body = request("GET", f"{server.url}/v1/health")
    assert status == 200 and body["database"] == "reachable"
