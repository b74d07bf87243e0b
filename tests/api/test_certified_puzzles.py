"""Certified daily puzzles: candidates until one is won, par, solutions after the day, puzzles
stored before certification, and the certificate's store rules (never worse, never another
game's)."""

from __future__ import annotations

import datetime
import hashlib
import hmac
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest
from flask import Flask

from gapgrid import plugins
from gapgrid.api.services import certify
from gapgrid.api.services.certify import CertifyBudget, candidate_deal
from gapgrid.api.services.errors import Fault, ServiceError
from gapgrid.api.services.puzzles import PuzzleService, make_puzzle, puzzle_id
from gapgrid.api.store import Certificate, NewSubmission, Store
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber, parse_deal_number
from gapgrid.core.game import new_game
from gapgrid.core.notation import parse_actions
from gapgrid.core.replay import replay
from gapgrid.core.search import Budget, solve
from tests.api import conftest
from tests.api.conftest import TODAY, Clock

VARIANT = "paganini"
"""Small and quickly solved: its puzzles are certified within a second or two."""

YESTERDAY = "2026-11-29"
PROBLEM = "application/problem+json"


def test_a_new_puzzle_is_certified_and_its_solution_opens_after_the_day(
        make_app: Callable[..., Flask], clock: Clock) -> None:
    """Today's puzzle is certified with a par and a rating; its solution is a 404 until an
    hour after the next UTC midnight (the late submissions' end), which the detail names,
    and then a line of par actions that POST /v1/verify replays to a win."""
    client = make_app().test_client()
    puzzle = client.get(f"/v1/daily/{VARIANT}").get_json()
    assert puzzle["certified"] is True and isinstance(puzzle["par"], int)
    assert puzzle["difficulty"] is None or puzzle["difficulty"]["label"] in (
        "easy", "medium", "hard", "expert")
    early = client.get(f"/v1/puzzles/{TODAY}/{VARIANT}/solution")
    assert early.status_code == 404 and early.content_type == PROBLEM
    assert "opens at 2026-12-01T01:00:00Z (UTC)" in early.get_json()["detail"]
    assert puzzle["solution_opens_at"] == "2026-12-01T01:00:00Z"
    clock.advance(12 * 3600)  # the next UTC midnight: the day is over, not its late games
    late = client.get(f"/v1/puzzles/{TODAY}/{VARIANT}/solution")
    assert late.status_code == 404 and "opens at 2026-12-01T01:00:00Z" in late.text
    clock.advance(3600)
    answer = client.get(f"/v1/puzzles/{TODAY}/{VARIANT}/solution")
    solution = answer.get_json()
    assert answer.status_code == 200 and "immutable" in answer.headers["Cache-Control"]
    assert solution["par"] == puzzle["par"] == len(solution["line"])
    assert solution["line_from"] == "solver" and solution["deal"] == puzzle["deal"]
    verified = client.post("/v1/verify", json={"variant": VARIANT, "deal": puzzle["deal"],
                                               "moves": solution["line"]}).get_json()
    assert verified["ok"] and verified["won"]
    assert client.get(f"/v1/puzzles/{TODAY}/{VARIANT}").get_json() == puzzle


def test_a_puzzle_never_changes_once_stored(make_app: Callable[..., Flask]) -> None:
    """Another app on the same database, with no search budget at all, serves the very same
    certified puzzle."""
    first = make_app().test_client().get(f"/v1/daily/{VARIANT}").get_json()
    again = make_app(certify_seconds=0).test_client().get(f"/v1/daily/{VARIANT}").get_json()
    assert again == first and again["certified"]


def test_candidates_are_tried_in_turn_until_one_is_won(catalogue: Catalogue) -> None:
    """Line Up game 55 is lost, 52 is won: the certificate is 52's, with both tries listed
    and a line of par actions that wins."""
    rules = catalogue.rules("line-up")
    found = certify.certify_candidates(rules, "line-up", [(0, DealNumber(55)),
                                                          (1, DealNumber(52))],
                                       CertifyBudget(), {})
    assert found.deal == DealNumber(52) and found.certified and found.par == len(found.line)
    assert [(tried.attempt, tried.verdict) for tried in found.tried] == [(0, "lost"),
                                                                         (1, "won")]
    assert replay(rules, DealNumber(52), parse_actions(found.line)).won


