"""gapgrid's plugin file inside the real PySolFC: loaded at start-up, playing as gapgrid rules.

The plugin file is written by ``gapgrid pysolfc install`` into a temporary
plugins folder and loaded the way PySolFC loads plugins at start-up. Every
game it registers is then dealt and played headless (tests/pysolfc_harness.py):
at every step, each move PySolFC accepts or refuses, and whether it allows a
redeal, must agree with gapgrid; layouts must agree after every move, redeal
and undo; and a game PySolFC saves must read back and verify.

They need a PySolFC source tree: set ``PYSOLFC_DIR`` to it, otherwise they are skipped.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
from pathlib import Path

import pytest

from gapgrid import plugins
from gapgrid.api.pysolfc import install
from gapgrid.api.pysolfc.games import gapgrid_game_id, in_pysolfc, pysolfc_name
from gapgrid.api.pysolfc.savefile import read_save
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import GameState, new_game
from gapgrid.core.notation import REDEAL, UNDO, Action, Move
from gapgrid.core.replay import replay
from gapgrid.core.rules import RedealTiming
from tests.pysolfc_harness import (
    REDEAL_PICTURES,
    HeadlessGame,
    load_plugin_file,
    pysolfc_dir,
)

PYSOLFC = pysolfc_dir()
if PYSOLFC is None:
    pytest.skip("set PYSOLFC_DIR to a PySolFC source tree to run these tests",
                allow_module_level=True)

CATALOGUE = plugins.load_catalogue(disabled=())
ADDED = [slug for slug in CATALOGUE.slugs() if not in_pysolfc(CATALOGUE.lookup(slug))]


def test_every_game_pysolfc_lacks_is_registered(game_db: object) -> None:
    """Presets and third-party variants appear under their stable ids, names and redeals."""
    assert ADDED, "there should be games to add"
    for slug in ADDED:
        info = game_db.get(gapgrid_game_id(slug))  # type: ignore[attr-defined]
        assert info is not None, slug
        assert info.name == pysolfc_name(CATALOGUE.lookup(slug))
        rules = CATALOGUE.rules(slug)
        assert info.redeals == rules.redeals
        assert not 200_000 <= info.id <= 299_999
    assert game_db.get(53).name == "Montana"  # type: ignore[attr-defined]


def _sync(game: HeadlessGame, state: GameState) -> None:
    assert game.rows() == state.board.to_rows()
    assert game.is_won() == state.is_won


def _agree_on_every_move(game: HeadlessGame, state: GameState) -> None:
    """PySolFC accepts exactly the moves gapgrid accepts, and redeals when gapgrid does."""
    cells = state.board.cells
    for target, held in enumerate(cells):
        if held is not None:
            continue
        for source, card in enumerate(cells):
            if card is not None:
                expected = state.check(Move(source, target)) is None
                assert game.can_move(source, target) == expected, f"{source}-{target}"
    assert game.can_redeal() == state.can_redeal()


@pytest.mark.parametrize("slug", ADDED)
@pytest.mark.parametrize("number", ["617", "40000", "98765432109876543210"])
def test_pysolfc_plays_by_gapgrids_rules(game_db: object, slug: str, number: str,
                                         tmp_path: Path) -> None:
    """Deal, random play with redeals and undos: PySolFC and gapgrid agree at every step."""
    rules = CATALOGUE.rules(slug)
    deal = parse_deal_number(number)
    state = new_game(rules, deal)
    chooser = random.Random(f"{slug}/{number}")
    played: list[Action] = []
    with HeadlessGame(gapgrid_game_id(slug), number) as game:
        _sync(game, state)
        for _ in range(60):
            _agree_on_every_move(game, state)
            moves = state.legal_moves()
            if state.can_redeal() and (not moves or chooser.random() < 0.15):
                action: Action = REDEAL
                assert game.try_redeal()
            elif moves and chooser.random() < 0.9:
                action = chooser.choice(moves)
                assert isinstance(action, Move)
                assert game.try_move(action.source, action.target)
            elif state.can_undo:
                action = UNDO
                game.undo()
            else:
                break
            state = state.apply(action)
            played.append(action)
            _sync(game, state)
        saved = tmp_path / "game.pso"
        game.game._saveGame(str(saved))
    result = replay(rules, deal, played)
    assert result.ok and result.state.board == state.board
    record = read_save(saved.read_bytes())
    assert record.game_id == gapgrid_game_id(slug) and record.deal == deal
    from_file = replay(rules, deal, list(record.actions))
    assert from_file.ok and from_file.state.board == state.board
    assert [str(action) for action in record.actions] == [
        str(action) for action in state.actions()]


def test_plugin_file_of_another_version_registers_nothing(tmp_path: Path,
                                                          game_db: object) -> None:
    """PySolFC still starts: the file says how to update itself and adds no game."""
    path = tmp_path / "old" / install.PLUGIN_FILE_NAME
    path.parent.mkdir()
    path.write_text(install.plugin_source(version="0.0.1"))
    messages = io.StringIO()
    with contextlib.redirect_stderr(messages):
        assert load_plugin_file(path) is None
    assert "written by gapgrid 0.0.1" in messages.getvalue()
    assert "gapgrid pysolfc install" in messages.getvalue()


def test_plugin_file_without_gapgrid_lets_pysolfc_start(tmp_path: Path,
                                                        game_db: object,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """If gapgrid cannot be imported, loading the file still succeeds and says how to fix it."""
    import sys
    source = install.plugin_source(directories=[str(tmp_path / "missing")])
    for name in [name for name in sys.modules if name.split(".")[0] == "gapgrid"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "path", [entry for entry in sys.path
                                      if not (Path(entry) / "gapgrid").is_dir()
                                      and "site-packages" not in entry])
    # An editable install finds gapgrid through a finder of its own, not through sys.path.
    monkeypatch.setattr(sys, "meta_path", [finder for finder in sys.meta_path
                                           if "__editable__" not in str(
                                               getattr(finder, "__module__", ""))])
    path = tmp_path / "nowhere" / install.PLUGIN_FILE_NAME
    path.parent.mkdir()
    path.write_text(source)
    messages = io.StringIO()
    with contextlib.redirect_stderr(messages):
        assert load_plugin_file(path) is None
    assert "gapgrid cannot be imported" in messages.getvalue()


def test_catalogue_is_the_one_tested(game_db: object) -> None:
    """The games registered come from the same catalogue these tests compare against."""
    assert isinstance(CATALOGUE, Catalogue)
    assert set(ADDED) >= {"gaps", "gaps-no-shuffle", "montana-relax", "blue-moon-classic"}


STUCK_ONLY = [slug for slug in ADDED if CATALOGUE.rules(slug).timing is RedealTiming.STUCK]


def _pile_for(state: GameState) -> tuple[str, str]:
    """What PySolFC's own games show: the green sign and "Redeal" when a redeal is allowed,
    the stop sign and no label when not."""
    return (REDEAL_PICTURES[1], "Redeal") if state.can_redeal() else (REDEAL_PICTURES[0], "")


@pytest.mark.parametrize("slug", STUCK_ONLY)
def test_the_redeal_pile_shows_whether_a_redeal_is_allowed_now(game_db: object,
                                                               slug: str) -> None:
    """After every move, undo and redeal, the redeal pile shows PySolFC's green redeal sign
    and its "Redeal" label exactly when gapgrid allows a redeal, and its stop sign otherwise
    (issue 15: in the games that redeal only when stuck it showed the stop sign all the time,
    since PySolFC redraws the pile only when cards enter or leave it)."""
    rules = CATALOGUE.rules(slug)
    state = new_game(rules, parse_deal_number("617"))
    chooser = random.Random(slug)
    seen = set()
    with HeadlessGame(gapgrid_game_id(slug), "617") as game:
        game.show_redeal_pile()
        assert game.redeal_pile() == _pile_for(state)
        for _ in range(300):
            moves = state.legal_moves()
            if state.can_redeal():
                action: Action = REDEAL
                assert game.try_redeal()
            elif moves:
                action = chooser.choice(moves)
                assert isinstance(action, Move)
                assert game.try_move(action.source, action.target)
            else:
                break  # stuck with no redeal left
            state = state.apply(action)
            assert game.redeal_pile() == _pile_for(state), f"after {len(seen)} actions"
            seen.add(state.can_redeal())
            if action is REDEAL and chooser.random() < 0.5:
                game.undo()  # undo the redeal: stuck again, so allowed again
                state = state.apply(UNDO)
                assert game.redeal_pile() == _pile_for(state)
    assert seen == {True, False}, "the game should pass through both"


def test_every_added_game_has_a_rules_page(game_db: object, tmp_path: Path) -> None:
    """PySolFC finds a rules page for every game gapgrid adds, so its rules button ("?") is
    enabled (issue 15: it was greyed out), and the page holds the rules `gapgrid variants`
    prints.

    PySolFC's lookup (``App.getGameRulesFilename``, whose module needs configobj, so it is
    followed here rather than imported) returns the GameInfo's ``rules_filename`` when set;
    the rules button is enabled when that is not empty, and ``DataLoader.findFile`` joins it
    onto ``html/rules`` in PySolFC's data folder, where an absolute path stays itself."""
    for slug in ADDED:
        document = game_db.get(gapgrid_game_id(slug)).rules_filename  # type: ignore[attr-defined]
        assert document, slug
        page = Path(os.path.normpath(os.path.join(str(tmp_path), "html", "rules", document)))
        assert page.is_file(), page
        text = page.read_text(encoding="utf-8")
        entry = CATALOGUE.lookup(slug)
        assert f"<h1>{entry.name} (gapgrid)</h1>" in text
        assert entry.summary.split(":")[0].replace("'", "") in text.replace("'", "")
