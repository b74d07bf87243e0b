"""Players own their names (issue 13 item 5, issue 15 item 11): the first submission under a
name (or POST /v1/players) answers with the player's token, once; later starts and
submissions under any spelling of the name need it (401 without, 403 with another), names
are compared after NFKC, case folding and collapsing spaces, invisible characters and
trailing punctuation are refused, and only the token's SHA-256 is stored. Over HTTP against
the real server, and through the store's upgrade of a database from before."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gapgrid import plugins
from gapgrid.api.names import name_problem, player_key, shown_name
from gapgrid.api.services.errors import Fault, ServiceError
from gapgrid.api.services.puzzles import PuzzleService
from gapgrid.api.store import NewSubmission, Store
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game
from gapgrid.core.search import Budget, solve
from tests.api import conftest
from tests.api.live import LiveServer, request


def test_names_equal_after_nfkc_case_folding_and_spaces_are_one_player() -> None:
    """Bob, bob, BOB and full-width Ｂob share a key; so do 'Ann Lee' and 'Ann  Lee'; a name
    is shown as typed with its spaces collapsed."""
    assert {player_key(name) for name in ("Bob", "bob", "BOB", "Ｂob", "ｂｏｂ")} == {"bob"}
    assert player_key("Ann  Lee") == player_key("Ann Lee") == player_key("ann\u3000lee")
    assert player_key("Straße") == player_key("STRASSE")  # full case folding, not lower()
    assert shown_name("Ann   Lee") == "Ann Lee"
    assert player_key("Bob") != player_key("Bobby")


@pytest.mark.parametrize(("name", "reason"), [
    ("Bob\u200b", "U+200B"),  # zero-width space (Cf)
    ("Bo\u200db", "U+200D"),  # zero-width joiner
    ("\u202eBob", "U+202E"),  # right-to-left override
    ("Bob\u0007", "U+0007"),  # a control character
    ("Ann Lee.", "ends with '.'"),  # the trailing-punctuation look-alike of 'Ann Lee'
    ("Ann Lee-", "ends with '-'"),
    ("_Ann", "starts with '_'"),
    ("Ann!", "has '!'"),
    ("Ann.\u0301", "ends with '.'"),  # a mark does not make the full stop a letter
    ("Ann\ufe0f", "U+FE0F"),  # a variation selector (Mn): shows as Ann
    ("A\u034fnn", "U+034F"),  # the combining grapheme joiner (Mn)
    ("Ann\u17b4", "U+17B4"),  # a Khmer inherent vowel (Mn), shown as nothing
    ("Ann\u3164", "U+3164"),  # the Hangul filler (Lo; NFKC makes it U+1160): said as typed
    ("Zq\uffa0x", "U+FFA0"),  # the halfwidth one: U+1160 too, which the player never typed
    ("\u115f\u1160", "U+115F"),  # a name of fillers alone: a blank on the leaderboard
])
def test_invisible_characters_and_trailing_punctuation_are_refused(name: str,
                                                                   reason: str) -> None:
    """The refusal names the character, so the player knows what to change."""
    problem = name_problem(name, 32)
    assert problem is not None and reason in problem


@pytest.mark.parametrize("name", ["Zoë", "李小龍", "Ann Lee", "O.K. Go", "x_y-z", "Ｂob", "7",
                                  "सीता", "கீதா", "प्रिया", "Zoe\u0308"])
def test_names_of_any_script_are_accepted(name: str) -> None:
    """Letters and digits of any script, and '_', '.', '-' and spaces inside; a name may
    end in its last letter's combining marks (Hindi and Tamil names ending in a vowel sign
    were refused as 'ends with ா')."""
    assert name_problem(name, 32) is None


# -- over HTTP ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One real server for this module's exchanges (each uses names of its own)."""
    live = LiveServer(tmp_path_factory.mktemp("players") / "instance",
                      environment={"GAPGRID_CORS_ORIGINS": "https://app.example"}).start()
    try:
        yield live
    finally:
        live.stop()


