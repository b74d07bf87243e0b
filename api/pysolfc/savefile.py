"""Reading PySolFC saved games (``.pso``) without trusting them.

A ``.pso`` file is a stream of pickles written by one pickler
(``pysollib.game.dump.pysolDumpGame``): a header, the game number, the
generator's state, every stack's cards, the talon's round and the move
history. PySolFC itself unpickles it without restriction; here a
restricted unpickler maps every class and function the file names to an
inert stand-in that only records its arguments, and refuses any name that
no PySolFC save contains. Nothing in the file is ever called or imported:
the ``builtins.getattr`` that ``MTRandom`` states carry becomes a
stand-in like everything else.
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Callable
from typing import Any, Final

import attrs
from pysol_cards.random import CUSTOM_BIT, MS_LONG_BIT

from gapgrid.api.pysolfc import picklescan
from gapgrid.core.dealnumber import DealNumber, DealNumberError, parse_deal_number
from gapgrid.core.notation import REDEAL, Action, Move

MAX_FILE_BYTES: Final = 1024 * 1024
"""Far larger than any real save (a game of a thousand moves is some 60 kilobytes)."""

MAX_STACKS: Final = 1024
MAX_CARDS_PER_STACK: Final = 1024  # PySolFC's own limit when loading
MAX_HISTORY: Final = 100_000
MAX_ATOMIC_PER_STEP: Final = 1024  # a two-deck redeal is some 220 atomic moves
MAX_ATOMIC: Final = 1_000_000
MAX_GAME_ID: Final = 10_000_000
MAX_COUNT: Final = 10**9

# Every global a PySolFC save may name. Each becomes an inert stand-in.
_ALLOWED_MODULE_PREFIXES: Final = ("pysollib.", "pysol_cards.")
_ALLOWED_GLOBALS: Final = frozenset({("builtins", "getattr"), ("copyreg", "_reconstructor"),
                                     ("builtins", "object")})

_MOVE: Final = "pysollib.move.AMoveMove"
_REDEAL_PARTS: Final = frozenset({_MOVE, "pysollib.move.ANextRoundMove",
                                  "pysollib.move.AShuffleStackMove",
                                  "pysollib.move.ASaveSeedMove"})


class SaveFileError(ValueError):
    """Raised for a file that is not a readable PySolFC saved game, with the reason."""


class _Inert:
    """Stands for a class or function named in the file: it records, and does nothing else."""

    where: str = "?"

    def __new__(cls, *args: object, **kwargs: object) -> _Inert:
        instance = object.__new__(cls)
        instance.__dict__["args"] = args
        instance.__dict__["state"] = None
        return instance

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def __setstate__(self, state: object) -> None:
        self.__dict__["state"] = state


class _RestrictedUnpickler(pickle.Unpickler):
    """An unpickler whose every global is an inert stand-in, or refused."""

    def __init__(self, stream: io.BytesIO) -> None:
        super().__init__(stream)
        self._stand_ins: dict[tuple[str, str], type[_Inert]] = {}

    def find_class(self, module: str, name: str) -> type[_Inert]:
        if not (module.startswith(_ALLOWED_MODULE_PREFIXES)
                or (module, name) in _ALLOWED_GLOBALS):
            raise SaveFileError(f"the file names {_shorten(module)}.{_shorten(name)}, which no "
                                f"PySolFC saved game contains, so it was not read")
        key = (module, name)
        if key not in self._stand_ins:
            self._stand_ins[key] = type(name, (_Inert,), {"where": f"{module}.{name}"})
        return self._stand_ins[key]

    def persistent_load(self, pid: object) -> object:
        raise SaveFileError("it asks for an outside object, which PySolFC never writes in a "
                            "saved game, so it was not read")


@attrs.frozen
class SavedGame:
    """What a PySolFC saved game holds, in gapgrid's terms."""

    pysolfc_version: str
    """The PySolFC version that wrote the file."""

    game_id: int
    """PySolFC's game id (53 for Montana, ...)."""

    deal: DealNumber
    """The game number."""

    stacks: tuple[tuple[int, ...], ...]
    """Card ids in each of PySolFC's stacks (row stacks first, slot by slot), top last."""

    talon_round: int
    """The talon's round: 1 + redeals in effect."""

    actions: tuple[Action, ...]
    """The moves and redeals in effect (undone ones and the redo stack left out)."""

    redo_stack: int
    """How many steps were undone and left on PySolFC's redo stack."""

    undo_moves: int
    """How many undos PySolFC's statistics counted."""

    elapsed: float
    """Seconds played, as PySolFC's statistics counted them."""


