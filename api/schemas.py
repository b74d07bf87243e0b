"""The JSON Schemas of the API: requests are validated with these, and the OpenAPI
document is built from the same objects, so the two never disagree.
"""

from __future__ import annotations

import re
from typing import Any, Final

import jsonschema

from gapgrid.api.config import Settings
from gapgrid.api.problems import INVALID_REQUEST, Problem

PLAYER_PATTERN: Final = r"^[A-Za-z0-9](?:[A-Za-z0-9 _.\-]*[A-Za-z0-9_.\-])?$"
PLAYER_NAME: Final = re.compile(PLAYER_PATTERN[1:-1])
"""The same rule for :func:`re.fullmatch`: JSON Schema's ``$`` lets a final newline pass."""
MOVE_LENGTH: Final = 16
DEAL_LENGTH: Final = 48
MAX_ERRORS: Final = 10


def _moves(settings: Settings) -> dict[str, Any]:
    return {"type": "array", "maxItems": settings.max_moves,
            "items": {"type": "string", "minLength": 1, "maxLength": MOVE_LENGTH},
            "description": "Moves in gapgrid notation: F-T (the card in slot F into the gap at "
                           "slot T), redeal, undo."}


def request_schemas(settings: Settings) -> dict[str, dict[str, Any]]:
    """Schemas of the request bodies, with the limits of ``settings``."""
    return {
        "VerifyRequest": {
            "type": "object",
            "required": ["variant", "deal", "moves"],
            "additionalProperties": False,
            "properties": {
                "variant": {"type": "string", "minLength": 1, "maxLength": 64,
                            "description": "A variant or preset slug, or another name."},
                "options": {"type": "object", "maxProperties": 16,
                            "additionalProperties": {"type": ["string", "integer"]},
                            "description": "Rule options, e.g. {\"redeals\": \"unlimited\"}."},
                "deal": {"type": "string", "minLength": 1, "maxLength": DEAL_LENGTH,
                         "description": "A PySolFC game number, as a string."},
                "moves": _moves(settings),
                "scoring": {"type": "array", "maxItems": 16,
                            "items": {"type": "string", "minLength": 1, "maxLength": 64},
                            "description": "Scheme names, or [\"all\"] (the default)."},
            },
        },
        "SubmissionRequest": {
            "type": "object",
            "required": ["player", "moves"],
            "additionalProperties": False,
            "properties": {
                "player": {"type": "string", "minLength": 1,
                           "maxLength": settings.max_player_length, "pattern": PLAYER_PATTERN,
                           "description": "Letters, digits, spaces, '_', '.', '-'; "
                                          "starting with a letter or digit."},
                "moves": _moves(settings),
                "token": {"type": "string", "minLength": 1, "maxLength": 512,
                          "pattern": r"^[A-Za-z0-9._\-]+$",
                          "description": "The token from .../start, to have the time scored."},
            },
        },
    }


ROWS: Final = {"type": "array", "items": {"type": "array",
                                          "items": {"type": ["string", "null"]}},
               "description": "Rows of card codes (\"TD\"), null for a gap."}

