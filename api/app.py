"""The Flask application factory: a thin adapter from HTTP to the service layer.

``create_app()`` reads the settings from the environment (see
:mod:`gapgrid.api.config`), loads the plugins once, checks that they provide
the ranking scheme, opens (creating or upgrading) the SQLite database,
builds the API's blueprint and its OpenAPI operation table, adds the
player's page (:mod:`gapgrid.api.page`), and keeps all of it in
``app.extensions["gapgrid"]``; nothing lives in module globals, and
importing this package registers nothing, so each app (and each test) has
its own.

Around the routes: CORS (flask-cors; reads and checks open to every
origin, starts and submissions to ``GAPGRID_CORS_ORIGINS`` only), rate
limits per client (Flask-Limiter; reads, checks and writes counted apart),
and ``OPTIONS`` answered with ``Allow`` and the same list in JSON, never as an
empty HTML page.
"""

from __future__ import annotations

import datetime
import json
import logging
import math
import time
from collections.abc import Callable
from typing import Final

from flask import Flask, Response, request
from flask_cors import CORS
from flask_limiter import Limit, Limiter
from flask_limiter.util import get_remote_address
from werkzeug.http import http_date

from gapgrid import plugins
from gapgrid.api import ratelimit
from gapgrid.api.config import ConfigError, Settings, unusable_database
from gapgrid.api.db.engine import OPEN_ERRORS
from gapgrid.api.page import register_page
from gapgrid.api.problems import register_error_handlers
from gapgrid.api.routes import EXTENSION, ApiState, build_routes
from gapgrid.api.schemas import RequestValidator
from gapgrid.api.services.puzzles import PuzzleService, check_ranking, utc_now
from gapgrid.api.text import plugin_problem_line
from gapgrid.core.catalogue import Catalogue

_log = logging.getLogger(__name__)

OPEN_TO_EVERY_ORIGIN: Final = r"/v1/.*"
STARTS_AND_SUBMISSIONS: Final = r"/v1/(puzzles/[^/]+/[^/]+/(start|submissions)|players)$"
"""Starts, submissions and player registrations: what acts under a player's name."""
EXPOSED_HEADERS: Final = ("ETag", "Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining",
                          "X-RateLimit-Reset")
"""Headers a page on another origin may read (browsers hide the others)."""

UNLIMITED_ENDPOINTS: Final = frozenset({"v1.get_health"})
"""Load balancers ask for these every few seconds: never rate-limited."""


def create_app(settings: Settings | None = None, *, catalogue: Catalogue | None = None,
               clock: Callable[[], datetime.datetime] = utc_now) -> Flask:
    """Build the puzzle API application.

    Raises :class:`~gapgrid.api.config.ConfigError` (a one-line reason) for
    settings it cannot serve with, e.g. a ranking scheme no plugin provides.
    """
    settings = settings or Settings.from_environment(create_secret=True)
    catalogue = catalogue or plugins.load_catalogue()
    check_ranking(settings, catalogue)  # before anything is created or logged
    for problem in catalogue.problems:
        _log.warning("%s", plugin_problem_line(problem))
    try:
        settings.instance.mkdir(parents=True, exist_ok=True)
        puzzles = PuzzleService.open(settings, catalogue, clock)
    except OPEN_ERRORS as error:  # the environment's fault: a one-line reason
        raise unusable_database(settings, error) from None
    app = Flask(__name__, instance_path=str(settings.instance.resolve()))
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body
    app.url_map.merge_slashes = False  # "//" is a 404 problem, not an HTML redirect
    app.json.sort_keys = False  # type: ignore[attr-defined]
    routes = build_routes(settings)
    app.extensions[EXTENSION] = ApiState(
        settings=settings, puzzles=puzzles,
        validator=RequestValidator(settings), operations=routes.operations)
    app.register_blueprint(routes.blueprint)
    register_page(app)  # the player's page: /, /play/..., /assets/...
    register_error_handlers(app)
    allow_cross_origin(app, settings)
    limit_rates(app, settings)
    app.after_request(_options_as_json)
    app.after_request(_api_security_headers)
    app.after_request(lambda response: _dated(response, clock))
    return app


def _dated(response: Response, clock: Callable[[], datetime.datetime]) -> Response:
    """The answer's ``Date`` by the clock the API decides by (when a day, its late hour and
    its solution begin), which waitress keeps rather than writing its own: the page sets its
    idea of now by it, whatever this device's clock says."""
    response.headers["Date"] = http_date(clock())
    return response


def allow_cross_origin(app: Flask, settings: Settings) -> None:
    """CORS headers and preflight answers: every origin may read, verify, ask for moves and
    hints; only ``GAPGRID_CORS_ORIGINS`` may start puzzles, submit and register players (none
    by default), sending the player's token in ``Authorization``."""
    common = {"expose_headers": list(EXPOSED_HEADERS), "max_age": 3600,
              "supports_credentials": False}
    # Registered before flask-cors's own hook, so that it runs after it (Flask runs them
    # last registered first) and sees the methods flask-cors allowed.
    app.after_request(_only_the_routes_methods)
    CORS(app, resources={
        # flask-cors tries the more specific pattern (more slashes) first
        STARTS_AND_SUBMISSIONS: {"origins": list(settings.cors_origins),
                                 "methods": ["POST", "OPTIONS"],
                                 # the player's token travels in Authorization
                                 "allow_headers": ["Content-Type", "Authorization"], **common},
        OPEN_TO_EVERY_ORIGIN: {"origins": "*", "send_wildcard": True,
                               "methods": ["GET", "HEAD", "POST", "OPTIONS"], **common},
    })


