"""``gapgrid serve``: the app under waitress, configured against slow and oversized clients.

Waitress's defaults suit a server behind a buffering proxy, not one facing
clients directly: 100 connections, a 120-second idle timeout that restarts
with every byte (so a client sending one header byte a second holds its
connection for ever), 1 GiB request bodies spooled to disk, 256 KiB of
headers, and plain-text error pages. :func:`build_server` changes that:

* up to ``GAPGRID_CONNECTION_LIMIT`` connections (1,000), polled with
  ``poll()`` rather than ``select()``, which stops at descriptor 1,024;
* a request must arrive whole within ``GAPGRID_REQUEST_TIMEOUT`` seconds of
  its first byte (:class:`GuardedChannel`), and an idle connection is
  closed after ``GAPGRID_IDLE_TIMEOUT`` seconds; both checked every second;
* bodies above ``GAPGRID_MAX_BODY`` and headers above ``GAPGRID_MAX_HEADER``
  are refused as soon as their size is known, before they are read;
* waitress's own error answers (400, 413, 431, 501, 500) are RFC 9457
  problem documents like the app's (:class:`ProblemErrorTask`);
* one access-log line per request: method, path, status, milliseconds
  (:class:`AccessLog`), waitress's own answers included;
* the forwarding headers of ``GAPGRID_TRUSTED_PROXY`` read, and everyone else's
  dropped, under the access log, a malformed one refused in a problem document
  (:mod:`gapgrid.api.proxy_headers`).

A host that does not resolve, a port in use or one that needs privileges
raise :class:`ServeError`, one line in the user's words.
"""

from __future__ import annotations

import errno
import logging
import resource
import socket
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Final

from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer, create_server
from waitress.task import ErrorTask

from gapgrid.api.config import Settings
from gapgrid.api.problems import LONGEST_INSTANCE, MEDIA_TYPE, bare_problem
from gapgrid.api.proxy_headers import ProxyHeaders, WSGIApp
from gapgrid.api.text import bounded, excerpt

ACCESS_LOG: Final = logging.getLogger("gapgrid.access")
"""One line per request; ``gapgrid serve`` sends it to standard error."""

CLEANUP_INTERVAL: Final = 1
"""Seconds between the server's sweeps for timed-out connections."""

INBUF_OVERFLOW: Final = 64 * 1024
"""A body larger than this waits in a temporary file rather than in memory, so a
thousand connections hold at most 64 MiB of request bodies."""

LOGGED_PATH: Final = 200
"""Characters of a request path an access-log line keeps."""




class ServeError(RuntimeError):
    """The server cannot listen where it was asked to; the message says why, for people."""


def logged_path(path: str) -> str:
    """A request path fit for one log line: control characters and spaces escaped, cut."""
    quoted = urllib.parse.quote(path, safe="/:@!$&'()*+,;=-._~%")
    return quoted if len(quoted) <= LOGGED_PATH else f"{quoted[:LOGGED_PATH]}…"


class AccessLog:
    """WSGI middleware: one line per request (method, path, status, milliseconds), written
    when the answer has been handed to the server, so the time includes making the body."""

    def __init__(self, app: WSGIApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]
                 ) -> Iterable[bytes]:
        """Serve the request through the app and log it when its answer is done."""
        began = time.perf_counter()
        status = ["-"]

        def remember(status_line: str, headers: list[tuple[str, str]],
                     exc_info: Any = None) -> Any:
            status[0] = status_line.split(" ", 1)[0]
            return start_response(status_line, headers, exc_info)

        body = self.app(environ, remember)

        def done() -> None:
            ACCESS_LOG.info("%s %s %s %.1f ms", environ.get("REQUEST_METHOD", "-"),
                            logged_path(environ.get("PATH_INFO", "")), status[0],
                            (time.perf_counter() - began) * 1000)
        return _Logged(body, done)


class _Logged:
    """The app's answer, passed through; closing it (which the server always does, even
    when it never iterates it) closes the app's answer and writes the log line."""

    def __init__(self, body: Iterable[bytes], done: Callable[[], None]) -> None:
        self.body = body
        self.done = done

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.body)

    def close(self) -> None:
        """Close the app's answer (Flask's teardown runs there), then log."""
        try:
            close = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            self.done()


class ProblemErrorTask(ErrorTask):  # type: ignore[misc]
    """Waitress's own error answers (a malformed request, a body or headers over the
    limits) as RFC 9457 problem documents, like every answer of the app."""

    max_body: int = 0
    max_header: int = 0

    def execute(self) -> None:
        """Write the problem document for the request's error, and close the connection."""
        began = time.perf_counter()
        error = self.request.error
        status = int(error.code)
        detail = {
            413: f"the request body is larger than {self.max_body} bytes",
            431: f"the request line and headers are larger than {self.max_header} bytes",
            500: "the server failed to answer; the error has been logged",
        }.get(status) or f"the request is not valid HTTP: {bounded(str(error.body), 200)}"
        # The request's path only where waitress read the request whole up to its body: for
        # headers over the limit it parses a stand-in request ("GET /"), and a malformed
        # request may have none.
        path = getattr(self.request, "path", None)
        named = status == 413 and isinstance(path, str) and path and len(path) <= LONGEST_INSTANCE
        body = bare_problem(status, error.reason, detail, instance=path if named else None)
        self.status = f"{status} {error.reason}"
        self.response_headers.append(("Content-Type", MEDIA_TYPE))
        # A page on another origin may read why its request was refused (a body too large
        # for /v1/verify), as it reads the app's own problems: the answer holds nothing
        # private, and no credentials are ever allowed.
        self.response_headers.append(("Access-Control-Allow-Origin", "*"))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)
        # a request that failed to parse may lack a method and a path
        ACCESS_LOG.info("%s %s %s %.1f ms", getattr(self.request, "command", None) or "-",
                        logged_path(getattr(self.request, "path", None) or "-"), status,
                        (time.perf_counter() - began) * 1000)


