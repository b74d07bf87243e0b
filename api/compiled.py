"""The solver's hot modules compiled by mypyc: an optional build for long studies.

``python -m gapgrid.api.compiled build|status|remove``

gapgrid is pure Python, and a study of hard deals spends hours in the
search's inner loop. mypyc, the compiler that ships with mypy, turns
type-checked modules into C extension modules; the search then explores
the same positions in the same order, about 2.5 times as fast
(bench/README.md, "Compiled by mypyc", "The compiled search without its
calls into Python"). ``build`` compiles the modules in
:data:`COMPILED` of this installed gapgrid and puts the extension modules
beside them, where Python imports them first; ``remove`` takes them away.

Only modules whose behaviour mypyc keeps are compiled. Left out:
``core.fills``, whose ``FillBase.__init_subclass__`` changes a subclass's
methods as the class is made, which a compiled class would ignore (a
sliding puzzle's gaps would take nothing: a wrong ``lost``); and the
modules mypyc cannot compile (``core.macro``: a tuple subclass, kept apart
so that ``core.head_macros`` compiles; ``core.layout``: attrs validators;
``core.baseline``: pluggy's markers on methods). tests/api/test_compiled.py
builds a copy and checks, deal by deal of every variant, that the compiled
search explores exactly the positions the Python one does and gives the
same answers.

The build writes last a manifest with a digest of the sources it compiled
(:mod:`core.compiled_sources`): once gapgrid is upgraded by pip, which leaves
a build's files where they are, or after a build cut short, the compiled
modules do not match it and are not used at all (their sources run, with a
warning to build again).

Compiled code checks the types its annotations give at run time: a
third-party rule that returns ``1`` where a ``bool`` is declared (a won
rule's ``is_won``) stops a compiled search with a TypeError, where the
Python one would go on. Loud, never a wrong answer.

A build needs mypy (``pip install 'gapgrid[compiled]'``), a C compiler and
Python's headers (Debian: ``apt-get install gcc python3-dev``). It refuses
a source checkout (an editable install): the extension modules would sit
in the repository, and the test suite, which replaces module attributes to
watch the search, would run against them.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.metadata
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Final

import click

from gapgrid.api.command_settings import HELP_OPTIONS
from gapgrid.core.compiled_sources import (
    MANIFEST,
    compiled_names,
    sources_digest,
    stale_modules,
)

COMPILED: Final = ("search", "game", "reductions", "open_heads", "runs", "rollouts",
                   "evaluation", "discrepancies", "packed_keys", "left_card_moves",
                   "head_macros", "entry_probes")
"""The modules of ``gapgrid.core`` a build compiles: where a search spends its time."""

GROUP: Final = "gapgrid_core"
"""The name of the shared library mypyc builds for them (``gapgrid_core__mypyc``), which
sits beside the ``gapgrid`` folder."""


class CompileError(Exception):
    """A build that cannot be made, with the reason for people."""


def package_root() -> Path:
    """The folder of the ``gapgrid`` package this Python imports."""
    import gapgrid

    return Path(gapgrid.__file__).resolve().parent


def compiled_modules() -> list[str]:
    """The modules of :data:`COMPILED` that this process runs compiled."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return [name for name in COMPILED
            if (importlib.import_module(f"gapgrid.core.{name}").__file__ or "").endswith(
                suffixes)]


def built_files(root: Path) -> list[Path]:
    """The files a build put in the installed package at ``root`` (and beside it): every
    extension module of ``core``, the shared library, the manifest, and the temporary
    files of a build cut short."""
    core = root / "core"
    files = [core / f"{name}{suffix}" for name in compiled_names(core)
             for suffix in importlib.machinery.EXTENSION_SUFFIXES]
    files.extend(root.parent.glob(f"{GROUP}__mypyc*"))
    files.extend(root.parent.glob(f".{GROUP}__mypyc*.tmp"))
    files.extend(core.glob(".*.tmp"))
    files.append(core / MANIFEST)
    return [path for path in files if path.is_file()]


def check_installed(root: Path) -> None:
    """Refuse a source checkout: ``core`` must be the installed package's own folder, and
    the install not an editable one."""
    core = root / "core"
    editable = False
    try:
        direct = json.loads(importlib.metadata.distribution("gapgrid").read_text(
            "direct_url.json") or "{}")
        editable = bool(direct.get("dir_info", {}).get("editable"))
    except (importlib.metadata.PackageNotFoundError, ValueError, AttributeError):
        pass
    if editable or core.is_symlink() or (core.resolve().parent / "pyproject.toml").is_file():
        raise CompileError(
            f"{root} is a source checkout (an editable install, or a checkout's gapgrid "
            f"folder found first because this runs inside it): compile a regular install in "
            f"an environment of its own, from outside the checkout, e.g. python -m venv "
            f"study && study/bin/pip install '.[compiled,study]' && study/bin/python -P -m "
            f"gapgrid.api.compiled build (-P: not from the current folder)")


