"""The JSON Schemas of the API: requests are validated with these, and the OpenAPI
document is built from the same objects, so the two never disagree.
"""

from __future__ import annotations

from typing import Any, Final

import jsonschema

from gapgrid.api.config import Settings
from gapgrid.api.problems import INVALID_REQUEST, PROBLEM_TYPES, Problem, pointer
from gapgrid.api.schemas_solving import (
    CERTIFICATION_FIELDS,
    HINT_RESULT,
    LEADERBOARD_ENTRY_FIELDS,
    SOLUTION,
    hint_request,
)
from gapgrid.api.services.games import MAX_REDEALS, MAX_SECONDS

MOVE_LENGTH: Final = 16
DEAL_LENGTH: Final = 48
MAX_ERRORS: Final = 10


def _moves(settings: Settings) -> dict[str, Any]:
    return {"type": "array", "maxItems": settings.max_moves,
            "items": {"type": "string", "minLength": 1, "maxLength": MOVE_LENGTH},
            "description": "Moves in gapgrid notation: F-T (the card in slot F into the gap at "
                           f"slot T), redeal, undo; at most {MAX_REDEALS} redeals, undone ones "
                           "included."}


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
                "player": _player(settings),
                "moves": _moves(settings),
                "token": {"type": "string", "minLength": 1, "maxLength": 512,
                          "pattern": r"^[A-Za-z0-9._\-]+$",
                          "description": "The token from .../start, to have the time scored."},
            },
        },
        "HintRequest": hint_request(_game(settings)),
        "PlayerRequest": {
            "type": "object",
            "required": ["player"],
            "additionalProperties": False,
            "properties": {"player": _player(settings)},
        },
        "StartRequest": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"player": {
                **_player(settings),
                "description": "Optional: the player the game is for; a name a player owns "
                               "needs their token (Authorization: Bearer ...), and the start "
                               "token is then good for that player's submission only."}},
        },
    }


def _player(settings: Settings) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": settings.max_player_length,
            "description": "A player name: letters and digits of any script, spaces, '_', "
                           "'.' and '-', starting and ending with a letter or digit; no "
                           "invisible characters. Names equal after Unicode NFKC, case "
                           "folding and collapsing spaces are one player (Bob, bob, Ｂob)."}


ROWS: Final = {"type": "array",
               "items": {"type": "array", "items": {"type": ["string", "null"]}},
               "description": "The grid, row by row: card codes (rank A 2-9 T J Q K, suit C D H "
                              "S: \"TD\" is the 10 of diamonds), null for a gap. The slot of "
                              "a cell is row * rstep + column."}

OPTIONS_IN_FORCE: Final = {"type": "object", "additionalProperties": {"type": "string"},
                           "description": "The rule options in force, as key: value strings "
                                          "({} when none is chosen)."}

REFUSAL_KINDS: Final = ("off-board", "from-gap", "to-card", "misfit", "won", "no-redeal-left",
                        "variant-has-no-redeal", "not-stuck", "nothing-to-undo")
"""The stable codes of a refused move (:class:`gapgrid.core.game.Refusal`)."""

_REPLAY: Final[dict[str, Any]] = {
    "variant": {"type": "string", "description": "The variant's slug."},
    "deal": {"type": "string", "description": "The game number, as gapgrid writes it."},
    "options": OPTIONS_IN_FORCE,
    "ok": {"type": "boolean", "description": "Every move was legal."},
    "won": {"type": "boolean", "description": "The position reached is won."},
    "moves_applied": {"type": "integer",
                      "description": "Moves applied before the end or the refused one."},
    "redeals_used": {"type": "integer", "description": "Redeals in effect."},
    "redeals_left": {"type": ["integer", "string"],
                     "description": "Redeals the rules still allow, or \"unlimited\"."},
    "redeals_cap_left": {"type": "integer", "minimum": 0, "maximum": MAX_REDEALS,
                         "description": f"Redeals this game may still ask for under the "
                                        f"cap of {MAX_REDEALS} a game, undone ones "
                                        f"included, whatever the rules allow: a redeal "
                                        f"needs both counts above 0."},
    "rows": ROWS,
    "error": {"oneOf": [{"$ref": "#/components/schemas/RefusedMove"}, {"type": "null"}],
              "description": "The first refused move, or null when every move was legal."},
}
"""The fields every replay document has."""

_ENTRY: Final[dict[str, Any]] = {
    "type": "object",
    "description": "One line of a leaderboard.",
    "required": ["rank", "player", "won", "moves", "seconds", "submitted_at", "score"],
    "properties": {
        "rank": {"type": "integer", "description": "1 for the best; ties share a rank."},
        "player": {"type": "string", "description": "The name, as first submitted."},
        "won": {"type": "boolean", "description": "The game was won."},
        "moves": {"type": "integer", "description": "Cards moved, undone ones included."},
        "seconds": {"type": ["number", "null"],
                    "description": "The time the start token measured, or null without one."},
        "submitted_at": {"type": "string", "format": "date-time",
                         "description": "When the submission was stored (UTC)."},
        "score": {"type": "integer", "description": "The total of the ranking scheme."},
    },
}

