"""A probe that runs inside the real PySolFC program, as a plugin file, and reports what it shows.

tests/pysolfc/test_real_tk.py copies this file into the plugins folder of a
throw-away home, beside gapgrid's plugin file, and starts PySolFC under Xvfb.
PySolFC runs it at start-up like any plugin (its main window exists by then);
it then waits on PySolFC's own Tk event loop for the game the test named, and
once that game is on the screen it reads back, from Tk itself, what a player
sees: the cards in the slots, the redeal pile's picture and label, whether the
rules button ("?") is enabled, and the text of the rules page it opens. Between
readings it plays through PySolFC's own commands (card moves as a drop plays
them, a click on the redeal pile, the Hint, Undo and Rules menu commands).
Everything is written as JSON to the file the test named; then it quits
PySolFC through its Quit command, so that start, play and shutdown all run
PySolFC's own code.

The instructions come in the environment variable ``GAPGRID_TK_PROBE`` (a
JSON object: ``game`` the game's id, ``moves`` card moves to play until the
player is stuck as ``[source, target]`` pairs, ``report`` the file to write,
``screenshot`` a PNG file to write, or null). Without it the probe does nothing.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any

RANKS = "A23456789TJQK"
SUITS = "CSHD"
POLL_MS = 200


def _application() -> Any:
    """PySolFC's application object: the ``self`` of ``App.loadPlugins``, which runs this file."""
    frame = sys._getframe(1)
    while frame is not None:
        candidate = frame.f_locals.get("self")
        if type(candidate).__name__ == "Application":
            return candidate
        frame = frame.f_back
    raise RuntimeError("the probe was not loaded by PySolFC's loadPlugins")


class Probe:
    """Waits for the game, plays the steps one event at a time, and reports."""

    def __init__(self, app: Any, orders: dict[str, Any]) -> None:
        self.app = app
        self.orders = orders
        self.report: dict[str, Any] = {"steps": {}, "error": None}
        self.steps = [self.first_look, self.hint_at_start, self.play_until_stuck,
                      self.hint_when_stuck, self.redeal, self.undo, self.rules_page, self.finish]

    def top(self) -> Any:
        return self.app.top

    def schedule(self) -> None:
        self.top().after(POLL_MS, self.tick)

    def tick(self) -> None:
        """Run the next step once the game is up; steps run one Tk event apart, so that
        PySolFC draws between them."""
        try:
            game = self.app.game
            if game is None or game.id != self.orders["game"] or game.busy:
                self.schedule()
                return
            self.top().update_idletasks()
            self.steps.pop(0)(game)
        except Exception:
            self.report["error"] = traceback.format_exc()
            self.steps = [self.finish]
        if self.steps:
            self.schedule()

    def look(self, game: Any) -> dict[str, Any]:
        """What the window shows now, read from Tk."""
        canvas = game.canvas
        talon = game.s.talon
        pictures = [str(image) for image in self.app.gimages.redeal]
        shown = canvas.itemcget(talon.images.redeal.id, "image") if talon.images.redeal else None
        label = canvas.itemcget(talon.texts.redeal.id, "text") if talon.texts.redeal else None
        toolbar = self.app.toolbar
        return {
            "rows": [RANKS[row.cards[-1].rank] + SUITS[row.cards[-1].suit] if row.cards
                     else None for row in game.s.rows],
            "redeal_picture": ("stop sign", "redeal sign")[pictures.index(shown)]
            if shown in pictures else shown,
            "redeal_label": label,
            "rules_button": str(toolbar.rules_button["state"]) if toolbar else None,
            "rules_file": self.app.getGameRulesFilename(game.id),
            "title": self.app.getGameTitleName(game.id),
            "round": talon.round,
            "hints": game.stats.hints,
        }

    def first_look(self, game: Any) -> None:
        self.report["steps"]["start"] = self.look(game)

    def hint_at_start(self, game: Any) -> None:
        self.app.menubar.mHint()  # the Hint command (key H): draws its arrow and waits
        self.report["steps"]["hint_at_start"] = self.look(game)
        self.report["steps"]["hint_at_start"]["next"] = str(game.gapgrid_next_action())

    def play_until_stuck(self, game: Any) -> None:
        rows = game.s.rows
        for source, target in self.orders["moves"]:
            cards = rows[source].cards[-1:]
            if not (cards and rows[source].canMoveCards(cards)
                    and rows[target].acceptsCards(rows[source], cards)):
                raise RuntimeError(f"PySolFC refused {source}-{target}")
            rows[source].playMoveMove(1, rows[target], frames=0, sound=False)
        self.report["steps"]["stuck"] = self.look(game)

    def hint_when_stuck(self, game: Any) -> None:
        self.app.menubar.mHint()
        self.report["steps"]["hint_when_stuck"] = self.look(game)
        self.report["steps"]["hint_when_stuck"]["next"] = str(game.gapgrid_next_action())
        self.screenshot()

    def redeal(self, game: Any) -> None:
        game.s.talon.clickHandler(None)  # what a click on the redeal pile does
        self.report["steps"]["redealt"] = self.look(game)

    def undo(self, game: Any) -> None:
        self.app.menubar.mUndo()
        self.report["steps"]["undone"] = self.look(game)

    def rules_page(self, game: Any) -> None:
        self.app.menubar.mHelpRules()  # the rules button ("?") and Help > Rules
        self.top().update_idletasks()
        viewer = getattr(sys.modules.get("pysollib.help"), "help_html_viewer", None)
        self.report["rules_page_text"] = viewer.text.get("1.0", "end") if viewer else None

    def screenshot(self) -> None:
        path = self.orders.get("screenshot")
        if not path:
            return
        self.top().update()
        try:
            from PIL import ImageGrab
        except ImportError:
            return
        ImageGrab.grab().save(path)

    def finish(self, game: Any = None) -> None:
        with open(self.orders["report"], "w", encoding="utf-8") as handle:
            json.dump(self.report, handle)
        self.app.opt.confirm = 0  # no "Quit?" question: nobody is there to answer
        self.app.menubar.mQuit()


def _start() -> None:
    orders = os.environ.get("GAPGRID_TK_PROBE")
    if not orders:
        return
    Probe(_application(), json.loads(orders)).schedule()


_start()
