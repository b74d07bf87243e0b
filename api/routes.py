"""The HTTP API, version 1: thin handlers over the core.

Each handler is declared with :func:`operation`, which both routes it and
records what :mod:`api.openapi` needs to describe it; request bodies are
checked against the schemas in :mod:`api.schemas` that the OpenAPI
document is built from. Handlers take everything they need from
:func:`service` (kept in ``app.extensions``), never from module globals.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import attrs
from flask import Blueprint, Response, current_app, request, url_for
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from gapgrid.api import puzzles, views
from gapgrid.api.config import Settings
from gapgrid.api.problems import CONFLICT, Problem, invalid, not_found
from gapgrid.api.schemas import PLAYER_NAME, RequestValidator, pointer
from gapgrid.api.store import NewSubmission, Store
from gapgrid.core.catalogue import Catalogue, OptionError, UnknownSchemeError, UnknownVariantError
from gapgrid.core.dealnumber import DealNumber, DealNumberError, parse_deal_number
from gapgrid.core.game import new_game
from gapgrid.core.notation import Action, NotationError, parse_actions
from gapgrid.core.registry import PresetInfo, VariantInfo
from gapgrid.core.replay import replay
from gapgrid.core.rules import Rules
from gapgrid.core.scoring import GameSummary

EXTENSION: Final = "gapgrid"
JSON_TYPES: Final = ("application/json",)
IMMUTABLE: Final = "public, max-age=31536000, immutable"
MAX_PER_PAGE: Final = 100
DATE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")

blueprint = Blueprint("v1", __name__, url_prefix="/v1")


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


OPERATIONS: list[Operation] = []
"""Every route of this blueprint, in declaration order (static, like the route map)."""


def operation(method: str, path: str, summary: str, responses: Mapping[int, tuple[str, str | None]],
              *, request_schema: str | None = None, query: Sequence[Mapping[str, Any]] = ()
              ) -> Callable[[Callable[..., Response]], Callable[..., Response]]:
    """Route a handler and record its description for the OpenAPI document."""
    def register(handler: Callable[..., Response]) -> Callable[..., Response]:
        OPERATIONS.append(Operation(method, path, handler.__name__, summary, responses,
                                    request_schema, query))
        flask_path = path.replace("{", "<").replace("}", ">")
        blueprint.add_url_rule(flask_path, handler.__name__, handler, methods=[method])
        return handler
    return register


@attrs.define
class Service:
    """The service's state, kept in ``app.extensions["gapgrid"]``."""

    settings: Settings
    catalogue: Catalogue
    store: Store
    validator: RequestValidator
    clock: Callable[[], datetime.datetime]
    """Returns the current time, timezone-aware UTC (replaceable in tests)."""

    tokens: URLSafeTimedSerializer


def service() -> Service:
    """The running app's service state."""
    return current_app.extensions[EXTENSION]  # type: ignore[no-any-return]


# -- helpers -----------------------------------------------------------------------------


