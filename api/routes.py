"""The HTTP API, version 1: thin handlers from HTTP to the service layer.

:func:`build_routes` makes a new blueprint and the table of its
operations each time the app factory calls it, so nothing is registered
when this module is imported and each app has its own. Each handler reads
the request (the path, the query, a JSON body checked against the schemas
in :mod:`gapgrid.api.schemas`), calls one use case of
:mod:`gapgrid.api.services`, and writes its document as JSON, adding only
what is HTTP's own (cache headers, status codes, links). A use case's
refusal becomes a problem document in :mod:`gapgrid.api.problems`.
Handlers find the service in ``app.extensions``, never in module globals.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import attrs
from flask import Blueprint, Response, current_app, request, url_for

from gapgrid.api import strict_json
from gapgrid.api.config import Settings, driver_reason
from gapgrid.api.db.engine import is_outage
from gapgrid.api.openapi import Operation, openapi_document
from gapgrid.api.problems import (
    BEARER_CHALLENGE,
    DATABASE_RETRY_AFTER,
    UNAUTHENTICATED,
    Problem,
    invalid,
    malformed,
)
from gapgrid.api.schemas import RequestValidator
from gapgrid.api.services import games
from gapgrid.api.services.puzzles import (
    MAX_PER_PAGE,
    PuzzleService,
    Served,
    day_bounds,
    solution_opens,
)
from gapgrid.api.text import excerpt
from gapgrid.core.catalogue import Catalogue

EXTENSION: Final = "gapgrid"
JSON_TYPES: Final = ("application/json",)
IMMUTABLE: Final = "public, max-age=31536000, immutable"
MAX_QUERY_DIGITS: Final = 9

_log = logging.getLogger(__name__)


@attrs.frozen
class Routes:
    """A blueprint and the description of each of its routes, made together."""

    blueprint: Blueprint
    operations: tuple[Operation, ...]


@attrs.frozen
class ApiState:
    """What the handlers need, kept in ``app.extensions["gapgrid"]``."""

    settings: Settings
    puzzles: PuzzleService
    validator: RequestValidator
    operations: tuple[Operation, ...]
    """Every route, for the OpenAPI document."""

    @property
    def catalogue(self) -> Catalogue:
        """The variants and scoring schemes the loaded plugins provide."""
        return self.puzzles.catalogue


def state() -> ApiState:
    """The running app's state."""
    return current_app.extensions[EXTENSION]  # type: ignore[no-any-return]


# -- helpers -----------------------------------------------------------------------------


