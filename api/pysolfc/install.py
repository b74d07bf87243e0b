"""Writing, removing and inspecting the plugin file PySolFC loads at start-up.

PySolFC runs every ``*.py`` file in the user's plugins folder
(``~/.PySolFC/plugins``; on Windows ``%APPDATA%\\PySolFC\\plugins``) after its
own games are loaded. The file written here is small: it puts the
installation gapgrid runs from on PySolFC's path, checks that the gapgrid
it finds is the version that wrote the file, and hands over to
:mod:`api.pysolfc.bridge`. If any of that fails, it prints what to do and
returns, so PySolFC always starts. Beside it, a folder holds each added
game's rules page (:mod:`api.pysolfc.rules_pages`).
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Final

import attrs

from gapgrid import plugins
from gapgrid.api.pysolfc import rules_pages
from gapgrid.api.reading import read_at_most
from gapgrid.core.catalogue import Catalogue

PLUGIN_FILE_NAME: Final = "gapgrid_pysolfc.py"
MARKER: Final = "# gapgrid-pysolfc-plugin"
"""First line of the file: uninstall removes only files that carry it."""

TEMPORARY_PREFIX: Final = ".gapgrid-"
"""How the temporary files of an install begin (each is renamed into place once written)."""

LEFTOVER_SECONDS: Final = 60
"""Age past which a temporary file of an install is a leftover, not another install's."""

MAX_PLUGIN_FILE_BYTES: Final = 1 << 20
"""The most of a plugin file ``status`` reads: the file gapgrid writes is a few KiB."""

TEMPLATE: Final = '''{marker}
"""gapgrid's games for PySolFC: written by `gapgrid pysolfc install` (gapgrid {version}).

Remove it with `gapgrid pysolfc uninstall`; see what is installed with
`gapgrid pysolfc status`.
"""

GAPGRID_VERSION = {version!r}
GAPGRID_SITE_DIRS = {site_dirs!r}


def _register_gapgrid_games():
    import site
    import sys

    def say(message):
        sys.stderr.write("gapgrid plugin: " + message + "\\n")

    for directory in GAPGRID_SITE_DIRS:
        if directory not in sys.path:
            site.addsitedir(directory)  # appended: PySolFC's own packages come first
    try:
        from gapgrid.api.pysolfc import bridge
    except Exception as error:
        say("gapgrid cannot be imported (%s: %s), so PySolFC starts without gapgrid's "
            "games. Reinstall gapgrid and run `gapgrid pysolfc install` again, with the "
            "Python that runs PySolFC." % (type(error).__name__, error))
        return
    if bridge.GAPGRID_VERSION != GAPGRID_VERSION:
        say("this file was written by gapgrid %s but gapgrid %s is installed, so PySolFC "
            "starts without gapgrid's games. Run `gapgrid pysolfc install` to update it."
            % (GAPGRID_VERSION, bridge.GAPGRID_VERSION))
        return
    import os
    rules_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), {rules_folder!r})
    for message in bridge.register_games(rules_dir=rules_dir):
        say(message)


_register_gapgrid_games()
'''


class PluginFileError(RuntimeError):
    """Raised when the plugin file cannot be written or removed, with the reason."""


def default_plugins_dir() -> Path:
    """PySolFC's user plugins folder on this system."""
    if sys.platform == "win32" and os.environ.get("APPDATA"):
        return Path(os.environ["APPDATA"]) / "PySolFC" / "plugins"
    return Path.home() / ".PySolFC" / "plugins"


def gapgrid_version() -> str:
    """The installed gapgrid's version."""
    return importlib.metadata.version("gapgrid")


def site_dirs() -> list[str]:
    """Where this gapgrid and its plugins are installed, for PySolFC's path."""
    paths = sysconfig.get_paths()
    return list(dict.fromkeys([paths["purelib"], paths["platlib"]]))


def plugin_source(version: str | None = None, directories: list[str] | None = None) -> str:
    """The text of the plugin file."""
    return TEMPLATE.format(marker=MARKER, version=version or gapgrid_version(),
                           site_dirs=directories if directories is not None else site_dirs(),
                           rules_folder=rules_pages.FOLDER)


def install(plugins_dir: Path, catalogue: Catalogue | None = None) -> Path:
    """Write the plugin file into ``plugins_dir`` (created if missing), atomically, and the
    rules page of every game it adds into the folder beside it."""
    target = plugins_dir / PLUGIN_FILE_NAME
    if target.exists() and not _is_ours(target):
        raise PluginFileError(f"{target} exists and was not written by gapgrid; not replacing it")
    pages = rules_pages.rules_pages(catalogue or plugins.load_catalogue())
    folder = plugins_dir / rules_pages.FOLDER
    for name in pages:  # looked at before anything is written: all of it, or nothing
        page = folder / name
        if os.path.lexists(page) and not (page.is_file() and _first_line(page)
                                          == rules_pages.MARKER):
            raise PluginFileError(f"{page} exists and was not written by gapgrid; not "
                                  f"replacing it")
    try:
        plugins_dir.mkdir(parents=True, exist_ok=True)
        folder.mkdir(exist_ok=True)
        _remove_temporaries(plugins_dir, folder)  # an earlier install's, cut off
        for stale in _our_pages(folder):  # a game no longer added keeps no page
            if stale.name not in pages:
                stale.unlink()
        for name, text in pages.items():
            _write_atomically(folder / name, text)
        _write_atomically(target, plugin_source())  # last: a file in place finds its pages
    except OSError as error:
        where = error.filename or target
        raise PluginFileError(f"cannot write {where}: {error.strerror or error}") from None
    return target


