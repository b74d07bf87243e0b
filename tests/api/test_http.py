"""The puzzle API through Flask's test client: every endpoint and every error."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.api.conftest import TODAY, Clock

GOLDEN_OPENING = ["27-40", "redeal", "15-0", "0-39"]  # Montana 27769, from the golden games
PROBLEM = "application/problem+json"


def problem(response: Any, status: int) -> dict[str, Any]:
    """Check ``response`` is an RFC 9457 problem with ``status``; return its body."""
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM
    body = json.loads(response.get_data(as_text=True))
    assert body["status"] == status and body["title"] and body["type"]
    return body  # type: ignore[no-any-return]


# -- variants and deals ------------------------------------------------------------------


def test_variants_list_every_variant_and_preset(client: FlaskClient) -> None:
    """GET /v1/variants: metadata, geometry, options with their values, and a rules text."""
    entries = {entry["slug"]: entry for entry in client.get("/v1/variants").get_json()}
    assert {"montana", "blue-moon", "gaps", "montana-relax"} <= set(entries)
    blue = entries["blue-moon"]
    assert (blue["rows"], blue["rstep"], blue["rbase"], blue["pysolfc_id"]) == (4, 14, 0, 63)
    assert blue["summary"].startswith("52 cards")
    assert {option["key"] for option in blue["options"]} == {
        "redeals", "redeal-placement", "redeal-when"}
    assert entries["gaps"]["kind"] == "preset" and entries["gaps"]["redeal_when"] == "stuck"


def test_one_variant_by_other_name(client: FlaskClient) -> None:
    """GET /v1/variants/{slug} accepts another name; an unknown one is a 404 problem."""
    assert client.get("/v1/variants/rangoon").get_json()["slug"] == "blue-moon"
    body = problem(client.get("/v1/variants/no-such-game"), 404)
    assert "unknown variant 'no-such-game'" in body["detail"]


def test_deal_of_a_game_number(client: FlaskClient) -> None:
    """GET .../deals/{number}: PySolFC's layout; the number is a string."""
    data = client.get("/v1/variants/montana/deals/%23ms1").get_json()
    assert data["deal"] == "1" and data["rows"][0][:3] == ["JD", "2D", "9H"]
    big = client.get("/v1/variants/blue-moon/deals/98765432109876543210").get_json()
    assert big["deal"] == "98765432109876543210"


@pytest.mark.parametrize("number", ["0", "ms0", "-5", "abc", "100000000000000000001"])
def test_deal_numbers_pysolfc_refuses_are_422(client: FlaskClient, number: str) -> None:
    """A number PySolFC refuses is a 422 naming the parameter."""
    body = problem(client.get(f"/v1/variants/montana/deals/{number}"), 422)
    assert body["errors"][0]["parameter"] == "number"


# -- verify --------------------------------------------------------------------------------


def test_verify_returns_the_command_lines_json(client: FlaskClient) -> None:
    """POST /v1/verify: ok, won, moves_applied, rows, error, and scores of every scheme."""
    data = client.post("/v1/verify", json={"variant": "montana", "deal": "27769",
                                           "moves": GOLDEN_OPENING}).get_json()
    assert (data["ok"], data["won"], data["moves_applied"], data["error"]) == (True, False, 4,
                                                                             None)
    assert set(data["scores"]) >= {"cards", "frontier", "par", "moves", "undos"}


def test_an_illegal_move_is_a_200_with_its_index(client: FlaskClient) -> None:
    """An illegal move is not a request error: ok false and the index."""
    response = client.post("/v1/verify", json={"variant": "montana", "deal": "27769",
                                               "moves": ["27-40", "0-3"]})
    assert response.status_code == 200
    data = response.get_json()
    assert data["ok"] is False and data["scores"] is None
    assert data["error"] == {"index": 1, "move": "0-3", "kind": "to-card",
                             "reason": "slot 3 is not a gap: it holds 7D"}


def test_verify_with_options_and_chosen_schemes(client: FlaskClient) -> None:
    """options and scoring are honoured."""
    data = client.post("/v1/verify", json={
        "variant": "montana", "deal": "27769", "moves": GOLDEN_OPENING,
        "options": {"redeals": 5}, "scoring": ["cards"]}).get_json()
    assert data["redeals_left"] == 4 and data["options"] == {"redeals": "5"}
    assert "cards" in data["scores"] and "par" not in data["scores"]


