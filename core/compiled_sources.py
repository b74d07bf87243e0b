"""A compiled module that no longer matches its source is not used.

``python -m gapgrid.api.compiled build`` puts C extension modules beside some
modules of this package, and a manifest (:data:`MANIFEST`) of the sources
they were compiled from. Python imports an extension module rather than the
source beside it, so after gapgrid is upgraded by pip (which takes away the
files it installed, not the ones a build added) the old compiled search
would run beside the new modules. So when this package is imported, each
compiled module whose source no longer matches the manifest is imported from
its source instead (a finder ahead of Python's own), and a warning says how
to build again. Without a manifest nothing is read: a pure-Python install
pays nothing.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Final

MANIFEST: Final = "compiled-sources.json"
"""The manifest's name, in this package's folder: ``{"sources": {module: sha256}}``."""

MANIFEST_MAX_BYTES: Final = 64 * 1024
"""A manifest is a few hundred bytes; a larger file is not one a build wrote."""


def source_digest(path: Path) -> str:
    """The SHA-256 of the source file at ``path``, as the manifest records it."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def compiled_names(folder: Path) -> list[str]:
    """The modules of ``folder`` that have an extension module beside their source."""
    names = set()
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for extension in folder.glob(f"*{suffix}"):
            name = extension.name[:-len(suffix)]
            if (folder / f"{name}.py").is_file():
                names.add(name)
    return sorted(names)


def stale_modules(folder: Path) -> list[str]:
    """The compiled modules of ``folder`` whose source differs from the one the manifest
    says they were compiled from (all of them when the manifest cannot be read); none
    without a manifest."""
    manifest = folder / MANIFEST
    try:
        with manifest.open("rb") as handle:
            text = handle.read(MANIFEST_MAX_BYTES + 1)
    except FileNotFoundError:
        return []
    except OSError:
        text = b""
    try:
        recorded = json.loads(text)["sources"] if len(text) <= MANIFEST_MAX_BYTES else {}
    except (ValueError, KeyError, TypeError):
        recorded = {}
    if not isinstance(recorded, dict):
        recorded = {}
    return [name for name in compiled_names(folder)
            if recorded.get(name) != source_digest(folder / f"{name}.py")]


class _Sources(importlib.abc.MetaPathFinder):
    """Imports the named modules of one package from their sources."""

    def __init__(self, package: str, folder: Path, names: Sequence[str]) -> None:
        self.folder = folder
        self.names = {f"{package}.{name}": name for name in names}

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        name = self.names.get(fullname)
        if name is None:
            return None
        return importlib.util.spec_from_file_location(fullname, self.folder / f"{name}.py")


def use_sources_of_stale_modules(package: str, folder: Path) -> list[str]:
    """Import the stale compiled modules (:func:`stale_modules`) of ``package``, whose folder
    is ``folder``, from their sources, with a warning; return their names."""
    stale = stale_modules(folder)
    if stale:
        sys.meta_path.insert(0, _Sources(package, folder, stale))
        warnings.warn(
            f"gapgrid's compiled {', '.join(stale)} are older than their sources (gapgrid was "
            f"upgraded after python -m gapgrid.api.compiled build): their sources run "
            f"instead; run the build again, or remove it", RuntimeWarning, stacklevel=2)
    return stale