def test_no_win_within_the_budget_keeps_the_first_candidate_uncertified(
        catalogue: Catalogue) -> None:
    """Searches too small to decide Montana: the first candidate is kept, not certified,
    without par or line."""
    budget = CertifyBudget(candidate_positions=1500, max_candidates=2)
    found = certify.certify_candidates(catalogue.rules("montana"), "montana",
                                       [(0, DealNumber(1)), (1, DealNumber(2))], budget, {})
    assert (found.deal, found.certified, found.par, found.line) == (DealNumber(1), False,
                                                                     None, ())
    assert [tried.verdict for tried in found.tried] == ["unknown", "unknown"]


def test_candidate_numbers_come_from_the_hmac_in_pysolfc_range() -> None:
    """Attempt 0 is gapgrid 0.1.0's number for the day (the HMAC of date and variant); later
    attempts add the counter; all lie in PySolFC's range for random numbers."""
    date = datetime.date(2026, 11, 30)
    digest = hmac.new(b"s", b"gapgrid-daily|2026-11-30|montana", hashlib.sha256).digest()
    legacy = 10**16 + int.from_bytes(digest, "big") % (10**20 - 10**16)
    numbers = [candidate_deal("s", date, "montana", attempt) for attempt in range(20)]
    assert numbers[0] == DealNumber(legacy)
    assert len(set(numbers)) == 20
    assert all(10**16 <= int(str(number)) < 10**20 for number in numbers)


def _store_legacy_puzzle(app: Flask, catalogue: Catalogue, day: str, variant: str,
                         deal: int) -> dict[str, Any]:
    """A puzzle as gapgrid stored it before certification: the body only."""
    date = datetime.date.fromisoformat(day)
    body = make_puzzle(catalogue, "test-secret", date, catalogue.lookup(variant),
                       DealNumber(deal))
    store: Store = app.extensions["gapgrid"].puzzles.store
    return store.keep_puzzle(puzzle_id(date, variant), day, variant, body,
                             "2026-11-29T00:00:01Z")


def test_a_puzzle_stored_before_certification_keeps_its_number_and_is_certified(
        make_app: Callable[..., Flask], catalogue: Catalogue) -> None:
    """Served again, an old puzzle keeps its game number and gains certified, par and a
    solution for that very number."""
    app = make_app()
    legacy = _store_legacy_puzzle(app, catalogue, YESTERDAY, VARIANT, 1)
    client = app.test_client()
    served = client.get(f"/v1/puzzles/{YESTERDAY}/{VARIANT}").get_json()
    assert served["deal"] == legacy["deal"] == "1" and served["rows"] == legacy["rows"]
    assert served["certified"] is True and served["par"] > 0
    solution = client.get(f"/v1/puzzles/{YESTERDAY}/{VARIANT}/solution").get_json()
    assert solution["deal"] == "1" and len(solution["line"]) == served["par"]
    assert replay(catalogue.rules(VARIANT), DealNumber(1), parse_actions(solution["line"])).won


def test_an_old_puzzle_with_no_win_found_is_served_uncertified(
        make_app: Callable[..., Flask], catalogue: Catalogue) -> None:
    """With too little search to decide it, an old puzzle is served certified false, without
    par or difficulty, and its solution is a 404 that says no line is known."""
    app = make_app(certify_seconds=0.05)
    # Paganini II game 21 stays undecided after a minute of solver 4: no machine decides
    # it in 0.05 s.
    _store_legacy_puzzle(app, catalogue, YESTERDAY, "paganini-ii", 21)
    client = app.test_client()
    served = client.get(f"/v1/puzzles/{YESTERDAY}/paganini-ii").get_json()
    assert (served["deal"], served["certified"], served["par"], served["difficulty"]) == (
        "21", False, None, None)
    missing = client.get(f"/v1/puzzles/{YESTERDAY}/paganini-ii/solution")
    assert missing.status_code == 404 and "no winning line is known" in missing.get_json()[
        "detail"]


