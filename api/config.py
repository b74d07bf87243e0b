"""The web service's settings, read from the environment with safe defaults.

| variable | default | what |
|---|---|---|
| ``GAPGRID_INSTANCE`` | ``./instance`` | database and secret folder, made on first start |
| ``GAPGRID_DATABASE`` | ``<instance>/gapgrid.sqlite3`` | SQLite file or ``postgresql://`` URL |
| ``GAPGRID_SECRET_KEY`` | ``<instance>/secret_key`` | signs tokens, chooses puzzles |
| ``GAPGRID_FIRST_DAY`` | ``2026-01-01`` | the first day with a daily puzzle |
| ``GAPGRID_MAX_BODY`` | ``262144`` | largest request body, in bytes |
| ``GAPGRID_MAX_HEADER`` | ``16384`` | largest request line and headers, in bytes |
| ``GAPGRID_MAX_MOVES`` | ``5000`` | most moves in one request (and one command) |
| ``GAPGRID_RANKING`` | ``par`` | the scoring scheme leaderboards rank by |
| ``GAPGRID_CERTIFY_SECONDS`` | ``20`` | search one request may spend making a puzzle (0: none) |
| ``GAPGRID_CORS_ORIGINS`` | none | origins allowed to start puzzles, submit and register players |
| ``GAPGRID_LIMIT_READS`` | ``3000 per minute`` | GET requests per client |
| ``GAPGRID_LIMIT_CHECKS`` | ``1200 per minute`` | verify, moves and hint requests per client |
| ``GAPGRID_LIMIT_WRITES`` | ``120 per minute`` | starts, submissions, registrations per client |
| ``GAPGRID_LIMIT_STORAGE`` | ``memory://`` | where the rate-limit counters live |
| ``GAPGRID_CONNECTION_LIMIT`` | ``1000`` | open connections one server process accepts |
| ``GAPGRID_REQUEST_TIMEOUT`` | ``10`` | seconds from a request's first byte to its last |
| ``GAPGRID_IDLE_TIMEOUT`` | ``30`` | seconds a connection may wait between requests |
| ``GAPGRID_TRUSTED_PROXY`` | none | the proxy's IP address (or ``*``), whose forwarding counts |

Without ``GAPGRID_SECRET_KEY``, the first start (``gapgrid serve``, or
``create_app()`` with no settings) generates a random secret and keeps it in
``<instance>/secret_key``, readable by its owner only; later starts, and
commands such as ``gapgrid daily``, read it from there. There is no
built-in secret: one that is published would let anyone forge start tokens
and compute tomorrow's puzzles. A secret given is at least
:data:`MIN_SECRET_BYTES` long, so that no one can find it from a token by trying them all.

Whether the ranking scheme exists depends on the plugins loaded, so the app
factory checks it (:func:`gapgrid.api.services.puzzles.check_ranking`).
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import attrs

from gapgrid.api.reading import read_at_most
from gapgrid.api.text import plural

DEVELOPMENT_SECRET: Final = "gapgrid-development-secret-change-me"
"""The secret gapgrid 0.1.0 used when none was set. It is public, so it is refused."""

SECRET_FILE: Final = "secret_key"
"""The file in the instance folder that keeps a generated secret."""

MAX_SECRET_BYTES: Final = 4096
"""A secret file longer than this is not one gapgrid wrote: refused, never read whole."""

MIN_SECRET_BYTES: Final = 16
"""A shorter secret is refused: every start token is signed with it, so anyone holding one
could find a short secret by trying them all, then forge tokens and foresee the puzzles. (A
generated secret has 64 characters.)"""

OFF: Final = "off"
"""The value that turns a rate limit off."""

DEFAULT_MAX_MOVES: Final = 5000


MAX_CERTIFY_SECONDS: Final = 600.0
"""The most search GAPGRID_CERTIFY_SECONDS may give one request: ten minutes."""


class ConfigError(ValueError):
    """Raised for a setting that cannot be used, naming the variable."""


@attrs.frozen
class Settings:
    """Everything the service is configured with."""

    instance: Path
    database: Path | str
    """A SQLite file, or a PostgreSQL URL (``postgresql://...``)."""

    secret_key: str = attrs.field(repr=False)  # never in a log or a traceback
    first_day: datetime.date
    max_body: int = 256 * 1024
    max_moves: int = DEFAULT_MAX_MOVES
    max_player_length: int = 32
    token_max_age: int = 2 * 24 * 3600
    """Seconds a start token stays valid."""

    ranking: str = "par"
    """The scoring scheme leaderboards rank by."""

    certify_seconds: float = 20.0
    """Seconds of search a request may spend making (and certifying) a missing puzzle; 0
    makes missing puzzles without a search, uncertified (prepare them ahead instead)."""

    max_header: int = 16 * 1024
    """Largest request line plus headers, in bytes (waitress answers 431 above it)."""

    cors_origins: tuple[str, ...] = ()
    """Origins allowed to start puzzles and submit from a browser; reads, verify, moves
    and hint are open to every origin."""

    limit_reads: str | None = "3000 per minute"
    """Rate limit per client on GET requests (None: no limit)."""

    limit_checks: str | None = "1200 per minute"
    """Rate limit per client on verify, moves and hint (None: no limit)."""

    limit_writes: str | None = "120 per minute"
    """Rate limit per client on starts and submissions (None: no limit)."""

    limit_storage: str = "memory://"
    """Where rate-limit counters live: memory (one process) or a shared storage URI
    (``redis://host:6379``) so that several processes count together."""

    connection_limit: int = 1000
    """Open connections one server process accepts before it stops accepting."""

    request_timeout: int = 10
    """Seconds a request may take to arrive, from its first byte to its last."""

    idle_timeout: int = 30
    """Seconds a connection may wait for its next request before it is closed."""

    trusted_proxy: str | None = None
    """Address of the reverse proxy whose X-Forwarded-For names the client."""

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None, *,
                         create_secret: bool = False) -> Settings:
        """Read the settings from ``environ`` (the process environment by default).

        Without ``GAPGRID_SECRET_KEY`` the secret is read from the instance
        folder; ``create_secret`` (a server's first start) generates it there
        when it is missing, creating the folder too. Anything unusable raises
        :class:`ConfigError` naming the variable or the file.
        """
        env = os.environ if environ is None else environ
        instance = Path(env.get("GAPGRID_INSTANCE") or Path.cwd() / "instance")
        database = database_from_environment(env)
        request_timeout = _positive(env, "GAPGRID_REQUEST_TIMEOUT", 10)
        idle_timeout = _positive(env, "GAPGRID_IDLE_TIMEOUT", 30)
        if request_timeout > idle_timeout:
            raise ConfigError(f"GAPGRID_REQUEST_TIMEOUT ({request_timeout}) must not exceed "
                              f"GAPGRID_IDLE_TIMEOUT ({idle_timeout})")
        settings = cls(
            instance=instance, database=database, secret_key="unread",
            first_day=first_day_from_environment(env),
            max_body=_positive(env, "GAPGRID_MAX_BODY", 256 * 1024),
            max_header=_positive(env, "GAPGRID_MAX_HEADER", 16 * 1024),
            max_moves=_positive(env, "GAPGRID_MAX_MOVES", DEFAULT_MAX_MOVES),
            ranking=_name(env, "GAPGRID_RANKING", "par"),
            certify_seconds=_seconds(env, "GAPGRID_CERTIFY_SECONDS", 20.0,
                                     MAX_CERTIFY_SECONDS),
            cors_origins=_origins(env, "GAPGRID_CORS_ORIGINS"),
            limit_reads=_rate(env, "GAPGRID_LIMIT_READS", "3000 per minute"),
            limit_checks=_rate(env, "GAPGRID_LIMIT_CHECKS", "1200 per minute"),
            limit_writes=_rate(env, "GAPGRID_LIMIT_WRITES", "120 per minute"),
            limit_storage=_printable(env, "GAPGRID_LIMIT_STORAGE", "memory://"),
            connection_limit=_positive(env, "GAPGRID_CONNECTION_LIMIT", 1000),
            request_timeout=request_timeout, idle_timeout=idle_timeout,
            trusted_proxy=_proxy_address(env, "GAPGRID_TRUSTED_PROXY"),
        )
        # The secret last, so that a bad value elsewhere is reported first and no file
        # is written for a configuration that is refused anyway.
        secret = _secret_from(env) or instance_secret(instance, create=create_secret)
        if secret == DEVELOPMENT_SECRET:
            raise ConfigError("GAPGRID_SECRET_KEY is the development secret gapgrid 0.1.0 "
                              "published, so anyone could forge tokens with it: set another "
                              "one, or unset it to have a random one generated")
        return attrs.evolve(settings, secret_key=secret)


