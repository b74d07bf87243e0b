"""Write the README's screenshots of the player's page to ``docs/``.

Run from the repository root (Chromium must be installed, as ``.ci/run`` does)::

    .venv/bin/python -m tests.browser.screenshots [--out docs]

It starts a real ``gapgrid serve`` on a free port with a temporary instance,
plays today's puzzles through the page with clicks, and takes each picture at
390 x 844 (a phone) and 1280 x 800 (a laptop). The deals are today's, so the
pictures change from day to day; the page around them does not.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from tests.browser.support import (
    CHROMIUM_ARGS,
    WIN_VARIANT,
    Served,
    chromium_path,
    winnable_server,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

SIZES = ((390, 844), (1280, 800))
SHOWCASE = "montana"
"""The variant shown mid-game: the classic 4 x 13 board."""


def greedy_line(served: Served, slug: str, length: int) -> list[str]:
    """Up to ``length`` moves that each put as many cards in sequence as possible."""
    from gapgrid import plugins
    from gapgrid.core.dealnumber import parse_deal_number
    from gapgrid.core.game import new_game

    _, puzzle = served.api("GET", f"/v1/daily/{slug}")
    rules = plugins.load_catalogue(disabled=()).rules(slug, puzzle["options"])
    state = new_game(rules, parse_deal_number(puzzle["deal"]))
    line: list[str] = []
    while len(line) < length and (moves := state.legal_moves()):
        best = max(moves, key=lambda move: state.apply(move).board.cards_in_sequence())
        line.append(str(best))
        state = state.apply(best)
    return line


def play(page: Page, moves: list[str]) -> None:
    """Play ``moves`` by clicks, the gap first, and wait for the server's answers."""
    for move in moves:
        if move == "redeal":
            page.click('[data-action="redeal"]')
            continue
        source, target = move.split("-")
        page.click(f'[data-slot="{target}"]')
        page.click(f'[data-slot="{source}"]')
    idle(page)


def idle(page: Page) -> None:
    """Wait until the board is drawn and no click is waiting for the server."""
    page.wait_for_selector("#board[data-state]:not([aria-busy]) [data-slot]", state="attached")
    page.wait_for_function("!document.querySelector('#board').hasAttribute('aria-busy')")


def shoot(browser: Browser, served: Served, out: Path) -> list[Path]:
    """Take every screenshot; return the files written."""
    written: list[Path] = []
    showcase = greedy_line(served, SHOWCASE, 6)
    for width, height in SIZES:
        size = f"{width}x{height}"
        context = browser.new_context(viewport={"width": width, "height": height},
                                      base_url=served.url, device_scale_factor=1)
        page = context.new_page()

        page.goto("/")
        page.wait_for_selector("#puzzles[data-loaded]")
        written.append(out / f"screenshot-home-{size}.png")
        page.screenshot(path=written[-1])

        page.goto(f"/play/{SHOWCASE}")
        idle(page)
        play(page, showcase)
        gap = page.locator("#board .gap").first.get_attribute("data-slot")
        page.click(f'[data-slot="{gap}"]')  # a gap selected: the cards that fit are marked
        idle(page)
        page.locator("#board").scroll_into_view_if_needed()
        page.evaluate("document.activeElement && document.activeElement.blur()")
        written.append(out / f"screenshot-play-{size}.png")
        page.screenshot(path=written[-1])

        page.goto(f"/play/{WIN_VARIANT}")
        idle(page)
        play(page, served.line)
        page.fill("#player", "Ada")
        page.click('[data-action="submit"]')
        page.wait_for_selector("#leaderboard .me")
        # The finished board and the summary under it, as far as the screen goes.
        page.evaluate("window.scrollTo(0, document.querySelector('.puzzle-head')"
                      ".getBoundingClientRect().bottom + window.scrollY - 8)")
        written.append(out / f"screenshot-won-{size}.png")
        page.screenshot(path=written[-1])
        context.close()
    return written


def main(argv: list[str] | None = None) -> int:
    """Write the screenshots; exit status 1 when no Chromium is installed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=Path("docs"),
                        help="folder for the PNG files (default: docs)")
    arguments = parser.parse_args(argv)
    executable = chromium_path()
    if executable is None:
        print("no Chromium: apt-get install chromium", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    arguments.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch, winnable_server(Path(scratch)) as served, \
            sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable,
                                             args=list(CHROMIUM_ARGS))
        try:
            for path in shoot(browser, served, arguments.out):
                print(path)
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
