"""POST /v1/hint on certified puzzles, hints recorded against start tokens, and the fair
leaderboard, tested with real submissions: empty, no progress, partial, won, won longer,
won with hints."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from itsdangerous import SignatureExpired, TimestampSigner, URLSafeTimedSerializer

from gapgrid.api.services.puzzles import TOKEN_SALT, token_digest
from gapgrid.api.store import Store
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import GameState, new_game
from gapgrid.core.notation import parse_actions
from gapgrid.core.replay import replay
from gapgrid.core.search import Budget, solve
from tests.api.conftest import TODAY, Clock

VARIANT = "paganini"
URL = f"/v1/puzzles/{TODAY}/{VARIANT}"


def hint(client: FlaskClient, deal: str, moves: list[str], **extra: Any) -> dict[str, Any]:
    answer = client.post("/v1/hint", json={"variant": VARIANT, "deal": deal, "moves": moves,
                                           **extra})
    assert answer.status_code == 200, answer.get_json()
    assert answer.headers["Cache-Control"] == "no-store"
    return answer.get_json()  # type: ignore[no-any-return]


def certified_line(app: Flask) -> list[str]:
    """Today's puzzle's stored line (what the solution will show after the day)."""
    store: Store = app.extensions["gapgrid"].puzzles.store
    _, certificate = store.puzzle_and_certificate(f"{TODAY}-{VARIANT}")
    assert certificate is not None and certificate.certified
    return list(certificate.line)


def test_following_hints_from_the_start_wins_the_certified_puzzle(
        make_app: Callable[..., Flask]) -> None:
    """One action at a time, each hint read off the certified line: the game is won in par
    actions, each remaining count one less than the last."""
    client = make_app().test_client()
    puzzle = client.get(f"/v1/daily/{VARIANT}").get_json()
    moves: list[str] = []
    remaining = []
    while True:
        answer = hint(client, puzzle["deal"], moves)
        assert answer["verdict"] == "won" and answer["ok"]
        remaining.append(answer["remaining"])
        if answer["next"] is None:
            break
        assert answer["source"] == "line"
        moves.append(answer["next"])
        assert len(moves) <= puzzle["par"]
    assert answer["won"] and len(moves) == puzzle["par"]
    assert remaining == list(range(puzzle["par"], -1, -1))


def test_off_the_line_a_hint_searches_and_its_line_is_followed(
        make_app: Callable[..., Flask], catalogue: Catalogue) -> None:
    """After a move the certified line does not make, the hint comes from a search; the
    next ones continue the line it found, to the win."""
    client = make_app().test_client()
    puzzle = client.get(f"/v1/daily/{VARIANT}").get_json()
    line = certified_line(client.application)
    state = new_game(catalogue.rules(VARIANT), parse_deal_number(puzzle["deal"]))
    detour = next(str(move) for move in state.legal_moves() if str(move) != line[0])
    moves = [detour]
    first = hint(client, puzzle["deal"], moves)
    if first["verdict"] != "won":  # this detour lost the game: nothing to follow
        assert first["verdict"] in ("lost", "unknown") and first["source"] == "search"
        return
    assert first["source"] == "search"
    while True:
        answer = hint(client, puzzle["deal"], moves)
        if answer["next"] is None:
            break
        if len(moves) > 1:
            assert answer["source"] == "line"
        moves.append(answer["next"])
    assert replay(catalogue.rules(VARIANT), parse_deal_number(puzzle["deal"]),
                  parse_actions(moves)).won


def test_hints_answer_lost_and_refused_positions(make_app: Callable[..., Flask]) -> None:
    """A lost Line Up deal is said to be lost; an illegal move is answered as /v1/moves
    answers it (ok false, its index) with no hint; a won position needs no next action."""
    client = make_app().test_client()
    lost = client.post("/v1/hint", json={"variant": "line-up", "deal": "55",
                                         "moves": []}).get_json()
    assert lost["verdict"] == "lost" and lost["next"] is None and lost["remaining"] is None
    refused = client.post("/v1/hint", json={"variant": "line-up", "deal": "55",
                                            "moves": ["0-0"]}).get_json()
    assert refused["ok"] is False and refused["error"]["index"] == 0
    assert refused["verdict"] is None and refused["next"] is None


def test_hint_requests_are_checked(make_app: Callable[..., Flask]) -> None:
    """A malformed body or a token for another game is a 422 problem naming the field."""
    client = make_app().test_client()
    puzzle = client.get(f"/v1/daily/{VARIANT}").get_json()
    token = client.post(f"{URL}/start", json={}).get_json()["token"]
    for body, pointer in [
        ({"variant": VARIANT, "deal": puzzle["deal"]}, "#"),
        ({"variant": VARIANT, "deal": puzzle["deal"], "moves": [], "budget": 9}, "#/budget"),
        ({"variant": VARIANT, "deal": "12345", "moves": [], "token": token}, "#/token"),
        ({"variant": VARIANT, "deal": puzzle["deal"], "moves": [], "token": "x.y"},
         "#/token"),
    ]:
        answer = client.post("/v1/hint", json=body)
        assert answer.status_code == 422, body
        assert answer.get_json()["errors"][0]["pointer"] == pointer, answer.get_json()


def test_a_hint_after_the_late_submissions_with_yesterdays_token_is_not_recorded(
        make_app: Callable[..., Flask], clock: Clock) -> None:
    """Past midnight, yesterday's start token still gets the hint: recorded in the hour its
    game may still be submitted (the submission is then assisted), but not once the puzzle
    takes no more submissions: the answer says it is not assisted."""
    client = make_app().test_client()
    puzzle = client.get(f"/v1/daily/{VARIANT}").get_json()
    token = client.post(f"{URL}/start", json={}).get_json()["token"]
    clock.advance(12 * 3600 + 60)  # 00:01 the next day
    assert hint(client, puzzle["deal"], [], token=token)["assisted"] is True
    submitted = client.post(f"{URL}/submissions", json={"player": "Ann", "moves": [],
                                                         "token": token})
    assert submitted.status_code == 201 and submitted.get_json()["assisted"] is True
    clock.advance(3600)
    late = hint(client, puzzle["deal"], [], token=token)
    assert late["assisted"] is False and late["next"] is not None


def test_a_hint_with_a_start_token_past_its_age_is_answered(
        make_app: Callable[..., Flask], clock: Clock) -> None:
    """A start token kept by a page reopened days later gets the hint, recorded nowhere
    (it was refused as expired, so the page could give no hint there at all); a token
    whose signature is wrong is still refused."""
    app = make_app()
    client = app.test_client()
    puzzle = client.get(f"/v1/daily/{VARIANT}").get_json()
    service = app.extensions["gapgrid"].puzzles

    class ThreeDaysAgo(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time()) - 3 * 24 * 3600

    old = URLSafeTimedSerializer(service.settings.secret_key, salt=TOKEN_SALT,
                                 signer=ThreeDaysAgo).dumps({"p": puzzle["id"], "t": 0,
                                                             "n": "0"})
    with pytest.raises(SignatureExpired):
        service.tokens.loads(old, max_age=service.settings.token_max_age)
    answer = hint(client, puzzle["deal"], [], token=old)
    assert answer["assisted"] is False and answer["next"] is not None
    assert service.store.hints_for(token_digest(old)) == 0
    forged = client.post("/v1/hint", json={"variant": VARIANT, "deal": puzzle["deal"],
                                           "moves": [], "token": old[:-8] + "AAAAAAAA"})
    assert forged.status_code == 422


def no_progress_move(state: GameState) -> str:
    """A legal move after which no more cards are in sequence than before."""
    before = state.board.cards_in_sequence()
    return next(str(move) for move in state.legal_moves()
                if state.apply(move).board.cards_in_sequence() <= before)


def test_the_fair_leaderboard_with_real_submissions(make_app: Callable[..., Flask],
                                                    catalogue: Catalogue) -> None:
    """Won games first by fewer actions (the unassisted ones, then those played with hints),
    then games with progress by more cards in sequence, then games without progress (an
    empty one included); at-par and assisted are shown."""
    app = make_app()
    client = app.test_client()
    puzzle = client.get(f"/v1/daily/{VARIANT}").get_json()
    rules = catalogue.rules(VARIANT)
    deal = parse_deal_number(puzzle["deal"])
    line = certified_line(app)
    start = new_game(rules, deal)
    longer_tail = solve(start.apply(parse_actions([no_progress_move(start)])[0]),
                        Budget(seconds=20))
    assert longer_tail.verdict == "won"
    longer = [no_progress_move(start), *map(str, longer_tail.line)]
    cards = [replay(rules, deal, parse_actions(line[:count])).state.board.cards_in_sequence()
             for count in range(len(line))]
    initial = cards[0]
    some = next(count for count in range(len(line)) if cards[count] > initial)
    more = next(count for count in range(some, len(line)) if cards[count] > cards[some])

    helped = client.post(f"{URL}/start", json={}).get_json()["token"]
    hinted = hint(client, puzzle["deal"], [], token=helped)
    assert hinted["assisted"] is True and hinted["next"] == line[0]
    unhelped = client.post(f"{URL}/start", json={}).get_json()["token"]

    games = {
        "Empty": ([], None),
        "Shuffler": ([no_progress_move(start)], None),
        "Some": (line[:some], None),
        "More": (line[:more], None),
        "Longer": (longer, None),
        "Helped": (line, helped),
        "Par": (line, unhelped),
    }
    answers = {}
    for player, (moves, token) in games.items():
        body: dict[str, Any] = {"player": player, "moves": moves}
        if token is not None:
            body["token"] = token
        answer = client.post(f"{URL}/submissions", json=body)
        assert answer.status_code == 201, answer.get_json()
        answers[player] = answer.get_json()
    assert answers["Helped"]["assisted"] is True and answers["Par"]["assisted"] is False
    board = client.get(f"{URL}/leaderboard?per_page=100").get_json()
    order = [entry["player"] for entry in board["entries"]]
    # at equal length, Par's known time (it has a token) ranks before Longer's unknown one
    expected_wins = ["Par", "Longer"] if len(line) <= len(longer) else ["Longer", "Par"]
    assert order[:3] == [*expected_wins, "Helped"]
    assert order[3:5] == ["More", "Some"]
    assert set(order[5:]) == {"Empty", "Shuffler"} and order[5] == "Empty"  # fewer moves
    entries = {entry["player"]: entry for entry in board["entries"]}
    par = min(len(line), len(longer))  # a shorter winning submission lowers par
    assert board["par"] == par and entries["Par"]["actions"] == len(line)
    assert entries["Par"]["at_par"] == entries["Helped"]["at_par"] == (len(line) == par)
    assert entries["Longer"]["at_par"] == (len(longer) == par)
    assert entries["Helped"]["assisted"] and not entries["Par"]["assisted"]
    assert not any(entries[name]["at_par"] for name in ("Empty", "Shuffler", "Some", "More"))
    ranks = [entry["rank"] for entry in board["entries"]]
    assert ranks == sorted(ranks) == list(range(1, 8))


def test_hint_searches_are_bounded_per_process(make_app: Callable[..., Flask]) -> None:
    """While the process's search is held (here for 30 s more: a puzzle being made), a hint
    that needs a search is a 503 whose Retry-After says when it frees, while one read off the
    certified line is still answered."""
    app = make_app()
    client = app.test_client()
    puzzle = client.get(f"/v1/daily/{VARIANT}").get_json()
    search = app.extensions["gapgrid"].puzzles.search
    with search.held(wait=0, longest=30, busy=AssertionError):
        assert hint(client, puzzle["deal"], [])["source"] == "line"
        busy = client.post("/v1/hint", json={"variant": "line-up", "deal": "52", "moves": []})
        # when the search frees: the rate limiter's window (up to a minute) was written over
        # it, and "a second" was said however long the search was held
        assert busy.status_code == 503 and 25 <= int(busy.headers["Retry-After"]) <= 30
        assert f"try again in {busy.headers['Retry-After']} s" in busy.get_json()["detail"]
        assert busy.content_type == "application/problem+json"
    answered = client.post("/v1/hint", json={"variant": "line-up", "deal": "52", "moves": []})
    assert answered.status_code == 200


def test_a_game_without_progress_does_not_lock_its_player_out(
        make_app: Callable[..., Flask], catalogue: Catalogue) -> None:
    """An empty submission is stored, and the same player's first submission with progress
    takes its place (201); after that, other moves are refused (409) as ever."""
    app = make_app()
    client = app.test_client()
    puzzle = client.get(f"/v1/daily/{VARIANT}").get_json()
    line = certified_line(app)
    rules, deal = catalogue.rules(VARIANT), parse_deal_number(puzzle["deal"])
    start = new_game(rules, deal).board.cards_in_sequence()
    steps = next(count for count in range(1, len(line)) if replay(
        rules, deal, parse_actions(line[:count])).state.board.cards_in_sequence() > start)
    empty = client.post(f"{URL}/submissions", json={"player": "Oops", "moves": []})
    assert empty.status_code == 201
    owner = {"Authorization": f"Bearer {empty.get_json()['player_token']}"}
    again = client.post(f"{URL}/submissions", json={"player": "oops", "moves": line[:steps]},
                        headers=owner)
    assert again.status_code == 201 and again.get_json()["result"]["moves_applied"] == steps
    board = client.get(f"{URL}/leaderboard").get_json()
    assert [(entry["player"], entry["actions"]) for entry in board["entries"]] == [
        ("Oops", steps)]  # the name as first registered
    assert client.post(f"{URL}/submissions", json={"player": "Oops", "moves": line[:steps + 1]},
                       headers=owner).status_code == 409
    assert client.post(f"{URL}/submissions", json={"player": "Oops", "moves": line[:steps]},
                       headers=owner).status_code == 200


def test_a_players_line_is_no_hint_until_the_solution_opens(
        make_app: Callable[..., Flask], clock: Clock, catalogue: Catalogue) -> None:
    """A winning submission that becomes the puzzle's line (here the first win of a puzzle
    no search certified) gave hints read off it to anyone asking without a token: the
    player's game, move by move, to copy while the puzzle still took submissions. Hints
    come from a search until the solution opens, then from that line."""
    client = make_app(certify_seconds=0).test_client()
    puzzle = client.get(f"/v1/daily/{VARIANT}").get_json()
    assert puzzle["certified"] is False
    state = new_game(catalogue.rules(VARIANT), parse_deal_number(puzzle["deal"]))
    found = solve(state, Budget(seconds=30))
    assert found.verdict == "won"
    line = [str(action) for action in found.line]
    token = client.post(f"{URL}/start", json={}).get_json()["token"]
    submitted = client.post(f"{URL}/submissions", json={"player": "Ann", "moves": line,
                                                         "token": token})
    assert submitted.status_code == 201, submitted.get_json()
    assert client.get(f"/v1/daily/{VARIANT}").get_json()["par"] == len(line)
    assert hint(client, puzzle["deal"], [])["source"] != "line"
    clock.advance(13 * 3600)  # 01:00 the next day: the solution opens
    opened = hint(client, puzzle["deal"], [])
    assert (opened["source"], opened["next"]) == ("line", line[0])
