"""Merge studies of the same deals: ``python -m gapgrid.api.study_merge OUT.csv IN.csv ...``.

Every verdict a study records is sound, whatever the solver version or
budget: a won row carries a line anyone can replay, a lost row comes from a
search that explored the whole space. So the studies of one variant by
several solvers, or at several budgets, together decide every deal any of
them decided. The merged file holds, for each deal (variant, options, game
number) in any input, one row copied as it is from an input (its solver
version and budget with it, so it replays as before; a row of a file written
before rows recorded the memory cap gets the current header's empty
``budget_memory_mib``):

* a decided row (won or lost) over an unknown one; of several decided rows,
  the one of the first input given that has one;
* of unknown rows only, the one with the largest budget (the first input's
  of equals).

Two inputs that disagree (a deal won in one and lost in the other) mean a
solver is wrong: nothing is written, and the command fails naming the deal
and the files. The line of each won row kept is replayed before anything is
written (the 823 won rows of single-round Gaps in a third of a second): a
row that says won with a line that does not win is refused, naming it. A lost row cannot be
checked so, and is taken as the file says. The output is sorted like a
study file and replaces ``OUT`` atomically, so it may be one of the inputs.
Memory: the rows themselves are copied from the files; each deal of each
input costs its key and place, about 600 bytes (two inputs of 300,000 deals,
287 MB each: 372 MB peak, 7 s, before won lines were replayed).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import BinaryIO

import attrs
import click

from gapgrid.api.cli_support import EXIT_INTERRUPTED, load_catalogue
from gapgrid.api.command_settings import HELP_OPTIONS
from gapgrid.api.services.study import (
    COLUMNS_BEFORE_MEMORY,
    HEADER_LINE,
    StudyFileError,
    budget_order,
    hold,
    line_fault,
    open_study_file,
    read_header,
    replace_atomically,
    row_of_line,
    rows_of,
    upgraded_line,
)
from gapgrid.api.text import plural
from gapgrid.core.catalogue import Catalogue

DealKey = tuple[str, str, int]


@attrs.frozen
class _Place:
    """Where a deal's latest row lies in one input, and what it says."""

    source: int
    """The input's index in the order given."""

    start: int
    length: int
    decided: bool
    verdict: str
    budget: tuple[float, float]


class StudiesDisagree(ValueError):
    """Two studies give one deal opposite verdicts."""


class OutputError(ValueError):
    """The merged file could not be written."""


def latest_places(handle: BinaryIO, path: Path, source: int) -> dict[DealKey, _Place]:
    """The place of each deal's latest row in the study file ``handle`` (at ``path``)."""
    places: dict[DealKey, _Place] = {}
    start, _ = read_header(handle, path)
    for end, row in rows_of(handle, path):
        places[row.key] = _Place(source, start, end - start, row.verdict != "unknown",
                                 row.verdict, budget_order(row.settings))
        start = end
    return places


def better(kept: _Place, other: _Place, paths: Sequence[Path], key: DealKey) -> _Place:
    """Of two rows of one deal, the one the merge keeps (``kept`` is from an earlier input)."""
    if kept.decided and other.decided:
        if kept.verdict != other.verdict:
            variant, options, number = key
            label = f"{variant} ({options})" if options else variant
            raise StudiesDisagree(
                f"{label} game {number} is {kept.verdict} in {paths[kept.source]} and "
                f"{other.verdict} in {paths[other.source]}: one of the solvers is wrong")
        return kept
    if kept.decided != other.decided:
        return kept if kept.decided else other
    return other if other.budget > kept.budget else kept


def merge(out: Path, paths: Sequence[Path], catalogue: Catalogue | None = None) -> int:
    """Write the merge of the study files ``paths`` to ``out``; return its number of deals.
    With a ``catalogue``, every won row's line is replayed first: a merge publishes wins.

    Each input is opened once and read twice through the same handle (where its rows are,
    then the rows chosen), so a study that replaces an input meanwhile changes nothing read.
    """
    with ExitStack() as stack:
        _hold_output(stack, out)  # first: a study must not write it while the inputs are read
        try:
            sources = [stack.enter_context(open_study_file(path)) for path in paths]
        except OSError as error:
            raise StudyFileError(f"cannot read {error.filename}: "
                                 f"{error.strerror or error}") from None
        chosen: dict[DealKey, _Place] = {}
        for source, (handle, path) in enumerate(zip(sources, paths, strict=True)):
            for key, place in latest_places(handle, path, source).items():
                kept = chosen.get(key)
                chosen[key] = place if kept is None else better(kept, place, paths, key)
        if catalogue is not None:
            _check_won_lines(catalogue, sources, paths, chosen)
        # Whether each input was written before rows recorded the memory cap: its rows are
        # then written under the current header (upgraded_line) rather than copied.
        before_memory = [read_header(handle, path)[1] is COLUMNS_BEFORE_MEMORY
                         for handle, path in zip(sources, paths, strict=True)]
        _write(out, sources, before_memory, chosen)
    return len(chosen)


