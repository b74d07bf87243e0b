"""The command line, in the exact forms other tools script against."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from gapgrid.api.cli import main
from tests.api.live import GAPGRID

GOLDEN_OPENING = ["27-40", "redeal", "15-0", "0-39"]  # Montana 27769, from the golden games


def run(*args: str, stdin: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), input=stdin)
    return result.exit_code, result.output


def test_variants_json_fields() -> None:
    """Each entry has slug, name, pysolfc_id, rows, rstep, rbase and redeals at least."""
    code, output = run("variants", "--json")
    assert code == 0
    entries = {entry["slug"]: entry for entry in json.loads(output)}
    montana = entries["montana"]
    assert {key: montana[key] for key in ("slug", "name", "pysolfc_id", "rows", "rstep",
                                          "rbase", "redeals")} == {
        "slug": "montana", "name": "Montana", "pysolfc_id": 53, "rows": 4, "rstep": 13,
        "rbase": 1, "redeals": 2}
    assert entries["gaps-unlimited"]["redeals"] == "unlimited"
    assert entries["gaps"]["pysolfc_id"] is None and entries["gaps"]["kind"] == "preset"
    assert "Rangoon" in entries["blue-moon"]["other_names"]


def test_variants_text_lists_every_variant() -> None:
    """The text listing names each variant with its PySolFC id."""
    code, output = run("variants")
    assert code == 0
    assert "blue-moon" in output and "PySolFC 63" in output and "Rangoon" in output


def test_deal_json() -> None:
    """deal --json gives variant, deal and rows of codes with null gaps."""
    code, output = run("deal", "montana", "#ms1", "--json")
    assert code == 0
    data = json.loads(output)
    assert (data["variant"], data["deal"]) == ("montana", "1")
    assert data["rows"][0][:3] == ["JD", "2D", "9H"]
    assert data["rows"][0][12] is None


def test_deal_text_shows_suit_symbols() -> None:
    """The text grid uses suit symbols and marks gaps."""
    code, output = run("deal", "montana", "1")
    assert code == 0
    assert "J♦" in output and "··" in output and "#ms1" in output


def test_text_headings_name_the_options_that_change_the_rules() -> None:
    """A heading says which rules were played: the options that differ from the variant's or
    preset's own, and none where they are its own."""
    def heading(*args: str) -> str:
        code, output = run(*args, stdin="")
        assert code == 0, output
        return output.splitlines()[0]

    assert heading("deal", "montana", "5", "--option", "redeals=0") == (
        "Montana (redeals=0), game 5 (PySolFC: #ms5)")
    assert heading("moves", "montana", "5", "--option", "redeals=0") == (
        "Montana (redeals=0), game 5")
    assert heading("verify", "gaps", "5", "--option", "redeals=1") == "Gaps (redeals=1), game 5"
    assert heading("verify", "gaps", "5", "--option", "redeals=2") == "Gaps, game 5"
    assert heading("hint", "line-up", "52", "--budget", "1") == "Line Up, game 52, after 0 moves"


def test_several_moves_in_one_argument_are_named_as_such() -> None:
    """Moves quoted together ("27-40 redeal 15-0") are one argument: the refusal says so,
    here and in the API, rather than that no move is that long."""
    result = CliRunner().invoke(main, ["verify", "montana", "27769", "27-40 redeal 15-0"])
    assert result.exit_code == 2
    assert "'27-40 redeal 15-0' is several words: give each move" in result.output


def test_verify_json_of_legal_moves() -> None:
    """All legal: ok true, exit 0, the moves counted, no error."""
    code, output = run("verify", "montana", "27769", *GOLDEN_OPENING, "--json")
    assert code == 0
    data = json.loads(output)
    assert (data["ok"], data["won"], data["moves_applied"], data["error"]) == (True, False, 4, None)
    assert len(data["rows"]) == 4


def test_verify_json_of_an_illegal_move() -> None:
    """A refused move: exit 1, ok false, error with index, move and reason."""
    code, output = run("verify", "montana", "27769", "27-40", "redeal", "15-0", "0-3", "--json")
    assert code == 1
    data = json.loads(output)
    assert data["ok"] is False and data["moves_applied"] == 3
    assert data["error"] == {"index": 3, "move": "0-3", "kind": "to-card",
                             "reason": "slot 3 is not a gap: it holds 2D"}


