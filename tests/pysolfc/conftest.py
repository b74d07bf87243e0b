"""The PySolFC these tests run, with gapgrid's plugin file loaded once for all of them.

PySolFC's game database lives in its modules for the whole process, and
loading the plugin file a second time would find gapgrid's game ids taken,
so the file is installed and loaded once per test session.
"""

from __future__ import annotations

import contextlib
import io

import pytest

from gapgrid.api.pysolfc import install
from tests.pysolfc_harness import load_plugin_file, load_pysolfc, pysolfc_dir


@pytest.fixture(scope="session")
def game_db(tmp_path_factory: pytest.TempPathFactory) -> object:
    """PySolFC's game database, with gapgrid's plugin file loaded from a fresh plugins folder
    without a word on standard error."""
    path = pysolfc_dir()
    assert path is not None, "set PYSOLFC_DIR to a PySolFC source tree"
    database = load_pysolfc(path)
    plugin = install.install(tmp_path_factory.mktemp("plugins"))
    messages = io.StringIO()
    with contextlib.redirect_stderr(messages):
        assert load_plugin_file(plugin) is None
    assert messages.getvalue() == ""
    return database
