"""The solver: is a position won, lost, or unknown within a budget?

A depth-first search over the engine's own moves and redeals, with a
transposition table so no position is expanded twice:

* ``won`` comes with a line of actions (card moves and redeals, never
  ``undo``) that the engine replays from the given position to a win
  before the answer is returned;
* ``lost`` only when the whole reachable space was explored, with no
  pruning but the reductions of :mod:`core.reductions`, each proven sound;
* ``unknown`` when the time, the position count or the table's memory ran
  out first. When the table's memory runs out, the searches that keep
  tables stop and the nested rollouts, which keep none, go on until the
  time or the position count runs out: they may still find a win, but no
  loss can be proven any more.

A redeal is one more action: the generator's state is part of the
position, so a line with redeals replays exactly, in gapgrid and in
PySolFC. The search visits moves in a fixed order (the heuristic ordering
of :mod:`core.reductions`, ties broken by slot), so the same input always
gives the same line.
"""

from __future__ import annotations

import heapq
import random
import sys
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from typing import Final, Literal, TypeVar, cast, get_args

import attrs

from gapgrid.core.discrepancies import Discrepancies, DiscrepancyFrame, Step
from gapgrid.core.entry_probes import Start, search_entries
from gapgrid.core.evaluation import evaluation_for
from gapgrid.core.game import GAP_CODE, Engine, GameState
from gapgrid.core.head_levels import HeadLevels
from gapgrid.core.head_macros import head_macros
from gapgrid.core.macro import Macro
from gapgrid.core.notation import REDEAL, Action, Move
from gapgrid.core.open_heads import (
    Commit,
    Freeze,
    arrangement_win,
    commits,
    exchange_back,
    freeze_moves,
    freezes,
    plain_moves,
)
from gapgrid.core.packed_keys import ENTRY_BYTES as PACKED_ENTRY_BYTES
from gapgrid.core.packed_keys import PackedKeys
from gapgrid.core.reductions import (
    Reductions,
    no_redeal_to_come,
    reductions_for,
    shown_key,
    single_successor,
)
from gapgrid.core.replay import replay_from
from gapgrid.core.rollouts import Action as RolloutAction
from gapgrid.core.rollouts import NestedRollouts
from gapgrid.core.schedule import (
    DISCREPANCIES_MEMORY_PART,
    FIXED_HEADS_MEMORY_PART,
    FIXED_HEADS_SHARE,
    HEAD_LEVELS_SHARE,
    RESTART_UNIT,
    ROLLOUT_STEPS_PER_POSITION,
    beside_levels_due,
    fixed_heads_apply,
    luby,
    proofs_late,
    restarts_first,
    rollout_positions,
    rollout_share,
    rollouts_late,
)
from gapgrid.core.shortening import tightened, without_detours

Verdict = Literal["won", "lost", "unknown"]

SOLVER_VERSION: Final = "18"
"""Changes whenever the search could answer differently; studies record it.

1: restarts, beams and the two reductions as of commit 91a80e7 (the first study sitting); 2:
cheaper positions, beams balanced against the restarts, side-by-side pairs in the evaluation; 3:
a resumable best-first search beside the beams, both by an evaluation for every fill rule
(:mod:`core.evaluation`: Manhattan distances where cards slide); 4: nested rollouts
(:mod:`core.rollouts`) beside them, with twice the restarts' share; 5: won lines without their
detours and idle actions (:mod:`core.shortening`); 6: the rollouts at 16 times the restarts'
share where cards jump, once the restarts have had their first 50,000 positions
(:func:`core.schedule.rollout_share`); 7: playouts that mostly leave no gap nothing can fill
(:data:`core.rollouts.KEEP_GAPS_ALIVE`) and, where the fill also lets in cards that pair with
neither neighbour, mostly put a card beside a neighbour of its finished row
(:data:`core.rollouts.PAIR_UP`); 8: the depth-first restarts move heads between column-0 gaps
only as part of a macro that uses the move (:mod:`core.head_macros`); 9: once column 0 is full,
they choose a row's head only when its column 1 is filled (:mod:`core.open_heads`); 10: a
level-1 rollout search plays a few actions of its best game between two rounds of trials
(:data:`core.rollouts.SLOTS_PER_STRIDE`), and with two decks the rollouts get their full share
from the start (:func:`core.schedule.restarts_first`); 11: with one deck where cards jump, once
the rollouts are due :data:`core.schedule.ROLLOUTS_LATE` positions, they get one position (not
16) for each further one of the restarts (:func:`core.schedule.rollouts_late`), so a search of a
minute or more can prove losses; 12: when the table's memory runs out, the rollouts go on until
the time or the positions do (solver 11 answered ``unknown`` there; until then the two search
alike, position for position); 13: in single-round games where head macros apply, restarts in
which no head leaves column 0 get three quarters of the budget until they win, exhaust their
space or fill their half of the memory (:data:`core.schedule.FIXED_HEADS_SHARE`,
:data:`core.schedule.FIXED_HEADS_MEMORY_PART`); 14: in single-round games with one deck where
cards jump, past :data:`core.schedule.PROOFS_LATE` positions (about a minute here) the search is
left to the proofs: the complete restarts get seven eighths, the rollouts the rest, and the
other searches stop (:func:`core.schedule.proofs_late`); 15: there the fixed-heads restarts go
on, in levels that allow a few head macros along a line, with as many positions as the complete
restarts (:mod:`core.head_levels`, :data:`core.schedule.HEAD_LEVELS_SHARE`); 16: there the
rollouts' share goes to a limited discrepancy search along the first restart's order until it is
done, with as many positions as the complete restarts for its first two million
(:mod:`core.discrepancies`, :func:`core.schedule.beside_levels_due`); 17: the same search, its won
lines cut until neither cut shortens them (:func:`core.shortening.tightened`: the idle cut could
leave a detour behind), long idle stretches first (:data:`core.shortening.WINDOWS`), and a
budget of positions stops it at that count, or within a playout of it (it stopped at the next
multiple of 1,024); 18: once the tables fill half their memory (:data:`PACK_AT`), a family of
restarts packs its dead positions (:mod:`core.packed_keys`), counted at about half the bytes, so
the same memory holds about twice the proofs (a search whose tables never fill that far runs as
solver 17, position for position)."""

SearchMode = Literal["whole", "complete", "entries", "entries-shuffled",
                     "entries-freezes-first", "entries-lowest-first"]
"""What :func:`solve` runs.

* ``whole`` (the default): every search it has; the others find most wins far sooner.
* ``complete``: the complete restarts alone, with the whole budget. They are the search that
  proves a loss in a large space (past :func:`core.schedule.proofs_late` the only one), and
  the whole search gives them about half its positions there: a lost deal's proof took it
  about 2.3 times the positions it takes them alone (docs/solver.md, thirty-seventh sitting:
  game 900). For deals the whole search left unknown. They keep no rollouts for when their
  tables fill: the answer is then unknown at once, stopped by memory.
* ``entries``: the entry probes alone (:mod:`core.entry_probes`): the space before column 0
  fills for good, and a growing sample of the positions where it just has, each looked into
  with a small search. For deals the complete restarts left unknown: they find some wins far
  sooner (game 311 in 4.2 million positions, 344 in 21.6 million, where the complete restarts
  had not in 92 and 96 million), and prove a loss only in a space small enough to explore
  again in every round.
* ``entries-shuffled``: the entry probes with their first round's moves shuffled too, so that
  they meet the entries in another order than ``entries`` from the start: a second try at the
  deals ``entries`` left unknown (a cluster of winning entries late in one order may come
  early in another).
* ``entries-freezes-first``: the entry probes with their first round trying the Freezes and
  head macros before the card moves (the complete restarts' first order, here without the
  heuristic order): a third order, which won some of the deals ``entries`` won sooner, and
  others later (docs/solver.md, fifty-first sitting).
* ``entries-lowest-first``: the entry probes with their first round trying the moves from the
  lowest source slot first (the complete restarts' third order), the reverse of ``entries``:
  a fourth order, for the deals the other three left unknown.
"""

