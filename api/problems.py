"""Errors as RFC 9457 problem documents: every error the service returns is one, never HTML.

Handlers raise :class:`Problem`; Werkzeug's HTTP errors (404, 405, 413, ...)
and any unexpected exception (500) are turned into problems by
:func:`register_error_handlers`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Final

from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException

MEDIA_TYPE: Final = "application/problem+json"
INVALID_REQUEST: Final = "urn:gapgrid:problem:invalid-request"
NOT_FOUND: Final = "urn:gapgrid:problem:not-found"
CONFLICT: Final = "urn:gapgrid:problem:conflict"

_log = logging.getLogger(__name__)


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
        body: dict[str, Any] = {"type": self.type, "title": self.title, "status": self.status,
                                "detail": self.detail, "instance": request.path}
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


def not_found(detail: str) -> Problem:
    """A 404 with the reason."""
    return Problem(404, "Not Found", detail, type_=NOT_FOUND)


def register_error_handlers(app: Flask) -> None:
    """Make every error of ``app`` a problem document."""

    @app.errorhandler(Problem)
    def _problem(problem: Problem) -> Response:
        return problem.response()

    @app.errorhandler(HTTPException)
    def _http(error: HTTPException) -> Response:
        status = error.code or 500
        detail = error.description or error.name
        if status == 413:
            detail = (f"the request body is larger than {app.config['MAX_CONTENT_LENGTH']} "
                      f"bytes")
        headers = {}
        if status == 405 and hasattr(error, "valid_methods") and error.valid_methods:
            headers["Allow"] = ", ".join(error.valid_methods)
        return Problem(status, error.name, detail, headers=headers).response()

    @app.errorhandler(Exception)
    def _unexpected(error: Exception) -> Response:
        _log.exception("unexpected error on %s %s", request.method, request.path)
        return Problem(500, "Internal Server Error",
                       "the server failed to answer; the error has been logged").response()
