"""Playing a game: legal moves, moves, redeals, undo, stuck and won.

Two faces of one mechanism:

* :class:`GameState` is an immutable, hashable snapshot (board, redeals
  used, the generator's state) that also remembers how to undo; ``apply``
  returns a new state. This is the public API.
* :class:`Engine` is the same game held in mutable lists, which replay and
  search drive move after move without building a snapshot each time.
  ``GameState.apply`` runs through an Engine too, so every rule is applied
  by exactly one piece of code.

Redeals continue the generator that dealt the game, exactly as PySolFC's
talon does; undoing a redeal restores the generator's state.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterator
from typing import Final, NamedTuple

import attrs

from gapgrid.core.baseline import AllRowsFinished, won_leaves_no_move
from gapgrid.core.board import Board
from gapgrid.core.cards import card_code
from gapgrid.core.dealnumber import DealNumber, GameRandom
from gapgrid.core.deals import deal_cells
from gapgrid.core.fills import FillBase, pairs_by_sources
from gapgrid.core.left_card_moves import LeftCardTables, card_index, left_card_pairs
from gapgrid.core.notation import REDEAL, Action, Move, Redeal, Undo
from gapgrid.core.redeals import redeal_cells
from gapgrid.core.rules import RedealTiming, RuleError, Rules, rule_text
from gapgrid.core.runs import Cells, RunShape


@attrs.frozen
class Refusal:
    """Why an action was refused: a stable ``kind`` for programs, a ``reason`` for people.

    Kinds: ``off-board``, ``from-gap``, ``to-card``, ``misfit``, ``won``,
    ``no-redeal-left``, ``variant-has-no-redeal``, ``not-stuck``,
    ``nothing-to-undo``.
    """

    kind: str
    reason: str


class IllegalActionError(ValueError):
    """Raised by :meth:`GameState.apply` for an action the rules refuse."""

    def __init__(self, action: Action, refusal: Refusal) -> None:
        super().__init__(f"{action}: {refusal.reason}")
        self.action = action
        self.refusal = refusal


class _RedealRecord(NamedTuple):
    """What undoing a redeal restores: the board before it, and the generator's state.

    The board is a tuple of the slots' contents: ``tuple(cells)`` copies the
    list in one C call, where coding it as bytes (one byte a slot) took a
    Python-level look-up per slot and was most of a redeal's bookkeeping. It
    costs 8 bytes a slot (some 0.5 KB on a 52-slot board, 1 KB on a two-deck
    one; the cards are shared small ints); the generator's state is a compact
    value whose 2.5 KB of Mersenne Twister words are shared by consecutive
    redeals (:class:`core.dealnumber.MersenneState`). A named tuple, not an
    attrs class: one is made per redeal, and a tuple is made several times
    faster.
    """

    cells: tuple[int | None, ...]
    rng_state: Hashable


_new_record: Final = functools.partial(tuple.__new__, _RedealRecord)
"""Make a :class:`_RedealRecord` from a (cells, rng_state) pair without the named tuple's
Python-level ``__new__``: half the cost, and a redeal makes one."""

_Entry = Move | _RedealRecord
"""A journal entry: the move itself (a value already), or what undoing a redeal needs."""


class _History(NamedTuple):
    """A persistent stack of undoable entries: sharing tails keeps apply() O(1).

    A named tuple: :meth:`Engine.snapshot` makes one per journal entry.
    """

    entry: _Entry
    parent: _History | None


GAP_CODE: Final = 255
"""A gap in a position key (cards are 0-51)."""

_CODE_OF: Final[dict[int | None, int]] = {None: GAP_CODE,
                                          **{card: card for card in range(GAP_CODE)}}
"""Each slot content's code: ``map(_CODE_OF.__getitem__, cells)`` codes a board in one C loop."""

_UNREAD: Final[Hashable] = object()
"""The engine's rng_state after a redeal, until asked: then it is read from the generator."""

_STUCK: Final = RedealTiming.STUCK
"""Read once: an enum member looked up on its class costs some 170 ns, each redeal asks."""