def test_a_winning_submission_certifies_a_puzzle_and_sets_its_par(
        make_app: Callable[..., Flask], catalogue: Catalogue) -> None:
    """A puzzle made without a search is not certified; a player's win certifies it, with
    par the length of that win, shown at par on the leaderboard."""
    client = make_app(certify_seconds=0).test_client()
    puzzle = client.get(f"/v1/daily/{VARIANT}").get_json()
    assert puzzle["certified"] is False and puzzle["par"] is None
    result = solve(new_game(catalogue.rules(VARIANT), parse_deal_number(puzzle["deal"])),
                   Budget(seconds=20))
    assert result.verdict == "won"
    line = [str(action) for action in result.line]
    answer = client.post(f"/v1/puzzles/{TODAY}/{VARIANT}/submissions",
                         json={"player": "Solver", "moves": line})
    assert answer.status_code == 201
    after = client.get(f"/v1/daily/{VARIANT}").get_json()
    assert after["certified"] is True and after["par"] == len(line)
    board = client.get(f"/v1/puzzles/{TODAY}/{VARIANT}/leaderboard").get_json()
    assert board["par"] == len(line) and board["entries"][0]["at_par"] is True


# -- the store's rules for certificates (on SQLite and PostgreSQL: the store fixture) ---------


def _store_with_puzzle(store: Store) -> Store:
    store.keep_puzzle("p", "2026-11-30", "montana", {"id": "p", "deal": "7"}, "now")
    return store


def _certificate(certified: bool, line: tuple[str, ...], deal: str = "7") -> Certificate:
    return Certificate(puzzle_id="p", deal=deal, certified=certified, line=line,
                       par=len(line) if certified else None, body={"difficulty": None},
                       updated_at="t")


def _won(store: Store, player: str, line: tuple[str, ...]) -> None:
    store.submit(NewSubmission(puzzle_id="p", player=player, player_key=player.casefold(),
                               moves_digest=player, keys={},
                               body={}, created_at="now", winning_line=line))


def test_a_certificate_only_improves(store: Store) -> None:
    """Uncertified can become certified, a shorter line replaces a longer one, and nothing
    replaces a shorter line or certifies a puzzle with another game's line."""
    store = _store_with_puzzle(store)
    assert store.keep_certificate(_certificate(False, ()), "t") == _certificate(False, ())
    assert store.keep_certificate(_certificate(True, ("a",) * 10), "t").par == 10
    assert store.keep_certificate(_certificate(True, ("a",) * 12), "t").par == 10
    assert store.keep_certificate(_certificate(False, ()), "t").par == 10
    assert store.keep_certificate(_certificate(True, ("b",) * 8, deal="8"), "t").par == 10
    assert store.keep_certificate(_certificate(True, ("c",) * 9), "t").line == ("c",) * 9


def test_a_shorter_winning_submission_lowers_par(store: Store) -> None:
    """A submitted win shorter than par becomes the puzzle's line; a longer one changes
    nothing."""
    store = _store_with_puzzle(store)
    store.keep_certificate(_certificate(True, ("a",) * 10), "t")
    _won(store, "long", ("b",) * 11)
    assert store.puzzle_and_certificate("p")[1].par == 10  # type: ignore[union-attr]
    _won(store, "short", ("c",) * 7)
    certificate = store.puzzle_and_certificate("p")[1]
    assert certificate is not None and (certificate.par, certificate.line) == (7, ("c",) * 7)
    assert certificate.body["line_from"] == "submission"


