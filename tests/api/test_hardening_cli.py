"""Attacks and slips on the command line (issue "Hardening"), each kept as a test: input read
whole and without a cap, internal errors for a bad environment, echoed input, and the
rough edges a new user hit (moves counted from 0, "1 moves", 2D beside 2♦, ...)."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from flask.testing import FlaskClient

from gapgrid.api import cli_puzzles
from gapgrid.api.cli import main
from gapgrid.api.config import Settings
from gapgrid.api.reading import READ_SECONDS
from gapgrid.core.catalogue import Catalogue, PluginProblem

GAPGRID = Path(sys.executable).with_name("gapgrid")
MEBIBYTE = 1024 * 1024


def invoke(*args: str, stdin: str | None = None, env: dict[str, str] | None = None,
           color: bool = False) -> Result:
    """Run the command line in-process, standard error kept apart."""
    return CliRunner().invoke(main, list(args), input=stdin, env=env, color=color,
                              prog_name="gapgrid")


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """No GAPGRID_* variable set, and the working folder a fresh empty one."""
    for name in list(os.environ):
        if name.startswith("GAPGRID_") and name != "GAPGRID_DISABLE_PLUGINS":
            monkeypatch.delenv(name)
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    monkeypatch.chdir(folder)
    yield folder


# -- standard input: streamed, capped, stopped at the first refusal -----------------------------


# A child's peak memory (ru_maxrss) counts what it held before exec, that is, a copy of
# the process that forked it: measured from pytest it would be pytest's size. So a small
# Python starts gapgrid and reports its child's peak, in KiB, to a file.
MEASURE = """
import resource, subprocess, sys
status = subprocess.call(sys.argv[2:])
with open(sys.argv[1], "w") as report:
    report.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(status)
