"""``gapgrid solve`` and ``gapgrid hint``: verdicts, lines that replay, layouts, bounds,
and the progress line that only a terminal sees."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import pytest
from click.testing import CliRunner

from gapgrid import plugins
from gapgrid.api.cli import main
from gapgrid.api.cli_solving import ProgressLine
from gapgrid.api.machine_memory import MemoryLimit
from gapgrid.api.services import solving
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.notation import parse_actions
from gapgrid.core.replay import replay
from gapgrid.core.search import SOLVER_VERSION, Budget, Progress
from tests.api.live import GAPGRID

WON_QUICKLY = ("montana", "52", ("-o", "redeals=0"))
"""Single-round Montana game 52: the solver wins it within a few hundred positions."""

LOST_QUICKLY = ("line-up", "55", ())
"""Line Up game 55: proven lost within a few hundred positions."""


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def solve_json(*args: str) -> dict[str, Any]:
    code, out, err = run("solve", *args, "--json")
    assert code == 0, (out, err)
    return json.loads(out)  # type: ignore[no-any-return]


def layout_file(tmp_path: Path, variant: str, number: str, options: tuple[str, ...]) -> Path:
    """The rows ``gapgrid deal --json`` prints, as a layout file."""
    code, out, _ = run("deal", variant, number, *options, "--json")
    assert code == 0
    path = tmp_path / "layout.json"
    path.write_text(json.dumps({"rows": json.loads(out)["rows"]}))
    return path


def test_solve_json_gives_a_line_that_replays_to_a_win() -> None:
    """A won verdict comes with the documented fields and a line the engine replays to a
    win; the search's figures are there."""
    variant, number, options = WON_QUICKLY
    document = solve_json(variant, number, *options)
    assert document["verdict"] == "won" and document["ok"] is True
    assert {"line", "positions", "seconds", "stopped_by", "solver_version", "budget"} <= set(
        document)
    assert document["stopped_by"] is None and document["positions"] > 0
    rules = plugins.load_catalogue(disabled=()).rules(variant, {"redeals": "0"})
    assert replay(rules, DealNumber(52), parse_actions(document["line"])).won


def test_solve_after_moves_starts_from_the_position_they_reach() -> None:
    """Given moves, the line continues from where they lead, and the two together win."""
    variant, number, options = WON_QUICKLY
    first = solve_json(variant, number, *options)["line"]
    after = solve_json(variant, number, *options, *first[:3])
    assert after["moves_applied"] == 3 and after["verdict"] == "won"
    rules = plugins.load_catalogue(disabled=()).rules(variant, {"redeals": "0"})
    assert replay(rules, DealNumber(52), parse_actions(first[:3] + after["line"])).won


@pytest.mark.parametrize("game", [WON_QUICKLY, LOST_QUICKLY], ids=["won", "lost"])
def test_a_layout_and_its_game_number_get_the_same_verdict(tmp_path: Path,
                                                           game: tuple[Any, ...]) -> None:
    """The deal's rows given through --layout are solved exactly as the game number is:
    same verdict, same line."""
    variant, number, options = game
    by_number = solve_json(variant, number, *options)
    by_layout = solve_json(variant, "--layout", str(layout_file(tmp_path, variant, number,
                                                                 options)), *options)
    assert by_layout["deal"] is None and by_number["deal"] == number
    assert by_layout["verdict"] == by_number["verdict"] != "unknown"
    assert by_layout["line"] == by_number["line"]


def test_a_layout_is_refused_where_redeals_need_the_game_number(tmp_path: Path) -> None:
    """Montana has redeals: --layout is a usage error that says why and what to do, in text
    and in JSON."""
    path = layout_file(tmp_path, "montana", "52", ())
    code, _, err = run("solve", "montana", "--layout", str(path))
    assert code == 2 and "game number" in err and "redeals=0" in err
    code, out, _ = run("solve", "montana", "--layout", str(path), "--json")
    error = json.loads(out)["error"]
    assert code == 2 and error["kind"] == "usage" and error["parameter"] == "--layout"


