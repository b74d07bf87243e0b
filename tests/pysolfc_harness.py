"""Drive the real PySolFC game classes without a screen, for tests that compare with gapgrid.

PySolFC is never copied into gapgrid: a test points ``PYSOLFC_DIR`` at a PySolFC source
tree, :func:`load_pysolfc` imports its games the way PySolFC's own start-up does, and
:class:`HeadlessGame` plays one game through PySolFC's own code paths:

* the game is built by ``Game.create(app)`` and dealt by ``Game.newGame(random=...)``,
  exactly as ``App.runGame`` does for a game number the player typed
  (``construct_random``), so the stacks, the shuffle and ``startGame`` are PySolFC's;
* a move is PySolFC's drag-and-drop: the source must let the card go
  (``canMoveCards``), the target must take it (``acceptsCards``), and the drop is played
  by ``Stack.playMoveMove`` into the undo history;
* a redeal is a click on the talon (``TalonStack.clickHandler``), one undoable step;
* undo is ``Game.undo``.

Only the screen is replaced: the application object handed to ``Game.create`` is a small
stand-in whose window, canvas and menubar draw nothing, which has no sound, and whose
options switch every animation off. No PySolFC module is patched; the one behavioural
override is made on each game object (the modal "Game won" dialog, see
:class:`HeadlessGame`).

Typical use::

    load_pysolfc(pysolfc_dir())
    with HeadlessGame(53, "617") as game:    # Montana, game number 617
        game.rows()                          # [["5C", "KD", ...], ...]
        game.try_move(27, 40)                # False: PySolFC refuses it
        game.try_redeal()                    # True: gathered, shuffled, dealt again
        game.undo()
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace, TracebackType
from typing import Any, ClassVar

#: The environment variable naming a PySolFC source tree (the directory holding ``pysollib/``).
PYSOLFC_DIR_VARIABLE = "PYSOLFC_DIR"

#: Rank letters indexed by PySolFC's rank number (Ace 0 .. King 12).
RANK_CODES = "A23456789TJQK"
#: Suit letters indexed by PySolFC's suit number (Clubs 0, Spades 1, Hearts 2, Diamonds 3).
SUIT_CODES = "CSHD"


def pysolfc_dir() -> Path | None:
    """The PySolFC source tree named by ``PYSOLFC_DIR``, or None when unset or not a tree."""
    value = os.environ.get(PYSOLFC_DIR_VARIABLE)
    if not value:
        return None
    path = Path(value).expanduser()
    return path if (path / "pysollib").is_dir() else None


def load_pysolfc(path: str | os.PathLike[str]) -> Any:
    """Import PySolFC from the source tree ``path`` with all its built-in games; idempotent.

    The games are imported as PySolFC's ``main.py`` imports them at start-up (the French
    games, then Mahjongg and the special games), so ``pysollib.gamedb.GAME_DB`` knows every
    built-in game id afterwards. Returns ``GAME_DB``.

    Nothing needs patching to run headless: importing the games only defines classes and
    registers them; everything that touches the screen happens later, through the
    application object a :class:`HeadlessGame` supplies.

    Raises RuntimeError when ``pysollib`` is already imported from another tree: two
    PySolFC versions cannot share one process, and silently testing the wrong one would
    make every comparison meaningless.
    """
    root = Path(path).expanduser().resolve()
    if not (root / "pysollib").is_dir():
        raise FileNotFoundError(f"{root} is not a PySolFC source tree (no pysollib/ in it)")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    pysollib = importlib.import_module("pysollib")
    loaded_from = Path(pysollib.__file__).resolve().parent.parent
    if loaded_from != root:
        raise RuntimeError(f"pysollib is already imported from {loaded_from}, not from {root}")
    # The same imports, in the same order, as pysollib/main.py; Python's module cache makes
    # a second call free, so each game registers itself once.
    importlib.import_module("pysollib.games")
    importlib.import_module("pysollib.games.mahjongg")
    special = importlib.import_module("pysollib.games.special")
    special.no_use()
    return importlib.import_module("pysollib.gamedb").GAME_DB


def load_plugin_file(path: str | os.PathLike[str]) -> str | None:
    """Load one PySolFC plugin file as PySolFC does at start-up; the error message, or None.

    ``App.loadPlugins`` calls ``loadGame(modname, filename)`` for each ``NAME.py`` of a
    plugin directory (``modname`` is NAME), after the built-in games are imported, and
    reports a failing file as ``error loading plugin FILE: ERROR`` without stopping. This
    does the same for one file and returns that message instead of printing it. Call
    :func:`load_pysolfc` first, so that the plugin finds the built-in games, as in PySolFC.
    """
    from pysollib.gamedb import loadGame
    from pysollib.mygettext import _

    filename = os.fspath(path)
    modname = Path(filename).name.removesuffix(".py")
    try:
        loadGame(modname, filename)
    except Exception as ex:  # PySolFC catches whatever a plugin raises, and so do we.
        return _("error loading plugin %(file)s: %(err)s") % {"file": filename, "err": ex}
    return None


def card_code(card: Any) -> str:
    """The code of a PySolFC card: rank letter then suit letter, as in ``"TD"``."""
    return RANK_CODES[card.rank] + SUIT_CODES[card.suit]


# ---------------------------------------------------------------------------------------
# Stand-ins for the screen. Method names in camelCase are the ones PySolFC calls.
# ---------------------------------------------------------------------------------------


class _Inert:
    """A widget that accepts every attribute and call and does nothing; it is falsy.

    Stands in for the Tk window, the menubar and Tk itself (``canvas.tk``): PySolFC only
    tells them to draw, bind events, set titles or start timers, and never reads back
    anything that decides a move. Being falsy makes PySolFC's ``if widget:`` guards skip.
    """

    def __getattr__(self, name: str) -> Any:
        # Dunder lookups (copy, pickle, ...) must fail normally, not find an inert method.
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self

    def __bool__(self) -> bool:
        return False

    def __iter__(self) -> Iterator[Any]:
        return iter(())


class _HeadlessWindow(_Inert):
    """The main window: titles, geometry, focus, bindings and timers go nowhere.

    ``pysollib``'s ``after()`` asks the window for a Tk timer and then reads the name of
    the callback Tk registered from ``_tclCommands``. No timer ever fires (there is no
    event loop, so PySolFC's play clock never ticks), and the name is a dummy.
    """

    _tclCommands: ClassVar[list[str]] = ["headless-timer"]


class _HeadlessCanvas(_Inert):
    """The game's canvas: hands out item ids and draws nothing.

    The canvas items PySolFC makes (cards, stack groups, texts) are its real classes; they
    need ``_create`` to number them and ``items`` to register in, and the layout reads
    the margins and the preview level as numbers.
    """

    xmargin = 0
    ymargin = 0
    preview = 0

    def __init__(self) -> None:
        self.items: dict[Any, Any] = {}
        self._last_item_id = 0

    def _create(self, item_type: str, args: Any, kw: Any) -> int:
        """Stand in for Tk's item creation: a fresh item id."""
        self._last_item_id += 1
        return self._last_item_id


class _HeadlessImages:
    """The cardset: sizes as numbers (the layout places stacks with them), and no pictures.

    Every picture PySolFC asks for (card faces and backs, stack bottoms) is None, which
    PySolFC already takes as "nothing to draw": stacks then skip their bottom and redeal
    images altogether.
    """

    # The sizes of PySolFC's default cardset; they only place stacks on the canvas.
    CARDW = 73
    CARDH = 97
    CARD_XOFFSET = 14
    CARD_YOFFSET = 20

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _no_picture


def _no_picture(*args: Any, **kwargs: Any) -> None:
    """Any picture of the cardset: there is none."""
    return None


class _CanvasItem:
    """A picture or text on the canvas that remembers what it was last configured to show."""

    def __init__(self) -> None:
        self.shown: dict[str, Any] = {}

    def config(self, **options: Any) -> None:
        """Show ``options`` (``image=...`` or ``text=...``), as a Tk canvas item would."""
        self.shown.update(options)


#: PySolFC's two redeal pictures (``app.gimages.redeal``): its red stop sign, then its
#: green redeal sign; here, names of the pictures.
REDEAL_PICTURES = ("stop sign", "redeal sign")


class _HeadlessStats:
    """The player's statistics: none yet, shown nowhere."""

    def getStats(self, player: Any, gameid: int) -> tuple[int, int]:
        """Games won and lost so far (PySolFC formats them for the status bar)."""
        return (0, 0)


def _headless_options() -> SimpleNamespace:
    """The options a game reads, as a plain namespace (``pysollib.options`` needs configobj).

    Animations are off, so that every move is instant and nothing waits for a timer; no
    statistics are written and no dialog is opened; what PySolFC does by itself after a
    move keeps PySolFC's defaults (autofaceup and autodeal on, autodrop off).
    """
    return SimpleNamespace(
        # animation: none (0 makes animatedMoveTo return at once; flips read their own flag)
        animations=0,
        flip_animation=False,
        # automatic moves after each move: PySolFC's defaults
        autofaceup=True,
        autodrop=False,
        autodeal=True,
        # sounds: no sample is enabled (there is no audio device either: app.audio is None)
        sound_samples={},
        # no "You are stuck" dialog, no statistics file, no flash when no hint is found
        stuck_notification=False,
        highlight_not_matching=False,
        update_player_stats=False,
        # a plain, unscaled window without status bar or saved geometry
        player="headless",
        statusbar=False,
        save_games_geometry=False,
        wm_maximized=False,
        wm_fullscreen=False,
        # cards drawn where the stack says, without offsets or jitter; no scaling (read when
        # Pillow is installed, as PySolFC then scales cardsets)
        auto_scale=False,
        scale_x=1.0,
        scale_y=1.0,
        game_geometry=(0, 0),
        spread_stacks=False,
        preserve_aspect_ratio=False,
        center_layout=False,
        preview_scale=False,
        colors={"keyboard_sel": "#000000"},
        shrink_face_down=False,
        randomize_place=False,
        compact_stacks=False,
        # mouse bindings are made on inert widgets: keep the event names as they are
        calcCustomMouseButtonsBinding=lambda binding_format: binding_format,
    )


class _HeadlessApp:
    """What ``Game.create`` and play need of PySolFC's ``App``, without a window.

    The cardset sizes, the options and the statistics are data; every widget is
    :class:`_Inert` or None (PySolFC itself checks ``if self.app.audio`` and friends).
    """

    def __init__(self) -> None:
        self.top = _HeadlessWindow()
        self.top_cursor = None
        self.canvas = _HeadlessCanvas()
        self.images = _HeadlessImages()
        self.opt = _headless_options()
        self.stats = _HeadlessStats()
        self.intro = SimpleNamespace(progress=None)
        self.menubar = _Inert()
        self.toolbar = None
        self.statusbar = None
        self.audio = None
        self.speech = _Inert()  # what PySolFC would read aloud (a hint, say) goes nowhere
        self.gimages = SimpleNamespace(redeal=REDEAL_PICTURES)

    def getGameTitleName(self, gameid: int) -> str:
        """The game's name, for the window title."""
        from pysollib.gamedb import GAME_DB

        return str(GAME_DB.get(gameid).name)

    def getFont(self, name: str) -> tuple[str, int]:
        """A font; the layout uses its size to place texts."""
        return ("helvetica", 12)


# ---------------------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------------------


class HeadlessGame:
    """One PySolFC game, dealt for a game number and played through PySolFC's own code.

    ``game_id`` is PySolFC's game id (53 is Montana) and ``number`` the game number as a
    player types it (``"617"``, ``"ms617"``, ``"#85128232190298205627"``), turned into
    PySolFC's generator by its own ``construct_random``. Call :func:`load_pysolfc` first.
    ``game`` is the underlying ``pysollib.game.Game``; row stacks are numbered as in
    ``game.s.rows``, row by row from 0.

    When a move wins, ``Game.checkForWin`` marks the game finished and opens a modal
    "Game won" dialog. There is no screen to show it on, so ``_showWinDialog`` is replaced
    on this game object (never on the class); everything else of the win stays PySolFC's.

    Use as a context manager, or call :meth:`close`, to release PySolFC's objects.
    """

    def __init__(self, game_id: int, number: str) -> None:
        from pysollib.gamedb import GAME_DB
        from pysollib.pysolrandom import construct_random

        gameinfo = GAME_DB.get(game_id)
        if gameinfo is None:
            raise KeyError(f"PySolFC has no game with id {game_id}")
        random = construct_random(number)  # raises ValueError for numbers PySolFC refuses
        if random is None:
            raise ValueError(f"PySolFC does not accept the game number {number!r}")
        self.app = _HeadlessApp()
        # As App.constructGame and App.runGame: build the game and its stacks, start a new
        # game with the chosen generator (shuffle, then startGame deals), then let PySolFC
        # make its automatic moves after the deal, which are not the player's.
        self.game: Any = gameinfo.gameclass(gameinfo)
        self.game._showWinDialog = _no_win_dialog
        self.game.create(self.app)
        self.game.newGame(random=random, autoplay=0)
        self.game.autoPlay()
        self.game.stats.player_moves = 0

    def __enter__(self) -> HeadlessGame:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Release the game as ``App.freeGame`` does, and the canvas's event bindings."""
        if self.game is None:
            return
        from pysollib.mfxutil import destruct
        from pysollib.pysoltk import unbind_destroy

        # PySolFC remembers every binding in a module-level table until it is undone;
        # the stacks' go with Game.destruct, this game's own canvas's go here.
        self.game.destruct()
        destruct(self.game)
        unbind_destroy(self.app.canvas)
        self.game = None

    @property
    def rstep(self) -> int:
        """How many row stacks make one row of the layout (PySolFC's ``RSTEP``)."""
        return int(self.game.RSTEP)

    def rows(self) -> list[list[str | None]]:
        """The row stacks as rows of card codes, None for an empty stack (a gap)."""
        cells = [card_code(stack.cards[-1]) if stack.cards else None for stack in self.game.s.rows]
        step = self.rstep
        return [cells[start : start + step] for start in range(0, len(cells), step)]

    def _row_stack(self, index: int) -> Any:
        rows = self.game.s.rows
        if not 0 <= index < len(rows):
            raise IndexError(f"no row stack {index} (there are {len(rows)})")
        return rows[index]

    def can_move(self, source: int, target: int) -> bool:
        """Whether PySolFC lets the card of row stack ``source`` be dropped on ``target``.

        The checks of drag-and-drop: there must be a card to pick up, the source must let
        it go (``canMoveCards``), the target must be another stack, and it must take the
        card (``acceptsCards``).
        """
        from_stack, to_stack = self._row_stack(source), self._row_stack(target)
        if from_stack is to_stack or not from_stack.cards:
            return False
        cards = from_stack.cards[-1:]
        return bool(from_stack.canMoveCards(cards) and to_stack.acceptsCards(from_stack, cards))

    def try_move(self, source: int, target: int) -> bool:
        """Move the card of row stack ``source`` into row stack ``target`` if PySolFC allows it.

        Returns whether the move was made; a refused move changes nothing. The move is
        played as ``OpenStack.dragMove`` plays a drop, ``playMoveMove(frames=-2)``:
        ``Stack.moveMove`` (which PySolFC requires of every player move, for the stack's
        own triggers), the check for a win, PySolFC's automatic moves, and ``finishMove``,
        which makes it one step of the undo history.
        """
        if not self.can_move(source, target):
            return False
        from_stack, to_stack = self._row_stack(source), self._row_stack(target)
        from_stack.playMoveMove(1, to_stack, frames=-2, sound=False)
        return True

    def can_redeal(self) -> bool:
        """Whether the talon can deal now (``talon.canDealCards()``): redeals left, not won."""
        talon = self.game.s.talon
        return bool(talon is not None and talon.canDealCards())

    def try_redeal(self) -> bool:
        """Redeal if PySolFC allows it, as a click on the talon does; whether it did.

        The click is ``TalonStack.clickHandler``, that is ``Game.dealCards``, which
        records the whole redeal (cards gathered, shuffled, dealt back, the round counted)
        as one step of the undo history; undoing it also restores the generator.
        """
        if not self.can_redeal():
            return False
        self.game.s.talon.clickHandler(None)
        return True

    def undo(self) -> None:
        """Take back the last move or redeal with PySolFC's ``Game.undo`` (none: no-op)."""
        self.game.undo()

    def show_redeal_pile(self) -> None:
        """Give the talon the redeal picture and label a screen would have.

        The headless cardset has no pictures, so PySolFC makes none for the
        talon; with these two canvas items in place, PySolFC's own
        ``TalonStack.updateText`` draws into them whenever the game asks it to,
        and :meth:`redeal_pile` reads back what a player would see.
        """
        talon = self.game.s.talon
        talon.images.redeal, talon.images.redeal_img = _CanvasItem(), None
        talon.texts.redeal, talon.texts.redeal_str = _CanvasItem(), ""
        talon.updateText()

    def redeal_pile(self) -> tuple[str | None, str | None]:
        """The redeal pile as shown: its picture (see :data:`REDEAL_PICTURES`) and its label."""
        talon = self.game.s.talon
        # A canvas text starts empty; PySolFC configures it only when its text changes.
        return talon.images.redeal.shown.get("image"), talon.texts.redeal.shown.get("text", "")

    def hint(self, level: int = 0) -> str | None:
        """What PySolFC's Hint shows now, in gapgrid's notation: ``"F-T"`` for a card move,
        ``"redeal"`` for the redeal pile, None when it finds nothing.

        Level 0 is the Hint command (key H), 1 Ctrl-H, 2 the Demo's hint; the hint is
        asked as they ask it (``Game.showHint``), with no time to show it on a screen.
        """
        found = self.game.showHint(level, sleep=0)
        if not found:
            return None
        _, _, ncards, from_stack, to_stack, _, _ = found
        if ncards == 0:
            return "redeal"
        return f"{from_stack.id}-{to_stack.id}"

    def is_won(self) -> bool:
        """PySolFC's verdict on the current layout (``Game.isGameWon``)."""
        return bool(self.game.isGameWon())


def _no_win_dialog(*args: Any, **kwargs: Any) -> bool:
    """Stand in for ``Game._showWinDialog``: no one to congratulate, the game goes on."""
    return True
