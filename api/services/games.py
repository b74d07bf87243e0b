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
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

import attrs

from gapgrid.api import json_documents
from gapgrid.api.pysolfc.games import UnknownGameError, entry_for_game_id, saved_board
from gapgrid.api.pysolfc.savefile import SavedGame, SaveFileError, read_save
from gapgrid.api.services.errors import Fault, ServiceError, invalid
from gapgrid.core.board import Board
from gapgrid.core.catalogue import Catalogue, OptionError, UnknownSchemeError, UnknownVariantError
from gapgrid.core.dealnumber import DealNumber, DealNumberError, parse_deal_number
from gapgrid.core.game import GameState, new_game
from gapgrid.core.notation import Action, NotationError, parse_actions
from gapgrid.core.registry import PresetInfo, ScoringInfo, VariantInfo
from gapgrid.core.replay import ReplayResult, replay
from gapgrid.core.rules import Rules
from gapgrid.core.scoring import GameSummary

MAX_SECONDS: Final = 366 * 24 * 3600
"""The longest game time accepted (``elapsed``): a year."""

ALL_SCHEMES: Final = ("all",)
"""What an empty ``scoring`` means: every scheme."""


# -- checking the request's values ------------------------------------------------------------


def find_entry(catalogue: Catalogue, variant: str) -> VariantInfo | PresetInfo:
    """The variant or preset called ``variant`` (a slug or another name)."""
    try:
        return catalogue.lookup(variant)
    except UnknownVariantError as error:
        raise ServiceError(str(error), fault=Fault.UNKNOWN_VARIANT, field=("variant",)) from None


def game_rules(catalogue: Catalogue, variant: str,
               options: Mapping[str, str | int] | None = None) -> Rules:
    """The rules of ``variant`` with ``options`` applied."""
    try:
        return catalogue.rules(variant, options)
    except UnknownVariantError as error:
        raise ServiceError(str(error), fault=Fault.UNKNOWN_VARIANT, field=("variant",)) from None
    except OptionError as error:
        raise invalid(str(error), "options", error.key) from None


def game_number(deal: str) -> DealNumber:
    """The game number ``deal``, read as PySolFC reads it."""
    try:
        return parse_deal_number(deal)
    except DealNumberError as error:
        raise invalid(str(error), "deal") from None


def actions_of(moves: Sequence[str]) -> list[Action]:
    """The moves in notation; the error names the index of the first malformed one."""
    try:
        return parse_actions(moves)
    except NotationError as error:
        raise invalid(str(error), "moves", error.index or 0) from None


def scoring_schemes(catalogue: Catalogue, names: Sequence[str] = ()) -> dict[str, ScoringInfo]:
    """The schemes ``names`` chooses: every one when it is empty or says ``all``."""
    chosen = list(names) or list(ALL_SCHEMES)
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
    """The layout PySolFC deals for game ``number`` of ``variant``."""
    rules = game_rules(catalogue, variant, options)
    game = game_number(number)
    state = new_game(rules, game)
    return Dealt(rules, game, state, json_documents.deal_json(rules, game, state.board))


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
    document = json_documents.verify_json(rules, game, result)
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
    return Position(rules, game, result, json_documents.position_json(rules, game, result))


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


def verify_saved_game(catalogue: Catalogue, found: SavedGameFile, *,
                      scoring: Sequence[str] = (), elapsed: float | None = None,
                      timed: bool = False) -> Verification:
    """Verify and score a saved game; the document adds ``saved_layout_matches``.

    The time is the file's own unless ``elapsed`` is given; the undos are the
    ones PySolFC counted, since undone moves are gone from the file.
    """
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
    return Verification(found.rules, game, result, document)