@pytest.mark.parametrize(("body", "pointer"), [
    ({"variant": "montana", "deal": "1", "moves": ["1-2", "2-x"]}, "#/moves/1"),
    ({"variant": "montana", "deal": "1", "moves": ["1-2", 7]}, "#/moves/1"),
    ({"variant": "montana", "deal": "0", "moves": []}, "#/deal"),
    ({"variant": "montana", "deal": 617, "moves": []}, "#/deal"),
    ({"variant": "no-such", "deal": "1", "moves": []}, "#/variant"),
    ({"variant": "montana", "deal": "1", "moves": [], "options": {"colour": "red"}},
     "#/options/colour"),
    ({"variant": "montana", "deal": "1", "moves": [], "options": {"redeals": "lots"}},
     "#/options/redeals"),
    ({"variant": "montana", "deal": "1", "moves": [], "scoring": ["cards", "golf"]},
     "#/scoring/1"),
    ({"variant": "montana", "deal": "1"}, "#"),
    ({"variant": "montana", "deal": "1", "moves": [], "extra": 1}, "#/extra"),  # the field
    ([1, 2, 3], "#"),
])
def test_malformed_requests_are_422_pointing_at_the_field(client: FlaskClient,
                                                         body: object, pointer: str) -> None:
    """Each malformed field gets a 422 whose errors point at it (the index for a move)."""
    found = problem(client.post("/v1/verify", json=body), 422)
    assert found["errors"][0]["pointer"] == pointer


def test_body_limits(make_app: Callable[..., Flask]) -> None:
    """Too many moves is a 422; too large a body is a 413; both problems."""
    client = make_app(max_moves=10, max_body=2000).test_client()
    body = problem(client.post("/v1/verify", json={"variant": "montana", "deal": "1",
                                                   "moves": ["1-2"] * 11}), 422)
    assert body["errors"] == [{"pointer": "#/moves", "detail": "has more than 10 items"}]
    huge = json.dumps({"variant": "montana", "deal": "1", "moves": ["12-13"] * 400})
    body = problem(client.post("/v1/verify", data=huge, content_type="application/json"), 413)
    assert "larger than 2000 bytes" in body["detail"]


def test_wrong_content_type_and_bad_json(client: FlaskClient) -> None:
    """Not sent as JSON: 415; not JSON (broken, NaN, a repeated key, too deep): 400."""
    problem(client.post("/v1/verify", data="variant=montana",
                        content_type="application/x-www-form-urlencoded"), 415)
    problem(client.post("/v1/verify"), 415)
    # A compressed body was read as it came: a 400 "not UTF-8" for gzip, and a body
    # declared as br but sent plain was taken. A coding the server does not read is a 415.
    plain = b'{"variant": "montana", "deal": "5", "moves": []}'
    for coding, data in (("gzip", gzip.compress(plain)), ("br", plain)):
        refused = problem(client.post("/v1/verify", data=data, content_type="application/json",
                                      headers={"Content-Encoding": coding}), 415)
        assert f"Content-Encoding '{coding}' is not supported" in refused["detail"]
    assert client.post("/v1/verify", data=plain, content_type="application/json",
                       headers={"Content-Encoding": "identity"}).status_code == 200
    twice = client.post("/v1/verify", data=gzip.compress(plain), content_type="application/json",
                        headers=[("Content-Encoding", "identity"), ("Content-Encoding", "gzip")])
    assert "Content-Encoding 'gzip'" in problem(twice, 415)["detail"]  # every header read
    for data in ('{"variant":', '{"variant": NaN}', b"\xff\xfe"):
        body = problem(client.post("/v1/verify", data=data, content_type="application/json"),
                       400)
        assert body["type"] == "urn:gapgrid:problem:malformed-body"
        assert body["errors"][0]["pointer"] == "#"
    nested = "[" * 100_000 + "]" * 100_000
    body = problem(client.post("/v1/verify", data=nested, content_type="application/json"), 400)
    assert "nests too deeply" in body["detail"]


def test_an_integer_longer_than_python_reads_is_refused_where_it_stands(
        client: FlaskClient) -> None:
    """JSON sets no limit on an integer's digits, Python's int() does (4,300): an integer of
    5,000 digits is valid JSON, so it gets the 422 of the field it is in, as 1e400 does,
    not a 400 saying the body is not JSON."""
    huge = "9" * 5000
    for field, value, detail in [("elapsed", huge, "greater than the maximum"),
                                 ("elapsed", "1e400", "greater than the maximum"),
                                 ("deal", huge, "must be of type string"),
                                 ("deal", "-" + huge, "must be of type string")]:
        fields = {"variant": '"montana"', "deal": '"1"', "moves": "[]", field: value}
        data = "{" + ", ".join(f'"{name}": {text}' for name, text in fields.items()) + "}"
        body = problem(client.post("/v1/verify", data=data, content_type="application/json"),
                       422)
        [error] = body["errors"]
        assert error["pointer"] == f"#/{field}" and detail in error["detail"]
        assert len(body["detail"]) < 300  # the number is not echoed whole


