"""Use cases about games: the catalogue, deals, verification with scores, legal moves,
and PySolFC saved games.

Each takes the :class:`~gapgrid.core.catalogue.Catalogue` and the request's values
as the caller received them (strings for game numbers and moves, a mapping for
options), checks them, and returns the JSON document both the command line and
the HTTP API print, beside the domain values a text rendering needs. A value
that cannot be used raises :class:`~gapgrid.api.services.errors.ServiceError`
naming the field, in the HTTP request body's field names.

The one rule for scores: a verification always carries ``scores``, with every
scoring scheme unless ``scoring`` names some (``"all"`` means every one); it is
null when a move was refused, since a refused game has no score.

Messages quote what the caller sent only as a short excerpt
(:func:`gapgrid.api.text.excerpt`), and values longer than any valid one are
refused before they reach the engine, so no answer repeats a 5 MB move.
Moves are counted from 1 in messages; the ``field`` path of an error, like
``error.index`` in a document, counts from 0.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import attrs

from gapgrid.api import json_documents
from gapgrid.api.pysolfc.games import (
    UnknownGameError,
    entry_for_game_id,
    in_pysolfc,
    saved_board,
)
from gapgrid.api.pysolfc.savefile import SavedGame, SaveFileError, read_save
from gapgrid.api.services.errors import Fault, ServiceError, invalid
from gapgrid.api.text import excerpt
from gapgrid.core.board import Board
from gapgrid.core.cards import card_code
from gapgrid.core.catalogue import Catalogue, OptionError, UnknownSchemeError, UnknownVariantError
from gapgrid.core.dealnumber import DealNumber, DealNumberError, parse_deal_number
from gapgrid.core.game import GameState, new_game
from gapgrid.core.notation import Action, NotationError, Redeal, parse_action
from gapgrid.core.registry import PresetInfo, ScoringInfo, VariantInfo
from gapgrid.core.replay import ReplayResult, replay
from gapgrid.core.rules import MAX_REDEALS as rules_max_redeals
from gapgrid.core.rules import Rules
from gapgrid.core.scoring import GameSummary

MAX_SECONDS: Final = 366 * 24 * 3600
"""The longest game time accepted (``elapsed``): a year."""

ALL_SCHEMES: Final = ("all",)
"""What an empty ``scoring`` means: every scheme."""

MAX_MOVE_TEXT: Final = 16
"""Longest move in notation (``123456-123456``, ``redeal``); the HTTP schema's limit too."""

MAX_NAME: Final = 64
"""Longest variant, option or scheme name, or option value, the service reads."""

MAX_DEAL_TEXT: Final = 48
"""Longest game number text (20 digits with PySolFC's separators and prefixes)."""

MAX_REDEALS: Final = rules_max_redeals
"""Most redeals one request or command may ask for, undone ones included (500, the most
the ``redeals`` option grants too). A redeal is the one costly action: PySolFC's shuffle,
some 100 random draws in Python (about 90 us), so 5,000 of them (the move cap) took some
450 ms, and issue 15's budget for the worst request is 150 ms; 500 cost under 80 ms. No
game a person plays needs more (bench/README.md)."""


# -- checking the request's values ------------------------------------------------------------


def find_entry(catalogue: Catalogue, variant: str) -> VariantInfo | PresetInfo:
    """The variant or preset called ``variant`` (a slug or another name)."""
    _check_name(variant)
    try:
        return catalogue.lookup(variant)
    except UnknownVariantError as error:
        raise unknown_variant(error) from None


def unknown_variant(error: UnknownVariantError) -> ServiceError:
    """An unknown variant in the caller's terms: the name (an excerpt) and the suggestions.

    Where the list of variants is (``gapgrid variants``, ``GET /v1/variants``)
    is for each adapter to add: an HTTP client cannot run the command line.
    """
    hint = f"; did you mean {' or '.join(error.suggestions)}?" if error.suggestions else ""
    return ServiceError(f"unknown variant {excerpt(error.name)}{hint}",
                        fault=Fault.UNKNOWN_VARIANT, field=("variant",))


def _check_name(variant: object) -> None:
    if isinstance(variant, str) and len(variant) > MAX_NAME:
        raise ServiceError(f"unknown variant {excerpt(variant)}: no variant name is longer "
                           f"than {MAX_NAME} characters", fault=Fault.UNKNOWN_VARIANT,
                           field=("variant",))


