"""The one error the service layer raises for a request it cannot carry out.

A use case knows what is wrong and with which part of the request, but not
how the caller asked: the HTTP API answers with a problem document (422 with
a JSON Pointer, 404, 409), the command line with a usage error naming an
argument (exit status 2). So the error carries a :class:`Fault` and the
path of the faulty value, in the request's own field names (``("moves", 3)``
is the fourth move), and each adapter translates it.
"""

from __future__ import annotations

import enum


class Fault(enum.Enum):
    """What kind of fault a request has; each adapter maps it to its own answer."""

    INVALID = "invalid"
    """A value is malformed or refused: bad notation, game 0, an unknown option or scheme."""

    UNKNOWN_VARIANT = "unknown-variant"
    """The variant names nothing (a 404 when it is part of a URL path, else like INVALID)."""

    NOT_FOUND = "not-found"
    """The thing asked for does not exist (a puzzle for a day that is not served)."""

    CONFLICT = "conflict"
    """The request contradicts what is stored (a second, different submission; a closed day)."""

    UNAUTHENTICATED = "unauthenticated"
    """The request acts under a name a player owns, without that player's token (a 401)."""

    FORBIDDEN = "forbidden"
    """The request carries a token that is not the named player's (a 403)."""

    BUSY = "busy"
    """Another request is making what this one asks for (a puzzle being certified), or the
    server has no room for the search right now: try again after ``retry_after`` seconds."""


class ServiceError(Exception):
    """A request a use case refuses, with the reason for people and the faulty field."""

    def __init__(self, message: str, *, fault: Fault = Fault.INVALID,
                 field: tuple[str | int, ...] = (), title: str | None = None,
                 retry_after: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fault = fault
        self.field = field
        """Path of the faulty value in the request (empty: the request as a whole)."""
        self.title = title
        """A short heading for the fault, when the generic one says too little."""
        self.retry_after = retry_after
        """For :attr:`Fault.BUSY`: whole seconds after which trying again makes sense."""


def invalid(message: str, *field: str | int) -> ServiceError:
    """A malformed or refused value at ``field``."""
    return ServiceError(message, fault=Fault.INVALID, field=field)
