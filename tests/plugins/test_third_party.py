"""Third-party plugins: found through the ``gapgrid`` entry-point group, never imported here.

The example package ``examples/gapgrid-diagonal`` must be installed (the
README's test command and .ci/run install it). Other plugins are made on
the fly as distributions on ``sys.path`` with an ``entry_points.txt``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gapgrid import plugins
from gapgrid.api.app import create_app
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game
from gapgrid.core.notation import parse_action
from tests.api import conftest as api_conftest
from tests.distributions import run_gapgrid, write_distribution

INSTALL_HINT = "install the example: pip install -e ./examples/gapgrid-diagonal"


def test_example_plugin_is_discovered() -> None:
    """Diagonal Gaps comes from the entry point named 'diagonal'."""
    catalogue = plugins.load_catalogue(disabled=())
    assert "diagonal-gaps" in catalogue.variants, INSTALL_HINT
    assert catalogue.variants["diagonal-gaps"].plugin == "diagonal"
    assert catalogue.problems == ()


def test_example_rule_differs_from_montana_where_it_should() -> None:
    """In game 617 the 8D may fill slot 14 diagonally after the 7D; Montana refuses it."""
    catalogue = plugins.load_catalogue(disabled=())
    move = parse_action("21-14")
    deal = parse_deal_number("617")
    assert new_game(catalogue.rules("diagonal-gaps"), deal).check(move) is None
    refusal = new_game(catalogue.rules("montana"), deal).check(move)
    assert refusal is not None and refusal.kind == "misfit"


def test_example_plugin_is_listed_dealt_and_verified_by_the_command_line() -> None:
    """The installed gapgrid command lists, deals and verifies the third-party variant."""
    listed = json.loads(run_gapgrid("variants", "--json").stdout)
    assert "diagonal-gaps" in [entry["slug"] for entry in listed], INSTALL_HINT
    dealt = json.loads(run_gapgrid("deal", "diagonal-gaps", "617", "--json").stdout)
    assert dealt["rows"][1][1] is None
    verified = run_gapgrid("verify", "diagonal montana", "617", "21-14", "--json")
    assert verified.returncode == 0, verified.stderr
    assert json.loads(verified.stdout)["ok"] is True
    refused = run_gapgrid("verify", "montana", "617", "21-14", "--json")
    assert refused.returncode == 1


def test_the_example_readme_commands_work() -> None:
    """Each ``gapgrid deal`` and ``gapgrid verify`` command the example's README shows succeeds."""
    readme = Path(__file__).resolve().parents[2] / "examples" / "gapgrid-diagonal" / "README.md"
    commands = [line.split("#")[0].split()[1:] for line in readme.read_text().splitlines()
                if line.startswith(("gapgrid deal ", "gapgrid verify "))]
    assert any(command[0] == "verify" for command in commands)
    for command in commands:
        result = run_gapgrid(*command)
        assert result.returncode == 0, (command, result.stdout, result.stderr)


def test_disabled_third_party_plugin_is_not_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """GAPGRID_DISABLE_PLUGINS blocks an entry point by name or by distribution."""
    monkeypatch.setenv("GAPGRID_DISABLE_PLUGINS", "diagonal")
    assert "diagonal-gaps" not in plugins.load_catalogue().variants
    monkeypatch.setenv("GAPGRID_DISABLE_PLUGINS", "gapgrid-diagonal")
    assert "diagonal-gaps" not in plugins.load_catalogue().variants


def test_a_name_that_disables_nothing_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """A name in GAPGRID_DISABLE_PLUGINS that no plugin, entry point or distribution has
    (a game's name where the plugin's is meant, a typo) is reported, with the names it is
    near: it was ignored without a word, and the game it meant stayed loaded."""
    monkeypatch.setenv("GAPGRID_DISABLE_PLUGINS", "line-up, jungle, nothing-like-it")
    catalogue = plugins.load_catalogue()
    assert "line-up" in catalogue.variants and "jungle" not in catalogue.variants
    reasons = {problem.plugin: problem.reason for problem in catalogue.problems}
    assert reasons["line-up"] == ("GAPGRID_DISABLE_PLUGINS names 'line-up', which is no "
                                  "plugin or distribution; did you mean 'line_up'?")
    assert reasons["nothing-like-it"].endswith("which is no plugin or distribution")
    assert "jungle" not in reasons
    monkeypatch.setenv("GAPGRID_DISABLE_PLUGINS", "nothing-like-it")
    said = run_gapgrid("variants")
    assert said.stderr == ("gapgrid: GAPGRID_DISABLE_PLUGINS names 'nothing-like-it', which is "
                           "no plugin or distribution\n")  # not "plugin ... not loaded"