def build(root: Path, work: Path, say: Callable[[str], None] = lambda _: None) -> list[Path]:
    """Compile :data:`COMPILED` of the gapgrid package at ``root`` in the folder ``work``
    and put the extension modules in the package; return the files put there.

    The package is compiled from a copy in ``work``, its modules keeping their names.
    Each file is copied in whole and renamed into place, and the manifest last: a build
    cut short has none, and none of it is used (:mod:`core.compiled_sources`; ``remove``
    takes it away).
    """
    try:
        from mypyc.build import mypycify
        from setuptools import Distribution
    except ImportError as error:
        raise CompileError(f"{error.name} is missing: mypyc comes with mypy, pip install "
                           f"'gapgrid[compiled]'") from None
    for folder in (root / "core", root.parent):
        if not os.access(folder, os.W_OK):
            raise CompileError(f"cannot write in {folder}: run the build as the user who "
                               f"installed gapgrid")
    # Compiled from a copy in ``work``: mypy, given files inside site-packages, would take
    # every module there for the project's own (and refuse mypy_extensions, say).
    source = work / "src" / "gapgrid"
    shutil.copytree(root, source, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd",
                                                                ".*.tmp", MANIFEST))
    paths = [str(source / "core" / f"{name}.py") for name in COMPILED]
    say(f"compiling {', '.join(f'gapgrid.core.{name}' for name in COMPILED)} with mypyc "
        f"(about half a minute)")
    searched = os.environ.pop("MYPYPATH", None)  # the copy, not another gapgrid, is compiled
    try:
        # pyproject.toml's mypy settings, which an installed package does not carry; no
        # configuration file of the folder or the user's.
        extensions = mypycify([*paths, "--config-file=", "--ignore-missing-imports",
                               "--disable-error-code=empty-body",  # the hook specifications
                               f"--cache-dir={work / 'mypy-cache'}"],
                              target_dir=str(work / "c"), group_name=GROUP)
    except SystemExit as error:  # mypy's way of failing
        raise CompileError(f"mypyc's type check of {root} failed (status {error}; the "
                           f"errors are above): is it a gapgrid that mypy checks clean?"
                           ) from None
    finally:
        if searched is not None:
            os.environ["MYPYPATH"] = searched
    try:
        distribution = Distribution({"name": "gapgrid-compiled", "ext_modules": extensions})
        command = distribution.get_command_obj("build_ext")
        command.build_lib = str(work / "lib")
        command.build_temp = str(work / "temp")
        distribution.run_command("build_ext")
    except (Exception, SystemExit) as error:  # a compiler that fails, headers missing
        raise CompileError(f"the build failed: {type(error).__name__}: {error}; a C "
                           f"compiler and Python's headers are needed (Debian: apt-get "
                           f"install gcc python3-dev)") from None
    # The old manifest first, the new one last: until it is written the extension modules
    # do not match it and are not used (core.compiled_sources), whatever is in place.
    (root / "core" / MANIFEST).unlink(missing_ok=True)
    lib = work / "lib"
    built = sorted((path for path in lib.rglob("*") if path.is_file()),
                   key=lambda path: path.parent != lib)  # the shared library first
    placed = []
    for path in built:
        target = root.parent / path.relative_to(lib)
        _replace(target, path.read_bytes())
        placed.append(target)
    # The digest of what was compiled (the copy): sources changed meanwhile do not match.
    manifest = {"sources": sources_digest(source / "core")}
    _replace(root / "core" / MANIFEST, json.dumps(manifest).encode())
    placed.append(root / "core" / MANIFEST)
    return placed


def _replace(target: Path, content: bytes) -> None:
    """Write ``content`` to ``target`` whole: to a file of its own beside it (two builds at
    once do not share one), renamed into place."""
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                         suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(content)
        os.chmod(temporary, 0o644)  # mkstemp's are the owner's alone
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def remove(root: Path) -> list[Path]:
    """Take a build's files out of the package at ``root``; return them."""
    files = built_files(root)
    for path in files:
        path.unlink()
    return files


@click.group(context_settings=HELP_OPTIONS)
def main() -> None:
    """Compile the solver's hot modules with mypyc, for long studies (see the module's doc)."""


@main.command("build")
def build_command() -> None:
    """Compile them into this installed gapgrid."""
    root = package_root()
    try:
        check_installed(root)
        with tempfile.TemporaryDirectory(prefix="gapgrid-compiled-") as work:
            placed = build(root, Path(work), lambda text: click.echo(f"gapgrid: {text}",
                                                                        err=True))
    except CompileError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"gapgrid: {len(placed)} files put in {root.parent}; gapgrid solve, hint and "
               f"study run the compiled search from now on (python -m gapgrid.api.compiled "
               f"remove undoes it)", err=True)


@main.command("status")
def status_command() -> None:
    """Say which of them this Python runs compiled."""
    running = compiled_modules()
    stale = stale_modules(package_root() / "core")
    if running:
        click.echo(f"compiled (mypyc): {', '.join(running)}")
    else:
        click.echo("not compiled: gapgrid runs as pure Python")
    if stale:
        click.echo(f"a build that does not match the sources, so not used: "
                   f"{', '.join(stale)} (build again, or remove it)")


@main.command("remove")
def remove_command() -> None:
    """Take the compiled modules out of this installed gapgrid."""
    root = package_root()
    try:
        check_installed(root)
    except CompileError as error:
        raise click.ClickException(str(error)) from None
    removed = remove(root)
    click.echo(f"gapgrid: {len(removed)} compiled files removed" if removed
               else "gapgrid: nothing compiled to remove", err=True)


if __name__ == "__main__":
    sys.exit(main())
