"""gapgrid's games in the real PySolFC program, its Tk window under a virtual display (issue 15).

The headless harness (tests/pysolfc_harness.py) draws nothing, so what only
the real window does is checked here: PySolFC is started as a player starts it
(``pysol.py --game NAME --deal N``) under Xvfb, in a throw-away home holding
gapgrid's plugin file (``gapgrid pysolfc install``), generated cardsets
(tests/pysolfc/cardsets.py: the cardset packages cannot be had here) and a
probe plugin (tests/pysolfc/tk_probe.py) that reads back from Tk what the
window shows while it plays through PySolFC's own commands. Pinned: the deal is
gapgrid's; the redeal pile shows the stop sign while a redeal is not allowed
and the green sign with its "Redeal" label exactly when it is (at the deal,
when stuck, after a redeal and after undoing it); the rules button ("?") is
enabled and opens gapgrid's rules page; the Hint shows the solver's next
action, a redeal when stuck; and PySolFC prints nothing, from start to quit.

They need a PySolFC source tree (``PYSOLFC_DIR``), ``xvfb-run`` (Debian's
``xvfb``), Tk for Python and PySolFC's ``configobj``; without any of them they
are skipped.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gapgrid import plugins
from gapgrid.api.pysolfc import install
from gapgrid.api.pysolfc.games import gapgrid_game_id, pysolfc_name
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import GameState, new_game
from gapgrid.core.notation import REDEAL, UNDO, Move
from gapgrid.core.search import Budget, solve
from tests.pysolfc.cardsets import write_cardsets
from tests.pysolfc_harness import pysolfc_dir

PYSOLFC = pysolfc_dir()
XVFB_RUN = shutil.which("xvfb-run")
MISSING = [why for why, missing in [
    ("set PYSOLFC_DIR to a PySolFC source tree", PYSOLFC is None),
    ("xvfb-run is missing (Debian: apt-get install xvfb)", XVFB_RUN is None),
    ("Tk is missing (Debian: python3-tk)", importlib.util.find_spec("tkinter") is None),
    ("PySolFC needs configobj (pip install configobj)",
     importlib.util.find_spec("configobj") is None),
] if missing]
if MISSING:
    pytest.skip("; ".join(MISSING), allow_module_level=True)

pytestmark = pytest.mark.slow

CATALOGUE = plugins.load_catalogue(disabled=())
PROBE = Path(__file__).with_name("tk_probe.py")


def _pysolfc_root(tmp_path: Path) -> Path:
    """A folder PySolFC runs from: its start script and data linked from ``PYSOLFC_DIR``, and
    the HTML pages its start-up and help viewer look for, which a source tree keeps only as
    sources for its build (``make rules``). Nothing is written into ``PYSOLFC_DIR``."""
    assert PYSOLFC is not None
    root = tmp_path / "pysolfc"
    (root / "data" / "html").mkdir(parents=True)
    for item in (PYSOLFC / "data").iterdir():
        if item.name != "html":
            (root / "data" / item.name).symlink_to(item)
    for page in ("license.html", "index.html"):
        shutil.copy(PYSOLFC / "html-src" / page, root / "data" / "html" / page)
    (root / "pysol.py").symlink_to(PYSOLFC / "pysol.py")
    return root


def _home(tmp_path: Path) -> Path:
    """A player's home: cardsets, options choosing them, gapgrid's plugin and the probe."""
    home = tmp_path / "home"
    config = home / ".PySolFC"
    cardset = write_cardsets(config / "cardsets")
    (config / "options.cfg").write_text("\n".join([
        "[general]", "splashscreen = False", "sound = False", "", "[cardsets]",
        # The French cardset for every French game (type 1; 1_1 with jokers), unscaled.
        *(f"{key} = {cardset}, back01.png" for key in ("0", "1", "1_1")),
        "scale_cards = False", "auto_scale = False", ""]))
    install.install(config / "plugins")
    shutil.copy(PROBE, config / "plugins" / "zz_gapgrid_tk_probe.py")
    return home


def _until_stuck(state: GameState) -> tuple[list[list[int]], GameState, str]:
    """The solver's winning line up to its first redeal (the player is stuck there), the
    position reached, and the line's first action."""
    line = solve(state, Budget(seconds=30)).line
    assert REDEAL in line, "the deal should need a redeal"
    moves = []
    for action in line[:line.index(REDEAL)]:
        assert isinstance(action, Move)
        moves.append([action.source, action.target])
        state = state.apply(action)
    return moves, state, str(line[0])


