"""The JSON Schemas of the API: requests are validated with these, and the OpenAPI
document is built from the same objects, so the two never disagree.
"""

from __future__ import annotations

from typing import Any, Final

import jsonschema

from gapgrid.api.config import Settings
from gapgrid.api.problems import INVALID_REQUEST, Problem, pointer
from gapgrid.api.schemas_solving import (
    CERTIFICATION_FIELDS,
    HINT_RESULT,
    LEADERBOARD_ENTRY_FIELDS,
    SOLUTION,
    hint_request,
)
from gapgrid.api.services.games import MAX_SECONDS
from gapgrid.api.services.puzzles import PLAYER_PATTERN

MOVE_LENGTH: Final = 16
DEAL_LENGTH: Final = 48
MAX_ERRORS: Final = 10


def _moves(settings: Settings) -> dict[str, Any]:
    return {"type": "array", "maxItems": settings.max_moves,
            "items": {"type": "string", "minLength": 1, "maxLength": MOVE_LENGTH},
            "description": "Moves in gapgrid notation: F-T (the card in slot F into the gap at "
                           "slot T), redeal, undo."}


def _game(settings: Settings) -> dict[str, Any]:
    """The fields naming a game and the moves played in it."""
    return {
        "variant": {"type": "string", "minLength": 1, "maxLength": 64,
                    "description": "A variant or preset slug, or another name."},
        "options": {"type": "object", "maxProperties": 16,
                    "additionalProperties": {"type": ["string", "integer"]},
                    "description": "Rule options, e.g. {\"redeals\": \"unlimited\"}."},
        "deal": {"type": "string", "minLength": 1, "maxLength": DEAL_LENGTH,
                 "description": "A PySolFC game number, as a string."},
        "moves": _moves(settings),
    }


