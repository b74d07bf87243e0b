"""How often a game can be won: the rows, the files and the statistics of a winnability study.

A study solves PySolFC game numbers one by one and keeps one CSV row per
deal (:class:`StudyRow`). This module knows nothing of the solver or the
rules: it turns rows into CSV lines and back, reads a study file that may
have been cut short (a trailing partial line is ignored), checks that a file
belongs to the study about to resume it, sorts a file by deal, and sums rows
up (:class:`Summary`) with Wilson score intervals. The command
(:mod:`gapgrid.api.study`) and the plot (:mod:`gapgrid.api.study_plot`) share
it, so the figures printed at the end of a run and the ones published are the
same computation.
"""

from __future__ import annotations

import csv
import errno
import io
import math
import os
import re
import stat
import statistics
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO, Final

import attrs

from gapgrid.api.reading import open_to_read
from gapgrid.api.text import card_names, plural
from gapgrid.core.catalogue import Catalogue, OptionError, UnknownVariantError
from gapgrid.core.dealnumber import MAX_NUMBER, DealNumber
from gapgrid.core.notation import MAX_SLOT_DIGITS, UNDO, NotationError, parse_action
from gapgrid.core.replay import replay

COLUMNS_BEFORE_MEMORY: Final = ("variant", "options", "game_number", "verdict", "line_length",
                                "positions", "seconds", "stopped_by", "solver_version",
                                "budget_seconds", "budget_positions", "line")
"""The columns of a study file written before rows recorded the memory cap (solver 14's
first rows and every earlier study): still read, and upgraded when a study adds to it."""

COLUMNS: Final = (*COLUMNS_BEFORE_MEMORY, "budget_memory_mib")
"""The CSV header, in order. ``line`` is the winning line in gapgrid's notation
(``12-3 redeal 4-5``), so anyone can replay a won deal (``gapgrid verify``).
``budget_memory_mib`` comes last, so ``line`` is the twelfth field in files of
either header."""

TIMING_COLUMNS: Final = ("seconds",)
"""Columns that differ from run to run of the same study; every other column is
fixed by the study's settings and ``--memory`` when the verdicts are decided by the
positions budget."""

VERDICTS: Final = ("won", "lost", "unknown")

MAX_LINE_BYTES: Final = 1 << 20
"""The longest line a study file may hold. The longest written so far, a Paganini II
win, takes under 60 KB; a file with a longer line is not one a study wrote, and
reading it stops there instead of holding the whole line in memory."""

# The csv module refuses fields over 128 KiB by default: let a field be as long as a line.
csv.field_size_limit(max(csv.field_size_limit(), MAX_LINE_BYTES))

Z_95: Final = 1.959963984540054
"""The standard normal quantile for a two-sided 95 % interval."""


class StudyFileError(ValueError):
    """A study file that cannot be read or resumed, with the reason for people."""


@attrs.frozen
class StudySettings:
    """What every row of one study shares; a file is resumed only under the same settings."""

    options: str
    """The rule options as given, ``key=value`` pairs sorted by key, space-separated."""

    solver_version: str
    budget_seconds: float
    budget_positions: int | None
    """The positions cap per deal, or None for none."""

    def exceeds(self, other: StudySettings) -> bool:
        """Tell whether this budget is larger than ``other``'s: no smaller in seconds or in
        positions (no cap counting as the largest), larger in at least one."""
        mine, theirs = budget_order(self), budget_order(other)
        return mine[0] >= theirs[0] and mine[1] >= theirs[1] and mine != theirs

    def budget_text(self) -> str:
        """The budget in words: ``10 s`` or ``10 s or 100,000 positions``."""
        positions = (f" or {self.budget_positions:,} positions"
                     if self.budget_positions is not None else "")
        return f"{self.budget_seconds:g} s{positions}"

    def describe(self) -> str:
        """The settings in words, for an error message."""
        options = f"options {self.options!r}" if self.options else "no options"
        return f"{options}, solver version {self.solver_version}, budget {self.budget_text()}"


