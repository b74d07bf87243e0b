"""The player's page at its edges, in real Chromium against a real ``gapgrid serve``: a
device whose clock is far off, a day that ends while the page is open, a server that
cannot be reached, a name spelt in another case, the keyboard's focus, a leaderboard
being brought up to date."""

from __future__ import annotations

import concurrent.futures
import datetime
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.api.live import LiveServer
from tests.browser.conftest import watched_page
from tests.browser.support import CHROMIUM_ARGS, WIN_VARIANT, ClockedServer, Served, chromium_path
from tests.browser.test_play import (
    click_move,
    open_puzzle,
    play_one_move_and_submit,
    puzzle_of,
    settle,
    state_of,
    targets_by_source,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytest.importorskip("playwright", reason="the playwright package is not installed")
from playwright.sync_api import expect  # after the skip, on purpose

HAS_TOKEN = ("() => Object.keys(localStorage).some((key) => key.startsWith('gapgrid:game:')"
             " && JSON.parse(localStorage.getItem(key)).token)")
"""True once the page has kept its game's start token."""


def next_day(served: Served) -> datetime.date:
    """The day after the server's today."""
    return datetime.date.fromisoformat(served.today) + datetime.timedelta(days=1)


def test_a_device_a_day_ahead_times_the_game_as_the_server_does(page: Page,
                                                                 served: Served) -> None:
    """With the device's clock past the puzzle's late hour (02:00 of its next day), the
    game's clock still runs until it is submitted, as the server times it: the page goes
    by the server's clock (it judged by the device's, stopped the clock at the last move
    and called it "Time", and the ranked time came out longer)."""
    page.clock.set_fixed_time(datetime.datetime.combine(
        next_day(served), datetime.time(2), tzinfo=datetime.UTC))
    open_puzzle(page, WIN_VARIANT)
    click_move(page, served.line[0])
    settle(page)
    page.wait_for_function(HAS_TOKEN)
    page.click('[data-action="finish"]')
    expect(page.locator("#summary-figures")).to_contain_text("Time (runs until you submit)")


def test_a_day_that_ends_while_the_page_is_open_is_said_once(browser: Browser,
                                                             clocked: ClockedServer) -> None:
    """Opened before midnight UTC (the server's) and first played after it, today's page is
    refused a start token: it says once that the day is over, with the way to today's
    puzzle, asks for no more tokens, offers no submission and still gives hints (every move
    asked again, hints said to try again in a moment, and Submit was offered)."""
    day, midnight, puzzle = clocked.before_midnight(2, WIN_VARIANT)
    first = state_of(puzzle, []).legal_moves()[0]
    second = state_of(puzzle, [str(first)]).legal_moves()[0]
    starts: list[str] = []
    page, watch = watched_page(browser, clocked)
    try:
        page.on("request", lambda sent: starts.append(sent.url) if sent.url.endswith(
            "/start") else None)
        open_puzzle(page, WIN_VARIANT)
        clocked.set(midnight + datetime.timedelta(minutes=1))
        click_move(page, str(first))
        settle(page)
        expect(page.locator("#message")).to_contain_text("The day of this puzzle is over")
        expect(page.locator("#message a")).to_have_attribute("href", f"/play/{WIN_VARIANT}")
        expect(page.locator("#subtitle")).to_contain_text(f"Puzzle of {day}")
        click_move(page, str(second))
        settle(page)
        page.keyboard.press("h")
        settle(page)
        expect(page.locator("#message")).to_contain_text("Hint:")
        expect(page.locator('[data-action="finish"]')).to_be_hidden()
    finally:
        page.context.close()
    assert len(starts) == 1, starts
    assert [problem for problem in watch.problems if "status of 409" not in problem] == []


def test_a_move_the_server_never_answered_leaves_no_selection_drawn(browser: Browser,
                                                                    served: Served) -> None:
    """A gap chosen, then the card clicked while the server cannot be reached: the page
    says so and the board no longer shows the gap as chosen (it did, while the page had
    forgotten it, so the next click sent a card to another gap)."""
    puzzle = puzzle_of(served, WIN_VARIANT)
    source, targets = next(iter(targets_by_source(state_of(puzzle, [])).items()))
    page, watch = watched_page(browser, served)
    try:
        open_puzzle(page, WIN_VARIANT)
        page.click(f'[data-slot="{targets[0]}"]')
        expect(page.locator(f'[data-slot="{targets[0]}"]')).to_have_attribute(
            "aria-selected", "true")
        page.route("**/v1/moves", lambda route: route.abort())
        page.click(f'[data-slot="{source}"]')
        settle(page)
        expect(page.locator("#message")).to_contain_text("cannot be reached")
        expect(page.locator('#board [aria-selected="true"]')).to_have_count(0)
    finally:
        page.context.close()
    assert [problem for problem in watch.problems if "ERR_FAILED" not in problem] == []


def submit_as(page: Page, served: Served, slug: str, name: str) -> None:
    """Play one move of ``slug``'s puzzle of today, end the game and submit it as ``name``."""
    puzzle = puzzle_of(served, slug)
    open_puzzle(page, slug)
    click_move(page, str(state_of(puzzle, []).legal_moves()[0]))
    settle(page)
    page.click('[data-action="finish"]')
    page.fill("#player", name)
    page.click('[data-action="submit"]')


def test_a_name_in_another_case_is_the_same_player(page: Page, served: Served) -> None:
    """Submitted as "Straße", then on other puzzles as "STRASSE" and "STRAẞE", which the
    server folds to the same player: the page sends the player's token (it kept it under a
    key the other spellings missed, and said the name belonged to someone else); each is
    stored for the name as first registered."""
    for slug, name in ((WIN_VARIANT, "Straße"), ("montana", "STRASSE"), ("spaces", "STRAẞE")):
        submit_as(page, served, slug, name)
        expect(page.locator("#submit-result")).to_contain_text("Stored for Straße")


def test_a_dotless_i_is_another_player(page: Page, served: Served) -> None:
    """"Kıral" is not "Kiral" for the server, nor for the page: after both have submitted,
    Kiral still submits with his own token (folding ı to i, the page sent Kiral's token for
    Kıral, kept Kıral's in its place, and Kiral was refused)."""
    for slug, name in (("gaps", "Kiral"), ("blue-moon", "Kıral"), ("red-moon", "Kiral")):
        submit_as(page, served, slug, name)
        expect(page.locator("#submit-result")).to_contain_text(f"Stored for {name}")


def test_undo_keeps_the_focus_when_it_turns_itself_off(page: Page, served: Served) -> None:
    """Enter on Undo for the last undo disables the button; the focus goes to the board,
    not to the page's body (a keyboard player lost their place); reloaded, the restored
    game counts its one move in the singular."""
    open_puzzle(page, WIN_VARIANT)
    click_move(page, served.line[0])
    settle(page)
    page.reload()
    settle(page)
    expect(page.locator("#message")).to_contain_text("restored (1 move)")
    page.focus('[data-action="undo"]')
    page.keyboard.press("Enter")
    settle(page)
    expect(page.locator('[data-action="undo"]')).to_be_disabled()
    assert page.evaluate("() => document.activeElement.dataset.slot") is not None


def test_the_home_page_says_the_server_s_today(clocked_page: Page,
                                               clocked: ClockedServer) -> None:
    """With the server a day ahead of this device, the home page says the server's date
    for today, the day of the puzzles it lists (it said the device's)."""
    ahead = datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=1)
    clocked.set(ahead)
    clocked_page.goto("/")
    expect(clocked_page.locator("#puzzles")).to_have_attribute("data-loaded", "true")
    expect(clocked_page.locator("#today")).to_have_text(f", today is {ahead.date()} (UTC)")