def test_verify_reads_moves_from_standard_input() -> None:
    """With no MOVE arguments, whitespace-separated moves come from standard input."""
    code, output = run("verify", "montana", "27769", "--json", stdin=" 27-40\nredeal\t15-0 0-39\n")
    assert code == 0
    assert json.loads(output)["moves_applied"] == 4


def test_verify_text_explains_a_refusal() -> None:
    """The text verdict names the move and the reason."""
    code, output = run("verify", "montana", "27769", "27-40", "redeal", "redeal", "redeal")
    assert code == 1
    assert "Move 4 (redeal) is refused: no redeal left: all 2 redeals were used." in output


@pytest.mark.parametrize(("args", "message"), [
    (("deal", "montanna", "5"), "unknown variant 'montanna'"),
    (("deal", "montana", "0"), "there is no game 0"),
    (("deal", "montana", "ms0"), "ms game numbers run from ms1"),
    (("deal", "montana", "-5"), "game numbers are positive"),
    (("deal", "montana", "abc"), "is not a game number"),
    (("deal", "montana", "5", "--option", "redeals"), "is not KEY=VALUE"),
    (("deal", "montana", "5", "--option", "colour=red"), "montana has no option 'colour'"),
    (("deal", "montana", "5", "-o", "redeals=lots"), "'lots' is not a number of redeals"),
    (("verify", "montana", "5", "2-0", "up"), "move 2: 'up' is not a move"),
    (("verify", "montana", "5", "2-0", "--json", "3-"), "move 2: '3-' is not a move"),
])
def test_usage_errors_exit_2_with_the_reason(args: tuple[str, ...], message: str) -> None:
    """Unknown variant, bad number, bad option or bad notation: exit 2 and a precise message."""
    code, output = run(*args)
    assert code == 2
    assert message in output


def test_options_apply_to_verify() -> None:
    """--option redeals=0 makes the golden opening's redeal illegal."""
    code, output = run("verify", "montana", "27769", *GOLDEN_OPENING, "-o", "redeals=0", "--json")
    assert code == 1
    data = json.loads(output)
    assert data["error"]["kind"] == "variant-has-no-redeal"
    assert data["options"] == {"redeals": "0"}


def test_verify_scoring_all_adds_scores() -> None:
    """--scoring all adds every scheme plus the summary terms to the JSON."""
    code, output = run("verify", "montana", "27769", *GOLDEN_OPENING, "--scoring", "all",
                       "--elapsed", "42", "--json")
    assert code == 0
    scores = json.loads(output)["scores"]
    assert {key: scores[key] for key in ("cards_in_sequence", "finished_rows", "redeals_used",
                                         "undos", "moves")} == {
        "cards_in_sequence": 2, "finished_rows": 0, "redeals_used": 1, "undos": 0, "moves": 3}
    assert scores["cards"]["total"] == 2 + 10
    assert scores["par"]["breakdown"]["milliseconds"] == 42000
    assert set(scores["frontier"]) >= {"total", "breakdown", "badges", "time_scored"}


def test_verify_scores_nothing_for_an_illegal_game() -> None:
    """When a move is refused there is no score to give: scores is null."""
    code, output = run("verify", "montana", "27769", "0-3", "--scoring", "cards", "--json")
    assert code == 1
    assert json.loads(output)["scores"] is None


def test_verify_refuses_bad_scoring_arguments() -> None:
    """An unknown scheme or a negative time is a usage error."""
    assert run("verify", "montana", "5", "--scoring", "golf")[0] == 2
    code, output = run("verify", "montana", "5", "--scoring", "par", "--elapsed", "-3")
    assert code == 2 and "--elapsed" in output


def test_scoring_lists_the_schemes() -> None:
    """`gapgrid scoring` names each scheme with a one-line description."""
    code, output = run("scoring")
    assert code == 0
    assert [line.split()[0] for line in output.splitlines()] == ["cards", "frontier", "par"]


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "1e308", "soon"])
def test_elapsed_must_be_a_real_duration(value: str) -> None:
    """--elapsed refuses NaN, infinities, negatives and nonsense with exit 2."""
    code, output = run("verify", "montana", "1", "--scoring", "all", "--elapsed", value)
    assert code == 2 and "--elapsed" in output


