"""The one search a server process runs at a time at request time: a hint's, or a past day's
puzzle's (today's are made as they are asked for: the first page of the day asks for every
variant's at once).

The search is Python: the threads of one process share one interpreter lock,
so two searches at once each run at about half speed (measured: 23,000
positions a second alone, 8,000 to 13,000 each side by side). That buys
nothing, and it costs: a day's puzzle is certified within a number of
positions for each candidate and a number of seconds for all, and a
certification slowed that way ran out of its seconds, so that puzzle was
stored uncertified for good. One search at a time keeps a certification's
seconds its own; more searches at once need more processes (docs/deploy.md).

Whoever holds the slot says by when it will be free at the latest, so a
request refused meanwhile is told how long to wait (``Retry-After``): a
second after a hint, up to a certification's whole budget after a puzzle.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class SearchSlot:
    """A lock for the process's one request-time search, which knows when it frees."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._free_by = 0.0
        """``time.monotonic()`` by which the holder is done at the latest."""

    def seconds_left(self) -> int:
        """Whole seconds until the slot is free at the latest, at least 1: a Retry-After."""
        return max(1, math.ceil(self._free_by - time.monotonic()))

    @contextmanager
    def held(self, *, wait: float, longest: float,
             busy: Callable[[int], Exception]) -> Iterator[None]:
        """Hold the slot for a search of ``longest`` seconds at most, waiting up to ``wait``
        seconds for it; raise ``busy(seconds_left)`` when it is still held then."""
        if not self._lock.acquire(timeout=max(wait, 0.0)):
            raise busy(self.seconds_left())
        self._free_by = time.monotonic() + longest
        try:
            yield
        finally:
            self._free_by = 0.0
            self._lock.release()
