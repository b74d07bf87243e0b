"""Fixtures for the browser tests: one server (and one more on a clock the tests move, for
midnight and the late hour), one Chromium, a fresh page per test.

Every page a test opens is watched: a console error, an uncaught exception
or a request to any other origin fails the test when it ends, whatever the
test itself checked.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

from tests.browser.support import (
    CHROMIUM_ARGS,
    ClockedServer,
    Served,
    chromium_path,
    winnable_server,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A real ``gapgrid serve`` whose puzzle of today is won through a redeal."""
    with winnable_server(Path(tmp_path_factory.mktemp("browser"))) as running:
        yield running


@pytest.fixture(scope="session")
def clocked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClockedServer]:
    """The real app and server on a clock the test sets (from now until it does)."""
    server = ClockedServer(tmp_path_factory.mktemp("clocked") / "instance",
                           datetime.datetime.now(datetime.UTC))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Headless Chromium, or a skip that says why there is none."""
    executable = chromium_path()
    if executable is None:
        pytest.skip("no Chromium on this machine: install it with `apt-get install chromium` "
                    "(.ci/run does); Playwright's own browser download cannot work here")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed: pip install -e '.[test]'")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable,
                                              args=list(CHROMIUM_ARGS))
        yield launched
        launched.close()


class PageWatch:
    """What a page said on its console, threw, or asked of another origin."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.problems: list[str] = []

    def console(self, message: Any) -> None:
        if message.type == "error":
            self.problems.append(f"console error: {message.text} ({message.location})")

    def page_error(self, error: Any) -> None:
        self.problems.append(f"uncaught exception: {error}")

    def request(self, sent: Any) -> None:
        parts = urlsplit(sent.url)
        if parts.scheme in ("data", "blob"):
            return
        if f"{parts.scheme}://{parts.netloc}" != self.origin:
            self.problems.append(f"request outside the server: {sent.url}")


def watched_page(browser: Browser, served: Served | ClockedServer, width: int = 1280,
                 height: int = 800, touch: bool = False) -> tuple[Page, PageWatch]:
    """A page in a fresh context (empty storage), watched by a :class:`PageWatch`."""
    context = browser.new_context(viewport={"width": width, "height": height},
                                  base_url=served.url, has_touch=touch, is_mobile=touch)
    page = context.new_page()
    watch = PageWatch(served.url)
    page.on("console", watch.console)
    page.on("pageerror", watch.page_error)
    page.on("request", watch.request)
    page.set_default_timeout(15_000)
    return page, watch


def checked(watched: tuple[Page, PageWatch]) -> Iterator[Page]:
    """The page of a :func:`watched_page`, closed after the test, which fails if the page
    had any problem."""
    opened, watch = watched
    yield opened
    opened.context.close()
    assert not watch.problems, "\n".join(watch.problems)


@pytest.fixture
def page(browser: Browser, served: Served) -> Iterator[Page]:
    """A desktop-sized page (1280 x 800); the test fails on any console error."""
    yield from checked(watched_page(browser, served))


@pytest.fixture
def clocked_page(browser: Browser, clocked: ClockedServer) -> Iterator[Page]:
    """A desktop-sized page on the clocked server; the test fails on any console error."""
    yield from checked(watched_page(browser, clocked))


@pytest.fixture
def phone(browser: Browser, served: Served) -> Iterator[Page]:
    """A phone-sized touch page (360 x 740); the test fails on any console error."""
    yield from checked(watched_page(browser, served, 360, 740, touch=True))