def _secret_from(env: Mapping[str, str]) -> str:
    """``GAPGRID_SECRET_KEY``, or "" when unset: text the tokens' signatures can be made
    with (UTF-8: bytes a shell passed that are not are refused here, not at the first
    token), of at most :data:`MAX_SECRET_BYTES`, as the secret file."""
    secret = env.get("GAPGRID_SECRET_KEY", "")
    try:
        size = len(secret.encode("utf-8"))
    except UnicodeEncodeError:
        raise ConfigError("GAPGRID_SECRET_KEY is not UTF-8 text: set it to letters, digits "
                          "and punctuation, or unset it to have a random one "
                          "generated") from None
    if size > MAX_SECRET_BYTES:
        raise ConfigError(f"GAPGRID_SECRET_KEY has {size:,} bytes: at most "
                          f"{MAX_SECRET_BYTES:,}")
    if 0 < size < MIN_SECRET_BYTES:
        raise ConfigError(f"GAPGRID_SECRET_KEY has {plural(size, 'byte')}: at least "
                          f"{MIN_SECRET_BYTES}, or a start token would give it away (unset it "
                          f"to have a random one generated)")
    return secret


def database_from_environment(environ: Mapping[str, str] | None = None) -> Path | str:
    """``GAPGRID_DATABASE``: a SQLite file (``<instance>/gapgrid.sqlite3`` by default) or
    a ``postgresql://`` URL, kept as text; another kind of URL is refused."""
    env = os.environ if environ is None else environ
    value = env.get("GAPGRID_DATABASE", "")
    if "://" in value:
        scheme = value.split("://", 1)[0]
        if scheme not in ("postgresql", "postgresql+psycopg", "postgres"):
            raise ConfigError(f"GAPGRID_DATABASE must be a file path or a postgresql:// URL, "
                              f"not a {scheme[:20]}:// URL")
        from gapgrid.api.db.engine import DatabaseURLError, url_of  # SQLAlchemy: only now
        try:
            url_of(value)
        except DatabaseURLError as error:
            raise ConfigError(f"GAPGRID_DATABASE: {error}") from None
        return value
    instance = Path(env.get("GAPGRID_INSTANCE") or Path.cwd() / "instance")
    return Path(value or instance / "gapgrid.sqlite3")