RESPONSE_SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "Problem": {
        "type": "object",
        "description": "An RFC 9457 problem document: every error answer is one, never HTML.",
        "required": ["type", "title", "status"],
        "properties": {
            "type": {"type": "string",
                     "description": "A URI naming the kind of problem: about:blank, or one "
                                    "of " + ", ".join(PROBLEM_TYPES) + "."},
            "title": {"type": "string", "description": "A short summary of the kind."},
            "status": {"type": "integer", "description": "The HTTP status code."},
            "detail": {"type": "string",
                       "description": "What went wrong with this request, for people; it "
                                      "quotes input only as a short excerpt."},
            "instance": {"type": "string", "description": "The request's path."},
            "errors": {"type": "array",
                       "description": "Each faulty field, for a 422; the whole body (#), "
                                      "for a 400.",
                       "items": {"type": "object", "properties": {
                           "detail": {"type": "string",
                                      "description": "What is wrong with the field."},
                           "pointer": {"type": "string",
                                       "description": "A JSON Pointer into the body, as a "
                                                      "URI fragment: #/moves/3 is the fourth "
                                                      "move."},
                           "parameter": {"type": "string",
                                         "description": "The path or query parameter at "
                                                        "fault."}}}},
        },
    },
    "RefusedMove": {
        "type": "object",
        "description": "The first move the rules refused.",
        "required": ["index", "move", "kind", "reason"],
        "properties": {
            "index": {"type": "integer",
                      "description": "Its position in the moves sent, counted from 0."},
            "move": {"type": "string", "description": "The move, in notation."},
            "kind": {"enum": list(REFUSAL_KINDS),
                     "description": "A stable code: off-board (no such slot), from-gap (no "
                                    "card to move), to-card (the target is not a gap), misfit "
                                    "(the card does not fit there), won (the game is over), "
                                    "no-redeal-left, variant-has-no-redeal, not-stuck (a "
                                    "redeal only when no move is left), nothing-to-undo."},
            "reason": {"type": "string",
                       "description": "Why, for people, with card codes: \"slot 3 is not a "
                                      "gap: it holds 2D\"."},
        },
    },
    "Scores": {
        "type": "object",
        "description": "The summary terms every scheme scores from, then one entry per "
                       "scoring scheme (by name: cards, frontier, par, and any a plugin "
                       "adds) with that scheme's score.",
        "required": ["cards_in_sequence", "finished_rows", "redeals_used", "undos", "moves"],
        "properties": {
            "cards_in_sequence": {"type": "integer",
                                  "description": "Cards in their row's sequence from its "
                                                 "first column."},
            "finished_rows": {"type": "integer", "description": "Rows complete in sequence."},
            "redeals_used": {"type": "integer", "description": "Redeals in effect."},
            "undos": {"type": "integer", "description": "Undos played."},
            "moves": {"type": "integer", "description": "Cards moved, undone ones included."},
        },
        "additionalProperties": {"$ref": "#/components/schemas/SchemeScore"},
    },
    "SchemeScore": {
        "type": "object",
        "description": "One scheme's score of a game. Schemes may add fields of their own "
                       "(frontier: badges, allowance_seconds).",
        "required": ["total", "breakdown", "better", "sort_key", "explanation"],
        "properties": {
            "total": {"type": "integer", "description": "The score."},
            "breakdown": {"type": "object", "additionalProperties": {"type": "integer"},
                          "description": "The points of each term, by name; they add up to "
                                         "the total for point schemes."},
            "better": {"enum": ["higher", "lower"],
                       "description": "Whether a higher or a lower total is better."},
            "sort_key": {"type": "array", "items": {"type": "integer"},
                         "description": "Sorting keys ascending orders games best first."},
            "explanation": {"type": "string", "description": "The score in words."},
            "time_scored": {"type": "boolean",
                            "description": "Whether the game's time counted in the score."},
        },
        "additionalProperties": True,
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
            "preset_options": {"type": "object", "additionalProperties": {
                                   "type": ["string", "integer"]},
                               "description": "The options a preset chooses ({} for a "
                                              "variant)."},
            "options": {"type": "array", "description": "The rule options it accepts.",
                        "items": {"type": "object", "properties": {
                            "key": {"type": "string",
                                    "description": "The option's name, as in --option "
                                                   "KEY=VALUE and the options object."},
                            "values": {"type": "string",
                                       "description": "The values it takes, in words."},
                            "choices": {"type": "array", "items": {"type": "string"},
                                        "description": "Every value it takes, when they can "
                                                       "be listed ([] otherwise)."},
                            "summary": {"type": "string", "description": "What it changes."},
                        }}},
            "summary": {"type": "string", "description": "The rules, in short."},
            "plugin": {"type": "string", "description": "The plugin that provides it."},
        },
    },
    "Deal": {
        "type": "object",
        "description": "The layout PySolFC deals for a game number; gapgrid deal --json prints "
                       "the same document.",
        "required": ["variant", "deal", "rows"],
        "properties": {
            "variant": {"type": "string", "description": "The variant's slug."},
            "deal": {"type": "string", "description": "The game number, as gapgrid writes "
                                                      "it."},
            "pysolfc_title": {"type": "string",
                              "description": "The number as PySolFC's title bar shows it "
                                             "(#ms617); only for a game PySolFC has itself, "
                                             "absent for presets and third-party variants."},
            "options": OPTIONS_IN_FORCE,
            "rows": ROWS,
        },
    },
    "Puzzle": {
        "type": "object",
        "description": "A day's puzzle of one variant: the same for everyone; its deal "
                       "never changes once served (its par may fall while it takes "
                       "submissions, when a player wins in fewer actions).",
        "required": ["id", "date", "variant", "options", "deal", "rows", "starts_at", "ends_at",
                     "solution_opens_at", "rules_version"],
        "properties": {
            "id": {"type": "string", "description": "date-slug: 2026-11-30-montana."},
            "date": {"type": "string", "format": "date", "description": "The UTC day."},
            "variant": {"type": "string", "description": "The variant's slug."},
            "name": {"type": "string", "description": "The variant's name."},
            "options": OPTIONS_IN_FORCE,
            "deal": {"type": "string", "description": "The game number."},
            "rows": ROWS,
            "starts_at": {"type": "string", "format": "date-time",
                          "description": "When the day begins (UTC midnight)."},
            "ends_at": {"type": "string", "format": "date-time",
                        "description": "When it ends: starts close then, and submissions "
                                       "but for games started on the day."},
            "solution_opens_at": {"type": "string", "format": "date-time",
                                  "description": "An hour after it ends: games started on "
                                                 "the day may be submitted until then, with "
                                                 "their start token, and the solution opens "
                                                 "then."},
            "rules_version": {"type": "string",
                              "description": "The version of the rules it was dealt under."},
            "pysolfc": {"type": "object", "description": "How to play it in PySolFC.",
                        "properties": {
                            "game_id": {"type": "integer", "description": "PySolFC's game id."},
                            "game_number": {"type": "string",
                                            "description": "What to enter in Select game by "
                                                           "number."},
                            "how": {"type": "string", "description": "The steps, in words."},
                        }},
        },
    },
    "VerifyResult": {
        "type": "object",
        "description": "A replay: every move checked in turn; gapgrid verify --json prints the "
                       "same document.",
        "required": ["ok", "won", "moves_applied", "rows", "error"],
        "properties": {
            **_REPLAY,
            "scores": {"oneOf": [{"$ref": "#/components/schemas/Scores"}, {"type": "null"}],
                       "description": "Every scheme's score (or those scoring chose); null "
                                      "when a move was refused."},
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
        "type": "object",
        "description": "A signed start token: send it with the submission to have the time "
                       "from now to the submission scored.",
        "required": ["puzzle", "token", "started_at"],
        "properties": {
            "puzzle": {"type": "string", "description": "The puzzle's id."},
            "token": {"type": "string", "description": "The token, opaque to clients."},
            "started_at": {"type": "string", "format": "date-time",
                           "description": "When the game's clock started (UTC)."},
            "expires_in": {"type": "integer", "description": "Seconds the token stays valid."},
            "player": {"type": "string",
                       "description": "The player the game was started for, as registered "
                                      "(only when the request named one)."},
        },
    },
    "PlayerToken": {
        "type": "object",
        "description": "A registered name and its player's token, given this once.",
        "required": ["player", "token", "registered_at"],
        "properties": {
            "player": {"type": "string", "description": "The name, as registered."},
            "token": {"type": "string",
                      "description": "The player's token: send it as Authorization: Bearer "
                                     "... with every start and submission under the name. It "
                                     "is never shown again; only its SHA-256 is stored."},
            "registered_at": {"type": "string", "format": "date-time",
                              "description": "When the name was registered (UTC)."},
        },
    },
    "SubmissionResult": {
        "type": "object",
        "description": "A submission, replayed and scored, and where it ranks.",
        "required": ["puzzle", "player", "stored", "result", "rank"],
        "properties": {
            "puzzle": {"type": "string", "description": "The puzzle's id."},
            "player": {"type": "string", "description": "The name it is stored under."},
            "stored": {"type": "boolean",
                       "description": "Whether it is stored (false when a move was refused)."},
            "submitted_at": {"type": ["string", "null"], "format": "date-time",
                             "description": "When it was stored (UTC), or null."},
            "elapsed_seconds": {"type": ["number", "null"],
                                "description": "The time from the start token, or null "
                                               "without one."},
            "result": {"$ref": "#/components/schemas/VerifyResult",
                       "description": "The replay and its scores, as POST /v1/verify answers."},
            "rank": {"type": ["integer", "null"],
                     "description": "Its rank on the leaderboard; null when not stored, "
                                    "or when the leaderboard is still being brought up to "
                                    "date (submissions stored without a key for the "
                                    "ranking scheme are keyed a batch a request)."},
            "players": {"type": "integer", "description": "Players ranked on the puzzle "
                                                          "(absent when a stored "
                                                          "submission's rank is null)."},
            "player_token": {"type": "string",
                             "description": "Only in the answer that registered the name "
                                            "(the first stored submission under it): the "
                                            "player's token, for Authorization: Bearer ... "
                                            "from now on. Never shown again."},
        },
    },
    "Leaderboard": {
        "type": "object",
        "description": "One page of a puzzle's ranking, best first.",
        "required": ["puzzle", "ranking", "page", "per_page", "total", "entries", "next"],
        "properties": {
            "puzzle": {"type": "string", "description": "The puzzle's id."},
            "ranking": {"type": "string",
                        "description": "The scoring scheme the ranking follows "
                                       "(GAPGRID_RANKING)."},
            "page": {"type": "integer", "description": "This page's number, from 1."},
            "per_page": {"type": "integer", "description": "Entries per page."},
            "total": {"type": "integer", "description": "Entries on all pages."},
            "entries": {"type": "array", "items": _ENTRY,
                        "description": "This page's entries, best first."},
            "next": {"type": ["string", "null"],
                     "description": "The next page's URL, or null on the last page."},
        },
    },
    "ApiIndex": {
        "type": "object",
        "description": "Where this API's parts are; every address is relative to the server.",
        "required": ["name", "version", "openapi", "variants", "verify", "page", "today",
                     "daily"],
        "properties": {
            "name": {"type": "string", "description": "This API's name."},
            "version": {"enum": ["v1"], "description": "The API's version, its paths' prefix."},
            "openapi": {"type": "string", "description": "This API's OpenAPI document."},
            "variants": {"type": "string", "description": "The list of variants and presets."},
            "verify": {"type": "string", "description": "Where moves on any deal are checked."},
            "page": {"type": "string", "description": "The player's page in the browser."},
            "today": {"type": "string", "format": "date",
                      "description": "Today, the UTC day of the daily puzzles listed."},
            "daily": {
                "type": "array", "description": "One entry a variant, as GET /v1/variants lists "
                                                "them.",
                "items": {
                    "type": "object",
                    "required": ["slug", "name", "puzzle", "leaderboard", "play"],
                    "properties": {
                        "slug": {"type": "string", "description": "The variant's slug."},
                        "name": {"type": "string", "description": "The variant's name."},
                        "puzzle": {"type": "string", "description": "Its puzzle of today."},
                        "leaderboard": {"type": "string",
                                        "description": "The leaderboard of that puzzle."},
                        "play": {"type": "string",
                                 "description": "The player's page for that puzzle."},
                    },
                },
            },
        },
    },
    "Health": {
        "type": "object",
        "description": "This process is ready to serve.",
        "required": ["status", "version", "database"],
        "properties": {
            "status": {"enum": ["ok"], "description": "Always ok in a 200 answer."},
            "version": {"type": "string", "description": "The gapgrid version serving."},
            "database": {"enum": ["reachable"], "description": "The database answered."},
        },
    },
    "OpenApiDocument": {
        "type": "object",
        "description": "An OpenAPI 3.1 document: this one.",
        "required": ["openapi", "info", "paths"],
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
        found = [item for error in errors for item in _found(error)][:MAX_ERRORS]
        raise Problem(422, "Invalid request", "; ".join(
            f"{item['pointer']}: {item['detail']}" for item in found),
            type_=INVALID_REQUEST, errors=found)


def _found(error: jsonschema.ValidationError) -> list[dict[str, str]]:
    """The problem's entries for ``error``: one for each field a closed object does not
    know, pointing at the field itself (``#/extra``, not the object ``#``), else one."""
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {})
        unknown = [name for name in error.instance if name not in known][:MAX_ERRORS]
        if unknown:
            return [{"pointer": pointer([*error.absolute_path, name]), "detail": "unknown field"}
                    for name in unknown]
    return [{"pointer": pointer(error.absolute_path), "detail": _message(error)}]


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
