"""Words for people: short excerpts of what a user typed, plurals, card names as the board
shows them.

Every message the command line prints and every problem document the API
serves goes through these where it repeats user input or counts things, so
a 5 MB move or a 200,000-character slug comes back as a few dozen
characters, and "1 moves" cannot happen.
"""

from __future__ import annotations

import re
from typing import Final

from gapgrid.core.cards import card_symbol, parse_card
from gapgrid.core.catalogue import PluginProblem

EXCERPT_LENGTH: Final = 40
"""Characters of user input repeated in a message; longer input is cut and marked."""

MESSAGE_LENGTH: Final = 1000
"""Longest message a command or a problem document carries (a last line of defence:
messages quote input through :func:`excerpt`, which keeps them far shorter)."""

_CARD_CODE: Final = re.compile(r"(?<![A-Za-z0-9])([A2-9TJQK][CDHS])(?![A-Za-z0-9])")
_MODULE: Final = re.compile(r"<module '([^']+)'(?: from '[^']*')?>")
_OBJECT: Final = re.compile(r"<([\w.]+) object at 0x[0-9a-fA-F]+>")
_PLUGIN_ID: Final = re.compile(r"'[0-9]{6,}'")


def excerpt(text: object, limit: int = EXCERPT_LENGTH, *, count: bool = True) -> str:
    """``text`` quoted as Python would (``'ab'``), cut to ``limit`` characters with the
    cut marked and (with ``count``) the full length given: ``'aaaa…' (200,000 characters)``.
    Leave ``count`` off when ``text`` may itself be a cut (input read only in part).

    Quoting keeps control characters and lone surrogates visible and harmless in a
    terminal, a log line or a JSON string.
    """
    if not isinstance(text, str):
        text = str(text)
    if len(text) <= limit:
        return repr(text)
    quoted = repr(text[:limit])
    cut = f"{quoted[:-1]}…{quoted[-1]}"
    return f"{cut} ({len(text):,} characters)" if count else cut


def bounded(message: str, limit: int = MESSAGE_LENGTH) -> str:
    """``message`` itself when short enough, else its start, marked as cut."""
    if len(message) <= limit:
        return message
    return f"{message[:limit]}… (cut: {len(message):,} characters in all)"


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 move``, ``2 moves``, ``0 moves``; ``words`` for an irregular plural."""
    return f"{count:,} {word if count == 1 else (words or word + 's')}"


def card_names(reason: str) -> str:
    """A reason with its card codes (``2D``, ``TS``) written as the board shows the cards
    (``2♦``, ``10♠``).

    The engine writes refusals with card codes, which are what the JSON documents
    carry; text meant for a terminal shows the cards the way the board next to it does.
    """
    return _CARD_CODE.sub(lambda found: card_symbol(parse_card(found.group(1))), reason)


def ordinal_move(index: int) -> str:
    """A move's place for people, counted from 1: index 3 is ``Move 4``."""
    return f"Move {index + 1:,}"


def plugin_problem_line(problem: PluginProblem) -> str:
    """One line on a plugin that could not be loaded; for a name ``GAPGRID_DISABLE_PLUGINS``
    gives that no plugin has, the problem's own line (it read "plugin 'x' not loaded", as if
    a plugin of that name had failed)."""
    if problem.disables_nothing:
        return bounded(problem.reason, 300)
    return f"plugin {excerpt(problem.plugin)} not loaded: {plugin_reason(problem.reason)}"


def plugin_reason(reason: str) -> str:
    """Why a plugin was not loaded, in one line and in the plugin author's terms: pluggy's
    messages name modules and objects by their ``repr`` (paths, memory addresses), may
    append its registry of every plugin, and name unnamed plugins by internal numbers."""
    lines = reason.strip().splitlines()
    first = lines[0] if lines else "no reason given"
    first = _MODULE.sub(lambda found: f"module {found.group(1)}", first)
    first = _OBJECT.sub(lambda found: f"a {found.group(1)} object", first)
    first = _PLUGIN_ID.sub("an unnamed plugin", first)
    return bounded(first, 300)
