"""Settings from the environment: the secret is never public, and every value is checked."""

from __future__ import annotations

import concurrent.futures
import stat
from pathlib import Path

import pytest

from gapgrid.api.config import DEVELOPMENT_SECRET, SECRET_FILE, ConfigError, Settings


def test_the_first_start_generates_a_private_secret(tmp_path: Path) -> None:
    """Without GAPGRID_SECRET_KEY, the first start writes a random secret readable by its owner
    only, and every later reading of the settings gets the same one."""
    instance = tmp_path / "fresh"
    first = Settings.from_environment({"GAPGRID_INSTANCE": str(instance)}, create_secret=True)
    path = instance / SECRET_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(first.secret_key) >= 40 and first.secret_key != DEVELOPMENT_SECRET
    assert Settings.from_environment({"GAPGRID_INSTANCE": str(instance)}).secret_key == (
        first.secret_key)
    assert sorted(item.name for item in instance.iterdir()) == [SECRET_FILE]  # no leftovers
    other = Settings.from_environment({"GAPGRID_INSTANCE": str(tmp_path / "other")},
                                      create_secret=True)
    assert other.secret_key != first.secret_key
    assert "secret" not in repr(first).lower().replace("secret_key", "")


def test_servers_starting_together_agree_on_one_secret(tmp_path: Path) -> None:
    """Eight processes creating the secret of one fresh folder at once all read the same one
    (written once, atomically: nobody reads half a file or overwrites another's)."""
    instance = str(tmp_path / "race")
    with concurrent.futures.ProcessPoolExecutor(max_workers=8) as pool:
        secrets = set(pool.map(_start, [instance] * 8))
    assert len(secrets) == 1


def _start(instance: str) -> str:
    return Settings.from_environment({"GAPGRID_INSTANCE": instance},
                                     create_secret=True).secret_key


def test_without_a_secret_commands_do_not_invent_one(tmp_path: Path) -> None:
    """Reading the settings (gapgrid daily, other tools) never creates the secret: it says
    where it is missing and that `gapgrid serve` makes it."""
    with pytest.raises(ConfigError, match="gapgrid serve"):
        Settings.from_environment({"GAPGRID_INSTANCE": str(tmp_path / "none")})
    assert not (tmp_path / "none").exists()


def test_the_published_development_secret_is_refused(tmp_path: Path) -> None:
    """gapgrid 0.1.0's development secret is public: a server refuses to sign with it."""
    with pytest.raises(ConfigError, match="GAPGRID_SECRET_KEY"):
        Settings.from_environment({"GAPGRID_SECRET_KEY": DEVELOPMENT_SECRET,
                                   "GAPGRID_INSTANCE": str(tmp_path)})


@pytest.mark.parametrize(("secret", "words"), [
    ("\udcff", "GAPGRID_SECRET_KEY is not UTF-8 text"),  # the byte 0xff a shell passed
    ("x" * 4097, "GAPGRID_SECRET_KEY has 4,097 bytes: at most 4,096"),
    ("hunter2", "GAPGRID_SECRET_KEY has 7 bytes: at least 16"),  # a token would give it away
    ("s", "GAPGRID_SECRET_KEY has 1 byte: at least 16"),
])
def test_a_secret_variable_that_cannot_sign_is_refused(tmp_path: Path, secret: str,
                                                       words: str) -> None:
    """A secret that is not UTF-8 text was taken, then made every token's signature an
    internal error; one larger than a secret file may be is refused as that file is; one
    so short that trying every secret against a token would find it is refused."""
    with pytest.raises(ConfigError, match=words):
        Settings.from_environment({"GAPGRID_SECRET_KEY": secret,
                                   "GAPGRID_INSTANCE": str(tmp_path)})


def test_a_secret_file_that_is_not_one_is_refused(tmp_path: Path) -> None:
    """An empty, huge or short secret file is refused by name, and never read whole."""
    (tmp_path / SECRET_FILE).write_text("")
    with pytest.raises(ConfigError, match="does not hold a secret"):
        Settings.from_environment({"GAPGRID_INSTANCE": str(tmp_path)})
    (tmp_path / SECRET_FILE).write_bytes(b"x" * 10_000_000)
    with pytest.raises(ConfigError, match="does not hold a secret"):
        Settings.from_environment({"GAPGRID_INSTANCE": str(tmp_path)})
    for short in (b"hunter2\n", b"\xff" * 6):  # six bytes read as six U+FFFD were 18
        (tmp_path / SECRET_FILE).write_bytes(short)
        with pytest.raises(ConfigError, match="holds a secret of fewer than 16 bytes"):
            Settings.from_environment({"GAPGRID_INSTANCE": str(tmp_path)})


