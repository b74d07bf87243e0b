"""Attacks and slips on the HTTP API (issue "Hardening"), each kept as a test: input echoed
back whole, forged token times, OPTIONS as HTML, no CORS, no rate limit, no health check,
and unclear refusals. (The OpenAPI document's completeness: test_openapi_complete.py.)"""

from __future__ import annotations

import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from itsdangerous import URLSafeTimedSerializer

from gapgrid import plugins
from gapgrid.api.app import create_app
from gapgrid.api.config import ConfigError
from gapgrid.api.services.puzzles import TOKEN_SALT
from gapgrid.core.catalogue import LoadedPlugin, build_catalogue
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game
from gapgrid.core.hookspecs import hookimpl
from gapgrid.core.registry import Registry
from gapgrid.core.scoring import GameSummary, Score, points
from tests.api import conftest
from tests.api.conftest import NOW, TODAY, Clock

PROBLEM = "application/problem+json"
CORE_GAME = Path(__file__).resolve().parents[2] / "core" / "game.py"


def problem(response: Any, status: int) -> dict[str, Any]:
    """Check ``response`` is a problem document with ``status``; return its body."""
    assert response.status_code == status, response.get_data(as_text=True)[:500]
    assert response.mimetype == PROBLEM
    return response.get_json()  # type: ignore[no-any-return]


# -- input echoed back ---------------------------------------------------------------------


@pytest.mark.parametrize(("method", "path", "body"), [
    ("GET", "/v1/variants/" + "x" * 200_000, None),
    ("GET", "/v1/variants/montana/deals/" + "9" * 100_000, None),
    ("GET", f"/v1/puzzles/{TODAY}/" + "y" * 100_000 + "/leaderboard", None),
    ("GET", f"/v1/puzzles/{TODAY}/montana/leaderboard?page=" + "7" * 100_000, None),
    ("POST", "/v1/verify", {"variant": "z" * 200_000, "deal": "1", "moves": []}),
    ("POST", "/v1/verify", {"variant": "montana", "deal": "1", "moves": [],
                            "options": {"redeals": "9" * 200_000}}),
    ("POST", "/v1/verify", {"variant": "montana", "deal": "1", "moves": [],
                            "options": {"k" * 200_000: "1"}}),
])
def test_long_input_comes_back_as_a_short_marked_excerpt(make_app: Callable[..., Flask],
                                                         method: str, path: str,
                                                         body: Any) -> None:
    """A 200,000-character slug, number, page, option or variant is quoted in a few dozen
    characters, the cut marked with an ellipsis (it came back whole: a 400 KB problem)."""
    client = make_app(max_body=1_000_000).test_client()
    response = client.open(path, method=method, json=body)
    assert response.status_code in (404, 422)
    assert response.mimetype == PROBLEM
    assert len(response.get_data()) < 2000, response.get_data()[:300]
    if method == "GET":  # quoted (a body's field is refused by the schema, unquoted)
        assert "…" in response.get_json()["detail"]


def test_errors_do_not_send_http_clients_to_the_command_line(client: FlaskClient) -> None:
    """An unknown variant names the API's list, not `gapgrid variants`, over HTTP."""
    for response in (client.get("/v1/variants/montanna"),
                     client.post("/v1/verify", json={"variant": "montanna", "deal": "1",
                                                     "moves": []})):
        detail = response.get_json()["detail"]
        assert "GET /v1/variants" in detail and "gapgrid" not in detail


def test_a_name_is_refused_with_the_real_reason(client: FlaskClient) -> None:
    """' Dan' starts with a space, 'Dan ' ends with one, 'Dan!' has a '!'; not "characters
    that are not allowed"."""
    url = f"/v1/puzzles/{TODAY}/montana/submissions"
    for name, reason in ((" Dan", "starts with a space"), ("Dan!", "has '!'"),
                         ("Dan ", "ends with a space")):
        found = problem(client.post(url, json={"player": name, "moves": []}), 422)
        assert reason in found["errors"][0]["detail"], found
        assert found["errors"][0]["pointer"] == "#/player"


def test_a_game_may_ask_for_500_redeals_and_no_more(client: FlaskClient) -> None:
    """A redeal is the costly action (a shuffle): 500 in one game are replayed, the 501st
    (undone ones counted) is a 422 on its move, so the worst request stays within issue
    15's time budget (bench/README.md)."""
    game = {"variant": "double-blue-moon", "deal": "99999999999999999999",
            "options": {"redeals": "unlimited"}}
    answer = client.post("/v1/verify", json={**game, "moves": ["redeal"] * 500})
    assert answer.status_code == 200 and answer.get_json()["ok"]
    for moves in (["redeal"] * 501, ["redeal", "undo"] * 500 + ["redeal"]):
        found = problem(client.post("/v1/verify", json={**game, "moves": moves}), 422)
        assert found["errors"][0]["pointer"] == f"#/moves/{len(moves) - 1}"
        assert "at most 500 redeals" in found["detail"]