def _run_pysolfc(tmp_path: Path, slug: str, number: str, moves: list[list[int]]
                 ) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """Start PySolFC under Xvfb on game ``number`` of ``slug`` and let the probe play and
    report; PySolFC's output and the probe's report."""
    assert XVFB_RUN is not None
    report = tmp_path / "report.json"
    orders = {"game": gapgrid_game_id(slug), "moves": moves, "report": str(report),
              "screenshot": os.environ.get("GAPGRID_TK_SCREENSHOT")}
    environment = {**os.environ, "HOME": str(_home(tmp_path)),
                   "GAPGRID_TK_PROBE": json.dumps(orders)}
    root = _pysolfc_root(tmp_path)
    done = subprocess.run(
        [XVFB_RUN, "-a", "-s", "-screen 0 1280x1024x24", sys.executable, str(root / "pysol.py"),
         "--game", pysolfc_name(CATALOGUE.lookup(slug)), "--deal", number, "--nosound"],
        env=environment, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert report.is_file(), f"the probe wrote no report; PySolFC said:\n{done.stderr}"
    return done, json.loads(report.read_text())


def _pile(state: GameState) -> tuple[str, str]:
    """The redeal pile as PySolFC's own games show it: the green sign and "Redeal" when a
    redeal is allowed, the stop sign and no label when not."""
    return ("redeal sign", "Redeal") if state.can_redeal() else ("stop sign", "")


def _cells(state: GameState) -> list[str | None]:
    return [code for row in state.board.to_rows() for code in row]


@pytest.mark.parametrize(("slug", "number"), [("gaps", "617"), ("blue-moon-classic", "3")])
def test_gapgrid_game_in_the_real_pysolfc_window(tmp_path: Path, slug: str,
                                                 number: str) -> None:
    """The deal, the redeal pile, the rules button and page, and the Hint, as the window
    shows them, and no word from PySolFC on its output."""
    start = new_game(CATALOGUE.rules(slug), parse_deal_number(number))
    moves, stuck, first_action = _until_stuck(start)
    redealt = stuck.apply(REDEAL)
    done, report = _run_pysolfc(tmp_path, slug, number, moves)

    assert report["error"] is None, report["error"]
    assert done.returncode == 0
    assert done.stdout == "" and done.stderr == "", "PySolFC printed something"
    steps = report["steps"]
    expected = {"start": start, "hint_at_start": start, "stuck": stuck,
                "hint_when_stuck": stuck, "redealt": redealt, "undone": redealt.apply(UNDO)}
    assert set(steps) == set(expected)
    assert _pile(start) == ("stop sign", "") and _pile(stuck) == ("redeal sign", "Redeal")
    for name, state in expected.items():
        shown = steps[name]
        assert shown["rows"] == _cells(state), name
        assert (shown["redeal_picture"], shown["redeal_label"]) == _pile(state), name
        assert shown["round"] == state.redeals_used + 1, name
        assert shown["rules_button"] == "normal", name
        assert shown["title"] == pysolfc_name(CATALOGUE.lookup(slug))
    assert steps["hint_at_start"]["next"] == first_action
    assert steps["hint_when_stuck"]["next"] == "redeal"
    assert steps["hint_when_stuck"]["hints"] == 2, "both hints should have been shown"

    page = Path(steps["start"]["rules_file"])
    assert page.name == f"{slug}.html" and page.is_file()
    text = report["rules_page_text"]
    assert text is not None and f"{CATALOGUE.lookup(slug).name} (gapgrid)" in text
    assert "gapgrid variants" in text
