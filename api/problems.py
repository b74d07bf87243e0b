"""Errors as RFC 9457 problem documents: every error the service returns is one, never HTML.

Handlers raise :class:`Problem`; the service layer's
:class:`~gapgrid.api.services.errors.ServiceError`, Werkzeug's HTTP errors (404,
405, 413, ...) and any unexpected exception (500) are turned into problems by
:func:`register_error_handlers`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Final

from flask import Flask, Response, request
from sqlalchemy import exc as database_errors
from werkzeug.exceptions import HTTPException

from gapgrid.api.config import driver_reason
from gapgrid.api.db.engine import is_outage, statement_hint
from gapgrid.api.services.errors import Fault, ServiceError
from gapgrid.api.text import bounded
from gapgrid.core.plugin_code import failing_plugin
from gapgrid.core.score_checks import PluginFault

MEDIA_TYPE: Final = "application/problem+json"
INVALID_REQUEST: Final = "urn:gapgrid:problem:invalid-request"
NOT_FOUND: Final = "urn:gapgrid:problem:not-found"
MALFORMED_BODY: Final = "urn:gapgrid:problem:malformed-body"
CONFLICT: Final = "urn:gapgrid:problem:conflict"
BUSY: Final = "urn:gapgrid:problem:busy"
UNAUTHENTICATED: Final = "urn:gapgrid:problem:unauthenticated"
FORBIDDEN: Final = "urn:gapgrid:problem:forbidden"
PROBLEM_TYPES: Final = (INVALID_REQUEST, MALFORMED_BODY, NOT_FOUND, CONFLICT, BUSY,
                        UNAUTHENTICATED, FORBIDDEN)
"""Every kind of problem of our own; others are ``about:blank`` (their status says it)."""
BEARER_CHALLENGE: Final = 'Bearer realm="gapgrid players"'
"""The challenge of a 401 (RFC 6750): the player's token goes in Authorization: Bearer."""

LONGEST_INSTANCE: Final = 512
"""A request path longer than this is left out of the problem rather than repeated."""

_log = logging.getLogger(__name__)

DATABASE_RETRY_AFTER: Final = 10
"""Seconds a client is asked to wait when the database does not answer."""


def bare_problem(status: int, title: str, detail: str, instance: str | None = None) -> bytes:
    """A problem document made outside the app, with no Flask request: what the server's
    own answers (:mod:`gapgrid.api.server`, :mod:`gapgrid.api.proxy_headers`) send."""
    body: dict[str, Any] = {"type": "about:blank", "title": title, "status": status,
                            "detail": detail}
    if instance is not None:
        body["instance"] = instance
    return json.dumps(body).encode()


class Problem(Exception):
    """An error answer: status, a short title, a detail for people, and where it lies."""

    def __init__(self, status: int, title: str, detail: str, *, type_: str = "about:blank",
                 errors: Sequence[Mapping[str, Any]] = (),
                 headers: Mapping[str, str] | None = None) -> None:
        super().__init__(detail)
        self.status, self.title, self.detail, self.type = status, title, detail, type_
        self.errors = list(errors)
        self.headers = dict(headers or {})

    def response(self) -> Response:
        """The problem as an ``application/problem+json`` response."""
        # Details quote input only as short excerpts; bounded() is the last line of defence.
        body: dict[str, Any] = {"type": self.type, "title": self.title, "status": self.status,
                                "detail": bounded(self.detail)}
        if len(request.path) <= LONGEST_INSTANCE:
            body["instance"] = request.path
        if self.errors:
            body["errors"] = self.errors
        # ASCII escapes: a detail may quote client input, lone surrogates included.
        response = Response(json.dumps(body), status=self.status,
                            mimetype=MEDIA_TYPE)
        response.headers.update(self.headers)
        return response


def invalid(detail: str, *, pointer: str | None = None, parameter: str | None = None) -> Problem:
    """A 422 for one bad field: ``pointer`` into the JSON body, or a named ``parameter``."""
    where: dict[str, str] = {"detail": detail}
    if pointer is not None:
        where["pointer"] = pointer
    if parameter is not None:
        where["parameter"] = parameter
    return Problem(422, "Invalid request", detail, type_=INVALID_REQUEST, errors=[where])


def malformed(detail: str) -> Problem:
    """A 400 for a body that is not JSON at all (RFC 9110: 422 is for content that parses)."""
    return Problem(400, "Bad Request", detail, type_=MALFORMED_BODY,
                   errors=[{"detail": detail, "pointer": "#"}])


def not_found(detail: str) -> Problem:
    """A 404 with the reason."""
    return Problem(404, "Not Found", detail, type_=NOT_FOUND)


LONGEST_POINTER_PART: Final = 64
"""A key longer than any the API accepts is not repeated: the pointer stops at its parent."""


def pointer(path: Any) -> str:
    """A JSON Pointer (as a URI fragment) to ``path`` in the body: ``#/moves/3``; a path
    through a key longer than any the API accepts points at that key's parent."""
    parts = []
    for part in map(str, path):
        if len(part) > LONGEST_POINTER_PART:
            break
        parts.append(part.replace("~", "~0").replace("/", "~1"))
    return "#" + "".join(f"/{part}" for part in parts)


