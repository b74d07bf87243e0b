"""Use cases of the solver: solve a position, and hint the next action of a winning line.

A position is a game number and the actions played since the deal, or, for
rules without a redeal, a layout given as rows of card codes (the rows of
``gapgrid deal --json``). A redeal's shuffle continues the generator the game
number seeded, so a layout alone cannot say what a redeal would deal: rules
with redeals need the game number, and a layout is refused for them.

Both use cases are bounded: the search gets a budget of seconds (at most
:data:`MAX_BUDGET_SECONDS`) and of table memory, and answers ``unknown`` when
it runs out. Their documents carry the replay's fields (``ok``, ``error``,
``rows``, ... as ``gapgrid verify --json`` has them), so an illegal move is
answered the way ``/v1/moves`` answers it: ``ok`` false and the refused move,
and no search.

A hint first looks for the position on winning lines already known (a daily
puzzle's certified line, lines found by earlier hints: :class:`LineMemo`), so
that following hints one action at a time walks one line to the win instead of
asking the solver afresh at every step; only a position on no known line
starts a search.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, Final

import attrs

from gapgrid.api import json_documents, strict_json
from gapgrid.api.services import games
from gapgrid.api.services.errors import invalid
from gapgrid.core.board import Board, BoardError
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import Engine, GameState, new_game
from gapgrid.core.notation import Action
from gapgrid.core.replay import ReplayResult, redeals_in, replay, replay_from
from gapgrid.core.rules import Rules
from gapgrid.core.search import (
    Budget,
    Progress,
    SearchMode,
    SearchResult,
    solve,
    version_of,
)

DEFAULT_BUDGET_SECONDS: Final = 10.0
"""The search time ``gapgrid solve`` and ``gapgrid hint`` allow unless told otherwise."""

MAX_BUDGET_SECONDS: Final = 3600.0
"""The longest search one command may ask for: an hour."""

HINT_SECONDS: Final = 1.0
"""The search time of a hint over HTTP: a player waits for it."""

HINT_MEMORY: Final = 256 << 20
"""The transposition table's cap for a hint over HTTP (a second's search fills a few MB)."""

LAYOUT_MAX_BYTES: Final = 64 * 1024
"""The largest layout file read: the rows of the biggest board take under 2 KB."""

LAYOUT_PLACEHOLDER_DEAL: Final = DealNumber(1)
"""The game number a layout's state carries: with no redeal, nothing ever reads it."""


# -- positions ---------------------------------------------------------------------------------


def budget_seconds(seconds: float | None, default: float = DEFAULT_BUDGET_SECONDS) -> float:
    """``seconds`` as a search budget: more than 0 and at most :data:`MAX_BUDGET_SECONDS`."""
    if seconds is None:
        return default
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not (
            math.isfinite(seconds) and 0 < seconds <= MAX_BUDGET_SECONDS):
        raise invalid(f"the budget must be a number of seconds above 0 and at most "
                      f"{MAX_BUDGET_SECONDS:g} (an hour), not {seconds!r}", "budget")
    return float(seconds)


@attrs.frozen
class Replayed:
    """A position to search from: the replay that reached it, and the game it belongs to."""

    rules: Rules
    deal: DealNumber | None
    """The game number, or None for a position given as a layout."""

    result: ReplayResult

    @property
    def state(self) -> GameState:
        """The position reached (before the refused move, if one was refused)."""
        return self.result.state

    @property
    def redeals_cap_left(self) -> int:
        """How many more redeals the game may ask for under :data:`games.MAX_REDEALS`
        (the redeals that led here count, undone ones included)."""
        return games.redeals_cap_left(self.result)

    @property
    def search_state(self) -> GameState:
        """The position as a search sets out from it: where :data:`games.MAX_REDEALS` allows
        fewer redeals than the rules have left (unlimited ones, say), rules that have just
        those left, so that no line found asks for a redeal the game would then refuse."""
        state = self.state
        left = state.rules.redeals_left(state.redeals_used)
        if left is not None and left <= self.redeals_cap_left:
            return state
        capped = attrs.evolve(state.rules, redeals=state.redeals_used + self.redeals_cap_left)
        return attrs.evolve(state, rules=capped)

    def document(self) -> dict[str, Any]:
        """The replay's fields, as ``gapgrid verify --json`` has them (``deal`` null for a
        layout)."""
        document = json_documents.verify_json(self.rules, self.deal or LAYOUT_PLACEHOLDER_DEAL,
                                              self.result, redeals_cap_left=self.redeals_cap_left)
        if self.deal is None:
            document["deal"] = None
        return document


