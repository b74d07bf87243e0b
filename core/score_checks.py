"""Checking what a scoring scheme gives back, so that a plugin's bug is said as its own.

A scheme is a plugin's code: its ``score()`` may raise, or return something
that is no :class:`core.scoring.Score`, a total that is not a whole number
(``NaN``, a string), a number JSON readers or the database cannot hold, an
explanation with control characters that would forge lines on a terminal,
or extra facts that overwrite the score's own fields. Any of those used to
break every verification and every submission (a 500, an internal error,
or a JSON document no reader accepts). :func:`scored` calls the scheme and
checks what it gives; a failure is a :class:`PluginFault` naming the scheme
and its plugin. The catalogue tries every scheme on :data:`SAMPLE_SUMMARIES`
when it loads (:mod:`core.catalogue`), so a scheme that fails on any game is
refused then, with its plugin, and the others keep working.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Final

from gapgrid.core.rules import UNLIMITED, has_control_characters, rule_text
from gapgrid.core.scoring import GameSummary, Score, ScoringScheme

LARGEST: Final = 2**53 - 1
"""The largest whole number a score may hold: every JSON reader reads it exactly, and a sort
key's part fits the database's 64 bits."""

LONGEST_TEXT: Final = 1_000
"""Characters an explanation, or a text among the extra facts, may have."""

MOST_ENTRIES: Final = 64
"""Terms of a breakdown, parts of a sort key, extra facts or items of one, at most."""

SCORE_FIELDS: Final = ("total", "breakdown", "better", "sort_key", "explanation")
"""What a score's JSON entry holds before its extra facts, which may not take these names."""

SAMPLE_SUMMARIES: Final = (
    GameSummary(won=False, cards_in_sequence=0, finished_rows=0, rows=4, redeals_allowed=2,
                redeals_used=0, undos=0, moves=0),
    GameSummary(won=False, cards_in_sequence=9, finished_rows=0, rows=4, redeals_allowed=0,
                redeals_used=0, undos=3, moves=40, elapsed=95.5, timed=True,
                start_cards_in_sequence=2, assisted=True),
    GameSummary(won=True, cards_in_sequence=48, finished_rows=4, rows=4, redeals_allowed=2,
                redeals_used=1, undos=0, moves=120, elapsed=300.0, start_cards_in_sequence=3),
    GameSummary(won=True, cards_in_sequence=96, finished_rows=8, rows=8,
                redeals_allowed=UNLIMITED, redeals_used=7, undos=12, moves=900),
)
"""Games a scheme is tried on when the catalogue loads: none played, lost in the timed mode
with hints, won with a redeal to spare, and won with unlimited redeals on two decks."""


_EntryCheck = Callable[[str, object], "str | None"]
"""Says what is wrong with one entry of a mapping (its name in messages, its value)."""


class PluginFault(Exception):
    """A plugin's code failed, or gave back something gapgrid cannot use: the plugin's bug,
    not gapgrid's, said with the plugin's name."""

    def __init__(self, plugin: str, message: str) -> None:
        super().__init__(message)
        self.plugin = plugin

    def __reduce__(self) -> tuple[type[PluginFault], tuple[str, str]]:
        # A study's worker process sends it back pickled: rebuilt from both arguments.
        return PluginFault, (self.plugin, str(self))


def scored(name: str, plugin: str, scheme: ScoringScheme, summary: GameSummary) -> Score:
    """The score scheme ``name`` (registered by ``plugin``) gives ``summary``, checked; a
    :class:`PluginFault` when it raises or gives a score that cannot be used."""
    try:
        score = scheme.score(summary)
    except Exception as error:  # a plugin's bug: said as such, not as gapgrid's
        said = rule_text(error, LONGEST_TEXT)  # the plugin's words: one line, bounded
        raise PluginFault(plugin, f"scoring scheme {name!r} (plugin {plugin}) failed: "
                                  f"{type(error).__name__}: {said}") from error
    problem = score_problem(score)
    if problem is not None:
        raise PluginFault(plugin, f"scoring scheme {name!r} (plugin {plugin}) gave a score "
                                  f"that cannot be used: {problem}")
    assert isinstance(score, Score)  # score_problem says so
    return score


def score_problem(score: object) -> str | None:
    """What makes ``score`` unusable, or None when it can be served and stored."""
    if not isinstance(score, Score):
        return f"{type(score).__name__} is not a Score"
    problem = (_whole_problem("total", score.total)
               or _mapping_problem("breakdown", score.breakdown, _whole_problem)
               or _sort_key_problem(score.sort_key)
               or _text_problem("explanation", score.explanation)
               or _mapping_problem("extra", score.extra, _fact_problem))
    if problem is None and score.better not in ("higher", "lower"):
        shown = rule_text(repr(score.better), LONGEST_TEXT)
        problem = f"better is {shown}, not 'higher' or 'lower'"
    if problem is None:
        taken = sorted(set(score.extra) & set(SCORE_FIELDS))
        if taken:
            problem = f"extra facts named {', '.join(taken)} would hide the score's own"
    return problem


def _whole_problem(what: str, value: object) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return f"{what} is {type(value).__name__}, not a whole number"
    if not -LARGEST <= value <= LARGEST:
        return f"{what} is beyond {LARGEST:,} either way"
    return None


def _sort_key_problem(key: object) -> str | None:
    if not isinstance(key, tuple) or not 1 <= len(key) <= MOST_ENTRIES:
        return f"sort_key is not a tuple of 1 to {MOST_ENTRIES} whole numbers"
    for part in key:
        problem = _whole_problem("a part of sort_key", part)
        if problem is not None:
            return problem
    return None


def _text_problem(what: str, value: object) -> str | None:
    if not isinstance(value, str):
        return f"{what} is {type(value).__name__}, not text"
    if len(value) > LONGEST_TEXT:
        return f"{what} has {len(value):,} characters: at most {LONGEST_TEXT:,}"
    if has_control_characters(value):
        return f"{what} holds control characters (a new line, an escape)"
    return None


def _fact_problem(what: str, value: object) -> str | None:
    """An extra fact: null, true or false, a whole number, a finite number, a text, or a list
    of those."""
    if isinstance(value, list | tuple):
        if len(value) > MOST_ENTRIES:
            return f"{what} has {len(value):,} items: at most {MOST_ENTRIES}"
        for item in value:
            problem = None if isinstance(item, list | tuple) else _fact_problem(what, item)
            if isinstance(item, list | tuple) or problem is not None:
                return problem or f"{what} holds a list in a list"
        return None
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return _whole_problem(what, value)
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{what} is {value}, which JSON cannot hold"
    if isinstance(value, str):
        return _text_problem(what, value)
    return f"{what} is {type(value).__name__}, not null, a number, a text or a list of those"


def _mapping_problem(what: str, value: object, entry_problem: _EntryCheck) -> str | None:
    if not isinstance(value, Mapping):
        return f"{what} is {type(value).__name__}, not a mapping"
    if len(value) > MOST_ENTRIES:
        return f"{what} has {len(value):,} entries: at most {MOST_ENTRIES}"
    for key, entry in value.items():
        problem = _text_problem(f"a name in {what}", key) or entry_problem(
            f"{what}[{key!r}]", entry)
        if problem is not None:
            return problem
    return None
