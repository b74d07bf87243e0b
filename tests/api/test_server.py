"""The API as a real server: waitress on a loopback port, restarts, and concurrent clients."""

from __future__ import annotations

import concurrent.futures
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gapgrid import plugins
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game
from tests.api.live import LiveServer, request
from tests.golden import golden_games


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    """`gapgrid serve` on a free port, stopped after the test."""
    live = LiveServer(tmp_path / "instance").start()
    yield live
    live.stop()


def _legal_moves(deal: str, slug: str, count: int) -> list[str]:
    return _legal_line(deal, slug, count)[0]


def _legal_line(deal: str, slug: str, count: int) -> tuple[list[str], list[int]]:
    """The first legal move ``count`` times, and the cards in sequence before and after each."""
    state = new_game(plugins.load_catalogue(disabled=()).rules(slug), parse_deal_number(deal))
    moves, in_sequence = [], [state.board.cards_in_sequence()]
    for _ in range(count):
        legal = state.legal_moves()
        if not legal:
            break
        state = state.apply(legal[0])
        moves.append(str(legal[0]))
        in_sequence.append(state.board.cards_in_sequence())
    return moves, in_sequence


def _par_order(in_sequence: list[int]) -> list[int]:
    """The move counts 1 .. n as the ``par`` scheme ranks unfinished games of those prefixes:
    progress first, by more cards in sequence then fewer moves; no progress by fewer moves."""
    def key(moves: int) -> tuple[int, int, int]:
        gained = in_sequence[moves] > in_sequence[0]
        return (0, -in_sequence[moves], moves) if gained else (1, 0, moves)
    return sorted(range(1, len(in_sequence)), key=key)


def test_real_server_verifies_golden_games(server: LiveServer) -> None:
    """Over HTTP, every variant's first golden game verifies to PySolFC's final layout."""
    seen = set()
    for record in golden_games():
        if record["variant"] in seen:
            continue
        seen.add(record["variant"])
        status, headers, body = request("POST", f"{server.url}/v1/verify", {
            "variant": record["variant"], "deal": record["deal"], "moves": record["moves"]})
        assert status == 200 and headers["Content-Type"] == "application/json"
        assert body["ok"] and body["rows"] == record["final"]
    assert len(seen) == 17


def test_real_server_errors_are_problems(server: LiveServer) -> None:
    """404, 405, 413 and 415 from the real server are problem documents."""
    for method, path, raw, content_type, expected in [
        ("GET", "/v1/nowhere", None, "application/json", 404),
        ("PUT", "/v1/verify", b"{}", "application/json", 405),
        ("POST", "/v1/verify", b"x" * 300_000, "application/json", 413),
        ("POST", "/v1/verify", b"a=b", "application/x-www-form-urlencoded", 415),
    ]:
        status, headers, body = request(method, f"{server.url}{path}", raw=raw,
                                        content_type=content_type)
        assert status == expected, body
        assert headers["Content-Type"] == "application/problem+json"
        assert body["status"] == expected


def test_a_restart_loses_nothing(tmp_path: Path) -> None:
    """Puzzles and submissions survive stopping and starting the server."""
    live = LiveServer(tmp_path / "instance").start()
    try:
        _, _, puzzle = request("GET", f"{live.url}/v1/daily/blue-moon")
        moves = _legal_moves(puzzle["deal"], "blue-moon", 3)
        status, _, _ = request("POST", f"{live.url}/v1/puzzles/{puzzle['date']}/blue-moon/"
                                       f"submissions", {"player": "Keeper", "moves": moves})
        assert status == 201
    finally:
        live.stop()
    live.start()
    try:
        _, _, again = request("GET", f"{live.url}/v1/daily/blue-moon")
        assert again == puzzle
        _, _, board = request("GET", f"{live.url}/v1/puzzles/{puzzle['date']}/blue-moon/"
                                     f"leaderboard")
        assert [entry["player"] for entry in board["entries"]] == ["Keeper"]
    finally:
        live.stop()


