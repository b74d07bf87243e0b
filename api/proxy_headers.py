"""The forwarding headers (``X-Forwarded-For``, ``-Proto``, ``-Host``, ``-Port``) of the
proxy in front of the server, read as waitress reads them, with a malformed one refused in
a problem document.

Waitress reads them itself when given ``trusted_proxy``, but answers a malformed one
(``X-Forwarded-For: garbage"``, ``X-Forwarded-Proto: ftp``) with a plain-text 400 of its
own, outside the app and the access log. :class:`ProxyHeaders` runs waitress's parser
under :class:`gapgrid.api.server.AccessLog` instead: the client's address (what the rate
limits count by), scheme and host come from the trusted proxy's headers, every other
client's forwarding headers are dropped, and a malformed header from the proxy gets an RFC
9457 problem and its log line like any other answer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any, Final

from waitress.proxy_headers import (
    PROXY_HEADERS,
    MalformedProxyHeader,
    clear_untrusted_headers,
    parse_proxy_headers,
)

from gapgrid.api.problems import MEDIA_TYPE, bare_problem
from gapgrid.api.text import bounded

TRUSTED_HEADERS: Final = frozenset(
    {"x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port"})
"""The headers read from the trusted proxy; the standard ``Forwarded`` header is not."""

LOG: Final = logging.getLogger("gapgrid.proxy")

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
"""A WSGI application (also what :mod:`gapgrid.api.server` serves)."""


class ProxyHeaders:
    """WSGI middleware: the forwarding headers of ``trusted_proxy`` (an address, ``*`` for
    any, or None for none) applied to the request, everyone else's removed."""

    def __init__(self, app: WSGIApp, trusted_proxy: str | None) -> None:
        self.app = app
        self.trusted_proxy = trusted_proxy

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]
                 ) -> Iterable[bytes]:
        """Serve the request with the proxy's view of the client, or refuse it."""
        untrusted: Iterable[str] = PROXY_HEADERS
        peer = environ.get("REMOTE_ADDR")
        if self.trusted_proxy is not None and self.trusted_proxy in ("*", peer):
            try:
                untrusted = parse_proxy_headers(environ, trusted_proxy_count=1,
                                                trusted_proxy_headers=TRUSTED_HEADERS,
                                                logger=LOG)
            except MalformedProxyHeader as error:
                LOG.warning("malformed %s header from %s: %s", error.header, peer,
                            bounded(str(error.value), 200))
                return _malformed(error.header, start_response)
        clear_untrusted_headers(environ, untrusted, log_warning=False, logger=LOG)
        return self.app(environ, start_response)


def _malformed(header: str, start_response: Callable[..., Any]) -> list[bytes]:
    body = bare_problem(400, "Bad Request", f"the proxy's {header} header is malformed")
    start_response("400 Bad Request", [
        ("Content-Type", MEDIA_TYPE), ("Content-Length", str(len(body))),
        # read by a page on another origin as the app's own problems are
        ("Access-Control-Allow-Origin", "*")])
    return [body]
