"""Output for terminals that cannot show the board's symbols.

A board is drawn with suit symbols (``♣ ♠ ♥ ♦``), its gaps as ``··``, and the
messages use a few arrows and dashes. A terminal whose encoding has none of
them (Latin-1, a Windows code page: ``PYTHONIOENCODING=latin-1``) made the
first card a crash, "internal error: UnicodeEncodeError". There, each such
character is written as a stand-in the encoding has instead: a suit as the
letter of the card codes (``10D``, the code a move reads too), ``·`` as
``.``, an arrow as ``<-`` or ``->``, and any other as ``?``. A terminal that
can show them (UTF-8) is not touched: the stand-ins are an error handler,
used only where encoding fails. JSON is not written with them: it keeps
every character, as an ``\\uXXXX`` escape where the encoding lacks it
(:func:`plain_json`), so that no name or reason is changed.
"""

from __future__ import annotations

import codecs
import io
import sys
from typing import Final

STAND_INS: Final = {"♣": "C", "♠": "S", "♥": "H", "♦": "D", "·": ".", "←": "<-",
                    "→": "->", "…": "...", "–": "-", "—": "--", "×": "x", "’": "'",
                    "‘": "'", "“": '"', "”": '"'}
"""What a character the output's encoding lacks is written as (``?`` for any other)."""

ERRORS: Final = "gapgrid-stand-ins"
"""The name of the error handler, for ``TextIOWrapper.reconfigure(errors=...)``."""


def _stand_in(error: UnicodeError) -> tuple[str, int]:
    """The stand-ins of the characters ``error`` could not encode, and where to go on."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    lacking = error.object[error.start:error.end]
    return "".join(STAND_INS.get(character, "?") for character in lacking), error.end


REPLACED: Final = ("strict", "backslashreplace")
"""The error handlers stand-ins replace: Python's defaults for standard output (a crash)
and standard error (``J\\u2666``, unreadable)."""


def use_stand_ins() -> None:
    """Write stand-ins on standard output and error where their encoding lacks a character
    (streams told to do something else with one, such as ``surrogateescape``, are left as
    they are)."""
    codecs.register_error(ERRORS, _stand_in)  # registering again replaces it: no harm
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors in REPLACED:
            stream.reconfigure(errors=ERRORS)


def plain_json() -> bool:
    """Whether JSON for standard output must be ASCII (``\\uXXXX`` escapes): when its
    encoding is not UTF-8, so that no character of it is ever a stand-in."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    return codecs.lookup(encoding).name != "utf-8"