def test_broken_and_duplicate_plugins_are_reported_and_the_rest_work(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An import failure and a duplicate slug are each reported by plugin name and reason."""
    write_distribution(tmp_path, "crashes", "crashes_on_import",
                       "raise ImportError('no numpy')\n")
    write_distribution(tmp_path, "copycat", "copycat_plugin", """
        from gapgrid import hookimpl

        @hookimpl
        def gapgrid_register(registry):
            registry.add_variant(slug="blue-moon", name="My Blue Moon")
        """)
    monkeypatch.syspath_prepend(str(tmp_path))
    catalogue = plugins.load_catalogue(disabled=())
    reasons = {problem.plugin: problem.reason for problem in catalogue.problems}
    assert "ImportError: no numpy" in reasons["crashes"]
    assert "slug 'blue-moon' is already registered by blue_moon" in reasons["copycat"]
    assert catalogue.variants["blue-moon"].name == "Blue Moon"
    assert "diagonal-gaps" in catalogue.variants, INSTALL_HINT


def test_command_line_reports_a_broken_plugin_on_stderr(tmp_path: Path) -> None:
    """The command still works and names the broken plugin on standard error."""
    write_distribution(tmp_path, "crashes", "crashes_on_import",
                       "raise ImportError('no numpy')\n")
    result = run_gapgrid("deal", "montana", "1", "--json", path=tmp_path)
    assert result.returncode == 0
    assert "plugin 'crashes' not loaded" in result.stderr
    assert json.loads(result.stdout)["variant"] == "montana"


BUGGY_SCHEME = """
from gapgrid import hookimpl
from gapgrid.core.scoring import points


class FailsOnOneMove:
    def score(self, summary):
        if summary.moves == 1:  # no sample game the load tries has one move
            raise ZeroDivisionError("score bug")
        return points({"moves": summary.moves}, "moves")


@hookimpl
def gapgrid_register(registry):
    registry.add_scoring(name="buggy", summary="Buggy", scheme=FailsOnOneMove())
"""


def test_command_line_names_a_plugin_that_fails_and_how_to_do_without_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A third-party scheme failing on a game is said as that plugin's fault, with how to turn
    it off (exit 3; in JSON with --json), not as gapgrid's internal error to report."""
    write_distribution(tmp_path, "buggy", "buggy_scheme", BUGGY_SCHEME)
    rules = plugins.load_catalogue(entry_points=False).rules("montana")
    move = str(new_game(rules, parse_deal_number("1")).legal_moves()[0])
    result = run_gapgrid("verify", "montana", "1", move, path=tmp_path)
    assert result.returncode == 3, result.stderr
    assert result.stderr == (
        "gapgrid: scoring scheme 'buggy' (plugin buggy) failed: ZeroDivisionError: score bug\n"
        "gapgrid: report it to the plugin's authors, or turn it off with "
        "GAPGRID_DISABLE_PLUGINS=buggy\n")
    as_json = run_gapgrid("verify", "montana", "1", move, "--json", path=tmp_path)
    assert as_json.returncode == 3
    assert json.loads(as_json.stdout)["error"] == {
        "kind": "plugin", "plugin": "buggy",
        "message": "scoring scheme 'buggy' (plugin buggy) failed: ZeroDivisionError: score bug"}
    monkeypatch.setenv("GAPGRID_DISABLE_PLUGINS", "buggy")  # as the message says
    assert run_gapgrid("verify", "montana", "1", move, path=tmp_path).returncode == 0


def test_a_plugin_that_exits_while_imported_is_reported_and_the_command_works(
        tmp_path: Path) -> None:
    """sys.exit() in a plugin's module ended every command at once with no output, exit 0
    (--json too); now the plugin is not loaded, said on standard error, and the rest work."""
    write_distribution(tmp_path, "quits", "quits_on_import", "import sys\nsys.exit(0)\n")
    result = run_gapgrid("deal", "montana", "1", "--json", path=tmp_path)
    assert result.returncode == 0
    assert "plugin 'quits' not loaded" in result.stderr and "sys.exit(0)" in result.stderr
    assert json.loads(result.stdout)["variant"] == "montana"


REFUSAL_FAILS = """
from gapgrid import MontanaFill, hookimpl


class Fill(MontanaFill):
    def refusal(self, cells, source, target):
        return 1 // 0  # a bug only a refused move meets


class Rules:
    @hookimpl
    def gapgrid_fill_rule(self, layout):
        return Fill(layout)


@hookimpl
def gapgrid_register(registry):
    registry.add_variant(slug="refuses-badly", name="Refuses badly", base="montana",
                         rules=Rules())
"""


def test_a_plugins_rule_that_fails_in_play_is_named_not_called_gapgrids_bug(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule's code raising while a command runs was "internal error: please report it", as
    if gapgrid had the bug; the traceback says whose code it is, and the message names the
    plugin and how to turn it off (the server's problem too: a 500 titled "Plugin failed")."""
    write_distribution(tmp_path, "refuses", "refuses_badly", REFUSAL_FAILS)
    montana = new_game(plugins.load_catalogue(entry_points=False).rules("montana"),
                       parse_deal_number("1"))  # the variant's deal is Montana's
    gap = montana.board.cells.index(None)
    misfit = next(source for source, card in enumerate(montana.board.cells)
                  if card is not None and montana.check(parse_action(f"{source}-{gap}")))
    result = run_gapgrid("verify", "refuses-badly", "1", f"{misfit}-{gap}", path=tmp_path)
    assert result.returncode == 3, result.stderr
    assert result.stderr == (
        "gapgrid: the plugin refuses failed: ZeroDivisionError: integer division or modulo "
        "by zero\ngapgrid: report it to the plugin's authors, or turn it off with "
        "GAPGRID_DISABLE_PLUGINS=refuses\n")
    monkeypatch.syspath_prepend(str(tmp_path))  # the server, in this process
    app = create_app(api_conftest.test_settings(tmp_path),
                     catalogue=plugins.load_catalogue(disabled=()))
    answer = app.test_client().post("/v1/verify", json={
        "variant": "refuses-badly", "deal": "1", "moves": [f"{misfit}-{gap}"]})
    assert answer.status_code == 500 and answer.get_json()["title"] == "Plugin failed"
    assert "the plugin refuses failed" in answer.get_json()["detail"]


FAILS_ON_GAME_SEVEN = """
from gapgrid import MontanaDeal, hookimpl


class FailsOnSeven(MontanaDeal):
    def place(self, layout, cards):
        cells = super().place(layout, cards)
        if cells[0] == 41:  # the 3 of diamonds first: game 7 of Montana's deals, none of 1-3
            raise LookupError("deal bug")
        return cells


class Rules:
    @hookimpl
    def gapgrid_deal_style(self, layout):
        return FailsOnSeven()


@hookimpl
def gapgrid_register(registry):
    registry.add_variant(slug="fails-on-seven", name="Fails on seven", base="montana",
                         rules=Rules())
"""


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_study_names_a_plugin_that_fails_on_one_deal(tmp_path: Path, workers: str) -> None:
    """A study's worker process sends an error back without the traceback that says whose
    code raised it: with two workers, a plugin failing on one deal was gapgrid's "internal
    error"; now it is the plugin's, with the deal, however many workers there are."""
    write_distribution(tmp_path, "deals7", "fails_on_seven", FAILS_ON_GAME_SEVEN)
    result = run_gapgrid("study", "fails-on-seven", "--game-numbers", "6-8", "--budget", "0.2",
                         "--workers", workers, "--out", str(tmp_path / "study.csv"), "--json",
                         path=tmp_path)
    assert result.returncode == 3, result.stderr
    message = "fails-on-seven game 7: the plugin deals7 failed: LookupError: deal bug"
    assert json.loads(result.stdout)["error"] == {"kind": "plugin", "plugin": "deals7",
                                                  "message": message}
    assert result.stderr.startswith(f"gapgrid: {message}\n")
