"""A compiled build that no longer matches its sources is not used at all.

``python -m gapgrid.api.compiled build`` puts C extension modules beside some
modules of this package (one shared library holds them all), and last a
manifest (:data:`MANIFEST`) with a digest of every source of this package
(:func:`sources_digest`): mypyc also bakes in constants of the modules it
does not compile. Python imports an extension module rather than the source
beside it, so after gapgrid is upgraded by pip (which takes away the files
it installed, not the ones a build added), or after a build cut short, an
old compiled search could run beside new modules. So when this package is
imported and extension modules sit beside its sources, they are all
imported from their sources instead (a finder ahead of Python's own), with
a warning to build again, unless the manifest's digest is that of the
sources as they are. Compiled modules import one another inside their
shared library, so it is all of them or none. A pure-Python install, with
no extension module here, reads nothing.
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
"""The manifest's name, in this package's folder: ``{"sources": DIGEST}``."""

MANIFEST_MAX_BYTES: Final = 64 * 1024
"""A manifest is a few hundred bytes; a larger file is not one a build wrote."""


def sources_digest(folder: Path) -> str:
    """The SHA-256 over every Python source of ``folder`` (names and contents, by name)."""
    digest = hashlib.sha256()
    for source in sorted(folder.glob("*.py")):
        digest.update(source.name.encode() + b"\0")
        digest.update(hashlib.sha256(source.read_bytes()).digest())
    return digest.hexdigest()


def compiled_names(folder: Path) -> list[str]:
    """The modules of ``folder`` that have an extension module beside their source."""
    names = set()
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for extension in folder.glob(f"*{suffix}"):
            name = extension.name[:-len(suffix)]
            if (folder / f"{name}.py").is_file():
                names.add(name)
    return sorted(names)


def build_matches(folder: Path) -> bool:
    """Tell whether the manifest in ``folder`` records the digest of its sources as they are
    (False without a readable manifest)."""
    try:
        with (folder / MANIFEST).open("rb") as handle:
            text = handle.read(MANIFEST_MAX_BYTES + 1)
        recorded = json.loads(text)["sources"] if len(text) <= MANIFEST_MAX_BYTES else None
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return isinstance(recorded, str) and recorded == sources_digest(folder)


def stale_modules(folder: Path) -> list[str]:
    """The compiled modules of ``folder`` that must not run: all of them unless the manifest
    matches the sources (:func:`build_matches`); none where nothing is compiled."""
    names = compiled_names(folder)
    return names if names and not build_matches(folder) else []


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
            f"gapgrid's compiled modules ({', '.join(stale)}) do not match its sources "
            f"(gapgrid upgraded since python -m gapgrid.api.compiled build, or the build cut "
            f"short): the sources run instead; build again, or remove it", RuntimeWarning,
            stacklevel=2)
    return stale
