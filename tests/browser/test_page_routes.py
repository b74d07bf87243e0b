"""The page's routes, without a browser: what ``api.page`` serves and with which headers."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from gapgrid import plugins
from gapgrid.api.app import create_app
from gapgrid.api.config import Settings
from gapgrid.api.page import CONTENT_SECURITY_POLICY, STATIC

NOW = datetime.datetime(2026, 11, 30, 12, 0, tzinfo=datetime.UTC)


@pytest.fixture
def client(tmp_path: Path) -> FlaskClient:
    """A test client of an app on a temporary instance, at a fixed time."""
    settings = Settings.from_environment({"GAPGRID_INSTANCE": str(tmp_path / "instance"),
                                          "GAPGRID_SECRET_KEY": "page-test-secret"})
    app = create_app(settings, catalogue=plugins.load_catalogue(disabled=()),
                     clock=lambda: NOW)
    return app.test_client()


@pytest.mark.parametrize(("path", "status"), [
    ("/", 200), ("/play/montana", 200), ("/play/Rangoon", 200), ("/play/blue-moon/2026-11-02", 200),
    ("/play/no-such-game", 404), ("/play/no-such-game/2026-11-02", 404),
    ("/play/montana/notadate", 404), ("/play/montana/2026-02-30", 404),
    ("/play/montana/20261102", 404), ("/play/montana/2099-01-01", 404)])
def test_pages_are_html_shells_with_a_strict_policy(client: FlaskClient, path: str,
                                                    status: int) -> None:
    """Each page is an HTML shell that may load and ask only its own origin; for a variant
    no name finds or a day without a puzzle, with status 404 (it was 200), the page saying
    why from the API."""
    response = client.get(path)
    assert response.status_code == status
    assert response.mimetype == "text/html"
    assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert "connect-src 'self'" in CONTENT_SECURITY_POLICY
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    # without JavaScript the page says so, not "Loading the puzzle…" for ever
    assert '<noscript><p class="message" data-kind="error">This page plays in JavaScript' in (
        response.get_data(as_text=True))


def _crawlable(rules: str, path: str) -> bool:
    """Whether ``path`` may be crawled under ``rules`` as RFC 9309 reads them for every
    crawler: the longest matching rule decides, ``*`` matching any characters."""
    matched = ("allow", "")
    for line in rules.splitlines():
        kind, _, pattern = line.partition(":")
        kind, pattern = kind.strip().lower(), pattern.strip()
        if kind in ("allow", "disallow") and pattern:
            regex = ".*".join(re.escape(part) for part in pattern.split("*"))
            if re.match(regex, path) and len(pattern) > len(matched[1]):
                matched = (kind, pattern)
    return matched[0] == "allow"


def test_crawlers_are_kept_to_today_s_pages(client: FlaskClient) -> None:
    """robots.txt lets crawlers see today's pages but neither the API nor a past day's page
    (each would make and certify that day's puzzle, keeping the one search from hints); the
    page marks its link to the day before nofollow (tests/browser/test_play.py)."""
    response = client.get("/robots.txt")
    assert response.status_code == 200 and response.mimetype == "text/plain"
    rules = response.get_data(as_text=True)
    assert "User-agent: *" in rules
    assert [path for path in ("/", "/play/montana", "/play/blue-moon", "/assets/js/play.js",
                              "/v1/daily/montana", "/v1/variants", "/v1/variants/gaps")
            if not _crawlable(rules, path)] == []
    assert [path for path in ("/play/montana/2026-11-29", "/v1/puzzles/2026-11-29/montana",
                              "/v1/hint", "/v1/openapi.json") if _crawlable(rules, path)] == []


def test_assets_are_served_with_their_types(client: FlaskClient) -> None:
    """Scripts are JavaScript modules and the stylesheet is CSS, from /assets/."""
    script = client.get("/assets/js/play.js")
    assert script.status_code == 200
    assert script.mimetype in ("text/javascript", "application/javascript")
    assert client.get("/assets/css/gapgrid.css").mimetype == "text/css"
    assert client.get("/assets/favicon.svg").mimetype == "image/svg+xml"


def test_assets_do_not_reach_outside_their_folder(client: FlaskClient) -> None:
    """A path that climbs out of api/static/ is not served."""
    assert client.get("/assets/../page.py").status_code == 404
    assert client.get("/assets/%2e%2e/page.py").status_code == 404


@pytest.mark.parametrize("path", ["/play", "/play/"])
def test_play_without_a_game_goes_to_today_s_puzzles(client: FlaskClient, path: str) -> None:
    """An address cut short at /play leads to the list of today's puzzles, not to the
    API's JSON 404 shown raw in the browser."""
    response = client.get(path)
    assert response.status_code == 302
    assert response.headers["Location"] == "/"


def test_the_api_index_links_its_parts(client: FlaskClient) -> None:
    """/v1/ names the OpenAPI document, the variants and today's puzzle of each variant."""
    response = client.get("/v1/")
    assert response.status_code == 200
    index = response.get_json()
    assert index["openapi"] == "/v1/openapi.json"
    assert client.get(index["openapi"]).status_code == 200
    assert index["today"] == "2026-11-30"
    variants = client.get(index["variants"]).get_json()
    assert [entry["slug"] for entry in index["daily"]] == [v["slug"] for v in variants]
    first = index["daily"][0]
    assert client.get(first["puzzle"]).get_json()["date"] == "2026-11-30"
    assert first["play"] == f"/play/{first['slug']}"
    assert client.get(first["leaderboard"]).status_code == 200
    without_slash = client.get("/v1")  # not an HTML redirect
    assert without_slash.status_code == 200 and without_slash.get_json() == index


def test_the_page_files_ask_nothing_of_other_sites() -> None:
    """No file of the page names another site: no CDN, no font service, no analytics."""
    files = [path for path in STATIC.rglob("*") if path.is_file()]
    assert {path.suffix for path in files} >= {".html", ".css", ".js"}
    for path in files:
        # An SVG names its XML namespace as a URL; that is a name, not a request.
        text = path.read_text(encoding="utf-8").replace('xmlns="http://www.w3.org/2000/svg"', "")
        assert not re.search(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/|@import", text), path