SEARCH_MODES: Final[tuple[SearchMode, ...]] = get_args(SearchMode)
"""Every :data:`SearchMode`, the default first (the command line's choices)."""


def version_of(search: SearchMode) -> str:
    """The version a search records: :data:`SOLVER_VERSION` for the whole search, with
    ``-`` and the search after it for the searches run alone (``-entries-freezes-first``),
    which may answer differently."""
    return SOLVER_VERSION if search == "whole" else f"{SOLVER_VERSION}-{search}"


DEFAULT_MEMORY: Final = 1 << 30
"""The transposition table's default cap, in bytes (1 GiB)."""

_Item = TypeVar("_Item")

_CHECK_EVERY: Final = 1024  # positions between looks at the clock

_FIRST_LOOK: Final = 16
"""Positions before the first look at the clock, which tells slow rules (a plugin's) from
fast ones. Before the first restart's cap (2,000 positions), so no search changes by it."""

_SLOW_POSITION: Final = 0.005
"""Seconds a position takes at least when the rules are slow: a plugin's rule that takes
milliseconds a call (gapgrid's own take some 50 microseconds a position in Python, and a
machine would have to be a hundred times slower). With such rules the clock is read about
every :data:`_SLOW_LOOK` seconds as well as every :data:`_CHECK_EVERY` positions (a search
of 1 s with a rule of 20 ms a call ran 83 s). Those looks only stop the search at its
seconds: no restart ends at them, so the search is the same position for position, and a
stall (packing a table, a suspended process) that makes fast rules look slow for a while
changes nothing but when the clock is read."""

_SLOW_LOOK: Final = 0.1
"""Seconds between looks at the clock when the rules are slow."""
_TABLE_ENTRY_OVERHEAD: Final = 100  # bytes a set entry costs beyond its key's own bytes

PACK_AT: Final = 0.5
"""The share of a search's memory its tables fill before a family of restarts packs its dead
positions (:mod:`core.packed_keys`: about half the bytes a position, but every search past
that point slower): a search that never fills its tables that far (a hint, a day's puzzle,
most searches of a minute) runs as it did, at its speed; one whose memory would end its
proofs holds about twice as many. Half, so that while a table is packed, its set and its
packed copy together stay within the memory. Counted in the tables' estimated bytes, so a
search explores the same positions every time."""


@attrs.frozen
class Budget:
    """How much a search may spend: any limit reached makes the answer ``unknown``."""

    seconds: float | None = 10.0
    """Wall-clock seconds, or None for no limit."""

    positions: int | None = None
    """Positions to explore, or None for no limit."""

    memory: int = DEFAULT_MEMORY
    """Bytes the transposition table may hold (an estimate from the key sizes). When they
    run out the answer can no longer be ``lost``; the rollouts go on for the seconds or
    positions left (with neither limit given, the search stops there)."""

    pack_at: float = PACK_AT
    """The share of :attr:`memory` the tables fill before the restarts pack their dead
    positions (:data:`PACK_AT`; tests ask for less, to see packed tables in a small search,
    or more than 1 for never): a number above 0."""

    def __attrs_post_init__(self) -> None:
        # (not an attrs validator: the compiled build cannot make this class with one)
        share: object = self.pack_at
        if not isinstance(share, (int, float)):  # as the compiled class refuses it
            raise TypeError(f"pack_at must be a number above 0, not {share!r}")
        if not share > 0:  # NaN too, which would never pack, silently
            raise ValueError(f"pack_at must be a number above 0, not {share!r}")


@attrs.frozen
class Progress:
    """What a long search reports now and then."""

    positions: int
    seconds: float
    budget: Budget


@attrs.frozen
class SearchResult:
    """A solver's answer about one position."""

    verdict: Verdict
    line: tuple[Action, ...]
    """For ``won``: the actions from the position to a win, replayed; empty otherwise."""

    positions: int
    """Positions explored by the searches (each distinct position once in each), plus one
    for every :data:`core.schedule.ROLLOUT_STEPS_PER_POSITION` actions the rollouts played."""

    seconds: float
    stopped_by: str | None = None
    """For ``unknown``: ``"seconds"``, ``"positions"`` or ``"memory"``."""

    version: str = SOLVER_VERSION
    """The solver that answered: :func:`version_of` the search that ran."""


class _Stop(Exception):
    """The budget ran out."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


def solve(state: GameState, budget: Budget | None = None,
          progress: Callable[[Progress], None] | None = None,
          reductions: Reductions | None = None, search: SearchMode = "whole") -> SearchResult:
    """Search from ``state`` for a win; see the module docstring for the answers.

    ``progress`` is called about every thousand positions. ``reductions``
    defaults to every reduction sound for the state's rules; tests pass
    :data:`core.reductions.NONE` to compare against a plain search.
    ``search`` ``"complete"`` runs the complete restarts alone (:data:`SearchMode`),
    with the same reductions; their first restart tries the moves in slot order
    rather than the heuristic one; ``"entries"`` the entry probes alone
    (:mod:`core.entry_probes`), ``"entries-shuffled"`` the same with every round's moves
    shuffled, ``"entries-freezes-first"`` with the first round's Freezes first and
    ``"entries-lowest-first"`` with its lowest source slots first. The
    answer's version is :func:`version_of` the search.
    """
    if search not in SEARCH_MODES:
        raise ValueError(f"search {search!r} is not one of {', '.join(SEARCH_MODES)}")
    if search != "whole":
        # Without the heuristic order, the schedule runs nothing but the restarts; the entry
        # probes take the same steps as they do, in their orders.
        chosen = reductions if reductions is not None else reductions_for(state.rules)
        reductions = attrs.evolve(chosen, heuristic_order=False)
    with interruptions_surfacing():
        result = _solve(state, budget or Budget(), progress, reductions, search)
    return result if search == "whole" else attrs.evolve(result, version=version_of(search))


_STARTS: Final[dict[SearchMode, Start]] = {
    "entries": "slots", "entries-shuffled": "shuffled", "entries-freezes-first": "freezes-first",
    "entries-lowest-first": "lowest-first"}
"""How the entry probes' round 0 orders the moves, for each search mode that runs them."""


