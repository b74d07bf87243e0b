"""Ranking keys as text whose byte order is the key's order, on either back end."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

_KEY_BIAS: Final = 2**63
_KEY_DIGITS: Final = 16

BUCKET_CHARACTERS: Final = 3 * _KEY_DIGITS + 2
"""The first three parts of an encoded key (with their dots): the keys the store tallies
together to rank without walking a whole puzzle (``ranking_buckets``). Any fixed length
keeps rank sums exact, since a key whose first characters sort before another's first
characters sorts before it; three parts hold, for ``par``, the outcome, hints and
actions, so that only players who tie on all three are counted one by one."""


def encode_sort_key(key: Sequence[int]) -> str:
    """A sort key as text that sorts byte by byte exactly as the tuple sorts.

    Each number, shifted into 0 .. 2**64-1, is written as 16 hex digits, so
    equal-width parts compare numerically, and a key that is a prefix of
    another sorts first, as tuples do. Numbers must fit in 64 bits (signed).
    Only ASCII digits, letters and dots: SQLite's binary collation and
    PostgreSQL's ``C`` collation (which the schema asks for) agree on it.
    """
    parts = []
    for number in key:
        if not -_KEY_BIAS <= number < _KEY_BIAS:
            raise ValueError(f"sort key part {number} does not fit in 64 bits")
        parts.append(f"{number + _KEY_BIAS:0{_KEY_DIGITS}x}")
    return ".".join(parts)
