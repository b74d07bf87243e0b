"""``gapgrid study``: the CSV, resuming, the summary, and the same rows however it runs."""

from __future__ import annotations

import csv
import errno
import io
import json
import math
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import attrs
import click
import pytest
from click.testing import CliRunner, Result

from gapgrid import plugins
from gapgrid.api import study as study_module
from gapgrid.api.cli import main
from gapgrid.api.cli_support import EXIT_INTERRUPTED
from gapgrid.api.game_number_lists import parse_game_numbers
from gapgrid.api.machine_memory import MemoryLimit
from gapgrid.api.services.study import (
    COLUMNS,
    COLUMNS_BEFORE_MEMORY,
    HEADER_BEFORE_MEMORY,
    HEADER_LINE,
    MAX_LINE_BYTES,
    TIMING_COLUMNS,
    StudyFileError,
    StudyRow,
    StudySettings,
    iter_latest_rows,
    iter_rows,
    sort_study_file,
    summarise,
    wilson_interval,
)
from gapgrid.api.study_stop import Stop
from gapgrid.core.dealnumber import MAX_NUMBER, DealNumber
from gapgrid.core.game import new_game
from gapgrid.core.notation import parse_actions
from gapgrid.core.replay import replay_from
from gapgrid.core.search import SOLVER_VERSION
from tests.api.live import GAPGRID

# Line Up's first six deals at a positions budget: the same verdicts on any machine (a seconds
# budget alone would make deal 5, some 3,600 positions, depend on the machine's speed).
STUDY = ["line-up", "--deals", "6", "--budget", "60", "--max-positions", "5000"]
WON, LOST = {1, 3, 5, 6}, {4}
"""What these deals are, whatever the solver's version: it decides them well within the budget
(deal 2, won by solver 4 at exactly the budget, was unknown to solver 3)."""


def run(*args: str | Path) -> Result:
    """Run ``gapgrid`` with ``args`` in this process."""
    return CliRunner().invoke(main, [str(arg) for arg in args])


def rows_of(path: Path) -> list[dict[str, str]]:
    """The CSV's rows as dicts, checking the header on the way."""
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames or ()) == COLUMNS
        return list(reader)