def _check_won_lines(catalogue: Catalogue, sources: Sequence[BinaryIO],
                     paths: Sequence[Path], chosen: dict[DealKey, _Place]) -> None:
    """Replay the line of each won row the merge keeps (:func:`line_fault`), once a deal
    however many inputs won it; a line that does not win is a :class:`StudyFileError`
    naming its file, before anything is written."""
    columns = [read_header(handle, path)[1] for handle, path in zip(sources, paths, strict=True)]
    for key in sorted(chosen):
        place = chosen[key]
        if place.verdict != "won":
            continue
        handle, path, header = sources[place.source], paths[place.source], columns[place.source]
        assert header is not None  # the file had rows, so a whole header
        handle.seek(place.start)
        row = row_of_line(handle.read(place.length), header)
        fault = line_fault(catalogue, row)
        if fault is not None:
            study = f"{row.variant} ({row.options})" if row.options else row.variant
            raise StudyFileError(f"{path}: game {row.game_number} of {study} is won, "
                                 f"but {fault}")


def _hold_output(stack: ExitStack, out: Path) -> None:
    """Hold ``out``, when it is there, as a study holds its file (:func:`hold`), until the
    merge has replaced it: merging into a file a study is writing would replace it under
    the study, whose later rows would go into the file replaced."""
    try:
        with open_study_file(out):  # a regular file: a FIFO is never opened to write
            pass
        handle: BinaryIO
        try:
            handle = stack.enter_context(out.open("r+b"))  # NFS locks only files open so
        except PermissionError:  # a file this user may not write, but may replace
            handle = stack.enter_context(open_study_file(out))
        held = hold(handle, out)
    except FileNotFoundError:
        return  # a new file: no study can be writing it
    except StudyFileError as error:
        raise OutputError(str(error)) from None
    except OSError as error:
        raise OutputError(f"cannot lock {out}: {error.strerror or error}") from None
    if not held:
        raise OutputError(f"another gapgrid study is writing {out} now: wait until it ends, "
                          f"or merge into another file")


def _write(out: Path, sources: Sequence[BinaryIO], before_memory: Sequence[bool],
           chosen: dict[DealKey, _Place]) -> None:
    """Write the ``chosen`` rows, copied from ``sources``, sorted by deal, to ``out``: a
    temporary file that replaces ``out`` once whole (:func:`replace_atomically`)."""
    def write(written: BinaryIO) -> None:
        written.write(HEADER_LINE.encode())
        for key in sorted(chosen):
            place = chosen[key]
            sources[place.source].seek(place.start)
            line = sources[place.source].read(place.length)
            written.write(upgraded_line(line) if before_memory[place.source] else line)

    try:
        replace_atomically(out, write)
    except StudyFileError as error:  # not a regular file: not replaced
        raise OutputError(str(error)) from None
    except OSError as error:
        raise OutputError(f"cannot write {out}: {error.strerror or error}") from None


@click.command(context_settings=HELP_OPTIONS)
@click.argument("out", metavar="OUT.csv", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("inputs", metavar="IN.csv...", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.pass_context
def main(ctx: click.Context, out: Path, inputs: Sequence[Path]) -> None:
    """Merge the study files IN.csv... into OUT.csv: for each deal, a decided row of the first
    input that has one, else the unknown row with the largest budget. Exit status 1 when two
    inputs disagree on a deal, 2 for an input or an OUT.csv that cannot be used, 130 after
    Ctrl-C; OUT.csv is then as it was."""
    try:
        deals = merge(out, list(inputs), load_catalogue(ctx))
    except StudyFileError as error:
        raise click.BadParameter(str(error), param_hint="IN.csv") from None
    except OutputError as error:
        raise click.BadParameter(str(error), param_hint="OUT.csv") from None
    except StudiesDisagree as error:
        raise click.ClickException(str(error)) from None
    except KeyboardInterrupt:
        click.echo("gapgrid: interrupted before OUT.csv was replaced: it is as it was",
                   err=True)
        ctx.exit(EXIT_INTERRUPTED)
    click.echo(f"{out}: {plural(deals, 'deal')} from {plural(len(inputs), 'study', 'studies')}")


if __name__ == "__main__":
    main()