def game_rules(catalogue: Catalogue, variant: str,
               options: Mapping[str, str | int] | None = None) -> Rules:
    """The rules of ``variant`` with ``options`` applied."""
    _check_name(variant)
    for key, value in (options or {}).items():
        if len(str(key)) > MAX_NAME or len(str(value)) > MAX_NAME:
            where = ("options", str(key)) if len(str(key)) <= MAX_NAME else ("options",)
            raise invalid(f"option {excerpt(key)} = {excerpt(value)}: no option key or value "
                          f"is longer than {MAX_NAME} characters", *where)
    try:
        return catalogue.rules(variant, options)
    except UnknownVariantError as error:
        raise unknown_variant(error) from None
    except OptionError as error:
        raise invalid(str(error), "options", error.key) from None


def game_number(deal: str) -> DealNumber:
    """The game number ``deal``, read as PySolFC reads it."""
    if isinstance(deal, str) and len(deal) > MAX_DEAL_TEXT:
        raise invalid(f"{excerpt(deal)} is not a game number: game numbers run from 1 to "
                      f"10**20, at most {MAX_DEAL_TEXT} characters with separators", "deal")
    try:
        return parse_deal_number(deal)
    except DealNumberError as error:
        raise invalid(str(error), "deal") from None


def actions_of(moves: Sequence[str]) -> list[Action]:
    """The moves in notation; the error names the first malformed one, or the redeal past
    :data:`MAX_REDEALS`."""
    actions: list[Action] = []
    redeals = 0
    for index, text in enumerate(moves):
        action = parse_move(text, index)
        redeals += isinstance(action, Redeal)
        if redeals > MAX_REDEALS:
            raise too_many_redeals(index)
        actions.append(action)
    return actions


def redeals_cap_left(result: ReplayResult) -> int:
    """How many more redeals the game ``result`` reached may ask for under
    :data:`MAX_REDEALS`."""
    return max(MAX_REDEALS - result.redeals_asked, 0)


def too_many_redeals(index: int) -> ServiceError:
    """The refusal of move ``index + 1``, a redeal past :data:`MAX_REDEALS`."""
    return invalid(f"move {index + 1:,} is redeal number {MAX_REDEALS + 1:,}: one game may "
                   f"ask for at most {MAX_REDEALS:,} redeals (undone ones included)",
                   "moves", index)


def parse_move(text: str, index: int) -> Action:
    """Move number ``index + 1`` in notation; a refusal counts it from 1 for people and
    points at ``("moves", index)``."""
    if isinstance(text, str) and len(text[:4 * MAX_MOVE_TEXT].split()) > 1:  # "27-40 redeal"
        raise invalid(f"move {index + 1:,}: {excerpt(text, 20, count=False)} is several "
                      f"words: give each move (F-T, redeal or undo) on its own",
                      "moves", index)
    if isinstance(text, str) and len(text) > MAX_MOVE_TEXT:
        # no length given: read from a stream, the text may be only the start of a word
        raise invalid(f"move {index + 1:,}: {excerpt(text, 20, count=False)} is not a move: "
                      f"no move is longer than {MAX_MOVE_TEXT} characters (F-T, redeal or "
                      f"undo)", "moves", index)
    try:
        return parse_action(text)
    except NotationError as error:
        raise invalid(f"move {index + 1:,}: {error}", "moves", index) from None


def scoring_schemes(catalogue: Catalogue, names: Sequence[str] = ()) -> dict[str, ScoringInfo]:
    """The schemes ``names`` chooses: every one when it is empty or says ``all``."""
    chosen = list(names) or list(ALL_SCHEMES)
    for index, name in enumerate(chosen):
        if len(name) > MAX_NAME:
            raise invalid(f"unknown scoring scheme {excerpt(name)}", "scoring", index)
    try:
        return catalogue.scoring_schemes(chosen)
    except UnknownSchemeError as error:
        raise invalid(str(error), "scoring", chosen.index(error.name)) from None


