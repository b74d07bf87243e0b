"""The JSON Schemas of the solver's part of the API: hints, solutions, and what a puzzle's
certificate adds to it. :mod:`gapgrid.api.schemas` merges them into its own, so requests
are checked with them and the OpenAPI document shows them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final


def hint_request(game_fields: Mapping[str, Any]) -> dict[str, Any]:
    """``POST /v1/hint``: the fields naming a game and its moves, and an optional token."""
    return {
        "type": "object",
        "required": ["variant", "deal", "moves"],
        "additionalProperties": False,
        "properties": {
            **game_fields,
            "token": {"type": "string", "minLength": 1, "maxLength": 512,
                      "pattern": r"^[A-Za-z0-9._\-]+$",
                      "description": "The start token of today's puzzle, when the game is "
                                     "that puzzle: the hint is recorded against it, and a "
                                     "submission made with it is marked assisted."},
        },
    }


SEARCH_FIELDS: Final[dict[str, Any]] = {
    "verdict": {"type": ["string", "null"], "enum": ["won", "lost", "unknown", None],
                "description": "won: a winning line exists from here; lost: none does; "
                               "unknown: the search found neither in its budget; null when a "
                               "move was refused (nothing was searched)."},
    "positions": {"type": "integer", "description": "Positions the search explored (0 when "
                                                    "the answer came from a known line)."},
    "seconds": {"type": "number", "description": "Seconds the search took."},
    "stopped_by": {"type": ["string", "null"],
                   "description": "For unknown: what ran out (seconds, positions, memory)."},
    "solver_version": {"type": "string", "description": "The solver's version."},
}
"""What every answer of the solver says about its search."""

HINT_RESULT: Final[dict[str, Any]] = {
    "type": "object",
    "description": "The next action of a winning line from the position the moves lead to, "
                   "and how many actions that line has left; or that the position is lost; "
                   "or that no win was found within the budget (about a second). The replay's "
                   "fields (ok, error, rows, ...) are those of POST /v1/verify.",
    "required": ["ok", "verdict", "next", "remaining"],
    "properties": {
        **SEARCH_FIELDS,
        "ok": {"type": "boolean", "description": "Every move was legal (false: see error; "
                                                 "no hint is given)."},
        "next": {"type": ["string", "null"],
                 "description": "The action to play: F-T or redeal; null unless the verdict "
                                "is won and the game is not won already."},
        "remaining": {"type": ["integer", "null"],
                      "description": "Actions the winning line has left, the next one "
                                     "included (0 when the game is won); null unless won."},
        "source": {"type": ["string", "null"], "enum": ["line", "search", None],
                   "description": "line: read off a winning line already known (a certified "
                                  "puzzle's, or one an earlier hint found); search: found now."},
        "assisted": {"type": "boolean",
                     "description": "The hint was recorded against the start token given."},
    },
}

DIFFICULTY: Final[dict[str, Any]] = {
    "type": ["object", "null"],
    "description": "How hard the puzzle is, rated by the method of docs/difficulty.md (a "
                   "simple player's playouts and the solver's effort), null when it is not "
                   "rated.",
    "properties": {
        "label": {"enum": ["easy", "medium", "hard", "expert"],
                  "description": "The quarter of the variant's calibration deals it falls "
                                 "in."},
        "value": {"type": "number",
                  "description": "Its percentile among them, 0 (easiest) to 100."},
    },
}

CERTIFICATION_FIELDS: Final[dict[str, Any]] = {
    "certified": {"type": "boolean",
                  "description": "A winning line is known for it (the solver's, or a "
                                 "player's)."},
    "par": {"type": ["integer", "null"],
            "description": "The fewest actions (card moves and redeals) known to win: the "
                           "solver's line after a shortening pass, lowered by any shorter "
                           "winning submission; null when not certified."},
    "difficulty": DIFFICULTY,
}
"""What a puzzle's certificate adds to the puzzle document."""

SOLUTION: Final[dict[str, Any]] = {
    "type": "object",
    "description": "The shortest winning line known for a day's puzzle, given once the day "
                   "is over.",
    "required": ["puzzle", "date", "variant", "deal", "par", "line"],
    "properties": {
        "puzzle": {"type": "string", "description": "The puzzle's id."},
        "date": {"type": "string", "format": "date", "description": "The UTC day."},
        "variant": {"type": "string", "description": "The variant's slug."},
        "deal": {"type": "string", "description": "The game number."},
        "options": {"type": "object", "description": "The rule options in force."},
        "certified": {"type": "boolean", "description": "Always true: a line is known."},
        "par": {"type": "integer", "description": "The line's length."},
        "line": {"type": "array", "items": {"type": "string"},
                 "description": "The actions, in order, from the deal to the win."},
        "difficulty": DIFFICULTY,
        "solver_version": {"type": ["string", "null"],
                           "description": "The solver that certified the puzzle."},
        "line_from": {"enum": ["solver", "submission"],
                      "description": "Whether the line is the solver's or a player's shorter "
                                     "one."},
    },
}

LEADERBOARD_ENTRY_FIELDS: Final[dict[str, Any]] = {
    "actions": {"type": "integer",
                "description": "Card moves and redeals: what a won game is ranked by."},
    "cards_in_sequence": {"type": "integer",
                          "description": "Cards in sequence at the end: what a game not "
                                         "won is ranked by."},
    "assisted": {"type": "boolean",
                 "description": "Hints were asked with the game's start token: it ranks after "
                                "every unassisted game of the same outcome."},
    "at_par": {"type": "boolean",
               "description": "Won in no more actions than par."},
}
"""What the fair leaderboard adds to each entry."""