def without_timing(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """The rows without the columns that change from run to run."""
    return [{key: value for key, value in row.items() if key not in TIMING_COLUMNS}
            for row in rows]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The six-deal study run once, in this process, for the tests to compare against."""
    return study_once(tmp_path_factory, "line-up.csv", STUDY)


def study_once(tmp_path_factory: pytest.TempPathFactory, name: str, arguments: list[str]
               ) -> Path:
    """The study of ``arguments`` run into a fresh file ``name``, which it must finish."""
    out = tmp_path_factory.mktemp("study") / name
    result = run("study", *arguments, "--out", out)
    assert result.exit_code == 0, result.output
    return out


def test_study_writes_one_row_per_deal_with_a_replayable_line(reference: Path) -> None:
    """Each deal has one row, in game-number order, with its verdict, the settings, and
    (when won) a line the engine replays to a win; an unknown deal says what stopped it."""
    rows = rows_of(reference)
    assert [int(row["game_number"]) for row in rows] == [1, 2, 3, 4, 5, 6]
    rules = plugins.load_catalogue().rules("line-up")
    for row in rows:
        number = int(row["game_number"])
        if number in WON | LOST:
            assert row["verdict"] == ("won" if number in WON else "lost")
        assert (row["variant"], row["options"], row["solver_version"]) == (
            "line-up", "", SOLVER_VERSION)
        assert (row["budget_seconds"], row["budget_positions"]) == ("60", "5000")
        assert row["budget_memory_mib"] == "1024"  # the default cap, recorded
        assert int(row["positions"]) > 0
        assert float(row["seconds"]) >= 0
        if row["verdict"] == "won":
            replayed = replay_from(new_game(rules, DealNumber(number)),
                                   parse_actions(row["line"].split()))
            assert replayed.ok and replayed.won
            assert len(row["line"].split()) == int(row["line_length"])
        else:
            assert row["line"] == "" and row["line_length"] == "0"
        assert (row["stopped_by"] != "") == (row["verdict"] == "unknown")
    assert reference.read_text().endswith("\n")


def six_deals(path: Path, variant: str = "line-up", options: str = "",
              second: str = "unknown") -> Path:
    """A finished study file of six deals: 4 won, 1 lost, 1 unknown (written by hand; the
    ``second`` deal's verdict may be another)."""
    verdicts = {1: "won", 2: second, 3: "won", 4: "lost", 5: "won", 6: "won"}
    path.write_text(HEADER_LINE + "".join(StudyRow(
        variant=variant, options=options, game_number=number, verdict=verdict,
        line_length=int(verdict == "won"), positions=10, seconds=0.5 * number,
        stopped_by="positions" if verdict == "unknown" else "",
        solver_version=SOLVER_VERSION, budget_seconds=60.0, budget_positions=5000,
        line="13-0" if verdict == "won" else "").csv_line()
        for number, verdict in verdicts.items()))
    return path


def test_the_summary_gives_the_counts_and_the_wilson_intervals(tmp_path: Path) -> None:
    """The summary printed at the end (here of a finished study, resumed with nothing left to
    do): 4 won, 1 lost, 1 unknown; the winnable share 4/5 with the interval computed by hand,
    the bounds 4/6 and 5/6, and the median time of the decided deals (0.5, 1.5, 2, 2.5, 3)."""
    result = run("study", *STUDY, "--out", six_deals(tmp_path / "s.csv"), "--resume")
    assert result.exit_code == 0, result.output
    assert ("won 4, lost 1, unknown 1 (16.7% of the deals); median time to a decision 2.00 s"
            in result.stdout)
    # 4 of 5: 37.55 % to 96.38 % (see test_wilson_interval_matches_a_hand_computed_value)
    assert ("winnable share of the decided deals: 80.0% (95 % Wilson interval 37.6% to 96.4%)"
            in result.stdout)
    assert "every unknown counted as lost: 66.7% (95 % Wilson interval 30.0% to 90.3%)" \
        in result.stdout
    assert "every unknown counted as won:  83.3% (95 % Wilson interval 43.6% to 97.0%)" \
        in result.stdout
    assert "lies between 30.0% and 97.0%" in result.stdout


def test_json_gives_the_summary_as_one_document_on_standard_output(tmp_path: Path) -> None:
    """--json: standard output is one JSON document with the figures the words give (the
    counts, the median, each share with its interval, the budget), nothing else on it."""
    out = six_deals(tmp_path / "s.csv")
    result = run("study", *STUDY, "--out", out, "--resume", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["file"] == str(out) and document["left_out"] == 0
    assert document["stopped_by_signal"] is None
    [summary] = document["studies"]
    assert {key: summary[key] for key in ("variant", "options", "first_deal", "last_deal",
                                          "deals", "won", "lost", "unknown")} == {
        "variant": "line-up", "options": "", "first_deal": 1, "last_deal": 6, "deals": 6,
        "won": 4, "lost": 1, "unknown": 1}
    assert summary["median_seconds"] == 2.0
    assert (summary["budget"], summary["budget_seconds"], summary["budget_positions"]) == (
        "60 s or 5,000 positions", 60.0, 5000)
    assert summary["solver_version"] == SOLVER_VERSION and summary["retries"] == []
    for name, (won, deals) in {"winnable": (4, 5), "unknown_as_lost": (4, 6),
                               "unknown_as_won": (5, 6)}.items():
        assert summary[name] == attrs.asdict(wilson_interval(won, deals))
    assert "won 4" not in result.stdout + result.stderr  # no words beside the document


def test_json_of_a_study_left_with_nothing_to_solve_is_still_a_document(
        tmp_path: Path) -> None:
    """A study whose every deal another file decided prints, with --json, a document with
    no study and the deals left out, so a script reading it need not tell the cases apart."""
    reference = six_deals(tmp_path / "six.csv")
    result = run("study", "line-up", "--first-deal", "3", "--deals", "2", "--skip-decided-in",
                 reference, "--out", tmp_path / "none.csv", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"file": str(tmp_path / "none.csv"), "studies": [],
                                         "left_out": 2, "stopped_by_signal": None}


def test_wilson_interval_matches_a_hand_computed_value() -> None:
    """The Wilson interval of 4 successes in 5, and of 858 in 1,000 (Solvitaire's share),
    against the bounds computed another way; all or none successful reaches 1 or 0 exactly;
    no trial gives no interval."""
    # The Wilson bounds are the shares p0 with (p - p0)² = z² p0 (1 - p0) / n, the roots of
    # (1 + z²/n) p0² - (2p + z²/n) p0 + p² = 0; for 4 of 5 (z = 1.959964):
    # 1.768292 p0² - 2.368292 p0 + 0.64 = 0, p0 = 0.375535 or 0.963776.
    interval = wilson_interval(4, 5)
    assert interval is not None
    assert math.isclose(interval.share, 0.8)
    assert math.isclose(interval.low, 0.375535, abs_tol=1e-6)
    assert math.isclose(interval.high, 0.963776, abs_tol=1e-6)
    large = wilson_interval(858, 1000)  # 1.003841 p0² - 1.719841 p0 + 0.736164 = 0
    assert large is not None
    assert math.isclose(large.low, 0.834994, abs_tol=1e-6)
    assert math.isclose(large.high, 0.878266, abs_tol=1e-6)
    none, every = wilson_interval(0, 7), wilson_interval(7, 7)
    assert none is not None and every is not None
    assert none.low == 0.0 and 0 < none.high < 0.5
    assert every.high == 1.0 and 0.5 < every.low < 1
    assert wilson_interval(0, 0) is None
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_summary_median_counts_decided_deals_only() -> None:
    """The median time to a decision leaves the unknown deals (which used the whole budget)
    out."""
    def row(number: int, verdict: str, seconds: float) -> StudyRow:
        return StudyRow(variant="v", options="", game_number=number, verdict=verdict,
                        line_length=0, positions=1, seconds=seconds, stopped_by="",
                        solver_version="1", budget_seconds=9.0, budget_positions=None, line="")

    [summary] = summarise([row(1, "won", 1.0), row(2, "lost", 3.0), row(3, "unknown", 9.0)])
    assert summary.median_seconds == 2.0
    assert (summary.won, summary.lost, summary.unknown, summary.deals) == (1, 1, 1, 3)
    assert (summary.first_deal, summary.last_deal) == (1, 3)


def test_resume_after_an_interruption_solves_only_the_missing_deals(
        reference: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A CSV cut after two rows and in the middle of the third (as a crash leaves it) resumes:
    the two whole rows are kept as they are, the partial line is dropped, only the four
    missing deals are solved, and the result has the same rows as an uninterrupted study."""
    lines = reference.read_text().splitlines(keepends=True)
    out = tmp_path / "cut.csv"
    kept = lines[2].replace(lines[2].split(",")[6], "99.000")  # deal 2, marked by its time
    out.write_text(lines[0] + lines[1] + kept + lines[3][:17])
    solved = count_solved(monkeypatch)
    result = run("study", *STUDY, "--out", out, "--resume")
    assert result.exit_code == 0, result.output
    assert sorted(solved) == [3, 4, 5, 6]
    assert "resuming" in result.stderr and "2 of the 6 deals are done" in result.stderr
    assert without_timing(rows_of(out)) == without_timing(rows_of(reference))
    assert rows_of(out)[1]["seconds"] == "99.000"


def test_game_numbers_solve_the_deals_listed_and_resume_to_more(
        reference: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--game-numbers solves each deal listed once, in order, whatever the order and the
    overlaps typed, with the rows the six-deal study gave them; resumed with a longer list,
    only the deals not yet solved are; the summary names the gaps in the list and then the
    whole range."""
    budget = STUDY[STUDY.index("--budget"):]
    out = tmp_path / "listed.csv"
    solved = count_solved(monkeypatch)
    result = run("study", "line-up", "--game-numbers", "6, 3-4,1,4", *budget, "--out", out)
    assert result.exit_code == 0, result.output
    assert solved == [1, 3, 4, 6]
    assert "4 deals (among the game numbers 1 to 6)" in result.stdout
    expected = without_timing(rows_of(reference))
    assert without_timing(rows_of(out)) == [expected[index] for index in (0, 2, 3, 5)]
    solved.clear()
    result = run("study", "line-up", "--game-numbers", "1-6", *budget, "--out", out,
                 "--resume")
    assert result.exit_code == 0, result.output
    assert solved == [2, 5]
    assert "4 of the 6 deals are done" in result.stderr
    assert "6 deals (game numbers 1 to 6)" in result.stdout
    assert without_timing(rows_of(out)) == expected


def test_a_game_number_list_is_kept_as_its_ranges() -> None:
    """Numbers and ranges merge into disjoint ranges in order; a range of 10**20 numbers
    costs no more than one; a list longer than the cap is refused, not read."""
    numbers = parse_game_numbers("9,2-4,3,5 , 100")
    assert numbers.ranges == (range(2, 6), range(9, 10), range(100, 101))
    assert list(numbers) == [2, 3, 4, 5, 9, 100] and numbers.count == 6
    assert 4 in numbers and 6 not in numbers
    everything = parse_game_numbers(f"1-{MAX_NUMBER},7")
    assert everything.ranges == (range(1, MAX_NUMBER + 1),)
    assert everything.count == MAX_NUMBER and MAX_NUMBER in everything
    with pytest.raises(ValueError, match="at most 10,000"):
        parse_game_numbers("1," * 5_001)
    with pytest.raises(ValueError, match="game numbers run from 1"):
        parse_game_numbers(f"{MAX_NUMBER + 1}")
    with pytest.raises(ValueError, match="game numbers run from 1"):
        parse_game_numbers("1" * 30)


def test_an_interrupted_study_keeps_its_rows_and_resumes(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C during the fourth deal: exit status 130, the three finished rows are in the
    file, sorted, with their summary; --resume then solves the other three."""
    real = study_module.solve_deal

    def interrupted(task: study_module.DealTask) -> StudyRow:
        if task.game_number == 4:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(study_module, "solve_deal", interrupted)
    out = tmp_path / "i.csv"
    result = run("study", *STUDY, "--out", out)
    assert result.exit_code == EXIT_INTERRUPTED
    assert "--resume" in result.stderr
    assert [row["game_number"] for row in rows_of(out)] == ["1", "2", "3"]
    assert "3 deals (game numbers 1 to 3)" in result.stdout
    monkeypatch.setattr(study_module, "solve_deal", real)
    solved = count_solved(monkeypatch)
    result = run("study", *STUDY, "--out", out, "--resume")
    assert result.exit_code == 0, result.output
    assert sorted(solved) == [4, 5, 6]
    assert [row["game_number"] for row in rows_of(out)] == ["1", "2", "3", "4", "5", "6"]


@pytest.mark.parametrize("stopped", [False, True])
def test_a_study_whose_file_cannot_be_sorted_says_so_and_keeps_its_rows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stopped: bool) -> None:
    """The final sort fails (a full disk): one line saying every row is in the file, exit
    status 2; but a study Ctrl-C stopped still exits 130 (it was 2), with its summary, so a
    script waiting for it knows it was stopped and is to be resumed."""
    real = study_module.solve_deal

    def interrupted(task: study_module.DealTask) -> StudyRow:
        if stopped and task.game_number == 4:
            raise KeyboardInterrupt
        return real(task)

    def no_room(path: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(study_module, "solve_deal", interrupted)
    monkeypatch.setattr(study_module, "sort_study_file", no_room)
    out = tmp_path / "s.csv"
    result = run("study", *STUDY, "--out", out)
    assert result.exit_code == (EXIT_INTERRUPTED if stopped else 2), result.output
    message = " ".join(result.stderr.split())
    assert (f"every row is in {out}, in the order the deals were solved, but it could not "
            f"be sorted: No space left on device") in message, message
    assert "Traceback" not in result.output
    kept = [row["game_number"] for row in rows_of(out)]
    assert kept == (["1", "2", "3"] if stopped else ["1", "2", "3", "4", "5", "6"])
    if stopped:
        assert "3 deals (game numbers 1 to 3)" in result.stdout and "--resume" in message


def count_solved(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record the game numbers the study solves from now on (in this process)."""
    solved: list[int] = []
    real = study_module.solve_deal

    def counting(task: study_module.DealTask) -> StudyRow:
        solved.append(task.game_number)
        return real(task)

    monkeypatch.setattr(study_module, "solve_deal", counting)
    return solved


def test_a_worker_with_another_solver_version_stops_the_study(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A row solved by another solver version (a Dask worker with another gapgrid) is not
    written: the study stops and says why, so the file never mixes versions."""
    real = study_module.solve_deal

    def elsewhere(task: study_module.DealTask) -> StudyRow:
        row = real(task)
        return row if task.game_number < 3 else attrs.evolve(row, solver_version="0")

    monkeypatch.setattr(study_module, "solve_deal", elsewhere)
    out = tmp_path / "v.csv"
    result = run("study", *STUDY, "--out", out)
    assert result.exit_code == 1
    assert "solver version 0" in result.stderr and "same gapgrid on every worker" in result.stderr
    assert {row["solver_version"] for row in rows_of(out)} == {SOLVER_VERSION}


def test_resume_refuses_a_file_of_other_settings(reference: Path, tmp_path: Path) -> None:
    """Resuming with other options, another budget or another variant is refused with the
    reason (exit 2), and the file is left as it was; so is a file that is no study's."""
    out = tmp_path / "other.csv"
    out.write_bytes(reference.read_bytes())
    for args, words in [
        (["line-up", "--option", "redeals=1", "--budget", "60", "--max-positions", "5000"],
         "options 'redeals=1'"),
        (["line-up", "--budget", "1"], "budget 1 s"),
        (["house-of-commons", "--budget", "60", "--max-positions", "5000"],
         "holds deals of line-up"),
    ]:
        result = run("study", *args, "--out", out, "--resume")
        assert result.exit_code == 2, result.output
        assert words in result.stderr, result.stderr
    assert out.read_bytes() == reference.read_bytes()
    stranger = tmp_path / "stranger.csv"
    stranger.write_text("a,b\n1,2\n")
    result = run("study", *STUDY, "--out", stranger, "--resume")
    assert result.exit_code == 2 and "not a gapgrid study file" in result.stderr


def test_a_study_of_the_complete_search_records_it_and_keeps_to_it(reference: Path,
                                                                  tmp_path: Path) -> None:
    """--search complete solves the deals with the complete restarts alone: the verdicts of
    the deals every solver decides, each row and the summary naming the solver version with
    -complete. It resumes and retries as itself; neither file may be resumed or retried with
    the other search."""
    out = tmp_path / "complete.csv"
    result = run("study", *STUDY, "--search", "complete", "--out", out)
    assert result.exit_code == 0, result.output
    rows = rows_of(out)
    assert {row["solver_version"] for row in rows} == {f"{SOLVER_VERSION}-complete"}
    verdicts = {int(row["game_number"]): row["verdict"] for row in rows}
    assert {number: verdicts[number] for number in WON | LOST} == {
        number: "won" if number in WON else "lost" for number in WON | LOST}
    assert f"solver {SOLVER_VERSION}-complete" in result.stdout
    lines = out.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.csv"  # an interrupted study of the complete search goes on as one
    cut.write_text("".join(lines[:4]))
    result = run("study", *STUDY, "--search", "complete", "--out", cut, "--resume")
    assert result.exit_code == 0, result.output
    assert without_timing(rows_of(cut)) == without_timing(rows)
    if "unknown" in verdicts.values():  # and a retry of its unknown deals keeps to it
        result = run("study", "line-up", "--deals", "6", "--budget", "60", "--max-positions",
                     "50000", "--search", "complete", "--out", cut, "--retry-unknown")
        assert result.exit_code == 0, result.output
        assert {row["solver_version"] for row in rows_of(cut)} == {f"{SOLVER_VERSION}-complete"}
        assert "retrying" in result.stderr
    for path, search in [(out, "whole"), (reference, "complete")]:
        before = path.read_bytes()
        for again in ["--resume", "--retry-unknown"]:
            result = run("study", *STUDY, "--search", search, "--out", path, again)
            assert result.exit_code == 2, result.output
            assert "--search" in result.stderr and "-complete" in result.stderr
        assert path.read_bytes() == before


def test_a_study_of_the_entry_probes_records_them(tmp_path: Path) -> None:
    """--search entries solves the deals with the entry probes alone: the verdicts of the
    deals every solver decides, each row naming the solver version with -entries."""
    out = tmp_path / "entries.csv"
    result = run("study", *STUDY, "--search", "entries", "--out", out)
    assert result.exit_code == 0, result.output
    rows = rows_of(out)
    assert {row["solver_version"] for row in rows} == {f"{SOLVER_VERSION}-entries"}
    verdicts = {int(row["game_number"]): row["verdict"] for row in rows}
    assert {number: verdicts[number] for number in WON | LOST} == {
        number: "won" if number in WON else "lost" for number in WON | LOST}


def test_the_default_file_of_the_complete_search_is_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --out, the complete search writes study-VARIANT-...-complete.csv, so it does
    not run into the whole search's file of the same study."""
    monkeypatch.chdir(tmp_path)
    for search in ["whole", "complete"]:
        result = run("study", "line-up", "--deals", "2", "--max-positions", "500", "--search",
                     search)
        assert result.exit_code == 0, result.output
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "study-line-up-complete.csv", "study-line-up.csv"]


@pytest.mark.parametrize("content", ["", HEADER_LINE])
def test_resume_says_when_there_is_nothing_to_resume(tmp_path: Path, content: str) -> None:
    """--resume with an --out that holds no deal (a mistyped name, most likely, or a study
    stopped before its first row) starts from the first deal, and says so before it,
    rather than start over unsaid."""
    out = tmp_path / "typo.csv"
    if content:
        out.write_text(content)
    result = run("study", *STUDY, "--out", out, "--resume")
    assert result.exit_code == 0, result.output
    assert f"gapgrid: {out} holds no deal yet: the study starts from its first" in result.stderr
    assert "resuming" not in result.stderr
    assert len(rows_of(out)) == 6


def test_study_all_with_no_variant_loaded_says_so(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Every plugin disabled, `study all` has nothing to study: a usage error saying why (it
    printed ": nothing was left to solve" and exit 0), and no file."""
    from gapgrid.core.catalogue import installed_plugin_names

    every = [*plugins.BUILTIN_PLUGINS, *installed_plugin_names()]
    monkeypatch.setenv("GAPGRID_DISABLE_PLUGINS", ",".join(every))
    result = run("study", "all", "--deals", "1", "--out", tmp_path / "all.csv")
    assert result.exit_code == 2, result.output
    assert "no variant is loaded" in result.stderr
    assert not (tmp_path / "all.csv").exists()


def test_an_existing_file_needs_resume(reference: Path) -> None:
    """Without --resume an existing study file is not touched: exit 2, saying why."""
    before = reference.read_bytes()
    result = run("study", *STUDY, "--out", reference)
    assert result.exit_code == 2
    assert "already exists: pass --resume" in result.stderr
    assert reference.read_bytes() == before


@pytest.mark.parametrize(("args", "words"), [
    (["no-such-game"], "unknown variant 'no-such-game'"),
    (["line-up", "--deals", "0"], "at least one"),
    (["line-up", "--deals", "-3"], "at least one"),
    (["line-up", "--budget", "3601"], "at most 3600 s"),
    (["line-up", "--budget", "0"], "more than 0"),
    (["line-up", "--first-deal", "0"], "game numbers run from 1"),
    (["line-up", "--option", "redeals=lots"], "--option"),
    (["line-up", "--workers", "2", "--dask", "tcp://127.0.0.1:1"], "exclude each other"),
    (["line-up", "--search", "partial"], "'whole', 'complete'"),
    (["line-up", "--game-numbers", "5-3"], "a range runs from the smaller number"),
    (["line-up", "--game-numbers", "1,,2"], "'' is neither a game number nor a range"),
    (["line-up", "--game-numbers", "1;2"], "'1;2' is neither a game number nor a range"),
    (["line-up", "--game-numbers", "0-4"], "game numbers run from 1"),
    (["line-up", "--game-numbers", "\u0661"], "neither a game number"),  # Arabic-Indic 1
    (["line-up", "--game-numbers", "2", "--first-deal", "2"], "exclude each other"),
    (["line-up", "--game-numbers", "2", "--deals", "1"], "exclude each other"),
])
def test_bad_input_is_a_usage_error(tmp_path: Path, args: list[str], words: str) -> None:
    """Unknown variant, no deals, a budget past the maximum, a bad option: exit 2, the reason
    on standard error, no file written."""
    result = run("study", *args, "--out", tmp_path / "x.csv")
    assert result.exit_code == 2, result.output
    assert words in result.stderr
    assert not (tmp_path / "x.csv").exists()


def test_an_unwritable_out_is_a_usage_error(tmp_path: Path) -> None:
    """An --out that is a folder, or inside a file, is refused with the reason (exit 2)."""
    result = run("study", *STUDY, "--out", tmp_path)
    assert result.exit_code == 2 and "is a folder" in result.stderr
    (tmp_path / "plain").write_text("")
    result = run("study", *STUDY, "--out", tmp_path / "plain" / "x.csv")
    assert result.exit_code == 2 and "cannot write" in result.stderr


def test_no_progress_bar_off_a_terminal(tmp_path: Path) -> None:
    """Standard error is not a terminal here, so it carries no progress bar."""
    result = run("study", *STUDY, "--out", tmp_path / "p.csv")
    assert result.exit_code == 0
    assert "deal/s" not in result.stderr and "%|" not in result.stderr


def test_all_solves_every_variant_and_preset(tmp_path: Path) -> None:
    """``all`` writes one row per variant and preset the catalogue knows, sorted by slug."""
    out = tmp_path / "all.csv"
    result = run("study", "all", "--deals", "1", "--budget", "60", "--max-positions", "50",
                 "--out", out)
    assert result.exit_code == 0, result.output
    slugs = plugins.load_catalogue().slugs()
    assert [row["variant"] for row in rows_of(out)] == sorted(slugs)
    assert result.stdout.count(" 1 deal (game numbers 1 to 1)") == len(slugs)


def test_rows_round_trip_and_partial_lines_are_ignored(tmp_path: Path) -> None:
    """A row written and read back is the same row; a last line without its newline is
    skipped when reading."""
    row = StudyRow(variant="montana", options="redeals=0", game_number=17, verdict="won",
                   line_length=2, positions=40, seconds=0.25, stopped_by="",
                   solver_version="1", budget_seconds=1.0, budget_positions=None,
                   line="12-3 redeal")
    path = tmp_path / "r.csv"
    path.write_text(HEADER_LINE + row.csv_line() + row.csv_line()[:-1])
    assert [read for _, read in iter_rows(path)] == [row]


# -- retrying the unknown deals at a larger budget ------------------------------------------------

RETRIED = ["line-up", "--first-deal", "15", "--deals", "6", "--budget", "60"]
"""Six deals of which a budget of 1,000 positions leaves some unknown (15, 18 and 20 with solver
17), 5,000 decides some of those (15); as the solver gets better, fewer deals stay unknown at
this budget, and the range moves."""
SMALLER = [*RETRIED, "--max-positions", "1000"]
"""The retried deals at a budget too small for some of them."""
LARGER = [*RETRIED, "--max-positions", "5000"]
"""The same deals at the retries' budget."""
RETRIED_NUMBERS = list(range(15, 21))


@pytest.fixture(scope="module")
def larger_reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The retried deals' study at the larger budget, run once, for the retries to compare to."""
    return study_once(tmp_path_factory, "retried.csv", LARGER)


def small_study(path: Path) -> Path:
    """SMALLER run into ``path``; some of its deals are left unknown."""
    result = run("study", *SMALLER, "--out", path)
    assert result.exit_code == 0, result.output
    return path


def unknown_numbers(path: Path) -> list[int]:
    return [int(row["game_number"]) for row in rows_of(path) if row["verdict"] == "unknown"]


def test_retry_unknown_solves_again_only_the_unknown_deals(
        larger_reference: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--retry-unknown at LARGER's budget solves only the deals the small budget left
    unknown; each gets the row the larger study gave it, in place of its unknown row; the
    deals decided before keep their rows; the summary names both budgets. A second retry at
    the same budget has nothing left to do."""
    out = small_study(tmp_path / "r.csv")
    before = rows_of(out)
    unknown = unknown_numbers(out)
    assert 2 <= len(unknown) < 6  # the test needs both kinds of deal
    solved = count_solved(monkeypatch)
    result = run("study", *SMALLER, "--retry-unknown", "--out", out)  # the budget they had
    assert result.exit_code == 0 and solved == []
    assert (f"no unknown deal to retry (its {len(unknown)} unknown deals had this budget)"
            in result.stderr)
    result = run("study", "line-up", "--budget", "60", "--max-positions", "5000",
                 "--retry-unknown", "--out", out)
    assert result.exit_code == 0, result.output
    assert sorted(solved) == unknown
    assert f"retrying {len(unknown)} unknown deals" in result.stderr
    assert "(they had 60 s or 1,000 positions)" in result.stderr
    after, expected = without_timing(rows_of(out)), without_timing(rows_of(larger_reference))
    assert [int(row["game_number"]) for row in after] == RETRIED_NUMBERS
    assert any(row["verdict"] != "unknown" for row in expected
               if int(row["game_number"]) in unknown)  # the larger budget decides some
    for index, number in enumerate(RETRIED_NUMBERS):
        wanted = expected if number in unknown else without_timing(before)
        assert after[index] == wanted[index], number
    assert (f"budget 60 s or 1,000 positions (60 s or 5,000 positions for {len(unknown)} "
            f"deals)"
            in result.stdout)
    solved.clear()
    result = run("study", "line-up", "--budget", "60", "--max-positions", "5000",
                 "--retry-unknown", "--out", out)
    assert result.exit_code == 0 and solved == []
    assert "no unknown deal to retry" in result.stderr


def test_an_interrupted_retry_keeps_its_rows_and_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C during the second retried deal: exit 130, the file still has one row per deal
    (the first retried deal's new row in place of its old one); the same command then solves
    only the deals not yet retried."""
    out = small_study(tmp_path / "i.csv")
    unknown = unknown_numbers(out)
    real = study_module.solve_deal

    def interrupted(task: study_module.DealTask) -> StudyRow:
        if task.game_number == unknown[1]:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(study_module, "solve_deal", interrupted)
    retry = ["study", "line-up", "--budget", "60", "--max-positions", "5000", "--retry-unknown",
             "--out", out]
    result = run(*retry)
    assert result.exit_code == EXIT_INTERRUPTED
    assert "run the same command to go on" in result.stderr
    rows = rows_of(out)
    assert [int(row["game_number"]) for row in rows] == RETRIED_NUMBERS
    assert rows[RETRIED_NUMBERS.index(unknown[0])]["budget_positions"] == "5000"
    monkeypatch.setattr(study_module, "solve_deal", real)
    solved = count_solved(monkeypatch)
    result = run(*retry)
    assert result.exit_code == 0, result.output
    assert sorted(solved) == unknown[1:]


def test_retry_unknown_keeps_to_the_deals_asked_for(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With --first-deal and --deals, only the unknown deals in that range are retried."""
    out = small_study(tmp_path / "k.csv")
    unknown = unknown_numbers(out)
    solved = count_solved(monkeypatch)
    result = run("study", "line-up", "--budget", "60", "--max-positions", "5000",
                 "--first-deal", str(unknown[-1]), "--deals", "1", "--retry-unknown",
                 "--out", out)
    assert result.exit_code == 0, result.output
    assert solved == [unknown[-1]]


def test_retry_unknown_with_game_numbers_retries_those_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With --game-numbers, only the unknown deals of the list are retried; the others keep
    their unknown rows."""
    out = small_study(tmp_path / "g.csv")
    unknown = unknown_numbers(out)
    solved = count_solved(monkeypatch)
    result = run("study", "line-up", "--budget", "60", "--max-positions", "5000",
                 "--game-numbers", f"{unknown[-1]},1-2", "--retry-unknown", "--out", out)
    assert result.exit_code == 0, result.output
    assert solved == [unknown[-1]]
    assert unknown_numbers(out)[:-1] == unknown[:-1]


def test_retry_unknown_leaves_out_deals_another_study_decided(
        larger_reference: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--skip-decided-in FILE: of the deals left unknown, only those FILE has not decided
    are retried, and the command says how many it left out and why."""
    out = small_study(tmp_path / "s.csv")
    unknown = unknown_numbers(out)
    still_unknown = unknown_numbers(larger_reference)
    decided_there = [number for number in unknown if number not in still_unknown]
    assert decided_there and set(unknown) - set(decided_there)  # the test needs both kinds
    solved = count_solved(monkeypatch)
    result = run("study", "line-up", "--budget", "120", "--max-positions", "5000",
                 "--retry-unknown", "--skip-decided-in", larger_reference, "--out", out)
    assert result.exit_code == 0, result.output
    assert sorted(solved) == sorted(set(unknown) - set(decided_there))
    verb = "is" if len(decided_there) == 1 else "are"
    assert (f"{len(decided_there)} of the {len(unknown)} unknown deals of {out} {verb} "
            f"decided in {larger_reference}: left out") in result.stderr


def test_a_new_study_leaves_out_deals_another_study_decided(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh study with --skip-decided-in solves, and writes rows for, only the deals of
    its range the other file has not decided; --resume keeps to them too."""
    reference = six_deals(tmp_path / "six.csv")
    undecided = unknown_numbers(reference)
    decided = [number for number in range(1, 7) if number not in undecided]
    assert undecided == [2] and len(decided) == 5
    solved = count_solved(monkeypatch)
    out = tmp_path / "fresh.csv"
    args = ["line-up", "--deals", "6", "--budget", "120", "--skip-decided-in", reference,
            "--out", out]
    result = run("study", *args, "--skip-decided-in", reference)  # named twice: said once
    assert result.exit_code == 0, result.output
    assert f"5 of the 6 deals are decided in {reference}: left out\n" in result.stderr
    assert f"the summary above is of the 1 deal {out} holds only" in result.stderr
    assert "1 deal (game numbers 2 to 2)" in result.stdout
    assert sorted(solved) == undecided
    assert [int(row["game_number"]) for row in rows_of(out)] == undecided
    solved.clear()
    result = run("study", *args, "--resume")
    assert result.exit_code == 0 and solved == []
    assert f"resuming {out}: 1 of the 1 deal is done" in result.stderr
    # The file's own rows among those decided elsewhere (the merged file of the docs'
    # loop): the summary is of the file's six deals, which the message said was of one.
    whole = six_deals(tmp_path / "whole.csv")
    result = run("study", "line-up", "--deals", "6", "--budget", "60", "--max-positions",
                 "5000", "--skip-decided-in", reference, "--out", whole, "--resume")
    assert result.exit_code == 0 and solved == []
    assert "6 deals (game numbers 1 to 6)" in result.stdout
    assert f"the summary above is of the 6 deals {whole} holds only" in result.stderr


def test_a_study_whose_deals_are_all_decided_elsewhere_says_so(tmp_path: Path) -> None:
    """When another file decided every deal asked for, nothing is solved and the command
    says so, rather than pointing to a summary of no deals."""
    reference = six_deals(tmp_path / "six.csv")
    result = run("study", "line-up", "--first-deal", "3", "--deals", "2", "--skip-decided-in",
                 reference, "--out", tmp_path / "none.csv")
    assert result.exit_code == 0, result.output
    assert "2 of the 2 deals are decided" in result.stderr
    assert "nothing was left to solve" in result.stderr
    assert "summary above" not in result.stderr
    assert not (tmp_path / "none.csv").exists()


def test_counts_of_deals_left_out_have_thousands_separators(tmp_path: Path) -> None:
    """The count of deals left out is written as the count of deals asked for is (1,200),
    not "1200 of the 1,200 deals"."""
    reference = tmp_path / "many.csv"
    reference.write_text(HEADER_LINE + "".join(StudyRow(
        variant="line-up", options="", game_number=number, verdict="lost", line_length=0,
        positions=10, seconds=0.5, stopped_by="", solver_version=SOLVER_VERSION,
        budget_seconds=60.0, budget_positions=5000, line="").csv_line()
        for number in range(1, 1_201)))
    result = run("study", "line-up", "--deals", "1200", "--skip-decided-in", reference,
                 "--out", tmp_path / "none.csv")
    assert result.exit_code == 0, result.output
    assert "1,200 of the 1,200 deals are decided" in result.stderr


def test_skip_decided_in_refuses_what_it_cannot_use(tmp_path: Path) -> None:
    """--skip-decided-in naming a file that is not a study, or none: exit 2 with the
    reason, the study file untouched."""
    out = small_study(tmp_path / "u.csv")
    before = out.read_bytes()
    (tmp_path / "notes.csv").write_text("just some notes\n")
    fresh = tmp_path / "fresh.csv"
    result = run("study", "line-up", "--skip-decided-in", tmp_path / "none.csv", "--out", fresh)
    assert result.exit_code == 2 and "cannot read" in result.stderr
    assert not fresh.exists()
    for args, words in [
        (["--retry-unknown", "--skip-decided-in", str(tmp_path / "none.csv")], "cannot read"),
        (["--retry-unknown", "--skip-decided-in", str(tmp_path / "notes.csv")],
         "is not a gapgrid study file"),
    ]:
        result = run("study", "line-up", "--budget", "120", *args, "--out", out)
        assert result.exit_code == 2, result.output
        assert words in result.stderr, result.stderr
    assert out.read_bytes() == before


def test_retry_unknown_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    """No file, a file of other options, a budget not larger than the unknown deals' (fewer
    positions; the same seconds and positions given with --resume too): exit 2 with the
    reason, the file untouched."""
    result = run("study", *STUDY, "--retry-unknown", "--out", tmp_path / "none.csv")
    assert result.exit_code == 2 and "does not exist" in result.stderr
    assert not (tmp_path / "none.csv").exists()
    out = small_study(tmp_path / "o.csv")
    before = out.read_bytes()
    for args, words in [
        (["--option", "redeals=1", "--budget", "60"], "options 'redeals=1'"),
        (["--budget", "120", "--max-positions", "400"],
         "had 60 s or 1,000 positions: a retry needs a larger budget"),
        (["--budget", "60", "--max-positions", "5000", "--resume"], "exclude each other"),
    ]:
        result = run("study", "line-up", *args, "--retry-unknown", "--out", out)
        assert result.exit_code == 2, result.output
        assert words in result.stderr, result.stderr
    assert out.read_bytes() == before


def test_a_file_whose_every_deal_was_retried_says_which_budget_resumes_it(
        tmp_path: Path) -> None:
    """A retried deal keeps only its latest row, so once every deal was retried the file's
    first budget is gone: resuming at it was refused as "written with budget 120 s", the
    budget of the retry, as if the file had been started with it."""
    out = tmp_path / "all-retried.csv"
    six = six_deals(tmp_path / "six.csv").read_text().splitlines(keepends=True)
    out.write_text(six[0] + six[2].replace(",60,5000,", ",120,5000,"))  # deal 2, retried
    result = run("study", "line-up", "--deals", "3", "--budget", "60", "--max-positions",
                 "5000", "--out", out, "--resume")
    assert result.exit_code == 2
    assert (f"{out} holds rows solved with budget 120 s or 5,000 positions at the smallest, "
            f"larger than this study's 60 s or 5,000 positions: resume it with that budget, "
            f"or choose another --out (a file started with a smaller budget whose every deal "
            f"was retried with --retry-unknown shows it no more") in result.stderr


def test_a_budget_as_the_file_stores_it_is_not_a_larger_one(tmp_path: Path) -> None:
    """A budget given with more digits than a row keeps (60.0000001 s is stored as 60) is the
    row's budget: retrying at it finds the deals already at that budget."""
    out = small_study(tmp_path / "g.csv")
    result = run("study", "line-up", "--budget", "60.0000001", "--max-positions", "1000",
                 "--retry-unknown", "--out", out)
    assert result.exit_code == 0, result.output
    assert "no unknown deal to retry" in result.stderr


def test_retry_unknown_in_a_file_of_every_variant_retries_the_one_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A study of ``all`` can be escalated one variant at a time."""
    out = tmp_path / "all.csv"
    result = run("study", "all", "--deals", "1", "--budget", "60", "--max-positions", "50",
                 "--out", out)
    assert result.exit_code == 0, result.output
    unknown = {row["variant"] for row in rows_of(out) if row["verdict"] == "unknown"}
    assert "paganini-ii" in unknown
    solved = count_solved(monkeypatch)
    result = run("study", "paganini-ii", "--budget", "60", "--max-positions", "60",
                 "--retry-unknown", "--out", out)
    assert result.exit_code == 0, result.output
    assert solved == [1]
    rows = {row["variant"]: row for row in rows_of(out)}
    assert rows["paganini-ii"]["budget_positions"] == "60"
    assert {row["budget_positions"] for slug, row in rows.items()
            if slug != "paganini-ii"} == {"50"}


def test_resume_refuses_a_smaller_budget_than_the_files(reference: Path, tmp_path: Path) -> None:
    """Rows at a larger budget than the one given are retries only when rows at the given one
    are there too: resuming a 60 s study at 10 s (the default) is refused."""
    out = tmp_path / "smaller.csv"
    out.write_bytes(reference.read_bytes())
    result = run("study", "line-up", "--deals", "8", "--max-positions", "5000", "--out", out,
                 "--resume")
    assert result.exit_code == 2 and "budget 60 s or 5,000 positions" in result.stderr
    assert out.read_bytes() == reference.read_bytes()


def test_latest_rows_are_read_as_the_file_was_when_reading_began(tmp_path: Path) -> None:
    """A row a running study appends while the rows are being read (the plot reading a
    folder a study writes to) is neither counted nor an error."""
    path = six_deals(tmp_path / "growing.csv")
    rows = iter_latest_rows(path)
    first = next(rows)
    late = StudyRow(variant="line-up", options="", game_number=7, verdict="won", line_length=1,
                    positions=1, seconds=0.1, stopped_by="", solver_version=SOLVER_VERSION,
                    budget_seconds=60.0, budget_positions=5000, line="1-2")
    with path.open("a") as handle:
        handle.write(late.csv_line())
    assert [first.game_number, *(row.game_number for row in rows)] == [1, 2, 3, 4, 5, 6]


def test_budgets_compare_in_seconds_and_positions() -> None:
    """A budget is larger when it is no smaller in either limit and larger in one; no
    positions cap is the largest; budgets that trade one limit for the other are not."""
    def budget(seconds: float, positions: int | None) -> StudySettings:
        return StudySettings(options="", solver_version="3", budget_seconds=seconds,
                             budget_positions=positions)

    assert budget(60, None).exceeds(budget(10, None))
    assert budget(10, None).exceeds(budget(10, 5000))
    assert budget(10, 6000).exceeds(budget(10, 5000))
    assert not budget(10, None).exceeds(budget(10, None))
    assert not budget(60, 100).exceeds(budget(10, 5000))
    assert not budget(10, None).exceeds(budget(60, None))


@pytest.mark.skipif(sys.platform == "win32", reason="no flock on Windows")
def test_a_file_another_study_is_writing_is_refused(tmp_path: Path) -> None:
    """While another command holds the study file, resuming or retrying it is refused (exit 2)
    and the file is untouched: two writers would lose each other's rows."""
    import fcntl

    out = small_study(tmp_path / "held.csv")
    before = out.read_bytes()
    with out.open("rb") as holder:
        fcntl.flock(holder.fileno(), fcntl.LOCK_EX)
        for args in (["--deals", "8", "--resume"],
                     ["--max-positions", "5000", "--retry-unknown"]):
            result = run("study", "line-up", "--budget", "60",
                         *(args if "--max-positions" in args else [*args, "--max-positions",
                                                                  "1000"]),
                         "--out", out)
            assert result.exit_code == 2, result.output
            assert "another gapgrid study is writing" in result.stderr
    assert out.read_bytes() == before


@pytest.mark.skipif(sys.platform == "win32", reason="no flock on Windows")
def test_a_file_replaced_after_it_was_opened_is_not_held(tmp_path: Path) -> None:
    """A study that opened the file just before another one replaced it (sorting at its end,
    or upgrading at its start) would lock and append to a file no longer there: it refuses
    instead, as when the file is held."""
    out = small_study(tmp_path / "replaced.csv")
    handle = out.open("r+b")
    sorted_copy = tmp_path / "sorted.csv"
    sorted_copy.write_bytes(out.read_bytes())
    os.replace(sorted_copy, out)
    with pytest.raises(click.BadParameter, match="another gapgrid study is writing"):
        study_module._hold(handle, out)
    assert handle.closed


def test_a_deal_written_twice_counts_once_by_its_latest_row(tmp_path: Path) -> None:
    """A retry stopped before the file was sorted leaves a deal's unknown row and its new row
    after it: summaries count the new row only, sorting keeps it, and the study resumes."""
    path = six_deals(tmp_path / "twice.csv")
    retried = StudyRow(variant="line-up", options="", game_number=2, verdict="won",
                       line_length=3, positions=99, seconds=9.0, stopped_by="",
                       solver_version=SOLVER_VERSION, budget_seconds=120.0,
                       budget_positions=None, line="1-2 3-4 5-6")
    with path.open("a") as handle:
        handle.write(retried.csv_line())
    assert [row.game_number for row in iter_latest_rows(path)] == [1, 3, 4, 5, 6, 2]
    (summary,) = summarise(iter_latest_rows(path))
    assert (summary.won, summary.lost, summary.unknown) == (5, 1, 0)
    assert summary.budget_text() == "60 s or 5,000 positions (120 s for 1 deal)"
    sort_study_file(path)
    assert [row for _, row in iter_rows(path)][1] == retried
    result = run("study", *STUDY, "--out", path, "--resume")
    assert result.exit_code == 0, result.output
    assert "won 5, lost 1, unknown 0" in result.stdout


def test_two_workers_give_the_same_rows(reference: Path, tmp_path: Path) -> None:
    """--workers 2 (a process pool) writes the same rows as one worker, timings aside."""
    out = tmp_path / "w2.csv"
    result = run("study", *STUDY, "--workers", "2", "--out", out)
    assert result.exit_code == 0, result.output
    assert without_timing(rows_of(out)) == without_timing(rows_of(reference))


@pytest.fixture(scope="module")
def dask_scheduler() -> Iterator[str]:
    """A dask.distributed LocalCluster of two single-threaded worker processes."""
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed "
                                      "(pip install -e '.[test]' installs it)")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        yield cluster.scheduler_address


@pytest.mark.slow
def test_dask_gives_the_same_rows(reference: Path, tmp_path: Path, dask_scheduler: str) -> None:
    """--dask on a local cluster writes the same rows as one worker, timings aside."""
    out = tmp_path / "dask.csv"
    result = run("study", *STUDY, "--dask", dask_scheduler, "--out", out)
    assert result.exit_code == 0, result.output
    assert without_timing(rows_of(out)) == without_timing(rows_of(reference))


def test_dask_missing_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without dask.distributed, --dask says how to install it (exit 2) and writes nothing."""
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now fails
    out = tmp_path / "d.csv"
    result = run("study", *STUDY, "--dask", "tcp://127.0.0.1:8786", "--out", out)
    assert result.exit_code == 2
    assert "pip install 'gapgrid[study]'" in result.stderr
    assert not out.exists()


@contextmanager
def stranger(reply: bytes | None) -> Iterator[str]:
    """A TCP server on a free port that is no Dask scheduler: it sends ``reply`` to each
    connection and closes it, or with None accepts and never answers; its address."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:  # the server was shut down
                return
            if reply is None:
                held.append(connection)
            else:
                connection.sendall(reply)
                connection.close()

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.shutdown(socket.SHUT_RDWR)  # wakes the accept() (close alone would not)
        server.close()
        for connection in held:
            connection.close()


@pytest.mark.parametrize("reply", [b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n",
                                   None], ids=["http", "silent"])
def test_a_server_that_is_no_scheduler_is_a_usage_error_in_bounded_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: bytes | None) -> None:
    """--dask at a web server (it was an internal MemoryError) or at a listener that never
    answers (it waited as long as the listener held the connection, whatever signal came):
    exit 2 naming --dask within the connection's deadline, and no file."""
    pytest.importorskip("distributed", reason="dask.distributed is not installed")
    monkeypatch.setattr(study_module, "DASK_CONNECT_SECONDS", 1.0)
    out = tmp_path / "d.csv"
    with stranger(reply) as address:
        started = time.monotonic()
        result = run("study", *STUDY, "--dask", address, "--out", out)
        seconds = time.monotonic() - started
    assert result.exit_code == 2, result.output
    assert "--dask" in result.stderr and "no Dask scheduler answer" in result.stderr
    assert "MemoryError" not in result.stderr  # not the stranger's reply read as a frame
    assert seconds < 10, seconds
    assert not out.exists()


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_signal_while_connecting_to_dask_ends_the_study_at_once(
        tmp_path: Path, number: int) -> None:
    """SIGTERM or Ctrl-C while --dask waits for a listener that never answers (sent once
    the client has connected to it) ends the command within seconds, with 128 plus the
    signal's number and one line saying so, and no file (it waited out the 10 s deadline,
    then called the address unreachable: exit 2)."""
    pytest.importorskip("distributed", reason="dask.distributed is not installed")
    out = tmp_path / "d.csv"
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(60)
        process = subprocess.Popen([str(GAPGRID), "study", *STUDY, "--dask",
                                    f"tcp://127.0.0.1:{listener.getsockname()[1]}",
                                    "--out", str(out)], stderr=subprocess.PIPE, text=True)
        try:
            connection, _ = listener.accept()  # the client is waiting for an answer now
            with connection:
                sent = time.monotonic()
                process.send_signal(number)
                _, stderr = process.communicate(timeout=30)
                seconds = time.monotonic() - sent
        finally:
            process.kill()
    assert process.returncode == 128 + number, stderr
    assert seconds < 5, seconds
    assert "while connecting to the Dask scheduler at tcp://127.0.0.1:" in stderr, stderr
    assert "Traceback" not in stderr and stderr.count("\n") == 1, stderr
    assert not out.exists()


@pytest.mark.parametrize("address", ["garbage", "http://127.0.0.1:8786", "tcp://:::", "",
                                     "tcp://127.0.0.1:99999"])
def test_a_malformed_dask_address_is_a_usage_error(tmp_path: Path, address: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """An address dask cannot parse is refused naming --dask (it was an internal error), at
    once: the command ends without waiting out the connection's deadline (made far longer
    here than a loaded machine's start-up, so that the bound says only that), and without
    the traceback at exit of a client left half made."""
    pytest.importorskip("distributed", reason="dask.distributed is not installed")
    result = subprocess.run([str(GAPGRID), "study", *STUDY, "--dask", address, "--out",
                             str(tmp_path / "d.csv")], capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 2, result.stderr
    assert f"no Dask scheduler answers at {address}" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr
    assert not (tmp_path / "d.csv").exists()
    monkeypatch.setattr(study_module, "DASK_CONNECT_SECONDS", 120.0)
    started = time.monotonic()
    in_process = run("study", *STUDY, "--dask", address, "--out", tmp_path / "d.csv")
    assert in_process.exit_code == 2 and "--dask" in in_process.stderr, in_process.output
    assert time.monotonic() - started < 60


def test_the_plot_command_tabulates_and_draws_the_studies(tmp_path: Path) -> None:
    """``python -m gapgrid.api.study_plot DIR OUT.png`` prints each study's figures as a
    Markdown row (the summary's figures) and writes the image."""
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (the 'plot' extra)")
    from gapgrid.api import study_plot

    folder = tmp_path / "studies"
    folder.mkdir()
    six_deals(folder / "line-up.csv")
    out = tmp_path / "plot.png"
    result = CliRunner().invoke(study_plot.main, [str(folder), str(out)])
    assert result.exit_code == 0, result.output
    assert ("| `line-up` | 6 | 4 | 1 | 1 (16.7 %) | 80.0 % (37.6 % .. 96.4 %) | "
            "30.0 % .. 97.0 % | 2.00 |") in result.stdout
    assert out.read_bytes().startswith(b"\x89PNG")


def test_the_plot_command_takes_each_game_from_the_first_folder_that_has_it(
        tmp_path: Path) -> None:
    """Several folders, best first: a game both hold comes from the first (the later study
    of it), a game only the second holds from the second; one row each, as one picture of
    every game."""
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (the 'plot' extra)")
    from gapgrid.api import study_plot

    later, earlier = tmp_path / "later", tmp_path / "earlier"
    later.mkdir()
    earlier.mkdir()
    six_deals(later / "line-up.csv", second="won")
    six_deals(earlier / "line-up.csv")
    six_deals(earlier / "gaps.csv", variant="montana", options="redeals=0")
    out = tmp_path / "plot.png"
    result = CliRunner().invoke(study_plot.main, [str(later), str(earlier), str(out)])
    assert result.exit_code == 0, result.output
    rows = [line for line in result.stdout.splitlines() if line.startswith("| `")]
    assert [row.split(" | ")[:5] for row in rows] == [
        ["| `line-up`", "6", "5", "1", "0 (0.0 %)"],
        ["| `montana (redeals=0)`", "6", "4", "1", "1 (16.7 %)"]]
    assert out.read_bytes().startswith(b"\x89PNG")


def test_the_plot_title_lists_each_solver_version_once_in_numeric_order(
        tmp_path: Path) -> None:
    """A merged study's summary lists several versions: the title names each once, 3 before
    11, each version's searches after it (18 before 18-complete), not in text order."""
    from gapgrid.api.study_plot import plot_title

    [summary] = summarise(iter_latest_rows(six_deals(tmp_path / "s.csv")))
    merged = attrs.evolve(summary, solver_version="11, 18-complete, 3")
    other = attrs.evolve(summary, solver_version="18", budget_seconds=1200.0)
    assert plot_title([merged, other]) == (
        "How often each game can be won: gapgrid's solver (version 3, 11, 18, 18-complete), "
        "60 or 1200 s per deal")


@pytest.mark.parametrize(("out", "words"), [
    ("plot.txt", "names no image: its name ends in .png, .svg, .pdf"),
    ("plot", "names no image"),
    ("missing/plot.png", "cannot write"),
    ("fifo.png", "is not a regular file"),
])
def test_the_plot_command_refuses_an_output_it_cannot_write(
        tmp_path: Path, out: str, words: str) -> None:
    """An image name without a known suffix (one without any used to become OUT.png, a
    different file), a missing folder, a FIFO: one line, exit 2, nothing written (these
    were tracebacks). The image is drawn whole before OUT is replaced."""
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (the 'plot' extra)")
    from gapgrid.api import study_plot

    folder = tmp_path / "studies"
    folder.mkdir()
    six_deals(folder / "line-up.csv")
    os.mkfifo(tmp_path / "fifo.png")
    before = sorted(path.name for path in tmp_path.iterdir())
    result = CliRunner().invoke(study_plot.main, [str(folder), str(tmp_path / out)])
    assert result.exit_code == 2, result.output
    assert words in " ".join(result.stderr.split()) and "Traceback" not in result.output
    assert sorted(path.name for path in tmp_path.iterdir()) == before
    svg = CliRunner().invoke(study_plot.main, [str(folder), str(tmp_path / "plot.svg")])
    assert svg.exit_code == 0 and b"<svg" in (tmp_path / "plot.svg").read_bytes()


def test_the_plot_command_says_which_file_of_dir_it_cannot_read(tmp_path: Path) -> None:
    """A folder named x.csv, or a link to nothing, in DIR: one line naming it, exit 2."""
    from gapgrid.api import study_plot

    (tmp_path / "folder.csv").mkdir()
    result = CliRunner().invoke(study_plot.main, [str(tmp_path), str(tmp_path / "p.png")])
    assert result.exit_code == 2 and "folder.csv" in result.stderr, result.output
    (tmp_path / "folder.csv").rmdir()
    (tmp_path / "dead.csv").symlink_to(tmp_path / "nothing")
    result = CliRunner().invoke(study_plot.main, [str(tmp_path), str(tmp_path / "p.png")])
    assert result.exit_code == 2 and "cannot read" in result.stderr, result.output
    assert "dead.csv" in result.stderr


def test_the_plot_command_refuses_files_that_hold_no_row(tmp_path: Path) -> None:
    """Header-only or empty files made an empty plot titled "solver (version ),  s", exit 0;
    now they are refused as a folder with no file is, and no image is written."""
    from gapgrid.api import study_plot

    (tmp_path / "header-only.csv").write_text(HEADER_LINE)
    (tmp_path / "empty.csv").write_text("")
    result = CliRunner().invoke(study_plot.main, [str(tmp_path), str(tmp_path / "p.png")])
    assert result.exit_code == 2, result.output
    assert "hold no row: there is no study to plot" in result.stderr
    assert not (tmp_path / "p.png").exists()


def test_the_plot_command_refuses_two_files_of_one_study(reference: Path,
                                                         tmp_path: Path) -> None:
    """A copy of a study file beside it (or two halves of a study) in DIR: refused naming
    both files and how to merge them, exit 2; they were drawn and tabulated as two studies
    of one game, with the same label."""
    from gapgrid.api import study_plot

    shutil.copyfile(reference, tmp_path / "line-up.csv")
    shutil.copyfile(tmp_path / "line-up.csv", tmp_path / "line-up copy.csv")
    result = CliRunner().invoke(study_plot.main, [str(tmp_path), str(tmp_path / "p.png")])
    assert result.exit_code == 2, result.output
    message = " ".join(result.stderr.split())
    assert "line-up copy.csv and line-up.csv both hold line-up" in message, message
    assert not (tmp_path / "p.png").exists()
    # the advice, followed as given from another folder, merges them
    advice = message[message.index("(python -m ") + 1:message.index(") and keep")]
    merged = tmp_path.parent / f"{tmp_path.name}-merged.csv"
    command = shlex.split(advice.replace("python", shlex.quote(sys.executable), 1)
                          .replace("MERGED.csv", shlex.quote(str(merged))))
    done = subprocess.run(command, capture_output=True, text=True, cwd="/", timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert len(rows_of(merged)) == len(rows_of(tmp_path / "line-up.csv"))


def test_the_plot_command_says_how_to_get_matplotlib(reference: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Without matplotlib the plot command says which extra to install (exit 2); a folder
    without studies is refused too."""
    from gapgrid.api import study_plot

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    (tmp_path / "s.csv").write_bytes(reference.read_bytes())
    result = CliRunner().invoke(study_plot.main, [str(tmp_path), str(tmp_path / "p.png")])
    assert result.exit_code == 2 and "pip install 'gapgrid[plot]'" in result.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(study_plot.main, [str(empty), str(tmp_path / "p.png")])
    assert result.exit_code == 2 and "holds no .csv file" in result.stderr


def test_a_file_cut_inside_its_header_starts_afresh(tmp_path: Path) -> None:
    """A study interrupted before its header was whole resumes as a new study."""
    out = tmp_path / "h.csv"
    out.write_text(HEADER_LINE[:20])
    result = run("study", *STUDY, "--deals", "1", "--out", out, "--resume")
    assert result.exit_code == 0, result.output
    assert [row["game_number"] for row in rows_of(out)] == ["1"]


def test_a_malformed_row_inside_the_file_is_refused(reference: Path, tmp_path: Path) -> None:
    """Only a last line may be partial: a broken row before it means the file is not what
    the command wrote, and resuming refuses it with the line number (exit 2)."""
    lines = reference.read_text().splitlines(keepends=True)
    out = tmp_path / "m.csv"
    out.write_text(lines[0] + lines[1] + "line-up,,2,maybe\n" + lines[3])
    result = run("study", *STUDY, "--out", out, "--resume")
    assert result.exit_code == 2
    assert "line 3" in result.stderr and "4 fields instead of 13" in result.stderr


@pytest.mark.parametrize(("column", "value", "words"), [
    ("game_number", "0", "game number 0: PySolFC's run from 1"),
    ("game_number", "100000000000000000001", "PySolFC's run from 1"),
    ("positions", "-5", "positions -5 is not a count"),
    ("seconds", "nan", "seconds nan is not a time"),
    ("budget_seconds", "inf", "budget_seconds inf is not a budget"),
    ("budget_memory_mib", "0", "budget_memory_mib 0 is not a count"),
    ("line", "zz", "its line holds 'zz' is not a move"),
    ("line_length", "1", "a won row with line_length 1 and"),
])
def test_a_row_no_study_writes_is_refused(reference: Path, tmp_path: Path, column: str,
                                          value: str, words: str) -> None:
    """A row whose numbers no solver writes (game 0, negative positions, a NaN time) or
    whose line is not a winning line's form is refused with its line number, as a
    malformed one is, rather than counted in the summary."""
    rows = rows_of(reference)
    won = next(index for index, row in enumerate(rows) if row["verdict"] == "won")
    rows[won][column] = value
    if column == "line":
        rows[won]["line_length"] = "1"
    out = tmp_path / "r.csv"
    with out.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    result = run("study", *STUDY, "--out", out, "--resume")
    assert result.exit_code == 2, result.output
    assert f"line {won + 2}" in result.stderr and words in result.stderr, result.stderr


@pytest.mark.parametrize(("change", "words"), [
    ({"line_length": 2}, "a won row with line_length 2 and 1 actions"),
    ({"line": "undo", "line_length": 1}, "its line holds 'undo'"),
    ({"positions": -1}, "positions -1 is not a count"),
    ({"line": " ".join(["redeal"] * 150_000), "line_length": 150_000},
     "a study file's rows are shorter than 1,048,576"),
])
def test_a_row_reading_would_refuse_is_never_written(change: dict[str, object],
                                                     words: str) -> None:
    """The rows a study writes pass the checks reading them makes: a row that would not (a
    solver's fault) is refused before it reaches the file, which a resume, a summary or a
    merge would then refuse whole."""
    won = StudyRow(variant="line-up", options="", game_number=1, verdict="won",
                   line_length=1, positions=10, seconds=0.5, stopped_by="",
                   solver_version=SOLVER_VERSION, budget_seconds=60.0, budget_positions=None,
                   line="13-0")
    assert won.csv_line().endswith(",13-0,\n")
    with pytest.raises(StudyFileError, match=words):
        attrs.evolve(won, **change).csv_line()


def test_a_faulty_row_stops_the_study_with_the_rows_before_it_kept(tmp_path: Path) -> None:
    """A row reading would refuse (a solver's bug) stops the writing, as an internal error,
    with the rows before it whole in the file and the faulty one not in it."""
    good = StudyRow(variant="line-up", options="", game_number=1, verdict="won",
                    line_length=1, positions=10, seconds=0.5, stopped_by="",
                    solver_version=SOLVER_VERSION, budget_seconds=60.0, budget_positions=None,
                    line="13-0")
    faulty = attrs.evolve(good, game_number=2, line_length=2)

    def runner(tasks: object) -> Iterator[StudyRow]:  # a solver with a bug, for this test
        yield from (good, faulty)

    out = tmp_path / "s.csv"
    with ExitStack() as stack, out.open("wb") as handle:
        handle.write(HEADER_LINE.encode())
        with pytest.raises(RuntimeError, match="game 2's row is not one a study file may "):
            study_module._write_rows(stack, handle, runner, [], 2, 0, Stop(), SOLVER_VERSION)
    assert [row.game_number for _, row in iter_rows(out)] == [1]


def test_a_line_in_a_won_row_is_actions_without_undo(reference: Path, tmp_path: Path) -> None:
    """A solver's line never holds ``undo``, and each action is in gapgrid's notation."""
    row = next(row for row in rows_of(reference) if row["verdict"] == "won")
    for line, words in (("12-3 undo", "'undo'"), ("12-3 4-x", "'x' is not a slot number")):
        fields = [*row.values()]
        fields[COLUMNS.index("line")] = line
        fields[COLUMNS.index("line_length")] = "2"
        with pytest.raises(StudyFileError, match=words):
            StudyRow.from_fields(fields)


def test_a_line_longer_than_any_row_is_refused_unread(reference: Path, tmp_path: Path) -> None:
    """A line of megabytes (no study writes one) is refused with its number after reading
    at most MAX_LINE_BYTES of it; the file is left as it was."""
    out = tmp_path / "long.csv"
    out.write_bytes(reference.read_bytes() + b"x" * (MAX_LINE_BYTES * 3) + b"\n")
    before = out.read_bytes()
    result = run("study", *STUDY, "--out", out, "--resume")
    assert result.exit_code == 2, result.output
    assert "line 8: longer than 1,048,576 bytes" in result.stderr, result.stderr
    assert out.read_bytes() == before


@pytest.mark.parametrize("content", [b"hello", b"x" * 5000, b"variant,options,game\x00"])
def test_a_file_whose_first_line_is_no_header_is_left_alone(tmp_path: Path, content: bytes
                                                            ) -> None:
    """Only the start of a study's header counts as a header cut short (which a resumed
    study writes afresh): any other first line, even without its newline, is not a study
    file, and --resume refuses it rather than empty it."""
    out = tmp_path / "other.csv"
    out.write_bytes(content)
    result = run("study", *STUDY, "--out", out, "--resume")
    assert result.exit_code == 2, result.output
    assert "is not a gapgrid study file" in result.stderr
    assert out.read_bytes() == content


def test_an_out_name_too_long_is_a_usage_error(tmp_path: Path) -> None:
    """A file name longer than the file system allows is refused with the reason."""
    result = run("study", *STUDY, "--out", tmp_path / ("a" * 300 + ".csv"))
    assert result.exit_code == 2, result.output
    assert "cannot write" in result.stderr and "too long" in result.stderr


def test_no_more_workers_start_than_there_are_deals(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """--workers 64 for one deal solves it in this process: no pool of idle processes, and
    the memory check counts the one worker that runs (8 workers' 200 MiB would not fit a
    512 MiB machine; one does)."""
    def no_pool(stack: object, workers: int) -> object:
        raise AssertionError(f"a pool of {workers} workers started for one deal")

    monkeypatch.setattr(study_module, "process_runner", no_pool)
    result = run("study", *STUDY, "--deals", "1", "--workers", "64", "--out", tmp_path / "o.csv")
    assert result.exit_code == 0, result.output
    small_machine(monkeypatch)
    result = run("study", *STUDY, "--deals", "1", "--workers", "8", "--memory", "200",
                 "--out", tmp_path / "m.csv")
    assert result.exit_code == 0, result.output


def test_a_resumed_study_starts_no_more_workers_than_deals_left(
        reference: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Resuming a six-deal study with five done solves the last in this process, however many
    --workers are asked for, and the memory check counts the workers for the deals left
    (on a 512 MiB machine, one worker's 200 MiB fits, two do not), before the file is
    touched; a study that has nothing left to solve is not refused."""
    def no_pool(stack: object, workers: int) -> object:
        raise AssertionError(f"a pool of {workers} workers started for one deal left")

    lines = reference.read_text().splitlines(keepends=True)
    out = tmp_path / "five.csv"
    out.write_text("".join(lines[:5]))  # four done, two left
    small_machine(monkeypatch)
    result = run("study", *STUDY, "--workers", "8", "--memory", "200", "--out", out, "--resume")
    assert result.exit_code == 2 and "2 workers' 200 MiB" in result.stderr
    assert out.read_text() == "".join(lines[:5])
    monkeypatch.setattr(study_module, "process_runner", no_pool)
    out.write_text("".join(lines[:6]))
    result = run("study", *STUDY, "--workers", "8", "--memory", "200", "--out", out, "--resume")
    assert result.exit_code == 0, result.output
    assert "5 of the 6 deals are done" in result.stderr
    result = run("study", *STUDY, "--workers", "8", "--memory", "100000", "--out", out,
                 "--resume")
    assert result.exit_code == 0, result.output  # all done: nothing to refuse


@pytest.mark.parametrize("content", ["", None], ids=["empty file", "no file"])
def test_a_memory_refused_on_resume_leaves_no_file_made(tmp_path: Path, content: str | None,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """--resume of a study not started yet checks the memory of its workers first: an empty
    file stays empty, a missing one is not made."""
    out = tmp_path / "new.csv"
    if content is not None:
        out.write_text(content)
    small_machine(monkeypatch)
    result = run("study", *STUDY, "--workers", "8", "--memory", "200", "--out", out, "--resume")
    assert result.exit_code == 2 and "6 workers' 200 MiB" in result.stderr  # one a deal
    assert (out.read_text() if out.exists() else None) == content


def test_retry_unknown_checks_the_memory_of_the_workers_it_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--retry-unknown starts a worker for each deal it retries at most, and --memory is
    checked against those: on a 512 MiB machine, as many of 384 MiB each as there are
    unknown deals fit, one more does not; a refusal leaves the file as it was."""
    out = small_study(tmp_path / "r.csv")
    before = out.read_text()
    unknown = len(unknown_numbers(out))
    small_machine(monkeypatch)
    each = str(384 // unknown)
    result = run("study", *LARGER, "--retry-unknown", "--workers", "8", "--memory",
                 str(384 // unknown + 1), "--out", out)
    assert result.exit_code == 2 and f"{unknown} workers'" in result.stderr
    assert out.read_text() == before
    result = run("study", *LARGER, "--retry-unknown", "--workers", "8", "--memory", each,
                 "--out", out)
    assert result.exit_code == 0, result.output


def _study_then_signal(out: Path, *args: str, whole_group: bool = False,
                       again_after: float | None = None, stderr_full: bool = False,
                       rows: int = 1) -> tuple[int, str, str, float]:
    """Start ``gapgrid study`` in a process group of its own, as a background job runs, send
    SIGTERM to it (or to its whole group) once ``rows`` rows are written (0: its header), and
    return its exit
    status, its output, its error output and how many seconds it took to end after the
    signal. With ``again_after``, a second SIGTERM follows that many seconds later; with
    ``stderr_full``, its standard error is a full disk (and its error output reads empty).
    Every process of the group must be gone soon after."""
    with open("/dev/full" if stderr_full else os.devnull, "wb") as full:
        process = subprocess.Popen([str(GAPGRID), "study", *args, "--out", str(out)],
                                   stdout=subprocess.PIPE,
                                   stderr=full if stderr_full else subprocess.PIPE, text=True,
                                   start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not (out.exists() and len(out.read_text().splitlines()) >= 1 + rows):
            assert process.poll() is None and time.monotonic() < deadline, \
                "the study wrote no row"
            time.sleep(0.05)
        signalled = time.monotonic()
        if whole_group:
            os.killpg(process.pid, signal.SIGTERM)
        else:
            process.send_signal(signal.SIGTERM)
        if again_after is not None:
            time.sleep(again_after)
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=60)
        seconds = time.monotonic() - signalled
        while True:  # the workers, killed, are gone once reaped
            try:
                os.killpg(process.pid, 0)
            except ProcessLookupError:
                break
            assert time.monotonic() < signalled + 10, "a process of the study outlived it"
            time.sleep(0.05)
        return process.returncode, stdout, stderr, seconds
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()


# Single-round Gaps from game 5: game 5 is won in well under a second, game 6 is not decided
# within a minute today; 30 deals, so that the study is still under way when it is signalled
# whatever a better solver decides.
LONG_STUDY = ["montana", "-o", "redeals=0", "--first-deal", "5", "--deals", "30",
              "--budget", "60"]


def _check_stopped(out: Path, code: int, stdout: str, stderr: str, seconds: float) -> None:
    """Stopped by SIGTERM: exit 143 soon after the signal, whole rows of game 5 and later
    deals sorted by game number, the summary of those rows, no traceback."""
    assert code == 128 + signal.SIGTERM, stderr
    assert seconds < 30  # not the minute a deal under way could have had
    numbers = [int(row["game_number"]) for row in rows_of(out)]
    assert numbers[0] == 5 and numbers == sorted(numbers) and len(numbers) < 30
    won = sum(1 for row in rows_of(out) if row["verdict"] == "won")
    assert f"won {won}, lost 0, unknown {len(numbers) - won}" in stdout
    assert "with --resume" in stderr and "Traceback" not in stderr
    assert "gapgrid: terminated; the rows so far are in" in stderr


@pytest.mark.parametrize("again_after", [None, 0.0, 0.05], ids=["once", "twice", "twice-later"])
def test_sigterm_stops_a_study_as_ctrl_c_does(tmp_path: Path, again_after: float | None
                                              ) -> None:
    """``kill`` (a study in the background does not see Ctrl-C) stops the deal under way at
    once, and the rows so far are sorted and summarised; a second ``kill`` while that
    happens, or while the command exits, changes nothing."""
    out = tmp_path / "t.csv"
    _check_stopped(out, *_study_then_signal(out, *LONG_STUDY, again_after=again_after))


def test_a_study_stopped_with_json_says_so_in_its_document(tmp_path: Path) -> None:
    """--json and SIGTERM: exit 143, and standard output is still one document, of the rows
    so far, that says which signal stopped the study (a script sees it is not the end)."""
    out = tmp_path / "j.csv"
    code, stdout, stderr, _ = _study_then_signal(out, *LONG_STUDY, "--json")
    assert code == 128 + signal.SIGTERM, stderr
    document = json.loads(stdout)
    assert document["stopped_by_signal"] == "SIGTERM"
    [summary] = document["studies"]
    assert summary["deals"] == len(rows_of(out)) and summary["first_deal"] == 5


def test_a_study_stopped_before_its_first_row_says_so(tmp_path: Path) -> None:
    """Stopped while its first deal is searched, a study has no row to sum up: it says so,
    rather than point at rows that are not there."""
    out = tmp_path / "e.csv"
    code, stdout, stderr, _ = _study_then_signal(
        out, "montana", "-o", "redeals=0", "--first-deal", "6", "--deals", "1",
        "--budget", "60", rows=0)
    assert code == 128 + signal.SIGTERM, stderr
    assert rows_of(out) == [] and stdout == ""
    assert "gapgrid: terminated; no deal was finished yet, so there is nothing to sum up" in stderr
    assert "with --resume to go on" in stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_a_study_stopped_with_standard_error_full_keeps_its_status(tmp_path: Path) -> None:
    """Standard error on a full disk: a study stopped by SIGTERM still exits 143 with its
    rows sorted and its summary (the line it could not write made it exit 2)."""
    out = tmp_path / "f.csv"
    code, stdout, _, _ = _study_then_signal(out, *LONG_STUDY, stderr_full=True)
    assert code == 128 + signal.SIGTERM
    numbers = [int(row["game_number"]) for row in rows_of(out)]
    assert numbers == sorted(numbers) and f"{len(numbers)} deal" in stdout


@pytest.mark.parametrize("whole_group", [False, True], ids=["command", "whole-group"])
def test_sigterm_stops_the_workers_of_a_pool_too(tmp_path: Path, whole_group: bool) -> None:
    """With --workers 2, the command kills its workers rather than wait for their deals,
    whether the signal reaches the command alone or every process of its group (as from a
    service manager), and no worker prints a traceback."""
    out = tmp_path / "p.csv"
    code, stdout, stderr, seconds = _study_then_signal(out, *LONG_STUDY, "--workers", "2",
                                                       whole_group=whole_group)
    _check_stopped(out, code, stdout, stderr, seconds)


def _workers_of(command: int, deadline: float) -> list[int]:
    """The process ids of the two workers ``command`` (a study with --workers 2) started,
    once both are there (Linux's /proc lists a process's children)."""
    while True:
        children = [int(pid) for task in Path(f"/proc/{command}/task").iterdir()
                    for pid in (task / "children").read_text().split()]
        if len(children) >= 2:
            return children
        assert time.monotonic() < deadline, "the study started no workers"
        time.sleep(0.05)


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie waiting to be reaped counts as ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1].startswith("Z")
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads Linux's /proc")
def test_a_worker_killed_outright_is_said_in_one_line(tmp_path: Path) -> None:
    """A worker killed (by the out-of-memory killer, say) breaks the pool: the study says so
    in one line, with where the rows are and how to go on, exit 2 (it was an internal error,
    exit 3, with a traceback), and its other worker goes too."""
    out = tmp_path / "k.csv"
    process = subprocess.Popen([str(GAPGRID), "study", *LONG_STUDY, "--first-deal", "6",
                                "--workers", "2", "--out", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        workers = _workers_of(process.pid, time.monotonic() + 60)
        time.sleep(0.5)  # solving
        os.kill(workers[0], signal.SIGKILL)
        _, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 2, stderr
    assert stderr.strip().splitlines()[-1] == (
        f"gapgrid: a worker process died while solving (killed, or out of memory?): the rows "
        f"so far are in {out}; run the command again (--resume, or --retry-unknown as "
        f"before) to go on")
    assert "Traceback" not in stderr
    deadline = time.monotonic() + 10
    while not all(_gone(pid) for pid in workers):
        assert time.monotonic() < deadline, "a worker outlived the study"
        time.sleep(0.05)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's parent-death signal")
def test_the_workers_die_with_a_study_killed_outright(tmp_path: Path) -> None:
    """A study killed outright (SIGKILL, which it cannot handle) takes its workers with it:
    they ignore Ctrl-C and SIGTERM, and stayed behind for good, waiting for work."""
    out = tmp_path / "w.csv"
    process = subprocess.Popen([str(GAPGRID), "study", *LONG_STUDY, "--first-deal", "6",
                                "--workers", "2", "--out", str(out)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    try:
        workers = _workers_of(process.pid, time.monotonic() + 60)
        process.kill()
        process.wait(timeout=10)
        deadline = time.monotonic() + 10
        while not all(_gone(pid) for pid in workers):
            assert time.monotonic() < deadline, "a worker outlived the study killed"
            time.sleep(0.05)
    finally:
        process.kill()
        for pid in workers:  # left behind by a failure: not for the next tests to meet
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_study_file_with_a_long_name_is_sorted_in_place(tmp_path: Path) -> None:
    """The sorted copy is written under a short name of its own: a name near the system's
    limit (255 bytes) made it too long, an internal error after all the solving."""
    out = tmp_path / ("s" * 240 + ".csv")
    result = run("study", *STUDY, "--out", out)
    assert result.exit_code == 0, result.output
    assert [row["game_number"] for row in rows_of(out)] == [str(n) for n in range(1, 7)]
    assert [path.name for path in tmp_path.iterdir()] == [out.name]


MEMORY_DEAL = ["montana", "--option", "redeals=0", "--deals", "1", "--first-deal", "3",
               "--budget", "60"]
"""Single-round Gaps game 3: undecided within tens of thousands of positions, and its tables
pass 1 MiB within 50,000 (between 30,000 and 35,000, packed once they pass half of it)."""


def test_memory_caps_each_deals_tables(tmp_path: Path) -> None:
    """--memory reaches each deal's search: game 3 stops by memory with a 1 MiB table and
    by positions with the default."""
    stopped = {}
    for memory in ("1", "1024"):
        out = tmp_path / f"memory-{memory}.csv"
        result = run("study", *MEMORY_DEAL, "--max-positions", "50000", "--memory", memory,
                     "--out", out)
        assert result.exit_code == 0, result.output
        (row,) = rows_of(out)
        assert row["verdict"] == "unknown"
        assert row["budget_memory_mib"] == memory
        stopped[memory] = row["stopped_by"]
    assert stopped == {"1": "memory", "1024": "positions"}


def test_a_retry_takes_memory_and_retries_deals_whose_tables_filled(tmp_path: Path) -> None:
    """--memory reaches the deals --retry-unknown solves; a deal stopped by memory is retried
    at the same budget only with a --memory larger than the cap its row records, and the
    command says why it does nothing otherwise."""
    out = tmp_path / "retry.csv"
    assert run("study", *MEMORY_DEAL, "--max-positions", "10000", "--out", out).exit_code == 0
    result = run("study", *MEMORY_DEAL, "--max-positions", "50000", "--memory", "1",
                 "--retry-unknown", "--out", out)
    assert result.exit_code == 0, result.output
    (row,) = rows_of(out)
    assert (row["stopped_by"], row["budget_positions"], row["budget_memory_mib"]) == (
        "memory", "50000", "1")
    same_budget = [*MEMORY_DEAL, "--max-positions", "50000", "--retry-unknown", "--out", out]
    for memory in ((), ("--memory", "1")):  # not given, or the cap the row already had
        result = run("study", *same_budget, *memory)
        assert result.exit_code == 0, result.output
        assert ("1 filled their tables: give a --memory larger than 1 MiB to retry those"
                in result.stderr)
        assert rows_of(out) == [row]
    result = run("study", *same_budget, "--memory", "1024")
    assert result.exit_code == 0, result.output
    assert "retrying 1 unknown deal of" in result.stderr
    assert "1 filled their tables" in result.stderr
    (again,) = rows_of(out)
    assert (again["verdict"], again["stopped_by"], again["budget_memory_mib"]) == (
        "unknown", "positions", "1024")


def as_before_memory(path: Path, source: Path) -> Path:
    """``source``'s study written as gapgrid wrote study files before rows recorded the
    memory cap: the old header, and each row without its last field."""
    lines = []
    for raw in source.read_text().splitlines(keepends=True):
        fields = next(csv.reader([raw]))[:len(COLUMNS_BEFORE_MEMORY)]
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerow(fields)
        lines.append(buffer.getvalue())
    assert lines[0] == HEADER_BEFORE_MEMORY
    path.write_text("".join(lines))
    return path


def test_a_file_from_before_the_memory_column_is_read_and_upgraded_on_resume(
        reference: Path, tmp_path: Path) -> None:
    """Study files written before rows recorded the memory cap (every committed one until
    solver 14) stay readable, and a study that adds to one first rewrites it under the
    current header: its rows as they were with an empty cap, the new rows with theirs."""
    old = as_before_memory(tmp_path / "old.csv", reference)
    assert [row.budget_memory_mib for _, row in iter_rows(old)] == [None] * 6
    assert [row.verdict for _, row in iter_rows(old)] == [row["verdict"]
                                                          for row in rows_of(reference)]
    lines = old.read_text().splitlines(keepends=True)
    old.write_text("".join(lines[:4]) + lines[4][:9])  # deals 1 to 3 done, 4 cut short
    result = run("study", *STUDY, "--out", old, "--resume")
    assert result.exit_code == 0, result.output
    assert f"{old} now has a budget_memory_mib column" in result.stderr
    rows = rows_of(old)  # the current header, checked by rows_of
    assert [row["budget_memory_mib"] for row in rows] == ["", "", "", "1024", "1024", "1024"]
    upgraded = old.read_text().splitlines(keepends=True)
    assert upgraded[1:4] == [line[:-1] + ",\n" for line in lines[1:4]]  # byte for byte


def test_a_command_that_adds_no_row_leaves_a_file_from_before_the_column_as_it_was(
        tmp_path: Path) -> None:
    """A resume with every deal done, a retry with nothing to retry and a refused retry do
    not rewrite a file from before the memory column: a committed file changes only when
    rows are added to it."""
    old = as_before_memory(tmp_path / "old.csv", six_deals(tmp_path / "six.csv"))
    before = old.read_bytes()
    assert run("study", *STUDY, "--out", old, "--resume").exit_code == 0
    result = run("study", *STUDY, "--retry-unknown", "--out", old)  # deal 2 at this budget
    assert result.exit_code == 0 and "no unknown deal to retry" in result.stderr
    smaller = [*STUDY[:-1], "100", "--retry-unknown", "--out", old]
    assert run("study", *smaller).exit_code == 2
    assert old.read_bytes() == before


def test_rows_of_the_other_header_appended_to_a_file_are_refused_with_a_hint(
        reference: Path, tmp_path: Path) -> None:
    """Rows of a file from before the memory column appended by hand to a current one are
    refused naming the line, with the way to put the two together."""
    old = as_before_memory(tmp_path / "old.csv", reference)
    mixed = tmp_path / "mixed.csv"
    mixed.write_text(reference.read_text() + old.read_text().splitlines(keepends=True)[1])
    result = run("study", *STUDY, "--out", mixed, "--resume")
    assert result.exit_code == 2
    assert "line 8: 12 fields instead of 13" in result.stderr
    assert "gapgrid.api.study_merge" in result.stderr


def test_a_row_from_before_the_memory_column_stopped_by_memory_is_retried_with_memory(
        tmp_path: Path) -> None:
    """A deal whose tables filled under a cap its row does not record is retried at the same
    budget when --memory is given (the cap is taken to be smaller), and its file upgraded."""
    new = tmp_path / "new.csv"
    assert run("study", *MEMORY_DEAL, "--max-positions", "50000", "--memory", "1",
               "--out", new).exit_code == 0
    old = as_before_memory(tmp_path / "old.csv", new)
    result = run("study", *MEMORY_DEAL, "--max-positions", "50000", "--retry-unknown",
                 "--out", old)
    assert result.exit_code == 0, result.output
    assert "1 filled their tables: give a --memory to retry those" in result.stderr
    result = run("study", *MEMORY_DEAL, "--max-positions", "50000", "--retry-unknown",
                 "--memory", "2", "--out", old)
    assert result.exit_code == 0, result.output
    assert "retrying 1 unknown deal of" in result.stderr
    (row,) = rows_of(old)
    assert row["budget_memory_mib"] == "2"


def small_machine(monkeypatch: pytest.MonkeyPatch, mib: int = 512,
                  control_group: bool = False) -> None:
    """Make this process see ``mib`` MiB of memory, the machine's or a control group's."""
    limit = MemoryLimit(mib, control_group=control_group, machine_mib=65536 if control_group
                        else mib)
    monkeypatch.setattr("gapgrid.api.machine_memory.memory_limit", lambda: limit)


def test_the_workers_tables_together_must_fit_the_machine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a 512 MiB machine two workers of 200 MiB tables are refused (three quarters of it
    at most, 384 MiB in all), naming both numbers and the way out; one worker of 200 MiB
    is not."""
    small_machine(monkeypatch)
    out = tmp_path / "x.csv"
    result = run("study", *STUDY, "--workers", "2", "--memory", "200", "--out", out)
    assert result.exit_code == 2, result.output
    assert "2 workers' 200 MiB each (400 MiB)" in result.stderr
    assert "384 MiB in all" in result.stderr
    assert "give fewer --workers, or at most 192 MiB each" in result.stderr
    assert not out.exists()
    result = run("study", *STUDY, "--memory", "200", "--out", out)
    assert result.exit_code == 0, result.output


def test_memory_refusals_name_a_control_groups_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a container allowed 2,048 MiB on a bigger host, the refusal says so."""
    small_machine(monkeypatch, 2048, control_group=True)
    result = run("study", *STUDY, "--memory", "1600", "--out", tmp_path / "x.csv")
    assert result.exit_code == 2, result.output
    assert ("1,600 MiB is more than the 2,048 MiB its control group allows (the machine has "
            "65,536)") in result.stderr


def test_the_default_memory_and_a_dask_cluster_are_not_checked_here(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a 512 MiB machine two workers run with the default 1,024 MiB each (a cap their
    deals seldom reach); with --dask, whose workers are other machines, a --memory larger
    than this one's is not refused (the study gets as far as needing dask.distributed,
    made missing here)."""
    small_machine(monkeypatch)
    result = run("study", *STUDY, "--workers", "2", "--out", tmp_path / "w.csv")
    assert result.exit_code == 0, result.output
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now fails
    result = run("study", *STUDY, "--memory", "100000", "--dask", "tcp://127.0.0.1:8786",
                 "--out", tmp_path / "d.csv")
    assert result.exit_code == 2
    assert "MiB" not in result.stderr, result.stderr
    assert "pip install 'gapgrid[study]'" in result.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_sorting_keeps_the_files_permissions(tmp_path: Path) -> None:
    """The sorted file replaces the study file with the permissions it had (a temporary
    file's are the owner's alone): a study file others could read stays readable. (The
    rows are put out of order first: a sorted file is left as it is.)"""
    path = six_deals(tmp_path / "shared.csv")
    header, *rows = path.read_text().splitlines(keepends=True)
    for mode in (0o644, 0o640):
        path.write_text(header + "".join(reversed(rows)))
        path.chmod(mode)
        before = path.stat().st_ino
        sort_study_file(path)
        assert path.stat().st_ino != before  # replaced by the sorted copy
        assert path.stat().st_mode & 0o777 == mode