def game_time(elapsed: float | None) -> float | None:
    """``elapsed`` as seconds: a finite number from 0 to a year, or None for unknown."""
    if elapsed is None:
        return None
    # bool is an int: a JSON true must not pass for one second
    if isinstance(elapsed, bool) or not isinstance(elapsed, int | float):
        raise invalid(f"elapsed must be a number of seconds, not {elapsed!r}", "elapsed")
    if not (math.isfinite(elapsed) and 0 <= elapsed <= MAX_SECONDS):
        raise invalid(f"elapsed must be a duration from 0 to {MAX_SECONDS} seconds (a year), "
                      f"not {elapsed!r}", "elapsed")
    # one type whatever the caller parsed (JSON 42 or text "42"), for schemes that print it
    return float(elapsed)


# -- the catalogue ---------------------------------------------------------------------------


def list_variants(catalogue: Catalogue) -> list[dict[str, Any]]:
    """Every variant, then every preset, as the API describes them."""
    return [json_documents.entry_json(catalogue, catalogue.lookup(slug))
            for slug in catalogue.slugs()]


def describe_variant(catalogue: Catalogue, variant: str) -> dict[str, Any]:
    """One variant or preset, found by slug or another name."""
    return json_documents.entry_json(catalogue, find_entry(catalogue, variant))


def list_scoring_schemes(catalogue: Catalogue) -> list[dict[str, Any]]:
    """Every scoring scheme: name, one-line summary, and the plugin that provides it."""
    return [{"name": info.name, "summary": info.summary, "plugin": info.plugin}
            for info in catalogue.scoring.values()]


# -- deals, verification, positions ------------------------------------------------------------


@attrs.frozen
class Dealt:
    """A dealt game: its rules, number, starting position, and the JSON document."""

    rules: Rules
    deal: DealNumber
    state: GameState
    document: dict[str, Any]


def deal(catalogue: Catalogue, variant: str, number: str,
         options: Mapping[str, str | int] | None = None) -> Dealt:
    """The layout PySolFC deals for game ``number`` of ``variant``; its document has a
    ``pysolfc_title`` only for a game PySolFC has itself (:func:`pysolfc_title`)."""
    rules = game_rules(catalogue, variant, options)
    game = game_number(number)
    state = new_game(rules, game)
    document = json_documents.deal_json(rules, game, state.board)
    if pysolfc_title(catalogue, rules.slug, game) is None:
        del document["pysolfc_title"]
    return Dealt(rules, game, state, document)


def pysolfc_title(catalogue: Catalogue, slug: str, deal: DealNumber) -> str | None:
    """The game number as PySolFC's title bar shows it (``#ms617``), for a variant PySolFC
    has itself; None for the others (presets such as Gaps, third-party variants): PySolFC
    numbers only its own games, and a title would promise a deal it cannot show (the games
    ``gapgrid pysolfc install`` adds say so in their own words)."""
    return deal.pysolfc_title if in_pysolfc(catalogue.lookup(slug)) else None


@attrs.frozen
class Verification:
    """A replayed game: the domain result and the verify document (with ``scores``)."""

    rules: Rules
    deal: DealNumber
    result: ReplayResult
    document: dict[str, Any]

    @property
    def ok(self) -> bool:
        """Whether every move was legal."""
        return self.result.ok


def verify(catalogue: Catalogue, *, variant: str, deal: str, moves: Sequence[str],
           options: Mapping[str, str | int] | None = None, scoring: Sequence[str] = (),
           elapsed: float | None = None, timed: bool = False,
           assisted: bool = False) -> Verification:
    """Replay ``moves`` on game ``deal`` of ``variant``, check each, and score the game.

    ``scoring`` chooses the schemes (none named: every one); ``elapsed`` is
    the game's time in seconds, when known, and ``timed`` says it was played
    in the timed mode; ``assisted`` that hints were asked for. They only change the
    scores.
    """
    rules = game_rules(catalogue, variant, options)
    game = game_number(deal)
    actions = actions_of(moves)
    schemes = scoring_schemes(catalogue, scoring)
    seconds = game_time(elapsed)
    result = replay(rules, game, actions)
    summary = GameSummary.from_replay(result, elapsed=seconds, timed=timed, assisted=assisted)
    return Verification(rules, game, result, _scored(rules, game, result, summary, schemes))