def _today(server: LiveServer) -> tuple[str, list[str]]:
    """Today's Montana submissions URL, and three legal moves of its deal."""
    _, _, puzzle = request("GET", f"{server.url}/v1/daily/montana")
    state = new_game(plugins.load_catalogue(disabled=()).rules("montana"),
                     parse_deal_number(puzzle["deal"]))
    moves = []
    for _ in range(3):
        move = state.legal_moves()[0]
        state = state.apply(move)
        moves.append(str(move))
    return f"{server.url}/v1/puzzles/{puzzle['date']}/montana", moves


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _problem(answer: tuple[int, dict[str, str], Any], status: int) -> dict[str, Any]:
    code, headers, body = answer
    assert code == status, body
    assert headers["Content-Type"] == "application/problem+json"
    assert body["status"] == status
    return body  # type: ignore[no-any-return]


def test_the_first_submission_owns_the_name(server: LiveServer) -> None:
    """Bob's first submission is stored and answers with his token, once; the same name in
    another case or width without the token is a 401 (with WWW-Authenticate), with another
    token a 403; with his token it is Bob again, and the leaderboard shows 'Bob'."""
    url, moves = _today(server)
    status, headers, first = request("POST", f"{url}/submissions",
                                     {"player": "Bob", "moves": moves})
    assert status == 201 and first["player"] == "Bob"
    token = first["player_token"]
    assert len(token) >= 43 and headers["Cache-Control"] == "no-store"

    unauthenticated = request("POST", f"{url}/submissions", {"player": "bob", "moves": moves})
    body = _problem(unauthenticated, 401)
    challenge = {name.lower(): value for name, value in unauthenticated[1].items()}
    assert challenge["www-authenticate"].startswith("Bearer")
    assert "token" in body["detail"] and body["errors"][0]["pointer"] == "#/player"
    _problem(request("POST", f"{url}/submissions", {"player": "ＢOB", "moves": moves},
                     headers=_bearer("not-bobs-token")), 403)
    _problem(request("POST", f"{url}/submissions", {"player": "Bob", "moves": moves},
                     headers={"Authorization": "Basic Ym9iOmJvYg=="}), 401)

    status, _, again = request("POST", f"{url}/submissions",
                               {"player": "Ｂob", "moves": moves}, headers=_bearer(token))
    assert status == 200 and again["player"] == "Bob" and "player_token" not in again
    _, _, board = request("GET", f"{url}/leaderboard?per_page=100")
    assert [entry["player"] for entry in board["entries"]].count("Bob") == 1
    assert not any(entry["player"] in ("bob", "Ｂob", "ＢOB") for entry in board["entries"])


def test_a_registered_name_needs_its_token_to_start_and_submit(server: LiveServer) -> None:
    """POST /v1/players registers a name (201, the token once); registering it again in
    any spelling is a 409; a start under it needs the token, and a start token made under
    one player's name does not time another player's game."""
    url, moves = _today(server)
    status, _, registered = request("POST", f"{server.url}/v1/players", {"player": "Carol"})
    assert status == 201 and registered["player"] == "Carol"
    token = registered["token"]
    _problem(request("POST", f"{server.url}/v1/players", {"player": "CAROL"}), 409)
    _problem(request("POST", f"{url}/start", {"player": "carol"}), 401)
    _problem(request("POST", f"{url}/start", {"player": "carol"}, headers=_bearer("x" * 43)),
             403)
    status, _, started = request("POST", f"{url}/start", {"player": "carol"},
                                 headers=_bearer(token))
    assert status == 200 and started["player"] == "Carol"

    stolen = request("POST", f"{url}/submissions",
                     {"player": "Mallory", "moves": moves, "token": started["token"]})
    assert _problem(stolen, 422)["errors"][0]["pointer"] == "#/token"
    status, _, stored = request("POST", f"{url}/submissions",
                                {"player": "Carol", "moves": moves, "token": started["token"]},
                                headers=_bearer(token))
    assert status == 201 and stored["elapsed_seconds"] is not None
    assert "player_token" not in stored  # registered before: the token was given then
    status, _, _ = request("POST", f"{url}/start")  # a start may still name nobody
    assert status == 200