class GuardedChannel(HTTPChannel):  # type: ignore[misc]
    """A connection that must deliver each request within ``request_timeout`` seconds of
    its first byte.

    Waitress closes a connection when nothing has happened on it for
    ``channel_timeout`` seconds (checked every ``cleanup_interval``), but every
    byte received counts as something, so a client trickling a byte a second
    keeps its connection, and a few hundred such clients fill the server.
    While a request is still arriving, this channel reports its last activity
    as the moment the request began, shifted so that waitress's own sweep
    closes it ``request_timeout`` seconds after that moment; between requests
    the idle timeout applies as usual.
    """

    request_timeout: float = 10.0
    last_activity: float
    _request_began: float | None = None

    def received(self, data: bytes) -> bool:
        """Take in ``data`` as waitress does, then date the activity from the request's
        first byte while it is incomplete."""
        taken: bool = super().received(data)
        if self.request is None:  # only whole requests so far: the idle clock runs
            self._request_began = None
        else:
            if self._request_began is None:
                self._request_began = self.last_activity
            self.last_activity = (self._request_began + self.request_timeout
                                  - self.adj.channel_timeout)
        return taken


def build_server(app: WSGIApp, settings: Settings, *, host: str, port: int,
                 threads: int) -> Any:
    """A waitress server for ``app`` on ``host``:``port``, not yet running.

    Raises :class:`ServeError` when it cannot listen there.
    """
    _check_address(host, port)
    _allow_descriptors(settings.connection_limit + threads + 64)
    error_task = type("ProblemErrorTask", (ProblemErrorTask,), {
        "max_body": settings.max_body, "max_header": settings.max_header})
    channel = type("GuardedChannel", (GuardedChannel,), {
        "request_timeout": settings.request_timeout, "error_task_class": error_task})
    sockets: dict[int, Any] = {}
    try:
        server = create_server(
            # the forwarding headers read here, not by waitress (see .proxy_headers)
            AccessLog(ProxyHeaders(app, settings.trusted_proxy or None)), map=sockets,
            host=host, port=port, threads=threads, ident="gapgrid",
            clear_untrusted_proxy_headers=False,
            connection_limit=settings.connection_limit, asyncore_use_poll=True,
            channel_timeout=settings.idle_timeout, cleanup_interval=CLEANUP_INTERVAL,
            # waitress refuses a body of max_request_body_size bytes or more; the app
            # accepts up to max_body bytes inclusive
            max_request_body_size=settings.max_body + 1,
            max_request_header_size=settings.max_header,
            inbuf_overflow=INBUF_OVERFLOW, expose_tracebacks=False)
    except OSError as error:
        raise ServeError(_bind_failure(error, host, port)) from None
    for listener in sockets.values():  # one per address the host resolves to
        if isinstance(listener, BaseWSGIServer):
            listener.channel_class = channel
    return server


def listening_on(server: Any) -> list[str]:
    """The ``http://host:port`` addresses ``server`` listens on (a real port for port 0)."""
    listen = getattr(server, "effective_listen", None) or [
        (server.effective_host, server.effective_port)]
    return [f"http://{f'[{host}]' if ':' in str(host) else host}:{port}"
            for host, port in listen]


def _check_address(host: str, port: int) -> None:
    """Refuse, in words, a host that resolves to nothing this machine can listen on."""
    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError, ValueError):
        shown = host if len(host) <= 64 and host.isprintable() else excerpt(host)
        raise ServeError(f"cannot listen on {shown}: it is not an IP address or a host name "
                         f"this machine can resolve (try 127.0.0.1 or 0.0.0.0)") from None


def _bind_failure(error: OSError, host: str, port: int) -> str:
    where = f"{host}:{port}"
    if error.errno == errno.EADDRINUSE:
        return (f"cannot listen on {where}: the port is in use by another program; stop it "
                f"or choose another port with --port")
    if error.errno == errno.EADDRNOTAVAIL:
        return f"cannot listen on {where}: {host} is not an address of this machine"
    if error.errno == errno.EACCES:
        return (f"cannot listen on {where}: permission denied (ports below 1024 need "
                f"privileges; choose another with --port)")
    return f"cannot listen on {where}: {error.strerror or error}"


def _allow_descriptors(wanted: int) -> None:
    """Raise the soft limit on open files towards ``wanted`` (up to the hard limit), so
    the connection limit, not the descriptor limit, is what stops new connections."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if target > soft:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
