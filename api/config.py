"""The web service's settings, read from the environment with safe defaults.

| variable | default | what |
|---|---|---|
| ``GAPGRID_INSTANCE`` | ``./instance`` | folder for the database, created on first start |
| ``GAPGRID_DATABASE`` | ``<instance>/gapgrid.sqlite3`` | the SQLite database file |
| ``GAPGRID_SECRET_KEY`` | a development key (warned about) | signs tokens, chooses puzzles |
| ``GAPGRID_FIRST_DAY`` | ``2026-01-01`` | the first day with a daily puzzle |
| ``GAPGRID_MAX_BODY`` | ``262144`` | largest request body, in bytes |
| ``GAPGRID_MAX_MOVES`` | ``5000`` | most moves in one request |
| ``GAPGRID_RANKING`` | ``par`` | the scoring scheme leaderboards rank by |
| ``GAPGRID_CERTIFY_SECONDS`` | ``20`` | search one request may spend making a puzzle (0: none) |

Whether the ranking scheme exists depends on the plugins loaded, so the app
factory checks it (:func:`gapgrid.api.services.puzzles.check_ranking`).
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import attrs

DEVELOPMENT_SECRET: Final = "gapgrid-development-secret-change-me"
"""Used when GAPGRID_SECRET_KEY is unset: fine on your own machine, never in production."""


MAX_CERTIFY_SECONDS: Final = 600.0
"""The most search GAPGRID_CERTIFY_SECONDS may give one request: ten minutes."""


class ConfigError(ValueError):
    """Raised for a setting that cannot be used, naming the variable."""


@attrs.frozen
class Settings:
    """Everything the service is configured with."""

    instance: Path
    database: Path
    secret_key: str
    first_day: datetime.date
    max_body: int = 256 * 1024
    max_moves: int = 5000
    max_player_length: int = 32
    token_max_age: int = 2 * 24 * 3600
    """Seconds a start token stays valid."""

    ranking: str = "par"
    """The scoring scheme leaderboards rank by."""

    certify_seconds: float = 20.0
    """Seconds of search a request may spend making (and certifying) a missing puzzle; 0
    makes missing puzzles without a search, uncertified (prepare them ahead instead)."""

    @property
    def uses_development_secret(self) -> bool:
        """Whether the secret is the published development default."""
        return self.secret_key == DEVELOPMENT_SECRET

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Read the settings from ``environ`` (the process environment by default)."""
        env = os.environ if environ is None else environ
        instance = Path(env.get("GAPGRID_INSTANCE") or Path.cwd() / "instance")
        database = Path(env.get("GAPGRID_DATABASE") or instance / "gapgrid.sqlite3")
        return cls(
            instance=instance, database=database,
            secret_key=env.get("GAPGRID_SECRET_KEY") or DEVELOPMENT_SECRET,
            first_day=_date(env, "GAPGRID_FIRST_DAY", "2026-01-01"),
            max_body=_positive(env, "GAPGRID_MAX_BODY", 256 * 1024),
            max_moves=_positive(env, "GAPGRID_MAX_MOVES", 5000),
            ranking=_name(env, "GAPGRID_RANKING", "par"),
            certify_seconds=_seconds(env, "GAPGRID_CERTIFY_SECONDS", 20.0,
                                     MAX_CERTIFY_SECONDS),
        )


def _positive(env: Mapping[str, str], name: str, default: int) -> int:
    text = env.get(name)
    if not text:
        return default
    if not (text.isascii() and text.isdigit()) or int(text) == 0:
        raise ConfigError(f"{name} must be a positive whole number, not {text!r}")
    return int(text)


def _seconds(env: Mapping[str, str], name: str, default: float, maximum: float) -> float:
    text = env.get(name)
    if not text:
        return default
    try:
        value = float(text) if text.isascii() and len(text) <= 12 else -1.0
    except ValueError:
        value = -1.0
    if not 0 <= value <= maximum:  # NaN fails this too
        raise ConfigError(f"{name} must be a number of seconds from 0 to {maximum:g}, not "
                          f"{text[:40]!r}")
    return value


def _date(env: Mapping[str, str], name: str, default: str) -> datetime.date:
    text = env.get(name) or default
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"{name} must be a date like 2026-01-01, not {text!r}") from None


def _name(env: Mapping[str, str], name: str, default: str) -> str:
    text = (env.get(name) or "").strip() or default
    if not (text.isascii() and text.isprintable()) or len(text) > 64:
        raise ConfigError(f"{name} must name a scoring scheme, not {text[:80]!r}")
    return text
