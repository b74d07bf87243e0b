"""``python -m gapgrid.api.compiled``: the compiled search is the Python search, position for
position, on deals of every variant."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from click.testing import CliRunner

from gapgrid import plugins
from gapgrid.api import compiled
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import new_game
from gapgrid.core.search import PACK_AT, Budget, line_text, solve

pytestmark = pytest.mark.slow

CHECKOUT = Path(__file__).resolve().parents[2]

Case = tuple[str, dict[str, str], int, int, int, float]
"""A variant's slug, its options, a game number, the positions to search, the MiB the
tables may hold, and the share of them filled before the dead positions are packed."""


def cases() -> list[Case]:
    """Two deals of every variant and preset (the third-party one installed for the tests
    included) at a positions budget that decides some and not others, a lost Line Up deal,
    a single-round Gaps deal searched past the first restarts' tables, two whose tables
    fill (never packed: the rollouts then go on alone), the same two packed, and a lost
    Line Up deal whose proof fits in its 2 MiB only packed."""
    slugs = plugins.load_catalogue().slugs()
    return [*((slug, {}, number, 15_000, 1024, PACK_AT) for slug in slugs
              for number in (1, 2)),
            ("line-up", {}, 4, 5_000, 1024, PACK_AT),
            ("montana", {"redeals": "0"}, 3, 150_000, 1024, PACK_AT),
            ("montana", {"redeals": "0"}, 3, 60_000, 2, 2.0), ("montana", {}, 2, 40_000, 1, 2.0),
            ("montana", {"redeals": "0"}, 3, 60_000, 2, PACK_AT),
            ("montana", {}, 2, 40_000, 1, PACK_AT), ("line-up", {}, 11, 100_000, 2, PACK_AT)]


def solved(case: Case) -> list[object]:
    """What the search answers on ``case``, in this process."""
    slug, options, number, positions, memory, pack_at = case
    result = solve(new_game(plugins.load_catalogue().rules(slug, options), DealNumber(number)),
                   Budget(seconds=None, positions=positions, memory=memory << 20,
                          pack_at=pack_at))
    return [result.verdict, result.positions, line_text(result.line), result.stopped_by]


SOLVE_ALL = """
import json, sys
from gapgrid.api.compiled import compiled_modules
from tests.api.test_compiled import solved

results = [solved(case) for case in json.loads(sys.argv[1])]
print(json.dumps({"compiled": compiled_modules(), "results": results}))
"""
"""Solve the cases given as JSON, in the Python that runs it; print what it found."""


def compiler_missing() -> str | None:
    """Why no extension module can be built here, or None."""
    if shutil.which(str(sysconfig.get_config_var("CC") or "cc").split()[0]) is None:
        return "no C compiler"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file():
        return "no Python headers"
    return None


@pytest.fixture(scope="module")
def compiled_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of this gapgrid (its package tree, links resolved) with its hot modules
    compiled, in a folder to put on PYTHONPATH."""
    reason = compiler_missing()
    if reason is not None:
        pytest.skip(f"cannot compile here: {reason}")
    site = tmp_path_factory.mktemp("site")
    shutil.copytree(compiled.package_root(), site / "gapgrid",
                    ignore=shutil.ignore_patterns("__pycache__"))
    compiled.build(site / "gapgrid", tmp_path_factory.mktemp("work"))
    return site


def run_on(site: Path, script: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run ``script`` in a fresh Python whose gapgrid is the one in ``site``, which must
    succeed."""
    # site first: its gapgrid, not the checkout's; the checkout for these tests' helpers.
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(CHECKOUT)])}
    finished = subprocess.run([sys.executable, "-c", script, *map(str, args)],
                              env=environment, cwd=site, capture_output=True, text=True,
                              timeout=600, check=False)
    assert finished.returncode == 0, finished.stderr
    return finished


def test_the_compiled_search_explores_what_the_python_search_does(compiled_copy: Path
                                                                  ) -> None:
    """Every case gives the same verdict, the same line, the same count of positions and
    the same reason to stop, compiled and not: the same search, position for position (a
    compiled fill rule that ignored a subclass's moves, tried once, answered a sliding
    puzzle's deal lost in 0 positions). Then remove takes the build away."""
    expected = [solved(case) for case in cases()]
    report = json.loads(run_on(compiled_copy, SOLVE_ALL, json.dumps(cases())).stdout)
    assert report["compiled"] == list(compiled.COMPILED)
    assert report["results"] == expected
    assert {verdict for verdict, *_ in expected} == {"won", "lost", "unknown"}
    assert "memory" in {stopped_by for *_, stopped_by in expected}
    study = run_on(compiled_copy, "from gapgrid.api.cli import run; run()", "study",
                   "line-up", "--deals", "1", "--max-positions", "1000", "--out",
                   compiled_copy / "study.csv")
    assert "the search runs compiled" in study.stderr  # a study says what it runs

    # gapgrid upgraded after the build: a changed source, even of a module the build did
    # not compile (its constants are baked in), and none of the build runs.
    runs_source = compiled_copy / "gapgrid" / "core" / "cards.py"
    runs_source.write_text(runs_source.read_text() + "# a later version\n")
    status = "from gapgrid.api.compiled import compiled_modules; print(compiled_modules())"
    stale = run_on(compiled_copy, status)
    assert stale.stdout.strip() == "[]"
    assert "do not match its sources" in stale.stderr
    again = json.loads(run_on(compiled_copy, SOLVE_ALL, json.dumps(cases()[-2:])).stdout)
    assert again["results"] == expected[-2:]  # from the sources, the same search

    removed = compiled.remove(compiled_copy / "gapgrid")
    assert len(removed) == len(compiled.COMPILED) + 2  # the shared library, the manifest
    assert run_on(compiled_copy, status).stdout.strip() == "[]"


def test_a_source_checkout_is_not_compiled() -> None:
    """The tests run from a source checkout: compiling it would put the extension modules
    in the repository, so the command refuses and says how to make a build."""
    result = CliRunner().invoke(compiled.main, ["build"])
    assert result.exit_code == 1
    assert "source checkout" in result.output and "pip install '.[compiled,study]'" in (
        result.output)
    assert not compiled.built_files(compiled.package_root())


def test_status_says_the_tests_run_pure_python() -> None:
    """Here nothing is compiled, and the status says so."""
    result = CliRunner().invoke(compiled.main, ["status"])
    assert result.exit_code == 0 and "not compiled" in result.output