UNKEYED = 2_001
"""Submissions stored without the ranking scheme's keys: more than two requests key
(``KEYS_PER_REQUEST``, 1,000 each), so the page's submission and its first look at the
leaderboard leave some for a later look."""


def test_a_leaderboard_being_keyed_is_asked_again_until_it_shows(
        browser: Browser, tmp_path: Path) -> None:
    """A server ranking by a scheme 2,001 stored submissions lack (stored by a server
    without it) keys them a batch a request: the page's submission is stored with no rank
    yet, which the page says in words; the leaderboard's 503 is not shown as an error but
    asked again a moment later, and the ranking then shows every player."""
    instance = tmp_path / "instance"
    many_writes = {"GAPGRID_CERTIFY_SECONDS": "0", "GAPGRID_LIMIT_WRITES": "100000 per minute",
                   "GAPGRID_LIMIT_READS": "100000 per minute"}
    without_cards = LiveServer(instance, environment={
        **many_writes, "GAPGRID_DISABLE_PLUGINS": "scoring_cards"}).start()
    try:
        puzzle = without_cards.api("GET", "/v1/daily/montana")[1]
        path = f"/v1/puzzles/{puzzle['date']}/montana/submissions"
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            statuses = list(pool.map(lambda number: without_cards.api(
                "POST", path, {"player": f"early {number}", "moves": []})[0], range(UNKEYED)))
        assert statuses == [201] * UNKEYED
    finally:
        without_cards.stop()
    by_cards = LiveServer(instance, environment={**many_writes,
                                                 "GAPGRID_RANKING": "cards"}).start()
    try:
        opened, watch = watched_page(browser, by_cards)
        boards: list[int] = []  # the statuses of the page's leaderboard requests
        opened.on("response", lambda answer: boards.append(answer.status)
                  if "/leaderboard" in answer.url else None)
        play_one_move_and_submit(opened, by_cards, "montana", "Zed Late")
        expect(opened.locator("#submit-result")).to_contain_text("Stored for Zed Late")
        expect(opened.locator("#submit-result")).to_contain_text(
            "its rank shows on the leaderboard soon.")
        # every player ranked, Zed Late too (tied with the empty games, past page 1)
        expect(opened.locator("#leaderboard caption")).to_contain_text(
            f"{UNKEYED + 1} players", timeout=30_000)
        assert 503 in boards and boards[-1] == 200, boards  # asked again, not given up
        opened.context.close()
        # Chromium logs each 503 it was answered; nothing else may be said
        assert [problem for problem in watch.problems if "status of 503" not in problem
                or "/leaderboard" not in problem] == []
    finally:
        by_cards.stop()