def unusable_database(settings: Settings, error: BaseException) -> ConfigError:
    """The one-line reason why the instance folder or the database cannot be used, from
    the error opening it raised (a full disk, a read-only folder, a device, a folder where
    the file should be, a PostgreSQL server that does not answer): the environment's
    fault, not a bug to report."""
    if isinstance(settings.database, str):
        from gapgrid.api.db.engine import describe  # SQLAlchemy only when it is needed
        return ConfigError(f"cannot open the database {describe(settings.database)} "
                           f"(GAPGRID_DATABASE): {driver_reason(error)}")
    error = getattr(error, "orig", None) or error  # the driver's own error, not SQLAlchemy's
    path = settings.database
    if isinstance(error, OSError) and error.filename and Path(error.filename) != path:
        folder = Path(error.filename)
        in_the_way = _file_among(folder)
        why = f"{in_the_way} is a file, not a folder" if in_the_way else _why(error)
        if path.parent != settings.instance and folder in (path.parent, *path.parent.parents):
            return ConfigError(f"cannot use the folder {folder} for the database {path} "
                               f"(GAPGRID_DATABASE): {why}")
        return ConfigError(f"cannot use the instance folder {folder} (GAPGRID_INSTANCE): "
                           f"{why}")
    with contextlib.suppress(OSError):  # a name too long to look at: the reason below says so
        if path.exists() and not path.is_file():
            kind = "a folder" if path.is_dir() else "not a regular file"
            return ConfigError(f"cannot use {path} as the database (GAPGRID_DATABASE): it is "
                               f"{kind}")
    reason = _why(error) if isinstance(error, OSError) else str(error)
    return ConfigError(f"cannot open the database {path} (GAPGRID_DATABASE): {reason[:200]}")


