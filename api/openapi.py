"""The OpenAPI 3.1 document, built from the table of operations the app factory made
(:func:`gapgrid.api.routes.build_routes`), the schemas the requests are checked with, and
an example exchange per operation (:mod:`gapgrid.api.examples`): enough to write a client
from the document alone. Every operation has a tag, an example request and answer, and
its rate limit's 429; every property and parameter has a description (tests check all of
it, for operations added later too)."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Mapping, Sequence
from typing import Any, Final

import attrs

from gapgrid.api.config import Settings
from gapgrid.api.examples import EXAMPLES, Example
from gapgrid.api.problems import MEDIA_TYPE
from gapgrid.api.schemas import RESPONSE_SCHEMAS, request_schemas


@attrs.frozen
class Operation:
    """What the OpenAPI document says about one route."""

    method: str
    path: str
    """OpenAPI form, relative to /v1: ``/variants/{slug}``."""

    operation_id: str
    summary: str
    responses: Mapping[int, tuple[str, str | None]]
    """Status -> (description, response schema name, or None for no body)."""

    request_schema: str | None = None
    """Name of the request body schema."""

    query: Sequence[Mapping[str, Any]] = ()
    """Query parameters."""

    body_optional: bool = False
    """The request body may be left out (a start with no player named)."""

    player_token: bool = False
    """The operation acts under a player's name, which may need the player's token."""


PATH_PARAMETERS = {
    "slug": {"description": "A variant or preset slug (or another name).",
             "schema": {"type": "string", "minLength": 1, "maxLength": 64},
             "example": "montana"},
    "number": {"description": "A PySolFC game number: 617, ms617, #00000000000000123456.",
               "schema": {"type": "string", "minLength": 1, "maxLength": 48},
               "example": "617"},
    "date": {"description": "A UTC day, YYYY-MM-DD.",
             "schema": {"type": "string", "format": "date"}, "example": "2026-11-30"},
}

TAGS: Final = (
    {"name": "Variants and deals",
     "description": "The games gapgrid knows, their rules and geometry, and the layout "
                    "PySolFC deals for any game number."},
    {"name": "Games",
     "description": "Check moves on any deal: replay and score them, or list what can be "
                    "played in a position. Nothing is stored."},
    {"name": "Daily puzzles",
     "description": "One puzzle a day per variant: start it, submit moves, read the "
                    "leaderboard. Starts and submissions accept browser requests only from "
                    "the origins the server lists (GAPGRID_CORS_ORIGINS)."},
    {"name": "Service", "description": "The index, this document, and the health check."},
)

PROBLEM_EXAMPLE: Final = {
    "type": "urn:gapgrid:problem:not-found", "title": "Not Found", "status": 404,
    "detail": "unknown variant 'montanna'; did you mean montana or montana-relax or "
              "double-montana? (GET /v1/variants lists them)",
    "instance": "/v1/variants/montanna"}


def tag_of(path: str) -> str:
    """The tag of the operation on ``path`` (relative to /v1)."""
    if path.startswith("/variants"):
        return "Variants and deals"
    if path.startswith(("/daily", "/puzzles", "/players")):
        return "Daily puzzles"
    if path in ("/", "/health", "/openapi.json"):
        return "Service"
    return "Games"


def limit_of(settings: Settings, operation: Operation) -> tuple[str, str | None] | None:
    """The rate limit (its variable and rate) an operation counts against, as
    :func:`gapgrid.api.app.limit_group` groups requests; None for the health check."""
    if operation.operation_id == "get_health":
        return None
    if operation.method == "GET":
        return "GAPGRID_LIMIT_READS", settings.limit_reads
    if operation.path.startswith(("/puzzles/", "/players")):
        return "GAPGRID_LIMIT_WRITES", settings.limit_writes
    return "GAPGRID_LIMIT_CHECKS", settings.limit_checks


def openapi_document(settings: Settings, operations: Sequence[Operation]) -> dict[str, Any]:
    """The API of ``operations`` described in OpenAPI 3.1, with the limits of ``settings``."""
    schemas: dict[str, Any] = {**RESPONSE_SCHEMAS, **request_schemas(settings)}
    schemas["VariantList"] = {"type": "array", "items": {"$ref": "#/components/schemas/Variant"}}
    paths: dict[str, dict[str, Any]] = {}
    for operation in operations:
        paths.setdefault(f"/v1{operation.path}", {})[operation.method.lower()] = (
            _operation(operation, settings))
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "gapgrid puzzle API",
            "version": importlib.metadata.version("gapgrid"),
            "description": "Daily puzzles, deals identical to PySolFC's, verification of move "
                           "sequences, scores and leaderboards for the Montana family of "
                           "solitaire games. Every error is an RFC 9457 problem document. "
                           "Each client's requests are rate-limited (a 429 says when to try "
                           "again); reads and checks may come from any origin.",
        },
        "tags": [dict(tag) for tag in TAGS],
        "paths": paths,
        "components": {"schemas": schemas, "securitySchemes": {"playerToken": {
            "type": "http", "scheme": "bearer",
            "description": "The player's token, from the first submission under a name or "
                           "POST /v1/players: needed by starts and submissions under a name "
                           "a player owns."}}},
    }


IF_NONE_MATCH: Final[dict[str, Any]] = {
    "name": "If-None-Match", "in": "header", "required": False,
    "description": "The ETag of a copy held (weak or strong): a 304 without a body when it "
                   "is still the puzzle's.",
    "schema": {"type": "string"}, "example": '"3f9c0a1b2c3d4e5f60718293a4b5c6d7"'}
"""The request header of a cached read."""

CACHE_HEADERS: Final[dict[str, dict[str, Any]]] = {
    "ETag": {"description": "The puzzle document's tag, for If-None-Match.",
             "schema": {"type": "string"}},
    "Cache-Control": {"description": "public, max-age=60 at most while the puzzle takes "
                                     "submissions (today's; yesterday's until its "
                                     "solution_opens_at): a winning game may lower its par; "
                                     "immutable for a past day's after that.",
                      "schema": {"type": "string"}},
}
"""The headers of a cached read's 200 and 304."""