@pytest.mark.parametrize(("redeals", "moves", "left", "cap_left", "allowed"), [
    ("unlimited", ["redeal", "undo"] * 499, "unlimited", 1, True),
    ("unlimited", ["redeal", "undo"] * 500, "unlimited", 0, False),  # a 501st is refused
    ("unlimited", ["redeal"] * 500, "unlimited", 0, False),
    ("500", ["redeal"] * 10, 490, 490, True),
    ("500", ["redeal", "undo"] * 500, 500, 0, False),  # undone: the rules give them back
    ("20", ["redeal", "undo"] * 3, 20, 497, True),
    ("20", ["redeal"] * 20, 0, 480, False),  # the rules bind first
    # a refused move: the redeals after it are not counted, the position is before it
    ("unlimited", ["redeal"] * 3 + ["0-0"] + ["redeal"] * 497, "unlimited", 497, True),
])
def test_the_documents_count_the_redeals_the_cap_still_allows(
        client: FlaskClient, redeals: str, moves: list[str], left: int | str, cap_left: int,
        allowed: bool) -> None:
    """Beside the rules' ``redeals_left`` (which the scores count), verify and moves say
    how many redeals the cap of 500 a game still allows (``redeals_cap_left``), and
    ``redeal_allowed`` is false once either is 0, so that a page offers no redeal the API
    would then refuse."""
    game = {"variant": "double-blue-moon", "deal": "7", "options": {"redeals": redeals}}
    verified = client.post("/v1/verify", json={**game, "moves": moves}).get_json()
    position = client.post("/v1/moves", json={**game, "moves": moves}).get_json()
    for document in (verified, position):
        assert (document["redeals_left"], document["redeals_cap_left"]) == (left, cap_left)
    assert position["redeal_allowed"] is allowed
    if verified["ok"]:  # one more redeal is played, or refused by the cap or the rules
        after = client.post("/v1/verify", json={**game, "moves": [*moves, "redeal"]})
        assert (after.status_code == 200 and after.get_json()["ok"]) is allowed


def test_an_absurd_page_number_gets_a_clear_message(client: FlaskClient) -> None:
    """page=99999999999999999999 says which numbers a page may have."""
    found = problem(client.get(f"/v1/puzzles/{TODAY}/montana/leaderboard"
                               f"?page=99999999999999999999"), 422)
    assert "page must be a whole number from 1 to 999999999" in found["detail"]
    assert found["errors"][0]["parameter"] == "page"
    # per_page's message gives its own range, not a page's
    found = problem(client.get(f"/v1/puzzles/{TODAY}/montana/leaderboard?per_page="), 422)
    assert "per_page must be a whole number from 1 to 100," in found["detail"]
    # zero is a whole number, refused by the range, in a whole sentence (it said "page
    # must run from 1")
    for query, detail in (("page=0", "page must be 1 or more, not 0"),
                          ("per_page=0", "per_page must be from 1 to 100, not 0"),
                          ("per_page=101", "per_page must be from 1 to 100, not 101")):
        found = problem(client.get(f"/v1/puzzles/{TODAY}/montana/leaderboard?{query}"), 422)
        assert found["detail"] == detail
        assert found["errors"][0]["parameter"] == query.split("=")[0]


def test_human_text_counts_moves_from_one_but_pointers_from_zero(client: FlaskClient) -> None:
    """The fourth move is "move 4" in the detail and #/moves/3 in the pointer."""
    found = problem(client.post("/v1/verify", json={
        "variant": "montana", "deal": "1", "moves": ["1-2", "1-2", "1-2", "up"]}), 422)
    assert found["errors"][0]["pointer"] == "#/moves/3"
    assert "move 4: 'up' is not a move" in found["detail"]


# -- start tokens ----------------------------------------------------------------------------


@pytest.mark.parametrize("issued", [True, 10**400, -1, 0, "soon",
                                    int(NOW.timestamp() * 1000) + 60_000,
                                    int(NOW.timestamp() * 1000) - 13 * 3600 * 1000])
def test_a_signed_token_with_an_absurd_time_is_refused(client: FlaskClient,
                                                      issued: object) -> None:
    """A token signed with the server's secret (a leaked or old secret, a bug) but carrying
    true, 10**400, a time in the future or before the puzzle's day is a 422 (it was a 500,
    or a 1.8e9-second game)."""
    secret = client.application.extensions["gapgrid"].settings.secret_key
    token = URLSafeTimedSerializer(secret, salt=TOKEN_SALT).dumps(
        {"p": f"{TODAY}-montana", "t": issued})
    found = problem(client.post(f"/v1/puzzles/{TODAY}/montana/submissions",
                                json={"player": "Eve", "moves": [], "token": token}), 422)
    assert found["errors"][0]["pointer"] == "#/token"