@pytest.mark.parametrize(("content", "expected"), [
    (b"{not json", "not JSON"),
    (b" \n", "the layout file is empty"),
    (b'{"rows": [["2C"]]}', "rows"),
    (json.dumps({"rows": [["2C"] * 13] * 4}).encode(), "cards of a Montana deal"),
    (b" " * (solving.LAYOUT_MAX_BYTES + 1), "at most"),
    (b'{"rows": [], "rows": [["2C"]]}', "the key 'rows' appears more than once"),
    (b'{"rows": [[' + b"9" * 5000 + b"]]}", "rows of gapgrid deal --json"),
], ids=["not-json", "empty", "wrong-shape", "wrong-cards", "too-large", "repeated-key",
        "huge-number"])
def test_bad_layout_files_are_usage_errors(tmp_path: Path, content: bytes, expected: str
                                           ) -> None:
    """A layout that is not JSON, empty, has the wrong shape or cards, or is too large: exit 2,
    naming --layout and the reason. JSON is read as the API reads a body: a repeated key is
    refused (it was taken as its last value), and a number of 5,000 digits is a number in
    the wrong place (it was Python's own message, cut off mid-word)."""
    path = tmp_path / "layout.json"
    path.write_bytes(content)
    code, _, err = run("solve", "montana", "--layout", str(path), "-o", "redeals=0")
    assert code == 2 and "--layout" in err and expected in err


def test_the_budget_has_a_documented_maximum() -> None:
    """More than an hour, zero, infinite, NaN or not a number: usage errors naming --budget,
    from both commands. (NaN passes a range check, since every comparison with it is false:
    it was a search without a time limit, and JSON that no parser reads.)"""
    for command in ("solve", "hint"):
        for value in ("3601", "0", "inf", "nan", "-nan", "soon"):
            code, out, _ = run(command, "montana", "1", "--budget", value, "--json")
            assert code == 2, (command, value, out)
            assert json.loads(out)["error"]["parameter"] == "--budget"


@pytest.mark.parametrize(("args", "words"), [
    (("moves", "montana", "2", "--budget", "1"), "No such option '--budget'"),
    (("hint", "montana", "2", "--budgte", "1"), "Did you mean '--budget'?"),
    (("solve", "montana", "2", "--layout=x.json", "--nope"), "No such option '--nope'"),
])
def test_an_unknown_option_is_named_not_read_as_a_move(args: tuple[str, ...], words: str
                                                       ) -> None:
    """The commands that let "-5" reach NUMBER still refuse an unknown ``--option`` as one
    (it was "'--budget' is not a move"), while "-5" keeps its own message."""
    code, _, err = run(*args)
    assert code == 2 and words in err, err
    code, _, err = run("moves", "montana", "-5")
    assert code == 2 and "game numbers are positive" in err, err


@pytest.mark.parametrize("command", ["solve", "hint"])
def test_the_memory_is_refused_below_a_mib_and_beyond_the_machine(command: str) -> None:
    """Nothing, not a number, or more than the machine has: usage errors naming --memory."""
    machine = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") >> 20
    for value in ("0", "many", str(machine + 1)):
        code, _, err = run(command, "montana", "1", "--memory", value)
        assert code == 2 and "--memory" in err, err
    assert "more than this machine's" in err