@attrs.frozen
class StudyRow:
    """One solved deal."""

    variant: str
    """The slug of the variant or preset."""

    options: str
    """As in :attr:`StudySettings.options`."""

    game_number: int
    """The PySolFC game number (Select game by number...)."""

    verdict: str
    """``won``, ``lost`` or ``unknown``."""

    line_length: int
    """Actions in the winning line (0 unless won)."""

    positions: int
    """Positions the solver explored."""

    seconds: float
    """Wall-clock seconds the solver spent (the one column that varies between runs)."""

    stopped_by: str
    """For ``unknown``: what ran out (``seconds``, ``positions``, ``memory``); else empty."""

    solver_version: str
    budget_seconds: float
    budget_positions: int | None
    line: str
    """The winning line, actions separated by spaces; empty unless won."""

    budget_memory_mib: int | None = attrs.field(default=None, kw_only=True)
    """The MiB the search's tables could hold (``--memory``), or None in a row written
    before rows recorded it. Part of the budget, but not of :attr:`settings`: a full table
    may leave a deal unknown (stopped by ``memory``) but never changes a won or lost
    verdict, so a study may be resumed with another cap."""

    @property
    def key(self) -> tuple[str, str, int]:
        """What identifies the deal in a study: variant, options, game number."""
        return (self.variant, self.options, self.game_number)

    @property
    def settings(self) -> StudySettings:
        """The study settings the row was solved under."""
        return StudySettings(options=self.options, solver_version=self.solver_version,
                             budget_seconds=self.budget_seconds,
                             budget_positions=self.budget_positions)

    def csv_line(self) -> str:
        """The row as one CSV line, ending in a newline (no field holds a newline).

        :class:`StudyFileError` for a row that reading the file would refuse (see
        :func:`_check_plausible`, and :data:`MAX_LINE_BYTES`): such a row is never written,
        since the file could then not be resumed, summed up or merged.
        """
        _check_plausible(self)
        fields = [self.variant, self.options, str(self.game_number), self.verdict,
                  str(self.line_length), str(self.positions), f"{self.seconds:.3f}",
                  self.stopped_by, self.solver_version, f"{self.budget_seconds:g}",
                  "" if self.budget_positions is None else str(self.budget_positions),
                  self.line,
                  "" if self.budget_memory_mib is None else str(self.budget_memory_mib)]
        text = _csv_line(fields)
        if len(text.encode()) >= MAX_LINE_BYTES:
            raise StudyFileError(f"the row of game {self.game_number} takes "
                                 f"{len(text.encode()):,} bytes: a study file's rows are "
                                 f"shorter than {MAX_LINE_BYTES:,}")
        return text

    @classmethod
    def from_fields(cls, fields: list[str], columns: tuple[str, ...] = COLUMNS) -> StudyRow:
        """Read a row from its CSV fields, in the order of ``columns`` (a file's header);
        :class:`StudyFileError` when they are malformed."""
        if len(fields) != len(columns):
            raise StudyFileError(f"{len(fields)} fields instead of {len(columns)}")
        values = dict(zip(columns, fields, strict=True))
        memory = values.get("budget_memory_mib", "")
        if values["verdict"] not in VERDICTS:
            raise StudyFileError(f"verdict {values['verdict']!r} is not one of {VERDICTS}")
        try:
            row = cls(variant=values["variant"], options=values["options"],
                      game_number=int(values["game_number"]), verdict=values["verdict"],
                      line_length=int(values["line_length"]),
                      positions=int(values["positions"]), seconds=float(values["seconds"]),
                      stopped_by=values["stopped_by"], solver_version=values["solver_version"],
                      budget_seconds=float(values["budget_seconds"]),
                      budget_positions=(int(values["budget_positions"])
                                        if values["budget_positions"] else None),
                      line=values["line"],
                      budget_memory_mib=int(memory) if memory else None)
        except ValueError as error:
            raise StudyFileError(f"a number is malformed: {error}") from None
        _check_plausible(row)
        return row


_PLAIN_LINE: Final = re.compile(
    rf"(?:(?:[0-9]{{1,{MAX_SLOT_DIGITS}}}-[0-9]{{1,{MAX_SLOT_DIGITS}}}|(?i:redeal))"
    rf"(?:\s+|$))*")
"""A line of moves and redeals only, as :func:`gapgrid.core.notation.parse_action` reads
them, which a solver writes: the check of a well-formed line without a call per action."""


