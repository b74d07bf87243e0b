"""The PostgreSQL the tests start: found where Debian puts it, and never silently skipped in
CI (``.ci/run`` sets ``GAPGRID_REQUIRE_POSTGRES``)."""

from __future__ import annotations

import glob

import pytest

from tests import postgres


def test_without_postgresql_ci_fails_and_elsewhere_the_tests_skip(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """In CI (CI or GAPGRID_REQUIRE_POSTGRES set) a missing PostgreSQL is a failure that
    names the fix; without either, a skip with the same reason."""
    for name in postgres.REQUIRE:
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install postgresql"):
        postgres.missing(f"no PostgreSQL: {postgres.INSTALL_HINT}")
    monkeypatch.setenv("GAPGRID_REQUIRE_POSTGRES", "1")
    with pytest.raises(pytest.fail.Exception, match="must run"):
        postgres.missing(f"no PostgreSQL: {postgres.INSTALL_HINT}")
    monkeypatch.delenv("GAPGRID_REQUIRE_POSTGRES")
    monkeypatch.setenv("CI", "true")
    assert postgres.required()


def test_debian_s_binaries_are_found_off_the_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Debian installs initdb and pg_ctl in /usr/lib/postgresql/<version>/bin, off PATH:
    they are found there too."""
    installed = glob.glob("/usr/lib/postgresql/*/bin/pg_ctl")
    if not installed:
        postgres.missing(f"no Debian PostgreSQL package: {postgres.INSTALL_HINT}")
    monkeypatch.setenv("PATH", "/nonexistent")
    found = postgres.binaries()
    assert found is not None and (found / "pg_ctl").exists() and (found / "initdb").exists()
    assert str(found).startswith("/usr/lib/postgresql/")