def replayed(catalogue: Catalogue, *, variant: str, deal: str, moves: Iterable[str],
             options: Mapping[str, str | int] | None = None, max_moves: int | None = None
             ) -> Replayed:
    """The position ``moves`` lead to in game ``deal`` of ``variant``: every move checked
    as notation first (a request's, whose count is checked already), or, with
    ``max_moves``, read one by one as :func:`games.replay_stream` reads them (a command's,
    from standard input maybe)."""
    rules = games.game_rules(catalogue, variant, options)
    game = games.game_number(deal)
    if max_moves is not None:
        return Replayed(rules, game, games.replay_stream(rules, game, moves, max_moves))
    return Replayed(rules, game, replay(rules, game, games.actions_of(list(moves))))


def layout_position(catalogue: Catalogue, *, variant: str, rows: object, moves: Iterable[str],
                    max_moves: int, options: Mapping[str, str | int] | None = None
                    ) -> Replayed:
    """The position given as ``rows`` of card codes (null for a gap), then ``moves``, read
    as :func:`games.replay_stream` reads them.

    Refused for rules with redeals (a redeal's shuffle needs the game
    number), and for rows that are not the cards a deal of ``variant``
    holds, each once (twice with two decks), with the gaps a deal has.
    """
    rules = layout_rules(catalogue, variant, options)
    if not (isinstance(rows, list) and all(isinstance(row, list) for row in rows)
            and all(code is None or isinstance(code, str) for row in rows for code in row)):
        raise invalid('a layout is {"rows": [[card code or null, ...], ...]}, the rows of '
                      "gapgrid deal --json", "layout")
    try:
        board = Board.from_rows(rules.layout, rows)
    except BoardError as error:
        raise invalid(f"the layout does not fit {rules.name}: {error}", "layout") from None
    dealt = new_game(rules, LAYOUT_PLACEHOLDER_DEAL).board.cells
    if sorted(card for card in board.cells if card is not None) != sorted(
            card for card in dealt if card is not None):
        raise invalid(f"the layout does not hold the cards of a {rules.name} deal (each card "
                      f"of the deal once per deck, and {dealt.count(None)} gaps)", "layout")
    state = GameState(rules=rules, deal=LAYOUT_PLACEHOLDER_DEAL, board=board, redeals_used=0,
                      rng_state=LAYOUT_PLACEHOLDER_DEAL.new_random().getstate())
    actions, stopped = games.read_actions(moves, max_moves)
    return Replayed(rules, None, games.refused_after(replay_from(state, actions), stopped))


def layout_rules(catalogue: Catalogue, variant: str,
                 options: Mapping[str, str | int] | None = None) -> Rules:
    """The rules of ``variant``, if a position of theirs can be given as a layout: only
    without redeals, since a redeal's shuffle follows from the game number."""
    rules = games.game_rules(catalogue, variant, options)
    if rules.redeals != 0:
        raise invalid(f"{rules.name} has redeals, and a redeal's shuffle follows from the game "
                      f"number: give the game number instead of a layout, or play without "
                      f"redeals (option redeals=0)", "layout")
    return rules


def read_layout(data: bytes) -> object:
    """The rows of a layout file's bytes (``{"rows": [...]}``), at most
    :data:`LAYOUT_MAX_BYTES` of them."""
    if len(data) > LAYOUT_MAX_BYTES:
        raise invalid(f"a layout file is at most {LAYOUT_MAX_BYTES:,} bytes; this one is "
                      f"larger", "layout")
    if not data.strip():  # an empty file, or a FIFO nobody writes to: say so
        raise invalid('the layout file is empty: it holds {"rows": [[card code or null, '
                      '...], ...]}, the rows of gapgrid deal --json', "layout")
    try:
        document = strict_json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise invalid(f"the layout is not JSON as gapgrid reads it: {str(error)[:120]}",
                      "layout") from None
    if not isinstance(document, dict) or "rows" not in document:
        raise invalid('a layout is {"rows": [[card code or null, ...], ...]}, the rows of '
                      "gapgrid deal --json", "layout")
    return document["rows"]


