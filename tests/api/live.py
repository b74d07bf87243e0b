"""Running the real server (``gapgrid serve``, waitress) on a free loopback port, for tests."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

GAPGRID = Path(sys.executable).with_name("gapgrid")


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_answering(url: str, process: subprocess.Popen[bytes], name: str) -> None:
    """Wait (20 s at most) until the server ``process`` started answers at ``url``."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            request("GET", f"{url}/v1/variants/montana")
            return
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited at start-up") from None
            time.sleep(0.1)
    raise RuntimeError(f"{name} did not answer within 20 s")


class LiveServer:
    """``gapgrid serve`` in a subprocess, on an instance folder that outlives restarts."""

    def __init__(self, instance: Path, secret: str = "live-test-secret", *,
                 environment: dict[str, str] | None = None, log: Path | None = None) -> None:
        self.instance = instance
        self.secret = secret
        self.environment = dict(environment or {})
        """More settings (``GAPGRID_...``) for the server."""
        self.log = log
        """Where its standard error (banner, access log) goes; nowhere when None."""
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    def command(self, port: int) -> list[str]:
        """What runs the server on ``port``."""
        return [str(GAPGRID), "serve", "--port", str(port), "--threads", "8"]

    def start(self) -> LiveServer:
        port = free_port()
        env = {**os.environ, "GAPGRID_INSTANCE": str(self.instance),
               "GAPGRID_SECRET_KEY": self.secret, **self.environment}
        log = None if self.log is None else self.log.open("ab")
        self.process = subprocess.Popen(
            self.command(port), env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL if log is None else log)
        if log is not None:
            log.close()  # the server has its own copy
        self.url = f"http://127.0.0.1:{port}"
        wait_until_answering(self.url, self.process, "gapgrid serve")
        return self

    def api(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """Ask the server for ``path``: status and JSON body."""
        status, _, answer = request(method, self.url + path, body)
        return status, answer

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=20)
            self.process = None


def request(method: str, url: str, body: Any = None, *, raw: bytes | None = None,
            content_type: str = "application/json",
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
    """Send one request; return status, headers and the decoded JSON body (or None)."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    sent = urllib.request.Request(url, data=data, method=method,
                                  headers={"Content-Type": content_type, **(headers or {})})
    try:
        with urllib.request.urlopen(sent, timeout=30) as response:
            payload = response.read()
            status, answer_headers = response.status, dict(response.headers)
    except urllib.error.HTTPError as error:
        payload, status, answer_headers = error.read(), error.code, dict(error.headers)
    return status, answer_headers, json.loads(payload) if payload else None
