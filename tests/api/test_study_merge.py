"""``python -m gapgrid.api.study_merge``: studies of the same deals by several solvers as one."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

import attrs
import pytest
from click.testing import CliRunner

from gapgrid.api import study_merge
from gapgrid.api.services.study import (
    HEADER_BEFORE_MEMORY,
    HEADER_LINE,
    StudyRow,
    hold,
    iter_latest_rows,
    summarise,
)

WON_LINES: Final = {row.game_number: row.line for row in iter_latest_rows(
    Path(__file__).parents[2] / "data" / "study" / "merged" / "montana-redeals-0.csv")
    if row.verdict == "won" and row.game_number <= 12}
"""Lines that win single-round Gaps games 1, 2, 4 to 9, 11 and 12 (from the study data):
a merge replays every won row's line."""


def _row(number: int, verdict: str, version: str, budget: float = 10.0,
         variant: str = "montana", options: str = "redeals=0") -> StudyRow:
    line = WON_LINES[number] if verdict == "won" else ""
    return StudyRow(variant=variant, options=options, game_number=number, verdict=verdict,
                    line_length=len(line.split()), positions=100, seconds=1.0,
                    stopped_by="" if verdict != "unknown" else "seconds",
                    solver_version=version, budget_seconds=budget, budget_positions=None,
                    line=line)


def _study(path: Path, *rows: StudyRow) -> Path:
    path.write_text(HEADER_LINE + "".join(row.csv_line() for row in rows))
    return path


def _merge(*arguments: Path) -> tuple[int, str]:
    result = CliRunner().invoke(study_merge.main, [str(argument) for argument in arguments])
    return result.exit_code, result.output


def test_each_deal_keeps_a_decided_row_else_the_largest_budget(tmp_path: Path) -> None:
    """Deal 1 is unknown in the first study and won in the second: the won row; deal 2 won
    in both: the first study's; deal 3 unknown in both: the second's 60 s retry; deal 4 lost in the
    first only; deal 5 only in the second. Rows are copied whole, sorted by deal."""
    first = _study(tmp_path / "a.csv", _row(1, "unknown", "11"), _row(2, "won", "11"),
                   _row(3, "unknown", "11"), _row(4, "lost", "11"))
    second = _study(tmp_path / "b.csv", _row(5, "won", "13"), _row(1, "won", "13"),
                    _row(2, "won", "13"), _row(3, "unknown", "13", 60.0),
                    _row(4, "unknown", "13"))
    out = tmp_path / "merged.csv"
    code, output = _merge(out, first, second)
    assert code == 0 and "5 deals from 2 studies" in output
    rows = list(iter_latest_rows(out))
    assert [(row.game_number, row.verdict, row.solver_version, row.budget_seconds)
            for row in rows] == [(1, "won", "13", 10.0), (2, "won", "11", 10.0),
                                 (3, "unknown", "13", 60.0), (4, "lost", "11", 10.0),
                                 (5, "won", "13", 10.0)]
    assert rows[0].line == WON_LINES[1]
    (summary,) = summarise(rows)
    assert (summary.won, summary.lost, summary.unknown) == (3, 1, 1)
    # The summary names both solvers and counts 10 s rows as one budget, whichever wrote them.
    assert summary.solver_version == "11, 13"
    assert summary.budget_text() == "10 s (60 s for 1 deal)"


def test_a_study_of_the_complete_search_merges_as_its_own_solver(tmp_path: Path) -> None:
    """A --search complete study (version 18-complete) decides what the whole search left
    unknown; the merged summary names each version once, in numeric order, each search after
    its number (not 18-complete after 19, nor 3-complete after 11)."""
    whole = _study(tmp_path / "whole.csv", _row(1, "unknown", "18"), _row(2, "won", "18"),
                   _row(4, "won", "3"), _row(5, "won", "19"))
    complete = _study(tmp_path / "complete.csv", _row(1, "lost", "18-complete"),
                      _row(6, "won", "3-complete"), _row(7, "won", "11"))
    out = tmp_path / "merged.csv"
    code, output = _merge(out, whole, complete)
    assert code == 0, output
    rows = list(iter_latest_rows(out))
    assert (rows[0].game_number, rows[0].verdict, rows[0].solver_version) == (
        1, "lost", "18-complete")
    (summary,) = summarise(rows)
    assert summary.solver_version == "3, 3-complete, 11, 18, 18-complete, 19"