def _only_the_routes_methods(response: Response) -> Response:
    """A preflight allows only the methods its route has (``Allow``), not every method of its
    CORS resource: a browser is told at once that ``/v1/verify`` takes no GET."""
    offered = _methods_in(response, "Access-Control-Allow-Methods")
    route_has = {method.upper() for method in _methods_in(response, "Allow")}
    if request.method == "OPTIONS" and offered and route_has:
        response.headers["Access-Control-Allow-Methods"] = ", ".join(
            method for method in offered if method.upper() in route_has)
    return response


def _methods_in(response: Response, header: str) -> list[str]:
    """The methods a header of ``response`` lists (``Allow: GET, HEAD``), in its order."""
    return [method.strip() for method in response.headers.get(header, "").split(",")
            if method.strip()]


def limit_group() -> str | None:
    """Which rate limit the current request counts against: ``reads`` (GET), ``writes``
    (a POST that stores: starts, submissions, players), ``checks`` (any other POST:
    verify, moves, hint), or None (preflights, the health check)."""
    if request.method == "OPTIONS" or request.endpoint in UNLIMITED_ENDPOINTS:
        return None
    if request.method in ("GET", "HEAD"):
        return "reads"
    if request.path.startswith(("/v1/puzzles/", "/v1/players")):
        return "writes"
    return "checks"


def limit_rates(app: Flask, settings: Settings) -> Limiter:
    """Rate limits per client address, one budget per group (:func:`limit_group`), counted
    in ``GAPGRID_LIMIT_STORAGE`` (this process's memory unless configured).

    One limit whose rate and scope follow the request's group, rather than
    one limit per group: Flask-Limiter parses and resolves every limit on
    every request, so this costs a third as much. A storage that fails at
    run time lets requests through (and logs it): a game server that stops
    answering because its counter store is down would hurt every player to
    slow down a few.
    """
    rates = {"reads": settings.limit_reads, "checks": settings.limit_checks,
             "writes": settings.limit_writes}

    def rate() -> str:
        return rates[limit_group() or "reads"] or ""

    def unlimited() -> bool:
        group = limit_group()
        return group is None or rates[group] is None

    limit = Limit(rate, scope=lambda endpoint: limit_group() or "none", shared=True,
                  exempt_when=unlimited)
    # memory:// is this process's memory, counted by the lean storage of api/ratelimit.py
    storage = (f"{ratelimit.SCHEME}://" if settings.limit_storage == "memory://"
               else settings.limit_storage)
    try:
        # Flask-Limiter's own headers are off: it sets Retry-After on every response, to the
        # end of the client's window, over the seconds a 503 asks for ("a puzzle is being
        # made: try again in 21 s" came with Retry-After: 20, "in a second" with 11).
        limiter = Limiter(get_remote_address, app=app, default_limits=[limit],
                          storage_uri=storage, headers_enabled=False, swallow_errors=True,
                          strategy="fixed-window", enabled=any(rates.values()))
    except Exception as error:  # the limits library's errors share no base class
        raise ConfigError(f"GAPGRID_LIMIT_STORAGE {settings.limit_storage[:80]!r} cannot be "
                          f"used: {str(error)[:200]}") from None
    app.after_request(lambda response: _rate_limit_headers(limiter, response))
    return limiter


def _rate_limit_headers(limiter: Limiter, response: Response) -> Response:
    """``X-RateLimit-Limit``, ``-Remaining`` and ``-Reset`` (the window's end, in seconds
    since the epoch) on a limited request's answer, and on a 429 ``Retry-After``, the
    seconds to that end; any other Retry-After (a 503's) is left as its answer set it."""
    try:
        current = limiter.current_limit
        if current is None:  # not limited: a preflight, the health check, limits off
            return response
        reset_at = current.reset_at
        response.headers["X-RateLimit-Limit"] = str(current.limit.amount)
        response.headers["X-RateLimit-Remaining"] = str(current.remaining)
        response.headers["X-RateLimit-Reset"] = str(int(reset_at))
        if response.status_code == 429:
            # rounded up: a client that waits a second too little is refused again
            response.headers["Retry-After"] = str(max(1, math.ceil(reset_at - time.time())))
    except Exception:  # the counter store failed: answer without the headers (it is logged)
        _log.warning("rate limit headers left out: the limit storage failed")
    return response


API_CONTENT_SECURITY_POLICY: Final = "default-src 'none'; frame-ancestors 'none'"
"""An API answer is data: a browser that opens one runs and frames nothing of it."""


def _api_security_headers(response: Response) -> Response:
    """Every answer under /v1 is JSON for programs: a browser must not guess another type for
    it (a detail quotes client input), run anything in it, or frame it."""
    if request.path == "/v1" or request.path.startswith("/v1/"):
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Content-Security-Policy", API_CONTENT_SECURITY_POLICY)
        response.headers.setdefault("Referrer-Policy", "no-referrer")
    return response


def _options_as_json(response: Response) -> Response:
    """Flask answers OPTIONS with an empty ``text/html`` 200; answer with the same ``Allow``
    header (and, for a preflight, the CORS headers) and say it in JSON too."""
    if request.method == "OPTIONS" and response.status_code == 200 and not response.data:
        allowed = sorted(_methods_in(response, "Allow"))
        response.set_data(json.dumps({"allow": allowed}))
        response.mimetype = "application/json"
    return response