def test_an_honest_token_still_times_the_game(client: FlaskClient) -> None:
    """The token the server issued is accepted and timed."""
    token = client.post(f"/v1/puzzles/{TODAY}/montana/start").get_json()["token"]
    answer = client.post(f"/v1/puzzles/{TODAY}/montana/submissions",
                         json={"player": "Ann", "moves": [], "token": token})
    assert answer.status_code == 201 and answer.get_json()["elapsed_seconds"] == 0.0


# -- OPTIONS and CORS --------------------------------------------------------------------------


def test_options_is_answered_in_json_with_allow(client: FlaskClient) -> None:
    """OPTIONS gets the allowed methods in Allow and in JSON, never an empty HTML page; on
    a path that does not exist, a 404 problem."""
    response = client.options("/v1/verify")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert set(response.get_json()["allow"]) == {"POST", "OPTIONS"}
    assert set(response.headers["Allow"].replace(" ", "").split(",")) == {"POST", "OPTIONS"}
    problem(client.options("/v1/nowhere"), 404)


def _preflight(client: FlaskClient, path: str, origin: str) -> Any:
    return client.options(path, headers={"Origin": origin,
                                         "Access-Control-Request-Method": "POST",
                                         "Access-Control-Request-Headers": "content-type"})


def test_reads_and_checks_are_open_to_every_origin(client: FlaskClient) -> None:
    """Public reads, verify and moves carry Access-Control-Allow-Origin: * and their
    preflights are answered, whatever the origin."""
    read = client.get("/v1/variants/montana", headers={"Origin": "https://any.example"})
    assert read.headers["Access-Control-Allow-Origin"] == "*"
    assert "ETag" in client.get("/v1/daily/montana", headers={"Origin": "https://x.example"}
                                ).headers["Access-Control-Expose-Headers"]
    for path in ("/v1/verify", "/v1/moves"):
        answer = _preflight(client, path, "https://any.example")
        assert answer.status_code == 200
        assert answer.headers["Access-Control-Allow-Origin"] == "*"
        assert set(answer.headers["Access-Control-Allow-Methods"].split(", ")) == {
            "POST", "OPTIONS"}
    read = client.options("/v1/variants/montana", headers={
        "Origin": "https://any.example", "Access-Control-Request-Method": "GET"})
    assert set(read.headers["Access-Control-Allow-Methods"].split(", ")) == {
        "GET", "HEAD", "OPTIONS"}


def test_starts_and_submissions_only_from_the_configured_origins(
        make_app: Callable[..., Flask]) -> None:
    """Starts and submissions answer a browser only from GAPGRID_CORS_ORIGINS: another
    origin's preflight gets no Access-Control-Allow-Origin, so the browser stops there."""
    client = make_app(cors_origins=("https://app.example",)).test_client()
    for path in (f"/v1/puzzles/{TODAY}/montana/start",
                 f"/v1/puzzles/{TODAY}/montana/submissions"):
        allowed = _preflight(client, path, "https://app.example")
        assert allowed.headers["Access-Control-Allow-Origin"] == "https://app.example"
        refused = _preflight(client, path, "https://evil.example")
        assert "Access-Control-Allow-Origin" not in refused.headers
    plain = make_app().test_client()  # no origin configured: none is allowed
    assert "Access-Control-Allow-Origin" not in _preflight(
        plain, f"/v1/puzzles/{TODAY}/montana/start", "https://app.example").headers


# -- rate limits -----------------------------------------------------------------------------


def test_an_exceeded_limit_is_a_429_problem_with_retry_after(
        make_app: Callable[..., Flask]) -> None:
    """Past its limit a client gets 429 problems with Retry-After; the groups count apart,
    and the health check is never limited."""
    client = make_app(limit_checks="2 per minute", limit_reads="3 per minute").test_client()
    body = {"variant": "montana", "deal": "1", "moves": []}
    assert [client.post("/v1/verify", json=body).status_code for _ in range(2)] == [200, 200]
    refused = client.post("/v1/moves", json=body)  # verify and moves share one budget
    found = problem(refused, 429)
    assert "2 per 1 minute" in found["detail"]
    assert 0 < int(refused.headers["Retry-After"]) <= 61  # the minute's end, rounded up
    read = client.get("/v1/variants/montana")  # reads count apart
    assert read.status_code == 200
    # the budget left is told; Retry-After only where the answer asks to come back
    assert (read.headers["X-RateLimit-Limit"], read.headers["X-RateLimit-Remaining"]) == ("3", "2")
    assert int(read.headers["X-RateLimit-Reset"]) > 0 and "Retry-After" not in read.headers
    assert all(client.get("/v1/health").status_code == 200 for _ in range(10))