def test_an_internal_error_exits_3(monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A bug is never mistaken for a refused move (1) or a usage error (2)."""
    import gapgrid.api.cli

    def broken() -> None:
        raise RuntimeError("disk on fire")
    monkeypatch.setattr(gapgrid.api.cli, "main", broken)
    with pytest.raises(SystemExit) as exit_status:
        gapgrid.api.cli.run()
    assert exit_status.value.code == 3
    assert "internal error: RuntimeError: disk on fire" in capsys.readouterr().err


# -- one rule for scores, JSON usage errors, moves -------------------------------------------


def test_verify_scores_with_every_scheme_by_default() -> None:
    """Without --scoring, verify --json scores with every scheme, as POST /v1/verify does;
    --scoring narrows it."""
    code, output = run("verify", "montana", "27769", *GOLDEN_OPENING, "--json")
    assert code == 0
    assert {"cards", "frontier", "par", "moves", "undos"} <= set(json.loads(output)["scores"])
    code, output = run("verify", "montana", "27769", *GOLDEN_OPENING, "--scoring", "cards",
                       "--json")
    scores = json.loads(output)["scores"]
    assert "cards" in scores and "par" not in scores and "frontier" not in scores


def test_verify_text_shows_every_schemes_score() -> None:
    """The text verdict ends with one line per scheme."""
    code, output = run("verify", "montana", "27769", *GOLDEN_OPENING)
    assert code == 0
    assert [line.split(":")[0] for line in output.splitlines()[-3:]] == [
        "cards", "frontier", "par"]


def test_timed_changes_the_frontier_allowance() -> None:
    """--timed reaches the scores: frontier's time allowance is 3 minutes instead of 10."""
    args = ("verify", "montana", "27769", *GOLDEN_OPENING, "--elapsed", "30", "--json")
    untimed = json.loads(run(*args)[1])["scores"]["frontier"]
    timed = json.loads(run(*args, "--timed")[1])["scores"]["frontier"]
    assert (untimed["allowance_seconds"], timed["allowance_seconds"]) == (600, 180)


@pytest.mark.parametrize(("args", "parameter", "message"), [
    (("verify", "montana", "0"), "NUMBER", "there is no game 0"),
    (("deal", "montanna", "5"), "VARIANT", "unknown variant 'montanna'"),
    (("deal", "montana"), "NUMBER", "Missing argument 'NUMBER'"),
    (("verify", "montana", "5", "2-0", "up"), "MOVE", "move 2: 'up' is not a move"),
    (("moves", "montana", "5", "x"), "MOVE", "move 1: 'x' is not a move"),
    (("verify", "montana", "5", "--scoring", "golf"), "--scoring", "unknown scoring scheme"),
    (("verify", "montana", "5", "--elapsed", "soon"), "--elapsed", "not a number of seconds"),
    (("verify", "montana", "5", "--elapsed", "-1"), "--elapsed", "a duration from 0"),
    (("moves", "montana", "5", "-o", "colour=red"), "--option", "no option 'colour'"),
    (("verify",), None, "give VARIANT and NUMBER"),
    (("shuffle", "montana"), None, "No such command 'shuffle'"),
    (("pysolfc", "read-save", "/no/such/file.pso"), "FILE", "cannot read"),
    (("verify", "--from-save", "/no/such/file.pso"), "--from-save", "cannot read"),
])
def test_usage_errors_under_json_are_json(args: tuple[str, ...], parameter: str | None,
                                          message: str) -> None:
    """With --json, a usage error is a JSON document on standard output, exit status 2,
    naming the argument at fault."""
    result = CliRunner().invoke(main, [*args, "--json"], input="")
    assert result.exit_code == 2
    assert result.stderr == ""
    error = json.loads(result.stdout)["error"]
    assert (error["kind"], error["parameter"]) == ("usage", parameter)
    assert message in error["message"]


@pytest.mark.parametrize("args", [("serve", "--json"), ("puzzles", "--json"),
                                  ("db", "upgrade", "--json")])
def test_json_given_to_a_command_without_it_is_refused_as_text(args: tuple[str, ...]
                                                               ) -> None:
    """A command that prints no JSON says as text that it has no --json (it answered with
    a JSON document saying so)."""
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 2 and result.stdout == ""
    assert "Error: No such option '--json'." in result.stderr


def test_a_misspelt_command_of_a_group_without_json_is_refused_as_text() -> None:
    """No command of ``db`` prints JSON, so a misspelt one is refused as text (``gapgrid
    shuffle --json`` is refused as JSON: the root group's commands have it)."""
    result = CliRunner().invoke(main, ["db", "imprt", "--json"])
    assert result.exit_code == 2 and result.stdout == ""
    assert "Error: No such command 'imprt'. Did you mean 'import'?" in result.stderr


def test_usage_errors_without_json_stay_text() -> None:
    """Without --json a usage error is click's usual text on standard error."""
    result = CliRunner().invoke(main, ["verify", "montana", "0"])
    assert result.exit_code == 2 and result.stdout == ""
    assert "Error: Invalid value for NUMBER" in result.stderr


@pytest.mark.parametrize(("args", "line"), [
    # refused by click's type, by a check of the command, by the rules: alike
    (("solve", "montana", "5", "--budget", "abc"),
     "Error: Invalid value for --budget: 'abc' is not a valid number."),
    (("study", "montana", "--deals", "x"),
     "Error: Invalid value for --deals: 'x' is not a valid whole number."),
    (("solution", "2026-1-1", "montana"),
     "Error: Invalid value for DATE: '2026-1-1' is not a date like 2026-11-30"),
    (("moves", "montana", "5", "-o", "redeals=abc"),
     "Error: Invalid value for --option: option redeals: 'abc' is not a number of redeals "
     "(values: 0, 1, 2, ... 500 or unlimited)"),
])
def test_a_value_refused_is_one_line_wherever_it_was_found(args: tuple[str, ...],
                                                          line: str) -> None:
    """A bad value is one line, the option named as gapgrid names it (click quoted it,
    '--budget', and added its usage block, which the service's refusals had not)."""
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 2 and result.stderr == line + "\n"


def test_a_command_line_of_the_wrong_shape_shows_the_usage() -> None:
    """A missing argument or an unknown option: the usage block, then the error."""
    for args, error in ((("deal", "montana"), "Error: Missing argument 'NUMBER'."),
                        (("deal", "montana", "5", "--bogus"), "Error: No such option")):
        result = CliRunner().invoke(main, list(args), prog_name="gapgrid")
        assert result.exit_code == 2
        assert result.stderr.startswith("Usage: gapgrid deal [OPTIONS] VARIANT NUMBER\n")
        assert error in result.stderr


def test_moves_json_lists_the_legal_moves() -> None:
    """moves --json: the verify fields (no scores), stuck, redeal_allowed, and each legal
    card move with its source, target and card, gap by gap in slot order."""
    code, output = run("moves", "montana", "27769", "27-40", "--json")
    assert code == 0
    data = json.loads(output)
    assert list(data) == ["variant", "deal", "options", "ok", "won", "moves_applied",
                          "redeals_used", "redeals_left", "redeals_cap_left", "rows", "error",
                          "stuck", "redeal_allowed", "legal_moves"]
    assert (data["ok"], data["moves_applied"], data["stuck"], data["redeal_allowed"]) == (
        True, 1, False, True)
    targets = [move["target"] for move in data["legal_moves"]]
    assert targets == sorted(targets)
    flat = [card for row in data["rows"] for card in row]
    for move in data["legal_moves"]:
        assert move["move"] == f"{move['source']}-{move['target']}"
        assert flat[move["source"]] == move["card"] and flat[move["target"]] is None


@pytest.mark.parametrize("command", ["moves", "verify"])
def test_a_lone_dash_reads_the_moves_from_standard_input(command: str) -> None:
    """``-`` as the one MOVE reads the moves from standard input (``moves`` with no MOVE
    shows the deal, so a file of moves needs the dash): the same document as arguments."""
    from_arguments = run(command, "montana", "27769", *GOLDEN_OPENING, "--json")
    from_stdin = run(command, "montana", "27769", "-", "--json",
                     stdin="\n".join(GOLDEN_OPENING) + "\n")
    assert from_stdin == from_arguments
    assert json.loads(from_stdin[1])["moves_applied"] == len(GOLDEN_OPENING)


@pytest.mark.parametrize("moves", [("-", "27-40"), ("27-40", "-")])
def test_a_dash_among_other_moves_says_it_goes_alone(moves: tuple[str, ...]) -> None:
    """``-`` with other MOVEs is refused as such, not as a move with no slot numbers."""
    code, output = run("moves", "montana", "27769", *moves, stdin="15-0")
    assert code == 2 and "- reads the moves from standard input: give it alone" in output


def test_standard_input_that_cannot_be_read_is_a_usage_error(tmp_path: Path) -> None:
    """Standard input open only for writing (``0<&3`` of a file opened with ``3>``): exit 2
    and the reason, not an internal error."""
    with (tmp_path / "written").open("w") as written:
        done = subprocess.run([str(GAPGRID), "moves", "montana", "1", "-"], stdin=written,
                              capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stderr
    assert "cannot read standard input: Bad file descriptor" in done.stderr


def test_moves_after_a_refused_move_shows_the_position_before_it() -> None:
    """A refused move: exit 1, ok false with the error, and the position before it."""
    code, output = run("moves", "montana", "27769", "27-40", "redeal", "15-0", "0-3", "--json")
    assert code == 1
    refused = json.loads(output)
    before = json.loads(run("moves", "montana", "27769", "27-40", "redeal", "15-0",
                            "--json")[1])
    assert refused["error"]["index"] == 3 and refused["ok"] is False
    assert {key: refused[key] for key in ("rows", "legal_moves", "stuck", "redeals_left")} == {
        key: before[key] for key in ("rows", "legal_moves", "stuck", "redeals_left")}


def test_moves_text_shows_board_moves_and_redeals() -> None:
    """The text form: the board, the legal moves with their cards, the redeals left."""
    code, output = run("moves", "montana", "27769", "27-40")
    assert code == 0
    assert "The 1 move is legal" in output
    assert "Legal moves (" in output and "Redeals left: 2 (a redeal is allowed now)." in output


def test_moves_text_says_why_no_redeal_is_allowed_once_the_cap_is_spent() -> None:
    """Montana's two redeals are left after 500 redeals taken back, but one game may ask for
    no more: the text says that is why (it said only "no redeal now", the reason being in
    the JSON's redeals_cap_left); without the cap, nothing more is said."""
    code, output = run("moves", "montana", "5", *["redeal", "undo"] * 500)
    assert code == 0
    assert ("Redeals left: 2 (no redeal now: the game has asked for the 500 redeals one game "
            "may, undone ones included).") in output
    code, output = run("moves", "montana", "5", "redeal", "redeal")
    assert code == 0 and "Redeals left: 0 (no redeal now)." in output


def test_moves_says_when_no_card_move_is_left() -> None:
    """In a stuck position there is no legal move, and the text says a redeal is the way on."""
    from tests.golden import records_for
    record = next(r for r in records_for("blue-moon") if r["deal"] == "ms3664843849")
    moves = record["moves"][:12]
    assert record["moves"][12] == "redeal"  # PySolFC's player redealt here: no move was left
    data = json.loads(run("moves", "blue-moon", record["deal"], *moves, "--json")[1])
    assert (data["stuck"], data["legal_moves"], data["redeal_allowed"]) == (True, [], True)
    code, output = run("moves", "blue-moon", record["deal"], *moves)
    assert code == 0 and "Stuck: no card move is left; redeal or undo." in output


def _commands(group: click.Group, prefix: tuple[str, ...] = ()
              ) -> list[tuple[str, ...]]:
    """Every command under ``group``, as the words that name it."""
    found: list[tuple[str, ...]] = []
    for name, command in group.commands.items():
        found.append((*prefix, name))
        if isinstance(command, click.Group):
            found.extend(_commands(command, (*prefix, name)))
    return found


@pytest.mark.parametrize("words", _commands(main))
def test_no_help_says_none(words: tuple[str, ...]) -> None:
    """Every command's help names its arguments and their ranges in words a user can read:
    ``gapgrid study --help`` said ``[default: 200; x<=None]`` for options whose limits are
    checked elsewhere."""
    result = CliRunner().invoke(main, [*words, "--help"])
    assert result.exit_code == 0, result.output
    assert "None" not in result.output, result.output


@pytest.mark.parametrize(("words", "range_in_words"), [
    (("solve",), "0<x<=3600.0"),  # open below: a budget of 0 s searches nothing
    (("solve",), "x>=1"),  # --memory: a lower bound alone
    (("study",), "1<=x<=256"),  # --workers: both bounds closed
    (("serve",), "0<=x<=65535"),  # --port
])
def test_help_gives_each_range_in_words(words: tuple[str, ...], range_in_words: str) -> None:
    """An option's range reads as click writes one, open and closed ends told apart (the
    words are ours, not taken from click's private method)."""
    result = CliRunner().invoke(main, [*words, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert range_in_words in result.output, result.output


@pytest.mark.parametrize("module", ["study_merge", "study_plot", "compiled"])
def test_the_module_commands_take_h_for_help(module: str) -> None:
    """``python -m gapgrid.api.study_merge -h`` is help, as ``gapgrid -h`` is (it was "no such
    option")."""
    done = subprocess.run([sys.executable, "-m", f"gapgrid.api.{module}", "-h"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Usage: python -m gapgrid.api.{module} ")