def test_the_default_memory_is_not_refused_on_a_smaller_machine(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On a machine with less memory than the default 1,024 MiB, solve runs with the
    default (only a --memory given is checked against the machine)."""
    monkeypatch.setattr("gapgrid.api.machine_memory.memory_limit",
                        lambda: MemoryLimit(512, control_group=False, machine_mib=512))
    variant, number, options = WON_QUICKLY
    code, out, err = run("solve", variant, number, *options, "--json")
    assert code == 0 and json.loads(out)["verdict"] == "won", err
    code, _, err = run("solve", variant, number, *options, "--memory", "513")
    assert code == 2 and "machine's 512 MiB" in err
    # Three quarters of it at most: the process holds more than its tables' estimate.
    code, _, err = run("solve", variant, number, *options, "--memory", "385")
    assert code == 2 and "three quarters" in err
    code, _, err = run("solve", variant, number, *options, "--memory", "384")
    assert code == 0, err


def test_a_full_table_is_said_and_the_search_runs_to_its_budget() -> None:
    """A one-MiB table fills within some 35,000 positions on single-round Montana game 3
    (solver 11 stopped there); the rollouts go on to the end of the budget, and the answer
    says the memory is why no loss could be proven. The budget is of positions, which no
    load changes (4 s beside a study on both cores and the browser tests reached only
    30,744, and the table did not fill)."""
    code, out, err = run("solve", "montana", "3", "-o", "redeals=0", "--memory", "1",
                         "--budget", "3600", "--max-positions", "60000", "--json")
    answer = json.loads(out)
    assert code == 0 and answer["verdict"] == "unknown", err
    assert answer["stopped_by"] == "memory" and answer["positions"] >= 60_000
    assert answer["budget"] == {"seconds": 3600.0, "positions": 60_000}
    code, out, err = run("solve", "montana", "3", "-o", "redeals=0", "--memory", "1",
                         "--budget", "3600", "--max-positions", "60000")
    assert code == 0 and "Unknown" in out and "filled their --memory" in out, (out, err)


def test_solve_search_complete_runs_the_restarts_alone_and_says_so() -> None:
    """--search complete proves Line Up game 55 lost and wins single-round Montana game 52,
    whose line replays; the JSON and the text name the solver version with -complete.
    Another search is a usage error naming the two there are."""
    variant, number, options = LOST_QUICKLY
    document = solve_json(variant, number, *options, "--search", "complete")
    complete = f"{SOLVER_VERSION}-complete"
    assert (document["verdict"], document["solver_version"]) == ("lost", complete)
    variant, number, options = WON_QUICKLY
    document = solve_json(variant, number, *options, "--search", "complete")
    assert (document["verdict"], document["solver_version"]) == ("won", complete)
    rules = plugins.load_catalogue().rules(variant, {"redeals": "0"})
    replayed = replay(rules, DealNumber(int(number)), parse_actions(document["line"]))
    assert replayed.ok and replayed.won
    code, out, _ = run("solve", variant, number, *options, "--search", "complete")
    assert code == 0 and f"solver {complete})" in out, out
    code, _, err = run("solve", variant, number, *options, "--search", "some")
    assert code == 2 and "'whole', 'complete'" in err, err


@pytest.mark.parametrize(("search", "won"), [
    ("entries", "52"), ("entries-shuffled", "52"), ("entries-freezes-first", "7"),
    ("entries-lowest-first", "1")])
def test_solve_search_entries_runs_the_entry_probes_alone_and_says_so(search: str,
                                                                       won: str) -> None:
    """--search entries (entries-shuffled, entries-freezes-first, entries-lowest-first) wins
    single-round Montana game 52 (7: the Freezes first meet no winning entry of 52 within
    300,000 positions, but one of 7 within 6,000; 1: the lowest slots first win neither 52
    nor 7 within 10 s, but 1 in 411 positions) with a line that replays, and proves Line Up
    game 55 lost (a space small enough to explore in a round); the JSON names the solver
    version with -entries (and so on)."""
    entries = f"{SOLVER_VERSION}-{search}"
    variant, number, options = WON_QUICKLY[0], won, WON_QUICKLY[2]
    document = solve_json(variant, number, *options, "--search", search)
    assert (document["verdict"], document["solver_version"]) == ("won", entries)
    rules = plugins.load_catalogue().rules(variant, {"redeals": "0"})
    replayed = replay(rules, DealNumber(int(number)), parse_actions(document["line"]))
    assert replayed.ok and replayed.won
    variant, number, options = LOST_QUICKLY
    document = solve_json(variant, number, *options, "--search", search)
    assert (document["verdict"], document["solver_version"]) == ("lost", entries)


def test_a_refused_move_is_answered_without_a_search() -> None:
    """Exit 1, the refused move in the document, a null verdict and an empty line."""
    code, out, _ = run("solve", "montana", "1", "0-12", "--json")
    document = json.loads(out)
    assert code == 1 and document["ok"] is False and document["error"]["index"] == 0
    assert document["verdict"] is None and document["line"] == []


@pytest.mark.parametrize("command", ["solve", "hint"])
def test_a_refused_move_names_its_cards_as_the_board_shows_them(command: str) -> None:
    """The reason a move is refused names cards as the board and `verify` do (J♦), not by
    their codes (JD)."""
    code, out, _ = run(command, "montana", "1", "0-0")
    assert code == 1
    assert "Move 1 (0-0) is refused: slot 0 is not a gap: it holds J♦." in out, out


@pytest.mark.parametrize("command", ["solve", "hint"])
def test_the_moves_given_are_capped_by_gapgrid_max_moves(
        command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """GAPGRID_MAX_MOVES caps the moves of a command as of a request (the README says
    so): solve and hint replayed any number (40,000 in an attack)."""
    monkeypatch.setenv("GAPGRID_MAX_MOVES", "3")
    code, _, err = run(command, "montana", "5", "13-0", "undo", "13-0", "undo")
    assert code == 2 and "more than 3 moves: the limit is GAPGRID_MAX_MOVES" in err
    code, _, err = run(command, "montana", "52", "-o", "redeals=0", "--budget", "1", "10-0")
    assert code != 2, err


@pytest.mark.parametrize("command", ["solve", "hint"])
def test_a_refused_move_is_the_answer_before_the_cap_or_a_malformed_one(
        command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """As verify reads moves, so do solve and hint (the README says so for the three): the
    first refused move is the answer (exit 1, nothing searched), and only when every move
    read is legal is a malformed move or one past the cap a usage error."""
    monkeypatch.setenv("GAPGRID_MAX_MOVES", "3")
    for moves in (["0-3", "13-0", "undo", "13-0", "undo"], ["0-3", "x"]):
        code, out, err = run(command, "montana", "5", *moves, "--budget", "1")
        assert code == 1, (out, err)
        assert "Move 1 (0-3) is refused" in out and "Nothing was searched" in out
    code, _, err = run(command, "montana", "5", "13-0", "x", "--budget", "1")
    assert code == 2 and "move 2: 'x' is not a move" in err, err


@pytest.mark.parametrize("command", ["solve", "hint"])
def test_a_lone_dash_reads_the_moves_from_standard_input(command: str) -> None:
    """``-`` as the one MOVE reads the moves from standard input, as verify does: the
    search starts where the same moves as arguments lead."""
    variant, number, options = WON_QUICKLY
    moves = ["12-0", "undo", "37-31"]
    result = CliRunner().invoke(main, [command, variant, number, *options, "-", "--json"],
                                input=" ".join(moves))
    assert result.exit_code == 0, result.output
    from_stdin = json.loads(result.stdout)
    code, out, _ = run(command, variant, number, *options, *moves, "--json")
    assert code == 0
    from_arguments = json.loads(out)
    assert from_stdin["moves_applied"] == from_arguments["moves_applied"] == 3
    assert from_stdin["verdict"] == from_arguments["verdict"] == "won"


@pytest.mark.parametrize("command", ["solve", "hint"])
def test_moves_on_standard_input_are_capped_too(command: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Standard input is read to one move past GAPGRID_MAX_MOVES, and no further."""
    monkeypatch.setenv("GAPGRID_MAX_MOVES", "3")
    result = CliRunner().invoke(main, [command, "montana", "5", "-"],
                                input="13-0 undo " * 100_000)
    assert result.exit_code == 2
    assert "more than 3 moves: the limit is GAPGRID_MAX_MOVES" in result.stderr


def test_a_layout_on_standard_input_leaves_no_moves_to_read_there(tmp_path: Path) -> None:
    """``--layout /dev/stdin`` with ``-``: one of them would find standard input read
    already (the moves were none, silently); refused, naming both."""
    variant, number, options = WON_QUICKLY
    with layout_file(tmp_path, variant, number, options).open("rb") as stdin:
        done = subprocess.run([str(GAPGRID), "solve", variant, *options, "--layout",
                               "/dev/stdin", "-"], stdin=stdin,
                              capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stdout
    assert "--layout reads standard input, so the moves cannot be read there too" in (
        done.stderr)


def test_a_hint_on_a_deal_lost_from_the_start_does_not_say_undo() -> None:
    """With no move played there is nothing to undo: the hint says the deal cannot be won."""
    variant, number, options = LOST_QUICKLY
    code, out, _ = run("hint", variant, number, *options)
    assert code == 0 and "Lost: no line wins from here; the deal cannot be won (" in out, out


def test_an_exhausted_budget_is_unknown_and_still_exit_0() -> None:
    """Single-round Montana game 3 is not decided in a fifth of a second (nor in 10 s by
    solver 3): unknown, stopped by seconds."""
    code, out, _ = run("solve", "montana", "3", "--option", "redeals=0", "--budget", "0.2",
                       "--json")
    document = json.loads(out)
    assert code == 0 and document["verdict"] == "unknown"
    assert document["stopped_by"] == "seconds" and document["line"] == []


def test_solve_text_output() -> None:
    """The text form says won, the length of the line and the line itself."""
    variant, number, options = WON_QUICKLY
    code, out, _ = run("solve", variant, number, *options)
    line = solve_json(variant, number, *options)["line"]
    assert code == 0 and f"Won: a line of {len(line)} actions" in out and " ".join(line) in out


def test_hint_json_gives_the_next_action_and_what_is_left() -> None:
    """The hint is the first action of a winning line, and remaining counts the whole line."""
    variant, number, options = WON_QUICKLY
    code, out, _ = run("hint", variant, number, *options, "--json")
    document = json.loads(out)
    line = solve_json(variant, number, *options)["line"]
    assert code == 0 and document["verdict"] == "won"
    assert document["next"] == line[0] and document["remaining"] == len(line)


def test_hint_says_when_the_position_is_lost() -> None:
    """A lost deal: verdict lost, no next action; the text says so."""
    variant, number, _ = LOST_QUICKLY
    code, out, _ = run("hint", variant, number, "--json")
    assert code == 0 and json.loads(out)["verdict"] == "lost" and json.loads(out)["next"] is None
    code, out, _ = run("hint", variant, number)
    assert code == 0 and "Lost" in out


def test_hint_says_when_nothing_was_found_in_time() -> None:
    """An exhausted budget is said as such, exit 0. (Paganini II game 21 stayed undecided
    after a minute of solver 4, and solver 7 needs some 270,000 positions, about 5 s, for
    it: a fifth of a second decides it on no machine; Montana game 1, used before, was won
    in 0.2 s on a faster one.)"""
    code, out, _ = run("hint", "paganini-ii", "21", "--budget", "0.2")
    assert code == 0 and "No win found within the budget" in out


def test_following_hints_wins_the_game(catalogue: Any) -> None:
    """Each hint's action, played, leads to a position whose hint continues the same line,
    until the game is won; a memo answers all but the first from the line found."""
    variant, number, _ = WON_QUICKLY
    memo = solving.LineMemo()
    played: list[str] = []
    for _ in range(300):
        position = solving.replayed(catalogue, variant=variant, deal=number, moves=played,
                                    options={"redeals": "0"})
        document = solving.hint(position, seconds=5.0, memo=memo).document
        assert document["verdict"] == "won"
        if document["next"] is None:
            break
        assert document["source"] == ("search" if not played else "line")
        played.append(document["next"])
    assert position.state.is_won and document["remaining"] == 0


def test_the_progress_line_draws_only_when_enabled() -> None:
    """Enabled, it rewrites one line in place (positions, rate, elapsed, left) and erases it
    at the end; disabled, it writes nothing."""
    progress = Progress(positions=250_000, seconds=2.0, budget=Budget(seconds=10.0))
    shown = io.StringIO()
    line = ProgressLine(True, shown)
    line(progress)
    line.close()
    text = shown.getvalue()
    assert text.startswith("\rsearching: 250,000 positions (125,000/s), 2.0 s elapsed, "
                           "8.0 s left")
    assert text.endswith("\r") and "\n" not in text
    silent = io.StringIO()
    quiet = ProgressLine(False, silent)
    quiet(progress)
    quiet.close()
    assert silent.getvalue() == ""


def test_no_progress_line_reaches_a_pipe() -> None:
    """Run without a terminal (as here), a search of a second prints nothing on standard
    error."""
    code, _, err = run("solve", "montana", "1", "--budget", "1")
    assert code == 0 and err == ""


@pytest.mark.slow
@pytest.mark.parametrize("as_json", [False, True])
def test_ctrl_c_stops_a_search_with_its_own_exit_status(as_json: bool) -> None:
    """Ctrl-C in the middle of a long search: one line and exit status 130, never an
    internal error (it was one in four, when the interruption caught the search's engine
    half way through a move) nor 1, which says a move was refused. With ``--json`` a
    program reading standard output finds a document saying so there, not nothing."""
    process = subprocess.Popen(
        [str(GAPGRID), "solve", "montana", "6", "--option", "redeals=0", "--budget", "60",
         *(["--json"] if as_json else [])],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # as from a terminal: a shell's background job (the tests run as one) ignores Ctrl-C,
        # and its children inherit that, rightly keeping it (see api/study_stop.py)
        preexec_fn=_ctrl_c_as_from_a_terminal)
    deadline = time.monotonic() + 60
    while _cpu_seconds(process.pid) < 2.0:  # start-up takes about 0.8 s: in the search by then
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)  # solver 10 does not decide game 6 within a minute
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert stderr.strip() == "gapgrid: interrupted"
    if as_json:
        assert json.loads(stdout)["error"]["kind"] == "interrupted"
    else:
        assert stdout == ""


def _stop_a_search(command: str, signals: Sequence[signal.Signals], gap: float = 0.0,
                   stderr: int | IO[bytes] = subprocess.PIPE,
                   ) -> tuple[int, str, str]:
    """Start a long ``--json`` search of ``command``, send it ``signals`` once it is searching,
    ``gap`` seconds apart, and return its exit status, standard output and standard error."""
    process = subprocess.Popen(
        [str(GAPGRID), command, "montana", "6", "--option", "redeals=0", "--budget", "60",
         "--json"], stdout=subprocess.PIPE, stderr=stderr, preexec_fn=_ctrl_c_as_from_a_terminal)
    deadline = time.monotonic() + 60
    while _cpu_seconds(process.pid) < 2.0:  # start-up takes about 0.8 s: in the search by then
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    for index, number in enumerate(signals):
        if index:
            time.sleep(gap)
        process.send_signal(number)
    stdout, err = process.communicate(timeout=30)
    return process.returncode, stdout.decode(), (err or b"").decode()


@pytest.mark.slow
@pytest.mark.parametrize("command", ["solve", "hint"])
def test_sigterm_stops_a_search_as_ctrl_c_does(command: str) -> None:
    """``kill`` or a service manager stopping a long search with SIGTERM: a program reading
    ``--json`` output finds a document saying so (it found nothing: the process died where
    it stood), one line on standard error, and exit status 143."""
    code, stdout, stderr = _stop_a_search(command, [signal.SIGTERM])
    assert code == 143, stderr
    assert stderr.strip() == "gapgrid: terminated"
    assert json.loads(stdout)["error"] == {
        "kind": "terminated", "message": "terminated (SIGTERM) before an answer"}


@pytest.mark.slow
@pytest.mark.parametrize("signals", [[signal.SIGTERM, signal.SIGTERM],
                                     [signal.SIGINT, signal.SIGTERM],
                                     [signal.SIGTERM, signal.SIGINT]])
def test_a_second_signal_cannot_cut_the_stop_short(signals: list[signal.Signals]) -> None:
    """A second signal right after the first (a service manager's, an impatient user's):
    one of them decides (two that arrive together are taken in the order of their numbers,
    SIGINT first), and the command says so whole, its status, line and document agreeing.
    A second SIGTERM killed it, its document and its line often lost, up to some 100 ms
    after the first."""
    words = {130: "interrupted", 143: "terminated"}
    for gap in (0.0, 0.0005):
        code, stdout, stderr = _stop_a_search("solve", signals, gap)
        assert code in {128 + number for number in signals}, (gap, code, stderr)
        assert stderr.strip() == f"gapgrid: {words[code]}"
        assert json.loads(stdout)["error"]["kind"] == words[code]


@pytest.mark.slow
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
@pytest.mark.parametrize(("number", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_stopped_search_keeps_its_status_with_standard_error_full(
        number: signal.Signals, status: int) -> None:
    """Standard error on a full disk: a stopped search still exits 143 or 130 and prints its
    document (the line it could not write made it exit 2, with nothing on standard output)."""
    with open("/dev/full", "wb") as full:
        code, stdout, _ = _stop_a_search("solve", [number], stderr=full)
    assert code == status
    assert json.loads(stdout)["error"]["kind"] == ("terminated" if status == 143
                                                   else "interrupted")


def _ctrl_c_as_from_a_terminal() -> None:
    """In the child, before it runs: Ctrl-C's default action, which Python turns into its own
    handler at start-up."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _cpu_seconds(pid: int) -> float:
    """The CPU time a running process has had (Linux's /proc), a sign of how far it got
    whatever the machine's load."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # user + system


def test_no_line_asks_for_a_redeal_past_the_cap_of_a_game(catalogue: Any) -> None:
    """A game may ask for 500 redeals, undone ones included: after 500 redeals undone, solve
    and hint find lines without a redeal, and after 499 with one at most, so that the game
    accepts the moves and the line together; a line already known that needs one redeal is
    handed out after 499, not after 500 (an outside tester found the hint a redeal the game
    refused)."""
    variant, number, _ = WON_QUICKLY
    options = {"redeals": "unlimited"}
    # a win from the deal that redeals once, found where the cap allows no second redeal
    first = solving.replayed(catalogue, variant=variant, deal=number,
                             moves=["redeal", "undo"] * 499 + ["redeal"], options=options)
    after_redeal = solving.solve_position(first, seconds=30.0).document
    assert after_redeal["verdict"] == "won" and "redeal" not in after_redeal["line"]
    with_redeal = ["redeal", *after_redeal["line"]]
    start = solving.replayed(catalogue, variant=variant, deal=number, moves=[],
                             options=options)
    for pairs, redeals_allowed in ((500, 0), (499, 1)):
        undone = ["redeal", "undo"] * pairs
        position = solving.replayed(catalogue, variant=variant, deal=number, moves=undone,
                                    options=options)
        assert position.state.board == start.state.board
        solved = solving.solve_position(position, seconds=30.0).document
        hinted = solving.hint(position, seconds=30.0).document
        assert solved["verdict"] == hinted["verdict"] == "won"
        # the documents say what the cap still allows, beside the rules' unlimited redeals
        assert solved["redeals_cap_left"] == hinted["redeals_cap_left"] == redeals_allowed
        assert solved["redeals_left"] == hinted["redeals_left"] == "unlimited"
        line = solved["line"]
        assert line.count("redeal") <= redeals_allowed
        assert (hinted["next"], hinted["remaining"]) == (line[0], len(line))  # the same line
        played = solving.replayed(catalogue, variant=variant, deal=number,
                                  moves=undone + line, options=options)
        assert played.result.ok and played.state.is_won
        memo = solving.LineMemo()
        memo.remember(solving.game_key(start.rules, start.deal), start.state,
                      parse_actions(with_redeal))
        known = [solving.KnownLine(start.state, tuple(parse_actions(with_redeal)))]
        for source in ({"memo": memo}, {"known": known}):
            found = solving.hint_without_search(start, **source)
            assert found is not None and found.document["next"] == "redeal"
            after_undone = solving.hint_without_search(position, **source)
            if redeals_allowed == 0:  # the known line's one redeal is one too many
                assert after_undone is None
            else:  # and one is allowed still
                assert after_undone is not None and after_undone.document["next"] == "redeal"
