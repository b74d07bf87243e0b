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
from typing import Final

import attrs

from gapgrid.core.baseline import won_leaves_no_move
from gapgrid.core.board import Board
from gapgrid.core.cards import card_code
from gapgrid.core.dealnumber import DealNumber, GameRandom
from gapgrid.core.deals import deal_cells
from gapgrid.core.fills import card_index
from gapgrid.core.notation import REDEAL, Action, Move, Redeal, Undo
from gapgrid.core.redeals import redeal_cells
from gapgrid.core.rules import RedealTiming, RuleError, Rules
from gapgrid.core.runs import Cells


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


@attrs.frozen
class _RedealRecord:
    """What undoing a redeal restores: the board as bytes, and the generator's state.

    A game may hold thousands of these (an unlimited-redeal game, a
    search), so each is small: the board is one byte a slot, as in
    :attr:`Engine.codes`, and the state a compact value whose 2.5 KB of
    Mersenne Twister words are shared by consecutive redeals
    (:class:`core.dealnumber.MersenneState`).
    """

    codes: bytes
    rng_state: Hashable


_Entry = tuple[int, int] | _RedealRecord  # a move (source, target) or a redeal


@attrs.frozen
class _History:
    """A persistent stack of undoable entries: sharing tails keeps apply() O(1)."""

    entry: _Entry
    parent: _History | None


GAP_CODE: Final = 255
"""A gap in a position key (cards are 0-51)."""