def test_a_body_not_in_utf8_is_refused(client: FlaskClient) -> None:
    """JSON travels in UTF-8 (RFC 8259): UTF-16, or a byte-order mark, is a 400, not a guess."""
    text = '{"variant": "montana", "deal": "1", "moves": []}'
    assert client.post("/v1/verify", data=text.encode("utf-8"),
                       content_type="application/json").status_code == 200
    for data in (text.encode("utf-16"), text.encode("utf-8-sig")):
        body = problem(client.post("/v1/verify", data=data, content_type="application/json"),
                       400)
        assert body["type"] == "urn:gapgrid:problem:malformed-body"


def test_a_key_repeated_in_one_object_is_refused(client: FlaskClient) -> None:
    """Parsers disagree on which of two "deal" keys counts: the request is refused, naming it,
    rather than answered for one of them."""
    data = '{"variant": "montana", "deal": "1", "moves": [], "deal": "2"}'
    body = problem(client.post("/v1/verify", data=data, content_type="application/json"), 400)
    assert "'deal' appears more than once" in body["detail"]
    nested = '{"variant": "montana", "deal": "1", "moves": [{"a": 1, "a": 2}]}'
    body = problem(client.post("/v1/verify", data=nested, content_type="application/json"), 400)
    assert "'a' appears more than once" in body["detail"]


def test_unknown_route_and_method_are_problems(client: FlaskClient) -> None:
    """404 and 405 are problem documents too, never HTML; 405 says what is allowed."""
    problem(client.get("/v1/nowhere"), 404)
    problem(client.get("/nowhere"), 404)  # "/" is the player's page (api/page.py)
    response = client.delete("/v1/verify")
    problem(response, 405)
    assert "POST" in response.headers["Allow"]


def test_a_crash_is_a_500_problem(make_app: Callable[..., Flask]) -> None:
    """An unexpected exception is logged and answered as a 500 problem, not a traceback."""
    app = make_app()

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("disk on fire")
    app.extensions["gapgrid"].catalogue.rules = broken
    body = problem(app.test_client().post("/v1/verify", json={
        "variant": "montana", "deal": "1", "moves": []}), 500)
    assert "disk on fire" not in body["detail"]


# -- puzzles -------------------------------------------------------------------------------


