"""A real PostgreSQL for the tests, started from the machine's own binaries.

One cluster per test session, in a temporary folder, on a free loopback
port, with ``initdb`` and ``pg_ctl`` found on ``PATH`` or where Debian puts
them (``/usr/lib/postgresql/<version>/bin``); each test that asks for one
gets a database of its own in it. PostgreSQL refuses to run as root, so
under root the cluster runs as the ``postgres`` user (Debian's package makes
it) or ``nobody``.

Where no PostgreSQL is installed the tests that need one skip and say how to
install it, except when ``CI`` or ``GAPGRID_REQUIRE_POSTGRES`` is set (as
``.ci/run`` does): then they fail, so that CI never passes without them.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

from tests.api.live import free_port

REQUIRE: Final = ("CI", "GAPGRID_REQUIRE_POSTGRES")
"""Environment variables that make a missing PostgreSQL a failure instead of a skip."""

INSTALL_HINT: Final = "install it with `apt-get install postgresql`"


def required() -> bool:
    """Whether the environment says PostgreSQL must be there (CI)."""
    return any(os.environ.get(name, "") not in ("", "0", "false") for name in REQUIRE)


def binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, or None."""
    found = shutil.which("pg_ctl")
    if found and shutil.which("initdb"):
        return Path(found).resolve().parent
    # Debian's packages leave them off PATH: take the newest version installed
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
                        key=lambda path: int(Path(path).parent.parent.name)
                        if Path(path).parent.parent.name.isdigit() else 0)
    for pg_ctl in reversed(candidates):
        folder = Path(pg_ctl).parent
        if (folder / "initdb").exists():
            return folder
    return None


def _unprivileged_user() -> str | None:
    """Who runs the cluster when the tests run as root (PostgreSQL refuses root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise RuntimeError("running as root, and there is no postgres or nobody user to run "
                       "PostgreSQL as")


class Cluster:
    """A PostgreSQL cluster in a temporary folder, on a free port, trusting local users."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.bin = folder  # set by start
        self.port = 0
        self._options = ""
        self.user = _unprivileged_user()
        self._names = itertools.count(1)

    def _run(self, *command: str) -> None:
        finished = subprocess.run(command, user=self.user, capture_output=True, text=True,
                                  timeout=120, cwd=self.folder)
        if finished.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{finished.stdout}"
                               f"{finished.stderr}")

    def start(self, binaries: Path, *, durable: bool = False) -> Cluster:
        """initdb and start; the cluster answers on ``self.port`` when this returns.
        Not ``durable`` (the tests): commits are not synced to disk, which no test needs
        (they kill servers, never the machine) and which costs time; benchmarks ask for
        PostgreSQL's defaults."""
        self.bin = binaries
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        self.port = free_port()
        data = self.folder / "data"
        self._run(str(binaries / "initdb"), "-D", str(data), "-U", "gapgrid", "-A", "trust",
                  "-E", "UTF8", "--no-sync")
        options = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
                   "-c max_connections=300")
        if not durable:
            options += " -c fsync=off -c full_page_writes=off"
        self._options = options
        self.resume()
        return self

    def resume(self) -> None:
        """Start the cluster's server (again); it answers when this returns."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-l",
                  str(self.folder / "postgres.log"), "-o", self._options, "-w", "-t", "60",
                  "start")

    def pause(self) -> None:
        """Stop the server as an administrator would (``pg_ctl stop -m fast``): every
        connection is closed by the server, the data stays for :meth:`resume`."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "fast",
                  "-w", "-t", "60", "stop")

    def url(self, database: str = "postgres") -> str:
        """The URL of one of the cluster's databases."""
        return f"postgresql://gapgrid@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A new empty database; its URL."""
        import psycopg  # the tests' only direct use of the driver
        name = f"test_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        """Stop the cluster at once (its data is thrown away)."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m",
                  "immediate", "-w", "stop")


def start_cluster(*, durable: bool = False) -> tuple[Cluster | None, str]:
    """A running cluster, or None and why there is none (``durable``: see
    :meth:`Cluster.start`)."""
    folder = binaries()
    if folder is None:
        return None, f"no PostgreSQL (initdb, pg_ctl) on this machine: {INSTALL_HINT}"
    work = Path(tempfile.mkdtemp(prefix="gapgrid-postgres-"))
    return Cluster(work).start(folder, durable=durable), ""


def missing(why: str) -> None:
    """No PostgreSQL: the tests that need it fail in CI and skip elsewhere, saying why."""
    if required():
        pytest.fail(f"{why} (CI or GAPGRID_REQUIRE_POSTGRES is set: these tests must run)",
                    pytrace=False)
    pytest.skip(why)


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    """One PostgreSQL cluster for the whole session; a skip (or, in CI, a failure) saying
    why when there is none."""
    try:
        cluster, why = start_cluster()
    except (RuntimeError, OSError, subprocess.SubprocessError) as error:
        cluster, why = None, f"PostgreSQL could not be started: {error}"
    if cluster is None:
        missing(why)
    try:
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(cluster.folder, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_cluster: Cluster) -> str:
    """The URL of a new, empty PostgreSQL database for this test."""
    return postgres_cluster.new_database()
