"""The player's page: static HTML, CSS and JavaScript modules served beside the API.

:func:`register_page` adds to an app made by :func:`api.app.create_app`:

* ``/``: today's puzzles, one per variant and preset;
* ``/play/<slug>`` and ``/play/<slug>/<date>``: today's or a past day's puzzle, played in
  the browser;
* ``/assets/...``: the page's files from ``api/static/`` (shipped inside the wheel);
* ``/robots.txt``: crawlers kept to today's pages (:data:`ROBOTS`).

The page is a client of the public API and nothing else: it asks the same
endpoints any app would, so it cannot know more than they say. Every page
is sent with a Content-Security-Policy that lets it load and ask only its own
origin, which is how "no request anywhere but the API" is kept, not merely
promised.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from flask import Blueprint, Flask, Response, redirect, send_from_directory
from werkzeug.wrappers import Response as WerkzeugResponse

from gapgrid.api.routes import state
from gapgrid.api.services.errors import ServiceError
from gapgrid.core.catalogue import UnknownVariantError

STATIC: Final = Path(__file__).with_name("static")
"""The page's files: HTML shells, ``css/`` and ``js/`` modules, ``favicon.svg``."""

CONTENT_SECURITY_POLICY: Final = "; ".join((
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
))
"""Only this origin, for every kind of request the page can make."""

ROBOTS: Final = """\
# gapgrid: today's puzzles may be crawled; past days' pages and the rest of the API
# may not. A past day's puzzle is made and certified by a search the first time it is
# asked for, and a crawler walking back day by day would keep this server's one search
# busy, so that players' hints wait.
User-agent: *
Allow: /v1/daily/
Allow: /v1/variants
Disallow: /v1/
Disallow: /play/*/
"""
"""What ``/robots.txt`` asks of crawlers (RFC 9309: the longest matching rule decides, and
``*`` matches any characters, so ``/play/*/`` is every dated page while ``/play/montana``
stays open, and a crawler that runs the pages' scripts may read today's puzzles and the
variants they show)."""


def register_page(app: Flask) -> None:
    """Serve the player's page from ``app``.

    The blueprint is built here, for each app, never at import.
    """
    page = Blueprint("page", __name__, static_folder="static", static_url_path="/assets")
    page.after_request(_secure)
    page.add_url_rule("/", view_func=home, methods=["GET"])
    page.add_url_rule("/play", view_func=every_puzzle, methods=["GET"])
    page.add_url_rule("/play/", view_func=every_puzzle, methods=["GET"])
    page.add_url_rule("/play/<slug>", view_func=play, methods=["GET"])
    page.add_url_rule("/play/<slug>/<date>", view_func=play, methods=["GET"])
    page.add_url_rule("/robots.txt", view_func=robots, methods=["GET"])
    app.register_blueprint(page)


def _shell(name: str) -> Response:
    """One of the HTML shells, never cached stale, with the page's security headers."""
    response = send_from_directory(STATIC, name, max_age=0)
    response.headers["Cache-Control"] = "no-cache"
    return response


def _secure(response: Response) -> Response:
    """Send the same security headers with every page file."""
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


def home() -> Response:
    """Today's puzzles, with par and difficulty where the API has them."""
    return _shell("home.html")


def every_puzzle() -> WerkzeugResponse:
    """``/play`` without a game: today's puzzles, where the page lists them (it was the
    API's JSON 404, shown raw to a player who cut the address short)."""
    return redirect("/", code=302)


def play(slug: str, date: str | None = None) -> Response:
    """A puzzle to play: the script reads the variant and the day from the address.

    The shell is the same for every puzzle, so an unknown variant or day is
    reported by the page from the API's own 404 problem, in the API's words.
    For a variant no name finds, or a day that has no puzzle (no date, or
    outside the days served), the shell comes with status 404 too, so that a
    link checker or a search engine does not take a mistyped address for a page.
    """
    response = _shell("play.html")  # the script reads the slug and the day from the address
    api = state()
    try:
        api.catalogue.lookup(slug)
        if date is not None:
            api.puzzles.day(date)  # as the API reads it: a date, from the first day to today
    except (UnknownVariantError, ServiceError):
        response.status_code = 404
    return response


def robots() -> Response:
    """The crawling rules, :data:`ROBOTS`."""
    return Response(ROBOTS, mimetype="text/plain", headers={"Cache-Control": "max-age=86400"})
