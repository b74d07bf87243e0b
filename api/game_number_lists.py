"""Lists of PySolFC game numbers typed on the command line: ``128,161,200-210``.

``gapgrid study --game-numbers`` solves the deals a researcher names (the ones
another study left unknown, say) rather than a run of K .. K+N-1. A list is
kept as its ranges, merged and in order, so ``1-100000000000`` costs no more
memory than ``7``; the deals are solved in increasing order, each once.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import Final

import attrs
import click

from gapgrid.api.text import excerpt
from gapgrid.core.dealnumber import MAX_NUMBER

MAX_LIST_CHARACTERS: Final = 10_000
"""The longest list read: about a thousand numbers of game numbers' usual size."""

_ITEM: Final = re.compile(r"([0-9]+)(?:-([0-9]+))?")


@attrs.frozen
class GameNumbers:
    """Game numbers as disjoint ranges in increasing order, none of them empty."""

    ranges: tuple[range, ...]

    @property
    def count(self) -> int:
        """How many game numbers (``len`` of a range stops at ``sys.maxsize``; this does not)."""
        return sum(chunk.stop - chunk.start for chunk in self.ranges)

    def __contains__(self, number: object) -> bool:
        """Whether ``number`` is in the list: a binary search of the ranges, since a study
        asks this of every row of the files it reads."""
        if not isinstance(number, int):
            return False
        at = bisect.bisect_right(self.ranges, number, key=lambda chunk: chunk.start) - 1
        return at >= 0 and number in self.ranges[at]

    def __iter__(self) -> Iterator[int]:
        for chunk in self.ranges:
            yield from chunk


def parse_game_numbers(text: str) -> GameNumbers:
    """The game numbers in ``text``: numbers and ranges ``A-B`` (A at most B) separated by
    commas, in any order, overlapping or not, within 1 .. :data:`MAX_NUMBER`.

    Raises :class:`ValueError` with the reason for people on anything else.
    """
    if len(text) > MAX_LIST_CHARACTERS:
        raise ValueError(f"a list of {len(text):,} characters: at most "
                         f"{MAX_LIST_CHARACTERS:,}, or give a range (A-B)")
    spans: list[tuple[int, int]] = []
    for item in text.split(","):
        item = item.strip()
        found = _ITEM.fullmatch(item) if item.isascii() else None
        if found is None:
            raise ValueError(f"{excerpt(item)} is neither a game number nor a range A-B "
                             f"(e.g. 128,161,200-210)")
        first_text, last_text = found.group(1), found.group(2) or found.group(1)
        if max(len(first_text.lstrip("0")), len(last_text.lstrip("0"))) > len(str(MAX_NUMBER)):
            raise ValueError(f"{excerpt(item)}: game numbers run from 1 to {MAX_NUMBER}")
        first, last = int(first_text), int(last_text)
        if not 1 <= first <= MAX_NUMBER or not 1 <= last <= MAX_NUMBER:
            raise ValueError(f"{excerpt(item)}: game numbers run from 1 to {MAX_NUMBER}")
        if first > last:
            raise ValueError(f"{excerpt(item)}: a range runs from the smaller number to the "
                             f"larger ({last}-{first})")
        spans.append((first, last))
    merged: list[list[int]] = []
    for first, last in sorted(spans):
        if merged and first <= merged[-1][1] + 1:  # overlapping or side by side
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    return GameNumbers(tuple(range(first, last + 1) for first, last in merged))


def game_numbers_option(ctx: click.Context, param: click.Parameter,
                        value: str | None) -> GameNumbers | None:
    """A click callback reading an option's list with :func:`parse_game_numbers`; a usage
    error naming the option for anything it refuses."""
    if value is None:
        return None
    try:
        return parse_game_numbers(value)
    except ValueError as error:
        raise click.BadParameter(str(error), ctx=ctx, param=param) from None