def respond(data: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
    """A JSON response."""
    response = Response(json.dumps(data), status=status,
                        mimetype="application/json")
    response.headers.update(dict(headers or {}))
    return response


def json_body(schema: str) -> dict[str, Any]:
    """The request's JSON body, checked against ``schema``; 415 or 422 problems otherwise."""
    if request.mimetype not in JSON_TYPES:
        raise Problem(415, "Unsupported Media Type",
                      f"send the body as application/json, not {request.mimetype or 'nothing'}")
    raw = request.get_data(cache=False)
    try:
        body = json.loads(raw, parse_constant=_refuse_constant)
    except (ValueError, UnicodeDecodeError) as error:
        raise invalid(f"the body is not valid JSON: {error}", pointer="#") from None
    except RecursionError:  # a body of thousands of nested brackets
        raise invalid("the body nests too deeply to be a request", pointer="#") from None
    service().validator.check(schema, body)
    return body  # type: ignore[no-any-return]


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not allowed")


def find_entry(name: str) -> VariantInfo | PresetInfo:
    """The variant or preset named in the path; 404 when there is none."""
    try:
        return service().catalogue.lookup(name)
    except UnknownVariantError as error:
        raise not_found(str(error)) from None


def puzzle_date(text: str) -> datetime.date:
    """The date in a puzzle path: 422 when malformed, 404 outside the served days."""
    try:
        if not DATE.fullmatch(text):
            raise ValueError(text)
        date = datetime.date.fromisoformat(text)
    except ValueError:
        raise invalid(f"{text[:40]!r} is not a date like 2026-11-30", parameter="date") from None
    return served(date)


def served(date: datetime.date) -> datetime.date:
    """``date``, if it has a puzzle: from the first day to today (UTC); 404 otherwise."""
    today = service().clock().date()
    first = service().settings.first_day
    if date > today:
        raise not_found(f"there is no puzzle for {date} yet: today (UTC) is {today}")
    if date < first:
        raise not_found(f"puzzles start on {first}")
    return date


def parse_moves(moves: list[str]) -> list[Action]:
    """Moves from a request body; a 422 pointing at the first malformed one."""
    try:
        return parse_actions(moves)
    except NotationError as error:
        raise invalid(f"{error.text!r} is not a move: {error.reason}",
                      pointer=f"#/moves/{error.index}") from None


def scored_report(rules: Rules, deal: DealNumber, actions: list[Action], names: list[str],
                  elapsed: float | None = None) -> dict[str, Any]:
    """Replay, and the command line's JSON with the scores of ``names``."""
    try:
        schemes = service().catalogue.scoring_schemes(names)
    except UnknownSchemeError as error:
        raise invalid(str(error), pointer=f"#/scoring/{names.index(error.name)}") from None
    result = replay(rules, deal, actions)
    report = views.verify_json(rules, deal, result)
    summary = GameSummary.from_replay(result, elapsed=elapsed)
    report["scores"] = views.scores_json(summary, schemes) if result.ok else None
    return report


def cached(document: dict[str, Any], date: datetime.date) -> Response:
    """A puzzle with an ETag; today's expires at the next UTC midnight, past days never."""
    etag = hashlib.sha256(json.dumps(document, sort_keys=True).encode()).hexdigest()[:32]
    now = service().clock()
    if date == now.date():
        _, ends = puzzles.day_bounds(date)
        cache_control = f"public, max-age={max(int((ends - now).total_seconds()), 0)}"
    else:
        cache_control = IMMUTABLE
    headers = {"ETag": f'"{etag}"', "Cache-Control": cache_control}
    if request.if_none_match.contains(etag):
        response = Response(status=304)
        response.headers.update(headers)
        return response
    return respond(document, headers=headers)


def live_puzzle(date_text: str, slug: str) -> dict[str, Any]:
    """Today's puzzle for start and submissions; 409 for a day that is over."""
    date = puzzle_date(date_text)
    if date != service().clock().date():
        _, ends = puzzles.day_bounds(date)
        raise Problem(409, "Puzzle closed", f"the puzzle of {date} closed at "
                                            f"{puzzles.iso(ends)}; only today's puzzle takes "
                                            f"submissions", type_=CONFLICT)
    return stored_puzzle(date, find_entry(slug))


def stored_puzzle(date: datetime.date, entry: VariantInfo | PresetInfo) -> dict[str, Any]:
    """The puzzle of ``entry`` on ``date``, stored on first use."""
    state = service()
    return puzzles.daily_puzzle(state.store, state.catalogue, state.settings.secret_key, date,
                                entry, state.clock())


def variant_document(entry: VariantInfo | PresetInfo) -> dict[str, Any]:
    """A variant or preset as the API describes it."""
    return views.entry_json(service().catalogue, entry)


# -- handlers ----------------------------------------------------------------------------

@operation("GET", "/variants", "Every variant and preset.",
           {200: ("The variants, then the presets.", "VariantList")})
def list_variants() -> Response:
    catalogue = service().catalogue
    return respond([variant_document(catalogue.lookup(slug)) for slug in catalogue.slugs()])


@operation("GET", "/variants/{slug}", "One variant or preset, by slug or other name.",
           {200: ("The variant.", "Variant"), 404: ("No such variant.", "Problem")})
def get_variant(slug: str) -> Response:
    return respond(variant_document(find_entry(slug)))


@operation("GET", "/variants/{slug}/deals/{number}",
           "The layout PySolFC deals for a game number.",
           {200: ("The layout.", "Deal"), 404: ("No such variant.", "Problem"),
            422: ("Not a game number PySolFC accepts.", "Problem")})
def get_deal(slug: str, number: str) -> Response:
    entry = find_entry(slug)
    try:
        deal = parse_deal_number(number)
    except DealNumberError as error:
        raise invalid(str(error), parameter="number") from None
    rules = service().catalogue.rules(entry.slug)
    return respond(views.deal_json(rules, deal, new_game(rules, deal).board),
                   headers={"Cache-Control": IMMUTABLE})


@operation("GET", "/daily/{slug}", "Today's puzzle (the UTC day).",
           {200: ("The puzzle.", "Puzzle"), 304: ("Not modified.", None),
            404: ("No such variant.", "Problem")})
def get_daily(slug: str) -> Response:
    entry = find_entry(slug)
    today = served(service().clock().date())
    return cached(stored_puzzle(today, entry), today)


@operation("GET", "/puzzles/{date}/{slug}", "The puzzle of a day.",
           {200: ("The puzzle.", "Puzzle"), 304: ("Not modified.", None),
            404: ("No such variant, or no puzzle that day.", "Problem"),
            422: ("Not a date.", "Problem")})
def get_puzzle(date: str, slug: str) -> Response:
    day = puzzle_date(date)
    return cached(stored_puzzle(day, find_entry(slug)), day)


@operation("POST", "/verify", "Replay moves on a deal, check each, and score the game.",
           {200: ("The replay: ok false and the index when a move is illegal.", "VerifyResult"),
            422: ("The request is not well formed.", "Problem")},
           request_schema="VerifyRequest")
def post_verify() -> Response:
    body = json_body("VerifyRequest")
    try:
        rules = service().catalogue.rules(body["variant"], body.get("options"))
    except UnknownVariantError as error:
        raise invalid(str(error), pointer="#/variant") from None
    except OptionError as error:
        raise invalid(str(error), pointer=pointer(["options", error.key])) from None
    try:
        deal = parse_deal_number(body["deal"])
    except DealNumberError as error:
        raise invalid(str(error), pointer="#/deal") from None
    actions = parse_moves(body["moves"])
    return respond(scored_report(rules, deal, actions, body.get("scoring") or ["all"]))


@operation("POST", "/puzzles/{date}/{slug}/start",
           "Start today's puzzle: a signed token that lets the server time the game.",
           {200: ("The token.", "StartToken"), 404: ("No such puzzle.", "Problem"),
            409: ("The puzzle is closed.", "Problem"), 422: ("Not a date.", "Problem")})
def post_start(date: str, slug: str) -> Response:
    puzzle = live_puzzle(date, slug)
    state = service()
    now = state.clock()
    token = state.tokens.dumps({"p": puzzle["id"], "t": int(now.timestamp() * 1000)})
    return respond({"puzzle": puzzle["id"], "token": token, "started_at": puzzles.iso(now),
                    "expires_in": state.settings.token_max_age})


@operation("POST", "/puzzles/{date}/{slug}/submissions",
           "Submit moves for today's puzzle: replayed, scored, stored once per player.",
           {201: ("Stored: the result and the player's rank.", "SubmissionResult"),
            200: ("Already stored (the same moves again), or not stored because a move is "
                  "illegal.", "SubmissionResult"),
            404: ("No such puzzle.", "Problem"),
            409: ("The player already submitted other moves, or the puzzle is closed.",
                  "Problem"),
            422: ("The request is not well formed.", "Problem")},
           request_schema="SubmissionRequest")
def post_submission(date: str, slug: str) -> Response:
    puzzle = live_puzzle(date, slug)
    body = json_body("SubmissionRequest")
    if not PLAYER_NAME.fullmatch(body["player"]):
        raise invalid("the player name has characters that are not allowed", pointer="#/player")
    state = service()
    actions = parse_moves(body["moves"])
    elapsed = token_elapsed(body["token"], puzzle["id"]) if "token" in body else None
    rules = state.catalogue.rules(puzzle["variant"], puzzle["options"])
    deal = parse_deal_number(puzzle["deal"])
    report = scored_report(rules, deal, actions, ["all"], elapsed)
    player = body["player"]
    if not report["ok"]:
        return respond({"puzzle": puzzle["id"], "player": player, "stored": False,
                        "submitted_at": None, "elapsed_seconds": elapsed, "result": report,
                        "rank": None, "players": state.store.count(puzzle["id"])})
    par = report["scores"].get("par")
    if par is None:
        raise Problem(500, "Internal Server Error", "the par scheme, which ranks submissions, "
                                                    "is not loaded")
    digest = hashlib.sha256("\n".join(str(action) for action in actions).encode()).hexdigest()
    document = {"puzzle": puzzle["id"], "player": player, "stored": True,
                "submitted_at": puzzles.iso(state.clock()), "elapsed_seconds": elapsed,
                "result": report}
    stored, created = state.store.submit(NewSubmission(
        puzzle_id=puzzle["id"], player=player, moves_digest=digest,
        sort_key=par_key(par["sort_key"]),
        body=document, created_at=document["submitted_at"]))
    if not created and stored.moves_digest != digest:
        raise Problem(409, "Already submitted",
                      f"{stored.player} already has a submission for {puzzle['id']}; the first "
                      f"verified submission is the one that counts", type_=CONFLICT)
    rank, players = state.store.rank(puzzle["id"], player)
    return respond({**stored.body, "rank": rank, "players": players},
                   status=201 if created else 200)


def token_elapsed(token: str, puzzle_id: str) -> float:
    """Seconds since the start token was issued for ``puzzle_id``; 422 when not valid."""
    state = service()
    try:
        payload = state.tokens.loads(token, max_age=state.settings.token_max_age)
    except SignatureExpired:
        raise invalid("the start token has expired", pointer="#/token") from None
    except BadSignature:
        raise invalid("the start token is not valid", pointer="#/token") from None
    if not isinstance(payload, dict) or payload.get("p") != puzzle_id or not isinstance(
            payload.get("t"), int):
        raise invalid("the start token is for another puzzle", pointer="#/token")
    elapsed: float = state.clock().timestamp() - payload["t"] / 1000
    return round(max(elapsed, 0.0), 3)


def par_key(key: list[int]) -> tuple[int, int, int, int]:
    """The par scheme's sort key as the store ranks it: (lost, moves, time unknown, ms)."""
    lost, moves, time_unknown, milliseconds = key
    return lost, moves, time_unknown, milliseconds


PAGE_PARAMETERS: Final = (
    {"name": "page", "in": "query", "required": False,
     "schema": {"type": "integer", "minimum": 1, "default": 1}},
    {"name": "per_page", "in": "query", "required": False,
     "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PER_PAGE, "default": 20}},
)


@operation("GET", "/puzzles/{date}/{slug}/leaderboard",
           "A puzzle's ranking by the par scheme: won first, then fewer moves, then less time.",
           {200: ("One page of the ranking.", "Leaderboard"),
            404: ("No such puzzle.", "Problem"), 422: ("Bad date or page.", "Problem")},
           query=PAGE_PARAMETERS)
def get_leaderboard(date: str, slug: str) -> Response:
    day = puzzle_date(date)
    puzzle = stored_puzzle(day, find_entry(slug))
    page = _query_int("page", 1, 1, None)
    per_page = _query_int("per_page", 20, 1, MAX_PER_PAGE)
    entries, total = service().store.leaderboard(puzzle["id"], (page - 1) * per_page, per_page)
    more = page * per_page < total
    return respond({"puzzle": puzzle["id"], "page": page, "per_page": per_page, "total": total,
                    "entries": entries,
                    "next": url_for(".get_leaderboard", date=date, slug=slug, page=page + 1,
                                    per_page=per_page) if more else None})


def _query_int(name: str, default: int, low: int, high: int | None) -> int:
    text = request.args.get(name)
    if text is None:
        return default
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        raise invalid(f"{name} must be a whole number", parameter=name)
    value = int(text)
    if value < low or (high is not None and value > high):
        limit = f"from {low} to {high}" if high else f"from {low}"
        raise invalid(f"{name} must run {limit}", parameter=name)
    return value


@operation("GET", "/openapi.json", "This API's OpenAPI 3.1 document.",
           {200: ("The document.", None)})
def get_openapi() -> Response:
    from gapgrid.api.openapi import openapi_document
    return respond(openapi_document(service().settings))