def _codes_of(cells: Cells) -> bytearray:
    """The position as bytes, one a slot: the card, or :data:`GAP_CODE`."""
    return bytearray(map(_CODE_OF.__getitem__, cells))


class Engine:
    """A game in progress held in mutable lists: the fast path for replay and search.

    Besides the slots' contents it keeps, for the questions a search asks, an
    index: a byte string of the position (:attr:`codes`), so a position key
    costs one ``bytes()`` call; from each card to the slots that hold it
    (:attr:`where`), and the list of gaps (:attr:`gaps`), so legal moves are
    found gap by gap without scanning the board. The index is built when a
    question first needs it and then kept up to date move by move; a redeal
    or an undone redeal, which rewrite much of the board, only mark it out of
    date. A replay that asks no question (every game whose redeals are
    allowed at any time) never builds it, and moves only the cells.

    Two ways to change it:

    * :meth:`apply` (``move``, ``redeal``, ``undo``) checks every rule, keeps
      the undo journal and counts moves: what replay and players use.
    * :meth:`play` and :meth:`unplay` move a card in place without checks or
      journal, python-chess's ``push``/``pop``: what a search uses between
      moves it generated itself with :meth:`legal_pairs`.
    """

    __slots__ = (
        "_accepts",
        "_base",
        "_codes",
        "_gaps",
        "_indexed",
        "_journal",
        "_journal_append",
        "_left_card_tables",
        "_moves_undone",
        "_random",
        "_redeals_journaled",
        "_rng_state",
        "_where",
        "_won_shape",
        "cells",
        "deal",
        "never_redeals",
        "redeals_used",
        "rules",
        "run_shape",
        "undos",
    )
    _codes: bytearray
    _where: list[list[int]]
    _gaps: list[int]

    def __init__(self, rules: Rules, deal: DealNumber, cells: list[int | None],
                 redeals_used: int, rng_state: Hashable, random: GameRandom | None = None,
                 history: _History | None = None) -> None:
        self.rules = rules
        self.deal = deal
        self.cells = cells
        self.redeals_used = redeals_used
        self._rng_state = rng_state
        self.undos = 0
        """Undos applied."""
        # _codes, _where and _gaps are set by _index(), when a question first needs them.
        self._indexed = False  # whether _codes, _where and _gaps describe the cells
        # The fill's check, and the won check only under rules where a legal
        # move may follow a win: one call per move either way.
        accepts: Callable[[Cells, int, int], bool] = rules.fill.accepts
        if not won_leaves_no_move(rules.fill, rules.won, rules.layout):
            accepts = _unless_won(accepts, rules.won.is_won)
        self._accepts = accepts
        # A search asks for the legal moves and whether the game is won at every position:
        # under gapgrid's own fill loop and won rule, the compiled functions behind them
        # are called directly rather than through the (Python) rule objects.
        fill = rules.fill
        self._left_card_tables: LeftCardTables | None = (
            fill.left_card_tables()
            if isinstance(fill, FillBase) and type(fill).pairs is FillBase.pairs else None)
        self.never_redeals = rules.redeals == 0
        """Whether the rules allow no redeal at all (a search asks at every position)."""
        self.run_shape = RunShape(rules.layout)
        """The layout's runs and rows, for the search's loops (:class:`core.runs.RunShape`)."""
        won = rules.won
        self._won_shape: RunShape | None = (
            None if type(won) is not AllRowsFinished
            else self.run_shape if won.layout is rules.layout else RunShape(won.layout))
        self._random = random
        self._journal: list[_Entry] = []
        self._journal_append = self._journal.append  # bound once: each move appends
        # moves_made is counted from the journal, so a move need not count itself.
        self._redeals_journaled = 0
        self._moves_undone = 0
        self._base = history

    @classmethod
    def start(cls, rules: Rules, deal: DealNumber) -> Engine:
        """Deal game ``deal`` under ``rules``, exactly as PySolFC does."""
        random = deal.new_random()
        cells = deal_cells(rules.layout, rules.deal_style, deal, random)
        return cls(rules, deal, cells, 0, random.getstate(), random)

    @classmethod
    def from_state(cls, state: GameState) -> Engine:
        """Continue from a snapshot."""
        return cls(state.rules, state.deal, list(state.board.cells), state.redeals_used,
                   state.rng_state, history=state.history)

    @property
    def rng_state(self) -> Hashable:
        """The generator's state, which decides the next redeal."""
        state = self._rng_state
        if state is _UNREAD:
            state = self._rng_state = self._generator().getstate()
        return state

    @property
    def moves_made(self) -> int:
        """Card moves applied (undone ones included)."""
        return len(self._journal) - self._redeals_journaled + self._moves_undone

    @property
    def codes(self) -> bytearray:
        """Each slot's card, or :data:`GAP_CODE`: the position as bytes."""
        if not self._indexed:
            self._index()
        return self._codes

    @property
    def where(self) -> list[list[int]]:
        """For each card, the slots holding it (see :func:`core.left_card_moves.card_index`)."""
        if not self._indexed:
            self._index()
        return self._where

    @property
    def gaps(self) -> list[int]:
        """The empty slots, in no particular order."""
        if not self._indexed:
            self._index()
        return self._gaps

    def _index(self) -> None:
        """Build the codes, the card index and the gap list from the cells."""
        self._codes = codes = _codes_of(self.cells)
        self._where = card_index(self.cells)
        gaps = []
        slot = codes.find(GAP_CODE)
        while slot >= 0:  # a board has few gaps: find() them rather than look at every slot
            gaps.append(slot)
            slot = codes.find(GAP_CODE, slot + 1)
        self._gaps = gaps
        self._indexed = True

    @property
    def won(self) -> bool:
        """Tell whether the position is won."""
        shape = self._won_shape
        if shape is not None:  # AllRowsFinished.is_won, without the call through it
            return shape.all_rows_finished(self.cells)
        return self.rules.won.is_won(self.cells)

    # -- moving in place, unchecked ------------------------------------------

    def play(self, source: int, target: int) -> None:
        """Move the card in ``source`` into the gap ``target``; no rule is checked.

        For a search that found the move with :meth:`legal_pairs`; nothing is
        journaled or counted, :meth:`unplay` takes it back.
        """
        if not self._indexed:
            self._index()
        cells = self.cells
        card = cells[source]
        assert card is not None
        cells[target] = card
        cells[source] = None
        slots = self._where[card]
        slots[slots.index(source)] = target
        gaps = self._gaps
        gaps[gaps.index(target)] = source
        codes = self._codes
        codes[target] = card
        codes[source] = GAP_CODE

    def unplay(self, source: int, target: int) -> None:
        """Take back :meth:`play` (``source``, ``target``)."""
        self.play(target, source)

    def exchange(self, first: int, second: int) -> None:
        """Exchange the cards of two occupied slots: not a move of the game.

        For a search that decides an arrangement late (:mod:`core.open_heads`);
        a second call takes it back.
        """
        if not self._indexed:
            self._index()
        cells, where, codes = self.cells, self._where, self._codes
        one, other = cells[first], cells[second]
        assert one is not None and other is not None
        cells[first], cells[second] = other, one
        codes[first], codes[second] = other, one
        slots = where[one]
        slots[slots.index(first)] = second
        slots = where[other]
        slots[slots.index(second)] = first

    def key(self) -> bytes:
        """The position's slots as bytes: equal keys, equal boards."""
        if not self._indexed:
            self._index()
        return bytes(self._codes)

    def legal_pairs(self) -> list[tuple[int, int]]:
        """Every legal card move as (source, target), gap by gap in slot order.

        Does not ask whether the game is won (a won game allows no move):
        callers that may reach a won position check :attr:`won` first.
        """
        if not self._indexed:
            self._index()
        tables = self._left_card_tables
        if tables is not None:  # FillBase.pairs, without the call through the rule
            return left_card_pairs(tables, self.cells, sorted(self._gaps), self._where)
        fill = self.rules.fill
        if isinstance(fill, FillBase):  # a subclass's own pairs(), or FillBase's by sources()
            return fill.pairs(self.cells, sorted(self._gaps), self._where)
        return pairs_by_sources(fill, self.cells, sorted(self._gaps), self._where)

    # -- actions -----------------------------------------------------------

    def apply(self, action: Action) -> Refusal | None:
        """Apply ``action``; return None, or the refusal (and change nothing)."""
        if type(action) is Move:
            # move(), written out: a replay spends most of its time here.
            source, target = action.source, action.target
            cells = self.cells
            if self.allows(source, target):
                if self._indexed:
                    self.play(source, target)
                else:  # only the cells: the index is built when a question needs it
                    cells[target] = cells[source]
                    cells[source] = None
                self._journal_append(action)  # the action itself: no tuple to make
                return None
            return move_refusal(self.rules, cells, source, target) or _disagreement(source,
                                                                                    target)
        if type(action) is Redeal:
            return self.redeal()
        if type(action) is Undo:
            return self.undo()
        raise TypeError(f"not an action: {action!r}")

    def allows(self, source: int, target: int) -> bool:
        """Tell whether :meth:`move` (``source``, ``target``) would be accepted now, without
        working out the refusal's reason (for callers that try many moves the rules may
        refuse, such as :mod:`core.shortening`); :meth:`apply` asks it too."""
        cells = self.cells
        try:  # a slot past the last raises IndexError: cheaper than comparing with it
            return (cells[target] is None and source >= 0 and target >= 0
                    and cells[source] is not None and self._accepts(cells, source, target))
        except IndexError:
            return False  # move_refusal says which slot is off the board

    def move(self, source: int, target: int) -> Refusal | None:
        """Move the card in ``source`` into the gap ``target``, if the rules allow it."""
        return self.apply(Move(source, target))

    def redeal(self) -> Refusal | None:
        """Gather, shuffle and deal back, if a redeal is allowed now."""
        rules, cells = self.rules, self.cells
        refusal = redeal_refusal(rules, cells, self.redeals_used, self._a_legal_move)
        if refusal is not None:
            return refusal
        random = self._random or self._generator()
        state = self._rng_state
        if state is _UNREAD:  # the rng_state property, written out
            state = random.getstate()
        record = _new_record((tuple(cells), state))
        redeal_cells(rules.layout, cells, rules.keep, rules.placement, random)
        self._journal.append(record)  # after: a rule that raises leaves no record behind
        self._redeals_journaled += 1
        # Read from the generator when asked (the next redeal's record, a
        # snapshot, a search's key): a replay's last redeal never pays for it.
        self._rng_state = _UNREAD
        self.redeals_used += 1
        self._indexed = False  # most of the board changed: rebuilt when a question needs it
        return None

    def undo(self) -> Refusal | None:
        """Take back the last move or redeal."""
        if self._journal:
            entry = self._journal.pop()
            if isinstance(entry, _RedealRecord):
                self._redeals_journaled -= 1
            else:
                self._moves_undone += 1
        elif self._base is not None:
            entry, self._base = self._base
        else:
            return Refusal("nothing-to-undo", "there is nothing to undo")
        if isinstance(entry, _RedealRecord):
            self.cells[:] = entry.cells
            self._rng_state = entry.rng_state
            if self._random is not None:
                self._random.setstate(entry.rng_state)
            self.redeals_used -= 1
            self._indexed = False
        else:
            source, target = entry.source, entry.target
            if self._indexed:
                self.play(target, source)
            else:
                cells = self.cells
                cells[source] = cells[target]
                cells[target] = None
        self.undos += 1
        return None

    # -- questions ---------------------------------------------------------

    def redeal_refusal(self) -> Refusal | None:
        """Return why a redeal is not allowed now, or None when it is."""
        return redeal_refusal(self.rules, self.cells, self.redeals_used, self._a_legal_move)

    def _a_legal_move(self) -> Move | None:
        """One legal card move, or None: what :func:`redeal_refusal` asks when stuck matters."""
        return next(self.iter_legal_moves(), None)

    def iter_legal_moves(self) -> Iterator[Move]:
        """Yield every legal card move, gap by gap in slot order."""
        if self.won:
            return
        if not self._indexed:
            self._index()
        cells, where = self.cells, self._where
        sources = self.rules.fill.sources
        for target in sorted(self._gaps):
            for source in sources(cells, target, where):
                yield Move(source, target)

    def legal_moves(self) -> list[Move]:
        """Return every legal card move (redeals not included)."""
        return list(self.iter_legal_moves())

    def is_stuck(self) -> bool:
        """Tell whether no card move is possible."""
        return next(self.iter_legal_moves(), None) is None

    def snapshot(self) -> GameState:
        """Return the immutable state of the game now."""
        history = self._base
        for entry in self._journal:
            history = _History(entry, history)
        return GameState(rules=self.rules, deal=self.deal,
                         board=Board(self.rules.layout, self.cells),
                         redeals_used=self.redeals_used, rng_state=self.rng_state,
                         history=history)

    def _generator(self) -> GameRandom:
        if self._random is None:
            self._random = self.deal.new_random()
            self._random.setstate(self._rng_state)
        return self._random


