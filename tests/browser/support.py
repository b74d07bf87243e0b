"""What the browser tests and the screenshot command share.

* Debian's Chromium, driven by Playwright for Python: Playwright's own browser
  download cannot reach its servers from these machines, so the browser is
  the system's ``/usr/bin/chromium``, launched with flags that keep it from
  calling home.
* A real ``gapgrid serve`` (waitress) on a free port and a temporary instance
  folder, with a secret chosen so that today's House of Commons puzzle can be
  won with a redeal on the way: the tests need a game to win through the page
  by a redeal, which a certified puzzle's line may not have. House of Commons
  (4 x 10, one redeal) is small enough that a depth-first search over the
  public core finds such a line, or gives up, in a second or two.
* Before the tests, every variant's puzzle of today is asked for once, so the
  server makes and certifies them (``GAPGRID_CERTIFY_SECONDS`` of search each
  at most) as it would for the first players of the day: the home page then
  finds them all made, as on a server whose puzzles are prepared ahead.
"""

from __future__ import annotations

import concurrent.futures
import datetime
import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

import attrs

from gapgrid import plugins
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import GameState, new_game
from gapgrid.core.notation import REDEAL
from tests.api.live import LiveServer, request

ROOT: Final = Path(__file__).resolve().parents[2]
"""The repository, where ``python -m tests.browser.clocked_server`` is found."""

CHROMIUM_ARGS: Final = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)
"""Chromium as root in a container, with nothing it would fetch from the network."""

WIN_VARIANT: Final = "house-of-commons"
"""The variant whose daily puzzle the tests win: 4 x 10 and one redeal, so a small search
decides it."""

SEARCH_BUDGET: Final = 6000
"""Positions the search may visit before it gives a deal up (about half the deals are won
within it)."""

SECRETS_TO_TRY: Final = 16
"""Server secrets tried in turn until today's puzzle can be won (each has a fair chance)."""

CERTIFY_SECONDS: Final = "3"
"""The servers' GAPGRID_CERTIFY_SECONDS: enough for most variants' puzzles to be certified,
little enough that making all of them takes a minute, not ten."""


def chromium_path() -> str | None:
    """Debian's Chromium, or None when no Chromium is installed."""
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"),
                      shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def winning_line(variant: str, options: dict[str, Any], deal: str,
                 budget: int = SEARCH_BUDGET) -> list[str] | None:
    """A winning line (card moves and redeals) for a deal, by depth-first search, or None.

    Children are tried best first (most cards in sequence), and a redeal
    last, which finds short enough lines for a test to click through. Only
    the frozen public values of the core are used (``GameState``), so the
    search checks the page against the same rules the server plays by,
    whatever engine is inside.
    """
    rules = plugins.load_catalogue(disabled=()).rules(variant, options)
    start = new_game(rules, parse_deal_number(deal))
    seen: set[GameState] = {start}
    stack: list[tuple[GameState, list[str]]] = [(start, [])]
    visited = 0
    while stack and visited < budget:
        state, line = stack.pop()
        visited += 1
        if state.is_won:
            return line
        children: list[tuple[int, int, GameState, list[str]]] = []
        if state.can_redeal():
            redealt = state.apply(REDEAL)
            if redealt not in seen:
                seen.add(redealt)
                children.append((-1, 0, redealt, [*line, str(REDEAL)]))
        for move in state.legal_moves():
            child = state.apply(move)
            if child not in seen:
                seen.add(child)
                children.append((child.board.cards_in_sequence(), len(children), child,
                                 [*line, str(move)]))
        children.sort(key=lambda entry: (entry[0], entry[1]))  # the best is popped first
        stack.extend((child, child_line) for _, _, child, child_line in children)
    return None