RESPONSE_SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "Problem": {
        "type": "object",
        "required": ["type", "title", "status"],
        "properties": {
            "type": {"type": "string"}, "title": {"type": "string"},
            "status": {"type": "integer"}, "detail": {"type": "string"},
            "instance": {"type": "string"},
            "errors": {"type": "array", "items": {"type": "object", "properties": {
                "detail": {"type": "string"}, "pointer": {"type": "string"},
                "parameter": {"type": "string"}}}},
        },
    },
    "Variant": {
        "type": "object",
        "required": ["slug", "name", "kind", "rows", "rstep", "rbase", "redeals", "options",
                     "summary"],
        "properties": {
            "slug": {"type": "string"}, "name": {"type": "string"},
            "kind": {"enum": ["variant", "preset"]},
            "other_names": {"type": "array", "items": {"type": "string"}},
            "pysolfc_id": {"type": ["integer", "null"]},
            "base": {"type": ["string", "null"]},
            "rows": {"type": "integer"}, "rstep": {"type": "integer"},
            "rbase": {"type": "integer"}, "rlen": {"type": "integer"},
            "decks": {"type": "integer"},
            "ranks": {"type": "array", "items": {"type": "integer"}},
            "redeals": {"type": ["integer", "string"]},
            "redeal_placement": {"type": "string"}, "redeal_when": {"type": "string"},
            "preset_options": {"type": "object"},
            "options": {"type": "array", "items": {"type": "object"}},
            "summary": {"type": "string"}, "plugin": {"type": "string"},
        },
    },
    "Deal": {
        "type": "object", "required": ["variant", "deal", "rows"],
        "properties": {"variant": {"type": "string"}, "deal": {"type": "string"},
                       "pysolfc_title": {"type": "string"}, "options": {"type": "object"},
                       "rows": ROWS},
    },
    "Puzzle": {
        "type": "object",
        "required": ["id", "date", "variant", "options", "deal", "rows", "starts_at", "ends_at",
                     "rules_version"],
        "properties": {
            "id": {"type": "string"}, "date": {"type": "string", "format": "date"},
            "variant": {"type": "string"}, "name": {"type": "string"},
            "options": {"type": "object"}, "deal": {"type": "string"}, "rows": ROWS,
            "starts_at": {"type": "string", "format": "date-time"},
            "ends_at": {"type": "string", "format": "date-time"},
            "rules_version": {"type": "string"}, "pysolfc": {"type": "object"},
        },
    },
    "VerifyResult": {
        "type": "object",
        "required": ["ok", "won", "moves_applied", "rows", "error"],
        "properties": {
            "variant": {"type": "string"}, "deal": {"type": "string"},
            "options": {"type": "object"}, "ok": {"type": "boolean"},
            "won": {"type": "boolean"}, "moves_applied": {"type": "integer"},
            "redeals_used": {"type": "integer"},
            "redeals_left": {"type": ["integer", "string"]}, "rows": ROWS,
            "error": {"type": ["object", "null"], "properties": {
                "index": {"type": "integer"}, "move": {"type": "string"},
                "kind": {"type": "string"}, "reason": {"type": "string"}}},
            "scores": {"type": ["object", "null"]},
        },
    },
    "StartToken": {
        "type": "object", "required": ["puzzle", "token", "started_at"],
        "properties": {"puzzle": {"type": "string"}, "token": {"type": "string"},
                       "started_at": {"type": "string", "format": "date-time"},
                       "expires_in": {"type": "integer"}},
    },
    "SubmissionResult": {
        "type": "object", "required": ["puzzle", "player", "stored", "result", "rank"],
        "properties": {
            "puzzle": {"type": "string"}, "player": {"type": "string"},
            "stored": {"type": "boolean"}, "submitted_at": {"type": ["string", "null"]},
            "elapsed_seconds": {"type": ["number", "null"]},
            "result": {"$ref": "#/components/schemas/VerifyResult"},
            "rank": {"type": ["integer", "null"]}, "players": {"type": "integer"},
        },
    },
    "Leaderboard": {
        "type": "object", "required": ["puzzle", "page", "per_page", "total", "entries"],
        "properties": {
            "puzzle": {"type": "string"}, "page": {"type": "integer"},
            "per_page": {"type": "integer"}, "total": {"type": "integer"},
            "entries": {"type": "array", "items": {"type": "object", "properties": {
                "rank": {"type": "integer"}, "player": {"type": "string"},
                "won": {"type": "boolean"}, "moves": {"type": "integer"},
                "seconds": {"type": ["number", "null"]},
                "submitted_at": {"type": "string"}}}},
        },
    },
}


class RequestValidator:
    """Validates request bodies against :func:`request_schemas`, as 422 problems."""

    def __init__(self, settings: Settings) -> None:
        self.schemas = request_schemas(settings)
        self._validators = {name: jsonschema.Draft202012Validator(schema)
                            for name, schema in self.schemas.items()}

    def check(self, name: str, body: object) -> None:
        """Raise a 422 :class:`Problem` listing where ``body`` breaks schema ``name``."""
        validator = self._validators[name]
        if validator.is_valid(body):
            return
        errors = sorted(validator.iter_errors(body), key=lambda error: list(error.absolute_path))
        found = [{"pointer": pointer(error.absolute_path), "detail": _message(error)}
                 for error in errors[:MAX_ERRORS]]
        raise Problem(422, "Invalid request", "; ".join(
            f"{item['pointer']}: {item['detail']}" for item in found),
            type_=INVALID_REQUEST, errors=found)


def pointer(path: Any) -> str:
    """A JSON Pointer (as a URI fragment) to ``path`` in the body: ``#/moves/3``."""
    parts = [str(part).replace("~", "~0").replace("/", "~1") for part in path]
    return "#" + "".join(f"/{part}" for part in parts)


def _message(error: jsonschema.ValidationError) -> str:
    """A short message: never an echo of a huge value."""
    limit = error.validator_value
    messages = {
        "maxItems": f"has more than {limit} items",
        "minItems": f"has fewer than {limit} items",
        "maxLength": f"is longer than {limit} characters",
        "minLength": "is empty" if limit == 1 else f"is shorter than {limit} characters",
        "maxProperties": f"has more than {limit} fields",
        "type": f"must be of type {limit}",
        "pattern": "has characters that are not allowed",
    }
    if error.validator in messages:
        return messages[str(error.validator)]
    if error.validator == "additionalProperties":
        return f"unknown field ({error.message[:120]})"
    return str(error.message)[:200]
