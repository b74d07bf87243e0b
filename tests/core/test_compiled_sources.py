"""core.compiled_sources: a compiled build that does not match its sources is not used."""

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
    sources_digest,
    stale_modules,
    use_sources_of_stale_modules,
)

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


@pytest.fixture
def package(tmp_path: Path) -> Iterator[Path]:
    """A package ``fakepkg`` with two modules, each with a broken "extension module" beside
    it (importing one fails), and a third module without one, on sys.path for the test."""
    folder = tmp_path / "fakepkg"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for name in ("fast", "other", "plain"):
        (folder / f"{name}.py").write_text(f"WHO = {name!r}\n")
    for name in ("fast", "other"):
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


def write_manifest(folder: Path) -> None:
    """The manifest a build writes last: the digest of the sources as they are now."""
    (folder / MANIFEST).write_text(json.dumps({"sources": sources_digest(folder)}))


def test_nothing_compiled_nothing_stale(tmp_path: Path) -> None:
    """No extension module (a pure-Python install): nothing to check."""
    (tmp_path / "a.py").write_text("")
    assert stale_modules(tmp_path) == []


def test_a_build_without_its_manifest_is_not_used(package: Path) -> None:
    """A build cut short before its manifest, or one from before manifests: all stale."""
    assert stale_modules(package) == ["fast", "other"]


def test_a_change_to_any_source_makes_the_whole_build_stale(package: Path) -> None:
    """The manifest matches: the build is used. Then a change to a module the build did not
    compile (mypyc bakes in other modules' constants): none of it is."""
    write_manifest(package)
    assert stale_modules(package) == []
    (package / "plain.py").write_text("WHO = 'a later version'\n")
    assert stale_modules(package) == ["fast", "other"]


@pytest.mark.parametrize("manifest", [b"{not json", b'{"sources": [1, 2]}', b"[]",
                                      b" " * (MANIFEST_MAX_BYTES + 1)])
def test_a_manifest_that_cannot_be_read_makes_the_build_stale(
        package: Path, manifest: bytes) -> None:
    """Garbage, the wrong shape or an oversized file: the build is not trusted."""
    (package / MANIFEST).write_bytes(manifest)
    assert stale_modules(package) == ["fast", "other"]


def test_stale_modules_are_imported_from_their_sources_with_a_warning(package: Path) -> None:
    """Both compiled modules come from their sources (their broken extensions are never
    loaded), with a warning naming them."""
    with pytest.warns(RuntimeWarning, match=r"compiled modules \(fast, other\) do not match"):
        assert use_sources_of_stale_modules("fakepkg", package) == ["fast", "other"]
    assert importlib.import_module("fakepkg.fast").WHO == "fast"
    assert importlib.import_module("fakepkg.other").WHO == "other"


def test_a_matching_build_is_left_to_pythons_own_import(package: Path) -> None:
    """With the manifest matching, nothing is redirected: Python imports the extension (here
    a broken one, so the import fails, which shows it was tried)."""
    write_manifest(package)
    assert use_sources_of_stale_modules("fakepkg", package) == []
    with pytest.raises(ImportError):
        importlib.import_module("fakepkg.fast")
