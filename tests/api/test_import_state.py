"""No state is built at import: the app factory makes the routes, and the tests write only
into pytest's temporary folders."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from flask import Blueprint, Flask

ROOT = Path(__file__).resolve().parents[2]

MODULES = ("app", "routes", "openapi", "schemas", "problems", "config", "store",
           "json_documents", "render", "cli", "cli_support", "services.games",
           "services.puzzles", "services.errors")
"""The web API, the command line and the service layer (api/page.py registers its own
page blueprint, api/pysolfc/ has no routes)."""


@pytest.mark.parametrize("name", MODULES)
def test_no_module_holds_routes_or_operations(name: str) -> None:
    """No module keeps a blueprint, or a list that decorators fill, at module level."""
    module = importlib.import_module(f"gapgrid.api.{name}")
    for attribute, value in vars(module).items():
        assert not isinstance(value, Blueprint), f"{name}.{attribute} is a blueprint"
        assert not (isinstance(value, list) and attribute.isupper()), (
            f"{name}.{attribute} is a module-level list")


def test_each_app_gets_its_own_routes(make_app: Callable[..., Flask]) -> None:
    """Two apps have two blueprints and two operation tables; the second app's build does
    not add to the first's."""
    first, second = make_app(), make_app()
    assert first.blueprints["v1"] is not second.blueprints["v1"]
    operations = first.extensions["gapgrid"].operations
    assert operations is not second.extensions["gapgrid"].operations
    assert operations == second.extensions["gapgrid"].operations
    paths = {rule.rule for rule in first.url_map.iter_rules() if rule.rule.startswith("/v1/")}
    assert {f"/v1{operation.path}".replace("{", "<").replace("}", ">")
            for operation in operations} <= paths


def _run_pytest(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Run pytest in a subprocess whose system temporary folder is a new, empty one."""
    temporary = tmp_path / "system-tmp"
    temporary.mkdir()
    env = {**os.environ, "TMPDIR": str(temporary)}
    finished = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               *args], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=300)
    return finished, temporary


@pytest.mark.slow
def test_collecting_the_tests_writes_nothing(tmp_path: Path) -> None:
    """`pytest --collect-only` leaves the system temporary folder as it found it (it used
    to leave a folder with a SQLite database there each time)."""
    finished, temporary = _run_pytest(tmp_path, "--collect-only", "tests")
    assert finished.returncode == 0, finished.stdout[-3000:] + finished.stderr[-3000:]
    assert "tests collected" in finished.stdout
    assert sorted(os.listdir(temporary)) == []


@pytest.mark.slow
def test_building_the_schemathesis_app_writes_only_in_pytests_folder(tmp_path: Path) -> None:
    """The app the schemathesis test drives keeps its database in pytest's own temporary
    folder (pytest-of-<user>), nowhere else in the system temporary folder."""
    finished, temporary = _run_pytest(
        tmp_path, "tests/api/test_schemathesis.py::test_the_app_serves_the_document_tested_here")
    assert finished.returncode == 0, finished.stdout[-3000:] + finished.stderr[-3000:]
    assert [name for name in os.listdir(temporary) if not name.startswith("pytest-of-")] == []