def test_an_error_page_that_is_not_the_api_s_is_said_by_its_status(browser: Browser,
                                                                   served: Served) -> None:
    """A proxy's HTML error page (nginx's 502) is said as "the server answered 502 Bad
    Gateway", not shown as its markup on the message line."""
    puzzle = puzzle_of(served, "montana")
    move = str(state_of(puzzle, []).legal_moves()[0])
    page, _ = watched_page(browser, served)
    try:
        open_puzzle(page, "montana")
        page.route("**/v1/moves", lambda route: route.fulfill(
            status=502, content_type="text/html",
            body="<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
                 "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.22.1"
                 "</center>\r\n</body>\r\n</html>\r\n"))
        click_move(page, move)
        settle(page)
        message = page.locator("#message")
        expect(message).to_contain_text("the server answered 502 Bad Gateway")
        expect(message).not_to_contain_text("<")
        expect(page.locator("#moves")).to_have_text("0")
    finally:
        page.context.close()


def test_a_redeal_pressed_again_while_the_server_is_slow_is_played_once(
        browser: Browser, served: Served) -> None:
    """While a redeal waits for a slow server, the page says it is waiting, and a second
    press is the same wish: once the server answers, one redeal is played (both were,
    spending two of Montana's redeals)."""
    held: list[Any] = []
    page, _ = watched_page(browser, served)
    try:
        open_puzzle(page, "montana")
        expect(page.locator("#redeals-left")).to_have_text("2")
        page.route("**/v1/moves", lambda route: held.append(route))  # answered later
        page.keyboard.press("r")
        expect(page.locator("#message")).to_have_text("Waiting for the server…")
        page.keyboard.press("r")
        expect(page.locator("#message")).to_have_text(
            "Waiting for the server: the redeal asked for is on its way.")
        assert len(held) == 1  # the second press sent nothing
        held[0].continue_()
        settle(page)
        expect(page.locator("#message")).to_contain_text("Redealt:")
        expect(page.locator("#redeals-left")).to_have_text("1")
        saved = page.evaluate("() => Object.entries(localStorage).filter(([key]) => "
                              "key.startsWith('gapgrid:game:')).map(([, value]) => "
                              "JSON.parse(value).moves)")
        assert saved == [["redeal"]]
    finally:
        page.context.close()