"""


def _run_measured(args: list[str], stdin_file: Path, timeout: float = 120
                  ) -> tuple[int, bytes, float, float]:
    """Run ``gapgrid`` on a file as standard input; exit status, output, seconds, and its
    peak memory in MiB."""
    report = stdin_file.with_suffix(".rss")
    began = time.monotonic()
    with stdin_file.open("rb") as stdin:
        process = subprocess.Popen(
            [sys.executable, "-c", MEASURE, str(report), str(GAPGRID), *args], stdin=stdin,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.communicate()
            pytest.fail(f"gapgrid {' '.join(args)} ran over {timeout} s")
    return (process.returncode, output, time.monotonic() - began,
            int(report.read_text()) / 1024)


def _write(path: Path, word: str, size: int) -> Path:
    with path.open("w", encoding="ascii") as file:
        chunk = word * (1 * MEBIBYTE // len(word))
        for _ in range(size // len(chunk)):
            file.write(chunk)
    return path


@pytest.mark.slow
def test_50_mb_of_moves_whose_first_is_illegal_costs_nothing(tmp_path: Path) -> None:
    """Reading stops at the first refused move: 50 MB on standard input whose first move is
    illegal answers at once in a few MiB (it took 18 s and 1.8 GB)."""
    stdin = tmp_path / "moves.txt"
    stdin.write_text("0-1 ")
    with stdin.open("a", encoding="ascii") as file:
        file.write(("27-40 " * (MEBIBYTE // 6)) * 50)
    code, output, seconds, mib = _run_measured(["verify", "montana", "5", "--json"], stdin)
    assert code == 1, output[:300]
    assert json.loads(output)["error"]["index"] == 0
    assert seconds < 10 and mib < 120, (seconds, mib)


@pytest.mark.slow
def test_50_mb_of_redeals_stops_at_the_redeal_cap(tmp_path: Path) -> None:
    """More than 500 redeals (MAX_REDEALS) is refused as the API refuses them, after reading
    only that many: 50 MB of redeals in an unlimited-redeal game stays within the memory of
    500 redeals (50,000 redeals took 1.3 GB; 50 MB was killed by the kernel at 23 GB)."""
    stdin = _write(tmp_path / "redeals.txt", "redeal ", 50 * MEBIBYTE)
    args = ["verify", "double-blue-moon", "99999999999999999999", "-o", "redeals=unlimited",
            "--json"]
    code, output, seconds, mib = _run_measured(args, stdin)
    assert code == 2, output[:300]
    error = json.loads(output)["error"]
    assert error["kind"] == "usage" and "at most 500 redeals" in error["message"]
    assert "move 501 " in error["message"]
    assert seconds < 30 and mib < 150, (seconds, mib)


@pytest.mark.slow
def test_50_mb_of_legal_moves_stops_at_the_move_cap(tmp_path: Path) -> None:
    """More than GAPGRID_MAX_MOVES moves is refused as the API refuses them, after reading
    only that many: 50 MB of a legal move and its undo stays within the memory of 5,000."""
    stdin = _write(tmp_path / "moves.txt", "27-40 undo ", 50 * MEBIBYTE)
    code, output, seconds, mib = _run_measured(["verify", "montana", "27769", "--json"], stdin)
    assert code == 2, output[:300]
    error = json.loads(output)["error"]
    assert error["kind"] == "usage" and "more than 5,000 moves" in error["message"]
    assert seconds < 30 and mib < 150, (seconds, mib)


@pytest.mark.slow
def test_one_5_mb_word_is_refused_from_its_start(tmp_path: Path) -> None:
    """A 5 MB move is refused, quoted in a few dozen characters, without being read whole."""
    stdin = _write(tmp_path / "word.txt", "1", 5 * MEBIBYTE)
    code, output, _, mib = _run_measured(["verify", "montana", "5"], stdin)
    assert code == 2 and len(output) < 1000 and b"\xe2\x80\xa6" in output, output[:300]
    assert mib < 120


def test_the_move_cap_is_gapgrid_max_moves() -> None:
    """GAPGRID_MAX_MOVES applies to the command line too, arguments included."""
    result = invoke("verify", "montana", "5", "2-0", "undo", "2-0", "undo",
                    env={"GAPGRID_MAX_MOVES": "3"})
    assert result.exit_code == 2 and "more than 3 moves" in result.stderr
    assert invoke("verify", "montana", "5", "2-0", "undo", "2-0",
                  env={"GAPGRID_MAX_MOVES": "3"}).exit_code == 0


def test_standard_input_that_is_not_utf8_is_refused_as_moves() -> None:
    """Bytes that are not UTF-8 are a malformed move (exit 2), not an internal error."""
    result = CliRunner().invoke(main, ["verify", "montana", "5"], input=b"2-0 \xff\xfe\n")
    assert result.exit_code == 2 and "move 2" in result.stderr


# -- the environment's faults are the user's to fix, in one line, exit 2 ------------------------


def test_daily_does_not_create_an_instance_where_it_runs(clean_environment: Path) -> None:
    """`gapgrid daily` in a folder with no instance says so and creates nothing."""
    result = invoke("daily", "montana")
    assert result.exit_code == 2
    assert result.stderr.startswith("gapgrid: no secret") and "gapgrid serve" in result.stderr
    assert list(clean_environment.iterdir()) == []
    with_secret = invoke("daily", "montana", env={"GAPGRID_SECRET_KEY": "test-secret-16-b"})
    assert with_secret.exit_code == 2 and "no gapgrid instance at" in with_secret.stderr
    assert list(clean_environment.iterdir()) == []
    solution = invoke("solution", "2026-11-29", "montana",
                      env={"GAPGRID_SECRET_KEY": "test-secret-16-b"})
    assert solution.exit_code == 2, solution.output
    assert solution.stderr.count("\n") == 1 and "no gapgrid instance at" in solution.stderr
    assert list(clean_environment.iterdir()) == []


def test_daily_reads_the_instance_a_server_made(clean_environment: Path) -> None:
    """Once a server has started there (made the folder and its secret), daily works."""
    Settings.from_environment({"GAPGRID_INSTANCE": str(clean_environment / "instance")},
                              create_secret=True)
    result = invoke("daily", "montana", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["variant"] == "montana"


@pytest.mark.parametrize(("database", "daily_words", "serve_words"), [
    ("/dev/null", "not a regular file", "not a regular file"),
    ("/proc/no-such-folder/db.sqlite3", "no gapgrid instance at /proc/no-such-folder",
     "cannot use the folder /proc/no-such-folder for the database "
     "/proc/no-such-folder/db.sqlite3 (GAPGRID_DATABASE): "),
    # a name too long even to look at: the system's reason, not an internal error
    (f"/tmp/{'a' * 300}/db.sqlite3", "(GAPGRID_DATABASE): File name too long",
     "(GAPGRID_DATABASE): File name too long"),
    # a file where a folder should be: said so, not the system's "File exists"
    ("notes.txt/db.sqlite3", "no gapgrid instance at notes.txt",
     "notes.txt is a file, not a folder"),
    ("notes.txt/more/db.sqlite3", "no gapgrid instance at notes.txt/more",
     "notes.txt is a file, not a folder"),
    (".", "it is a folder", "it is a folder"),
])
def test_an_unusable_database_is_a_one_line_error(clean_environment: Path, database: str,
                                                  daily_words: str, serve_words: str) -> None:
    """/dev/null, a folder that cannot be made, a folder as the database: exit 2, one line
    naming the variable, for daily, solution, puzzles prepare and serve (they were internal
    errors, exit 3)."""
    env = {"GAPGRID_SECRET_KEY": "test-secret-16-b", "GAPGRID_DATABASE": database}
    (clean_environment / "notes.txt").write_text("not a folder")
    for args, words in ((("daily", "montana"), daily_words),
                        (("solution", "2026-11-29", "montana"), daily_words),
                        (("puzzles", "prepare", "--days", "1", "--variant", "montana"),
                         serve_words),  # like serve, it makes a missing instance folder
                        (("serve", "--port", "0"), serve_words)):
        result = invoke(*args, env=env)
        assert result.exit_code == 2, (args, result.output)
        line = result.stderr.strip()
        assert "\n" not in line and words in line and "GAPGRID_" in line, line
        assert "internal error" not in line


def test_an_instance_folder_that_cannot_be_used_is_named_as_such(clean_environment: Path
                                                                 ) -> None:
    """A file as GAPGRID_INSTANCE, or a name too long, with the database elsewhere: serve
    names the instance folder, not the database's (whose folder is fine); daily, which
    needs neither, names the missing instance."""
    (clean_environment / "notes.txt").write_text("not a folder")
    (clean_environment / "db").mkdir()
    for instance, words in (("notes.txt", "notes.txt is a file, not a folder"),
                            (f"/tmp/{'a' * 300}", "File name too long")):
        env = {"GAPGRID_SECRET_KEY": "test-secret-16-b", "GAPGRID_INSTANCE": instance,
               "GAPGRID_DATABASE": str(clean_environment / "db" / "g.sqlite3")}
        result = invoke("serve", "--port", "0", env=env)
        assert result.exit_code == 2
        assert result.stderr == (f"gapgrid: cannot serve: cannot use the instance folder "
                                 f"{instance} (GAPGRID_INSTANCE): {words}\n")
    env = {"GAPGRID_SECRET_KEY": "test-secret-16-b", "GAPGRID_INSTANCE": f"/tmp/{'a' * 300}"}
    result = invoke("daily", "montana", env=env)
    assert result.exit_code == 2 and "internal error" not in result.stderr
    assert result.stderr.endswith("(GAPGRID_INSTANCE): File name too long\n")


def _prepared_database(folder: Path, days: int) -> tuple[Path, dict[str, str]]:
    """A database with montana's puzzles from 2026-01-01 on, made by a process of its own
    (a connection this one kept open would lock or cache what the test then changes), and
    the environment that names it."""
    database = folder / "puzzles.sqlite3"
    env = {"GAPGRID_SECRET_KEY": "test-secret-16-b", "GAPGRID_DATABASE": str(database)}
    made = subprocess.run([str(GAPGRID), "puzzles", "prepare", "--from", "2026-01-01",
                           "--days", str(days), "--variant", "montana", "--seconds", "1",
                           "--positions", "1000"], env={**os.environ, **env},
                          capture_output=True, text=True, timeout=120, check=False)
    assert made.returncode == 0, made.stderr
    return database, env


def _damage_pages(database: Path) -> None:
    """Overwrite 20 KiB past the header: SQLite opens the file and fails on a query."""
    with sqlite3.connect(database) as connection:  # the pages into the file, out of its WAL
        connection.execute("pragma wal_checkpoint(truncate)")
    with database.open("r+b") as file:
        file.seek(12288)
        file.write(b"\xff" * 20480)


def _set_revision(database: Path, revision: str) -> None:
    with sqlite3.connect(database) as connection:
        connection.execute("update alembic_version set version_num = ?", (revision,))


def _set_bodies(database: Path, body: str) -> None:
    with sqlite3.connect(database) as connection:
        connection.execute("update puzzles set body = ?", (body,))


@pytest.mark.parametrize(("damage", "words"), [
    (_damage_pages, "cannot use the database"),
    (lambda database: _set_revision(database, "9999"), "written by a newer gapgrid"),
    (lambda database: _set_bodies(database, "garbage"), "did not write (not a JSON object)"),
    (lambda database: _set_bodies(database, "1"), "did not write (not a JSON object)"),
])
def test_a_database_damaged_past_opening_is_a_one_line_error(
        clean_environment: Path, damage: Any, words: str) -> None:
    """A database that opens but fails on a query (pages overwritten, a newer gapgrid's
    schema, a value that is not JSON): daily and solution say it in one line, exit 2, with
    no SQL dumped (they were internal errors, exit 3)."""
    database, env = _prepared_database(clean_environment, days=2)
    damage(database)
    for args in (("daily", "montana", "--date", "2026-01-01"),
                 ("solution", "2026-01-02", "montana")):
        done = subprocess.run([str(GAPGRID), *args], env={**os.environ, **env},
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        line = done.stderr.strip()
        assert "\n" not in line and words in line and "SQL" not in line, line


def test_db_upgrade_finds_damaged_pages_it_has_no_need_to_read(
        clean_environment: Path) -> None:
    """`db upgrade` on a file damaged past the pages it reads said "already at revision"
    (exit 0): an operator checking a database before starting servers on it was told all
    was well. It checks every page first now, says what is wrong (exit 2), and writes
    nothing to the file."""
    database, env = _prepared_database(clean_environment, days=2)
    result = invoke("db", "upgrade", env=env)
    assert result.exit_code == 0 and "already at revision" in result.output, result.output
    _damage_pages(database)
    before = database.read_bytes()
    result = invoke("db", "upgrade", env=env)
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert "\n" not in line and f"the database {database} (GAPGRID_DATABASE) is damaged (" in line
    assert line.endswith("): restore it from a backup"), line
    assert "*** in database main" not in line
    assert database.read_bytes() == before  # nothing written to it: damage can spread


@pytest.mark.parametrize("args", [
    ("solve", "montana", "1", "--budget", "\u0661"),
    ("hint", "montana", "1", "--memory", "\u0661\u0660\u0660"),
    ("study", "line-up", "--deals", "\u0661"),
    ("study", "line-up", "--first-deal", "\uff11"),
    ("study", "line-up", "--budget", "\u0661"),
    ("study", "line-up", "--deals", "1_0"),
    ("puzzles", "prepare", "--days", "\u0967"),
    ("serve", "--port", "\u0668\u0660\u0660\u0660"),
])
def test_numbers_in_other_scripts_digits_are_refused(
        clean_environment: Path, args: tuple[str, ...]) -> None:
    """Python reads Arabic-Indic, fullwidth or Devanagari digits as numbers; a budget, a
    memory, a deal count or a port typed so was taken as one. Game numbers refuse them
    already: so does every number option now (exit 2, nothing made)."""
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert "is not a number written in ASCII digits" in result.stderr
    assert list(clean_environment.iterdir()) == []


@pytest.mark.parametrize(("first", "days", "words"), [
    ("2025-12-31", "1", "puzzles start on 2026-01-01 (GAPGRID_FIRST_DAY)"),
    ("0001-01-01", "1", "puzzles start on 2026-01-01"),
    ("9999-12-31", "1", "past the last day a puzzle can have, 9999-12-30"),
    ("9999-12-30", "2", "past the last day a puzzle can have, 9999-12-30"),
])
def test_puzzles_are_prepared_only_for_days_that_can_be_served(
        clean_environment: Path, first: str, days: str, words: str) -> None:
    """Days before GAPGRID_FIRST_DAY were stored and could never be served; 9999-12-31
    (whose day ends on no date) was an internal error. Both are refused before an instance
    is made."""
    database = clean_environment / "puzzles.sqlite3"
    env = {"GAPGRID_SECRET_KEY": "test-secret-16-b", "GAPGRID_DATABASE": str(database)}
    result = invoke("puzzles", "prepare", "--from", first, "--days", days, "--variant",
                    "montana", "--seconds", "1", "--positions", "1000", env=env)
    assert result.exit_code == 2, result.output
    assert words in result.stderr and "internal error" not in result.stderr
    assert list(clean_environment.iterdir()) == []


def test_daily_before_the_first_day_blames_the_setting_not_an_option(
        clean_environment: Path) -> None:
    """Today before GAPGRID_FIRST_DAY: no puzzle today, said of the setting (it said
    "Invalid value for --date", an option nobody gave), unless the variant is unknown,
    which is said first (it blamed the setting too); a secret the tokens cannot be
    signed with is a setting's error too (it was an internal error, exit 3)."""
    database = str(clean_environment / "gapgrid.sqlite3")
    environment = {"GAPGRID_FIRST_DAY": "9999-12-31", "GAPGRID_SECRET_KEY": "test-secret-16-b",
                   "GAPGRID_DATABASE": database}
    early = invoke("daily", "line-up", env=environment)
    assert early.exit_code == 2, early.output
    assert "no puzzle today: puzzles start on 9999-12-31 (GAPGRID_FIRST_DAY)" in early.stderr
    assert "--date" not in early.stderr
    unknown = invoke("daily", "nosuch", env=environment)  # the variant is said first
    assert unknown.exit_code == 2, unknown.output
    assert "nosuch" in unknown.stderr and "GAPGRID_FIRST_DAY" not in unknown.stderr
    unsigned = invoke("daily", "line-up", "--json",
                      env={"GAPGRID_SECRET_KEY": "\udcff", "GAPGRID_DATABASE": database})
    assert unsigned.exit_code == 2, unsigned.output
    error = json.loads(unsigned.stdout)["error"]
    assert error["kind"] == "environment"
    assert "GAPGRID_SECRET_KEY is not UTF-8 text" in error["message"]


