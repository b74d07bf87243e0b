"""The Flask application factory: a thin adapter from HTTP to the service layer.

``create_app()`` reads the settings from the environment (see
:mod:`gapgrid.api.config`), loads the plugins once, checks that they provide
the ranking scheme, opens (creating or upgrading) the SQLite database,
builds the API's blueprint and its OpenAPI operation table, adds the
player's page (:mod:`gapgrid.api.page`), and keeps all of it in
``app.extensions["gapgrid"]``; nothing lives in module globals, and
importing this package registers nothing, so each app (and each test) has
its own.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable

from flask import Flask

from gapgrid import plugins
from gapgrid.api.config import Settings
from gapgrid.api.page import register_page
from gapgrid.api.problems import register_error_handlers
from gapgrid.api.routes import EXTENSION, ApiState, build_routes
from gapgrid.api.schemas import RequestValidator
from gapgrid.api.services.puzzles import PuzzleService, check_ranking, utc_now
from gapgrid.core.catalogue import Catalogue

_log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None, *, catalogue: Catalogue | None = None,
               clock: Callable[[], datetime.datetime] = utc_now) -> Flask:
    """Build the puzzle API application.

    Raises :class:`~gapgrid.api.config.ConfigError` (a one-line reason) for
    settings it cannot serve with, e.g. a ranking scheme no plugin provides.
    """
    settings = settings or Settings.from_environment()
    catalogue = catalogue or plugins.load_catalogue()
    check_ranking(settings, catalogue)  # before anything is created or logged
    for problem in catalogue.problems:
        _log.warning("plugin %r not loaded: %s", problem.plugin, problem.reason)
    if settings.uses_development_secret:
        _log.warning("GAPGRID_SECRET_KEY is not set: using the development secret, so puzzles "
                     "and start tokens are guessable. Set it before serving anyone else.")
    settings.instance.mkdir(parents=True, exist_ok=True)
    app = Flask(__name__, instance_path=str(settings.instance.resolve()))
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body
    app.url_map.merge_slashes = False  # "//" is a 404 problem, not an HTML redirect
    app.json.sort_keys = False  # type: ignore[attr-defined]
    routes = build_routes(settings)
    app.extensions[EXTENSION] = ApiState(
        settings=settings, puzzles=PuzzleService.open(settings, catalogue, clock),
        validator=RequestValidator(settings), operations=routes.operations)
    app.register_blueprint(routes.blueprint)
    register_page(app)  # the player's page: /, /play/..., /assets/..., /v1/
    register_error_handlers(app)
    return app
