"""``gapgrid puzzles prepare``, ``gapgrid daily`` and ``gapgrid solution`` on one instance
folder, as an operator runs them beside a server."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gapgrid.api.cli import main
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.notation import parse_actions
from gapgrid.core.replay import replay

VARIANTS = ("paganini", "line-up")
"""Small variants, certified within seconds."""


@pytest.fixture
def instance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh instance folder and secret, as `gapgrid serve` would use them."""
    monkeypatch.setenv("GAPGRID_INSTANCE", str(tmp_path / "instance"))
    monkeypatch.setenv("GAPGRID_SECRET_KEY", "cli-test-secret-key")
    return tmp_path / "instance"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def today() -> datetime.date:
    return datetime.datetime.now(datetime.UTC).date()


def prepare(*args: str) -> list[dict[str, Any]]:
    code, out, err = run("puzzles", "prepare", *args, "--json")
    assert code == 0, (out, err)
    return json.loads(out)  # type: ignore[no-any-return]


def test_prepare_makes_certified_puzzles_for_the_days_asked(instance: Path) -> None:
    """Two days of two variants: four puzzles created and certified, in order; a second run
    keeps them as they are."""
    start = today() - datetime.timedelta(days=1)
    args = ["--from", start.isoformat(), "--days", "2", *[f"--variant={v}" for v in VARIANTS]]
    prepared = prepare(*args)
    assert [(row["date"], row["variant"]) for row in prepared] == [
        ((start + datetime.timedelta(days=day)).isoformat(), variant)
        for day in range(2) for variant in VARIANTS]
    assert all(row["action"] == "created" and row["puzzle"]["certified"] for row in prepared)
    again = prepare(*args)
    assert all(row["action"] == "kept" for row in again)
    assert [row["puzzle"] for row in again] == [row["puzzle"] for row in prepared]


def test_prepare_text_summary(instance: Path) -> None:
    """Without --json: one line per puzzle, then the count certified."""
    code, out, _ = run("puzzles", "prepare", "--days", "1", "--variant", "paganini")
    lines = out.splitlines()
    assert code == 0 and "created" in lines[0] and "par" in lines[0]
    assert lines[-1] == "1 puzzle: 1 certified, 0 not."


def test_prepare_refuses_bad_values(instance: Path) -> None:
    """Zero days, an unknown variant or a malformed date: usage errors, exit 2."""
    assert run("puzzles", "prepare", "--days", "0")[0] == 2
    code, _, err = run("puzzles", "prepare", "--variant", "montanna")
    assert code == 2 and "montanna" in err
    code, _, err = run("puzzles", "prepare", "--from", "tomorrow")
    assert code == 2 and "--from" in err


def test_prepare_refuses_an_unknown_name_as_other_commands_do_and_makes_nothing(
        instance: Path) -> None:
    """An unknown variant is refused with the pointer to `gapgrid variants` that every other
    command gives, and before the instance folder is made (it made one, then refused)."""
    code, _, err = run("puzzles", "prepare", "--days", "1", "--variant", "nosuch")
    assert code == 2
    assert "--variant: unknown variant 'nosuch' (`gapgrid variants` lists them)" in err
    assert not instance.exists()


