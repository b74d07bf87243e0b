"""Leaderboards rank by the scheme the configuration names (GAPGRID_RANKING, default par),
and a server whose plugins lack that scheme refuses to start instead of failing later."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import attrs
import pytest
import sqlalchemy
from flask import Flask
from flask.testing import FlaskClient

from gapgrid import plugins
from gapgrid.api.app import create_app
from gapgrid.api.config import ConfigError, Settings
from gapgrid.api.services import puzzles
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game
from tests.api import conftest
from tests.api.conftest import TODAY, Clock
from tests.api.live import GAPGRID, LiveServer, request


def game_lines(client: FlaskClient, count: int) -> list[list[str]]:
    """``count`` different legal games of today's Montana puzzle: the game that always
    plays the last legal move, cut at 1, 2, ... moves, and the one that always plays the
    first, so that the schemes disagree on their order."""
    puzzle = client.get("/v1/daily/montana").get_json()
    rules = plugins.load_catalogue(disabled=()).rules("montana")
    lines = []
    for pick in (-1, 0):
        state = new_game(rules, parse_deal_number(puzzle["deal"]))
        played: list[str] = []
        for _ in range(count):
            move = state.legal_moves()[pick]
            state = state.apply(move)
            played.append(str(move))
            lines.append(list(played))
    return lines


def submit_all(client: FlaskClient, lines: list[list[str]]) -> dict[str, dict[str, Any]]:
    """Submit each game as its own player; return each player's stored scores (and keep
    each player's token in ``TOKENS``)."""
    scores = {}
    for index, moves in enumerate(lines):
        response = client.post(f"/v1/puzzles/{TODAY}/montana/submissions",
                               json={"player": f"p{index}", "moves": moves})
        assert response.status_code == 201, response.get_json()
        scores[f"p{index}"] = response.get_json()["result"]["scores"]
        TOKENS[f"p{index}"] = response.get_json()["player_token"]
    return scores


TOKENS: dict[str, str] = {}
"""The player tokens :func:`submit_all` was given, by player."""


def ranking(client: FlaskClient) -> tuple[str, list[tuple[int, str, int]]]:
    board = client.get(f"/v1/puzzles/{TODAY}/montana/leaderboard?per_page=100").get_json()
    return board["ranking"], [(entry["rank"], entry["player"], entry["score"])
                              for entry in board["entries"]]


def expected(scores: dict[str, dict[str, Any]], scheme: str) -> list[tuple[int, str, int]]:
    """The ranking the scheme's own sort keys give: ascending, ties share a rank."""
    order = sorted(scores, key=lambda player: (scores[player][scheme]["sort_key"],
                                               int(player[1:])))
    ranked = []
    for player in order:
        key = scores[player][scheme]["sort_key"]
        rank = 1 + sum(1 for other in scores if scores[other][scheme]["sort_key"] < key)
        ranked.append((rank, player, scores[player][scheme]["total"]))
    return ranked


def test_the_leaderboard_ranks_by_the_configured_scheme(make_app: Callable[..., Flask]
                                                        ) -> None:
    """The same submissions, ranked by par (the default) and by cards, follow each scheme's
    sort key; the two orders differ, so the setting is what decides."""
    by_par = make_app().test_client()
    scores = submit_all(by_par, game_lines(by_par, 4))
    by_cards = make_app(ranking="cards").test_client()
    assert ranking(by_par) == ("par", expected(scores, "par"))
    assert ranking(by_cards) == ("cards", expected(scores, "cards"))
    assert [player for _, player, _ in expected(scores, "par")] != [
        player for _, player, _ in expected(scores, "cards")]
    answer = by_cards.post(f"/v1/puzzles/{TODAY}/montana/submissions",
                           json={"player": "p0", "moves": game_lines(by_cards, 1)[0]},
                           headers={"Authorization": f"Bearer {TOKENS['p0']}"})
    ranked_p0 = next(rank for rank, player, _ in expected(scores, "cards") if player == "p0")
    assert answer.status_code == 200 and answer.get_json()["rank"] == ranked_p0


