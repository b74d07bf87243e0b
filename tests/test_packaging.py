"""What gapgrid installs: one top-level package in its wheel, working as ``python -m gapgrid``,
and every third-party package its code imports declared in pyproject.toml."""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SOURCES = ("core", "plugins", "api")
"""The folders at the repository root that gapgrid/ links to and the wheel ships."""

NOT_DEPENDENCIES = {"pysollib": "PySolFC itself: only api/pysolfc/bridge.py imports it, and "
                                "only when PySolFC runs the plugin file"}


def _copy_source_tree(into: Path) -> Path:
    """The files a build reads, copied so the build's own output (build/, *.egg-info)
    lands in the test's folder, not in the working tree."""
    source = into / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    # gapgrid/ holds relative links to the three folders: copied as links, they point
    # at the copies beside them
    shutil.copytree(ROOT / "gapgrid", source / "gapgrid", symlinks=True, ignore=ignore)
    for folder in SOURCES:
        shutil.copytree(ROOT / folder, source / folder, ignore=ignore)
    return source


@pytest.mark.slow
def test_the_wheel_holds_only_gapgrid_and_runs(tmp_path: Path) -> None:
    """A wheel built from the source tree (offline) has exactly two top-level names,
    gapgrid/ and its dist-info, holds every module of core/, plugins/ and api/ under
    gapgrid/ (the database migrations included), and `python -m gapgrid variants` and
    `python -m gapgrid db upgrade` run from it."""
    source = _copy_source_tree(tmp_path)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--no-index", "-q", "-w", str(tmp_path / "dist"), str(source)],
        capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    [wheel] = (tmp_path / "dist").glob("*.whl")
    version = PYPROJECT["project"]["version"]
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        archive.extractall(tmp_path / "site")
    assert {name.split("/")[0] for name in names} == {"gapgrid", f"gapgrid-{version}.dist-info"}
    modules = {str(path.relative_to(ROOT)) for folder in SOURCES
               for path in (ROOT / folder).rglob("*.py") if "__pycache__" not in path.parts}
    assert {f"gapgrid/{module}" for module in modules} <= set(names)

    # the unpacked wheel comes first on the path: the editable install's finder only
    # answers for names nothing on the path has
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    where = subprocess.run([sys.executable, "-c", "import gapgrid.api.cli; "
                            "print(gapgrid.api.cli.__file__)"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=60)
    assert Path(where.stdout.strip()).is_relative_to(tmp_path / "site"), where.stderr
    listed = subprocess.run([sys.executable, "-m", "gapgrid", "variants"], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert re.search(r"^montana\s+4x13\s+redeals 2\s+PySolFC 53\s+Montana", listed.stdout,
                     re.MULTILINE), listed.stdout
    # the database's migrations (Alembic's scripts) ship in the wheel and run from it
    upgraded = subprocess.run([sys.executable, "-m", "gapgrid", "db", "upgrade"], cwd=tmp_path,
                              env={**env, "GAPGRID_DATABASE": str(tmp_path / "db.sqlite3")},
                              capture_output=True, text=True, timeout=120)
    assert upgraded.returncode == 0 and "now at revision" in upgraded.stdout, upgraded.stderr
    assert "gapgrid/api/db/migrations/script.py.mako" in names


def _imported_packages(paths: list[Path]) -> dict[str, set[str]]:
    """Top-level names of absolute imports in ``paths``, with the files importing each."""
    found: dict[str, set[str]] = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            for module in modules:
                found.setdefault(module.split(".")[0], set()).add(str(path.relative_to(ROOT)))
    return found


def _distribution(requirement: str) -> str:
    """The normalised project name of a requirement string (``Flask>=3.0`` -> ``flask``)."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert name, requirement
    return re.sub(r"[-_.]+", "-", name.group(0)).lower()


def _third_party(found: dict[str, set[str]]) -> dict[str, set[str]]:
    local = {"gapgrid", "tests", "__future__", *SOURCES}
    return {name: files for name, files in found.items()
            if name not in sys.stdlib_module_names and name not in local
            and name not in NOT_DEPENDENCIES}


def _undeclared(found: dict[str, set[str]], declared: set[str]) -> dict[str, list[str]]:
    """Imported top-level names whose distribution is not in ``declared``."""
    providers = importlib.metadata.packages_distributions()
    missing = {}
    for name, files in sorted(_third_party(found).items()):
        distributions = {_distribution(dist) for dist in providers.get(name, [name])}
        if not distributions & declared:
            missing[name] = sorted(files)
    return missing


def _optional(requirement: str) -> set[str]:
    """The distributions an optional extra's requirement brings: ``dask[distributed]`` is
    dask and its extra, the distribution ``distributed``."""
    extras = re.search(r"\[(.*?)\]", requirement)
    return {_distribution(requirement),
            *(_distribution(extra) for extra in (extras.group(1).split(",") if extras else []))}


def test_every_imported_package_is_declared() -> None:
    """Each third-party package gapgrid's code imports is in [project] dependencies, or in
    an optional extra other than ``test`` (``study``, ``plot``: imported only by the command
    that needs it, which says how to install it when it is missing)."""
    declared = {_distribution(item) for item in PYPROJECT["project"]["dependencies"]}
    declared |= {name for extra, items in PYPROJECT["project"]["optional-dependencies"].items()
                 if extra != "test" for item in items for name in _optional(item)}
    code = [*(ROOT / "gapgrid").glob("*.py"),  # its subfolders are links to SOURCES
            *(path for folder in SOURCES for path in (ROOT / folder).rglob("*.py")
              if "__pycache__" not in path.parts)]
    found = _imported_packages(code)
    assert {"click", "itsdangerous", "werkzeug", "flask"} <= set(found)  # the scan sees them
    assert _undeclared(found, declared) == {}


def test_every_package_the_tests_import_is_declared() -> None:
    """Each third-party package the tests import is a dependency or a test extra."""
    declared = {_distribution(item) for item in (
        *PYPROJECT["project"]["dependencies"], *PYPROJECT["project"]["optional-dependencies"]
        ["test"])}
    tests = [path for path in (ROOT / "tests").rglob("*.py") if "__pycache__" not in path.parts]
    assert _undeclared(_imported_packages(tests), declared) == {}