PATH_PARAMETERS: Final = {"variant": "slug", "deal": "number", "date": "date"}
"""The service's field names for what a URL path carries, and the path parameters' names."""


def service_problem(error: ServiceError) -> Problem:
    """The problem document for a use case's refusal in the current request.

    The service names the faulty field in request terms; whether that field
    came in the URL (a parameter: an unknown variant there is a 404) or in
    the JSON body (a pointer) is known only here.
    """
    head = error.field[0] if error.field else None
    parameter = None
    if isinstance(head, str):
        if PATH_PARAMETERS.get(head) in (request.view_args or {}):
            parameter = PATH_PARAMETERS[head]
        elif head in request.args:
            parameter = head
    if error.fault is Fault.UNKNOWN_VARIANT:
        message = f"{error.message} (GET /v1/variants lists them)"
        return not_found(message) if parameter else invalid(message, pointer=pointer(error.field))
    if error.fault is Fault.NOT_FOUND:
        return not_found(error.message)
    if error.fault is Fault.CONFLICT:
        return Problem(409, error.title or "Conflict", error.message, type_=CONFLICT)
    if error.fault in (Fault.UNAUTHENTICATED, Fault.FORBIDDEN):  # the name it is about
        unauthenticated = error.fault is Fault.UNAUTHENTICATED
        return Problem(401 if unauthenticated else 403,
                       error.title or ("Unauthorized" if unauthenticated else "Forbidden"),
                       error.message, type_=UNAUTHENTICATED if unauthenticated else FORBIDDEN,
                       errors=[{"pointer": pointer(error.field), "detail": error.message}],
                       headers={"WWW-Authenticate": BEARER_CHALLENGE} if unauthenticated
                       else {})
    if error.fault is Fault.BUSY:  # someone else is making it: come back, do not search too
        return Problem(503, error.title or "Service Unavailable", error.message, type_=BUSY,
                       headers={"Retry-After": str(error.retry_after or 1)})
    if parameter is not None:
        return invalid(error.message, parameter=parameter)
    return invalid(error.message, pointer=pointer(error.field))


def register_error_handlers(app: Flask) -> None:
    """Make every error of ``app`` a problem document."""

    @app.errorhandler(Problem)
    def _problem(problem: Problem) -> Response:
        return problem.response()

    @app.errorhandler(ServiceError)
    def _refused(error: ServiceError) -> Response:
        return service_problem(error).response()

    @app.errorhandler(HTTPException)
    def _http(error: HTTPException) -> Response:
        status = error.code or 500
        detail = error.description or error.name
        if status == 413:
            detail = (f"the request body is larger than {app.config['MAX_CONTENT_LENGTH']} "
                      f"bytes")
        if status == 429:  # Flask-Limiter's description is the limit, e.g. "600 per 1 minute"
            detail = (f"too many requests from this client: at most {detail}; try again after "
                      f"the seconds in Retry-After")
        headers = {}
        if status == 405 and hasattr(error, "valid_methods") and error.valid_methods:
            headers["Allow"] = ", ".join(error.valid_methods)
        return Problem(status, error.name, detail, headers=headers).response()

    @app.errorhandler(Exception)
    def _unexpected(error: Exception) -> Response:
        plugin = failing_plugin(error)
        if plugin is not None:  # a plugin's bug: named, for the operator to act on
            _log.exception("the plugin %s failed on %s %s", plugin, request.method,
                           request.path)
            return Problem(500, "Plugin failed", f"the plugin {plugin} failed to answer; the "
                           f"error has been logged").response()
        _log.exception("unexpected error on %s %s", request.method, request.path)
        return Problem(500, "Internal Server Error",
                       "the server failed to answer; the error has been logged").response()

    @app.errorhandler(PluginFault)
    def _plugin_failed(fault: PluginFault) -> Response:
        # A plugin's bug: said with its name (its authors fix it, or the operator turns it
        # off), logged with its traceback; its own words stay in the log, as any error's.
        _log.error("a plugin failed on %s %s: %s", request.method, request.path, fault,
                   exc_info=fault)
        return Problem(500, "Plugin failed", f"the plugin {fault.plugin} failed to answer; "
                       f"the error has been logged").response()

    @app.errorhandler(database_errors.DBAPIError)
    @app.errorhandler(database_errors.TimeoutError)
    def _database_trouble(error: Exception) -> Response:
        if not is_outage(error):  # a statement the database refused: a bug, logged whole
            return _unexpected(error)
        # Down, restarting, locked past the wait, out of connections: "come back later" is
        # the true answer. The driver's reason alone is logged, in one line: not the
        # statement and its parameters.
        _log.error("the database does not answer on %s %s: %s%s", request.method,
                   request.path, driver_reason(error), statement_hint(error))
        return Problem(503, "Service Unavailable", "the database does not answer; try again "
                       "after the seconds in Retry-After",
                       headers={"Retry-After": str(DATABASE_RETRY_AFTER)}).response()
