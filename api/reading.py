"""Opening a file a user names for reading without hanging the command.

``open()`` on a FIFO blocks until a writer opens it, which may be never (a
FIFO left in an instance folder, given as a saved game or a study file). Opened
without blocking, then read blocking as usual, a FIFO with no writer reads as
empty (POSIX: end of file when no process has it open for writing), so the
caller's "empty file" refusal says it; a pipe that has a writer (``cat game.pso
| gapgrid verify --from-save /dev/stdin``) reads as it always did.

A writer that opens a FIFO and never closes it (nor writes all it means to) would
still make a blocking read wait for ever: :func:`read_at_most` reads a small file
(a layout, a saved game, a secret, the PySolFC plugin file) within a time limit as
well as a size limit, so such a pipe, or one whose writer takes longer than
:data:`READ_SECONDS`, ends with an error.
"""

from __future__ import annotations

import errno
import os
import select
import time
from pathlib import Path
from typing import BinaryIO, Final

READ_SECONDS: Final = 20.0
"""How long :func:`read_at_most` waits for a file to end, all told: a pipe's writer
(``--layout <(gapgrid deal --json ...)``) takes about a second to start and write."""

_CHUNK: Final = 65_536


def open_to_read(path: Path) -> BinaryIO:
    """Open ``path`` to read bytes, without blocking on the open (see the module's
    docstring); raises :class:`OSError` as ``open()`` does."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_at_most(path: Path, limit: int, seconds: float = READ_SECONDS) -> bytes:
    """The bytes of ``path``, at most ``limit`` of them (ask for one more than a caller's
    maximum to tell a file that is too large), read within ``seconds``.

    Opened as :func:`open_to_read` does, so a FIFO with no writer reads as empty; one
    whose writer neither closes it nor sends ``limit`` bytes within ``seconds`` raises
    :class:`TimeoutError` (an :class:`OSError`, whose ``strerror`` says so). Other
    failures raise :class:`OSError` as ``open()`` does.
    """
    deadline = time.monotonic() + seconds
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        waiting = select.poll()
        waiting.register(descriptor, select.POLLIN)
        data = bytearray()
        while len(data) < limit:
            # Read first: a FIFO that never had a writer reads as ended, where poll would
            # wait for one; one whose writer has sent nothing yet says so (EAGAIN).
            try:
                chunk = os.read(descriptor, min(_CHUNK, limit - len(data)))
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0 or not waiting.poll(left * 1000):
                    raise _too_slow(seconds) from None
                continue
            if not chunk:
                break
            data += chunk
        return bytes(data)
    finally:
        os.close(descriptor)


def _too_slow(seconds: float) -> TimeoutError:
    """The refusal of a file that did not end within ``seconds``."""
    return TimeoutError(errno.ETIMEDOUT, f"it did not end within {seconds:g} s (a pipe whose "
                                         f"writer keeps it open?)")
