"""Move notation: ``F-T``, ``redeal`` and ``undo``.

``F-T`` moves the card in slot F into the gap at slot T (slots counted from
0, row by row, as PySolFC numbers them); ``redeal`` gathers and redeals;
``undo`` takes back the last move or redeal. Parsing is strict about shape
(no signs, no spaces inside a move) and lenient about case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

import attrs

MAX_SLOT_DIGITS: Final = 6  # no board has a million slots; keeps int() cheap and bounded


class NotationError(ValueError):
    """Raised for text that is not a move, with the reason."""

    def __init__(self, text: str, reason: str, index: int | None = None) -> None:
        where = f"move {index}: " if index is not None else ""
        super().__init__(f"{where}{text!r} is not a move: {reason}")
        self.text = text
        self.reason = reason
        self.index = index


@attrs.frozen(slots=True)
class Move:
    """Move the card in ``source`` into the gap at ``target``."""

    source: int
    target: int

    def __str__(self) -> str:
        return f"{self.source}-{self.target}"


@attrs.frozen(slots=True)
class Redeal:
    """Gather what is out of sequence, shuffle and deal it back."""

    def __str__(self) -> str:
        return "redeal"


@attrs.frozen(slots=True)
class Undo:
    """Take back the last move or redeal."""

    def __str__(self) -> str:
        return "undo"


Action = Move | Redeal | Undo
"""Anything a player can do."""

REDEAL: Final = Redeal()
UNDO: Final = Undo()

_WORDS: Final[dict[str, Action]] = {"redeal": REDEAL, "undo": UNDO}

_MINUS_SIGN: Final = re.compile(r"(?:^|-)-[0-9]")
"""A minus sign before a slot number: at the start, or right after the move's dash."""


def parse_action(text: str) -> Action:
    """Read one move (``"12-25"``, ``"redeal"``, ``"undo"``); raise :class:`NotationError`."""
    if not isinstance(text, str):
        raise NotationError(repr(text), "a move is a string such as '12-25', 'redeal' or 'undo'")
    word = _WORDS.get(text.lower())
    if word is not None:
        return word
    source, dash, target = text.partition("-")
    if not dash:
        raise NotationError(text, "write a move as F-T (from slot F to slot T), 'redeal' or 'undo'")
    if _MINUS_SIGN.search(text):  # "-1-3", "12--3": a minus sign, not only a dash
        raise NotationError(text, "slot numbers are never negative (slots are 0, 1, 2, ...)")
    for part in (source, target):
        if not part:
            raise NotationError(text, "a slot number is missing: write a move as F-T, "
                                      "such as '12-25'")
        if not (part.isascii() and part.isdigit()):
            raise NotationError(text, f"{part!r} is not a slot number (slots are 0, 1, 2, ...)")
        if len(part) > MAX_SLOT_DIGITS:
            raise NotationError(text, f"slot {part} is far off any board")
    return Move(int(source), int(target))


def parse_actions(texts: Iterable[str]) -> list[Action]:
    """Read a sequence of moves; a :class:`NotationError` carries the index of the bad one."""
    actions = []
    for index, text in enumerate(texts):
        try:
            actions.append(parse_action(text))
        except NotationError as error:
            raise NotationError(error.text, error.reason, index) from None
    return actions


def format_actions(actions: Iterable[Action]) -> list[str]:
    """Write actions in notation."""
    return [str(action) for action in actions]