RATE_LIMIT_HEADERS: Final[dict[str, dict[str, Any]]] = {
    "X-RateLimit-Limit": {"description": "Requests of this kind a client may make in its "
                                         "window (a minute unless configured).",
                          "schema": {"type": "integer"}},
    "X-RateLimit-Remaining": {"description": "Requests left in the window, after this one.",
                              "schema": {"type": "integer"}},
    "X-RateLimit-Reset": {"description": "When the window ends, in seconds since the epoch.",
                          "schema": {"type": "integer"}},
}
"""The headers of a rate-limited operation's answers."""


def _operation(operation: Operation, settings: Settings) -> dict[str, Any]:
    example = EXAMPLES.get(operation.operation_id)
    names = [part[1:-1] for part in operation.path.split("/") if part.startswith("{")]
    parameters: list[dict[str, Any]] = [
        {"name": name, "in": "path", "required": True, **PATH_PARAMETERS[name]}
        for name in names]
    parameters += [dict(parameter) for parameter in operation.query]
    if example is not None:  # the example request's own values
        for parameter in parameters:
            name = str(parameter["name"])
            if name in example.parameters:
                parameter["example"] = example.parameters[name]
    responses: dict[str, Any] = {}
    for status, (description, schema) in operation.responses.items():
        responses[str(status)] = _response(description, schema)
    if "304" in responses:  # a cached read: its tag, its lifetime, and the tag sent back
        parameters.append(dict(IF_NONE_MATCH))
        for code in ("200", "304"):
            responses[code]["headers"] = {name: dict(header)
                                             for name, header in CACHE_HEADERS.items()}
    if operation.request_schema:
        responses.setdefault("400", _response("The body is not JSON (or repeats a key).",
                                              "Problem"))
        responses.setdefault("413", _response("The body is too large.", "Problem"))
        responses.setdefault("415", _response("The body is not sent as application/json, or "
                                              "is sent compressed (Content-Encoding).",
                                              "Problem"))
        responses.setdefault("422", _response("The request is not well formed.", "Problem"))
    limit = limit_of(settings, operation)
    if limit is not None and limit[1] is not None:
        responses["429"] = _response(
            f"More than {limit[1]} such requests from this client ({limit[0]}); try again "
            f"after the seconds in Retry-After.", "Problem")
        responses["429"]["headers"] = {"Retry-After": {
            "description": "Seconds until the client may try again.",
            "schema": {"type": "integer"}}}
        for code, answer in responses.items():
            if code != "default":  # every answer the app itself gives (waitress's have none)
                answer.setdefault("headers", {}).update(
                    {name: dict(header) for name, header in RATE_LIMIT_HEADERS.items()})
    if "503" in responses:  # a puzzle being made elsewhere, or no room for a hint search
        responses["503"]["headers"] = {"Retry-After": {
            "description": "Seconds after which trying again makes sense.",
            "schema": {"type": "integer"}}}
    responses["default"] = _response("Any other error, as a problem document.", "Problem")
    responses["default"]["content"][MEDIA_TYPE]["examples"] = {
        "unknown-variant": {"summary": "An unknown variant in a path.",
                            "value": PROBLEM_EXAMPLE}}
    if example is not None:
        _add_example(responses, example)
    document: dict[str, Any] = {"operationId": operation.operation_id,
                                "summary": operation.summary,
                                "tags": [tag_of(operation.path)], "responses": responses}
    if parameters:
        document["parameters"] = parameters
    if operation.player_token:  # a name nobody owns yet needs no token
        document["security"] = [{}, {"playerToken": []}]
    if operation.request_schema:
        media: dict[str, Any] = {
            "schema": {"$ref": f"#/components/schemas/{operation.request_schema}"}}
        if example is not None and example.request is not None:
            media["examples"] = {"example": {"summary": example.summary,
                                             "value": example.request}}
        document["requestBody"] = {"required": not operation.body_optional,
                                   "content": {"application/json": media}}
    return document


def _add_example(responses: dict[str, Any], example: Example) -> None:
    """Put the example answer under its status (which the operation must list)."""
    answer = responses.get(str(example.status))
    if answer is None or "content" not in answer:
        raise ValueError(f"example answer with status {example.status}, which the operation "
                         f"does not list with a body")
    for media in answer["content"].values():
        media["examples"] = {"example": {"summary": example.summary,
                                         "value": example.response}}


def _response(description: str, schema: str | None) -> dict[str, Any]:
    if schema is None:
        return {"description": description}
    media = MEDIA_TYPE if schema == "Problem" else "application/json"
    return {"description": description,
            "content": {media: {"schema": {"$ref": f"#/components/schemas/{schema}"}}}}