def _scored(rules: Rules, game: DealNumber, result: ReplayResult, summary: GameSummary,
            schemes: Mapping[str, ScoringInfo]) -> dict[str, Any]:
    document = json_documents.verify_json(rules, game, result,
                                          redeals_cap_left=redeals_cap_left(result))
    document["scores"] = json_documents.scores_json(summary, schemes) if result.ok else None
    return document


@attrs.frozen
class Position:
    """Where a sequence of moves leads: the replay and the moves document."""

    rules: Rules
    deal: DealNumber
    result: ReplayResult
    document: dict[str, Any]

    @property
    def ok(self) -> bool:
        """Whether every move was legal."""
        return self.result.ok


def position(catalogue: Catalogue, *, variant: str, deal: str, moves: Sequence[str],
             options: Mapping[str, str | int] | None = None) -> Position:
    """The position after ``moves`` and what can be played there.

    When a move is refused, the position is the one before it, and the
    document says why (``ok`` false, ``error``), as a verification does.
    """
    rules = game_rules(catalogue, variant, options)
    game = game_number(deal)
    result = replay(rules, game, actions_of(moves))
    return Position(rules, game, result, json_documents.position_json(
        rules, game, result, redeals_cap_left=redeals_cap_left(result)))


# -- moves as they come (the command line's standard input) ----------------------------------


def verify_stream(catalogue: Catalogue, *, variant: str, deal: str, moves: Iterable[str],
                  max_moves: int, options: Mapping[str, str | int] | None = None,
                  scoring: Sequence[str] = (), elapsed: float | None = None,
                  timed: bool = False) -> Verification:
    """:func:`verify` for moves that arrive one by one (a pipe, a file of any size): every
    other argument is checked first, then the moves are read as :func:`replay_stream`
    reads them. The document is the one :func:`verify` gives for the moves read."""
    rules = game_rules(catalogue, variant, options)
    game = game_number(deal)
    schemes = scoring_schemes(catalogue, scoring)
    seconds = game_time(elapsed)
    result = replay_stream(rules, game, moves, max_moves)
    summary = GameSummary.from_replay(result, elapsed=seconds, timed=timed)
    return Verification(rules, game, result, _scored(rules, game, result, summary, schemes))


def position_stream(catalogue: Catalogue, *, variant: str, deal: str, moves: Iterable[str],
                    max_moves: int, options: Mapping[str, str | int] | None = None
                    ) -> Position:
    """:func:`position` for moves that arrive one by one, read as :func:`verify_stream`
    reads them."""
    rules = game_rules(catalogue, variant, options)
    game = game_number(deal)
    result = replay_stream(rules, game, moves, max_moves)
    return Position(rules, game, result, json_documents.position_json(
        rules, game, result, redeals_cap_left=redeals_cap_left(result)))


def replay_stream(rules: Rules, game: DealNumber, moves: Iterable[str], max_moves: int
                  ) -> ReplayResult:
    """Deal ``game`` and replay ``moves``, read from an iterator of any length.

    At most ``max_moves`` + 1 moves are read: reading stops at the first
    malformed one or once the cap (or :data:`MAX_REDEALS`) is passed, so the
    input's size costs nothing. The moves read are then replayed by
    :func:`gapgrid.core.replay.replay`, and the answer is the first refused
    move among them, as if the input had ended there; only when every move
    read is legal does the malformed move, or the cap, make the refusal
    (:class:`ServiceError`). Memory is bounded by the move cap.
    """
    actions, stopped = read_actions(moves, max_moves)
    return refused_after(replay(rules, game, actions), stopped)


def read_actions(moves: Iterable[str], max_moves: int
                 ) -> tuple[list[Action], ServiceError | None]:
    """The actions of ``moves`` as :func:`replay_stream` reads them, and the refusal that
    stopped the reading (None when the moves ended first)."""
    actions: list[Action] = []
    redeals = 0
    for index, text in enumerate(moves):
        if index >= max_moves:
            return actions, invalid(f"more than {max_moves:,} moves: the limit is "
                                    f"GAPGRID_MAX_MOVES", "moves", index)
        try:
            action = parse_move(text, index)
        except ServiceError as error:
            return actions, error
        redeals += isinstance(action, Redeal)
        if redeals > MAX_REDEALS:
            return actions, too_many_redeals(index)
        actions.append(action)
    return actions, None