def _check_plausible(row: StudyRow) -> None:
    """:class:`StudyFileError` for a row no study writes: a game number PySolFC has not, a
    negative count, a time that is not a number of seconds, or a line that is not actions
    in gapgrid's notation. (Whether the line wins is for ``gapgrid verify``: replaying
    every row would make reading a file as slow as solving it.)"""
    if not 1 <= row.game_number <= MAX_NUMBER:
        raise StudyFileError(f"game number {row.game_number}: PySolFC's run from 1 to "
                             f"{MAX_NUMBER}")
    counts = (("line_length", row.line_length, 0), ("positions", row.positions, 0),
              ("budget_positions", row.budget_positions, 1),
              ("budget_memory_mib", row.budget_memory_mib, 1))  # a cap is 1 MiB or more
    for column, count, least in counts:
        if count is not None and count < least:
            raise StudyFileError(f"{column} {count} is not a count the solver writes")
    if not (math.isfinite(row.seconds) and row.seconds >= 0):
        raise StudyFileError(f"seconds {row.seconds} is not a time the solver spent")
    if not (math.isfinite(row.budget_seconds) and row.budget_seconds > 0):
        raise StudyFileError(f"budget_seconds {row.budget_seconds} is not a budget")
    actions = row.line.split()
    if len(actions) != row.line_length or (row.verdict == "won") != bool(actions):
        raise StudyFileError(f"a {row.verdict} row with line_length {row.line_length} and "
                             f"{len(actions)} actions in its line")
    if _PLAIN_LINE.fullmatch(row.line):
        return  # one regular expression over the line: every reader checks every row
    for action in actions:  # then find the action at fault, and say why
        try:
            parsed = parse_action(action)
        except NotationError as error:
            raise StudyFileError(f"its line holds {error}") from None
        if parsed is UNDO:
            raise StudyFileError("its line holds 'undo': a solver's line never does")


HEADER_LINE: Final = ",".join(COLUMNS) + "\n"

HEADER_BEFORE_MEMORY: Final = ",".join(COLUMNS_BEFORE_MEMORY) + "\n"

_HEADERS: Final = {HEADER_LINE.encode(): COLUMNS,
                   HEADER_BEFORE_MEMORY.encode(): COLUMNS_BEFORE_MEMORY}
"""The study files' headers this version reads, with their columns."""