def _unless_won(accepts: Callable[[Cells, int, int], bool], is_won: Callable[[Cells], bool]
                ) -> Callable[[Cells, int, int], bool]:
    """``accepts``, refusing every move once the game is won (see :func:`won_leaves_no_move`)."""
    def accepts_unless_won(cells: Cells, source: int, target: int) -> bool:
        return accepts(cells, source, target) and not is_won(cells)
    return accepts_unless_won


def move_refusal(rules: Rules, cells: Cells, source: int, target: int) -> Refusal | None:
    """Return why moving the card in ``source`` into ``target`` is refused, or None if legal."""
    last = len(cells) - 1
    if not (0 <= source <= last and 0 <= target <= last):
        bad = source if not 0 <= source <= last else target
        return Refusal("off-board", f"slot {bad} is off the board (slots 0-{last})")
    if rules.won.is_won(cells):
        return Refusal("won", "the game is already won: no move may follow")
    card, held = cells[source], cells[target]
    if card is None:
        return Refusal("from-gap", f"slot {source} is a gap: there is no card to move")
    if held is not None:
        return Refusal("to-card", f"slot {target} is not a gap: it holds {card_code(held)}")
    if not rules.fill.accepts(cells, source, target):
        return Refusal("misfit", rule_text(rules.fill.refusal(cells, source, target)))
    return None