def driver_reason(error: BaseException) -> str:
    """A database error's reason in one short line: the driver's own message (SQLAlchemy's
    adds the SQL and its parameters on further lines), at most 200 characters."""
    driver = getattr(error, "orig", None) or error
    return (str(driver).strip().splitlines() or [type(driver).__name__])[0][:200]


def first_day_from_environment(environ: Mapping[str, str] | None = None) -> datetime.date:
    """``GAPGRID_FIRST_DAY`` alone (the first day with a puzzle), for a command that checks
    its dates before it makes an instance."""
    env = os.environ if environ is None else environ
    return _date(env, "GAPGRID_FIRST_DAY", "2026-01-01")


def max_moves_from_environment(environ: Mapping[str, str] | None = None) -> int:
    """``GAPGRID_MAX_MOVES`` alone, for commands that need no instance and no secret."""
    env = os.environ if environ is None else environ
    return _positive(env, "GAPGRID_MAX_MOVES", DEFAULT_MAX_MOVES)


def instance_secret(instance: Path, *, create: bool) -> str:
    """The secret kept in ``instance``; with ``create``, generated there when missing.

    A new secret is written to a private temporary file (mode 0600, synced)
    and then linked to its name, which fails if the name exists: so two
    servers starting at once on a fresh folder end up with the same secret,
    whichever wrote it, and nobody ever reads a half-written one.
    """
    path = instance / SECRET_FILE
    _check_folder(instance, "GAPGRID_INSTANCE")
    try:
        return _read_secret(path)
    except FileNotFoundError:
        if not create:
            raise ConfigError(f"no secret: GAPGRID_SECRET_KEY is not set and {path} does not "
                              f"exist; `gapgrid serve` creates it on its first start, or set "
                              f"GAPGRID_INSTANCE to the folder of a server that has run"
                              ) from None
    except OSError as error:
        raise ConfigError(f"cannot read the secret {path}: {_why(error)}") from None
    try:
        instance.mkdir(parents=True, exist_ok=True)
        _write_new_secret(path, secrets.token_urlsafe(48))
        return _read_secret(path)
    except OSError as error:
        raise ConfigError(f"cannot keep a secret in the instance folder {instance}: "
                          f"{_why(error)}") from None


def _check_folder(folder: Path, variable: str) -> None:
    """Refuse a folder path that is, or runs through, something other than a folder."""
    in_the_way = _file_among(folder)
    if in_the_way is not None:
        raise ConfigError(f"cannot use {folder} as the instance folder ({variable}): "
                          f"{in_the_way} is a file, not a folder")


def _read_secret(path: Path) -> str:
    data = read_at_most(path, MAX_SECRET_BYTES + 1)
    text = data.decode("utf-8", errors="replace").strip()
    if not text or len(data) > MAX_SECRET_BYTES:
        raise ConfigError(f"{path} does not hold a secret (it is empty or over "
                          f"{MAX_SECRET_BYTES} bytes); delete it to have a new one generated")
    if len(data.strip()) < MIN_SECRET_BYTES:  # the bytes: undecodable ones read alike
        raise ConfigError(f"{path} holds a secret of fewer than {MIN_SECRET_BYTES} bytes, which "
                          f"a start token would give away; delete it to have a new one "
                          f"generated")
    return text