def test_a_failed_first_read_of_what_the_server_offers_is_read_again_before_a_move(
        browser: Browser, served: Served) -> None:
    """The OpenAPI document answered 429 once, at load: the page read it again only for a
    hint, so for the whole visit a chosen gap marked no card (and a lost game never
    ended). It is now read again before the next action."""
    puzzle = puzzle_of(served, "montana")
    source, targets = next(iter(targets_by_source(state_of(puzzle, [])).items()))
    refused: list[str] = []

    def once(route: Any) -> None:
        if refused:
            route.continue_()
        else:
            refused.append(route.request.url)
            route.fulfill(status=429, headers={"Retry-After": "1"},
                          content_type="application/problem+json",
                          body='{"title": "Too Many Requests", "status": 429}')

    page, _ = watched_page(browser, served)
    try:
        page.route("**/v1/openapi.json", once)
        open_puzzle(page, "montana")
        assert refused
        page.click(f'[data-slot="{targets[0]}"]')
        settle(page)
        expect(page.locator(f'[data-slot="{source}"]')).to_have_class(re.compile(r"\btarget\b"))
    finally:
        page.context.close()


def test_an_open_page_follows_midnight_and_the_end_of_the_late_hour(
        browser: Browser, clocked: ClockedServer) -> None:
    """A game with its start token, left open across midnight: its page stops calling the
    puzzle today's, and once the late hour is over (01:00 UTC, the server's clock) it
    offers no submission and shows the solution (it offered the submission, which the
    server refused, and said the solution would open at 01:00 after it had)."""
    day, midnight, puzzle = clocked.before_midnight(2, "montana")
    moves = [str(state_of(puzzle, []).legal_moves()[0])]
    page, _ = watched_page(browser, clocked)
    try:
        open_puzzle(page, "montana")
        click_move(page, moves[0])
        settle(page)
        page.wait_for_function(HAS_TOKEN)
        expect(page.locator("#subtitle")).to_contain_text(f"Today's puzzle of {day}")
        clocked.set(midnight + datetime.timedelta(minutes=30))
        page.click('[data-action="undo"]')  # any answer carries the server's Date
        settle(page)
        click_move(page, moves[0])
        settle(page)
        expect(page.locator("#subtitle")).to_contain_text(f"Puzzle of {day}")
        expect(page.locator("#subtitle")).not_to_contain_text("Today's")
        expect(page.locator('[data-action="finish"]')).to_be_visible()  # late, still taken
        clocked.set(midnight + datetime.timedelta(minutes=61))
        page.click('[data-action="undo"]')
        settle(page)
        expect(page.locator("#message")).to_contain_text("The late hour is over")
        click_move(page, moves[0])
        settle(page)
        expect(page.locator('[data-action="finish"]')).to_be_hidden()
        expect(page.locator("#submit-panel")).to_be_hidden()
        expect(page.locator("#solution")).not_to_contain_text("opens at")
    finally:
        page.context.close()


def test_back_to_a_page_the_browser_kept_shows_the_game_as_saved(browser: Browser,
                                                                  served: Served) -> None:
    """With the back/forward cache a real Chromium has (Playwright turns it off): a move,
    the home page, the same puzzle again and one more move there, then Back twice. The
    page came back as it was left, one move behind, saying the game was changed "in
    another tab or window"; it now reads the save again and shows both moves."""
    puzzle = puzzle_of(served, "montana")
    first = str(state_of(puzzle, []).legal_moves()[0])
    second = str(state_of(puzzle, [first]).legal_moves()[0])
    caching = browser.browser_type.launch(  # the session's Playwright, another browser
        executable_path=chromium_path(), args=list(CHROMIUM_ARGS),
        ignore_default_args=["--disable-back-forward-cache"])
    try:
        page, _ = watched_page(caching, served)
        open_puzzle(page, "montana")
        click_move(page, first)
        settle(page)
        page.goto("/")
        open_puzzle(page, "montana")
        click_move(page, second)
        settle(page)
        page.evaluate("() => history.go(-2)")
        page.wait_for_url("**/play/montana")
        settle(page)
        expect(page.locator("#moves")).to_have_text("2")
        expect(page.locator("#message")).not_to_contain_text("another tab")
        assert page.evaluate("window.gapgrid.game.moves") == [first, second]
    finally:
        caching.close()

