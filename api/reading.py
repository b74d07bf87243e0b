"""Opening a file a user names for reading without hanging the command.

``open()`` on a FIFO blocks until a writer opens it, which may be never (a
FIFO left in an instance folder, given as a saved game or a study file). Opened
without blocking, then read blocking as usual, a FIFO with no writer reads as
empty (POSIX: end of file when no process has it open for writing), so the
caller's "empty file" refusal says it; a pipe that has a writer (``cat game.pso
| gapgrid verify --from-save /dev/stdin``) reads as it always did.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO


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