def _study_before_memory(path: Path, *rows: StudyRow) -> Path:
    """A study file as gapgrid wrote them before rows recorded the memory cap."""
    path.write_text(HEADER_BEFORE_MEMORY + "".join(row.csv_line().rsplit(",", 1)[0] + "\n"
                                                   for row in rows))
    return path


def test_files_from_before_the_memory_column_merge_under_the_current_header(
        tmp_path: Path) -> None:
    """An input written before rows recorded the memory cap merges with a current one: the
    output has the current header, the old file's rows their fields with an empty cap, the
    new file's rows their cap."""
    old = _study_before_memory(tmp_path / "old.csv", _row(1, "won", "11"),
                               _row(2, "unknown", "11"))
    new = _study(tmp_path / "new.csv",
                 attrs.evolve(_row(2, "lost", "14"), budget_memory_mib=6144))
    out = tmp_path / "merged.csv"
    code, output = _merge(out, old, new)
    assert code == 0, output
    lines = out.read_text().splitlines()
    assert lines[0] + "\n" == HEADER_LINE
    assert [(row.game_number, row.verdict, row.budget_memory_mib, row.line)
            for row in iter_latest_rows(out)] == [(1, "won", None, WON_LINES[1]),
                                                  (2, "lost", 6144, "")]


def test_a_deal_won_in_one_study_and_lost_in_another_writes_nothing(tmp_path: Path) -> None:
    """Opposite verdicts mean a solver is wrong: the command fails naming the deal and both
    files, and leaves OUT as it was."""
    first = _study(tmp_path / "a.csv", _row(7, "won", "11"))
    second = _study(tmp_path / "b.csv", _row(7, "lost", "13"))
    out = tmp_path / "merged.csv"
    out.write_text("before")
    code, output = _merge(out, first, second)
    assert code == 1 and "game 7 is won in" in output and "lost in" in output
    assert str(second) in output and out.read_text() == "before"
    assert not [path for path in tmp_path.iterdir() if path.name.endswith(".tmp")]


def test_other_variants_and_options_are_other_deals(tmp_path: Path) -> None:
    """Game 1 of Line Up and of single-round Montana are two deals; OUT may be an input."""
    first = _study(tmp_path / "a.csv", _row(1, "won", "13"))
    second = _study(tmp_path / "b.csv", _row(1, "lost", "13", variant="line-up", options=""))
    code, _ = _merge(first, first, second)
    assert code == 0
    assert [(row.variant, row.verdict) for row in iter_latest_rows(first)] == [
        ("line-up", "lost"), ("montana", "won")]


def test_a_file_that_is_not_a_study_is_a_usage_error(tmp_path: Path) -> None:
    """A CSV of something else is refused by name (exit 2), and nothing is written."""
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    out = tmp_path / "merged.csv"
    code, output = _merge(out, other)
    assert code == 2 and "not a gapgrid study file" in output and not out.exists()
    code, output = _merge(tmp_path / "missing" / "merged.csv",
                          _study(tmp_path / "a.csv", _row(1, "won", "13")))
    assert code == 2 and "cannot write" in output and "OUT.csv" in output


def test_an_output_that_is_no_regular_file_is_left_as_it_is(tmp_path: Path) -> None:
    """OUT.csv that is a FIFO (or a device) is refused (exit 2) and not replaced (the merge
    replaced whatever OUT named, /dev/full included); a symbolic link is followed, so
    the file it names gets the merge and the link stays."""
    study = _study(tmp_path / "a.csv", _row(1, "won", "13"))
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    code, output = _merge(fifo, study)
    assert code == 2 and "is not a regular file" in output, output
    assert fifo.is_fifo()
    target = _study(tmp_path / "target.csv", _row(2, "lost", "13"))
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    code, output = _merge(link, target, study)
    assert code == 0, output
    assert link.is_symlink() and [row.game_number for row in iter_latest_rows(target)] == [1, 2]