def test_bad_names_are_422_problems(server: LiveServer) -> None:
    """An invisible character or trailing punctuation is refused where the name is given."""
    url, moves = _today(server)
    for name in ("Dave\u200b", "Dave."):
        for path, body in ((f"{url}/submissions", {"player": name, "moves": moves}),
                           (f"{server.url}/v1/players", {"player": name}),
                           (f"{url}/start", {"player": name})):
            found = _problem(request("POST", path, body), 422)
            assert found["errors"][0]["pointer"] == "#/player", (path, found)


def test_only_a_digest_of_the_token_is_stored(server: LiveServer) -> None:
    """The database keeps the token's SHA-256, never the token."""
    status, _, registered = request("POST", f"{server.url}/v1/players", {"player": "Erin"})
    assert status == 201
    with sqlite3.connect(server.instance / "gapgrid.sqlite3") as connection:
        rows = connection.execute("SELECT name, token_digest FROM players WHERE player_key = ?",
                                  ("erin",)).fetchall()
        dump = "\n".join(connection.iterdump())
    assert rows == [("Erin", hashlib.sha256(registered["token"].encode()).hexdigest())]
    assert registered["token"] not in dump


def test_browsers_of_the_listed_origins_may_send_the_token(server: LiveServer) -> None:
    """A preflight from a GAPGRID_CORS_ORIGINS origin may ask for Authorization on starts,
    submissions and registrations; another origin gets no CORS answer."""
    url, _ = _today(server)
    for path in (f"{url}/start", f"{url}/submissions", f"{server.url}/v1/players"):
        headers = {"Origin": "https://app.example", "Access-Control-Request-Method": "POST",
                   "Access-Control-Request-Headers": "authorization, content-type"}
        _, allowed, _ = request("OPTIONS", path, headers=headers)
        assert allowed["Access-Control-Allow-Origin"] == "https://app.example"
        assert "authorization" in allowed["Access-Control-Allow-Headers"].lower()
        _, refused, _ = request("OPTIONS", path, headers={**headers,
                                                          "Origin": "https://evil.example"})
        assert "Access-Control-Allow-Origin" not in refused


# -- databases from before names had owners ------------------------------------------------------


def test_an_older_database_keeps_every_submission_and_names_are_claimed(tmp_path: Path) -> None:
    """A version 3 database (no players table): after the upgrade every submission is kept,
    'Ann  Lee' and 'Ann Lee' of one puzzle both stay ranked, each old name is registered as
    first submitted without a token, and the first later registration claims it."""
    path = tmp_path / "db.sqlite3"
    store = Store(path)
    store.keep_puzzle("p", "2026-11-30", "montana", {"id": "p", "deal": "7"}, "t")
    for index, name in enumerate(("Ann  Lee", "Ann Lee", "Bob", "bob")):
        puzzle = "p" if name != "bob" else "q"
        if puzzle == "q" and store.puzzle("q") is None:
            store.keep_puzzle("q", "2026-11-29", "montana", {"id": "q", "deal": "8"}, "t")
        # as version 3 stored them: the key was the name case-folded, nothing more
        store.submit(NewSubmission(puzzle_id=puzzle, player=name, player_key=name.casefold(),
                                   moves_digest=str(index), keys={}, body={"n": index},
                                   created_at=f"2026-11-30T00:0{index}:00Z"))
    store.close()
    with sqlite3.connect(path) as connection:
        # back to version 3, before Alembic: no players, no tallies, no tokens, no revision
        for table in ("players", "puzzle_players", "ranking_buckets", "start_tokens",
                      "alembic_version"):
            connection.execute(f"DROP TABLE {table}")
        connection.execute("PRAGMA user_version = 3")
        before = connection.execute("SELECT id, puzzle_id, player, body FROM submissions "
                                    "ORDER BY id").fetchall()

    upgraded = Store(path)
    with sqlite3.connect(path) as connection:
        after = connection.execute("SELECT id, puzzle_id, player, body FROM submissions "
                                   "ORDER BY id").fetchall()
        keys = connection.execute("SELECT player, player_key FROM submissions ORDER BY id"
                                  ).fetchall()
        players = connection.execute("SELECT player_key, name, token_digest FROM players "
                                     "ORDER BY player_key").fetchall()
    assert after == before
    assert dict(keys)["Ann Lee"] == "ann lee" and dict(keys)["Ann  Lee"] == "ann  lee"
    assert players == [("ann  lee", "Ann  Lee", None), ("ann lee", "Ann Lee", None),
                       ("bob", "Bob", None)]
    assert upgraded.player("bob") is not None and upgraded.player("bob").name == "Bob"