def _write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file: never a half-written file, and no
    temporary file left when the write fails (a full disk). The file gets the permissions
    the user's umask gives a new file, as PySolFC's own would: another user's PySolFC may
    read the folder (a temporary file is its owner's only)."""
    temporary: Path | None = None
    try:
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent,
                                         prefix=TEMPORARY_PREFIX, suffix=".tmp",
                                         delete=False) as handle:
            temporary = Path(handle.name)
            handle.write(text)
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException as error:  # a full disk, or a Ctrl-C: no temporary file is left
        if temporary is not None:
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)
        named = getattr(error, "filename", None)
        if isinstance(error, OSError) and (
                named is None or Path(str(named)).name.startswith(TEMPORARY_PREFIX)):
            error.filename = str(path)  # the file meant, not a temporary one (which a
            # read-only folder refuses to create, before it has a name here)
        raise


def _umask() -> int:
    """This process's umask (read by setting it, and setting it back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _remove_temporaries(*folders: Path) -> None:
    """Remove the temporary files an install cut off (by a crash, or a kill) left in
    ``folders``: their names are gapgrid's alone. Only those a minute old or more: a younger
    one may be another install's, writing now."""
    stale_before = time.time() - LEFTOVER_SECONDS
    for folder in folders:
        if folder.is_dir():
            for leftover in folder.glob(f"{TEMPORARY_PREFIX}*.tmp"):
                with contextlib.suppress(FileNotFoundError):  # its install renamed it since
                    if leftover.stat().st_mtime < stale_before:
                        leftover.unlink()


@attrs.frozen
class Removed:
    """What ``uninstall`` removed."""

    plugin: Path | None
    """The plugin file, or None when there was none."""

    pages: int
    """Rules pages removed."""


def uninstall(plugins_dir: Path) -> Removed:
    """Remove the plugin file, then the rules pages (a plugin left in place keeps every page
    it finds, whatever fails), and what an install cut off left behind."""
    target = plugins_dir / PLUGIN_FILE_NAME
    if target.exists() and not _is_ours(target):
        raise PluginFileError(f"{target} was not written by gapgrid; not removing it")
    folder = plugins_dir / rules_pages.FOLDER
    removed, pages = None, 0
    try:
        if target.exists():
            target.unlink()
            removed = target
        _remove_temporaries(plugins_dir, folder)
        for page in _our_pages(folder):
            page.unlink()
            pages += 1
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()  # a folder holding someone else's files stays
    except OSError as error:
        where = error.filename or target
        raise PluginFileError(f"cannot remove {where}: {error.strerror or error}") from None
    return Removed(removed, pages)


def _our_pages(folder: Path) -> list[Path]:
    """The rules pages in ``folder`` that gapgrid wrote."""
    if not folder.is_dir():
        return []
    return [page for page in sorted(folder.glob("*.html"))
            if _first_line(page) == rules_pages.MARKER]


@attrs.frozen
class Status:
    """What is installed where."""

    path: Path
    installed: bool
    written_by: str | None
    """The gapgrid version that wrote the file, when it is ours."""

    current: str
    """The installed gapgrid's version."""

    missing_pages: tuple[str, ...] = ()
    """Added games whose rules page is missing (a variant installed since, say)."""

    foreign: bool = False
    """Whether a file gapgrid did not write is where the plugin file goes (install will
    not replace it)."""

    as_written_now: bool = False
    """Whether the file is, to the byte, what ``install`` would write now: the version
    alone does not say it (a gapgrid changed without a new version number, or installed
    elsewhere since, writes another file)."""

    @property
    def up_to_date(self) -> bool:
        """Whether the file is what the installed gapgrid writes and every added game has its
        page."""
        # what install writes now names this version: as_written_now implies it
        return self.installed and self.as_written_now and not self.missing_pages


def status(plugins_dir: Path, catalogue: Catalogue | None = None) -> Status:
    """Inspect the plugin file and the rules pages in ``plugins_dir``."""
    target = plugins_dir / PLUGIN_FILE_NAME
    written_by = None
    text = ""
    if target.exists() and _is_ours(target):
        # ours: a page of text, read to a bound
        text = read_at_most(target, MAX_PLUGIN_FILE_BYTES).decode("utf-8", "replace")
        for line in text.splitlines():
            if line.startswith("GAPGRID_VERSION = "):
                written_by = line.split("=", 1)[1].strip().strip("'\"")
    missing: tuple[str, ...] = ()
    if written_by is not None:
        folder = plugins_dir / rules_pages.FOLDER
        slugs = rules_pages.added_slugs(catalogue or plugins.load_catalogue())
        missing = tuple(slug for slug in slugs
                        if not (folder / rules_pages.page_name(slug)).is_file())
    return Status(path=target, installed=written_by is not None, written_by=written_by,
                  current=gapgrid_version(), missing_pages=missing,
                  foreign=target.exists() and written_by is None and not _is_ours(target),
                  as_written_now=written_by is not None and text == plugin_source())


def _first_line(path: Path) -> str:
    """The first line of ``path`` (at most the marker's length and a little), or "" when it
    cannot be read: never a hang on a FIFO, never a whole file read for one line."""
    try:
        head = read_at_most(path, len(MARKER) + 64)
    except OSError:
        return ""
    return head.split(b"\n", 1)[0].decode("utf-8", "replace").strip()


def _is_ours(path: Path) -> bool:
    return _first_line(path) == MARKER