@attrs.frozen
class Served:
    """A running server and today's puzzle that the tests can win."""

    url: str
    puzzle: dict[str, Any]
    """Today's puzzle of :data:`WIN_VARIANT`, as ``GET /v1/daily/...`` answers it."""

    line: list[str]
    """A winning line for it, with a redeal in it."""

    @property
    def card_moves(self) -> int:
        """The card moves of :attr:`line` (the redeals left out)."""
        return sum(1 for action in self.line if action != "redeal")

    @property
    def today(self) -> str:
        """The puzzle's date, today in UTC."""
        return str(self.puzzle["date"])

    def api(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """Ask the server directly (not through the page): status and JSON body."""
        status, _, answer = request(method, self.url + path, body)
        return status, answer


def start_server(instance: Path, secret: str) -> LiveServer:
    """``gapgrid serve`` with :data:`CERTIFY_SECONDS` of search for a missing puzzle."""
    previous = os.environ.get("GAPGRID_CERTIFY_SECONDS")
    os.environ["GAPGRID_CERTIFY_SECONDS"] = CERTIFY_SECONDS
    try:
        return LiveServer(instance, secret=secret).start()
    finally:
        if previous is None:
            del os.environ["GAPGRID_CERTIFY_SECONDS"]
        else:
            os.environ["GAPGRID_CERTIFY_SECONDS"] = previous


def make_todays_puzzles(url: str) -> None:
    """Ask for every variant's puzzle of today once, a few at a time, so the server makes
    them all before a page asks."""
    status, _, variants = request("GET", f"{url}/v1/variants")
    assert status == 200
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        answers = pool.map(lambda slug: request("GET", f"{url}/v1/daily/{slug}"),
                           [variant["slug"] for variant in variants])
        for status, _, body in answers:
            assert status == 200, body


@contextmanager
def winnable_server(root: Path) -> Iterator[Served]:
    """Start ``gapgrid serve`` with a secret whose puzzle of today is won through a redeal,
    and today's puzzles made."""
    for attempt in range(SECRETS_TO_TRY):
        instance = root / f"instance-{attempt}"
        server = start_server(instance, f"browser-tests-secret-{attempt}")
        try:
            status, _, puzzle = request("GET", f"{server.url}/v1/daily/{WIN_VARIANT}")
            assert status == 200, puzzle
            line = winning_line(WIN_VARIANT, puzzle["options"], puzzle["deal"])
            if line is not None and "redeal" in line:
                make_todays_puzzles(server.url)
                yield Served(server.url, puzzle, line)
                return
        finally:
            server.stop()
    today = datetime.datetime.now(datetime.UTC).date()
    raise RuntimeError(f"no {WIN_VARIANT} puzzle for {today} won through a redeal among "
                       f"{SECRETS_TO_TRY} secrets")


class ClockedServer(LiveServer):
    """The real app and server in a subprocess, on a clock a test sets
    (:mod:`tests.browser.clocked_server`): ``set(moment)`` moves it, and it runs on from
    there. Puzzles are made without certification, so that any day's comes at once."""

    def __init__(self, instance: Path, moment: datetime.datetime) -> None:
        super().__init__(instance, "clocked-browser-tests", environment={
            "GAPGRID_CERTIFY_SECONDS": "0", "PYTHONPATH": str(ROOT)})
        self.clock_file = instance.parent / f"{instance.name}-clock"
        self.set(moment)

    def set(self, moment: datetime.datetime) -> None:
        """Make the server's now ``moment`` (an aware time)."""
        written = self.clock_file.with_suffix(".new")
        written.write_text(moment.isoformat())
        written.replace(self.clock_file)  # whole, for a request reading it meanwhile

    def command(self, port: int) -> list[str]:
        return [sys.executable, "-m", "tests.browser.clocked_server", str(port),
                str(self.clock_file)]

    def before_midnight(self, minutes: int, slug: str
                        ) -> tuple[datetime.date, datetime.datetime, dict[str, Any]]:
        """Set the clock ``minutes`` before the coming midnight (UTC); return the day,
        that midnight, and the day's puzzle of ``slug``."""
        day = datetime.datetime.now(datetime.UTC).date()
        midnight = datetime.datetime.combine(day + datetime.timedelta(days=1),
                                             datetime.time(), tzinfo=datetime.UTC)
        self.set(midnight - datetime.timedelta(minutes=minutes))
        status, puzzle = self.api("GET", f"/v1/daily/{slug}")
        assert status == 200 and puzzle["date"] == day.isoformat(), puzzle
        return day, midnight, puzzle
