"""``gapgrid study`` against what an outside tester tried: one rule set typed two ways, a
file the machine stops growing, a finished study in a folder it may not write to, a file
name that is no UTF-8, and long lists of game numbers."""

from __future__ import annotations

import json
import os
import random
import resource
import signal
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner, Result

from gapgrid.api.cli import main
from gapgrid.api.game_number_lists import parse_game_numbers
from gapgrid.api.services.study import sort_study_file
from tests.api.live import GAPGRID

# Line Up's first deals at a positions budget: the same rows on any machine.
SMALL = ["line-up", "--deals", "3", "--budget", "60", "--max-positions", "5000"]


def run(*args: str | Path) -> Result:
    """Run ``gapgrid`` with ``args`` in this process."""
    return CliRunner().invoke(main, [str(arg) for arg in args])


def options_column(path: Path) -> set[str]:
    """The ``options`` of every row of a study file."""
    return {line.split(",")[1] for line in path.read_text().splitlines()[1:]}


def test_one_rule_set_typed_two_ways_is_one_study(tmp_path: Path) -> None:
    """``REDEALS=01`` and ``redeals= 1`` are the same rules: the rows record them as the rules
    read them, so a second spelling skips the deals the first decided and resumes its file
    (it solved them again, and a merge counted each deal twice)."""
    first = tmp_path / "first.csv"
    made = run("study", *SMALL, "--option", "REDEALS=01", "--out", first)
    assert made.exit_code == 0, made.output
    assert options_column(first) == {"redeals=1"}
    again = run("study", *SMALL, "--option", "redeals= 1", "--skip-decided-in", first,
                "--out", tmp_path / "again.csv")
    assert again.exit_code == 0, again.output
    assert "nothing was left to solve" in again.stderr
    resumed = run("study", *SMALL, "--deals", "4", "--option", "Redeals=1", "--out", first,
                  "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert "3 of the 4 deals are done" in resumed.stderr
    assert options_column(first) == {"redeals=1"}


def limit_file_size() -> None:
    """In the child: files may grow to 1 KiB (the header and a few rows); Python ignores
    SIGXFSZ, so a write past it fails with EFBIG."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))


def test_a_write_the_machine_refuses_is_said_and_the_study_resumes(tmp_path: Path) -> None:
    """A file size limit stops the file growing: one line naming the file and how to go on,
    exit 2 (it was an internal error, exit 3); resuming without the limit cuts the partial
    line and solves the deals left."""
    out = tmp_path / "s.csv"
    command = [str(GAPGRID), "study", *SMALL, "--deals", "12", "--out", str(out)]
    limited = subprocess.run(command, capture_output=True, text=True, timeout=300,
                             preexec_fn=limit_file_size, check=False)
    assert limited.returncode == 2, limited.stderr
    assert f"cannot write {out}: File too large" in limited.stderr
    assert "--resume" in limited.stderr and "internal error" not in limited.stderr
    assert out.stat().st_size <= 1024
    resumed = subprocess.run([*command, "--resume"], capture_output=True, text=True,
                             timeout=300, check=False)
    assert resumed.returncode == 0, resumed.stderr
    numbers = [int(line.split(",")[2]) for line in out.read_text().splitlines()[1:]]
    assert numbers == list(range(1, 13))


def test_a_sorted_study_file_is_not_rewritten(tmp_path: Path) -> None:
    """Sorting a file sorted already leaves it as it is (the same file, not a copy put in its
    place), so a finished study resumed in a folder it may not write to ends with its
    summary; an unsorted one is still rewritten sorted."""
    out = tmp_path / "s.csv"
    assert run("study", *SMALL, "--out", out).exit_code == 0
    before = out.stat()
    sort_study_file(out)
    after = out.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    header, *rows = out.read_text().splitlines(keepends=True)
    out.write_text(header + "".join(reversed(rows)))
    sort_study_file(out)
    assert out.read_text().splitlines(keepends=True) == [header, *rows]
    assert out.stat().st_ino != before.st_ino


def test_json_of_a_file_name_that_is_no_utf8_is_still_json(tmp_path: Path) -> None:
    """A study file named with bytes that are no UTF-8: the summary's ``file`` is escaped
    (it was written as the raw bytes, which JSON readers refuse), and a reader decoding it
    as Python does file names gets the name back."""
    name = os.fsdecode(b"s\xff\xfe.csv")
    done = subprocess.run([str(GAPGRID), "study", *SMALL, "--out", name, "--json"],
                          cwd=tmp_path, capture_output=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout.decode("utf-8"))
    assert document["file"] == name
    assert (tmp_path / name).exists()


def test_game_number_lists_hold_what_their_ranges_hold() -> None:
    """Membership, now a binary search of the ranges, against the numbers the list names,
    on random lists with ranges side by side, overlapping and alone."""
    chooser = random.Random(7)
    for _ in range(200):
        items = []
        for _ in range(chooser.randint(1, 12)):
            first = chooser.randint(1, 300)
            items.append(f"{first}-{first + chooser.randint(0, 20)}" if chooser.random() < 0.5
                         else str(first))
        numbers = parse_game_numbers(",".join(items))
        named = set(numbers)
        assert [n for n in range(0, 340) if n in numbers] == sorted(named)
        assert "5" not in numbers and None not in numbers


DROPPED_STOP = """
import os, signal, sys, time
from gapgrid.api.study_stop import Terminated, stop_signals

def playing():
    try:
        yield 1
    finally:  # the signal lands here, as it may in the rollouts' own finally
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(10_000):  # Python code, where the handler runs and raises
            pass

with stop_signals(interruptible=True) as stop:
    started = time.monotonic()
    try:
        game = playing()
        next(game)
        del game  # closed at once: the exception raised in its finally is dropped
        while time.monotonic() - started < 5:
            sum(range(1_000))
        print("not stopped")
    except Terminated:
        print(f"stopped {stop.signal} {time.monotonic() - started < 1}")
"""


def test_a_stop_whose_exception_python_drops_still_stops() -> None:
    """A signal that lands while a generator is closed (the solver's rollouts, at the end of
    a deal) raised its exception where Python drops it ("Exception ignored in"), and the
    study went on to its last deal; the stop now comes again a moment later, where it is
    raised. (In a process of its own: a stop leaves its process deaf to further signals.)"""
    result = subprocess.run([sys.executable, "-c", DROPPED_STOP], capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.stdout == f"stopped {int(signal.SIGTERM)} True\n", result.stderr
    assert "Exception ignored" not in result.stderr