def test_a_scheme_loaded_later_ranks_earlier_submissions(tmp_path: Path, clock: Clock) -> None:
    """Submissions stored by a server without the cards scheme are ranked by it once a
    server has it, with the score verification gives."""
    settings = conftest.test_settings(tmp_path)
    without_cards = create_app(settings, clock=clock,
                               catalogue=plugins.load_catalogue(disabled=["scoring_cards"]))
    client = without_cards.test_client()
    lines = game_lines(client, 3)
    stored = submit_all(client, lines)
    assert all("cards" not in scores for scores in stored.values())
    with_cards = create_app(attrs.evolve(settings, ranking="cards"), clock=clock,
                            catalogue=plugins.load_catalogue(disabled=())).test_client()
    verified = {f"p{index}": with_cards.post("/v1/verify", json={
        "variant": "montana", "deal": client.get("/v1/daily/montana").get_json()["deal"],
        "moves": moves}).get_json()["scores"] for index, moves in enumerate(lines)}
    assert ranking(with_cards) == ("cards", expected(verified, "cards"))


def test_a_submission_is_ranked_among_earlier_submissions_lacking_the_scheme(
        tmp_path: Path, clock: Clock) -> None:
    """The first submission to a server ranking by a scheme that earlier submissions lack
    gets its rank among all of them (the answer's ``rank`` and ``players``), as the
    leaderboard then shows it."""
    settings = conftest.test_settings(tmp_path)
    without_cards = create_app(settings, clock=clock,
                               catalogue=plugins.load_catalogue(disabled=["scoring_cards"]))
    lines = game_lines(without_cards.test_client(), 3)
    submit_all(without_cards.test_client(), lines[:-1])
    with_cards = create_app(attrs.evolve(settings, ranking="cards"), clock=clock,
                            catalogue=plugins.load_catalogue(disabled=())).test_client()
    answer = with_cards.post(f"/v1/puzzles/{TODAY}/montana/submissions",
                             json={"player": "last", "moves": lines[-1]}).get_json()
    board = {player: rank for rank, player, _ in ranking(with_cards)[1]}
    assert len(board) == answer["players"] == len(lines)
    assert answer["rank"] == board["last"]