def test_a_mistyped_date_is_said_before_a_missing_instance(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """daily --date and solution's DATE are checked first: run where there is no instance,
    a mistyped date is what they say (they said the instance or the secret was missing)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GAPGRID_INSTANCE", raising=False)
    monkeypatch.delenv("GAPGRID_SECRET_KEY", raising=False)
    for args, where in ((("daily", "montana", "--date", "2026-02-30"), "--date"),
                        (("solution", "2026-1-5", "montana"), "DATE"),
                        (("puzzles", "prepare", "--from", "20260105"), "--from")):
        code, _, err = run(*args)
        assert code == 2 and f"Invalid value for {where}: " in err
        assert "is not a date like 2026-11-30" in err and "instance" not in err
    assert not (tmp_path / "instance").exists()


def test_a_day_is_refused_in_one_form_whatever_is_wrong_with_it(instance: Path) -> None:
    """A mistyped day and a day with no puzzle are refused alike, by each command."""
    prepare("--days", "1", "--variant", "paganini")
    for command in (("daily", "paganini", "--date"), ("solution", "paganini")):
        refusals = [run(*command, day)[2] for day in ("2026-02-30", "2020-01-01")]
        assert [refusal.count("Usage:") for refusal in refusals] in ([0, 0], [1, 1])
        where = "--date" if command[0] == "daily" else "DATE"
        assert [refusal.splitlines()[-1].split(": ")[:2] for refusal in refusals] == [
            ["Error", f"Invalid value for {where}"]] * 2


def test_solution_takes_the_variant_first_too(instance: Path) -> None:
    """`solution VARIANT DATE`, in the order of `daily VARIANT --date`, prints what
    `solution DATE VARIANT` does (it said 'montana' is not a date)."""
    past = (today() - datetime.timedelta(days=2)).isoformat()
    prepare("--from", past, "--days", "1", "--variant", "paganini")
    code, out, err = run("solution", past, "paganini", "--json")
    assert code == 0, err
    assert run("solution", "paganini", past, "--json") == (0, out, err)


def test_prepare_checks_every_name_first_and_makes_a_game_once(instance: Path) -> None:
    """An unknown name among known ones is refused before any puzzle is made (montana was
    prepared, then the command failed); two names of one game (addiction is spaces)
    prepare it once."""
    code, out, err = run("puzzles", "prepare", "--days", "1", "--variant", "montana",
                         "--variant", "nosuch", "--json")
    assert code == 2 and "nosuch" in out + err and "--variant" in out + err
    code, out, _ = run("puzzles", "prepare", "--days", "1", "--variant", "addiction",
                       "--variant", "spaces", "--json")
    assert code == 0 and [row["variant"] for row in json.loads(out)] == ["spaces"]
    code, out, _ = run("puzzles", "prepare", "--days", "1", "--variant", "montana",
                       "--json")
    assert code == 0 and json.loads(out)[0]["action"] == "created"


def test_daily_prints_the_board_par_and_difficulty(instance: Path) -> None:
    """gapgrid daily shows the puzzle's grid, its par and difficulty, and the PySolFC
    steps."""
    [row] = prepare("--days", "1", "--variant", "paganini")
    code, out, _ = run("daily", "paganini")
    assert code == 0
    assert f"game {row['puzzle']['deal']}" in out and "A♦" in out.replace("A♥", "A♦")
    assert f"Par: {row['puzzle']['par']} actions" in out and "Difficulty:" in out
    assert "Select game by number" in out


def test_the_solution_opens_after_the_day(instance: Path) -> None:
    """A past day's solution (two days ago: yesterday's opens at 01:00 UTC) is a line of
    par actions that wins; today's is refused, saying when it opens."""
    past = today() - datetime.timedelta(days=2)
    [row] = prepare("--from", past.isoformat(), "--days", "1", "--variant", "line-up")
    code, out, _ = run("solution", past.isoformat(), "line-up", "--json")
    solution = json.loads(out)
    assert code == 0 and solution["par"] == row["puzzle"]["par"] == len(solution["line"])
    from gapgrid import plugins
    rules = plugins.load_catalogue(disabled=()).rules("line-up")
    assert replay(rules, parse_deal_number(solution["deal"]),
                  parse_actions(solution["line"])).won
    code, out, _ = run("solution", past.isoformat(), "line-up")
    assert code == 0 and " ".join(solution["line"]) in out
    assert out.startswith(f"Line Up, puzzle of {past.isoformat()}: game ")  # as daily
    # today's is refused in one line, exit 2, without a usage block: DATE is right
    opens = f"{(today() + datetime.timedelta(days=1)).isoformat()}T01:00:00Z (UTC)"
    code, out, err = run("solution", today().isoformat(), "line-up")
    assert code == 2 and err.startswith("gapgrid: the solution of the line-up puzzle of ")
    assert f"opens at {opens}" in err and "Usage" not in err and not out
    code, out, err = run("solution", today().isoformat(), "line-up", "--json")
    assert code == 2 and json.loads(out)["error"]["kind"] == "unavailable"
    assert f"opens at {opens}" in json.loads(out)["error"]["message"]
    # a day with no puzzle is still a usage error naming DATE
    code, _, err = run("solution", "2020-01-01", "line-up")
    assert code == 2 and "Invalid value for DATE: puzzles start on" in err


def test_the_solution_of_an_uncertified_puzzle_says_none_is_known(instance: Path) -> None:
    """A past day whose puzzle was stored uncertified (too small a budget) has no line to
    show: said in one line, exit 2, not as a usage error about a right DATE."""
    past = (today() - datetime.timedelta(days=2)).isoformat()
    tiny = ["--variant", "rectangular-rovers", "--positions", "1000", "--seconds", "1"]
    [row] = prepare("--from", past, "--days", "1", *tiny)
    assert not row["puzzle"]["certified"]
    code, out, err = run("solution", past, "rectangular-rovers")
    assert code == 2 and not out and "Usage" not in err
    assert err.startswith("gapgrid: no winning line is known for the rectangular-rovers "
                          f"puzzle of {past}: it is not certified")


def test_prepare_leaves_a_coming_day_unmade_when_no_candidate_is_won(instance: Path) -> None:
    """Too small a budget for Rectangular Rovers: tomorrow's puzzle is not stored (a later run
    may try more candidates), while today's, which is served, is stored uncertified."""
    tomorrow = (today() + datetime.timedelta(days=1)).isoformat()
    tiny = ["--variant", "rectangular-rovers", "--positions", "1000", "--seconds", "1"]
    [coming] = prepare("--from", tomorrow, "--days", "1", *tiny)
    assert coming["action"] == "not stored" and coming["candidates"] >= 1
    assert coming["puzzle"]["deal"] is None and not coming["puzzle"]["certified"]
    [served] = prepare("--days", "1", *tiny)
    assert served["action"] == "uncertified" and served["puzzle"]["deal"] is not None
    code, out, _ = run("puzzles", "prepare", "--from", tomorrow, "--days", "1", *tiny)
    assert code == 0 and "not stored" in out and "run again with more" in out
