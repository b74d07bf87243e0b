"""Player names: which names are accepted, how a name is shown, and when two are one player.

One rule, used by the service layer (submissions, ``POST /v1/players``) and
by the store's upgrade of old databases, so the two cannot disagree:

* A name is 1 to ``GAPGRID_MAX_PLAYER_LENGTH`` characters (32) of letters and
  digits of any script (with their combining marks), spaces, ``_``, ``.`` and
  ``-``, starting **and ending** with a letter or a digit (its combining marks
  after it: ``सीता`` ends in a vowel sign, which belongs to its last letter).
  So invisible and format characters (zero-width spaces, direction marks: Unicode categories
  Cf, Cc, Co, Cs, Cn; and the marks and letters Unicode shows as nothing, such as variation
  selectors and Hangul fillers), symbols and other punctuation are refused, and so is
  trailing punctuation: ``Ann Lee.`` is refused rather than being a look-alike
  of ``Ann Lee`` (issue 15 allowed either rule; refusing keeps every accepted
  name visibly distinct at its end, and no key has to drop characters).
* A name is shown as typed, with runs of spaces made one (:func:`shown_name`).
* Two names are one player when their keys are equal (:func:`player_key`):
  Unicode NFKC normalisation, case folding (NFKC again, as Unicode's
  ``NFKC_Casefold`` does, since folding can undo a normalisation), and runs of
  whitespace collapsed to one space. ``Bob``, ``bob``, ``BOB`` and full-width
  ``Ｂob`` are one player; so are ``Ann Lee`` and ``Ann  Lee``.

Letters of different scripts that look alike (Latin ``a``, Cyrillic ``а``)
stay different players: telling them apart needs Unicode's confusables
tables (UTS #39), which this rule does not use.
"""

from __future__ import annotations

import unicodedata
from typing import Final

INNER_PUNCTUATION: Final = frozenset("_.-")
"""The only characters other than letters, digits and spaces a name may have, inside it."""

_INVISIBLE: Final = ("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp")
"""Control, format, private-use, surrogate, unassigned and line/paragraph separators."""

_IGNORABLE_MARKS_AND_FILLERS: Final = (
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x115F, 0x1160),  # Hangul choseong and jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180D), (0x180F, 0x180F),  # Mongolian free variation selectors
    (0x3164, 0x3164), (0xFFA0, 0xFFA0),  # Hangul filler, halfwidth Hangul filler
    (0xFE00, 0xFE0F), (0xE0100, 0xE01EF),  # variation selectors
)
"""The code points Unicode says to show as nothing (``Default_Ignorable_Code_Point``) that
are marks or letters rather than of an invisible category: ``Ann`` with a variation
selector after it, or a name of one Hangul filler, showed as ``Ann`` or as a blank."""


def _invisible(character: str) -> bool:
    if unicodedata.category(character) in _INVISIBLE:
        return True
    point = ord(character)
    return any(low <= point <= high for low, high in _IGNORABLE_MARKS_AND_FILLERS)


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def player_key(name: str) -> str:
    """What two names of one player share: ``'Ｂob'`` and ``' bob'`` both give ``'bob'``."""
    return " ".join(_nfkc(_nfkc(name).casefold()).split())


def shown_name(name: str) -> str:
    """A name as leaderboards show it: as typed, each run of spaces made one space."""
    return " ".join(name.split())


def name_problem(name: str, max_length: int) -> str | None:
    """What is wrong with ``name`` as a player name, in the player's words, or None when
    it is a name."""
    if not name:
        return "is empty: type a name"
    if len(name) > max_length:
        return f"is longer than {max_length} characters"
    normal = _nfkc(name)
    # Said as typed: the typed character whose normal form is invisible (U+FFA0, the
    # halfwidth Hangul filler, becomes U+1160, which the player never typed).
    typed = next((character for character in name if any(
        _invisible(part) for part in _nfkc(character))), None)
    if typed is not None or any(_invisible(character) for character in normal):
        shown = f" U+{ord(typed):04X}" if typed is not None else ""
        return (f"has the invisible or control character{shown}, which a name may not "
                f"have: type the name again without it")
    first, last = normal[0], normal[-1]
    if first.isspace() or last.isspace():
        return f"{'starts' if first.isspace() else 'ends'} with a space: a name may not"
    for character in normal:
        category = unicodedata.category(character)
        if not (category[0] in "LMN" or category == "Zs" or character in INNER_PUNCTUATION):
            return (f"has {character!r}, which a name may not have: use letters, digits, "
                    f"spaces, '_', '.' or '-'")
    if unicodedata.category(first)[0] not in "LN":
        return f"starts with {first!r}: a name starts with a letter or a digit"
    # the last letter's combining marks (an Indic vowel sign, an accent) belong to it
    base = next((character for character in reversed(normal)
                 if unicodedata.category(character)[0] != "M"), first)
    if unicodedata.category(base)[0] not in "LN":
        return (f"ends with {base!r}: a name ends with a letter or a digit (so 'Ann Lee.' "
                f"cannot pass for 'Ann Lee')")
    return None