def test_concurrent_wins_leave_the_shortest_line(store: Store) -> None:
    """Twelve winning submissions of different lengths at once: par ends at the shortest,
    with its line, whatever order they commit in."""
    _store_with_puzzle(store)
    barrier = threading.Barrier(12)

    def win(length: int) -> None:
        barrier.wait()
        _won(store, f"p{length}", (str(length),) * length)
    threads = [threading.Thread(target=win, args=(length,)) for length in range(20, 8, -1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    certificate = store.puzzle_and_certificate("p")[1]
    assert certificate is not None and (certificate.par, certificate.line) == (9, ("9",) * 9)


def test_leases_exclude_other_owners_until_they_expire(store: Store) -> None:
    """One owner at a time; the holder may renew; after expiry or release anyone may."""
    store = _store_with_puzzle(store)
    assert store.take_lease("x", "a", 10, now=100.0) == 0
    assert store.take_lease("x", "b", 10, now=105.0) == pytest.approx(5.0)
    assert store.take_lease("x", "a", 10, now=106.0) == 0
    assert store.take_lease("x", "b", 10, now=117.0) == 0  # a's lease ran out at 116
    store.release_lease("x", "a")  # not a's any more: nothing happens
    assert store.take_lease("x", "a", 10, now=118.0) > 0
    store.release_lease("x", "b")
    assert store.take_lease("x", "a", 10, now=118.0) == 0


def test_while_the_search_is_held_a_puzzle_is_not_made_but_refused_as_busy(
        make_app: Callable[..., Flask]) -> None:
    """A puzzle not made yet needs a search; while the process's one search is held (by a
    hint, or another puzzle: eight past days asked at once had run out of their seconds and
    were stored uncertified, for good), a past day's request waits its two seconds and gets a
    503 whose Retry-After says when the search frees, and nothing is stored; then the puzzle
    is made, certified. Today's puzzle is made meanwhile all the same."""
    app = make_app(secret_key="held-search-secret")  # its puzzles are no other test's
    client = app.test_client()
    with app.extensions["gapgrid"].puzzles.search.held(wait=0, longest=20, busy=AssertionError):
        busy = client.get(f"/v1/puzzles/{YESTERDAY}/{VARIANT}")
        assert busy.status_code == 503 and busy.content_type == PROBLEM
        assert 15 <= int(busy.headers["Retry-After"]) <= 18  # 20 s less the 2 s waited
        assert "this server's search is busy" in busy.get_json()["detail"]
        # today's puzzle is made all the same: the day's first page asks for all at once
        today = client.get(f"/v1/daily/{VARIANT}")
        assert today.status_code == 200 and today.get_json()["certified"] is True
    made = client.get(f"/v1/puzzles/{YESTERDAY}/{VARIANT}").get_json()
    assert made["certified"] is True and made["date"] == YESTERDAY


def test_a_request_for_todays_puzzle_waiting_over_midnight_is_still_served(
        tmp_path: Path) -> None:
    """A request for today's puzzle that waits on another's lease while midnight passes is
    still a request for today's: it is made and certified while the search is held, not
    refused as a past day's would be (the day is decided when the request began)."""
    clock = Clock(datetime.datetime(2026, 11, 30, 23, 59, 59, tzinfo=datetime.UTC))
    service = PuzzleService.open(conftest.test_settings(tmp_path, secret_key="midnight-secret"),
                                 plugins.load_catalogue(disabled=()), clock=clock)
    lease = f"puzzle:{puzzle_id(datetime.date(2026, 11, 30), VARIANT)}"

    def midnight_passes(pid: str) -> None:  # while the request waits: then the lease frees
        clock.advance(2)  # to 00:00:01
        service.store.release_lease(lease, "another request")

    service = attrs.evolve(service, on_wait=midnight_passes)
    try:
        assert service.store.take_lease(lease, "another request", 60, time.time()) == 0
        with service.search.held(wait=0, longest=20, busy=AssertionError):
            served = service.puzzle(None, VARIANT)
        assert service.today() == datetime.date(2026, 12, 1)  # the wait did pass midnight
        assert served.date == datetime.date(2026, 11, 30)
        assert served.document["certified"] is True
    finally:
        service.store.close()


class TickingClock(Clock):
    """A clock that moves a microsecond each time it is read."""

    def __call__(self) -> datetime.datetime:
        now = self.now
        self.advance(1e-6)
        return now


@pytest.mark.parametrize("day", [None, "2026-11-30"])
def test_a_request_for_todays_puzzle_begun_a_microsecond_before_midnight_is_served(
        tmp_path: Path, day: str | None) -> None:
    """Today's puzzle asked for in the last microsecond of the day is today's throughout
    the request, though the clock reads the next day by the time the request decides
    whether the search must be held: it is made and certified while the search is held,
    not refused as busy as a past day's would be."""
    clock = TickingClock(datetime.datetime(2026, 11, 30, 23, 59, 59, 999999,
                                           tzinfo=datetime.UTC))
    service = PuzzleService.open(conftest.test_settings(tmp_path, secret_key="tick-secret"),
                                 plugins.load_catalogue(disabled=()), clock=clock)
    try:
        with service.search.held(wait=0, longest=20, busy=AssertionError):
            served = service.puzzle(day, VARIANT)
        assert service.today() == datetime.date(2026, 12, 1)  # midnight passed meanwhile
        assert served.date == datetime.date(2026, 11, 30)
        assert served.document["certified"] is True
    finally:
        service.store.close()


class SteppingClock(Clock):
    """A clock that moves ``step`` seconds each time it is read (from when a test sets it)."""

    step = 0.0

    def __call__(self) -> datetime.datetime:
        now = self.now
        self.advance(self.step)
        return now


MIDNIGHT = datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC)


def test_a_start_asked_as_midnight_passes_is_refused_or_started_on_its_day(
        tmp_path: Path) -> None:
    """A start of the 30th's puzzle asked 40 to 1 clock reads before midnight (each read a
    millisecond): wherever midnight falls among the request's reads, the start is refused
    as closed or its token was started on the 30th, never the 1st (which the late hour
    would then take as a game of the 30th); a token signed for midnight itself is refused
    at submission as not of the puzzle's day."""
    clock = SteppingClock(datetime.datetime(2026, 11, 30, 12, tzinfo=datetime.UTC))
    service = PuzzleService.open(conftest.test_settings(tmp_path, secret_key="step-secret"),
                                 plugins.load_catalogue(disabled=()), clock=clock)
    try:
        pid = service.puzzle(None, VARIANT).document["id"]  # made at noon
        clock.step = 1e-3
        outcomes = set()
        for reads in range(40, 0, -1):  # the farthest first: the puzzle stays remembered
            clock.now = MIDNIGHT - datetime.timedelta(milliseconds=reads)
            try:
                started = service.start("2026-11-30", VARIANT)
            except ServiceError as error:
                assert error.fault is Fault.CONFLICT, error
                outcomes.add("closed")
            else:
                assert started["started_at"].startswith("2026-11-30T23:59:59."), started
                outcomes.add("started")
        assert outcomes == {"closed", "started"}
        clock.step, clock.now = 0.0, MIDNIGHT + datetime.timedelta(minutes=30)
        token = service.tokens.dumps({"p": pid, "t": int(MIDNIGHT.timestamp() * 1000),
                                      "n": "0"})
        with pytest.raises(ServiceError, match="not within the puzzle's day"):
            service.submit("2026-11-30", VARIANT, player="Ann", moves=[], token=token)
    finally:
        service.store.close()


def test_daily_answered_after_midnight_is_not_kept_by_caches(tmp_path: Path) -> None:
    """A /v1/daily request begun before midnight and answered after it (the puzzle was
    being made) serves the day that began it, and tells caches not to keep it: the address
    serves the new day's puzzle now. The dated address keeps it until its late hour ends."""
    from gapgrid.api.app import create_app
    stepping = SteppingClock(datetime.datetime(2026, 11, 30, 12, tzinfo=datetime.UTC))
    client = create_app(conftest.test_settings(tmp_path, secret_key="daily-secret"),
                        catalogue=plugins.load_catalogue(disabled=()), clock=stepping
                        ).test_client()
    assert client.get(f"/v1/daily/{VARIANT}").status_code == 200  # made at noon
    stepping.now, stepping.step = MIDNIGHT - datetime.timedelta(microseconds=1), 1e-6
    daily = client.get(f"/v1/daily/{VARIANT}")
    assert daily.get_json()["date"] == TODAY and daily.headers["Cache-Control"] == "no-cache"
    stepping.now = MIDNIGHT - datetime.timedelta(microseconds=1)
    dated = client.get(f"/v1/puzzles/{TODAY}/{VARIANT}")
    assert dated.headers["Cache-Control"] == "public, max-age=60"


def test_a_certificate_the_process_has_made_is_served_while_the_search_is_held(
        make_app: Callable[..., Flask], tmp_path: Path) -> None:
    """A past day's certificate this process already made (for another database with the
    same secret: a second app, or a puzzle whose storing failed) needs no search: it is
    served while the search is held, not refused as busy."""
    first = make_app(secret_key="remembered-secret").test_client()
    made = first.get(f"/v1/puzzles/{YESTERDAY}/{VARIANT}").get_json()
    assert made["certified"] is True
    second = make_app(secret_key="remembered-secret",
                      database=tmp_path / "other" / "db.sqlite3")
    with second.extensions["gapgrid"].puzzles.search.held(wait=0, longest=20,
                                                           busy=AssertionError):
        again = second.test_client().get(f"/v1/puzzles/{YESTERDAY}/{VARIANT}")
    assert again.status_code == 200
    assert {key: again.get_json()[key] for key in ("deal", "par", "certified")} == {
        key: made[key] for key in ("deal", "par", "certified")}