def _write_new_secret(path: Path, secret: str) -> None:
    """Write ``secret`` to ``path`` unless a secret is there already (then keep that one)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(secret + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileExistsError):  # another process was first: theirs counts
            os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)  # the new name survives a crash, like the file's content
    finally:
        os.close(folder)


def _file_among(folder: Path) -> Path | None:
    """The nearest of ``folder`` and its parents that exists, if it is not a folder: what
    stops the folder being made (the system says only "File exists" or "Not a folder")."""
    for part in (folder, *folder.parents):
        try:
            if part.exists():
                return None if part.is_dir() else part
        except OSError:  # not even looked at (no permission, a name too long): the system's
            return None  # reason, given when the folder is used, says it
    return None


def _why(error: OSError) -> str:
    return error.strerror or str(error)


def _positive(env: Mapping[str, str], name: str, default: int) -> int:
    text = env.get(name)
    if not text:
        return default
    if not (text.isascii() and text.isdigit()) or len(text) > 12 or int(text) == 0:
        raise ConfigError(f"{name} must be a whole number from 1 to {10 ** 12 - 1:,}, not "
                          f"{text[:40]!r}")
    return int(text)


def _seconds(env: Mapping[str, str], name: str, default: float, maximum: float) -> float:
    text = env.get(name)
    if not text:
        return default
    try:
        value = float(text) if text.isascii() and len(text) <= 12 else -1.0
    except ValueError:
        value = -1.0
    if not 0 <= value <= maximum:  # NaN fails this too
        raise ConfigError(f"{name} must be a number of seconds from 0 to {maximum:g}, not "
                          f"{text[:40]!r}")
    return value


def _date(env: Mapping[str, str], name: str, default: str) -> datetime.date:
    text = env.get(name) or default
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"{name} must be a date like 2026-01-01, not {text[:40]!r}") from None


def _name(env: Mapping[str, str], name: str, default: str) -> str:
    text = (env.get(name) or "").strip() or default
    if not (text.isascii() and text.isprintable()) or len(text) > 64:
        raise ConfigError(f"{name} must name a scoring scheme, not {text[:80]!r}")
    return text


def _printable(env: Mapping[str, str], name: str, default: str) -> str:
    text = (env.get(name) or "").strip() or default
    if not (text.isascii() and text.isprintable()) or len(text) > 1000:
        raise ConfigError(f"{name} must be printable ASCII, not {text[:80]!r}")
    return text


def _origins(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    """Comma-separated origins, each ``scheme://host[:port]`` with nothing after it."""
    origins = []
    for origin in (part.strip().rstrip("/") for part in env.get(name, "").split(",")):
        if not origin:
            continue
        scheme, separator, host = origin.partition("://")
        if (scheme not in ("http", "https") or not separator or not host or "/" in host
                or not (origin.isascii() and origin.isprintable()) or " " in origin):
            raise ConfigError(f"{name} must list origins like https://app.example "
                              f"(comma-separated), not {origin[:80]!r}")
        origins.append(origin)
    return tuple(origins)


def _rate(env: Mapping[str, str], name: str, default: str) -> str | None:
    """A rate limit such as ``600 per minute`` or ``10/second;300/hour``, or off."""
    text = (env.get(name) or "").strip() or default
    if text.lower() == OFF:
        return None
    from limits import parse_many  # Flask-Limiter's parser: the strings it will be given

    try:
        if not (text.isascii() and text.isprintable()) or len(text) > 200:
            raise ValueError(text)
        rates = parse_many(text)
        if not rates:
            raise ValueError(text)
    except ValueError:
        raise ConfigError(f"{name} must be a rate such as '600 per minute' or "
                          f"'10/second;300/hour', or 'off', not {text[:80]!r}") from None
    if any(rate.amount < 1 for rate in rates):
        raise ConfigError(f"{name} allows no request at all ({text[:80]!r}); to turn the "
                          f"limit off, set it to 'off'")
    return text


def _proxy_address(env: Mapping[str, str], name: str) -> str | None:
    """The reverse proxy's IP address (``127.0.0.1``, ``::1``), ``*`` for any, or none. The
    server compares it with the address each request comes from, so a host name, which
    never equals one, is refused rather than silently trusting nobody."""
    text = (env.get(name) or "").strip()
    if not text or text == "*":
        return text or None
    try:
        address = ipaddress.ip_address(text)
        # an IPv4 peer is seen as IPv4, never as ::ffff:127.0.0.1 (which reads ::ffff:7f00:1)
        mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
        return str(mapped or address)
    except ValueError:
        raise ConfigError(f"{name} must be the proxy's IP address (such as 127.0.0.1 or ::1) "
                          f"or '*', not {text[:80]!r}: requests are told apart by the "
                          f"address they come from, never by a host name") from None
