"""core.compiled_sources: a compiled module older than its source is not imported."""

from __future__ import annotations

import importlib
import importlib.machinery
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gapgrid.core.compiled_sources import (
    MANIFEST,
    MANIFEST_MAX_BYTES,
    source_digest,
    stale_modules,
    use_sources_of_stale_modules,
)

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


@pytest.fixture
def package(tmp_path: Path) -> Iterator[Path]:
    """A package ``fakepkg`` with two modules, each with a broken "extension module" beside
    it (importing one fails), on sys.path for the test."""
    folder = tmp_path / "fakepkg"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for name in ("fast", "other"):
        (folder / f"{name}.py").write_text(f"WHO = {name!r}\n")
        (folder / f"{name}{SUFFIX}").write_bytes(b"not a shared library")
    sys.path.insert(0, str(tmp_path))
    try:
        yield folder
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name.startswith("fakepkg")]:
            del sys.modules[name]
        sys.meta_path[:] = [finder for finder in sys.meta_path
                            if getattr(finder, "folder", None) != folder]


def write_manifest(folder: Path, sources: dict[str, str]) -> None:
    (folder / MANIFEST).write_text(json.dumps({"sources": sources}))


def test_without_a_manifest_nothing_is_stale(package: Path) -> None:
    """No manifest: not a build of ours, nothing read, nothing changed."""
    assert stale_modules(package) == []


def test_a_module_whose_source_changed_is_stale(package: Path) -> None:
    """The manifest's digests against the sources: the changed one is stale."""
    write_manifest(package, {name: source_digest(package / f"{name}.py")
                             for name in ("fast", "other")})
    assert stale_modules(package) == []
    (package / "fast.py").write_text("WHO = 'a later version'\n")
    assert stale_modules(package) == ["fast"]


@pytest.mark.parametrize("manifest", [b"{not json", b'{"sources": [1, 2]}', b"[]",
                                      b" " * (MANIFEST_MAX_BYTES + 1)])
def test_a_manifest_that_cannot_be_read_makes_every_compiled_module_stale(
        package: Path, manifest: bytes) -> None:
    """Garbage, the wrong shape or an oversized file: no compiled module is trusted."""
    (package / MANIFEST).write_bytes(manifest)
    assert stale_modules(package) == ["fast", "other"]


def test_a_stale_module_is_imported_from_its_source_with_a_warning(package: Path) -> None:
    """The stale module comes from its source (its broken extension is never loaded), with
    a warning naming it; the other, up to date, is left to Python's own import."""
    write_manifest(package, {"fast": "0" * 64,
                             "other": source_digest(package / "other.py")})
    with pytest.warns(RuntimeWarning, match="compiled fast are older than their sources"):
        assert use_sources_of_stale_modules("fakepkg", package) == ["fast"]
    assert importlib.import_module("fakepkg.fast").WHO == "fast"
    with pytest.raises(ImportError):  # Python's own import finds the broken extension
        importlib.import_module("fakepkg.other")