def _solve(state: GameState, budget: Budget, progress: Callable[[Progress], None] | None,
           reductions: Reductions | None, search_mode: SearchMode) -> SearchResult:
    engine = Engine.from_state(state)
    chosen = reductions if reductions is not None else reductions_for(state.rules)
    search = _Search(engine, budget, progress, chosen)
    started = time.monotonic()
    try:
        line = (search_entries(search, _STARTS[search_mode])
                if search_mode in _STARTS else search.run())
    except _Stop as stop:
        # Once the table is full no loss can be proven: the memory is what ran out first,
        # whatever stopped the rollouts that went on.
        return SearchResult("unknown", (), search.positions, time.monotonic() - started,
                            stopped_by="memory" if search.table_full else stop.what)
    if line is None:
        return SearchResult("lost", (), search.positions, time.monotonic() - started)
    # The searches wander (the rollouts most): what the win does not need is cut out.
    line = list(tightened(state, line))
    seconds = time.monotonic() - started
    checked = replay_from(state, line)
    if not (checked.ok and checked.won):  # never hand out a line the engine would refuse
        raise AssertionError(f"the solver's line does not replay to a win: {checked.error}")
    return SearchResult("won", tuple(line), search.positions, seconds)


@contextmanager
def interruptions_surfacing() -> Iterator[None]:
    """Let a Ctrl-C during the block reach the caller as itself.

    A KeyboardInterrupt lands between any two steps of the interpreter, so
    it may leave a search's engine half way through a move; the code that
    takes the search's moves back as the interruption unwinds then fails on
    that engine (a slot not where the index says). Such a failure is the
    interruption's doing, not a fault of the search, and what the caller
    (``gapgrid solve``, a study, a notebook) is owed is the interruption.
    """
    handled_before = sys.exc_info()[1]  # the caller's own: not this block's to surface
    try:
        yield
    except Exception as error:
        cause: BaseException | None = error.__context__
        for _ in range(_CONTEXT_LINKS):
            if cause is None or cause is handled_before:
                break
            if isinstance(cause, KeyboardInterrupt):
                raise cause from None
            cause = cause.__context__
        raise


_CONTEXT_LINKS: Final = 64  # failures raised one while another unwound, looked back through


class _Restarts:
    """A family of depth-first restarts: its table of the positions it has proven dead, and
    the live positions of its restart under way, with their estimated bytes."""

    __slots__ = ("attempts", "dead", "dead_bytes", "finished", "live", "live_bytes",
                 "memory", "packed")

    def __init__(self, memory: int | None = None) -> None:
        self.dead: set[bytes] = set()
        self.packed: PackedKeys | None = None
        """Its dead positions once the tables fill :data:`PACK_AT` of the memory, packed
        (``dead`` then stays empty); each counted at :data:`core.packed_keys.ENTRY_BYTES`
        beyond its key."""
        self.live: dict[bytes, int] = {}
        self.live_bytes = 0
        self.dead_bytes = 0
        self.memory = memory
        """The bytes its tables may hold (None: up to the search's whole budget); past them a
        restart stops and the family is done, as when its space is explored."""
        self.attempts = 0
        self.finished = False
        """Whether the family is done: a restart ran to its end (its whole space explored),
        or its tables reached their memory. (Past :data:`core.schedule.PROOFS_LATE` the fixed-heads
        restarts go on in levels, afresh where they had explored their space.)"""

    @property
    def full(self) -> bool:
        """Whether its tables hold more than their memory."""
        return self.memory is not None and self.live_bytes + self.dead_bytes > self.memory

    def is_dead(self, key: bytes) -> bool:
        """Whether the position ``key`` is proven dead."""
        packed = self.packed
        return key in self.dead or (packed is not None and key in packed)

    def pack(self) -> int:
        """Move the dead positions into a packed table (:attr:`packed`); return the bytes
        this takes off their count."""
        self.packed = PackedKeys(self.dead)
        saved = len(self.dead) * (_TABLE_ENTRY_OVERHEAD - PACKED_ENTRY_BYTES)
        self.dead = set()
        self.dead_bytes -= saved
        return saved


class _Frame:
    """One position on the search path: its moves to try and its Tarjan numbers."""

    __slots__ = ("actions", "cursor", "index", "low")

    def __init__(self, actions: list[Step], index: int) -> None:
        self.actions = actions
        self.cursor = 0
        self.index = index
        self.low = index


BEAM_WIDTH: Final = 8
"""The first beam search's width; each later one doubles it, up to MAX_BEAM_DOUBLINGS times.

Narrow first beams are cheap on long games (a beam costs its width times the
line's length times the moves per position): from 8 rather than 32, at
100,000 positions a deal, Paganini II won 5 of 10 deals instead of 4 and
Rectangular Rovers 10 instead of 9, and 10 of the 30 anchors were won
instead of 9 at 120,000 positions (bench/README.md)."""

SHORTEN_WIDTH: Final = 32
"""The first beam's width in :func:`shorten` (a win is known there: wider beams, shorter lines)."""

MAX_BEAM_DOUBLINGS: Final = 8


class _Node:
    """A position a best-first or beam search keeps: how it was reached, and its board."""

    __slots__ = ("action", "codes", "depth", "parent", "redeals_used", "rng_state")

    def __init__(self, parent: _Node | None, action: tuple[int, int] | None,
                 engine: Engine) -> None:
        self.parent, self.action = parent, action
        self.depth: int = 0 if parent is None else parent.depth + 1
        self.codes = bytes(engine.codes)
        self.redeals_used, self.rng_state = engine.redeals_used, engine.rng_state

    def engine(self, like: Engine) -> Engine:
        """An engine at this position, for the game of ``like``."""
        cells = [None if code == GAP_CODE else code for code in self.codes]
        return Engine(like.rules, like.deal, cells, self.redeals_used, self.rng_state)

    def line(self) -> list[Action]:
        """The actions from the search's start to here."""
        steps: list[Action] = []
        node: _Node | None = self
        while node is not None and node.parent is not None:
            steps.append(REDEAL if node.action is None else Move(*node.action))
            node = node.parent
        return steps[::-1]