def test_an_old_name_is_claimed_by_its_first_later_submission(tmp_path: Path) -> None:
    """Through the service: a name an upgrade registered without a token is claimed by the
    first submission under it (which gets the token); after that the token is needed."""
    catalogue = plugins.load_catalogue(disabled=())
    service = PuzzleService.open(conftest.test_settings(tmp_path), catalogue,
                                 clock=conftest.Clock())
    day = conftest.TODAY
    deal = service.puzzle(day, "montana").document["deal"]
    move = str(new_game(catalogue.rules("montana"), parse_deal_number(deal)).legal_moves()[0])
    with sqlite3.connect(service.settings.database) as connection:  # as an upgrade leaves it
        connection.execute("INSERT INTO players VALUES ('old timer', 'Old Timer', NULL, 't')")
    claimed = service.submit(day, "montana", player="OLD TIMER", moves=[move])
    assert claimed.created and claimed.document["player"] == "Old Timer"
    token = claimed.document["player_token"]
    with pytest.raises(ServiceError) as refused:
        service.submit(day, "montana", player="old timer", moves=[move])
    assert refused.value.fault is Fault.UNAUTHENTICATED
    assert "Old Timer" in str(refused.value)  # the owner, as the name was first stored
    legal = {str(action) for action in new_game(catalogue.rules("montana"),
                                                parse_deal_number(deal)).legal_moves()}
    illegal = next(move for move in ("0-1", "1-2", "2-3") if move not in legal)
    with pytest.raises(ServiceError) as refused:  # an illegal game is refused the same way
        service.submit(day, "montana", player="old timer", moves=[illegal])
    assert refused.value.fault is Fault.UNAUTHENTICATED
    with pytest.raises(ServiceError) as refused:  # so is one with a bad start token too
        service.submit(day, "montana", player="old timer", moves=[move], token="forged")
    assert refused.value.fault is Fault.UNAUTHENTICATED
    assert not service.submit(day, "montana", player="old timer", moves=[move],
                              player_token=token).created


def test_an_old_name_with_a_game_today_keeps_its_spelling_and_is_not_locked(tmp_path: Path
                                                                             ) -> None:
    """A name an upgrade left without a token, whose player has today's submission: an
    empty one is replaced by the first with progress, sent under another spelling, which
    is stored and ranked under the name as registered; a submission refused because one
    with progress is stored leaves the name without a token (no token nobody got locks
    it)."""
    catalogue = plugins.load_catalogue(disabled=())
    service = PuzzleService.open(conftest.test_settings(tmp_path), catalogue,
                                 clock=conftest.Clock())
    day = conftest.TODAY
    state = new_game(catalogue.rules("montana"),
                     parse_deal_number(service.puzzle(day, "montana").document["deal"]))
    won = solve(state, Budget(seconds=60, positions=200_000))
    assert won.verdict == "won"
    start, after = state.board.cards_in_sequence(), state
    for count, action in enumerate(won.line, 1):  # the line's first moves with progress
        after = after.apply(action)
        if after.board.cards_in_sequence() > start:
            progress = [str(move) for move in won.line[:count]]
            break

    def forget_token() -> None:  # as an upgrade leaves a name
        with sqlite3.connect(service.settings.database) as connection:
            connection.execute("UPDATE players SET token_digest = NULL")

    assert service.submit(day, "montana", player="Old Timer", moves=[]).created
    forget_token()
    replaced = service.submit(day, "montana", player="OLD TIMER", moves=progress)
    assert replaced.created and replaced.document["player"] == "Old Timer"
    assert replaced.document["player_token"]
    board = service.leaderboard(day, "montana")
    assert [entry["player"] for entry in board["entries"]] == ["Old Timer"]

    forget_token()
    with pytest.raises(ServiceError) as refused:
        service.submit(day, "montana", player="old timer",
                       moves=[str(move) for move in won.line[:len(progress) + 1]])
    assert refused.value.fault is Fault.CONFLICT
    registered = service.store.player(player_key("old timer"))
    assert registered is not None and registered.token_digest is None