SIGNATURE: Final = b"PySolFC"
"""The word every PySolFC saved game starts with (its first pickle), within the first bytes."""

_SIGNATURE_WITHIN: Final = 32  # a protocol header, a frame header and a string length come first


def read_save(data: bytes) -> SavedGame:
    """Read a ``.pso`` file's bytes; raise :class:`SaveFileError` saying why if it is not one.

    Any file up to :data:`MAX_FILE_BYTES` is read or refused within bounded
    time and memory (bench/hostile_saves.py: under 2 seconds and 100 MiB):
    :func:`picklescan.scan` refuses what could cost more before anything is
    unpickled, and the restricted unpickler builds nothing but inert values.
    """
    if not data:
        raise SaveFileError("the file is empty, so it is not a PySolFC saved game")
    if len(data) > MAX_FILE_BYTES:
        raise SaveFileError(f"the file is larger than {MAX_FILE_BYTES:,} bytes; a PySolFC saved "
                            f"game is far smaller")
    if SIGNATURE not in data[:_SIGNATURE_WITHIN]:
        raise SaveFileError("it is not a PySolFC saved game: those files start with the word "
                            "PySolFC, and this one does not")
    try:
        picklescan.scan(data)
    except picklescan.StreamRefused as error:
        raise SaveFileError(str(error)) from None
    unpickler = _RestrictedUnpickler(io.BytesIO(data))
    try:
        return _read(_Reader(unpickler.load))
    except SaveFileError:
        raise
    except Exception:  # whatever the unpickler raises means a malformed stream
        raise SaveFileError(picklescan.damaged()) from None


class _Reader:
    """Loads the stream's pickles one by one, checking each is what PySolFC writes there."""

    def __init__(self, load: Callable[[], object]) -> None:
        self._load = load
        self.position = 0

    def next(self, kind: type | tuple[type, ...], what: str) -> Any:
        self.position += 1
        value = self._load()
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise SaveFileError(f"not a PySolFC saved game: where PySolFC writes the {what}, "
                                f"it holds {_describe(value)}")
        return value

    def integer(self, what: str, low: int, high: int | None = None) -> int:
        value: int = self.next(int, what)
        if value < low or (high is not None and value > high):
            shown = value if abs(value) < 10**12 else "out of range"
            raise SaveFileError(f"not a PySolFC saved game: {what} is {shown}")
        return value

    def object_of(self, where: str, what: str) -> _Inert:
        value = self.next(_Inert, what)
        if value.where != where:
            raise SaveFileError(f"not a PySolFC saved game: {what} is {value.where}")
        return value  # type: ignore[no-any-return]


_KINDS: Final = ((bool, "true or false"), (int, "a number"), (float, "a number"), (str, "text"),
                 (bytes, "raw bytes"), (tuple, "a list"), (list, "a list"), (dict, "a table"),
                 (type(None), "nothing"), (_Inert, "an object"))


def _describe(value: object) -> str:
    """What kind of thing ``value`` is, in words for whoever chose the file."""
    return next((words for kind, words in _KINDS if isinstance(value, kind)), "something else")


def _shorten(name: str) -> str:
    """A name from the file, cut short when long: messages never echo a flood."""
    return name if len(name) <= 60 else name[:57] + "..."


def _read(reader: _Reader) -> SavedGame:
    if reader.next(str, "header") != "PySolFC":
        raise SaveFileError("not a PySolFC saved game: the header is missing")
    version = reader.next(str, "version")
    reader.next(tuple, "version tuple")
    bookmark = reader.integer("bookmark flag", 0, 2)
    reader.integer("game version", 1)
    game_id = reader.integer("game id", 1, MAX_GAME_ID)
    deal = _deal_number(reader.integer("game number", 1))
    reader.next(object, "generator state")  # recomputed from the game number, never used
    stacks = []
    for _ in range(reader.integer("number of stacks", 1, MAX_STACKS)):
        cards = []
        for _ in range(reader.integer("number of cards", 0, MAX_CARDS_PER_STACK)):
            cards.append(reader.integer("card id", 0, MAX_STACKS * MAX_CARDS_PER_STACK))
            reader.next((int, bool), "face-up flag")
        stacks.append(tuple(cards))
    all_cards = sorted(card for stack in stacks for card in stack)
    if all_cards != list(range(len(all_cards))):
        raise SaveFileError("not a PySolFC saved game: its card ids are not 0, 1, 2, ... once each")
    talon_round = reader.integer("talon round", 0, MAX_COUNT)
    reader.next((bool, int), "finished flag")
    if bookmark <= 1:
        reader.object_of("pysollib.game.GameSaveInfo", "save info")
        reader.object_of("pysollib.game.GameGlobalSaveInfo", "global save info")
    moves = reader.object_of("pysollib.game.GameMoves", "move history")
    reader.next(list, "snapshots")
    undo_moves, elapsed = 0, 0.0
    if bookmark <= 1:
        reader.object_of("pysollib.game.GameGlobalStatsStruct", "global statistics")
        stats = _state_dict(reader.object_of("pysollib.game.GameStatsStruct", "statistics"))
        undo_moves = int(_number(stats.get("undo_moves", 0), int))
        elapsed = float(_number(stats.get("elapsed_time", 0.0), (int, float)))
    if reader.next(str, "end marker") != "EOF":
        raise SaveFileError("not a PySolFC saved game: the end marker is missing")
    actions, redo_stack = _history(moves, len(stacks))
    return SavedGame(pysolfc_version=version, game_id=game_id, deal=deal, stacks=tuple(stacks),
                     talon_round=talon_round, actions=tuple(actions), redo_stack=redo_stack,
                     undo_moves=undo_moves, elapsed=elapsed)


