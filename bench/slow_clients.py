"""Slow-client benchmark: other requests' latency while hundreds of sockets trickle headers.

Starts ``gapgrid serve`` on a free loopback port with a fresh instance folder
(or, with ``--baseline``, the app under waitress with the settings
``gapgrid serve`` used before it was hardened: waitress's defaults). Then
``--slow`` sockets each send a request line and then one header byte per
second, never finishing; whenever the server closes one, it is opened again
at once, so the attack never lets up. Meanwhile one client sends ``GET
/v1/variants/montana`` on a new connection every 20 ms and measures each
answer (a request not answered within ``--timeout`` seconds counts as
failed). Reports the latency median, p99 and maximum, failures, and how many
slow sockets the server closed. Run by hand; record the figures in
bench/README.md.

Usage: python bench/slow_clients.py [--slow 300] [--seconds 30] [--baseline]
"""

from __future__ import annotations

import argparse
import http.client
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

BASELINE = """
import waitress
from gapgrid.api.app import create_app
waitress.serve(create_app(), host="127.0.0.1", port={port}, threads=8, ident="gapgrid",
               clear_untrusted_proxy_headers=True)
"""
"""What `gapgrid serve` ran before: waitress's defaults (100 connections, an idle
timeout restarted by every byte, 1 GiB bodies)."""

REQUEST_HEAD = b"GET /v1/variants/montana HTTP/1.1\r\nHost: bench\r\nX-Slow: "


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(baseline: bool) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    instance = tempfile.mkdtemp(prefix="gapgrid-slow-")
    env = {**os.environ, "GAPGRID_INSTANCE": instance, "GAPGRID_SECRET_KEY": "slow-bench-secret",
           # one client measuring 50 requests a second is not what the limits are for
           "GAPGRID_LIMIT_READS": "off"}
    if baseline:
        command = [sys.executable, "-c", BASELINE.format(port=port)]
    else:
        command = [str(Path(sys.executable).with_name("gapgrid")), "serve", "--port", str(port)]
    process = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/health", timeout=1).read()
            return process, port
        except OSError:
            if baseline:  # the old app has no health check
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/variants", timeout=1)
                    return process, port
                except OSError:
                    pass
            time.sleep(0.1)
    process.terminate()
    raise SystemExit("the server did not start")


class Trickler(threading.Thread):
    """``count`` sockets sending one header byte a second each, reopened when closed."""

    def __init__(self, port: int, count: int) -> None:
        super().__init__(daemon=True)
        self.port, self.count = port, count
        self.stop = threading.Event()
        self.closed_by_server = 0
        self.failed_connects = 0
        self.sockets: list[socket.socket] = []

    def connect(self) -> socket.socket | None:
        try:
            connection = socket.create_connection(("127.0.0.1", self.port), timeout=2)
            connection.sendall(REQUEST_HEAD)
            connection.setblocking(False)
            return connection
        except OSError:
            self.failed_connects += 1
            return None

    def run(self) -> None:
        for _ in range(self.count):
            connection = self.connect()
            if connection is not None:
                self.sockets.append(connection)
        while not self.stop.is_set():
            tick = time.monotonic()
            for index, connection in enumerate(list(self.sockets)):
                try:
                    connection.send(b"a")
                    if connection.recv(4096) == b"":
                        raise ConnectionResetError
                except BlockingIOError:
                    continue
                except OSError:
                    self.closed_by_server += 1
                    connection.close()
                    replacement = self.connect()
                    if replacement is not None:
                        self.sockets[index] = replacement
            while len(self.sockets) < self.count and not self.stop.is_set():
                connection = self.connect()
                if connection is None:
                    break
                self.sockets.append(connection)
            self.stop.wait(max(0.0, 1.0 - (time.monotonic() - tick)))
        for connection in self.sockets:
            connection.close()


def measure(port: int, seconds: float, timeout: float) -> tuple[list[float], int]:
    """One new connection and one GET every 20 ms; latencies in ms, and failures."""
    latencies, failures = [], 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        began = time.monotonic()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
            connection.request("GET", "/v1/variants/montana")
            response = connection.getresponse()
            response.read()
            connection.close()
            if response.status != 200:
                raise OSError(response.status)
            latencies.append((time.monotonic() - began) * 1000)
        except OSError:
            failures += 1
        time.sleep(max(0.0, 0.02 - (time.monotonic() - began)))
    return latencies, failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slow", type=int, default=300, help="slow sockets")
    parser.add_argument("--seconds", type=float, default=30, help="how long to measure")
    parser.add_argument("--timeout", type=float, default=5,
                        help="seconds after which a request counts as failed")
    parser.add_argument("--baseline", action="store_true",
                        help="waitress's defaults, as gapgrid serve had them before")
    args = parser.parse_args()
    process, port = start_server(args.baseline)
    trickler = Trickler(port, args.slow)
    try:
        trickler.start()
        time.sleep(3)  # every slow socket open and trickling
        latencies, failures = measure(port, args.seconds, args.timeout)
    finally:
        trickler.stop.set()
        trickler.join()
        process.terminate()
        process.wait()
    label = "waitress defaults (before)" if args.baseline else "gapgrid serve"
    print(f"{label}: {args.slow} slow sockets, {args.seconds:.0f} s of GET "
          f"/v1/variants/montana every 20 ms")
    if latencies:
        ordered = sorted(latencies)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        print(f"answered: {len(latencies)}, failed (no answer within {args.timeout:g} s): "
              f"{failures}")
        print(f"latency: median {statistics.median(ordered):.1f} ms, p99 {p99:.1f} ms, "
              f"max {ordered[-1]:.1f} ms")
    else:
        print(f"answered: 0, failed: {failures}")
    print(f"slow sockets closed by the server: {trickler.closed_by_server}; "
          f"connections refused or timed out: {trickler.failed_connects}")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"{platform.python_implementation()} {platform.python_version()}")


if __name__ == "__main__":
    main()