# -- solving -----------------------------------------------------------------------------------


@attrs.frozen
class Solved:
    """A position, the solver's answer about it (None when a move was refused), and the
    JSON document."""

    position: Replayed
    result: SearchResult | None
    document: dict[str, Any]


def search_fields(result: SearchResult | None, search: SearchMode = "whole") -> dict[str, Any]:
    """What the solver said, in the documents' terms (``search``'s version when no search
    ran)."""
    if result is None:
        return {"verdict": None, "positions": 0, "seconds": 0.0, "stopped_by": None,
                "solver_version": version_of(search)}
    return {"verdict": result.verdict, "positions": result.positions,
            "seconds": round(result.seconds, 3), "stopped_by": result.stopped_by,
            "solver_version": result.version}


def solve_position(position: Replayed, *, seconds: float, memory: int = 1 << 30,
                   progress: Callable[[Progress], None] | None = None,
                   search: SearchMode = "whole", positions: int | None = None) -> Solved:
    """Search from ``position`` for ``seconds`` at most (and ``positions``, when given):
    ``gapgrid solve --json``'s document.

    ``{..., "verdict": "won"|"lost"|"unknown", "line": [...], "positions",
    "seconds", "stopped_by", "solver_version", "budget"}``; the verdict is
    null, and no search runs, when a move was refused. ``search`` is what the
    solver runs (:data:`gapgrid.core.search.SearchMode`).
    """
    result = None
    if position.result.ok:
        result = solve(position.search_state,
                       Budget(seconds=seconds, positions=positions, memory=memory),
                       progress=progress, search=search)
    document = position.document()
    document.update(search_fields(result, search))
    document["line"] = [] if result is None else [str(action) for action in result.line]
    document["budget"] = {"seconds": seconds, "positions": positions}
    return Solved(position, result, document)


# -- hints -------------------------------------------------------------------------------------


def position_key(state: GameState) -> tuple[Hashable, ...]:
    """What makes two positions of one game the same: board, redeals made, generator."""
    return (state.board.cells, state.redeals_used, state.rng_state)


def game_key(rules: Rules, deal: DealNumber | None) -> tuple[Hashable, ...]:
    """Which game a position belongs to: the rules (slug and options) and the number."""
    return (rules.slug, tuple(sorted(rules.options.items())), None if deal is None else str(deal))


@attrs.frozen
class KnownLine:
    """A winning line known from ``start``, such as a daily puzzle's certified line."""

    start: GameState
    line: tuple[Action, ...]


def step_on_line(known: KnownLine, state: GameState) -> int | None:
    """How many actions of ``known`` lead to ``state``, or None when it is on no step."""
    target = position_key(state)
    engine = Engine.from_state(known.start)
    for index, action in enumerate(known.line):
        if (engine.redeals_used, engine.rng_state) == target[1:] and tuple(
                engine.cells) == target[0]:
            return index
        if engine.apply(action) is not None:
            return None  # not a line of this game after all
    return None  # the won end: a won position gets no hint from a line


