"""Three ``gapgrid serve`` processes on one PostgreSQL (issue 13): what one player sends at
once to all three is stored once, the three serve one leaderboard, and ``kill -9`` of one
of them in the middle of the load loses no submission it acknowledged.

The servers are the real command on free ports, the database a real
PostgreSQL started by the test session (:mod:`tests.postgres`).
"""

from __future__ import annotations

import datetime
import http.client
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game
from tests.api.live import LiveServer, request

PLAYERS = 50
COPIES = 6
"""Each player sends the same submission this many times at once, spread over the servers."""

SLUG = "montana"

pytestmark = pytest.mark.slow


@pytest.fixture
def servers(postgres_url: str, tmp_path: Path) -> Iterator[list[LiveServer]]:
    """Three servers on one new PostgreSQL database, started together (so they also race
    to create its schema), with the write limit off (all clients here are one address)."""
    environment = {"GAPGRID_DATABASE": postgres_url, "GAPGRID_LIMIT_WRITES": "off",
                   "GAPGRID_LIMIT_READS": "off", "GAPGRID_CERTIFY_SECONDS": "0"}
    started = [LiveServer(tmp_path / f"instance-{index}", environment=environment)
               for index in range(3)]
    threads = [threading.Thread(target=server.start) for server in started]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert all(server.url for server in started)
        yield started
    finally:
        for server in started:
            server.stop()


def players_moves(catalogue: Catalogue, servers: list[LiveServer]
                  ) -> tuple[str, dict[str, list[str]]]:
    """Today's puzzle's path, and each player's moves: the first 1 to 12 legal moves of a game
    that always plays the first legal move, so that the players rank in groups."""
    day = datetime.datetime.now(datetime.UTC).date().isoformat()
    path = f"/v1/puzzles/{day}/{SLUG}"
    status, _, puzzle = request("GET", servers[0].url + path)
    assert status == 200
    state = new_game(catalogue.rules(SLUG), parse_deal_number(puzzle["deal"]))
    line = []
    for _ in range(12):
        move = state.legal_moves()[0]
        state = state.apply(move)
        line.append(str(move))
    return path, {f"Player {index}": line[:1 + index % 12] for index in range(PLAYERS)}


def send_all(servers: list[LiveServer], path: str, moves: dict[str, list[str]],
             after_each: Callable[[], None] = lambda: None) -> list[tuple[str, int, Any]]:
    """Every player's submission, ``COPIES`` times, all at once, copy ``c`` to server
    ``c % 3``; (player, status, answer) of each (status 0: the connection failed)."""
    jobs = [(player, copy) for copy in range(COPIES) for player in moves]

    def send(job: tuple[str, int]) -> tuple[str, int, Any]:
        player, copy = job
        url = servers[copy % len(servers)].url + path + "/submissions"
        try:
            status, _, answer = request("POST", url, {"player": player,
                                                      "moves": moves[player]})
        except (OSError, http.client.HTTPException):  # refused, or cut off mid-answer
            status, answer = 0, None
        after_each()
        return player, status, answer
    with ThreadPoolExecutor(max_workers=60) as pool:
        return list(pool.map(send, jobs))


def leaderboard(server: LiveServer, path: str) -> dict[str, Any]:
    """The whole leaderboard, as one server serves it."""
    status, _, board = request("GET", f"{server.url}{path}/leaderboard?per_page=100")
    assert status == 200
    return board  # type: ignore[no-any-return]


def test_one_submission_per_player_and_one_leaderboard_across_three_servers(
        servers: list[LiveServer], catalogue: Catalogue) -> None:
    """50 players each send one submission 6 times at once over three servers: each player
    gets exactly one 201 (with the player token), the other five copies are refused as
    under a name that is now owned (401), the three servers serve the same leaderboard of
    50, ranked by the submissions' scores, and a resubmission with the token is recognised
    by any server."""
    path, moves = players_moves(catalogue, servers)
    results = send_all(servers, path, moves)
    statuses = {player: Counter(status for who, status, _ in results if who == player)
                for player in moves}
    assert all(counted == Counter({201: 1, 401: COPIES - 1}) for counted in statuses.values())
    created = {player: answer for player, status, answer in results if status == 201}

    boards = [leaderboard(server, path) for server in servers]
    assert boards[0]["total"] == PLAYERS
    assert boards[1]["entries"] == boards[0]["entries"] == boards[2]["entries"]
    entries = boards[0]["entries"]
    assert sorted(entry["player"] for entry in entries) == sorted(moves)
    assert {entry["player"]: entry["submitted_at"] for entry in entries} == {
        player: answer["submitted_at"] for player, answer in created.items()}
    # RANK(): players who sent the same moves tie, and a rank is one more than the number
    # of players before it
    for index, entry in enumerate(entries):
        tied = index > 0 and moves[entry["player"]] == moves[entries[index - 1]["player"]]
        assert entry["rank"] == (entries[index - 1]["rank"] if tied else index + 1)

    player = "Player 7"
    status, _, again = request(
        "POST", f"{servers[2].url}{path}/submissions", {"player": player,
                                                         "moves": moves[player]},
        headers={"Authorization": f"Bearer {created[player]['player_token']}"})
    assert status == 200 and again["submitted_at"] == created[player]["submitted_at"]
    assert again["players"] == PLAYERS


def test_kill_9_of_a_server_under_load_loses_no_acknowledged_submission(
        servers: list[LiveServer], catalogue: Catalogue) -> None:
    """One server is killed (SIGKILL) once a fifth of the load is answered: every
    submission any server acknowledged (201) is on the leaderboard the other two serve, with
    the time it was acknowledged with, and still one per player; a server started again on
    the database serves the same leaderboard."""
    path, moves = players_moves(catalogue, servers)
    answered = 0
    lock = threading.Lock()
    victim = servers[0]

    def count_and_kill() -> None:
        nonlocal answered
        with lock:
            answered += 1
            if answered == PLAYERS * COPIES // 5 and victim.process is not None:
                victim.process.kill()
    results = send_all(servers, path, moves, count_and_kill)
    assert victim.process is not None and victim.process.wait(timeout=20) == -9
    victim.process = None
    acknowledged = {player: answer for player, status, answer in results if status == 201}
    assert Counter(player for player, status, _ in results if status == 201).most_common(1)[0][
        1] == 1
    assert len(acknowledged) >= PLAYERS // 2  # the load really ran ...
    assert any(status == 0 for _, status, _ in results)  # ... and the kill cut into it

    survivors = [leaderboard(server, path) for server in servers[1:]]
    assert survivors[0]["entries"] == survivors[1]["entries"]
    stored = {entry["player"]: entry["submitted_at"] for entry in survivors[0]["entries"]}
    assert len(stored) == survivors[0]["total"] == len(survivors[0]["entries"])
    for player, answer in acknowledged.items():
        assert stored[player] == answer["submitted_at"]

    restarted = LiveServer(victim.instance, environment=victim.environment).start()
    try:
        assert leaderboard(restarted, path)["entries"] == survivors[0]["entries"]
    finally:
        restarted.stop()
