"""The rate limits' counters in this process's memory, at a fraction of the usual cost.

Flask-Limiter counts in a storage of the ``limits`` library. Its own memory
storage starts a timer thread, 10 ms later, to expire counters; between
requests more than 10 ms apart that is a new thread per request, which
measured here at some 450 us of CPU on a request that takes 800 us without
limits. This storage keeps what fixed windows need (per key: a count and
when its window ends) under one lock, and drops ended windows on the way,
at most once a second; it is what ``GAPGRID_LIMIT_STORAGE=memory://`` (the
default) uses. A shared storage (``redis://...``) is the ``limits``
library's own.
"""

from __future__ import annotations

import threading
import time
from typing import Final

from limits.storage import Storage

SCHEME: Final = "gapgrid-memory"
"""The storage URI scheme this module registers with the ``limits`` library."""

SWEEP_SECONDS: Final = 1.0
"""How often ended windows are dropped."""

MAX_KEYS: Final = 200_000
"""Counters kept at most (clients x groups): a flood of new addresses cannot grow the
process without bound; past it, every counter starts again (the limits let requests
through for at most one window rather than the process running out of memory)."""


class WindowCounts(Storage):
    """Fixed-window counters: key -> [count, end of the window]."""

    STORAGE_SCHEME: list[str] | None = [SCHEME]  # noqa: RUF012 (how limits finds the class)

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False,
                 **options: float | str | bool) -> None:
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self._lock = threading.Lock()
        self._windows: dict[str, list[float]] = {}
        self._next_sweep = 0.0

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        """Nothing here raises for the storage's sake."""
        return ValueError

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        """Count ``amount`` in ``key``'s window, opening a new ``expiry``-second window when
        the last one has ended; the count so far."""
        now = time.time()
        with self._lock:
            if now >= self._next_sweep or len(self._windows) >= MAX_KEYS:
                self._sweep(now)
            window = self._windows.get(key)
            if window is None or window[1] <= now:
                window = self._windows[key] = [0, now + expiry]
            window[0] += amount
            return int(window[0])

    def get(self, key: str) -> int:
        """The count in ``key``'s current window (0 when it has none)."""
        window = self._windows.get(key)
        return 0 if window is None or window[1] <= time.time() else int(window[0])

    def get_expiry(self, key: str) -> float:
        """When ``key``'s window ends (now, when it has none)."""
        window = self._windows.get(key)
        now = time.time()
        return now if window is None or window[1] <= now else window[1]

    def check(self) -> bool:
        """Always reachable: it is this process's memory."""
        return True

    def reset(self) -> int | None:
        """Forget every counter; how many there were."""
        with self._lock:
            count = len(self._windows)
            self._windows.clear()
            return count

    def clear(self, key: str) -> None:
        """Forget ``key``'s counter."""
        with self._lock:
            self._windows.pop(key, None)

    def _sweep(self, now: float) -> None:
        """Drop ended windows (the lock is held); all of them if too many remain."""
        self._windows = {key: window for key, window in self._windows.items()
                         if window[1] > now}
        if len(self._windows) >= MAX_KEYS:
            self._windows.clear()
        self._next_sweep = now + SWEEP_SECONDS
