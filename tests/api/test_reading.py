"""Reading a file a user names: bounded in size and in time, whatever the file is."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from gapgrid.api.reading import read_at_most


def test_a_file_is_read_to_its_end_or_to_the_limit(tmp_path: Path) -> None:
    """A regular file gives all its bytes, or the first ``limit`` of them (one more than a
    caller allows tells it the file is too large)."""
    path = tmp_path / "layout.json"
    path.write_bytes(b"x" * 100_000)
    assert read_at_most(path, 200_000) == b"x" * 100_000
    assert read_at_most(path, 70_001) == b"x" * 70_001


def test_a_pipe_is_read_until_its_writer_closes_it(tmp_path: Path) -> None:
    """A FIFO whose writer sends its bytes in two parts and then closes it reads whole."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR)  # a writer already there, as a shell's would be
    os.write(writer, b'{"rows": ')

    def finish() -> None:
        time.sleep(0.3)
        os.write(writer, b"[]}")
        os.close(writer)

    thread = threading.Thread(target=finish)
    thread.start()
    try:
        assert read_at_most(fifo, 1_000, seconds=10) == b'{"rows": []}'
    finally:
        thread.join()


def test_a_pipe_whose_writer_never_closes_it_ends_in_time(tmp_path: Path) -> None:
    """A FIFO whose writer keeps it open, having sent part of a file, is a TimeoutError
    (an OSError, which the commands say in one line) once the time is up, not a wait for
    ever; with no writer at all it reads as empty at once."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert read_at_most(fifo, 1_000, seconds=10) == b""
    writer = os.open(fifo, os.O_RDWR)
    try:
        os.write(writer, b'{"rows": ')
        started = time.monotonic()
        with pytest.raises(TimeoutError) as refused:
            read_at_most(fifo, 1_000, seconds=0.5)
        assert 0.5 <= time.monotonic() - started < 5
        assert isinstance(refused.value, OSError)
        assert "did not end within 0.5 s" in str(refused.value.strerror)
    finally:
        os.close(writer)