def _deal_number(seed: int) -> DealNumber:
    """Undo ``pysol_cards.random.random__str2int``: ms numbers carry bit 1000."""
    try:
        if seed & MS_LONG_BIT:
            if seed & CUSTOM_BIT:
                raise SaveFileError("the file holds a custom deal, which has no game number")
            return parse_deal_number(f"ms{seed & ~MS_LONG_BIT}")
        return parse_deal_number(seed)
    except DealNumberError as error:
        raise SaveFileError(f"the file's game number is not valid: {error}") from None


def _state_dict(stand_in: _Inert) -> dict[str, object]:
    state = stand_in.__dict__.get("state")
    if not isinstance(state, dict):
        raise SaveFileError(f"not a PySolFC saved game: {stand_in.where} has no fields")
    return state


def _number(value: object, kind: type | tuple[type, ...]) -> Any:
    """A statistic: a finite number from 0 to a billion."""
    # NaN and infinities fail the range test too.
    if not isinstance(value, kind) or isinstance(value, bool) or not 0 <= value <= MAX_COUNT:  # type: ignore[operator]
        raise SaveFileError("not a PySolFC saved game: a statistic is not a sensible number")
    return value


def _history(moves: _Inert, stacks: int) -> tuple[list[Action], int]:
    """Turn PySolFC's move history into actions; return them and the redo stack's length."""
    state = _state_dict(moves)
    history, index = state.get("history"), state.get("index")
    if not isinstance(history, list) or not isinstance(index, int) or isinstance(index, bool):
        raise SaveFileError("not a PySolFC saved game: the move history is malformed")
    if not 0 <= index <= len(history) or len(history) > MAX_HISTORY:
        raise SaveFileError("not a PySolFC saved game: the move history is malformed")
    steps = history[:index]
    if sum(len(step) if isinstance(step, list) else 1 for step in steps) > MAX_ATOMIC:
        raise SaveFileError("not a PySolFC saved game: the history is impossibly long")
    # Moves are counted from 1 in messages, as players count them.
    actions = [_action(step, number, stacks) for number, step in enumerate(steps, start=1)]
    return actions, len(history) - index


def _action(step: object, number: int, stacks: int) -> Action:
    """One history entry (a list of atomic moves) as a move or a redeal."""
    if (not isinstance(step, list) or not step or len(step) > MAX_ATOMIC_PER_STEP
            or not all(isinstance(a, _Inert) for a in step)):
        raise SaveFileError(f"move {number} of the saved history is malformed")
    kinds = [atomic.where for atomic in step]
    if "pysollib.move.ANextRoundMove" in kinds:
        if not set(kinds) <= _REDEAL_PARTS:
            raise SaveFileError(f"move {number} of the saved history is a redeal with "
                                f"unexpected parts")
        return REDEAL
    if kinds != [_MOVE]:
        parts = ", ".join(sorted({kind.rsplit(".", 1)[-1] for kind in kinds}))
        raise SaveFileError(f"move {number} of the saved history ({_shorten(parts)}) is not a "
                            f"move of the Montana family")
    fields = _state_dict(step[0])
    source, target, count = (fields.get(key) for key in ("from_stack_id", "to_stack_id", "ncards"))
    if not all(isinstance(value, int) and not isinstance(value, bool) and 0 <= value < stacks
               for value in (source, target)) or count != 1:
        raise SaveFileError(f"move {number} of the saved history is not a one-card move between "
                            f"the file's stacks")
    return Move(source, target)  # type: ignore[arg-type]