class Engine:
    """A game in progress held in mutable lists: the fast path for replay and search.

    Besides the slots' contents it keeps, always up to date, an index from each
    card to the slots that hold it (:attr:`where`), the list of gaps
    (:attr:`gaps`) and a byte string of the position (:attr:`codes`), so legal
    moves are found gap by gap without scanning the board, and a position key
    costs one ``bytes()`` call.

    Two ways to change it:

    * :meth:`apply` (``move``, ``redeal``, ``undo``) checks every rule, keeps
      the undo journal and counts moves: what replay and players use.
    * :meth:`play` and :meth:`unplay` move a card in place without checks or
      journal, python-chess's ``push``/``pop``: what a search uses between
      moves it generated itself with :meth:`legal_pairs`.
    """

    __slots__ = ("_base", "_journal", "_moves_end_at_win", "_random", "cells", "codes", "deal",
                 "gaps", "moves_made", "redeals_used", "rng_state", "rules", "undos", "where")

    def __init__(self, rules: Rules, deal: DealNumber, cells: list[int | None],
                 redeals_used: int, rng_state: Hashable, random: GameRandom | None = None,
                 history: _History | None = None) -> None:
        self.rules = rules
        self.deal = deal
        self.cells = cells
        self.redeals_used = redeals_used
        self.rng_state = rng_state
        self.moves_made = 0
        """Card moves applied (undone ones included)."""
        self.undos = 0
        """Undos applied."""
        self.where: list[list[int]] = []
        """For each card, the slots holding it (see :func:`core.fills.card_index`)."""
        self.gaps: list[int] = []
        """The empty slots, in no particular order."""
        self.codes = bytearray()
        """Each slot's card, or :data:`GAP_CODE`: the position as bytes."""
        self._random = random
        self._journal: list[_Entry] = []
        self._base = history
        self._moves_end_at_win = won_leaves_no_move(rules.fill, rules.won, rules.layout)
        self._reindex()

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

    def _reindex(self) -> None:
        """Rebuild the index, the gap list and the codes from the cells (after a redeal)."""
        cells = self.cells
        self.where = card_index(cells)
        self.gaps = [slot for slot, card in enumerate(cells) if card is None]
        self.codes = bytearray(GAP_CODE if card is None else card for card in cells)

    def _reindex_slots(self, changed: list[int], before: Cells) -> None:
        """Bring the index, gaps and codes up to date after ``changed`` slots were rewritten.

        A redeal rewrites only the slots it gathered, and every gap lies among them.
        """
        if 2 * len(changed) > len(self.cells):
            self._reindex()  # most of the board: building afresh is faster than updating
            return
        cells, where, codes = self.cells, self.where, self.codes
        for slot in changed:
            card = before[slot]
            if card is not None:
                where[card].remove(slot)
        for slot in changed:
            card = cells[slot]
            if card is None:
                codes[slot] = GAP_CODE
            else:
                where[card].append(slot)
                codes[slot] = card
        self.gaps = [slot for slot in changed if cells[slot] is None]

    @property
    def won(self) -> bool:
        """Tell whether the position is won."""
        return self.rules.won.is_won(self.cells)

    # -- moving in place, unchecked ------------------------------------------

    def play(self, source: int, target: int) -> None:
        """Move the card in ``source`` into the gap ``target``; no rule is checked.

        For a search that found the move with :meth:`legal_pairs`; nothing is
        journaled or counted, :meth:`unplay` takes it back.
        """
        cells = self.cells
        card = cells[source]
        assert card is not None
        cells[target] = card
        cells[source] = None
        slots = self.where[card]
        slots[slots.index(source)] = target
        gaps = self.gaps
        gaps[gaps.index(target)] = source
        codes = self.codes
        codes[target] = card
        codes[source] = GAP_CODE

    def unplay(self, source: int, target: int) -> None:
        """Take back :meth:`play` (``source``, ``target``)."""
        self.play(target, source)

    def key(self) -> bytes:
        """The position's slots as bytes: equal keys, equal boards."""
        return bytes(self.codes)

    def legal_pairs(self) -> list[tuple[int, int]]:
        """Every legal card move as (source, target), gap by gap in slot order.

        Does not ask whether the game is won (a won game allows no move):
        callers that may reach a won position check :attr:`won` first.
        """
        cells, where = self.cells, self.where
        sources = self.rules.fill.sources
        return [(source, target) for target in sorted(self.gaps)
                for source in sources(cells, target, where)]

    # -- actions -----------------------------------------------------------

    def apply(self, action: Action) -> Refusal | None:
        """Apply ``action``; return None, or the refusal (and change nothing)."""
        if type(action) is Move:
            return self.move(action.source, action.target)
        if type(action) is Redeal:
            return self.redeal()
        if type(action) is Undo:
            return self.undo()
        raise TypeError(f"not an action: {action!r}")

    def move(self, source: int, target: int) -> Refusal | None:
        """Move the card in ``source`` into the gap ``target``, if the rules allow it."""
        cells, rules = self.cells, self.rules
        # The usual case, a legal move, in one test; move_refusal then says why
        # not, checking in the order players are told.
        if (0 <= source < len(cells) and 0 <= target < len(cells) and cells[target] is None
                and cells[source] is not None and rules.fill.accepts(cells, source, target)
                and (self._moves_end_at_win or not rules.won.is_won(cells))):
            self.play(source, target)
            self._journal.append((source, target))
            self.moves_made += 1
            return None
        return move_refusal(rules, cells, source, target) or _disagreement(source, target)

    def redeal(self) -> Refusal | None:
        """Gather, shuffle and deal back, if a redeal is allowed now."""
        refusal = self.redeal_refusal()
        if refusal is not None:
            return refusal
        random = self._generator()
        before = tuple(self.cells)
        rules = self.rules
        record = _RedealRecord(bytes(self.codes), self.rng_state)
        gathered = redeal_cells(rules.layout, self.cells, rules.keep, rules.placement, random)
        self._journal.append(record)
        self.rng_state = random.getstate()
        self.redeals_used += 1
        self._reindex_slots(gathered, before)
        return None

    def undo(self) -> Refusal | None:
        """Take back the last move or redeal."""
        if self._journal:
            entry = self._journal.pop()
        elif self._base is not None:
            entry, self._base = self._base.entry, self._base.parent
        else:
            return Refusal("nothing-to-undo", "there is nothing to undo")
        if isinstance(entry, _RedealRecord):
            self.cells[:] = [None if code == GAP_CODE else code for code in entry.codes]
            self.rng_state = entry.rng_state
            if self._random is not None:
                self._random.setstate(entry.rng_state)
            self.redeals_used -= 1
            self._reindex()
        else:
            source, target = entry
            self.unplay(source, target)
        self.undos += 1
        return None

    # -- questions ---------------------------------------------------------

    def redeal_refusal(self) -> Refusal | None:
        """Return why a redeal is not allowed now, or None when it is."""
        return redeal_refusal(self.rules, self.cells, self.redeals_used,
                              lambda: next(self.iter_legal_moves(), None))

    def iter_legal_moves(self) -> Iterator[Move]:
        """Yield every legal card move, gap by gap in slot order."""
        if self.won:
            return
        cells, where = self.cells, self.where
        sources = self.rules.fill.sources
        for target in sorted(self.gaps):
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
            self._random.setstate(self.rng_state)
        return self._random


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
        return Refusal("misfit", rules.fill.refusal(cells, source, target))
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
    if not rules.unlimited_redeals and redeals_used >= rules.redeals:
        used = ("the only redeal was" if rules.redeals == 1
                else f"all {rules.redeals} redeals were")
        return Refusal("no-redeal-left", f"no redeal left: {used} used")
    if rules.won.is_won(cells):
        return Refusal("won", "the game is already won: no redeal may follow")
    if rules.timing is RedealTiming.STUCK:
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
                              lambda: next(self._iter_legal_moves(), None))

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
                                history=_History((action.source, action.target), self.history))
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
            found.append(REDEAL if isinstance(entry, _RedealRecord) else Move(*entry))
            node = node.parent
        return found[::-1]


def new_game(rules: Rules, deal: DealNumber) -> GameState:
    """Deal game ``deal`` under ``rules`` and return the starting state."""
    return Engine.start(rules, deal).snapshot()