def test_an_instance_path_through_a_file_is_refused_in_words(tmp_path: Path) -> None:
    """GAPGRID_INSTANCE naming a file (or a folder under one) says so."""
    (tmp_path / "file").write_text("x")
    for instance in (tmp_path / "file", tmp_path / "file" / "sub"):
        with pytest.raises(ConfigError, match="is a file, not a folder"):
            Settings.from_environment({"GAPGRID_INSTANCE": str(instance)}, create_secret=True)


@pytest.mark.parametrize(("variable", "value"), [
    ("GAPGRID_LIMIT_READS", "lots"), ("GAPGRID_LIMIT_WRITES", "5 per fortnight"),
    ("GAPGRID_CORS_ORIGINS", "app.example"), ("GAPGRID_CORS_ORIGINS", "https://a.example/path"),
    ("GAPGRID_CONNECTION_LIMIT", "0"), ("GAPGRID_MAX_HEADER", "16k"),
    ("GAPGRID_REQUEST_TIMEOUT", "99"), ("GAPGRID_TRUSTED_PROXY", "a\tb"),
    ("GAPGRID_TRUSTED_PROXY", "localhost"), ("GAPGRID_TRUSTED_PROXY", "10.0.0.300"),
    ("GAPGRID_LIMIT_READS", "0 per minute"), ("GAPGRID_LIMIT_CHECKS", "10/second;0/hour"),
])
def test_bad_server_settings_are_refused_by_name(variable: str, value: str) -> None:
    """A server setting that cannot be used names its variable (the request timeout must not
    exceed the idle timeout, 30 s by default). A proxy named by host name never equals the
    address a request comes from, and a rate of 0 refuses every request: both were taken,
    and the server then limited every client behind the proxy as one, or answered 429 to
    everything."""
    with pytest.raises(ConfigError, match=variable):
        Settings.from_environment({variable: value, "GAPGRID_SECRET_KEY": "test-secret-16-b"})


@pytest.mark.parametrize("value", ["0", "99999999999999999999999", "\u0661\u0662", "-5"])
def test_a_count_setting_says_which_numbers_it_takes(value: str) -> None:
    """A whole number past the 12 digits read was told it was not a positive whole number:
    the message gives the range instead."""
    with pytest.raises(ConfigError, match=r"GAPGRID_MAX_MOVES must be a whole number from 1 to "
                                          r"999,999,999,999, not "):
        Settings.from_environment({"GAPGRID_MAX_MOVES": value,
                                   "GAPGRID_SECRET_KEY": "test-secret-16-b"})


def test_server_settings_are_read() -> None:
    """Origins, limits (or off), timeouts and the proxy are read as written."""
    settings = Settings.from_environment({
        "GAPGRID_SECRET_KEY": "test-secret-16-b",
        "GAPGRID_CORS_ORIGINS": "https://a.example, http://b:8080/",
        "GAPGRID_LIMIT_WRITES": "off", "GAPGRID_LIMIT_CHECKS": "10/second;300/hour",
        "GAPGRID_REQUEST_TIMEOUT": "5", "GAPGRID_IDLE_TIMEOUT": "60",
        "GAPGRID_TRUSTED_PROXY": " 10.0.0.1 ", "GAPGRID_CONNECTION_LIMIT": "300"})
    assert settings.cors_origins == ("https://a.example", "http://b:8080")
    assert (settings.limit_writes, settings.limit_checks) == (None, "10/second;300/hour")
    assert (settings.request_timeout, settings.idle_timeout) == (5, 60)
    assert (settings.trusted_proxy, settings.connection_limit) == ("10.0.0.1", 300)
    defaults = Settings.from_environment({"GAPGRID_SECRET_KEY": "test-secret-16-b"})
    assert (defaults.limit_reads, defaults.limit_checks, defaults.limit_writes) == (
        "3000 per minute", "1200 per minute", "120 per minute")


@pytest.mark.parametrize(("value", "read"), [("::1", "::1"), ("0:0:0:0:0:0:0:1", "::1"),
                                             ("::ffff:127.0.0.1", "127.0.0.1"),
                                             ("*", "*"), ("", None)])
def test_the_trusted_proxy_is_an_address_as_requests_come_from(value: str,
                                                                read: str | None) -> None:
    """An IPv6 address is read in the form a request's address has (compressed, and an
    IPv4-mapped one as the IPv4 address a peer is seen as); ``*`` trusts any peer, nothing
    trusts none."""
    settings = Settings.from_environment({"GAPGRID_SECRET_KEY": "test-secret-16-b",
                                          "GAPGRID_TRUSTED_PROXY": value})
    assert settings.trusted_proxy == read
