"""The OpenAPI 3.1 document, built from the table of operations the app factory made
(:func:`gapgrid.api.routes.build_routes`) and the schemas the requests are checked with."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from gapgrid.api.config import Settings
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


PATH_PARAMETERS = {
    "slug": {"description": "A variant or preset slug (or another name).",
             "schema": {"type": "string", "minLength": 1, "maxLength": 64}},
    "number": {"description": "A PySolFC game number: 617, ms617, #00000000000000123456.",
               "schema": {"type": "string", "minLength": 1, "maxLength": 48}},
    "date": {"description": "A UTC day, YYYY-MM-DD.",
             "schema": {"type": "string", "format": "date"}},
}


def openapi_document(settings: Settings, operations: Sequence[Operation]) -> dict[str, Any]:
    """The API of ``operations`` described in OpenAPI 3.1, with the limits of ``settings``."""
    schemas: dict[str, Any] = {**RESPONSE_SCHEMAS, **request_schemas(settings)}
    schemas["VariantList"] = {"type": "array", "items": {"$ref": "#/components/schemas/Variant"}}
    paths: dict[str, dict[str, Any]] = {}
    for operation in operations:
        paths.setdefault(f"/v1{operation.path}", {})[operation.method.lower()] = (
            _operation(operation))
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "gapgrid puzzle API",
            "version": importlib.metadata.version("gapgrid"),
            "description": "Daily puzzles, deals identical to PySolFC's, verification of move "
                           "sequences, scores and leaderboards for the Montana family of "
                           "solitaire games. Every error is an RFC 9457 problem document.",
        },
        "paths": paths,
        "components": {"schemas": schemas},
    }


def _operation(operation: Operation) -> dict[str, Any]:
    names = [part[1:-1] for part in operation.path.split("/") if part.startswith("{")]
    parameters = [{"name": name, "in": "path", "required": True, **PATH_PARAMETERS[name]}
                  for name in names]
    parameters += [dict(parameter) for parameter in operation.query]
    responses: dict[str, Any] = {}
    for status, (description, schema) in operation.responses.items():
        responses[str(status)] = _response(description, schema)
    if operation.request_schema:
        responses.setdefault("413", _response("The body is too large.", "Problem"))
        responses.setdefault("415", _response("The body is not JSON.", "Problem"))
        responses.setdefault("422", _response("The request is not well formed.", "Problem"))
    responses["default"] = _response("Any other error, as a problem document.", "Problem")
    document: dict[str, Any] = {"operationId": operation.operation_id,
                                "summary": operation.summary, "responses": responses}
    if parameters:
        document["parameters"] = parameters
    if operation.request_schema:
        document["requestBody"] = {"required": True, "content": {"application/json": {
            "schema": {"$ref": f"#/components/schemas/{operation.request_schema}"}}}}
    return document


def _response(description: str, schema: str | None) -> dict[str, Any]:
    if schema is None:
        return {"description": description}
    media = MEDIA_TYPE if schema == "Problem" else "application/json"
    return {"description": description,
            "content": {media: {"schema": {"$ref": f"#/components/schemas/{schema}"}}}}