def test_daily_puzzle_fields_and_caching(client: FlaskClient) -> None:
    """Today's puzzle: id, date, variant, options, deal, rows, times, rules version; cached
    a minute (a winning game may lower its par), then revalidated by its ETag."""
    response = client.get("/v1/daily/blue-moon")
    puzzle = response.get_json()
    assert puzzle["id"] == f"{TODAY}-blue-moon" and puzzle["date"] == TODAY
    assert (puzzle["starts_at"], puzzle["ends_at"]) == (f"{TODAY}T00:00:00Z",
                                                        "2026-12-01T00:00:00Z")
    assert isinstance(puzzle["deal"], str) and 10**16 <= int(puzzle["deal"]) < 10**20
    assert puzzle["rules_version"] and puzzle["options"] == {}
    assert len(puzzle["rows"]) == 4 and puzzle["pysolfc"]["game_id"] == 63
    assert response.headers["Cache-Control"] == "public, max-age=60"
    etag = response.headers["ETag"]
    again = client.get("/v1/daily/blue-moon", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.headers["ETag"] == etag
    # a cache that weakened the tag still gets its 304 (If-None-Match compares weakly)
    weak = client.get("/v1/daily/blue-moon", headers={"If-None-Match": f"W/{etag}"})
    assert weak.status_code == 304
    assert client.get(f"/v1/puzzles/{TODAY}/rangoon").get_json() == puzzle


def test_puzzles_depend_on_secret_date_and_variant(make_app: Callable[..., Flask],
                                                   tmp_path: object) -> None:
    """Different days, variants or secrets give different deals; the same give the same."""
    client = make_app().test_client()
    first = client.get(f"/v1/puzzles/{TODAY}/montana").get_json()["deal"]
    assert client.get("/v1/puzzles/2026-11-29/montana").get_json()["deal"] != first
    assert client.get(f"/v1/puzzles/{TODAY}/spaces").get_json()["deal"] != first
    import datetime

    from gapgrid.api.services.puzzles import puzzle_deal
    assert str(puzzle_deal("test-secret", datetime.date(2026, 11, 30), "montana")) == first
    assert str(puzzle_deal("other-secret", datetime.date(2026, 11, 30), "montana")) != first


def test_a_served_puzzle_never_changes(make_app: Callable[..., Flask]) -> None:
    """Once served, a puzzle is stored: a restarted app with another secret serves the same."""
    first = make_app().test_client().get("/v1/daily/montana").get_json()
    later = make_app(secret_key="rotated").test_client().get("/v1/daily/montana").get_json()
    assert later == first


def test_past_puzzles_are_immutable_and_future_ones_404(client: FlaskClient) -> None:
    """Past days cache forever; tomorrow is 404; before the first day is 404; bad dates 422."""
    response = client.get("/v1/puzzles/2026-11-01/montana")
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert "yet" in problem(client.get("/v1/puzzles/2026-12-01/montana"), 404)["detail"]
    assert "puzzles start on" in problem(client.get("/v1/puzzles/2025-12-31/montana"),
                                         404)["detail"]
    body = problem(client.get("/v1/puzzles/2026-02-30/montana"), 422)
    assert body["errors"][0]["parameter"] == "date"
    problem(client.get(f"/v1/puzzles/{TODAY}/no-such"), 404)
    # An unknown variant is said as such, whatever the day: it was blamed on the date.
    for before_the_first_day in (client.get("/v1/puzzles/2025-12-31/no-such"),
                                 client.get("/v1/puzzles/2025-12-31/no-such/leaderboard"),
                                 client.post("/v1/puzzles/2025-12-31/no-such/start"),
                                 client.get("/v1/puzzles/2025-12-31/no-such/solution")):
        assert "no-such" in problem(before_the_first_day, 404)["detail"]


def test_daily_moves_to_the_next_day_at_midnight(client: FlaskClient, clock: Clock) -> None:
    """After UTC midnight /daily serves the new day's puzzle."""
    today = client.get("/v1/daily/montana").get_json()
    clock.advance(12 * 3600)
    tomorrow = client.get("/v1/daily/montana").get_json()
    assert tomorrow["date"] == "2026-12-01" and tomorrow["deal"] != today["deal"]


# -- start, submissions, leaderboard -----------------------------------------------------


def _winning_moves(client: FlaskClient, slug: str = "montana") -> list[str]:
    """Some legal moves for today's puzzle (not a win: any legal game can be submitted)."""
    from gapgrid import plugins
    from gapgrid.core.dealnumber import parse_deal_number
    from gapgrid.core.game import new_game
    puzzle = client.get(f"/v1/daily/{slug}").get_json()
    state = new_game(plugins.load_catalogue(disabled=()).rules(slug),
                     parse_deal_number(puzzle["deal"]))
    moves = []
    for _ in range(5):
        legal = state.legal_moves()
        if not legal:
            break
        state = state.apply(legal[-1])
        moves.append(str(legal[-1]))
    return moves


def test_submission_is_replayed_scored_stored_and_ranked(client: FlaskClient,
                                                        clock: Clock) -> None:
    """With a start token the server times the game; the answer has the result and rank."""
    start = client.post(f"/v1/puzzles/{TODAY}/montana/start").get_json()
    clock.advance(95.5)
    moves = _winning_moves(client)
    response = client.post(f"/v1/puzzles/{TODAY}/montana/submissions",
                           json={"player": "Alice", "moves": moves, "token": start["token"]})
    assert response.status_code == 201
    data = response.get_json()
    assert data["stored"] and data["rank"] == 1 and data["players"] == 1
    assert data["elapsed_seconds"] == 95.5
    assert data["result"]["ok"] and data["result"]["scores"]["par"]["breakdown"][
        "milliseconds"] == 95500


def test_same_submission_again_is_idempotent_and_another_conflicts(client: FlaskClient) -> None:
    """The first verified submission counts: resending it is 200, different moves are 409
    (each under the player's token, with the name in any case)."""
    moves = _winning_moves(client)
    url = f"/v1/puzzles/{TODAY}/montana/submissions"
    first = client.post(url, json={"player": "Bob", "moves": moves})
    owner = {"Authorization": f"Bearer {first.get_json()['player_token']}"}
    again = client.post(url, json={"player": "bob", "moves": moves}, headers=owner)
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.get_json()["submitted_at"] == first.get_json()["submitted_at"]
    assert "player_token" not in again.get_json()
    other = client.post(url, json={"player": "BOB", "moves": moves[:-1]}, headers=owner)
    assert "first verified submission" in problem(other, 409)["detail"]
    board = client.get(f"/v1/puzzles/{TODAY}/montana/leaderboard").get_json()
    assert board["total"] == 1 and board["entries"][0]["player"] == "Bob"


def test_illegal_submission_is_not_stored(client: FlaskClient) -> None:
    """A submission with an illegal move is answered (ok false) and not stored."""
    url = f"/v1/puzzles/{TODAY}/montana/submissions"
    data = client.post(url, json={"player": "Eve", "moves": ["0-0"]}).get_json()
    assert data["stored"] is False and data["result"]["ok"] is False and data["rank"] is None
    assert client.get(f"/v1/puzzles/{TODAY}/montana/leaderboard").get_json()["total"] == 0


@pytest.mark.parametrize(("body", "pointer"), [
    ({"player": "", "moves": []}, "#/player"),
    ({"player": " lead", "moves": []}, "#/player"),
    ({"player": "a<script>", "moves": []}, "#/player"),
    ({"player": "x" * 33, "moves": []}, "#/player"),
    ({"player": "Ann", "moves": ["1-2", "bad"]}, "#/moves/1"),
    ({"player": "Ann", "moves": [], "token": "forged"}, "#/token"),
    ({"moves": []}, "#"),
])
def test_bad_submissions_are_422(client: FlaskClient, body: dict[str, Any],
                                 pointer: str) -> None:
    """Player name length and characters, moves and the token are checked."""
    found = problem(client.post(f"/v1/puzzles/{TODAY}/montana/submissions", json=body), 422)
    assert found["errors"][0]["pointer"] == pointer


def test_token_of_another_puzzle_or_expired_is_refused(client: FlaskClient,
                                                      clock: Clock) -> None:
    """A token only times the puzzle it was issued for, and only for two days."""
    token = client.post(f"/v1/puzzles/{TODAY}/spaces/start").get_json()["token"]
    url = f"/v1/puzzles/{TODAY}/montana/submissions"
    body = problem(client.post(url, json={"player": "Ann", "moves": [], "token": token}), 422)
    assert "another puzzle" in body["detail"]
    token = client.post(f"/v1/puzzles/{TODAY}/montana/start").get_json()["token"]
    clock.advance(11 * 3600)  # still today
    assert client.post(url, json={"player": "Ann", "moves": [], "token": token}).status_code == 201
    # (the refused submission above stored nothing, so "Ann" was still free here)


def test_closed_puzzles_take_no_submissions(client: FlaskClient) -> None:
    """Yesterday's puzzle can be read but not started or submitted to; the refusal does not
    make the puzzle first (nor wait for the process's search to make it)."""
    problem(client.post("/v1/puzzles/2026-11-29/montana/start"), 409)
    problem(client.post("/v1/puzzles/2026-11-29/montana/submissions",
                        json={"player": "Ann", "moves": []}), 409)
    store = client.application.extensions["gapgrid"].puzzles.store
    assert store.puzzle("2026-11-29-montana") is None
    client.get("/v1/puzzles/2026-11-29/montana")
    assert store.puzzle("2026-11-29-montana") is not None


def test_a_game_started_before_midnight_is_taken_for_an_hour_after_it(
        client: FlaskClient, clock: Clock) -> None:
    """A game started at 23:50 UTC and submitted with its start token at 00:30 counts, on
    its day's leaderboard, timed from its start; without the token, after 01:00, with
    another puzzle's token or a forged one, a submission is refused as closed, and so is a
    start: the puzzle names the hour."""
    url = f"/v1/puzzles/{TODAY}/montana"
    assert client.get(url).get_json()["solution_opens_at"] == "2026-12-01T01:00:00Z"
    clock.advance(11 * 3600 + 50 * 60)  # 23:50
    token = client.post(f"{url}/start").get_json()["token"]
    other = client.post(f"/v1/puzzles/{TODAY}/spaces/start").get_json()["token"]
    clock.advance(40 * 60)  # 00:30 the next day
    for refused in [None, other, token[:-2] + ("AA" if token[-2:] != "AA" else "BB")]:
        body = {"player": "Ann", "moves": [], **({"token": refused} if refused else {})}
        detail = problem(client.post(f"{url}/submissions", json=body), 409)["detail"]
        assert ("until 2026-12-01T01:00:00Z it takes the submission of a game started on it, "
                "with its start token") in detail
        assert ("the start token sent is not one of its games'" in detail) == bool(refused)
    started = problem(client.post(f"{url}/start"), 409)["detail"]
    assert "a game can be started on today's puzzle only; a game started on it before " in (
        started)
    taken = client.post(f"{url}/submissions", json={"player": "Ann", "moves": [],
                                                    "token": token})
    assert taken.status_code == 201 and taken.get_json()["elapsed_seconds"] == 40 * 60
    board = client.get(f"{url}/leaderboard").get_json()
    assert [entry["player"] for entry in board["entries"]] == ["Ann"]
    cached = client.get(url)
    assert cached.headers["Cache-Control"] == "public, max-age=60"  # a late win may lower par
    clock.advance(30 * 60)  # 01:00: the late submissions are over
    detail = problem(client.post(f"{url}/submissions", json={"player": "Bo", "moves": [],
                                                             "token": token}), 409)["detail"]
    assert "late submissions (of games started on it) ended at 2026-12-01T01:00:00Z" in detail
    assert "immutable" in client.get(url).headers["Cache-Control"]


def test_a_late_submission_is_taken_from_its_start_token_s_first_player_only(
        client: FlaskClient, clock: Clock) -> None:
    """A start token not made under a name can be shared during the day, but after midnight
    it takes the submission of the player who submitted with it first, and nobody else's:
    a token passed on at 23:59 lets no one else play yesterday's puzzle late."""
    url = f"/v1/puzzles/{TODAY}/montana"
    moves = _winning_moves(client)
    clock.advance(11 * 3600 + 50 * 60)  # 23:50
    token = client.post(f"{url}/start").get_json()["token"]
    fresh = client.post(f"{url}/start").get_json()["token"]
    first = client.post(f"{url}/submissions", json={"player": "Ann", "moves": moves,
                                                    "token": token})
    assert first.status_code == 201
    clock.advance(20 * 60)  # 00:10 the next day
    found = problem(client.post(f"{url}/submissions", json={"player": "Bo", "moves": moves,
                                                            "token": token}), 409)
    assert found["title"] == "Start token taken"
    assert "another player has submitted with this start token" in found["detail"]
    again = problem(client.post(f"{url}/submissions", json={
        "player": "Ann", "moves": moves[:1], "token": token},
        headers={"Authorization": f"Bearer {first.get_json()['player_token']}"}), 409)
    assert again["title"] == "Already submitted"  # her token: the usual answer
    assert client.post(f"{url}/submissions", json={"player": "Cy", "moves": moves[:2],
                                                   "token": fresh}).status_code == 201
    refused = problem(client.post(f"{url}/submissions", json={"player": "Di",
                                                              "moves": moves[:2],
                                                              "token": fresh}), 409)
    assert refused["title"] == "Start token taken"
    board = client.get(f"{url}/leaderboard").get_json()
    assert sorted(entry["player"] for entry in board["entries"]) == ["Ann", "Cy"]
    # Bo's and Di's names were not registered by the refused submissions
    assert client.post("/v1/players", json={"player": "Bo"}).status_code == 201


def spellings(token: str) -> list[str]:
    """The other spellings of a start token that verify: its signature's last base64
    character with the two bits its bytes do not use changed."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    last = alphabet.index(token[-1])
    return [token[:-1] + alphabet[(last & ~3) | low] for low in range(4)
            if (last & ~3) | low != last]


def test_a_start_token_spelt_otherwise_is_the_same_token(client: FlaskClient,
                                                         clock: Clock) -> None:
    """The spellings of one start token that verify are one token: after midnight a late
    submission with another spelling of a token already submitted with is refused as
    taken (each spelling took one more player's late game), and a hint asked with one
    spelling makes a submission with another assisted (it was not)."""
    url = f"/v1/puzzles/{TODAY}/montana"
    moves = _winning_moves(client)
    clock.advance(11 * 3600 + 50 * 60)  # 23:50
    token = client.post(f"{url}/start").get_json()["token"]
    hinted = client.post(f"{url}/start").get_json()["token"]
    others = spellings(token)
    assert len(others) == 3
    clock.advance(20 * 60)  # 00:10 the next day
    assert client.post(f"{url}/submissions", json={"player": "Ann", "moves": moves,
                                                   "token": token}).status_code == 201
    for player, other in zip(("Bo", "Cy", "Di"), others, strict=True):
        found = problem(client.post(f"{url}/submissions", json={
            "player": player, "moves": moves, "token": other}), 409)
        assert found["title"] == "Start token taken"
    puzzle = client.get(url).get_json()
    assert client.post("/v1/hint", json={"variant": "montana", "deal": puzzle["deal"],
                                         "moves": [], "token": hinted}).status_code == 200
    submitted = client.post(f"{url}/submissions", json={
        "player": "Ed", "moves": moves, "token": spellings(hinted)[0]})
    assert submitted.status_code == 201 and submitted.get_json()["assisted"] is True


def test_leaderboard_ranks_by_par_and_pages(client: FlaskClient) -> None:
    """Fewer moves rank first; ties share a rank; pages link to the next."""
    moves = _winning_moves(client)
    url = f"/v1/puzzles/{TODAY}/montana/submissions"
    for index, player in enumerate(["Cy", "Di", "Ed", "Flo"]):
        client.post(url, json={"player": player, "moves": moves[:1 + index % 3]})
    first = client.get(f"/v1/puzzles/{TODAY}/montana/leaderboard?per_page=2").get_json()
    assert first["total"] == 4 and first["next"]
    assert [(entry["rank"], entry["player"], entry["moves"]) for entry in first["entries"]] == [
        (1, "Cy", 1), (1, "Flo", 1)]
    second = client.get(first["next"]).get_json()
    assert [(entry["rank"], entry["player"]) for entry in second["entries"]] == [
        (3, "Di"), (4, "Ed")]
    assert second["next"] is None
    for query, parameter in (("page=0", "page"), ("per_page=101", "per_page"), ("page=x", "page")):
        body = problem(client.get(f"/v1/puzzles/{TODAY}/montana/leaderboard?{query}"), 422)
        assert body["errors"][0]["parameter"] == parameter


def test_openapi_document_is_valid(client: FlaskClient) -> None:
    """GET /v1/openapi.json is a valid OpenAPI 3.1 document describing every route."""
    from openapi_spec_validator import validate
    document = client.get("/v1/openapi.json").get_json()
    validate(document)
    assert document["openapi"] == "3.1.0"
    assert set(document["paths"]) == {
        "/v1/variants", "/v1/variants/{slug}", "/v1/variants/{slug}/deals/{number}",
        "/v1/daily/{slug}", "/v1/puzzles/{date}/{slug}", "/v1/verify", "/v1/moves",
        "/v1/hint", "/v1/puzzles/{date}/{slug}/solution",
        "/v1/puzzles/{date}/{slug}/start", "/v1/puzzles/{date}/{slug}/submissions",
        "/v1/puzzles/{date}/{slug}/leaderboard", "/v1/openapi.json", "/v1/health",
        "/v1/players", "/v1/"}


def test_schema_limits_match_the_settings(make_app: Callable[..., Flask]) -> None:
    """The document states the limits the handlers enforce."""
    document = make_app(max_moves=77).test_client().get("/v1/openapi.json").get_json()
    verify = document["components"]["schemas"]["VerifyRequest"]
    assert verify["properties"]["moves"]["maxItems"] == 77


def test_the_first_start_keeps_a_generated_secret(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Without GAPGRID_SECRET_KEY, create_app() signs and chooses puzzles with a random
    secret it keeps in the instance folder, never a published one."""
    from gapgrid import plugins
    from gapgrid.api.app import create_app
    from gapgrid.api.config import DEVELOPMENT_SECRET
    monkeypatch.setenv("GAPGRID_INSTANCE", str(tmp_path / "fresh"))
    monkeypatch.delenv("GAPGRID_SECRET_KEY", raising=False)
    app = create_app(catalogue=plugins.load_catalogue(disabled=()))
    kept = (tmp_path / "fresh" / "secret_key").read_text().strip()
    assert app.extensions["gapgrid"].settings.secret_key == kept != DEVELOPMENT_SECRET
    assert (tmp_path / "fresh" / "gapgrid.sqlite3").exists()


@pytest.mark.parametrize(("variable", "value"), [
    ("GAPGRID_MAX_MOVES", "lots"), ("GAPGRID_MAX_BODY", "0"), ("GAPGRID_FIRST_DAY", "soon")])
def test_bad_configuration_is_refused_by_name(variable: str, value: str) -> None:
    """A setting that cannot be used names its variable."""
    from gapgrid.api.config import ConfigError, Settings
    with pytest.raises(ConfigError, match=variable):
        Settings.from_environment({variable: value})


# -- found in review -------------------------------------------------------------------------


def test_absurd_inputs_are_422_not_500(client: FlaskClient) -> None:
    """A 5000-digit game number, lone surrogates, odd option keys and dates are refused cleanly."""
    problem(client.get("/v1/variants/montana/deals/" + "1" * 5000), 422)
    problem(client.get("/v1/variants/montana/deals/ms" + "1" * 5000), 422)
    body = problem(client.post("/v1/verify", data='{"variant": "montana", "deal": "1", '
                                                  '"moves": [], "options": {"\\ud800": 1}}',
                               content_type="application/json"), 422)
    assert body["errors"][0]["pointer"].startswith("#/options/")
    escaped = problem(client.post("/v1/verify", json={"variant": "montana", "deal": "1",
                                                      "moves": [], "options": {"a/b~c": 1}}), 422)
    assert escaped["errors"][0]["pointer"] == "#/options/a~1b~0c"
    url = f"/v1/puzzles/{TODAY}/montana/submissions"
    token = problem(client.post(url, data='{"player": "bob", "moves": [], "token": "\\ud800"}',
                                content_type="application/json"), 422)
    assert token["errors"][0]["pointer"] == "#/token"
    problem(client.get("/v1/puzzles/20261130/montana"), 422)
    problem(client.get("//v1/variants"), 404)


def test_a_name_ending_in_a_newline_is_refused(client: FlaskClient) -> None:
    """'bob\\n' is not a second Bob: names are checked as a whole."""
    body = problem(client.post(f"/v1/puzzles/{TODAY}/montana/submissions",
                               json={"player": "bob\n", "moves": []}), 422)
    assert body["errors"][0]["pointer"] == "#/player"


def test_refused_submission_reports_the_players_count(client: FlaskClient) -> None:
    """An illegal submission is not stored, but the answer counts the players who are."""
    url = f"/v1/puzzles/{TODAY}/montana/submissions"
    for player in ("Ann", "Ben", "Cat"):
        assert client.post(url, json={"player": player, "moves": []}).status_code == 201
    data = client.post(url, json={"player": "Dan", "moves": ["0-0"]}).get_json()
    assert (data["stored"], data["players"]) == (False, 3)


def test_daily_before_the_first_day_is_404(make_app: Callable[..., Flask]) -> None:
    """Before GAPGRID_FIRST_DAY there is no daily puzzle, and none is stored."""
    import datetime
    client = make_app(first_day=datetime.date(2027, 1, 1)).test_client()
    assert "puzzles start on 2027-01-01" in problem(client.get("/v1/daily/montana"),
                                                    404)["detail"]


# -- verify's time, moves, names ---------------------------------------------------------------


def test_verify_takes_elapsed_and_timed(client: FlaskClient) -> None:
    """elapsed and timed reach the scores, as --elapsed and --timed do on the command line."""
    body = {"variant": "montana", "deal": "27769", "moves": GOLDEN_OPENING, "elapsed": 42.5}
    untimed = client.post("/v1/verify", json=body).get_json()["scores"]
    timed = client.post("/v1/verify", json={**body, "timed": True}).get_json()["scores"]
    assert untimed["par"]["breakdown"]["milliseconds"] == 42500
    assert (untimed["frontier"]["allowance_seconds"], timed["frontier"]["allowance_seconds"]) == (
        600, 180)


@pytest.mark.parametrize(("field", "value"), [
    ("elapsed", -1), ("elapsed", "42"), ("elapsed", 10**9), ("elapsed", True),
    ("timed", "yes"), ("timed", 1),
])
def test_bad_elapsed_or_timed_is_422(client: FlaskClient, field: str, value: object) -> None:
    """A negative, huge or non-number time, or a timed flag that is not a boolean: 422."""
    found = problem(client.post("/v1/verify", json={
        "variant": "montana", "deal": "1", "moves": [], field: value}), 422)
    assert found["errors"][0]["pointer"] == f"#/{field}"


def test_moves_gives_the_position_and_its_legal_moves(client: FlaskClient) -> None:
    """POST /v1/moves: the position after the moves, each legal move with its card, whether
    the game is stuck and whether a redeal is allowed."""
    data = client.post("/v1/moves", json={"variant": "montana", "deal": "27769",
                                          "moves": GOLDEN_OPENING}).get_json()
    assert (data["ok"], data["moves_applied"], data["redeals_left"]) == (True, 4, 1)
    assert data["stuck"] is False and data["redeal_allowed"] is True
    assert "scores" not in data
    first = data["legal_moves"][0]
    assert set(first) == {"move", "source", "target", "card"}
    flat = [card for row in data["rows"] for card in row]
    assert all(flat[move["source"]] == move["card"] and flat[move["target"]] is None
               for move in data["legal_moves"])
    after = client.post("/v1/moves", json={"variant": "montana", "deal": "27769",
                                           "moves": [*GOLDEN_OPENING, first["move"]]}).get_json()
    assert after["ok"] and after["moves_applied"] == 5


def test_moves_with_a_refused_move_answers_the_position_before_it(client: FlaskClient) -> None:
    """An illegal move is not a request error: 200, ok false, the error, the position before."""
    before = client.post("/v1/moves", json={"variant": "montana", "deal": "27769",
                                            "moves": ["27-40"]}).get_json()
    response = client.post("/v1/moves", json={"variant": "montana", "deal": "27769",
                                              "moves": ["27-40", "0-3"]})
    assert response.status_code == 200
    data = response.get_json()
    assert data["ok"] is False and data["error"]["index"] == 1
    assert (data["rows"], data["legal_moves"]) == (before["rows"], before["legal_moves"])


@pytest.mark.parametrize(("body", "pointer"), [
    ({"variant": "montana", "deal": "1", "moves": ["1-2", "up"]}, "#/moves/1"),
    ({"variant": "nope", "deal": "1", "moves": []}, "#/variant"),
    ({"variant": "montana", "deal": "ms0", "moves": []}, "#/deal"),
    ({"variant": "montana", "deal": "1", "moves": [], "options": {"redeals": "x"}},
     "#/options/redeals"),
    ({"variant": "montana", "deal": "1", "moves": [], "scoring": ["par"]}, "#/scoring"),
])
def test_malformed_moves_requests_are_422(client: FlaskClient, body: dict[str, Any],
                                          pointer: str) -> None:
    """/v1/moves checks its fields as /v1/verify does (and takes no scoring)."""
    assert problem(client.post("/v1/moves", json=body), 422)["errors"][0]["pointer"] == pointer


def test_every_variant_field_is_described(client: FlaskClient) -> None:
    """The OpenAPI schema of a variant explains each field, rstep, rbase and rlen included,
    and names every field the API sends."""
    document = client.get("/v1/openapi.json").get_json()
    variant = document["components"]["schemas"]["Variant"]["properties"]
    assert all(field.get("description") for field in variant.values())
    assert "RSTEP" in variant["rstep"]["description"]
    assert "RBASE" in variant["rbase"]["description"]
    assert "RLEN" in variant["rlen"]["description"]
    sent = client.get("/v1/variants/montana").get_json()
    assert set(sent) == set(variant)