class LineMemo:
    """Winning lines found by earlier hints, by position, least recently used forgotten.

    Each position of a line found from P maps to the rest of that line, so
    the player who follows a hint is answered at once, with the same line,
    and never sent somewhere else by a second search. At most ``capacity``
    positions are kept (a few hundred bytes each).
    """

    def __init__(self, capacity: int = 20_000) -> None:
        self.capacity = capacity
        self._lines: OrderedDict[tuple[Hashable, ...], tuple[tuple[Action, ...], int]] = (
            OrderedDict())
        self._lock = threading.Lock()

    def find(self, game: tuple[Hashable, ...], state: GameState
             ) -> tuple[tuple[Action, ...], int] | None:
        """The line through ``state`` and the index of its next action, if one is known."""
        key = (*game, *position_key(state))
        with self._lock:
            found = self._lines.get(key)
            if found is not None:
                self._lines.move_to_end(key)
            return found

    def remember(self, game: tuple[Hashable, ...], start: GameState,
                 line: Sequence[Action]) -> None:
        """Keep every position of ``line`` (a winning line from ``start``) but the won end."""
        kept = tuple(line)
        engine = Engine.from_state(start)
        entries = []
        for index, action in enumerate(kept):
            entries.append(((*game, tuple(engine.cells), engine.redeals_used,
                             engine.rng_state), (kept, index)))
            if engine.apply(action) is not None:
                return  # a line that does not replay is nothing to remember
        with self._lock:
            for key, value in entries:
                self._lines[key] = value
                self._lines.move_to_end(key)
            while len(self._lines) > self.capacity:
                self._lines.popitem(last=False)


@attrs.frozen
class Hinted:
    """A hint: the position, the solver's answer when it searched, and the document."""

    position: Replayed
    result: SearchResult | None
    document: dict[str, Any]


def hint(position: Replayed, *, seconds: float, memory: int = HINT_MEMORY,
         known: Sequence[KnownLine] = (), memo: LineMemo | None = None,
         progress: Callable[[Progress], None] | None = None) -> Hinted:
    """The next action of a winning line from ``position``, and how many actions it has left.

    ``{..., "verdict": "won"|"lost"|"unknown", "next": "12-25"|"redeal"|null,
    "remaining": N|null, "source": "line"|"search"|null, ...}``: ``won`` with
    the next action and the actions left including it (0 and no next action
    when the position is won already); ``lost`` when no line wins from here
    (with no more redeals than the game's cap still allows:
    :attr:`Replayed.search_state`); ``unknown`` when the search found neither
    within ``seconds``. ``source`` says whether the line was known (``known``,
    ``memo``) or searched for.
    """
    answered = hint_without_search(position, known=known, memo=memo)
    if answered is not None:
        return answered
    document = position.document()
    state = position.state
    game = game_key(position.rules, position.deal)
    result = solve(position.search_state, Budget(seconds=seconds, memory=memory),
                   progress=progress)
    document.update(search_fields(result))
    if result.verdict == "won":
        if memo is not None:
            memo.remember(game, state, result.line)
        document.update({"next": str(result.line[0]), "remaining": len(result.line),
                         "source": "search"})
    else:
        document.update({"next": None, "remaining": None, "source": "search"})
    return Hinted(position, result, document)


def hint_without_search(position: Replayed, *, known: Sequence[KnownLine] = (),
                        memo: LineMemo | None = None) -> Hinted | None:
    """The hint :func:`hint` gives when it needs no search (a refused move, a won position,
    a position on a known line that asks for no more redeals than the game's cap still
    allows), or None when only a search can tell."""
    document = position.document()
    state = position.state
    if not position.result.ok:
        document.update(search_fields(None))
        document.update({"next": None, "remaining": None, "source": None})
        return Hinted(position, None, document)
    if state.is_won:
        document.update(search_fields(None))
        document.update({"verdict": "won", "next": None, "remaining": 0, "source": None})
        return Hinted(position, None, document)
    game = game_key(position.rules, position.deal)
    allowed = position.redeals_cap_left  # a known line may ask for more after many undone
    for line in known:
        step = step_on_line(line, state)
        if step is None:
            continue
        rest = line.line[step:]
        if redeals_in(rest) <= allowed:
            if memo is not None:
                memo.remember(game, state, rest)
            return Hinted(position, None, _from_line(document, rest, 0))
    found = memo.find(game, state) if memo is not None else None
    if found is not None:
        remembered, index = found
        if redeals_in(remembered[index:]) <= allowed:
            return Hinted(position, None, _from_line(document, remembered, index))
    return None


def _from_line(document: dict[str, Any], line: Sequence[Action], index: int
               ) -> dict[str, Any]:
    """A hint read off a known line, at ``index``."""
    document.update(search_fields(None))
    document.update({"verdict": "won", "next": str(line[index]),
                     "remaining": len(line) - index, "source": "line"})
    return document