class _Search:
    """Restarted depth-first searches that share what they have proven lost.

    Depth-first search is heavy-tailed: one move order finds a win in a few
    thousand positions where another wanders for millions. So the search
    restarts with a different move order after a number of positions that
    grows along Luby's sequence, each restart keeping its own table of the
    positions it has seen.

    Nothing proven is thrown away: positions whose strongly connected
    component of the search graph was completely explored (Tarjan's
    algorithm, run along the search) have no winning continuation at all,
    whatever order found them, and go to a table of dead positions that
    every later restart skips. A restart that finishes exhausts the space:
    the start itself is then dead, and the answer is ``lost``.
    """

    def __init__(self, engine: Engine, budget: Budget,
                 progress: Callable[[Progress], None] | None, reductions: Reductions) -> None:
        self.engine = engine
        self.start = _Node(None, None, engine)
        """The position the search starts from."""
        self.table_full = False
        """Whether the table's memory ran out (the rollouts then go on alone)."""
        self.budget = budget
        self._memory = budget.memory  # read at every position: an attribute of this class
        self.progress = progress
        self.reductions = reductions
        self._head_macros = reductions.head_macros and single_successor(engine.rules)
        """Whether the restarts use head macros: only where their argument holds, whoever
        asked (:func:`core.head_macros.head_macros` relies on one deck's distinct heads)."""
        self._open_heads = self._head_macros and reductions.open_heads
        """Whether they leave the rows' heads open once column 0 is full."""
        self.open_rows: tuple[int, ...] = ()
        """The column-0 slots of the rows whose head is not chosen yet, in slot order."""
        self._row_starts = engine.run_shape.row_starts
        self.positions = 0
        self.started = time.monotonic()
        self.complete = _Restarts()
        """The restarts over every move: the search that proves losses."""
        self.fixed_heads = (_Restarts(budget.memory // FIXED_HEADS_MEMORY_PART)
                            if self._head_macros and fixed_heads_apply(engine.rules) else None)
        """The restarts in which no head leaves column 0 (:meth:`steps`), where they run: a
        smaller space, searched for wins only. Their dead positions are theirs alone."""
        self.head_levels: HeadLevels | None = None
        """Past :data:`core.schedule.PROOFS_LATE`, the levels the fixed-heads restarts go on in
        (:mod:`core.head_levels`); None before."""
        self.fixed_heads_done = False
        """Whether a fixed-heads restart of level 0 finished: no win where no head leaves
        column 0."""
        self.discrepancies: Discrepancies | None = None
        """Past :data:`core.schedule.PROOFS_LATE`, the limited discrepancy search
        (:mod:`core.discrepancies`); None before, and once its table is given back."""
        self._discrepancies_running = False
        """Whether the turn under way is the limited discrepancy search's."""
        self.head_limit = 0
        """The head macros the fixed-heads restart under way may play along its path."""
        self.macros_used = 0
        """The head macros on the depth-first path under way."""
        self._levels_running = False
        """Whether the restart under way is one of the head levels'."""
        self.table_bytes = 0
        self._slow_step: int | None = None
        """Positions between looks at the clock when the rules are slow, else None."""
        self._looked = (0, time.monotonic())  # the positions and the time at the last look
        self._regular_check = self._next_check()
        """The next look of the schedule every search keeps (every :data:`_CHECK_EVERY`
        positions): the looks at the clock between are the slow rules', and move it not."""
        self.next_check = min(self._regular_check, _FIRST_LOOK)
        self._redeal_ids: dict[object, int] = {}
        self.shuffler = random.Random(0)
        self._never_redeals = engine.rules.redeals == 0
        # Reductions.board_key's rows, known for the whole search when no redeal ever
        # comes: key() then asks shown_key directly (0: through board_key each time).
        self._key_step = (reductions.key_step(engine) if self._never_redeals
                          and type(reductions).board_key is Reductions.board_key else 0)
        self.evaluate, self.move_cost = evaluation_for(engine.rules)
        self.rollout_share = rollout_share(engine.rules)
        self.restarts_first = restarts_first(engine.rules)
        self.rollouts_late = rollouts_late(engine.rules)
        self.proofs_late = proofs_late(engine.rules)
        self.open: list[tuple[int, int, _Node]] | None = None
        """The best-first search's open positions (None until it starts)."""
        self.open_seen: set[bytes] = set()
        self.best_first_bytes = 0
        """The bytes the best-first search has charged to the table (its keys and nodes)."""
        self.best_engine: Engine | None = None
        """The engine the best-first search last expanded a position with."""
        self.best_at: _Node | None = None
        """That position."""
        self.counter = 0
        self.rollouts: Generator[int, None, list[RolloutAction] | None] | None = None
        """The nested rollouts' resumable search (None until it starts)."""
        self.rollouts_done = False
        """Whether the rollouts have nothing more to try (the start has no action)."""
        self.rollout_steps = 0
        """Playout actions not yet counted as a whole position."""

    # -- the position key ------------------------------------------------------

    def key(self) -> bytes:
        """The position: the board (reduced by symmetry when sound) and the redeal stage."""
        engine = self.engine
        step = self._key_step
        if step:  # no redeal ever: the key's rows are settled for the whole search
            return shown_key(engine.codes, self.open_rows, step)
        board = self.reductions.board_key(engine, self.open_rows)
        if self._never_redeals or engine.rules.redeals_left(engine.redeals_used) == 0:
            return board  # no redeal will ever come: the generator no longer matters
        stage = self._redeal_ids.setdefault((engine.redeals_used, engine.rng_state),
                                            len(self._redeal_ids))
        return board + stage.to_bytes(4, "little")

    def level_key(self) -> bytes:
        """The position for the fixed-heads restarts: :meth:`key` and the head macros the
        path may still play (:mod:`core.head_levels`: what can be won from a position
        depends on both, not on the level of the restart that asks)."""
        return self.key() + bytes((self.head_limit - self.macros_used,))

    def charge(self, key: bytes, kept: int = 0) -> None:
        """Count ``key``'s bytes, and ``kept`` more for the best-first search's node, as memory."""
        self.table_bytes += len(key) + _TABLE_ENTRY_OVERHEAD + kept
        if self.table_bytes > self._memory:
            self._make_room()

    def _make_room(self) -> None:
        """The table is full. Past :data:`core.schedule.PROOFS_LATE` the head levels, which look for
        wins only, give their tables back so that the proofs go on: at once when another search is
        running, at their restart's next position when it is theirs (it then stops, and they are
        done). The limited discrepancy search gives its table back before them, in the same
        way. Otherwise the search stops on memory (:meth:`run`)."""
        searching = self.discrepancies
        if searching is not None:  # it proves nothing: its table goes first
            if self._discrepancies_running:
                searching.memory = 0  # full: it stops at its next position, and is done
                return
            self._finish_discrepancies()
            if self.table_bytes <= self.budget.memory:
                return
        family = self.fixed_heads
        if self.head_levels is None or family is None or family.finished:
            raise _Stop("memory")
        if self._levels_running:
            family.memory = 0  # full: the restart under way stops and the levels are done
            return
        self._finish(family)
        if self.table_bytes > self.budget.memory:  # theirs were not enough
            raise _Stop("memory")

    # -- moves -----------------------------------------------------------------

    def children(self, attempt: int, pairs: Sequence[tuple[int, int]] | None = None
                 ) -> list[tuple[int, int] | None]:
        """The actions to try here, in this restart's order: card moves, then a redeal (None).

        The card moves are ``pairs`` when given (a subset of the legal ones), else all legal.
        """
        engine = self.engine
        if engine.won:
            return []
        if pairs is None:
            pairs = engine.legal_pairs()
        ordered: list[tuple[int, int] | None] = list(
            _reorder(self.reductions.explore(engine, pairs, attempt == 0, self.open_rows),
                     attempt, self.shuffler))
        if not self._never_redeals and engine.redeal_refusal() is None:
            ordered.append(None)
        return ordered

    def steps(self, attempt: int, fixed_heads: bool = False) -> list[Step]:
        """:meth:`children`, for the depth-first restarts: with head macros where they apply.

        Where :func:`core.head_macros.head_macros` applies, the moves of heads
        between column-0 gaps give way to its macros, and with open heads
        (:mod:`core.open_heads`) the moves that fill column 0 for good to
        Freezes and the moves into an open row's column 1 to Commits: in
        the first restart (the heuristic order) before the other moves,
        since each lengthens a run or places the last head; in the others
        after them, shuffled with them from the fourth on. (No redeal is
        then to come.)

        With ``fixed_heads`` (the fixed-heads restarts) there are no macros once
        the path holds :attr:`head_limit` of them (none at level 0): a head in
        column 0 then stays where it is, but for the arrangement open heads
        leave to be chosen when column 0 fills. Only wins are looked for
        there, so leaving moves out needs no argument; a win found is a line
        of legal moves all the same.
        """
        engine = self.engine
        if not self._head_macros or engine.won or not no_redeal_to_come(engine):
            return list(self.children(attempt))
        pairs = engine.legal_pairs()
        if self.open_rows:
            plain = plain_moves(pairs, self.open_rows)
            moves: list[Step] = list(self.children(attempt, plain))
            if len(moves) < len(plain):
                return moves  # a frozen run's chain, explored alone: it commutes with Commits
            return self._joined(attempt, moves, commits(engine, self.open_rows))
        frozen = freezes(engine, pairs) if self._open_heads else None
        if frozen is not None:
            pairs = frozen[0]
        split = head_macros(engine, pairs, last_gap=frozen is None)
        plain, macros = split if split is not None else (pairs, [])
        if fixed_heads and self.macros_used >= self.head_limit:
            macros = []  # a head in column 0 stays there (but for the open heads' choice)
        extra: list[Step] = [*macros, *(frozen[1] if frozen is not None else ())]
        return self._joined(attempt, list(self.children(attempt, plain)), extra)

    def _joined(self, attempt: int, moves: list[Step], extra: Sequence[Step]) -> list[Step]:
        """``moves`` and the ``extra`` steps in restart ``attempt``'s order (see :meth:`steps`)."""
        if not extra:
            return moves
        if attempt == 0:
            return [*extra, *moves]
        moves.extend(extra)
        if attempt > 2:
            shuffle(self.shuffler, moves)
        return moves

    def do(self, action: Step) -> None:
        """Play one step of the search on its engine: a move, a redeal (None), or one of
        the head macros' and open heads' compound steps (keeping their counts up to date)."""
        engine = self.engine
        if action is None:
            refusal = engine.redeal()
            assert refusal is None
        elif type(action) is Macro:
            self.macros_used += 1
            for source, target in action:
                engine.play(source, target)
        elif type(action) is Freeze:
            engine.play(action.source, action.gap)
            self.open_rows = self._row_starts
        elif type(action) is Commit:
            row = action.row
            if action.head_row != row:
                engine.exchange(row, action.head_row)
            engine.play(action.source, row + 1)
            self.open_rows = tuple(start for start in self.open_rows if start != row)
        else:
            assert isinstance(action, tuple)
            engine.play(*action)

    def undo(self, action: Step) -> None:
        """Take back the step :meth:`do` played last, leaving the engine as it was before."""
        engine = self.engine
        if type(action) is tuple:  # a plain move, most of the steps: first
            source, target = cast(tuple[int, int], action)  # not a Macro: type() is tuple
            engine.unplay(source, target)
        elif action is None:
            engine.undo()
        elif type(action) is Macro:
            self.macros_used -= 1
            for source, target in reversed(action):
                engine.unplay(source, target)
        elif type(action) is Freeze:
            engine.unplay(action.source, action.gap)
            self.open_rows = ()
        elif type(action) is Commit:
            row = action.row
            engine.unplay(action.source, row + 1)
            if action.head_row != row:
                engine.exchange(row, action.head_row)
            self.open_rows = tuple(sorted((*self.open_rows, row)))
        else:
            raise TypeError(f"not a step of the search: {action!r}")

    def line(self, path: Sequence[Step]) -> list[Action]:
        """The line of a depth-first path that ends in a win, the engine at its end.

        Macros give their moves one by one, None a redeal; a Freeze the head
        moves that make column 0's arrangement at the end, a Commit its move
        (:mod:`core.open_heads`).
        """
        line: list[Action] = []
        cells, starts = self.engine.cells, self._row_starts
        for step in path:
            if step is None:
                line.append(REDEAL)
            elif type(step) is Freeze:
                final = [cells[start] for start in starts]
                moved = next(card for card in final
                             if card is not None and card not in step.before)
                line.extend(Move(*pair) for pair in freeze_moves(step, starts, final, moved))
            elif type(step) is Commit:
                line.append(Move(step.source, step.row + 1))
            elif type(step) is Macro:
                line.extend(Move(source, target) for source, target in step)
            else:
                assert isinstance(step, tuple)
                line.append(Move(*step))
        return line

    # -- the search ------------------------------------------------------------

    def run(self) -> list[Action] | None:
        """Return a winning line, or None when none exists; raise :class:`_Stop` at the budget.

        Depth-first restarts take turns with beam searches of growing width,
        with one best-first search and with the nested rollouts, the last
        two resuming where they stopped. For each position of the restarts
        the best-first search and the beams get half a position each and
        the rollouts two; past the restarts' first :func:`core.schedule.restarts_first`
        (none with two decks), the rollouts get :func:`core.schedule.rollout_share`; once
        they are due :func:`core.schedule.rollouts_late` (one deck, cards that jump), one
        (:func:`core.schedule.rollout_positions`). The beams win most sliding puzzles, the
        rollouts most hard deals where cards jump, the best-first search
        some the others miss, the restarts small spaces and losses. A
        restart proves a loss by finishing, the best-first search by
        running out of positions to expand.

        In single-round games where head macros apply (:func:`core.schedule.fixed_heads_apply`),
        the fixed-heads restarts get :data:`core.schedule.FIXED_HEADS_SHARE` positions for
        each position of all the others, until they win or have explored
        their space: a small one, where most of these deals are won. Past
        :func:`core.schedule.proofs_late` positions (single-round games, one deck, cards
        that jump), the best-first search and the beams stop; the complete
        restarts get as many positions as a limited discrepancy search
        (:mod:`core.discrepancies`) for its first
        :data:`core.schedule.DISCREPANCIES_FIRST`, then seven for each one of
        its (and once it is done, of the rollouts'), and the fixed-heads
        restarts as many as the complete ones, in levels that allow a few head
        macros along a line (:mod:`core.head_levels`).
        """
        if self.engine.won:
            return []
        try:
            return self._take_turns()
        except _Stop as stop:
            if stop.what != "memory" or not self._rollouts_outlast_memory():
                raise
        # The table is full: the searches that need it stop, and the rollouts, which need
        # none, go on until the seconds or the positions run out.
        self.table_full = True
        self._release_tables()
        line = self.nested_rollouts(sys.maxsize)
        if line is None:  # the rollouts have nothing more to try
            raise _Stop("memory")
        return line

    def _rollouts_outlast_memory(self) -> bool:
        """Whether the rollouts go on once the table is full: when they are part of this
        search, have something to try, and a budget of seconds or positions will stop them."""
        budget = self.budget
        return (self.reductions.heuristic_order and not self.rollouts_done
                and (budget.seconds is not None or budget.positions is not None))

    def _release_tables(self) -> None:
        """Give back the tables of the restarts and of the best-first search."""
        self.complete = _Restarts()
        self.fixed_heads = None
        self.discrepancies = None
        self.open_seen = set()
        self.best_first_bytes = 0
        self.open = None
        self.best_engine = self.best_at = None
        self.table_bytes = 0

    def _take_turns(self) -> list[Action] | None:
        """:meth:`run`'s schedule, until a search wins or proves a loss, or the budget
        (the table's memory included) runs out."""
        attempt = in_restarts = in_beams = in_best_first = in_rollouts = beams = in_fixed = 0
        in_discrepancies = 0
        beams_exhausted = False
        at_proofs: tuple[int, int] | None = None  # restarts', rollouts' positions at the knee
        while True:
            attempt += 1
            cap = luby(attempt) * RESTART_UNIT
            before = self.positions
            outcome = self.attempt(attempt - 1, self.positions + cap)
            in_restarts += self.positions - before
            if outcome is not None:
                return outcome or None  # [] means the start is dead: lost
            if not self.reductions.heuristic_order:
                continue
            proofs = self.proofs_late is not None and self.positions >= self.proofs_late
            if proofs and at_proofs is None:
                at_proofs = (in_restarts, in_rollouts)
                self._leave_to_proofs()
            if at_proofs is not None:
                # Left to the proofs: beside them and the head levels, the limited discrepancy
                # search, and once it is done the rollouts, get what beside_levels_due says.
                beside = beside_levels_due(in_restarts - at_proofs[0])
                before = self.positions
                line = self.discrepancy_turn(beside - (in_rollouts - at_proofs[1]))
                in_discrepancies += self.positions - before
                if line:
                    return line
                rollouts_due = at_proofs[1] + beside - in_discrepancies
            else:
                # The best-first search and beams get half as many positions as the restarts
                # each, the rollouts as many as rollout_positions makes due.
                share = in_restarts // 2 - in_best_first
                if share > 0:
                    before = self.positions
                    outcome = self.best_first(self.positions + share)
                    in_best_first += self.positions - before
                    if outcome is not None:
                        return outcome or None
                while 2 * in_beams < in_restarts and not beams_exhausted:
                    # A beam runs to its end (cut short, its work would be lost), so it may
                    # overdraw its share; the next one waits until the restarts catch up.
                    before = self.positions
                    line = self.beam(BEAM_WIDTH << min(beams, MAX_BEAM_DOUBLINGS))
                    beams += 1
                    in_beams += self.positions - before
                    if line is not None:
                        return line
                    beams_exhausted = self.positions == before  # nothing new to look at
                rollouts_due = rollout_positions(self.rollout_share, in_restarts,
                                                 self.restarts_first, self.rollouts_late)
            share = rollouts_due - in_rollouts
            if share > 0 and not self.rollouts_done:
                before = self.positions
                line = self.nested_rollouts(self.positions + share)
                in_rollouts += self.positions - before
                if line is not None:
                    return line
            if at_proofs is not None:
                line = self._head_levels_turn(
                    HEAD_LEVELS_SHARE * (in_restarts - at_proofs[0]))
                if line:
                    return line
                continue
            family = self.fixed_heads
            while (family is not None and not family.finished
                   and in_fixed < FIXED_HEADS_SHARE * (self.positions - in_fixed)):
                # Whole restarts, as the beams: the next turn waits until the share catches up.
                family.attempts += 1
                before = self.positions
                line = self.attempt(family.attempts - 1,
                                    self.positions + luby(family.attempts) * RESTART_UNIT,
                                    family)
                in_fixed += self.positions - before
                if line:
                    return line
                self.fixed_heads_done = line == []  # no win where no head leaves column 0
                if self.fixed_heads_done or family.full:  # or its tables reached their part
                    self._finish(family)                   # of the memory

    def _head_levels_turn(self, due: int) -> list[Action] | None:
        """Past :data:`core.schedule.PROOFS_LATE`: whole restarts of the fixed-heads restarts'
        levels (:mod:`core.head_levels`), each to the level that has spent the fewest positions,
        until they have spent ``due`` positions since the knee, found a win (returned), filled their
        part of the memory, or explored every level up to :data:`core.head_levels.MAX_HEAD_LEVEL`
        (then they are done, their tables given back)."""
        family, levels = self.fixed_heads, self.head_levels
        if family is None or levels is None:
            return None
        while not family.finished and levels.total < due:
            level = levels.next()
            levels.attempts[level] += 1
            attempts = levels.attempts[level]
            self.head_limit = level
            before = self.positions
            self._levels_running = True
            try:
                line = self.attempt(attempts - 1,
                                    self.positions + luby(attempts) * RESTART_UNIT, family)
            finally:
                self._levels_running = False
            levels.record(level, self.positions - before)
            if line:
                return line
            if line == []:
                levels.done(level)
            if family.full or levels.finished:
                self._finish(family)
        return None

    def discrepancy_turn(self, due: int) -> list[Action] | None:
        """Go on with the limited discrepancy search (:mod:`core.discrepancies`) until it has
        spent ``due`` positions in all; return a winning line, or None (at ``due``, or done).

        The search's path is played again from the start, where the last turn took it back,
        and taken back at the end, so the engine is left as it was. An iteration explores
        the steps of each position in the first restart's order (:meth:`steps` of order 0),
        the i-th of them (from 0) for i of the discrepancies left there; when one ends
        having left nothing out for want of discrepancies, the search is done.
        """
        searching = self.discrepancies
        if searching is None or searching.finished or searching.spent >= due:
            return None
        frames, path, explored_with = searching.frames, searching.path, searching.explored_with
        for step in path:
            self.do(step)
        until = self.positions + due - searching.spent
        before = self.positions
        self._discrepancies_running = True
        try:
            while True:
                if not frames:  # an iteration ends (or none has started yet)
                    if not searching.next_iteration():
                        self._finish_discrepancies()
                        return None
                    self._explored(searching, self.key(), searching.limit)
                    frames.append(DiscrepancyFrame(self.steps(0), searching.limit))
                    continue
                frame = frames[-1]
                if frame.cursor == len(frame.steps) or frame.cursor > frame.left:
                    if frame.cursor < len(frame.steps):
                        searching.cut = True  # the later steps cost more than is left
                    frames.pop()
                    if path:
                        self.undo(path.pop())
                    continue
                step = frame.steps[frame.cursor]
                left = frame.left - frame.cursor
                frame.cursor += 1
                self.do(step)
                key = self.key()
                if explored_with.get(key, -1) >= left:  # explored already, with as many left
                    self.undo(step)
                    continue
                self._explored(searching, key, left)
                path.append(step)
                self.positions += 1
                if self.engine.won:  # before the budget, as in the restarts
                    return self._discrepancies_won(searching)
                if self.positions >= self.next_check:
                    self.check_budget()
                steps = self.steps(0)
                if not steps and self.open_rows:  # won, maybe, with the open heads arranged
                    exchanges = arrangement_win(self.engine, self.open_rows)
                    if exchanges is not None:
                        line = self.line(path)
                        exchange_back(self.engine, exchanges)
                        return self._discrepancies_won(searching, line)
                frames.append(DiscrepancyFrame(steps, left))
                if searching.full:  # its part of the memory, or the table's, is used up
                    self._unwind(path)
                    self._finish_discrepancies()
                    return None
                if self.positions >= until:
                    for taken in reversed(path):  # kept for the next turn to play again
                        self.undo(taken)
                    return None
        finally:
            self._discrepancies_running = False
            searching.spent += self.positions - before

    def _explored(self, searching: Discrepancies, key: bytes, left: int) -> None:
        """Record that ``key`` is explored with ``left`` discrepancies left (a new key is
        charged to the table)."""
        if key not in searching.explored_with:
            size = len(key) + _TABLE_ENTRY_OVERHEAD
            searching.table_bytes += size
            self.charge(key)
        searching.explored_with[key] = left

    def _discrepancies_won(self, searching: Discrepancies,
                           line: list[Action] | None = None) -> list[Action]:
        """The winning line of the limited discrepancy search's path (``line`` when already
        made), the path taken back and the search done."""
        won = self.line(searching.path) if line is None else line
        self._unwind(searching.path)
        searching.frames.clear()
        searching.finished = True
        return won

    def _finish_discrepancies(self) -> None:
        """The limited discrepancy search is done: its table is given back."""
        searching = self.discrepancies
        if searching is None:
            return
        searching.finished = True
        self.table_bytes -= searching.table_bytes
        self.discrepancies = None

    def _leave_to_proofs(self) -> None:
        """Past :data:`core.schedule.PROOFS_LATE`: the best-first search stops for good and gives
        its table back to the complete restarts (it is never called again: started afresh with an
        empty heap and its old table, it would find nothing new and answer lost), and the
        fixed-heads restarts go on in levels (:mod:`core.head_levels`): from level 0 where they have
        not finished it, keeping their tables, from level 1 afresh where they have explored it
        (their level-0 table was given back then). Where they filled their part of the memory, they
        stay done. The limited discrepancy search starts (:mod:`core.discrepancies`), with a part
        of the memory of its own. From here on, a table that fills makes it, then the levels, give
        theirs back before the proofs stop (:meth:`_make_room`)."""
        family = self.fixed_heads
        if family is not None and (not family.finished or self.fixed_heads_done):
            if family.finished:
                family = self.fixed_heads = _Restarts(self.budget.memory
                                                      // FIXED_HEADS_MEMORY_PART)
            done_before = 1 if self.fixed_heads_done else 0
            self.head_levels = HeadLevels(done_before, family.attempts)
        self.discrepancies = Discrepancies(self.budget.memory // DISCREPANCIES_MEMORY_PART)
        self.table_bytes -= self.best_first_bytes
        self.best_first_bytes = 0
        self.open_seen = set()
        self.open, self.best_engine, self.best_at = None, None, None

    def _finish(self, family: _Restarts) -> None:
        """Mark ``family`` done and give back its tables: what they hold proves nothing."""
        family.finished = True
        self.table_bytes -= family.dead_bytes + family.live_bytes
        family.dead, family.live, family.packed = set(), {}, None
        family.dead_bytes = family.live_bytes = 0

    def nested_rollouts(self, until: int) -> list[Action] | None:
        """Go on with the nested rollouts (:mod:`core.rollouts`) until ``until`` positions.

        Every :data:`core.schedule.ROLLOUT_STEPS_PER_POSITION` actions a playout plays
        count as a position. Returns the winning
        line, or None (at ``until``, or when the rollouts have nothing to
        try). It resumes where the last call stopped; the search's engine is
        not touched (the rollouts have their own).
        """
        if self.rollouts is None:
            # From the search's start, not from self.engine: a restart stopped by the
            # table's memory leaves it part way along its path.
            start = self.start.engine(self.engine)
            self.rollouts = NestedRollouts(start, self.evaluate).steps()
        try:
            while self.positions < until:
                whole, self.rollout_steps = divmod(self.rollout_steps + next(self.rollouts),
                                                   ROLLOUT_STEPS_PER_POSITION)
                self.positions += whole
                if self.positions >= self.next_check:
                    self.check_budget()
        except StopIteration as finished:
            self.rollouts_done = True
            line: list[RolloutAction] | None = finished.value
            if line is not None:
                return [REDEAL if action is None else Move(*action) for action in line]
        return None

    def best_first(self, until: int) -> list[Action] | None:
        """Expand the best-looking positions until ``until`` positions in all.

        Greedy best-first search by the game's evaluation
        (:mod:`core.evaluation`), less the move cost it gives for each move
        made: the open positions wait in a heap, ties going to the position
        found last (a dive, and its engine needs no rebuilding), so the same
        input always gives the same line. It resumes where the last call
        stopped. Returns the winning line; ``[]`` when every position reachable
        has been seen and none is won (the space is exhausted: lost, as sound as
        a finished restart, since positions are skipped only when seen before or
        proven dead, and moves only by the sound reductions); or
        None at ``until``. The engine is left as it was.
        """
        start = self.engine
        if self.open is None:
            root = _Node(None, None, start)
            self.open = [(0, 0, root)]
            self.open_seen.add(self.key())
        heap, seen, proofs = self.open, self.open_seen, self.complete
        evaluate, move_cost = self.evaluate, self.move_cost
        try:
            while heap:
                if self.positions >= until:
                    return None
                node = heapq.heappop(heap)[2]
                engine = self.best_engine
                if engine is not None and node.parent is self.best_at and node.action is not None:
                    engine.play(*node.action)  # a child of the last position: no rebuilding
                else:
                    engine = node.engine(start)
                self.engine, self.best_engine, self.best_at = engine, None, node
                for action in self.children(0):
                    self.do(action)
                    key = self.key()
                    if key in seen or proofs.is_dead(key):
                        self.undo(action)
                        continue
                    seen.add(key)
                    self.best_first_bytes += len(key) + _TABLE_ENTRY_OVERHEAD + len(key)
                    self.charge(key, len(key))
                    self.positions += 1
                    child = _Node(node, action, engine)
                    if engine.won:  # before the budget, as in the restarts
                        return child.line()
                    if self.positions >= self.next_check:
                        self.check_budget()
                    self.counter += 1
                    heapq.heappush(heap, (move_cost * child.depth - evaluate(engine),
                                         -self.counter, child))
                    self.undo(action)
                self.best_engine = engine  # back at ``node``, every action taken back
            return []
        finally:
            self.engine = start

    def beam(self, width: int) -> list[Action] | None:
        """A beam search: keep the ``width`` best new positions of each depth; None if it dies out.

        Positions already proven dead, or met before in this beam, are not
        kept. The engine is left as it was. It finds the shallowest wins
        among the positions it keeps: :func:`shorten` uses it.
        """
        start = self.engine
        level: list[_Node] = [_Node(None, None, start)]
        seen: set[bytes] = set()
        evaluate = self.evaluate
        try:
            while level:
                scored: list[tuple[int, int, _Node]] = []
                for node in level:
                    self.engine = engine = node.engine(start)
                    for action in self.children(0):
                        self.do(action)
                        key = self.key()
                        if key not in seen and not self.complete.is_dead(key):
                            seen.add(key)
                            self.positions += 1
                            child = _Node(node, action, engine)
                            if engine.won:  # before the budget, as in the restarts
                                return child.line()
                            if self.positions >= self.next_check:
                                self.check_budget()
                            scored.append((-evaluate(engine), len(scored), child))
                        self.undo(action)
                scored.sort(key=lambda entry: entry[:2])
                level = [node for _, _, node in scored[:width]]
            return None
        finally:
            self.engine = start

    def attempt(self, order: int, cap: int, family: _Restarts | None = None
                ) -> list[Action] | None:
        """One depth-first search of ``family`` (the complete restarts unless given) in move
        order ``order``, until ``cap`` positions in all.

        Returns the winning line, ``[]`` when the search finished (no win in
        the family's space), or None when it reached the cap.
        """
        family = family if family is not None else self.complete
        fixed_heads = family is not self.complete
        engine, dead, live, packed = self.engine, family.dead, family.live, family.packed
        pack_above = self.budget.memory * self.budget.pack_at
        key_of = self.level_key if fixed_heads else self.key
        self.macros_used = 0  # the path starts empty
        self.shuffler = random.Random(order)
        live.clear()
        self.table_bytes -= family.live_bytes  # what its last restart left unproven is forgotten
        family.live_bytes = 0
        scc_stack: list[bytes] = []
        root = key_of()
        if family.is_dead(root):
            return []
        counter = 0
        live[root] = counter
        scc_stack.append(root)
        frames = [_Frame(self.steps(order, fixed_heads), counter)]
        path: list[Step] = []
        while frames:
            frame = frames[-1]
            if frame.cursor == len(frame.actions):
                frames.pop()
                if frame.low == frame.index:  # a component is complete: all of it is dead
                    while True:
                        member = scc_stack.pop()
                        member_index = live.pop(member)
                        size = len(member) + _TABLE_ENTRY_OVERHEAD
                        family.live_bytes -= size
                        if packed is None:
                            dead.add(member)
                            family.dead_bytes += size
                        else:
                            packed.add(member)
                            family.dead_bytes += len(member) + PACKED_ENTRY_BYTES
                            self.table_bytes -= _TABLE_ENTRY_OVERHEAD - PACKED_ENTRY_BYTES
                        if member_index == frame.index:
                            break
                    if packed is None and self.table_bytes > pack_above:
                        self.table_bytes -= family.pack()
                        dead, packed = family.dead, family.packed
                if frames:
                    parent = frames[-1]
                    parent.low = min(parent.low, frame.low)
                    self.undo(path.pop())
                continue
            action = frame.actions[frame.cursor]
            frame.cursor += 1
            if type(action) is tuple:
                source, target = cast(tuple[int, int], action)  # not a Macro: type() is tuple
                engine.play(source, target)
            else:
                self.do(action)
            key = key_of()
            if key in dead or (packed is not None and key in packed):
                self.undo(action)
                continue
            seen_index = live.get(key)
            if seen_index is not None:
                if seen_index < frame.low:
                    frame.low = seen_index
                self.undo(action)
                continue
            counter += 1
            live[key] = counter
            scc_stack.append(key)
            self.charge(key)
            family.live_bytes += len(key) + _TABLE_ENTRY_OVERHEAD
            path.append(action)
            if family.full:  # only the fixed-heads restarts have a memory of their own
                self._unwind(path)
                return None
            self.positions += 1
            if engine.won:  # before the budget: a win at its last position is within it
                line = self.line(path)
                self._unwind(path)
                return line
            # Only the looks every search keeps end a restart: the slow rules' looks at the
            # clock between them change nothing the search does.
            if (self.positions >= self.next_check and self.check_budget()
                    and self.positions >= cap):
                self._unwind(path)
                return None
            steps = self.steps(order, fixed_heads)
            if not steps and self.open_rows:  # won, maybe, with the open heads arranged
                exchanges = arrangement_win(engine, self.open_rows)
                if exchanges is not None:
                    line = self.line(path)
                    exchange_back(engine, exchanges)
                    self._unwind(path)
                    return line
            frames.append(_Frame(steps, counter))
        return []

    def _unwind(self, path: list[Step]) -> None:
        """Take the path back, so the next restart starts from the given position."""
        while path:
            self.undo(path.pop())

    def _next_check(self) -> int:
        """The position count at which to look at the budget next: in :data:`_CHECK_EVERY`
        positions, or at a budget of positions if that comes first, so that a search stops
        at the positions it was given (a budget of 100 searched 1,024, as one of 200 did; the
        rollouts, which count a whole playout at once, may pass it by that playout)."""
        due = self.positions + _CHECK_EVERY
        limit = self.budget.positions
        return due if limit is None else min(due, max(limit, self.positions + 1))

    def check_budget(self) -> bool:
        """Stop the search (:class:`_Stop`) once its positions or seconds are spent; else
        report progress, set when to look again, and return whether this was a look of the
        schedule every search keeps (not one of the slow rules' looks at the clock)."""
        now = time.monotonic()
        looked_positions, looked_at = self._looked
        if self.positions > looked_positions:
            per_position = (now - looked_at) / (self.positions - looked_positions)
            self._slow_step = (None if per_position < _SLOW_POSITION
                               else max(1, int(_SLOW_LOOK / per_position)))
        self._looked = (self.positions, now)
        regular = self.positions >= self._regular_check
        if regular:
            self._regular_check = self._next_check()
        self.next_check = (self._regular_check if self._slow_step is None
                           else min(self._regular_check, self.positions + self._slow_step))
        budget, seconds = self.budget, now - self.started
        if budget.positions is not None and self.positions >= budget.positions:
            raise _Stop("positions")
        if budget.seconds is not None and seconds >= budget.seconds:
            raise _Stop("seconds")
        if self.progress is not None:
            self.progress(Progress(self.positions, seconds, budget))
        return regular


def _reorder(moves: Sequence[tuple[int, int]], order: int, shuffler: random.Random
             ) -> Sequence[tuple[int, int]]:
    """The moves in restart ``order``'s order (all of them: only the order changes).

    Order 0 keeps the heuristic order; 1 tries the highest source slot first
    (the order of the research solver Solvitaire); 2 the lowest; later
    restarts shuffle with ``shuffler``, a generator seeded by the restart's
    number, so the same search always makes the same choices.
    """
    if len(moves) < 2 or order == 0:
        return moves
    if order == 1:
        return sorted(moves, reverse=True)
    if order == 2:
        return sorted(moves)
    shuffled = list(moves)
    shuffle(shuffler, shuffled)
    return shuffled


def shuffle(shuffler: random.Random, items: list[_Item]) -> None:
    """Shuffle ``items`` in place as ``shuffler.shuffle(items)`` does in Python 3.11.

    Written out because the restarts shuffle at almost every position, and
    compiled with the search this costs no call into Python's own code; and
    so that a restart's order is the same under every Python version. The
    same draws as Python 3.11's: for each slot from the last down to the
    second, a slot at or before it drawn from ``getrandbits`` by rejection.
    """
    draw = shuffler.getrandbits
    for slot in range(len(items) - 1, 0, -1):
        choices = slot + 1
        bits = choices.bit_length()
        other = draw(bits)
        while other >= choices:
            other = draw(bits)
        items[slot], items[other] = items[other], items[slot]


def shorten(state: GameState, line: Sequence[Action], seconds: float = 1.0,
            positions: int | None = None) -> tuple[Action, ...]:
    """A winning line from ``state`` no longer than ``line`` (itself a winning line).

    A bounded pass: every detour that comes back to a position already
    passed is cut out; then, while the budget lasts, beam searches of growing
    width look for shorter wins (a beam finds the shallowest win among the
    positions it keeps). The result is replayed by the engine like any line
    the solver gives. With ``positions``, the pass stops at that count, so
    the same line always gives the same result (a puzzle's par does not
    depend on the machine's load) as long as ``seconds`` is not reached first.
    """
    with interruptions_surfacing():
        return _shorten(state, line, seconds, positions)


def _shorten(state: GameState, line: Sequence[Action], seconds: float,
             positions: int | None) -> tuple[Action, ...]:
    shortest = without_detours(state, line)
    search = _Search(Engine.from_state(state), Budget(seconds=seconds, positions=positions),
                     None, reductions_for(state.rules))
    width = SHORTEN_WIDTH
    try:
        while width <= SHORTEN_WIDTH << MAX_BEAM_DOUBLINGS:
            found = search.beam(width)
            if found is not None and len(found) < len(shortest):
                shortest = tuple(found)
            width *= 2
    except _Stop:
        pass
    checked = replay_from(state, shortest)
    if not (checked.ok and checked.won):
        raise AssertionError("a shortened line does not replay to a win")
    return shortest


def line_text(line: Sequence[Action]) -> list[str]:
    """The line in notation (``"12-25"``, ``"redeal"``)."""
    return [str(action) for action in line]