# Loaded first by the child's Python: the moment its command line starts loading the database
# layer (a good part of a second after its start), the child sends itself SIGINT, as a Ctrl-C
# typed then would.
CTRL_C_WHILE_LOADING = """
import importlib.abc, os, signal, sys

class CtrlCWhileLoading(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "sqlalchemy":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, CtrlCWhileLoading())
"""


def test_ctrl_c_while_the_command_line_loads_exits_130_without_a_traceback(
        tmp_path: Path) -> None:
    """The command line takes most of a second to load; a Ctrl-C then printed Python's
    traceback of the module being loaded and died by the signal. It now exits 130 in
    silence, as after a Ctrl-C at any later moment."""
    (tmp_path / "sitecustomize.py").write_text(CTRL_C_WHILE_LOADING)
    environment = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([str(GAPGRID), "deal", "montana", "1"], env=environment,
                          capture_output=True, timeout=60, check=False)
    assert done.returncode == 130, done.stderr.decode(errors="replace")
    assert done.stdout == b"" and b"Traceback" not in done.stderr


def test_a_command_waiting_for_another_process_says_so(clean_environment: Path) -> None:
    """A puzzle another process holds the lease on (one that was killed leaves it until it
    expires) is waited for, as long as a command may: the command says that it waits (it
    waited in silence for up to 600 s), and makes the puzzle once the lease is gone."""
    database, env = _prepared_database(clean_environment, days=1)
    lease = ("puzzle:2026-01-02-montana", "a killed process", time.time() + 600)
    with sqlite3.connect(database) as connection:
        connection.execute("insert into leases values (?, ?, ?)", lease)
    process = subprocess.Popen([str(GAPGRID), "solution", "2026-01-02", "montana"],
                               env={**os.environ, **env}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        said = process.stderr.readline() if process.stderr else ""  # the lease holds it
        with sqlite3.connect(database) as connection:
            connection.execute("delete from leases where name = ?", lease[:1])
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert said.startswith("gapgrid: the puzzle 2026-01-02-montana is being prepared by "
                           "another process; waiting for it"), said + err
    assert process.returncode == 0, err
    assert "line of" in out


def test_a_puzzle_still_held_after_the_wait_is_an_environment_error(
        clean_environment: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When the lease is still held once the command's wait is over (shortened here from
    600 s), the command says the puzzle is busy and when to try again, exit 2 as for
    anything else about the environment: not "Invalid value" for an argument that was
    right, and not an internal error."""
    database, env = _prepared_database(clean_environment, days=1)
    lease = ("puzzle:2026-01-02-montana", "a killed process", time.time() + 600)
    with sqlite3.connect(database) as connection:
        connection.execute("insert into leases values (?, ?, ?)", lease)
    monkeypatch.setattr(cli_puzzles, "COMMAND_WAIT_SECONDS", 0.3)
    result = invoke("solution", "2026-01-02", "montana", env=env)
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert lines[0].startswith("gapgrid: the puzzle 2026-01-02-montana is being prepared by "
                               "another process; waiting for it, up to 0.3 s"), lines
    assert lines[1].startswith("gapgrid: the puzzle 2026-01-02-montana is being prepared by "
                               "another request or process; try again in "), lines
    assert len(lines) == 2 and "Invalid value" not in result.stderr


def test_serve_refuses_a_busy_port_and_a_bad_host(clean_environment: Path) -> None:
    """A port in use and an address that is no address are one line each, exit 2, before
    any banner (they were "internal error ... please report it", exit 3)."""
    env = {"GAPGRID_SECRET_KEY": "test-secret-16-b"}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = invoke("serve", "--port", str(port), env=env)
    assert busy.exit_code == 2 and "is in use by another program" in busy.stderr
    assert "gapgrid API on" not in busy.stderr
    for host in ("999.1.1.1", "no-such-host.invalid"):
        bad = invoke("serve", "--host", host, env=env)
        assert bad.exit_code == 2 and f"cannot listen on {host}" in bad.stderr


# -- echoed input -------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [
    ("deal", "x" * 100_000, "5"),
    ("deal", "montana", "9" * 100_000),
    ("deal", "montana", "5", "-o", "redeals=" + "9" * 100_000),
    ("deal", "montana", "5", "-o", "k" * 100_000 + "=1"),
    ("deal", "montana", "5", "-o", "k" * 100_000),
    ("verify", "montana", "5", "--elapsed", "s" * 100_000),
    ("verify", "montana", "5", "--scoring", "g" * 100_000),
    ("verify", "montana", "5", "2-0", "1" * 100_000),
    ("x" * 100_000,),
])
def test_long_arguments_are_quoted_short(args: tuple[str, ...]) -> None:
    """An argument of 100,000 characters is quoted in a short, marked excerpt, text and JSON
    alike (a 5 MB move came back in a 5 MB message)."""
    result = invoke(*args)
    assert result.exit_code == 2
    assert len(result.stderr) < 1500, result.stderr[:300]
    as_json = invoke(*args, "--json")
    assert len(as_json.stdout) < 1500, as_json.stdout[:300]


# -- the rough edges -------------------------------------------------------------------------


def test_gapgrid_alone_prints_help_and_succeeds() -> None:
    """`gapgrid` with no command prints the help on standard output, exit 0."""
    result = invoke()
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout.startswith("Usage: gapgrid") and "verify" in result.stdout


@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {"TERM": "dumb"}])
def test_colour_honours_no_color_and_dumb_terminals(env: dict[str, str]) -> None:
    """NO_COLOR (any value) and TERM=dumb turn colour off, even on a terminal."""
    assert "\x1b[" in invoke("deal", "montana", "1", color=True,
                             env={"NO_COLOR": "", "TERM": "xterm"}).stdout
    assert "\x1b[" not in invoke("deal", "montana", "1", color=True, env=env).stdout
    assert "\x1b[" not in invoke("moves", "montana", "1", color=True, env=env).stdout


def test_text_counts_moves_from_one_with_plurals_and_board_card_names() -> None:
    """The fourth move is Move 4, the card is 2♦ as on the board, "1 move" is singular; the
    JSON index stays 0-based."""
    text = invoke("verify", "montana", "27769", "27-40", "redeal", "15-0", "0-3").stdout
    assert "Move 4 (0-3) is refused: slot 3 is not a gap: it holds 2♦." in text
    assert "The 3 moves before it are legal" in text
    first = invoke("verify", "montana", "27769", "0-3").stdout
    assert "Move 1 (0-3) is refused" in first and "It is the first move" in first
    one = invoke("verify", "montana", "27769", "27-40", "--scoring", "cards").stdout
    assert "The 1 move is legal" in one
    assert "(1 card in sequence, 2 redeals unused, 0 undos)" in one
    none = invoke("moves", "montana", "27769").stdout
    assert "No move was played" in none
    data = json.loads(invoke("verify", "montana", "27769", "27-40", "redeal", "15-0", "0-3",
                             "--json").stdout)
    assert data["error"]["index"] == 3 and data["error"]["reason"].endswith("2D")


def test_a_repeated_option_is_an_error() -> None:
    """--elapsed twice, or one --option key twice, is refused rather than silently keeping
    the last; options meant to repeat still may."""
    twice = invoke("verify", "montana", "5", "--elapsed", "5", "--elapsed", "50")
    assert twice.exit_code == 2 and "--elapsed is given twice" in twice.stderr
    assert invoke("verify", "montana", "5", "--elapsed=5", "--elapsed=50").exit_code == 2
    key = invoke("deal", "montana", "5", "-o", "redeals=1", "--option", "redeals=2")
    assert key.exit_code == 2 and "'redeals' is given twice ('1' and '2')" in key.stderr
    assert invoke("verify", "montana", "5", "--scoring", "cards", "--scoring", "par",
                  "--json", "--json").exit_code == 0


def test_elapsed_is_never_silently_ignored() -> None:
    """--elapsed is shown beside the scores, and said when no scheme shown scores time."""
    alone = invoke("verify", "montana", "27769", "27-40", "--elapsed", "42",
                   "--scoring", "cards").stdout
    assert "Time: 42 s; none of the schemes shown scores the time." in alone
    scored = invoke("verify", "montana", "27769", "27-40", "--elapsed", "42").stdout
    par = next(line for line in scored.splitlines() if line.startswith("par: "))
    assert "Time: 42 s." in scored and "in 42.0 s" in par


def test_elapsed_is_a_plain_number_of_seconds() -> None:
    """``-0`` is shown as 0 s (it was "Time: -0 s"), and digits of other scripts are
    refused as NUMBER refuses them (``١٢`` was 12 s)."""
    zero = invoke("verify", "montana", "27769", "27-40", "--elapsed", "-0").stdout
    assert "Time: 0 s." in zero and "-0" not in zero
    other = invoke("verify", "montana", "27769", "27-40", "--elapsed", "\u0661\u0662")
    assert other.exit_code == 2 and "is not a number of seconds" in other.stderr
    spaced = invoke("verify", "montana", "27769", "27-40", "--elapsed", "1_000")  # was 1000
    assert spaced.exit_code == 2 and "is not a number of seconds" in spaced.stderr


def test_no_internal_words_reach_users() -> None:
    """Scheme, preset and option texts speak of the game, not of the seed documents."""
    shown = invoke("scoring").stdout + invoke("variants", "--json").stdout
    for word in ("seed 00", "seed documents", "Frontier Ledger"):
        assert word not in shown


def test_only_pysolfc_games_get_a_pysolfc_title(clean_environment: Path,
                                                client: FlaskClient) -> None:
    """Montana's deal names its PySolFC game number; Gaps (a preset PySolFC lacks) and
    Diagonal Gaps (the example plugin's) do not: not in the text of deal and daily, not in
    deal --json, not in the API's deal."""
    assert invoke("deal", "montana", "5").stdout.splitlines()[0] == (
        "Montana, game 5 (PySolFC: #ms5)")
    assert json.loads(invoke("deal", "montana", "5", "--json").stdout)["pysolfc_title"] == "#ms5"
    assert client.get("/v1/variants/montana/deals/5").get_json()["pysolfc_title"] == "#ms5"
    Settings.from_environment({"GAPGRID_INSTANCE": str(clean_environment / "instance")},
                              create_secret=True)
    env = {"GAPGRID_CERTIFY_SECONDS": "0"}  # the board is what matters here, not the search
    assert "(PySolFC: #" in invoke("daily", "montana", env=env).stdout.splitlines()[0]
    for slug, name in (("gaps", "Gaps"), ("diagonal-gaps", "Diagonal Gaps")):
        assert invoke("deal", slug, "5").stdout.splitlines()[0] == f"{name}, game 5"
        assert "pysolfc_title" not in json.loads(invoke("deal", slug, "5", "--json").stdout)
        assert "pysolfc_title" not in client.get(f"/v1/variants/{slug}/deals/5").get_json()
        title = invoke("daily", slug, env=env).stdout.splitlines()[0]
        assert title.startswith(f"{name}, puzzle of ") and "PySolFC" not in title


def test_unknown_variants_point_to_the_list() -> None:
    """On the command line an unknown variant points to `gapgrid variants`."""
    result = invoke("deal", "montanna", "5")
    assert result.exit_code == 2 and "(`gapgrid variants` lists them)" in result.stderr


def test_plugin_errors_show_no_pluggy_internals(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plugin that fails to load is named with a one-line reason: no module reprs, memory
    addresses, registry dumps or internal plugin numbers."""
    from gapgrid import plugins
    load = plugins.load_catalogue

    def with_a_broken_plugin(**kwargs: Any) -> Catalogue:
        catalogue = load(disabled=())
        reason = ("invalid plugin: Plugin already registered under a different name: "
                  "again=<module 'third.party' from '/site/third/party.py'>\n"
                  "{'140523342521616': <third.Party object at 0x7f3a2c1d9e10>}")
        catalogue.problems = (*catalogue.problems, PluginProblem("again", reason))
        return catalogue
    monkeypatch.setattr(plugins, "load_catalogue", with_a_broken_plugin)
    result = invoke("scoring")
    assert result.exit_code == 0
    stderr = result.stderr
    assert stderr.count("\n") == 1 and "plugin 'again' not loaded" in stderr
    assert "0x7f" not in stderr and "140523342521616" not in stderr and "/site/" not in stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
@pytest.mark.parametrize("args", [("variants",), ("deal", "montana", "1", "--json")])
def test_a_full_disk_is_said_not_reported_as_a_bug(args: tuple[str, ...]) -> None:
    """Output to a full disk (``> /dev/full``) is the machine's state: a one-line reason
    and exit 2, as for another environment the command cannot use, not "internal error"."""
    with open("/dev/full", "wb") as full:
        done = subprocess.run([str(GAPGRID), *args], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr == "gapgrid: cannot write: No space left on device\n"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
@pytest.mark.parametrize(("args", "status"), [(("solve", "nosuch", "1"), 2),
                                              (("deal", "montana", "0"), 2),
                                              (("variants",), 0)])
def test_a_full_standard_error_keeps_the_exit_status(args: tuple[str, ...],
                                                     status: int) -> None:
    """Standard error on a full disk (``2>/dev/full``): a usage error is still exit 2 and a
    command that needs no word there still succeeds (the usage error exited 1, a refused
    move's status, once saying the disk was full failed too)."""
    with open("/dev/full", "wb") as full:
        done = subprocess.run([str(GAPGRID), *args], stdout=subprocess.PIPE, stderr=full,
                              text=True, timeout=60, check=False)
    assert done.returncode == status, done.stdout


@pytest.mark.parametrize("args", [("variants",), ("moves", "montana", "3", "--json"),
                                  ("moves", "montana", "0", "--json"), ("--help",)])
def test_a_reader_that_went_away_is_not_a_refused_move(args: tuple[str, ...]) -> None:
    """Output into a pipe nobody reads any more (``| head -1`` once it has its line) ends
    with 141, what a shell reports for a command SIGPIPE stopped: not 1, which says a
    move was refused, and no traceback from the interpreter's last flush."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first byte is written
    try:
        done = subprocess.run([str(GAPGRID), *args], stdout=write_end, stderr=subprocess.PIPE,
                              text=True, timeout=60, check=False)
    finally:
        os.close(write_end)
    assert done.returncode == 141, done.stderr
    assert done.stderr == ""


@pytest.mark.parametrize(("args", "closed", "words"), [
    (("verify", "montana", "1"), "stdin", "standard input, which is closed"),
    (("variants",), "stdout", "standard output is closed"),
    (("moves", "montana", "3", "--json"), "stdout", "standard output is closed"),
])
def test_a_closed_standard_stream_is_a_usage_error(args: tuple[str, ...], closed: str,
                                                   words: str) -> None:
    """Started with standard input or output closed (``<&-``, ``>&-``): exit 2 and one line
    saying which (they were internal errors, exit 3, from ``None.buffer``)."""
    streams: dict[str, Any] = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL}
    del streams[closed]  # the child gets no such descriptor: the parent's is closed for it
    script = ("import os, subprocess, sys; fd = {'stdin': 0, 'stdout': 1}[sys.argv[1]]; "
              "os.close(fd); sys.exit(subprocess.call(sys.argv[2:], pass_fds=()))")
    done = subprocess.run([sys.executable, "-c", script, closed, str(GAPGRID), *args],
                          stderr=subprocess.PIPE, text=True, timeout=60, check=False,
                          **streams)
    assert done.returncode == 2, done.stderr
    assert words in done.stderr and "internal error" not in done.stderr


@pytest.mark.parametrize(("args", "fifo", "words"), [
    (("verify", "--from-save", "{fifo}"), "game.pso", "the file is empty"),
    (("pysolfc", "status", "--plugins-dir", "{folder}"), "gapgrid_pysolfc.py", "Not installed"),
    (("solve", "montana", "-o", "redeals=0", "--layout", "{fifo}"), "layout.json",
     "the layout file is empty"),
    (("daily", "montana"), "instance/secret_key", "does not hold a secret"),
    (("study", "montana", "--deals", "1", "--out", "{fifo}"), "study.csv",
     "not a regular file"),
    (("study", "montana", "--deals", "1", "--skip-decided-in", "{fifo}", "--out",
      "{folder}/out.csv"), "decided.csv", "not a regular file"),
])
def test_a_fifo_nobody_writes_to_never_hangs_a_command(tmp_path: Path, args: tuple[str, ...],
                                                       fifo: str, words: str) -> None:
    """A FIFO where a file is read (a saved game, the plugin file, a layout, the instance's
    secret, a study file) is read as empty or refused; open() on it used to wait for a writer for
    ever, deaf to SIGTERM."""
    path = tmp_path / fifo
    path.parent.mkdir(exist_ok=True)
    os.mkfifo(path)
    env = {**os.environ, "GAPGRID_INSTANCE": str(tmp_path / "instance")}
    env.pop("GAPGRID_SECRET_KEY", None)
    command = [part.format(fifo=path, folder=tmp_path) for part in args]
    done = subprocess.run([str(GAPGRID), *command], env=env, capture_output=True, text=True,
                          timeout=60, check=False, cwd=tmp_path)
    assert words in done.stdout + done.stderr, (done.returncode, done.stdout, done.stderr)
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_a_layout_pipe_whose_writer_never_closes_it_ends_in_one_line(tmp_path: Path) -> None:
    """`solve --layout FIFO` whose writer keeps the FIFO open, having sent half a layout,
    ends once the read's time is up, in one line naming the option (exit 2); it used to wait
    for ever."""
    fifo = tmp_path / "layout.json"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR)  # a writer that stays, as a stuck program's would
    try:
        os.write(writer, b'{"rows": ')
        done = subprocess.run([str(GAPGRID), "solve", "montana", "-o", "redeals=0", "--layout",
                               str(fifo)], capture_output=True, text=True,
                              timeout=READ_SECONDS + 60, check=False)
    finally:
        os.close(writer)
    assert done.returncode == 2 and not done.stdout, (done.stdout, done.stderr)
    assert f"did not end within {READ_SECONDS:g} s" in done.stderr and "--layout" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252"])
def test_a_terminal_without_suit_symbols_gets_the_card_codes_suit_letters(encoding: str
                                                                          ) -> None:
    """Standard output in an encoding without ♣♠♥♦ (a Latin-1 terminal, a Windows code page)
    shows each card as its code's suit letter (JD for J♦) instead of failing at the first
    card as an internal error (exit 3); UTF-8 keeps the symbols."""
    def deal(encoding: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([str(GAPGRID), "deal", "montana", "1"], capture_output=True,
                              env={**os.environ, "PYTHONIOENCODING": encoding}, timeout=60)
    done = deal(encoding)
    assert done.returncode == 0, done.stderr
    rows = done.stdout.decode(encoding).splitlines()
    assert rows[2].split()[:4] == ["0", "JD", "2D", "9H"], rows
    assert deal("utf-8").stdout.decode().splitlines()[2].split()[:3] == ["0", "J♦", "2♦"]


def test_standard_error_and_json_on_a_latin_1_terminal_keep_their_meaning() -> None:
    """On a Latin-1 terminal, standard error gets the same stand-ins (a cut name ends in
    ..., not Python's \\u2026), and JSON escapes what Latin-1 lacks rather than standing
    it in, so that a document's strings are unchanged."""
    latin_1 = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    refused = subprocess.run([str(GAPGRID), "deal", "a" * 80, "1"], capture_output=True,
                             env=latin_1, timeout=60)
    said = refused.stderr.decode("latin-1")
    assert refused.returncode == 2 and "'" + "a" * 40 + "...'" in said, said
    assert "\\u" not in said
    answered = subprocess.run([str(GAPGRID), "deal", "ゲーム", "1", "--json"],
                              capture_output=True, env=latin_1, timeout=60)
    document = json.loads(answered.stdout.decode("ascii"))
    assert "unknown variant 'ゲーム'" in document["error"]["message"], document
