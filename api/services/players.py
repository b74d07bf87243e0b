"""Players own their names: registering a name, and checking a player's token.

The first submission under a name, or ``POST /v1/players``, registers the
name and answers with the player's token, once; from then on starts and
submissions under that name (any spelling with the same key, see
:mod:`gapgrid.api.names`) must carry it. A request without it is refused
as unauthenticated (401), one with another token as forbidden (403).

Tokens are 32 random bytes (:func:`secrets.token_urlsafe`), and only their
SHA-256 is stored. A fast hash is enough here, unlike for passwords: a
token has 256 bits of entropy, so nobody who reads the database can find a
token from its digest by trying candidates, however fast each try is; a
slow hash (bcrypt, scrypt) only defends low-entropy secrets chosen by
people, and would cost every submission its CPU time.

A name registered by the upgrade of an older database (submitted before
names had owners) has no token yet: the first request under it that would
register a new name claims it instead, and gets a token.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Final

import attrs

from gapgrid.api.names import name_problem, player_key, shown_name
from gapgrid.api.services.errors import Fault, ServiceError, invalid
from gapgrid.api.store import PlayerClaim, Store

TOKEN_BYTES: Final = 32
"""Random bytes in a player token: 43 characters of URL-safe base64."""


def new_token() -> str:
    """A fresh player token."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_digest(token: str) -> str:
    """What is stored of a player token: its SHA-256 in hex (see the module docstring)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@attrs.frozen
class Identity:
    """Who a request acts for, once its name and token are checked."""

    key: str
    name: str
    """As first registered (or as given now, for a name being registered)."""

    claim: PlayerClaim | None
    """The registration to store with the request's effect (None: the name is the
    player's already)."""

    token: str | None
    """The new token that ``claim`` registers, to give the player once."""


def checked_name(name: str, max_length: int) -> str:
    """``name`` as it will be shown, or a refusal saying what is wrong with it."""
    problem = name_problem(name, max_length)
    if problem is not None:
        raise invalid(f"the player name {problem}", "player")
    return shown_name(name)


def identify(store: Store, name: str, token: str | None, *, max_length: int, now: str,
             register: bool = True) -> Identity:
    """Check that ``token`` (the bearer token sent, if any) is the player's for ``name``.

    A name nobody owns needs no token: with ``register`` it is registered for
    the caller (a new token, returned in the identity); without, the caller
    acts under it unregistered. A token sent for a name nobody owns is
    ignored (a browser may keep one from a database since reset).
    """
    shown = checked_name(name, max_length)
    key = player_key(shown)
    player = store.player(key)
    if player is None or player.token_digest is None:
        if not register:
            return Identity(key, shown if player is None else player.name, None, None)
        return _registration(key, shown if player is None else player.name, now)
    if token is None:
        raise unauthenticated(player.name)
    if not hmac.compare_digest(token_digest(token), player.token_digest):
        raise ServiceError(f"the token sent is not {player.name}'s: send the player token "
                           f"that the request registering this name answered with (its first "
                           f"submission, or POST /v1/players)",
                           fault=Fault.FORBIDDEN, field=("player",), title="Forbidden")
    return Identity(key, player.name, None, None)


def registration_to_check(name: str, *, max_length: int, now: str) -> Identity:
    """For a request without a token: the registration of ``name`` with a new token, to be
    stored with the request's effect without looking the name up first.

    Storing it checks it (:meth:`gapgrid.api.store.Store.submit` claims the name in
    the same transaction): a name a player owns raises
    :class:`~gapgrid.api.store.NameTaken` there, which :func:`identify` then turns
    into its refusal, and a name registered without a token by an upgrade is
    claimed, under its stored spelling. The same outcome as :func:`identify`,
    one database read fewer for the usual case of a new or unowned name.
    """
    shown = checked_name(name, max_length)
    return _registration(player_key(shown), shown, now)


def register(store: Store, name: str, *, max_length: int, now: str) -> Identity:
    """The registration of ``name`` with a new token, to be stored; a refusal (409) when a
    player owns the name already."""
    shown = checked_name(name, max_length)
    key = player_key(shown)
    player = store.player(key)
    if player is not None and player.token_digest is not None:
        raise taken(player.name)
    return _registration(key, shown if player is None else player.name, now)


def _registration(key: str, name: str, now: str) -> Identity:
    fresh = new_token()
    return Identity(key, name, PlayerClaim(key, name, token_digest(fresh), now), fresh)


def taken(name: str) -> ServiceError:
    """The refusal of a registration of a name a player owns."""
    return ServiceError(f"the name {name} belongs to a player already: choose another name, "
                        f"or send that player's token to play under it",
                        fault=Fault.CONFLICT, field=("player",), title="Name taken")


def unauthenticated(name: str) -> ServiceError:
    """The refusal of a request under a registered name that came without a token."""
    return ServiceError(f"the name {name} belongs to a player: send that player's token "
                        f"(Authorization: Bearer ...), which the request that registered the name "
                        f"answered with (its first submission, or POST /v1/players), or "
                        f"choose another name",
                        fault=Fault.UNAUTHENTICATED, field=("player",),
                        title="Unauthorized")
