"""The OpenAPI document is enough to build a client from it alone (issue "Hardening"): every
operation tagged and exemplified with a real exchange, every property and parameter
described, scores typed, error kinds an enum, the leaderboard's next link declared. The
checks walk the served document, so they hold operations added later to the same standard."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import referencing
from flask import Flask
from flask.testing import FlaskClient

from gapgrid.api.examples import EXAMPLES

CORE_GAME = Path(__file__).resolve().parents[2] / "core" / "game.py"


@pytest.fixture
def document(client: FlaskClient) -> dict[str, Any]:
    """The served OpenAPI document."""
    return client.get("/v1/openapi.json").get_json()  # type: ignore[no-any-return]


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def _properties(schema: Any, where: str) -> Iterator[tuple[str, Any]]:
    """Every property of ``schema`` and of the schemas inside it, with where it is."""
    if isinstance(schema, dict):
        for name, value in schema.get("properties", {}).items():
            yield f"{where}.{name}", value
        for key, value in schema.items():
            yield from _properties(value, f"{where}/{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            yield from _properties(value, f"{where}[{index}]")


def test_every_property_and_parameter_is_described(document: dict[str, Any]) -> None:
    """No property of any schema, however deep, and no parameter lacks a description."""
    missing = [where for where, value in _properties(document["components"], "components")
               if not (isinstance(value, dict) and value.get("description"))]
    assert missing == []
    for path, method, operation in _operations(document):
        for parameter in operation.get("parameters", []):
            assert parameter.get("description"), (path, method, parameter["name"])


def test_every_operation_has_a_tag_and_examples(document: dict[str, Any]) -> None:
    """Each operation (those added later too) has a declared tag, an example value for every
    parameter, an example body when it takes one, and an example answer."""
    tags = {tag["name"] for tag in document["tags"]}
    for path, method, operation in _operations(document):
        assert operation.get("tags") and set(operation["tags"]) <= tags, (path, method)
        for parameter in operation.get("parameters", []):
            assert "example" in parameter, (path, method, parameter["name"])
        if "requestBody" in operation:
            media = operation["requestBody"]["content"]["application/json"]
            assert media.get("examples"), (path, method)
        answers = [media for status, answer in operation["responses"].items()
                   if status.startswith("2") for media in answer.get("content", {}).values()
                   if media.get("examples")]
        assert answers, f"{method.upper()} {path} has no example answer"


def _validator(document: dict[str, Any], reference: str) -> jsonschema.Draft202012Validator:
    """A validator of the schema ``reference`` (``#/components/...``) inside ``document``."""
    resource = referencing.Resource.from_contents(
        document, default_specification=referencing.jsonschema.DRAFT202012)
    registry: referencing.Registry[Any] = referencing.Registry().with_resource(
        "urn:openapi", resource)
    return jsonschema.Draft202012Validator({"$ref": "urn:openapi" + reference},
                                           registry=registry)


def test_the_examples_fit_their_schemas(document: dict[str, Any]) -> None:
    """Every example body and answer validates against the schema it illustrates."""
    checked = 0
    for _path, _method, operation in _operations(document):
        media_types = [operation.get("requestBody", {}).get("content", {}).get(
            "application/json", {})]
        media_types += [media for answer in operation["responses"].values()
                        for media in answer.get("content", {}).values()]
        for media in media_types:
            reference = media.get("schema", {}).get("$ref")
            for example in media.get("examples", {}).values():
                if reference:
                    _validator(document, reference).validate(example["value"])
                    checked += 1
    assert checked >= 2 * len(EXAMPLES)


DETERMINISTIC = ("list_variants", "get_variant", "get_deal", "get_daily", "get_puzzle",
                 "post_verify", "post_moves", "get_health", "get_index")


@pytest.mark.parametrize("operation_id", DETERMINISTIC)
def test_the_examples_are_what_the_api_answers(make_app: Callable[..., Flask],
                                               document: dict[str, Any],
                                               operation_id: str) -> None:
    """Replayed against the app (same secret and time), each example request gets exactly
    the example answer, so the document cannot drift from the API."""
    client = make_app(secret_key="example-secret").test_client()
    path, method = next((path, method) for path, method, operation in _operations(document)
                        if operation["operationId"] == operation_id)
    example = EXAMPLES[operation_id]
    url = path.format(**example.parameters)
    query = {key: value for key, value in example.parameters.items() if "{" + key + "}"
             not in path}
    answer = client.open(url, method=method.upper(), json=example.request,
                         query_string=query)
    assert answer.status_code == example.status
    got = answer.get_json()
    if operation_id == "list_variants":
        got = got[:1]
    if operation_id == "get_index":
        got["daily"] = got["daily"][:1]
    if operation_id == "get_health":
        got["version"] = example.response["version"]
    assert got == example.response


def test_error_kinds_are_an_enum_of_the_engines_refusals(document: dict[str, Any]) -> None:
    """error.kind lists exactly the kinds the engine can refuse with."""
    kinds = set(re.findall(r'Refusal\(\s*"([a-z-]+)"', CORE_GAME.read_text(encoding="utf-8")))
    enum = document["components"]["schemas"]["RefusedMove"]["properties"]["kind"]["enum"]
    assert kinds and set(enum) == kinds


def test_scores_are_typed_and_the_next_page_declared(document: dict[str, Any]) -> None:
    """scores is a Scores object (terms, then SchemeScore entries) and the leaderboard's
    next link is declared and always sent."""
    schemas = document["components"]["schemas"]
    assert {"$ref": "#/components/schemas/Scores"} in (
        schemas["VerifyResult"]["properties"]["scores"]["oneOf"])
    assert schemas["Scores"]["additionalProperties"] == {
        "$ref": "#/components/schemas/SchemeScore"}
    assert "next" in schemas["Leaderboard"]["required"]
    sample = EXAMPLES["post_verify"].response["scores"]
    _validator(document, "#/components/schemas/Scores").validate(sample)
    with pytest.raises(jsonschema.ValidationError):
        _validator(document, "#/components/schemas/Scores").validate(
            {**sample, "cards": {"total": "many"}})


def test_every_operation_names_its_429(document: dict[str, Any]) -> None:
    """Every limited operation documents its 429 with Retry-After; the health check has none."""
    for path, method, operation in _operations(document):
        if path == "/v1/health":
            assert "429" not in operation["responses"]
        else:
            assert "Retry-After" in operation["responses"]["429"]["headers"], (path, method)


def test_the_headers_an_answer_carries_are_declared(document: dict[str, Any],
                                                    client: FlaskClient) -> None:
    """A client generated from the document knows the rate-limit headers of every limited
    answer, and a cached read's ETag, Cache-Control and If-None-Match; and the server sends
    what the document declares."""
    for path, method, operation in _operations(document):
        if path == "/v1/health":
            continue
        for status, answer in operation["responses"].items():
            if status.startswith("2"):
                assert "X-RateLimit-Remaining" in answer["headers"], (path, method, status)
    daily = document["paths"]["/v1/daily/{slug}"]["get"]
    assert {"ETag", "Cache-Control"} <= set(daily["responses"]["200"]["headers"])
    assert {"ETag", "Cache-Control"} <= set(daily["responses"]["304"]["headers"])
    assert "If-None-Match" in [parameter["name"] for parameter in daily["parameters"]]
    answer = client.get("/v1/daily/montana")
    declared = set(daily["responses"]["200"]["headers"])
    assert declared <= set(answer.headers.keys()), declared - set(answer.headers.keys())


def test_the_document_is_plain_json(document: dict[str, Any]) -> None:
    """The document survives a JSON round trip (no Python-only values in the examples)."""
    assert json.loads(json.dumps(document)) == document
