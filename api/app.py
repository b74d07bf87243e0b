"""The Flask application factory: a thin adapter from HTTP to the core.

``create_app()`` reads the settings from the environment (see
:mod:`api.config`), creates the instance folder and the SQLite database on
first start, loads the plugins once, and keeps all of it in
``app.extensions["gapgrid"]``; nothing lives in module globals, so each
app (and each test) has its own.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable

from flask import Flask
from itsdangerous import URLSafeTimedSerializer

from gapgrid import plugins
from gapgrid.api.config import Settings
from gapgrid.api.problems import register_error_handlers
from gapgrid.api.routes import EXTENSION, Service, blueprint
from gapgrid.api.schemas import RequestValidator
from gapgrid.api.store import Store
from gapgrid.core.catalogue import Catalogue

_log = logging.getLogger(__name__)


def utc_now() -> datetime.datetime:
    """The current time, timezone-aware UTC."""
    return datetime.datetime.now(datetime.UTC)


def create_app(settings: Settings | None = None, *, catalogue: Catalogue | None = None,
               clock: Callable[[], datetime.datetime] = utc_now) -> Flask:
    """Build the puzzle API application."""
    settings = settings or Settings.from_environment()
    if settings.uses_development_secret:
        _log.warning("GAPGRID_SECRET_KEY is not set: using the development secret, so puzzles "
                     "and start tokens are guessable. Set it before serving anyone else.")
    settings.instance.mkdir(parents=True, exist_ok=True)
    app = Flask(__name__, instance_path=str(settings.instance.resolve()))
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body
    app.url_map.merge_slashes = False  # "//" is a 404 problem, not an HTML redirect
    app.json.sort_keys = False  # type: ignore[attr-defined]
    catalogue = catalogue or plugins.load_catalogue()
    for problem in catalogue.problems:
        _log.warning("plugin %r not loaded: %s", problem.plugin, problem.reason)
    app.extensions[EXTENSION] = Service(
        settings=settings, catalogue=catalogue, store=Store(settings.database),
        validator=RequestValidator(settings), clock=clock,
        tokens=URLSafeTimedSerializer(settings.secret_key, salt="gapgrid-start-token"))
    app.register_blueprint(blueprint)
    register_error_handlers(app)
    return app