def refused_after(result: ReplayResult, stopped: ServiceError | None) -> ReplayResult:
    """``result``, the replay of the moves :func:`read_actions` read; but when every one of
    them is legal, the refusal that stopped the reading is the answer."""
    if stopped is not None and result.ok:
        raise stopped
    return result


# -- PySolFC saved games ---------------------------------------------------------------------


@attrs.frozen
class SavedGameFile:
    """A PySolFC saved game, the gapgrid game it is, and the layout it holds."""

    saved: SavedGame
    entry: VariantInfo | PresetInfo
    rules: Rules
    board: Board


def read_saved_game(catalogue: Catalogue, data: bytes) -> SavedGameFile:
    """Read a PySolFC saved game's bytes and find its rules and layout.

    The file is read by a restricted unpickler that runs nothing from it.
    """
    try:
        saved = read_save(data)
        entry = entry_for_game_id(catalogue, saved.game_id)
        rules = catalogue.rules(entry.slug)
        return SavedGameFile(saved, entry, rules, saved_board(rules, saved.stacks))
    except (UnknownGameError, SaveFileError) as error:
        raise invalid(str(error), "file") from None


def saved_game_document(found: SavedGameFile) -> dict[str, Any]:
    """What ``gapgrid pysolfc read-save --json`` prints: the game in gapgrid's terms."""
    saved = found.saved
    return {"variant": found.entry.slug, "pysolfc_id": saved.game_id, "deal": str(saved.deal),
            "moves": [str(action) for action in saved.actions], "undos": saved.undo_moves,
            "redo_stack": saved.redo_stack, "final": found.board.to_rows(),
            "pysolfc_version": saved.pysolfc_version, "elapsed": saved.elapsed}


def verify_saved_game(catalogue: Catalogue, found: SavedGameFile, *, max_moves: int,
                      scoring: Sequence[str] = (), elapsed: float | None = None,
                      timed: bool = False) -> Verification:
    """Verify and score a saved game; the document adds ``saved_layout_matches``.

    The time is the file's own unless ``elapsed`` is given; the undos are the
    ones PySolFC counted, since undone moves are gone from the file. A game of
    more than ``max_moves`` moves is refused, as moves given any other way are.
    """
    if len(found.saved.actions) > max_moves:
        raise invalid(f"the saved game holds {len(found.saved.actions):,} moves, more than "
                      f"{max_moves:,}: the limit is GAPGRID_MAX_MOVES", "save")
    schemes = scoring_schemes(catalogue, scoring)
    seconds = game_time(elapsed)
    if seconds is None and 0 < found.saved.elapsed <= MAX_SECONDS:  # a file's nonsense: unknown
        seconds = float(found.saved.elapsed)
    game = found.saved.deal
    result = replay(found.rules, game, list(found.saved.actions))
    summary = attrs.evolve(GameSummary.from_replay(result, elapsed=seconds, timed=timed),
                           undos=found.saved.undo_moves)
    document = _scored(found.rules, game, result, summary, schemes)
    document["saved_layout_matches"] = found.board == result.state.board
    if not document["saved_layout_matches"]:
        document["saved_layout_differences"] = layout_differences(found.board,
                                                                  result.state.board)
        # A reload re-seeds MTRandom games (numbers of 32000 and above), which changes the
        # redeals after it; nothing else makes a true file differ from its own moves.
        document["saved_layout_reseeding_may_explain"] = (
            not game.uses_lcrandom and any(isinstance(action, Redeal)
                                           for action in found.saved.actions))
    return Verification(found.rules, game, result, document)


SHOWN_DIFFERENCES: Final = 8
"""Slots where a saved layout and its replay differ that a verification lists, at most."""


def layout_differences(saved: Board, replayed: Board) -> list[dict[str, Any]]:
    """The first :data:`SHOWN_DIFFERENCES` slots where ``saved`` and ``replayed`` differ: each
    slot's number and card codes (None for a gap)."""
    differing = (slot for slot, (there, here) in enumerate(zip(saved.cells, replayed.cells,
                                                                strict=True))
                 if there != here)
    return [{"slot": slot, "saved": _code(saved.cells[slot]),
             "replayed": _code(replayed.cells[slot])}
            for slot in itertools.islice(differing, SHOWN_DIFFERENCES)]


def _code(card: int | None) -> str | None:
    return None if card is None else card_code(card)