def _csv_line(fields: list[str]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(fields)
    text = buffer.getvalue()
    if text.count("\n") != 1:  # one row, one physical line: resuming relies on it
        raise ValueError(f"a study field holds a line break: {fields!r}")
    return text


def options_text(options: Mapping[str, str]) -> str:
    """Rule options as a row records them: ``key=value`` pairs sorted by key, space-separated."""
    return " ".join(f"{key}={value}" for key, value in sorted(options.items()))


def line_fault(catalogue: Catalogue, row: StudyRow) -> str | None:
    """Why the line of a won ``row`` does not win its deal when replayed (None: it wins): a
    row that says won without a winning line was not written by gapgrid, and a merge that
    kept it would publish a win that is not one. A variant not loaded, or options it does
    not take, are a reason too: the line cannot be checked."""
    options = dict(pair.partition("=")[::2] for pair in row.options.split())  # options_text's
    try:
        rules = catalogue.rules(row.variant, options)
        actions = [parse_action(text) for text in row.line.split()]
    except (UnknownVariantError, OptionError) as error:
        return f"its line cannot be checked here ({error}): is the variant's plugin loaded?"
    except NotationError as error:
        return f"its line is not one: {error}"
    result = replay(rules, DealNumber(row.game_number), actions)
    if result.error is not None:
        return (f"action {result.applied + 1} of its line, {result.error.move}, is refused "
                f"({card_names(result.error.reason)})")
    return None if result.won else "its line ends before the game is won"


# -- study files ----------------------------------------------------------------------------------


@attrs.frozen
class StudyFile:
    """What a study file holds, read without keeping its rows."""

    done: frozenset[tuple[str, str, int]]
    """The keys (:attr:`StudyRow.key`) of the deals it has a row for."""

    settings: frozenset[StudySettings]
    """The settings its rows were solved under: one for a study run once, more when some
    deals were retried at a larger budget (``--retry-unknown``)."""

    unknown: Mapping[tuple[str, str, int], StudySettings]
    """The deals whose latest row is ``unknown``, with the settings of that row."""

    stopped_by_memory: Mapping[tuple[str, str, int], int | None]
    """Those of them whose search stopped because its tables were full, with the MiB they
    could hold (None in a row written before rows recorded it)."""

    variants: frozenset[str]
    complete_bytes: int
    """Where its last complete line ends: a partial line after it is to be ignored."""

    before_memory: bool = False
    """Whether its header is the one of files written before rows recorded the memory cap
    (:data:`COLUMNS_BEFORE_MEMORY`): a study upgrades it (:func:`upgrade_study_file`)
    before adding rows."""


def open_study_file(path: Path) -> BinaryIO:
    """Open the study file at ``path`` to read; a :class:`StudyFileError` when it is not a
    regular file (a FIFO, a device): its readers go over it more than once, and a FIFO
    would hang the open (:func:`~gapgrid.api.reading.open_to_read`). Other failures raise
    :class:`OSError` as ``open()`` does."""
    handle = open_to_read(path)
    if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
        handle.close()
        raise StudyFileError(f"{path} is not a regular file: a study file is a CSV file "
                             f"on disk")
    return handle


def iter_rows(path: Path) -> Iterator[tuple[int, StudyRow]]:
    """Each complete row of the study file at ``path`` with the byte offset just past it.

    A last line without its newline was cut short by an interruption and is
    skipped; any other malformed line, or a header that is not a study's,
    raises :class:`StudyFileError`, since the file is then not one this
    command wrote.
    """
    with open_study_file(path) as handle:
        yield from rows_of(handle, path)


def rows_of(handle: BinaryIO, path: Path) -> Iterator[tuple[int, StudyRow]]:
    """:func:`iter_rows` on an open file (``path`` names it in errors), read from its start:
    a caller that reads a file twice reads the same file, even if a study replaces it."""
    offset, columns = read_header(handle, path)
    if columns is None:  # interrupted before the header was whole
        return
    decided: dict[tuple[str, str, int], str] = {}
    for number, raw in enumerate(iter(lambda: handle.readline(MAX_LINE_BYTES), b""), start=2):
        if not raw.endswith(b"\n"):
            if len(raw) == MAX_LINE_BYTES:
                raise StudyFileError(f"{path}, line {number}: longer than {MAX_LINE_BYTES:,} "
                                     f"bytes, which no study row is")
            return
        offset += len(raw)
        try:
            row = row_of_line(raw, columns)
        except (UnicodeDecodeError, csv.Error, StudyFileError, StopIteration) as error:
            raise StudyFileError(f"{path}, line {number}: {error}{_mixed(columns, raw)}"
                                 ) from None
        _check_verdict_kept(decided, row, path, number)
        yield offset, row


def row_of_line(raw: bytes, columns: tuple[str, ...]) -> StudyRow:
    """The row a whole line of a study file holds, under the header's ``columns``; raises
    what reading it meets (:func:`rows_of` says where)."""
    return StudyRow.from_fields(next(csv.reader([raw.decode("utf-8")])), columns)


def _check_verdict_kept(decided: dict[tuple[str, str, int], str], row: StudyRow, path: Path,
                        number: int) -> None:
    """A :class:`StudyFileError` when ``row`` (line ``number``) follows a row that decided
    its deal otherwise; else note its verdict in ``decided``. A later row of a deal
    replaces an earlier one only when that one is unknown (``--retry-unknown``), so a
    decided deal followed by another verdict was not written by one study (files joined,
    or a solver wrong): taking the later row would throw away a won line or a proof."""
    before = decided.get(row.key)
    if before is not None and row.verdict != before:
        raise StudyFileError(f"{path}, line {number}: game {row.game_number} of "
                             f"{row.variant}{f' ({row.options})' if row.options else ''} is "
                             f"{row.verdict} here and {before} in an earlier row: a study "
                             f"never writes a deal again once decided")
    if row.verdict != "unknown":
        decided[row.key] = row.verdict


def _mixed(columns: tuple[str, ...], raw: bytes) -> str:
    """A hint for a row with the other header's number of fields: rows of a file written
    before rows recorded the memory cap appended to a current one, or the other way round."""
    other = COLUMNS if columns is COLUMNS_BEFORE_MEMORY else COLUMNS_BEFORE_MEMORY
    try:
        if len(next(csv.reader([raw.decode("utf-8")]))) != len(other):
            return ""
    except (UnicodeDecodeError, StopIteration):
        return ""
    return (" (a row of a study file with the other header: files written before and after "
            "rows recorded the memory cap are put together with python -m "
            "gapgrid.api.study_merge)")


def read_header(handle: BinaryIO, path: Path) -> tuple[int, tuple[str, ...] | None]:
    """The length of the header line of the study file open in ``handle`` (at ``path``),
    read from the file's start, and the columns it names: ``(0, None)`` when it was cut
    short; :class:`StudyFileError` when it is not a study file's header. The handle is left
    just past the header."""
    handle.seek(0)
    header = handle.readline(len(HEADER_LINE) + 1)  # longer: not a header this reads
    columns = _HEADERS.get(header)
    if columns is None and any(known.startswith(header) for known in _HEADERS):
        return 0, None  # a header cut short: nothing of the file to keep
    if columns is None:
        raise StudyFileError(f"{path} is not a gapgrid study file (its first line is not "
                             f"the header {HEADER_LINE.strip()!r})")
    return len(header), columns


def iter_latest_rows(path: Path) -> Iterator[StudyRow]:
    """The rows of the study file at ``path`` that count: the latest one of each deal.

    A retry at a larger budget (``--retry-unknown``) appends a deal's new row
    after its unknown one, and the file is sorted, keeping only the latest
    row, when the command ends; a file cut short before that may hold both.
    Two passes over one open file (a study that replaces the file meanwhile
    does not change what is read), the second stopping where the first
    did; memory: one key and offset per deal rather than the rows.
    """
    with open_study_file(path) as handle:
        latest: dict[tuple[str, str, int], int] = {}
        end = 0
        for offset, row in rows_of(handle, path):
            latest[row.key] = end = offset
        handle.seek(0)
        for offset, row in rows_of(handle, path):
            if offset > end:
                break
            if latest.get(row.key) == offset:
                yield row


def read_study_file(path: Path) -> StudyFile:
    """Read what is done in the study file at ``path`` (memory: one key per row)."""
    done: set[tuple[str, str, int]] = set()
    settings: set[StudySettings] = set()
    unknown: dict[tuple[str, str, int], StudySettings] = {}
    by_memory: dict[tuple[str, str, int], int | None] = {}
    variants: set[str] = set()
    with open_study_file(path) as handle:
        complete, columns = read_header(handle, path)
    before_memory = columns is COLUMNS_BEFORE_MEMORY
    for offset, row in iter_rows(path):
        done.add(row.key)
        settings.add(row.settings)
        if row.verdict == "unknown":
            unknown[row.key] = row.settings
        else:
            unknown.pop(row.key, None)
        if row.verdict == "unknown" and row.stopped_by == "memory":
            by_memory[row.key] = row.budget_memory_mib
        else:
            by_memory.pop(row.key, None)
        variants.add(row.variant)
        complete = offset
    return StudyFile(done=frozenset(done), settings=frozenset(settings), unknown=unknown,
                     stopped_by_memory=by_memory, variants=frozenset(variants),
                     complete_bytes=complete, before_memory=before_memory)


def check_resumable(path: Path, found: StudyFile, settings: StudySettings,
                    variants: Iterable[str], retry: bool = False) -> None:
    """Refuse to add this study's rows to a file written under other settings or variants.

    Resuming needs the same options, solver version and budget as the rows
    the file was started with; rows at a larger budget of the same study
    (deals retried since with ``--retry-unknown``) may be there too. A retry
    (``retry``) needs the same options and solver version, whatever the
    budgets, and may work on some of the variants of the file. The solver
    version names the search too (``18-complete``: ``--search complete``).
    """
    if retry:
        other = sorted((each for each in found.settings
                        if (each.options, each.solver_version)
                        != (settings.options, settings.solver_version)), key=repr)
    elif found.settings and settings not in found.settings:
        other = sorted(found.settings, key=budget_order)
    else:
        other = sorted((each for each in found.settings
                        if each != settings and not (
                            (each.options, each.solver_version)
                            == (settings.options, settings.solver_version)
                            and each.exceeds(settings))), key=repr)
    if other and not retry and all(
            (each.options, each.solver_version) == (settings.options, settings.solver_version)
            and each.exceeds(settings) for each in found.settings):
        # Every deal retried: a retried deal keeps only its latest row, so the budget the
        # file was started with is nowhere in it any more.
        raise StudyFileError(
            f"{path} holds rows solved with budget {other[0].budget_text()} at the smallest, "
            f"larger than this study's {settings.budget_text()}: resume it with that budget, "
            f"or choose another --out (a file started with a smaller budget whose every deal "
            f"was retried with --retry-unknown shows it no more: a retried deal keeps only "
            f"its latest row)")
    if other:
        advice = ("Retry it with the same options, solver version and --search, or run a "
                  "new study of its unknown deals (another --out, --skip-decided-in it)"
                  if retry else
                  "Resume it with the same options and budget (and the same solver version "
                  "and --search), or choose another --out")
        raise StudyFileError(
            f"{path} was written with {other[0].describe()}; this study has "
            f"{settings.describe()}. {advice}")
    foreign = sorted(found.variants - set(variants))
    if foreign and not retry:
        raise StudyFileError(f"{path} holds deals of {', '.join(foreign)}, which this study "
                             f"does not solve; choose another --out")


def budget_order(settings: StudySettings) -> tuple[float, float]:
    """A sort key putting smaller budgets first (seconds, then positions; no cap last)."""
    return (settings.budget_seconds,
            math.inf if settings.budget_positions is None else settings.budget_positions)


def budget_seconds_as_stored(seconds: float) -> float:
    """``seconds`` as a row stores it (``%g``, six significant digits), so a budget given on
    the command line compares equal to the same budget read back from a file."""
    return float(f"{seconds:g}")


def sort_study_file(path: Path) -> None:
    """Rewrite the study file at ``path`` sorted by variant, options and game number.

    Rows are appended as deals finish, in whatever order workers finish
    them; sorting at the end makes the file the same whatever the number of
    workers. Only each row's key and place are held in memory; the lines
    are copied from the file, under its own header. The new file replaces
    the old one atomically, so an interruption leaves one or the other. A
    partial last line is dropped; of two rows for one deal (an unknown one
    and its retry at a larger budget) the later is kept. A file sorted
    already, with no partial line, is left as it is: a finished study
    resumed in a folder it may not write to still ends well.
    """
    places: dict[tuple[str, str, int], tuple[int, int]] = {}
    in_order, last_key = True, None
    with open_study_file(path) as source:
        start, _ = read_header(source, path)
        for end, row in rows_of(source, path):
            in_order = in_order and (last_key is None or row.key > last_key)
            last_key = row.key
            places[row.key] = (start, end - start)
            start = end
        if in_order and start == source.seek(0, os.SEEK_END):
            # sorted already, no partial line: not rewritten (nor its folder written), but
            # made as durable as a rewritten one would be
            try:
                os.fsync(source.fileno())
            except OSError as error:  # a file system that cannot is no failure to write
                if error.errno not in (errno.EINVAL, errno.EROFS):
                    raise
            return

        def write(out: BinaryIO) -> None:
            source.seek(0)
            header = source.readline()  # the file's own: its rows are copied as they are
            out.write(header if header.endswith(b"\n") else HEADER_LINE.encode())
            for key in sorted(places):
                offset, length = places[key]
                source.seek(offset)
                out.write(source.read(length))

        replace_atomically(path, write)


def upgrade_study_file(path: Path) -> None:
    """Rewrite the study file at ``path``, written before rows recorded the memory cap
    (:data:`COLUMNS_BEFORE_MEMORY`), under the current header: each row's line as it was,
    with an empty ``budget_memory_mib`` added (not recorded). Atomically, as
    :func:`sort_study_file`; a partial last line is dropped. Memory: each row's end."""
    with open_study_file(path) as source:
        start, columns = read_header(source, path)
        if columns is not COLUMNS_BEFORE_MEMORY:
            return  # already the current header (or none whole): nothing to add
        ends = [end for end, _ in rows_of(source, path)]  # every row checked first

        def write(out: BinaryIO) -> None:
            out.write(HEADER_LINE.encode())
            source.seek(start)
            for end in ends:
                out.write(upgraded_line(source.read(end - source.tell())))

        replace_atomically(path, write)


def upgraded_line(raw: bytes) -> bytes:
    """A whole row line of a file written before rows recorded the memory cap, as the
    current header has it: the same fields, and an empty ``budget_memory_mib``."""
    return raw.rstrip(b"\r\n") + b",\n"


def replace_atomically(path: Path, write: Callable[[BinaryIO], None]) -> None:
    """Replace the file at ``path`` by what ``write`` writes: to a temporary file beside it,
    synced, then renamed over it, so an interruption leaves the old file or the new one.
    The new file has the old one's permissions (a new one, the usual ones). A symbolic
    link is followed (the file it names is replaced, the link stays); anything else but
    a regular file at ``path`` (a device, a FIFO) is a :class:`StudyFileError`, and is
    left as it is."""
    path = Path(os.path.realpath(path))
    if os.path.lexists(path) and not path.is_file():
        raise StudyFileError(f"{path} is not a regular file: it is not replaced")
    mode = _mode_for(path)
    # a short name of its own: the file's name and more might pass the system's limit
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".gapgrid-", suffix=".tmp")
    try:
        os.chmod(temporary, mode)  # mkstemp's are the owner's alone
        with os.fdopen(handle, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def hold(handle: BinaryIO, path: Path) -> bool:
    """Keep the study file open in ``handle`` (at ``path``) to this process while it writes
    it: whether that was done, False when another process holds it (a study appending to
    it), or when the file at ``path`` is no longer the one opened. Two commands writing one
    file, each replacing it by a sorted copy at its end, would lose each other's rows. The
    hold lasts until ``handle`` is closed. (No such hold on Windows: always True there.)
    Any other failure to lock (no locks on this file system) raises :class:`OSError`, for
    what it is, rather than pass for another process's hold. ``handle`` should be open for
    writing: an NFS server locks only such files."""
    if sys.platform == "win32":
        return True
    import fcntl

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:  # EWOULDBLOCK: another process holds it
        return False
    try:
        opened, now = os.fstat(handle.fileno()), os.stat(path)
    except FileNotFoundError:  # taken away meanwhile
        return False
    # A study that ends (sorting) or starts (upgrading) replaces the file by another:
    # holding the one it replaced would write to a file no longer there.
    return (opened.st_dev, opened.st_ino) == (now.st_dev, now.st_ino)


def _mode_for(path: Path) -> int:
    """The permissions a file replacing ``path`` gets: its own, or a new file's (0666 less
    the process's umask)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        umask = os.umask(0o022)  # reading the umask means setting it: put it straight back
        os.umask(umask)
        return 0o666 & ~umask


# -- statistics -----------------------------------------------------------------------------------


@attrs.frozen
class Interval:
    """A share with its 95 % Wilson score interval (all three between 0 and 1)."""

    share: float
    low: float
    high: float


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> Interval | None:
    """The Wilson score interval for ``successes`` out of ``trials`` (None for no trial).

    Wilson's interval rather than the normal approximation: it stays inside
    [0, 1] and keeps close to its nominal coverage for shares near 0 or 1
    and for small samples, which a study of a few hundred deals has.
    """
    if trials <= 0:
        return None
    if not 0 <= successes <= trials:
        raise ValueError(f"{successes} successes out of {trials} trials")
    share = successes / trials
    denominator = 1 + z * z / trials
    centre = (share + z * z / (2 * trials)) / denominator
    half = z / denominator * math.sqrt(share * (1 - share) / trials
                                       + z * z / (4 * trials * trials))
    # at 0 or all successes the exact bound is 0 or 1; rounding could leave 1e-17 instead
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return Interval(share=share, low=low, high=high)


@attrs.frozen
class Summary:
    """The figures of one study (one variant under one set of options)."""

    variant: str
    options: str
    won: int
    lost: int
    unknown: int
    median_seconds: float | None
    """Median seconds to a decision (won or lost deals); None when none was decided."""

    budget_seconds: float
    budget_positions: int | None
    """The study's budget: the smallest its rows were solved under."""

    solver_version: str
    """The solver version of the rows; of a merged study, each of its versions, ``3, 11``."""

    first_deal: int
    last_deal: int
    retries: tuple[tuple[str, int], ...] = ()
    """Larger budgets some deals were retried under (``--retry-unknown``), each in words
    with the number of deals whose row it decided or left unknown, smallest first."""

    @property
    def deals(self) -> int:
        """Deals solved."""
        return self.won + self.lost + self.unknown

    @property
    def decided(self) -> int:
        """Deals with a verdict (won or lost)."""
        return self.won + self.lost

    @property
    def winnable(self) -> Interval | None:
        """The winnable share among decided deals, won / (won + lost)."""
        return wilson_interval(self.won, self.decided)

    @property
    def unknown_as_lost(self) -> Interval | None:
        """The share if every unknown deal were lost: won / deals (the low bound)."""
        return wilson_interval(self.won, self.deals)

    @property
    def unknown_as_won(self) -> Interval | None:
        """The share if every unknown deal were won: (won + unknown) / deals (the high bound)."""
        return wilson_interval(self.won + self.unknown, self.deals)

    def first_budget_text(self) -> str:
        """The study's budget in words, without the larger ones: ``10 s``."""
        return StudySettings(self.options, self.solver_version, self.budget_seconds,
                             self.budget_positions).budget_text()

    def budget_text(self) -> str:
        """The budget in words, with the larger ones: ``10 s (60 s for 8 deals)``."""
        first = self.first_budget_text()
        if not self.retries:
            return first
        retried = "; ".join(f"{budget} for {deals} {'deal' if deals == 1 else 'deals'}"
                            for budget, deals in self.retries)
        return f"{first} ({retried})"

    def game_numbers_text(self) -> str:
        """Which game numbers the deals are: ``game numbers 1 to 3`` when they are every
        one in that range, ``among the game numbers 209 to 949`` when some between were
        not studied (a ``--game-numbers`` list, or a study stopped with a deal running),
        so the range never claims deals it lacks."""
        span = f"game numbers {self.first_deal} to {self.last_deal}"
        if self.deals == self.last_deal - self.first_deal + 1:
            return span
        return f"among the {span}"

    @property
    def label(self) -> str:
        """The variant with its options, as tables and plots name the study."""
        return f"{self.variant} ({self.options})" if self.options else self.variant

    def as_json(self) -> dict[str, Any]:
        """The summary as ``gapgrid study --json`` prints it: the counts, the three shares
        with their 95 % intervals (None where no deal counts), the study's budget (the
        smallest, in words and figures) and the larger ones deals were retried under."""
        def interval(value: Interval | None) -> dict[str, float] | None:
            return None if value is None else attrs.asdict(value)

        return {
            "variant": self.variant, "options": self.options,
            "first_deal": self.first_deal, "last_deal": self.last_deal,
            "deals": self.deals, "won": self.won, "lost": self.lost, "unknown": self.unknown,
            "median_seconds": self.median_seconds, "solver_version": self.solver_version,
            "budget": self.first_budget_text(),
            "budget_seconds": self.budget_seconds,
            "budget_positions": self.budget_positions,
            "retries": [{"budget": budget, "deals": deals} for budget, deals in self.retries],
            "winnable": interval(self.winnable),
            "unknown_as_lost": interval(self.unknown_as_lost),
            "unknown_as_won": interval(self.unknown_as_won),
        }

    def lines(self) -> list[str]:
        """The summary in words, as the command prints it at the end."""
        def percent(interval: Interval | None) -> str:
            if interval is None:
                return "no deal"
            return (f"{interval.share:.1%} (95 % Wilson interval "
                    f"{interval.low:.1%} to {interval.high:.1%})")

        median = ("-" if self.median_seconds is None else f"{self.median_seconds:.2f} s")
        lines = [
            f"{self.label}: {plural(self.deals, 'deal')} ({self.game_numbers_text()}), "
            f"solver {self.solver_version}, budget {self.budget_text()}",
            f"  won {self.won}, lost {self.lost}, unknown {self.unknown} "
            f"({self.unknown / self.deals:.1%} of the deals); median time to a decision "
            f"{median}",
            f"  winnable share of the decided deals: {percent(self.winnable)}",
            f"  every unknown counted as lost: {percent(self.unknown_as_lost)}",
            f"  every unknown counted as won:  {percent(self.unknown_as_won)}",
        ]
        bounds = self.unknown_as_lost, self.unknown_as_won
        if bounds[0] is not None and bounds[1] is not None:
            lines.append(f"  so the winnable share lies between {bounds[0].low:.1%} and "
                         f"{bounds[1].high:.1%} (95 %), whatever the unknown deals are")
        return lines


def summarise(rows: Iterable[StudyRow]) -> list[Summary]:
    """One summary per variant and options among ``rows``, in order of first appearance.

    ``rows`` holds one row per deal (:func:`iter_latest_rows`); deals retried
    at a larger budget count under it in :attr:`Summary.retries`.
    """
    counts: dict[tuple[str, str], dict[str, int]] = {}
    seconds: dict[tuple[str, str], list[float]] = {}
    first: dict[tuple[str, str], StudyRow] = {}
    numbers: dict[tuple[str, str], tuple[int, int]] = {}
    budgets: dict[tuple[str, str], dict[StudySettings, int]] = {}
    for row in rows:
        group = (row.variant, row.options)
        if group not in first:
            first[group] = row
            counts[group] = dict.fromkeys(VERDICTS, 0)
            seconds[group] = []
            numbers[group] = (row.game_number, row.game_number)
            budgets[group] = {}
        counts[group][row.verdict] += 1
        if row.verdict != "unknown":
            seconds[group].append(row.seconds)
        low, high = numbers[group]
        numbers[group] = (min(low, row.game_number), max(high, row.game_number))
        settings = row.settings
        budgets[group][settings] = budgets[group].get(settings, 0) + 1
    summaries = []
    for group in first:
        by_size = sorted(budgets[group], key=budget_order)
        base = by_size[0]
        # Studies merged from several solvers (``gapgrid.api.study_merge``) hold one budget
        # under several versions: the deals count under the budget, the versions are listed.
        retries: dict[str, int] = {}
        for each in by_size[1:]:
            if each.budget_text() != base.budget_text():
                retries[each.budget_text()] = retries.get(each.budget_text(), 0) + budgets[
                    group][each]
        versions = sorted({each.solver_version for each in budgets[group]}, key=version_order)
        summaries.append(Summary(
            variant=group[0], options=group[1], won=counts[group]["won"],
            lost=counts[group]["lost"], unknown=counts[group]["unknown"],
            median_seconds=(statistics.median(seconds[group]) if seconds[group] else None),
            budget_seconds=base.budget_seconds, budget_positions=base.budget_positions,
            solver_version=", ".join(versions), first_deal=numbers[group][0],
            last_deal=numbers[group][1], retries=tuple(retries.items())))
    return summaries


def version_order(version: str) -> tuple[int, str]:
    """Solver versions in numeric order (``"3"`` before ``"11"``), each with its searches
    (``"18"``, ``"18-complete"``, ``"19"``); a version that starts with no number after."""
    number, _, search = version.partition("-")
    return (int(number), search) if number.isdigit() else (1 << 30, version)
