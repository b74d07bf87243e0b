"""Fixtures for the web API: an app on a temporary database with a fixed clock."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from gapgrid import plugins
from gapgrid.api.app import create_app
from gapgrid.api.config import Settings
from gapgrid.api.store import Store
from tests.postgres import postgres_cluster, postgres_url  # noqa: F401 (fixtures)

NOW = datetime.datetime(2026, 11, 30, 12, 0, tzinfo=datetime.UTC)
TODAY = NOW.date().isoformat()


class Clock:
    """A clock tests can move."""

    def __init__(self, now: datetime.datetime = NOW) -> None:
        self.now = now

    def __call__(self) -> datetime.datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += datetime.timedelta(seconds=seconds)


def test_settings(tmp_path: Path, **changes: object) -> Settings:
    """Settings on a temporary instance folder with a known secret."""
    import attrs
    base = Settings(instance=tmp_path / "instance", database=tmp_path / "instance" / "db.sqlite3",
                    secret_key="test-secret", first_day=datetime.date(2026, 1, 1))
    return attrs.evolve(base, **changes)


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """A new database of each back end in turn: a SQLite file, then a PostgreSQL URL (a
    database of its own in the session's cluster)."""
    if request.param == "sqlite":
        return tmp_path / "gapgrid.sqlite3"
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def store(database: Path | str) -> Iterator[Store]:
    """A store on a new database, on each back end in turn."""
    opened = Store(database)
    yield opened
    opened.close()


@pytest.fixture
def clock() -> Clock:
    """The app's clock: 2026-11-30 12:00 UTC until a test moves it."""
    return Clock()


@pytest.fixture
def make_app(tmp_path: Path, clock: Clock) -> Callable[..., Flask]:
    """Build an app on this test's temporary folder (same database every time)."""
    def build(**changes: object) -> Flask:
        return create_app(test_settings(tmp_path, **changes),
                          catalogue=plugins.load_catalogue(disabled=()), clock=clock)
    return build


@pytest.fixture
def client(make_app: Callable[..., Flask]) -> FlaskClient:
    """A test client of a fresh app."""
    return make_app().test_client()