def respond(data: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
    """A JSON response."""
    response = Response(json.dumps(data), status=status, mimetype="application/json")
    response.headers.update(dict(headers or {}))
    return response


def json_body(schema: str) -> dict[str, Any]:
    """The request's JSON body, checked against ``schema``: a 415 problem when it is not sent
    as JSON or is sent compressed (``Content-Encoding``), 400 when it is not JSON
    (:func:`malformed`), 422 when it is but does not fit."""
    if request.mimetype not in JSON_TYPES:
        raise Problem(415, "Unsupported Media Type",
                      f"send the body as application/json, not {request.mimetype or 'nothing'}")
    codings = [coding.strip().lower() for header in request.headers.getlist("Content-Encoding")
               for coding in header.split(",")]
    coding = next((each for each in codings if each not in ("", "identity")), None)
    if coding is not None:  # RFC 9110 15.5.16: a coding the server does not read is a 415
        raise Problem(415, "Unsupported Media Type",
                      f"send the body uncompressed: Content-Encoding {excerpt(coding)} is "
                      f"not supported", headers={"Accept-Encoding": "identity"})
    raw = request.get_data(cache=False)
    try:
        # UTF-8 only (RFC 8259): json.loads would also guess UTF-16 and UTF-32 from bytes
        body = strict_json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise malformed(f"the body is not UTF-8: {error}") from None
    except ValueError as error:
        raise malformed(f"the body is not valid JSON: {error}") from None
    except RecursionError:  # a body of thousands of nested brackets
        raise malformed("the body nests too deeply to be a request") from None
    state().validator.check(schema, body)
    return body  # type: ignore[no-any-return]


LIVE_MAX_AGE: Final = 60
"""Seconds a cache may keep a puzzle that still takes submissions (today's, yesterday's in
its late hour) before it asks again (``If-None-Match``: a 304 when unchanged): any winning
game may lower its par, or certify it. Kept until midnight, a page showed the morning's par
all day beside a leaderboard ranked by the new one."""


def cached(served: Served, *, daily: bool = False) -> Response:
    """A puzzle with an ETag; one that still takes submissions is kept
    :data:`LIVE_MAX_AGE` seconds at most (today's at most until the next UTC midnight,
    yesterday's until its late submissions end), past days for good. ``daily``: served
    at ``/v1/daily``, whose puzzle changes at midnight, so one whose day ended while it was
    made is not to be kept at all."""
    document = served.document
    etag = hashlib.sha256(json.dumps(document, sort_keys=True).encode()).hexdigest()[:32]
    now = state().puzzles.clock()
    expires = day_bounds(served.date)[1] if served.date == now.date() else solution_opens(
        served.date)
    if daily and served.date != now.date():
        cache_control = "no-cache"
    elif now < expires:
        left = max(int((expires - now).total_seconds()), 0)
        cache_control = f"public, max-age={min(left, LIVE_MAX_AGE)}"
    else:
        cache_control = IMMUTABLE
    headers = {"ETag": f'"{etag}"', "Cache-Control": cache_control}
    if request.if_none_match.contains_weak(etag):  # If-None-Match compares weakly (RFC 9110)
        response = Response(status=304)
        response.headers.update(headers)
        return response
    return respond(document, headers=headers)


def query_int(name: str, default: int, maximum: int = 10**MAX_QUERY_DIGITS - 1) -> int:
    """A whole-number query parameter, read with at most :data:`MAX_QUERY_DIGITS` digits (the
    use case checks its range, which ``maximum`` only names in the message)."""
    text = request.args.get(name)
    if text is None:
        return default
    if not (text.isascii() and text.isdigit()) or len(text) > MAX_QUERY_DIGITS:
        raise invalid(f"{name} must be a whole number from 1 to {maximum}, "
                      f"not {excerpt(text, 24)}", parameter=name)
    return int(text)


# -- handlers ----------------------------------------------------------------------------


def list_variants() -> Response:
    """Every variant, then every preset."""
    return respond(games.list_variants(state().catalogue))


def get_variant(slug: str) -> Response:
    """One variant or preset, by slug or another name."""
    return respond(games.describe_variant(state().catalogue, slug))


def get_deal(slug: str, number: str) -> Response:
    """The layout PySolFC deals for game ``number`` (immutable: cached for a year)."""
    dealt = games.deal(state().catalogue, slug, number)
    return respond(dealt.document, headers={"Cache-Control": IMMUTABLE})


def get_daily(slug: str) -> Response:
    """Today's puzzle, cached a minute at most (:func:`cached`)."""
    return cached(state().puzzles.puzzle(None, slug), daily=True)


def get_puzzle(date: str, slug: str) -> Response:
    """The puzzle of ``date``, cached until the day is over (and its late submissions),
    then for good."""
    return cached(state().puzzles.puzzle(date, slug))


def post_verify() -> Response:
    """Replay, check and score a game: ``gapgrid verify --json``'s document."""
    body = json_body("VerifyRequest")
    verification = games.verify(
        state().catalogue, variant=body["variant"], deal=body["deal"],
        moves=body["moves"], options=body.get("options"), scoring=body.get("scoring", ()),
        elapsed=body.get("elapsed"), timed=body.get("timed", False))
    return respond(verification.document)


def post_moves() -> Response:
    """A position and its legal moves: ``gapgrid moves --json``'s document."""
    body = json_body("MovesRequest")
    position = games.position(state().catalogue, variant=body["variant"],
                              deal=body["deal"], moves=body["moves"],
                              options=body.get("options"))
    return respond(position.document)


def post_hint() -> Response:
    """The next action of a winning line (about a second of search at most)."""
    body = json_body("HintRequest")
    document = state().puzzles.hint(variant=body["variant"], deal=body["deal"],
                                    moves=body["moves"], options=body.get("options"),
                                    token=body.get("token"))
    return respond(document, headers={"Cache-Control": "no-store"})


def get_solution(date: str, slug: str) -> Response:
    """The shortest winning line known for a past day's puzzle (final: cached for a year)."""
    return respond(state().puzzles.solution(date, slug), headers={"Cache-Control": IMMUTABLE})


def bearer_token() -> str | None:
    """The player token of the request's ``Authorization: Bearer ...`` header, if any; a
    401 problem for another kind of Authorization."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise Problem(401, "Unauthorized", "send the player's token as Authorization: Bearer "
                      "followed by the token", type_=UNAUTHENTICATED,
                      headers={"WWW-Authenticate": BEARER_CHALLENGE})
    return token


def post_player() -> Response:
    """Register a player name: 201 with the player's token, given this once."""
    body = json_body("PlayerRequest")
    return respond(state().puzzles.register_player(body["player"]), status=201,
                   headers={"Cache-Control": "no-store"})


def post_start(date: str, slug: str) -> Response:
    """A start token for today's puzzle (optionally for a named player)."""
    body = json_body("StartRequest") if request.content_length else {}
    return respond(state().puzzles.start(date, slug, player=body.get("player"),
                                         player_token=bearer_token()))


def post_submission(date: str, slug: str) -> Response:
    """Store a verified submission: 201 when stored now, 200 when already stored or refused."""
    body = json_body("SubmissionRequest")
    submitted = state().puzzles.submit(date, slug, player=body["player"], moves=body["moves"],
                                       token=body.get("token"), player_token=bearer_token())
    headers = {"Cache-Control": "no-store"} if "player_token" in submitted.document else {}
    return respond(submitted.document, status=201 if submitted.created else 200,
                   headers=headers)


def get_leaderboard(date: str, slug: str) -> Response:
    """One page of the ranking, with a link to the next."""
    page, per_page = query_int("page", 1), query_int("per_page", 20, MAX_PER_PAGE)
    document = state().puzzles.leaderboard(date, slug, page=page, per_page=per_page)
    more = document.pop("more")
    document["next"] = url_for(".get_leaderboard", date=date, slug=slug, page=page + 1,
                               per_page=per_page) if more else None
    return respond(document)


def get_health() -> Response:
    """Whether this process can serve: its database answers a query; and its version."""
    try:
        state().puzzles.store.puzzle("health-check")  # a read: the database is reachable
    except Exception as error:  # whatever the database's trouble, the answer is "not now"
        if is_outage(error):  # down, locked, out of disk: its reason in one line, as any
            # request's (a load balancer asks every few seconds: no traceback each time)
            _log.error("health check: the database does not answer: %s", driver_reason(error))
        else:
            _log.exception("health check: the database does not answer")
        raise Problem(503, "Service Unavailable", "the database does not answer; see the "
                      "server's log", headers={"Retry-After": str(DATABASE_RETRY_AFTER)}) from None
    return respond({"status": "ok", "version": importlib.metadata.version("gapgrid"),
                    "database": "reachable"}, headers={"Cache-Control": "no-store"})


def get_index() -> Response:
    """A small index of the API: where its description, variants and today's puzzles are."""
    api = state()
    catalogue = api.catalogue
    today = api.puzzles.today().isoformat()
    daily = [{"slug": slug, "name": catalogue.lookup(slug).name,
              "puzzle": f"/v1/daily/{slug}",
              "leaderboard": f"/v1/puzzles/{today}/{slug}/leaderboard",
              "play": f"/play/{slug}"} for slug in catalogue.slugs()]
    # The list of today's puzzles changes at UTC midnight and when plugins change.
    return respond({"name": "gapgrid puzzle API", "version": "v1",
                    "openapi": "/v1/openapi.json", "variants": "/v1/variants",
                    "verify": "/v1/verify", "page": "/", "today": today, "daily": daily},
                   headers={"Cache-Control": "no-cache"})


def get_openapi() -> Response:
    """This API's OpenAPI document."""
    api = state()
    return respond(openapi_document(api.settings, api.operations))


BEING_PREPARED: Final = ("The puzzle is being made and certified by another request, or (a "
                         "past day's) this server's search is busy, or the database does not "
                         "answer: try again after the seconds in Retry-After.", "Problem")
"""The answer of every route that may have to make a day's puzzle first, of any day."""

TODAY_BEING_PREPARED: Final = ("Today's puzzle is being made and certified by another "
                               "request, or the database does not answer: try again after "
                               "the seconds in Retry-After.", "Problem")
"""The same, for the routes of today's puzzle only (it waits for no search: each is made as
it is asked for)."""

PAGE_PARAMETERS: Final = (
    {"name": "page", "in": "query", "required": False,
     "description": "The page, from 1; a page past the last is empty.", "example": 1,
     "schema": {"type": "integer", "minimum": 1, "maximum": 10**MAX_QUERY_DIGITS - 1,
                "default": 1}},
    {"name": "per_page", "in": "query", "required": False,
     "description": f"Entries per page, 1 to {MAX_PER_PAGE}.", "example": 20,
     "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PER_PAGE, "default": 20}},
)


def build_routes(settings: Settings) -> Routes:
    """A new blueprint with every route of the API, and the table describing them."""
    blueprint = Blueprint("v1", __name__, url_prefix="/v1")
    operations: list[Operation] = []

    def add(method: str, path: str, handler: Callable[..., Response], summary: str,
            responses: Mapping[int, tuple[str, str | None]], *,
            request_schema: str | None = None, query: Sequence[Mapping[str, Any]] = (),
            body_optional: bool = False, player_token: bool = False) -> None:
        """Route ``handler`` and describe it, in one step so the two cannot disagree."""
        operations.append(Operation(method, path, handler.__name__, summary, responses,
                                    request_schema, query, body_optional, player_token))
        flask_path = path.replace("{", "<").replace("}", ">")
        # /v1 as well as /v1/ for the index: Werkzeug would redirect the first in HTML
        blueprint.add_url_rule(flask_path, handler.__name__, handler, methods=[method],
                               strict_slashes=path != "/")

    add("GET", "/variants", list_variants, "Every variant and preset.",
        {200: ("The variants, then the presets.", "VariantList")})
    add("GET", "/variants/{slug}", get_variant, "One variant or preset, by slug or other name.",
        {200: ("The variant.", "Variant"), 404: ("No such variant.", "Problem")})
    add("GET", "/variants/{slug}/deals/{number}", get_deal,
        "The layout PySolFC deals for a game number.",
        {200: ("The layout.", "Deal"), 404: ("No such variant.", "Problem"),
         422: ("Not a game number PySolFC accepts.", "Problem")})
    add("GET", "/daily/{slug}", get_daily, "Today's puzzle (the UTC day).",
        {200: ("The puzzle.", "Puzzle"), 304: ("Not modified.", None),
         404: ("No such variant.", "Problem"), 503: TODAY_BEING_PREPARED})
    add("GET", "/puzzles/{date}/{slug}", get_puzzle, "The puzzle of a day.",
        {200: ("The puzzle.", "Puzzle"), 304: ("Not modified.", None),
         404: ("No such variant, or no puzzle that day.", "Problem"),
         422: ("Not a date.", "Problem"), 503: BEING_PREPARED})
    add("POST", "/verify", post_verify,
        "Replay moves on a deal, check each, and score the game (the same document as "
        "gapgrid verify --json).",
        {200: ("The replay: ok false and the index when a move is illegal.", "VerifyResult"),
         422: ("The request is not well formed.", "Problem")},
        request_schema="VerifyRequest")
    add("POST", "/moves", post_moves,
        "The position some moves lead to, and the legal moves there (the same document as "
        "gapgrid moves --json).",
        {200: ("The position: ok false and the index when a move is illegal.", "MovesResult"),
         422: ("The request is not well formed.", "Problem")},
        request_schema="MovesRequest")
    add("POST", "/hint", post_hint,
        "The next action of a winning line from the position some moves lead to, and how "
        "many actions it has left; or lost; or unknown within about a second of search. With "
        "today's start token (or one of yesterday's game, until its late submissions end), "
        "the hint is recorded and the game's submission is assisted.",
        {200: ("The hint: ok false and the index when a move is illegal.", "HintResult"),
         422: ("The request is not well formed, or the token is not this game's.", "Problem"),
         503: ("Every search of this server (hints', puzzles') is busy: try again after "
               "Retry-After.", "Problem")},
        request_schema="HintRequest")
    add("GET", "/puzzles/{date}/{slug}/solution", get_solution,
        "The shortest winning line known for a day's puzzle, an hour after the day is over "
        "(UTC): its solution_opens_at, once games started on the day can no longer be "
        "submitted.",
        {200: ("The solution.", "Solution"),
         404: ("No such puzzle, a solution not open yet (an hour after its day: the detail "
               "says when it opens), or a puzzle with no known win.", "Problem"),
         422: ("Not a date.", "Problem"),
         503: BEING_PREPARED})
    add("POST", "/players", post_player,
        "Register a player name: the answer holds the player's token, given this once; "
        "starts and submissions under the name need it (Authorization: Bearer ...).",
        {201: ("Registered: the name and its token.", "PlayerToken"),
         409: ("A player owns the name already (any spelling equal after NFKC, case "
               "folding and collapsing spaces).", "Problem"),
         422: ("Not a name players may use.", "Problem")},
        request_schema="PlayerRequest")
    add("POST", "/puzzles/{date}/{slug}/start", post_start,
        "Start today's puzzle: a signed token that lets the server time the game. The body "
        "may name the player (a name a player owns needs their token).",
        {200: ("The token.", "StartToken"),
         401: ("The player named owns the name, and no player token was sent.", "Problem"),
         403: ("The player token sent is not the named player's.", "Problem"),
         404: ("No such puzzle.", "Problem"),
         409: ("The puzzle is closed.", "Problem"),
         422: ("Not a date, or not a player name.", "Problem"),
         503: TODAY_BEING_PREPARED},
        request_schema="StartRequest", body_optional=True, player_token=True)
    add("POST", "/puzzles/{date}/{slug}/submissions", post_submission,
        "Submit moves for today's puzzle: replayed, scored, stored once per player. A game "
        "started before midnight is taken with its start token until the puzzle's "
        "solution_opens_at, an hour later.",
        {201: ("Stored: the result and the player's rank (null while the leaderboard "
               "is being brought up to date, or when the database did not answer once "
               "the game was stored).", "SubmissionResult"),
         200: ("Already stored (the same moves again), or not stored because a move is "
               "illegal.", "SubmissionResult"),
         401: ("A player owns the name, and no player token was sent "
               "(Authorization: Bearer ...).", "Problem"),
         403: ("The player token sent is not the named player's.", "Problem"),
         404: ("No such puzzle.", "Problem"),
         409: ("The player already submitted other moves, or the puzzle is closed (its day "
               "is over, and its late submissions too, or no start token of it was sent), "
               "or, after its day, another player submitted with the start token first.",
               "Problem"),
         422: ("The request is not well formed.", "Problem"), 503: TODAY_BEING_PREPARED},
        request_schema="SubmissionRequest", player_token=True)
    add("GET", "/puzzles/{date}/{slug}/leaderboard", get_leaderboard,
        f"A puzzle's ranking by the {settings.ranking} scoring scheme (GAPGRID_RANKING), "
        f"best first; ties share a rank.",
        {200: ("One page of the ranking.", "Leaderboard"),
         404: ("No such puzzle.", "Problem"), 422: ("Bad date or page.", "Problem"),
         503: ("The puzzle is being made and certified by another request, or (a past "
               "day's) this server's search is busy, or the database does not answer, or "
               "the leaderboard is being brought up to date (submissions stored without "
               "the ranking scheme's keys are keyed a batch a request): try again after "
               "the seconds in Retry-After.", "Problem")},
        query=PAGE_PARAMETERS)
    add("GET", "/", get_index, "Where this API's parts are: its description, the variants, "
        "and today's puzzle, leaderboard and page of each variant.",
        {200: ("The index.", "ApiIndex")})
    add("GET", "/openapi.json", get_openapi, "This API's OpenAPI 3.1 document.",
        {200: ("The document.", "OpenApiDocument")})
    add("GET", "/health", get_health,
        "Whether this process can serve (its database answers), and its version; for load "
        "balancers and monitoring. Never rate-limited.",
        {200: ("The process is ready.", "Health"),
         503: ("The database does not answer.", "Problem")})
    return Routes(blueprint, tuple(operations))