def test_limits_are_per_client(make_app: Callable[..., Flask]) -> None:
    """Another address has its own budget."""
    client = make_app(limit_reads="1 per minute").test_client()
    assert client.get("/v1/variants").status_code == 200
    assert client.get("/v1/variants").status_code == 429
    other = client.get("/v1/variants", environ_base={"REMOTE_ADDR": "192.0.2.7"})
    assert other.status_code == 200


def test_limits_can_be_turned_off(make_app: Callable[..., Flask]) -> None:
    """A limit set to None (GAPGRID_LIMIT_...=off) is not enforced."""
    client = make_app(limit_reads=None).test_client()
    assert all(client.get("/v1/variants/montana").status_code == 200 for _ in range(30))


def test_an_unusable_limit_storage_is_refused_at_start(make_app: Callable[..., Flask]) -> None:
    """GAPGRID_LIMIT_STORAGE naming no storage the limits library knows stops the start."""
    with pytest.raises(ConfigError, match="GAPGRID_LIMIT_STORAGE"):
        make_app(limit_storage="nosuch://host")


# -- health --------------------------------------------------------------------------------


def test_health_says_the_database_answers_and_the_version(client: FlaskClient) -> None:
    """GET /v1/health: 200 with the version while the database answers, never cached."""
    response = client.get("/v1/health")
    assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"
    body = response.get_json()
    assert body["status"] == "ok" and body["database"] == "reachable" and body["version"]


def test_health_is_a_503_problem_when_the_database_does_not_answer(
        client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A database that fails turns the health check into a 503 problem with Retry-After."""
    store = client.application.extensions["gapgrid"].puzzles.store

    def unreachable(*args: object) -> None:
        raise OSError("disk gone")
    monkeypatch.setattr(store, "puzzle", unreachable)
    response = client.get("/v1/health")
    found = problem(response, 503)
    assert "disk gone" not in found["detail"] and response.headers["Retry-After"]


def test_api_answers_are_data_to_a_browser(client: FlaskClient) -> None:
    """Every answer under /v1 (the index, a read, a problem quoting input) tells a browser not
    to guess its type, run or frame anything of it; the page keeps its own policy."""
    for answer in (client.get("/v1/"), client.get("/v1/variants/montana"),
                   client.get("/v1/variants/<script>"), client.options("/v1/verify")):
        assert answer.headers["X-Content-Type-Options"] == "nosniff"
        assert answer.headers["Content-Security-Policy"] == (
            "default-src 'none'; frame-ancestors 'none'")
        assert answer.headers["Referrer-Policy"] == "no-referrer"
    page = client.get("/")
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]


class _FailsOnOneMove:
    """A third party's scoring scheme with a bug the load does not meet: it fails on games of
    one move (none of the sample games the catalogue tries at load has one)."""

    def score(self, summary: GameSummary) -> Score:
        if summary.moves == 1:
            raise ZeroDivisionError("score bug")
        return points({"moves": summary.moves}, "moves")


def test_a_plugin_that_fails_is_named_in_the_problem(tmp_path: Path, clock: Clock) -> None:
    """A third-party scheme failing on a game answers a 500 problem naming the scheme and its
    plugin, the fault that is the operator's to act on (turn it off, tell its authors), not a
    bare internal error; other games still verify."""
    def register(registry: Registry) -> None:
        registry.add_scoring(name="buggy", summary="Buggy", scheme=_FailsOnOneMove())
    module = types.ModuleType("buggy_plugin")
    module.gapgrid_register = hookimpl(register)  # type: ignore[attr-defined]
    catalogue = build_catalogue([*plugins.builtin_plugins(), LoadedPlugin("buggy_plugin", module)])
    assert not catalogue.problems
    client = create_app(conftest.test_settings(tmp_path), clock=clock,
                        catalogue=catalogue).test_client()
    rules = catalogue.rules("montana")
    move = str(new_game(rules, parse_deal_number("1")).legal_moves()[0])
    body = problem(client.post("/v1/verify", json={"variant": "montana", "deal": "1",
                                                   "moves": [move]}), 500)
    assert body["title"] == "Plugin failed"
    assert body["detail"] == ("the plugin buggy_plugin failed to answer; the error has been "
                              "logged")  # its words are the log's, as any error's
    assert client.post("/v1/verify", json={"variant": "montana", "deal": "1",
                                            "moves": []}).status_code == 200
