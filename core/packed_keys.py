"""A set of byte strings packed side by side: a long search's dead positions in half the memory.

A Python ``set`` of the 39-byte keys of single-round Gaps costs about 114
bytes a key: the ``bytes`` object's header, the set's slot, and the set a
third to two thirds full. Here the keys of one length sit side by side in
buckets (``bytearray``), a key's bucket chosen by its hash: about 53 bytes a
key, and membership exact (a key is found only at a multiple of its length
in its bucket, never across two keys). A lookup costs about 0.6 µs more
than a set's, so the search packs its tables only once they fill half
their memory (:data:`core.search.PACK_AT`; docs/solver.md, "Kept
(thirty-fifth sitting)").

The buckets split one at a time as they fill (linear hashing): the table
grows without ever stopping to rehash all of itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

BUCKET_LOAD: Final = 16
"""Keys a bucket holds on average before one more bucket is split off."""

ENTRY_BYTES: Final = 14
"""Bytes a packed key costs beyond its own (measured: about 53 for a 39-byte key): its share
of a bucket's header and of the room a ``bytearray`` keeps to grow."""

_FIRST_BUCKETS: Final = 16


class _Buckets:
    """The keys of one length, in buckets chosen by their hash."""

    __slots__ = ("buckets", "count", "level_size", "split", "width")

    def __init__(self, width: int) -> None:
        self.width = width
        self.buckets: list[bytearray] = [bytearray() for _ in range(_FIRST_BUCKETS)]
        self.count = 0
        self.level_size = _FIRST_BUCKETS
        """The buckets at the start of this round of splits (a power of two)."""
        self.split = 0
        """The next bucket to split; those before it are split already this round."""

    def _index(self, digest: int) -> int:
        """The bucket of a key whose hash is ``digest``."""
        index = digest & (self.level_size - 1)
        if index < self.split:  # split this round: the next bit of the hash chooses
            index = digest & (2 * self.level_size - 1)
        return index

    def __contains__(self, key: bytes) -> bool:
        bucket = self.buckets[self._index(hash(key))]
        width = self.width
        at = bucket.find(key)
        while at >= 0:
            if at % width == 0:  # not the end of one key and the start of the next
                return True
            at = bucket.find(key, at + 1)
        return False

    def add(self, key: bytes) -> None:
        self.buckets[self._index(hash(key))] += key
        self.count += 1
        if self.count > BUCKET_LOAD * len(self.buckets):
            self._split_one()

    def _split_one(self) -> None:
        """Share the keys of the next bucket between it and a new last bucket."""
        old = self.buckets[self.split]
        width, mask = self.width, 2 * self.level_size - 1
        stay, leave = bytearray(), bytearray()
        for at in range(0, len(old), width):
            key = bytes(old[at:at + width])
            if hash(key) & mask == self.split:
                stay += key
            else:
                leave += key
        self.buckets[self.split] = stay
        self.buckets.append(leave)
        self.split += 1
        if self.split == self.level_size:  # a round is done: twice the buckets
            self.level_size *= 2
            self.split = 0


class PackedKeys:
    """A set of byte strings (``in``, ``add``, ``len``), of any lengths, packed."""

    __slots__ = ("_by_width", "_count", "_empty")

    def __init__(self, keys: Iterable[bytes] = ()) -> None:
        self._by_width: dict[int, _Buckets] = {}
        self._count = 0
        self._empty = False  # b"": no bucket can tell it apart
        for key in keys:
            self.add(key)

    def __contains__(self, key: bytes) -> bool:
        if not key:
            return self._empty
        table = self._by_width.get(len(key))
        return table is not None and key in table

    def add(self, key: bytes) -> None:
        """Add ``key``, which must not be in the set yet (the search adds a position once,
        when it is proven dead; a key added twice would be kept twice)."""
        self._count += 1
        if not key:
            self._empty = True
            return
        table = self._by_width.get(len(key))
        if table is None:
            table = self._by_width[len(key)] = _Buckets(len(key))
        table.add(key)

    def __len__(self) -> int:
        return self._count