def _disagreement(source: int, target: int) -> Refusal:
    raise RuleError(f"the fill rule accepted {source}-{target} once and refused it once")


def redeal_refusal(rules: Rules, cells: Cells, redeals_used: int,
                   a_legal_move: Callable[[], Move | None]) -> Refusal | None:
    """Return why a redeal is refused now, or None when it is allowed.

    ``a_legal_move`` finds one legal card move (or None); it is called only
    when the rules allow a redeal just when no move is left.
    """
    if rules.redeals == 0:
        return Refusal("variant-has-no-redeal", f"{rules.name} has no redeal")
    if redeals_used >= rules.redeals and not rules.unlimited_redeals:
        used = ("the only redeal was" if rules.redeals == 1
                else f"all {rules.redeals} redeals were")
        return Refusal("no-redeal-left", f"no redeal left: {used} used")
    if rules.won.is_won(cells):
        return Refusal("won", "the game is already won: no redeal may follow")
    if rules.timing is _STUCK:
        possible = a_legal_move()
        if possible is not None:
            return Refusal("not-stuck", f"a redeal is only allowed when no move is left, "
                                        f"and {possible} is possible")
    return None


@attrs.frozen(cache_hash=True)
class GameState:
    """A position of one game: hashable, immutable, and able to undo.

    Two states are equal when the board, the redeals used and the
    generator's state are: from there, every move and redeal gives the
    same result, whatever the history.
    """

    rules: Rules = attrs.field(eq=False, repr=False)
    """The rules the game is played by."""

    deal: DealNumber = attrs.field(eq=False)
    """The game number that was dealt."""

    board: Board
    """Every slot's content."""

    redeals_used: int
    """Redeals made so far (undone ones not counted)."""

    rng_state: Hashable = attrs.field(repr=False)
    """The generator's state, which decides the next redeal."""

    history: _History | None = attrs.field(default=None, eq=False, repr=False)
    """What undo takes back, last first."""

    @property
    def is_won(self) -> bool:
        """Tell whether the position is won."""
        return self.rules.won.is_won(self.board.cells)

    @property
    def is_stuck(self) -> bool:
        """Tell whether no card move is possible (a redeal may still be)."""
        return next(self._iter_legal_moves(), None) is None

    @property
    def redeals_left(self) -> int | None:
        """Return the redeals still allowed, or None when unlimited."""
        return self.rules.redeals_left(self.redeals_used)

    @property
    def can_undo(self) -> bool:
        """Tell whether there is anything to undo."""
        return self.history is not None

    @functools.cached_property
    def _where(self) -> list[list[int]]:
        """The card-to-slots index, built once per state when a question needs it."""
        return card_index(self.board.cells)

    def _iter_legal_moves(self) -> Iterator[Move]:
        cells = self.board.cells
        if self.rules.won.is_won(cells):
            return
        where, sources = self._where, self.rules.fill.sources
        for target in self.board.gaps():
            for source in sources(cells, target, where):
                yield Move(source, target)

    def legal_moves(self) -> list[Move]:
        """Return every legal card move, gap by gap in slot order."""
        return list(self._iter_legal_moves())

    def can_redeal(self) -> bool:
        """Tell whether a redeal is allowed now."""
        return self.redeal_refusal() is None

    def redeal_refusal(self) -> Refusal | None:
        """Return why a redeal is refused now, or None when it is allowed."""
        return redeal_refusal(self.rules, self.board.cells, self.redeals_used,
                              self._first_legal_move)

    def _first_legal_move(self) -> Move | None:
        # A method rather than a lambda: mypyc (gapgrid.api.compiled) cannot compile a
        # closure over self in this class.
        return next(self._iter_legal_moves(), None)

    def check(self, action: Action) -> Refusal | None:
        """Return why ``action`` is refused, or None when it is legal."""
        if type(action) is Move:
            return move_refusal(self.rules, self.board.cells, action.source, action.target)
        if type(action) is Redeal:
            return self.redeal_refusal()
        if type(action) is Undo:
            return None if self.can_undo else Refusal("nothing-to-undo",
                                                      "there is nothing to undo")
        raise TypeError(f"not an action: {action!r}")

    def apply(self, action: Action) -> GameState:
        """Return the state after ``action``; raise :class:`IllegalActionError` if refused."""
        if type(action) is Move:
            refusal = self.check(action)
            if refusal is not None:
                raise IllegalActionError(action, refusal)
            cells = list(self.board.cells)
            cells[action.target], cells[action.source] = cells[action.source], None
            return attrs.evolve(self, board=Board(self.rules.layout, cells),
                                history=_History(action, self.history))
        engine = Engine.from_state(self)
        refusal = engine.apply(action)
        if refusal is not None:
            raise IllegalActionError(action, refusal)
        return engine.snapshot()

    def undo(self) -> GameState:
        """Return the state before the last move or redeal."""
        return self.apply(Undo())

    def actions(self) -> list[Action]:
        """Return the moves and redeals in effect, first first (undone ones left out)."""
        found: list[Action] = []
        node = self.history
        while node is not None:
            entry = node.entry
            found.append(REDEAL if isinstance(entry, _RedealRecord) else entry)
            node = node.parent
        return found[::-1]


def new_game(rules: Rules, deal: DealNumber) -> GameState:
    """Deal game ``deal`` under ``rules`` and return the starting state."""
    return Engine.start(rules, deal).snapshot()