def test_submissions_lacking_keys_are_keyed_a_batch_a_request(
        tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys are computed for at most KEYS_PER_REQUEST submissions a request (here 2 of 5):
    200,000 submissions of a database upgraded without them took one request 88 s and
    2 GB. Until the last batch, a submission is stored and answered 201 with its player's
    token and no rank (it was a 503 with the row stored and the token never given, so the
    name refused the player's retry), and the leaderboard says to come back (503,
    Retry-After); then it ranks them all, as the scheme's keys order them."""
    monkeypatch.setattr(puzzles, "KEYS_PER_REQUEST", 2)
    settings = conftest.test_settings(tmp_path)
    without_cards = create_app(settings, clock=clock,
                               catalogue=plugins.load_catalogue(disabled=["scoring_cards"]))
    lines = game_lines(without_cards.test_client(), 3)
    submit_all(without_cards.test_client(), lines[:5])
    with_cards = create_app(attrs.evolve(settings, ranking="cards"), clock=clock,
                            catalogue=plugins.load_catalogue(disabled=())).test_client()
    answer = with_cards.post(f"/v1/puzzles/{TODAY}/montana/submissions",
                             json={"player": "p5", "moves": lines[5]})
    assert answer.status_code == 201, answer.get_json()
    assert answer.get_json()["rank"] is None and "players" not in answer.get_json()
    assert answer.get_json()["player_token"]  # the name is the player's, token in hand
    board = with_cards.get(f"/v1/puzzles/{TODAY}/montana/leaderboard")  # keys 3 and 4
    assert board.status_code == 503 and board.headers["Retry-After"] == "1"
    assert board.get_json()["title"] == "Leaderboard being updated"
    verified = {player: with_cards.post("/v1/verify", json={
        "variant": "montana", "deal": with_cards.get("/v1/daily/montana").get_json()["deal"],
        "moves": moves}).get_json()["scores"]
        for player, moves in zip([f"p{index}" for index in range(6)], lines, strict=True)}
    # the first batch went with the submission, the second with the 503: the last is done
    assert ranking(with_cards) == ("cards", expected(verified, "cards"))


def test_one_request_at_a_time_keys_a_puzzle_on_any_server(
        tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """While a request (of any server on the database) holds the lease on keying a puzzle's
    submissions, another keys nothing and answers at once that the leaderboard is being
    updated (all of them keyed the same first batch, N times the work for one batch's
    progress); once the lease is given back, the next request keys."""
    monkeypatch.setattr(puzzles, "KEYS_PER_REQUEST", 2)
    settings = conftest.test_settings(tmp_path)
    without_cards = create_app(settings, clock=clock,
                               catalogue=plugins.load_catalogue(disabled=["scoring_cards"]))
    submit_all(without_cards.test_client(), game_lines(without_cards.test_client(), 2)[:3])
    app = create_app(attrs.evolve(settings, ranking="cards"), clock=clock,
                     catalogue=plugins.load_catalogue(disabled=()))
    with_cards = app.test_client()
    service = app.extensions["gapgrid"].puzzles
    puzzle = f"{TODAY}-montana"
    lease = f"keys:{puzzle}:cards"
    assert service.store.take_lease(lease, "another server", 60, service.wall_clock()) == 0
    board = with_cards.get(f"/v1/puzzles/{TODAY}/montana/leaderboard")
    assert board.status_code == 503 and board.headers["Retry-After"] == "1"
    assert len(service.store.unranked(puzzle, "cards")) == 3  # nothing keyed meanwhile
    service.store.release_lease(lease, "another server")
    assert with_cards.get(f"/v1/puzzles/{TODAY}/montana/leaderboard").status_code == 503
    assert len(service.store.unranked(puzzle, "cards")) == 1  # a batch of 2 keyed
    board = with_cards.get(f"/v1/puzzles/{TODAY}/montana/leaderboard")
    assert board.status_code == 200 and board.get_json()["total"] == 3


def test_a_request_that_fails_while_keying_gives_the_lease_back(
        tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """A request whose keying fails (a bug, here) answers 500 and gives the lease back: the
    next request keys, rather than every request being told to wait for half a minute."""
    settings = conftest.test_settings(tmp_path)
    without_cards = create_app(settings, clock=clock,
                               catalogue=plugins.load_catalogue(disabled=["scoring_cards"]))
    submit_all(without_cards.test_client(), game_lines(without_cards.test_client(), 1))
    with_cards = create_app(attrs.evolve(settings, ranking="cards"), clock=clock,
                            catalogue=plugins.load_catalogue(disabled=())).test_client()
    summary = puzzles.summary_of_answer

    def failing(*args: Any) -> Any:
        raise RuntimeError("a bug while keying")

    monkeypatch.setattr(puzzles, "summary_of_answer", failing)
    assert with_cards.get(f"/v1/puzzles/{TODAY}/montana/leaderboard").status_code == 500
    monkeypatch.setattr(puzzles, "summary_of_answer", summary)
    board = with_cards.get(f"/v1/puzzles/{TODAY}/montana/leaderboard")
    assert board.status_code == 200 and board.get_json()["total"] == 2


def test_a_missing_ranking_scheme_is_a_configuration_error(tmp_path: Path) -> None:
    """create_app refuses, in one line naming the setting, plugins that lack the scheme."""
    catalogue = plugins.load_catalogue(disabled=["scoring_par"])
    with pytest.raises(ConfigError) as refused:
        create_app(conftest.test_settings(tmp_path), catalogue=catalogue)
    message = str(refused.value)
    assert "\n" not in message and "GAPGRID_RANKING" in message and "'par'" in message
    assert not (tmp_path / "instance").exists(), "refused, yet it created the instance"
    with pytest.raises(ConfigError, match="'golf'"):
        create_app(conftest.test_settings(tmp_path, ranking="golf"), catalogue=catalogue)


def test_serve_refuses_to_start_without_the_ranking_scheme(tmp_path: Path) -> None:
    """`gapgrid serve` with GAPGRID_DISABLE_PLUGINS=scoring_par: one line, exit status 2,
    no server."""
    env = {**os.environ, "GAPGRID_INSTANCE": str(tmp_path / "instance"),
           "GAPGRID_SECRET_KEY": "test-secret-16-b", "GAPGRID_DISABLE_PLUGINS": "scoring_par"}
    env.pop("GAPGRID_RANKING", None)
    finished = subprocess.run([str(GAPGRID), "serve", "--port", "0"], capture_output=True,
                              text=True, timeout=60, env=env)
    assert finished.returncode == 2, finished.stderr
    assert finished.stdout == ""
    [line] = finished.stderr.splitlines()
    assert line.startswith("gapgrid: cannot serve: GAPGRID_RANKING is 'par', but no loaded "
                           "plugin provides that scoring scheme (loaded: cards, frontier")
    assert line.endswith("enable its plugin or rank by one of those")


def test_without_par_a_server_ranking_by_cards_takes_submissions(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With par disabled and GAPGRID_RANKING=cards the real server stores and ranks
    submissions: never a 500."""
    monkeypatch.setenv("GAPGRID_DISABLE_PLUGINS", "scoring_par")
    monkeypatch.setenv("GAPGRID_RANKING", "cards")
    server = LiveServer(tmp_path / "instance").start()
    try:
        _, _, puzzle = request("GET", f"{server.url}/v1/daily/montana")
        state = new_game(plugins.load_catalogue(disabled=()).rules("montana"),
                         parse_deal_number(puzzle["deal"]))
        move = str(state.legal_moves()[0])
        url = f"{server.url}/v1/puzzles/{puzzle['date']}/montana"
        status, _, answer = request("POST", f"{url}/submissions",
                                    {"player": "Solo", "moves": [move]})
        assert status == 201 and answer["rank"] == 1
        assert "par" not in answer["result"]["scores"]
        status, _, board = request("GET", f"{url}/leaderboard")
        assert status == 200 and board["ranking"] == "cards"
        assert board["entries"][0]["score"] == answer["result"]["scores"]["cards"]["total"]
    finally:
        server.stop()


def test_the_ranking_setting_is_read_from_the_environment() -> None:
    """GAPGRID_RANKING names the scheme; par when unset; nonsense is refused by name."""
    secret = {"GAPGRID_SECRET_KEY": "ranking-test-secret"}
    assert Settings.from_environment(secret).ranking == "par"
    assert Settings.from_environment({**secret, "GAPGRID_RANKING": " cards "}).ranking == "cards"
    for nonsense in ("p\tar", "pâr", "x" * 65):
        with pytest.raises(ConfigError, match="GAPGRID_RANKING"):
            Settings.from_environment({"GAPGRID_RANKING": nonsense})


def a_real_lock_error(tmp_path: Path) -> sqlalchemy.exc.OperationalError:
    """The error SQLite gives a writer whose database another connection holds locked past
    its wait, as SQLAlchemy hands it on."""
    path = tmp_path / "locked.sqlite3"
    with closing(sqlite3.connect(path, isolation_level=None)) as holder, \
            closing(sqlite3.connect(path, timeout=0, isolation_level=None)) as waiter:
        holder.execute("BEGIN IMMEDIATE")
        with pytest.raises(sqlite3.OperationalError) as locked:
            waiter.execute("BEGIN IMMEDIATE")
    return sqlalchemy.exc.OperationalError("BEGIN IMMEDIATE", {}, locked.value)


@pytest.mark.parametrize("outage", [True, False])
def test_a_stored_submission_is_answered_201_whatever_its_ranking_meets(
        make_app: Callable[..., Flask], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        outage: bool) -> None:
    """The database locked past its wait once the submission is stored (another server
    keying a large puzzle, say): the answer is still 201 with the player's token, rank
    null (it was a 503, the token never given, and the retry refused by the name). A
    statement the database refuses, a bug, is still a 500."""
    app = make_app()
    client = app.test_client()
    [moves] = game_lines(client, 1)[:1]
    error = (a_real_lock_error(tmp_path) if outage
             else sqlalchemy.exc.ProgrammingError("SELECT", {}, sqlite3.ProgrammingError()))

    def fails(*args: object) -> None:
        raise error

    monkeypatch.setattr(app.extensions["gapgrid"].puzzles.store, "rank_if_all_ranked", fails)
    answer = client.post(f"/v1/puzzles/{TODAY}/montana/submissions",
                         json={"player": "locked", "moves": moves})
    if not outage:
        assert answer.status_code == 500
        return
    assert answer.status_code == 201, answer.get_json()
    document = answer.get_json()
    assert document["stored"] and document["rank"] is None and "players" not in document
    assert document["player_token"]