def request_schemas(settings: Settings) -> dict[str, dict[str, Any]]:
    """Schemas of the request bodies, with the limits of ``settings``."""
    return {
        "VerifyRequest": {
            "type": "object",
            "required": ["variant", "deal", "moves"],
            "additionalProperties": False,
            "properties": {
                **_game(settings),
                "scoring": {"type": "array", "maxItems": 16,
                            "items": {"type": "string", "minLength": 1, "maxLength": 64},
                            "description": "Scheme names, or [\"all\"]; omitted or empty: "
                                           "every scheme."},
                "elapsed": {"type": "number", "minimum": 0, "maximum": MAX_SECONDS,
                            "description": "Seconds the game took, when known (time bonuses "
                                           "and the par ranking use it)."},
                "timed": {"type": "boolean",
                          "description": "The game was played in the timed (3-minute) mode."},
            },
        },
        "MovesRequest": {
            "type": "object",
            "required": ["variant", "deal", "moves"],
            "additionalProperties": False,
            "properties": _game(settings),
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
        "HintRequest": hint_request(_game(settings)),
    }


ROWS: Final = {"type": "array", "items": {"type": "array",
                                          "items": {"type": ["string", "null"]}},
               "description": "Rows of card codes (\"TD\"), null for a gap."}

_REPLAY: Final[dict[str, Any]] = {
    "variant": {"type": "string", "description": "The variant's slug."},
    "deal": {"type": "string", "description": "The game number, as gapgrid writes it."},
    "options": {"type": "object", "description": "The rule options in force."},
    "ok": {"type": "boolean", "description": "Every move was legal."},
    "won": {"type": "boolean", "description": "The position reached is won."},
    "moves_applied": {"type": "integer",
                      "description": "Moves applied before the end or the refused one."},
    "redeals_used": {"type": "integer", "description": "Redeals in effect."},
    "redeals_left": {"type": ["integer", "string"],
                     "description": "Redeals still allowed, or \"unlimited\"."},
    "rows": ROWS,
    "error": {"type": ["object", "null"],
              "description": "The refused move (index from 0, the move, a stable kind, a "
                             "reason), or null.",
              "properties": {
                  "index": {"type": "integer"}, "move": {"type": "string"},
                  "kind": {"type": "string"}, "reason": {"type": "string"}}},
}
"""The fields every replay document has."""

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
        "description": "A variant (a game PySolFC knows, or a third-party one) or a preset (a "
                       "variant with rule options chosen).",
        "required": ["slug", "name", "kind", "rows", "rstep", "rbase", "redeals", "options",
                     "summary"],
        "properties": {
            "slug": {"type": "string", "description": "The name in URLs and on the command "
                                                      "line: montana, blue-moon, gaps."},
            "name": {"type": "string", "description": "The name players know: Blue Moon."},
            "kind": {"enum": ["variant", "preset"],
                     "description": "A variant, or a preset: a variant with options chosen."},
            "other_names": {"type": "array", "items": {"type": "string"},
                            "description": "Other names accepted for it: Rangoon, Addiction."},
            "pysolfc_id": {"type": ["integer", "null"],
                           "description": "PySolFC's game id, or null when PySolFC lacks the "
                                          "game."},
            "base": {"type": ["string", "null"],
                     "description": "The slug of the variant it builds on (a preset's "
                                    "variant), or null."},
            "rows": {"type": "integer", "description": "Rows of the grid (PySolFC: RLEN // "
                                                       "RSTEP)."},
            "rstep": {"type": "integer",
                      "description": "Slots per row (PySolFC's RSTEP): slot = row * rstep + "
                                     "column, so a slot's row and column follow from it."},
            "rbase": {"type": "integer",
                      "description": "The rank that heads a finished row (PySolFC's RBASE), "
                                     "Ace = 0: 1 (Two) in Montana, 0 (Ace) in Blue Moon."},
            "rlen": {"type": "integer",
                     "description": "Number of slots, rows * rstep (PySolFC's RLEN); slots "
                                    "run from 0 to rlen - 1."},
            "decks": {"type": "integer", "description": "Full decks the cards come from."},
            "ranks": {"type": "array", "items": {"type": "integer"},
                      "description": "The ranks in play, Ace = 0 to King = 12, in order "
                                     "(PySolFC's GameInfo.ranks): all 13, or fewer, e.g. "
                                     "Paganini's Ace and 6 to King."},
            "redeals": {"type": ["integer", "string"],
                        "description": "How many redeals: a number, or \"unlimited\"."},
            "redeal_placement": {"type": "string",
                                 "description": "Where a redeal leaves the gaps: after-runs, "
                                                "random, last-column, no-shuffle."},
            "redeal_when": {"type": "string",
                            "description": "When a redeal is allowed: anytime, or stuck (only "
                                           "when no card move is left)."},
            "preset_options": {"type": "object",
                               "description": "The options a preset chooses ({} for a "
                                              "variant)."},
            "options": {"type": "array", "items": {"type": "object"},
                        "description": "The rule options it accepts: key, values, choices, "
                                       "summary."},
            "summary": {"type": "string", "description": "The rules, in short."},
            "plugin": {"type": "string", "description": "The plugin that provides it."},
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
        "description": "A replay: every move checked in turn; gapgrid verify --json prints the "
                       "same document.",
        "required": ["ok", "won", "moves_applied", "rows", "error"],
        "properties": {
            **_REPLAY,
            "scores": {"type": ["object", "null"],
                       "description": "The summary terms (cards_in_sequence, finished_rows, "
                                      "redeals_used, undos, moves) and one entry per scheme "
                                      "with total, breakdown, better, sort_key, explanation; "
                                      "every scheme unless scoring chose some; null when a "
                                      "move was refused."},
        },
    },
    "MovesResult": {
        "type": "object",
        "description": "The position the moves lead to (or, when one is refused, the position "
                       "before it) and what can be played there; gapgrid moves --json prints "
                       "the same document.",
        "required": ["ok", "won", "moves_applied", "rows", "error", "stuck", "redeal_allowed",
                     "legal_moves"],
        "properties": {
            **_REPLAY,
            "stuck": {"type": "boolean",
                      "description": "No card move is left (also true once the game is won)."},
            "redeal_allowed": {"type": "boolean",
                               "description": "A redeal is allowed in this position."},
            "legal_moves": {
                "type": "array",
                "description": "Every legal card move, gap by gap in slot order.",
                "items": {"type": "object", "required": ["move", "source", "target", "card"],
                          "properties": {
                              "move": {"type": "string", "description": "In notation: F-T."},
                              "source": {"type": "integer",
                                         "description": "The slot the card leaves."},
                              "target": {"type": "integer",
                                         "description": "The gap it fills."},
                              "card": {"type": "string",
                                       "description": "The card's code, e.g. 7D."}}}},
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
            "puzzle": {"type": "string"},
            "ranking": {"type": "string",
                        "description": "The scoring scheme the ranking follows "
                                       "(GAPGRID_RANKING)."},
            "page": {"type": "integer"},
            "per_page": {"type": "integer"}, "total": {"type": "integer"},
            "entries": {"type": "array", "items": {"type": "object", "properties": {
                "rank": {"type": "integer"}, "player": {"type": "string"},
                "won": {"type": "boolean"}, "moves": {"type": "integer"},
                "seconds": {"type": ["number", "null"]},
                "submitted_at": {"type": "string"},
                "score": {"type": "integer",
                          "description": "The total of the ranking scheme."}}}},
            "next": {"type": ["string", "null"],
                     "description": "The next page's URL, or null on the last page."},
        },
    },
}


# The solver's part (certificates, hints, solutions) is defined in schemas_solving.
RESPONSE_SCHEMAS["Puzzle"]["properties"].update(CERTIFICATION_FIELDS)
RESPONSE_SCHEMAS["Leaderboard"]["properties"]["par"] = CERTIFICATION_FIELDS["par"]
RESPONSE_SCHEMAS["Leaderboard"]["properties"]["entries"]["items"]["properties"].update(
    LEADERBOARD_ENTRY_FIELDS)
RESPONSE_SCHEMAS.update({"HintResult": HINT_RESULT, "Solution": SOLUTION})


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