def test_the_banner_names_the_page_and_the_puzzles_not_made_yet(tmp_path: Path) -> None:
    """At start the server says where the player's page is, whether its database is a new
    one (a mistyped GAPGRID_DATABASE would be), and how many of today's puzzles the first
    requests will have to search for (with the command that makes them ahead); one made
    since counts no more, and a server that makes puzzles without a search says nothing of
    them."""
    every = len(plugins.load_catalogue().slugs())  # the server loads the same plugins
    log = tmp_path / "server.log"
    live = LiveServer(tmp_path / "instance", log=log,
                      environment={"GAPGRID_CERTIFY_SECONDS": "0.5"}).start()
    try:
        database = tmp_path / "instance" / "gapgrid.sqlite3"
        assert (f"and the player's page on {live.url}/ (a new, empty database {database}); "
                in log.read_text())
        assert (f"{every} of today's puzzles are not made yet: the first requests make them, "
                f"up to 0.5 s of search each; gapgrid puzzles prepare makes them ahead"
                in log.read_text())
        status, _, _ = request("GET", f"{live.url}/v1/daily/blue-moon")
        assert status == 200
    finally:
        live.stop()
    live.start()
    live.stop()
    assert f"{every - 1} of today's puzzles are not made yet" in log.read_text()
    assert f"(database {database}); " in log.read_text()  # the second start's
    log.unlink()
    live.environment["GAPGRID_CERTIFY_SECONDS"] = "0"
    live.start()
    live.stop()
    assert "player's page" in log.read_text() and "not made yet" not in log.read_text()


def _submit(url: str, player: str, token: str, moves: list[str]) -> tuple[int, str]:
    status, _, body = request("POST", url, {"player": player, "moves": moves},
                              headers={"Authorization": f"Bearer {token}"})
    return status, json.dumps(body, sort_keys=True)


PLAYERS = 24
COPIES = 3


def _flood(url: str, moves: list[str], executor: concurrent.futures.Executor,
           tokens: dict[str, str]) -> list[tuple[str, int]]:
    jobs = {executor.submit(_submit, url, f"player{index}", tokens[f"player{index}"],
                            moves[:1 + index % len(moves)]):
            f"player{index}" for index in range(PLAYERS) for _ in range(COPIES)}
    return [(jobs[job], job.result()[0]) for job in concurrent.futures.as_completed(jobs)]


def test_concurrent_submissions_are_stored_exactly_once(tmp_path: Path) -> None:
    """Threads and processes, against two servers sharing one database, each player sending
    the same submission three times at once: one 201 per player, the rest 200, and the
    leaderboard holds every player once, ranked as the ``par`` scheme ranks their games."""
    first = LiveServer(tmp_path / "instance").start()
    second = LiveServer(tmp_path / "instance").start()
    try:
        _, _, puzzle = request("GET", f"{first.url}/v1/daily/montana")
        moves, in_sequence = _legal_line(puzzle["deal"], "montana", 4)
        path = f"/v1/puzzles/{puzzle['date']}/montana/submissions"
        tokens = {}  # each player registers first, then sends under its token
        for index in range(PLAYERS):
            name = f"player{index}"
            tokens[name] = request("POST", f"{first.url}/v1/players", {"player": name})[2][
                "token"]
        with concurrent.futures.ThreadPoolExecutor(max_workers=16) as threads:
            answers = _flood(f"{first.url}{path}", moves, threads, tokens)
        with concurrent.futures.ProcessPoolExecutor(max_workers=4) as processes:
            answers += _flood(f"{second.url}{path}", moves, processes, tokens)
        created: dict[str, int] = {}
        for player, status in answers:
            assert status in (200, 201), (player, status)
            created[player] = created.get(player, 0) + (status == 201)
        assert created == {f"player{index}": 1 for index in range(PLAYERS)}
        _, _, board = request("GET", f"{second.url}/v1/puzzles/{puzzle['date']}/montana/"
                                     f"leaderboard?per_page=100")
        assert board["total"] == PLAYERS
        entries: list[dict[str, Any]] = board["entries"]
        assert sorted(entry["player"] for entry in entries) == sorted(created)
        # the day's deal decides whether a longer prefix puts more cards in sequence
        expected = [count for count in _par_order(in_sequence)
                    for _ in range(sum(1 + index % len(moves) == count
                                       for index in range(PLAYERS)))]
        assert [entry["moves"] for entry in entries] == expected
    finally:
        first.stop()
        second.stop()