def test_a_file_a_study_is_writing_is_not_merged_into(tmp_path: Path) -> None:
    """A study holds its file while it appends rows; a merge into that file would replace it
    under the study, whose later rows would be lost with the file replaced: refused, exit
    2, the file as it was."""
    out = _study(tmp_path / "a.csv", _row(1, "unknown", "13"))
    before = out.read_bytes()
    other = _study(tmp_path / "b.csv", _row(1, "won", "13"))
    with out.open("r+b") as held:
        assert hold(held, out)
        code, output = _merge(out, out, other)
    assert code == 2 and f"another gapgrid study is writing {out} now" in output, output
    assert out.read_bytes() == before
    assert _merge(out, out, other)[0] == 0  # once the study is over


@pytest.mark.parametrize(("line", "words"), [
    ("1-2 3-4", "action 1 of its line, 1-2, is refused (slot 2 is not a gap: it holds 9♥)"),
    ("7-29 43-21", "its line ends before the game is won"),
])
def test_a_won_row_whose_line_does_not_win_is_refused(
        tmp_path: Path, line: str, words: str) -> None:
    """A merge publishes wins: every won row's line is replayed, and one that does not win
    (an edited file, a row not written by gapgrid) is refused by name, exit 2, nothing
    written; it was kept, over a real win of another file."""
    fake = _study(tmp_path / "fake.csv", attrs.evolve(
        _row(1, "won", "13"), line=line, line_length=len(line.split())))
    real = _study(tmp_path / "real.csv", _row(1, "won", "13"))
    code, output = _merge(tmp_path / "out.csv", fake, real)
    assert code == 2, output
    assert f"game 1 of montana (redeals=0) is won, but {words}" in " ".join(output.split()), output
    assert not (tmp_path / "out.csv").exists()


def test_a_deal_decided_twice_otherwise_in_one_file_is_refused(tmp_path: Path) -> None:
    """Within one file, a later row replaces an earlier one only when that one is unknown (a
    retry): a won row followed by a lost one (files joined, say) is refused, naming the
    line, rather than the won line thrown away."""
    joined = _study(tmp_path / "joined.csv", _row(1, "won", "13"), _row(2, "unknown", "13"),
                    _row(2, "won", "13", 60.0), _row(1, "lost", "13"))
    code, output = _merge(tmp_path / "out.csv", joined)
    assert code == 2 and "line 5: game 1 of montana (redeals=0) is lost here and won in an " \
        "earlier row" in " ".join(output.split()), output
    assert not (tmp_path / "out.csv").exists()
    retried = _study(tmp_path / "retried.csv", _row(2, "unknown", "13"),
                     _row(2, "won", "13", 60.0), _row(2, "won", "13", 60.0))
    assert _merge(tmp_path / "out.csv", retried)[0] == 0


def test_an_input_replaced_while_it_is_read_is_read_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A study that sorts and replaces its file between the merge's two reads of it (where
    its rows are, then the rows) changes nothing: the rows copied are the file first read."""
    path = _study(tmp_path / "a.csv", _row(5, "won", "13"), _row(1, "lost", "13"))
    replacement = _study(tmp_path / "new.csv", _row(1, "unknown", "13", 60.0),
                         _row(2, "unknown", "13"), _row(5, "won", "13"))
    read_places = study_merge.latest_places

    def replaced_after_reading(*arguments: Any) -> Any:
        places = read_places(*arguments)
        os.replace(replacement, path)
        return places

    monkeypatch.setattr(study_merge, "latest_places", replaced_after_reading)
    out = tmp_path / "merged.csv"
    code, output = _merge(out, path)
    assert code == 0, output
    assert [(row.game_number, row.verdict) for row in iter_latest_rows(out)] == [
        (1, "lost"), (5, "won")]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_new_output_has_the_usual_permissions(tmp_path: Path) -> None:
    """A merged file made anew gets the permissions of any new file (0666 less the umask),
    not the owner-only ones of the temporary file it was written to; one it replaces keeps
    its own."""
    umask = os.umask(0o022)
    try:
        out = tmp_path / "merged.csv"
        code, _ = _merge(out, _study(tmp_path / "a.csv", _row(1, "won", "13")))
        assert code == 0 and out.stat().st_mode & 0o777 == 0o644
        out.chmod(0o600)
        code, _ = _merge(out, _study(tmp_path / "a.csv", _row(1, "won", "13")))
        assert code == 0 and out.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(umask)
