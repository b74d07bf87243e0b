"""Hand-made PySolFC saved games, for tests of what the reader refuses.

PySolFC is not importable here, so the classes a save names are made up on
the spot in modules registered under PySolFC's names only while pickling.
"""

from __future__ import annotations

import io
import pickle
import sys
import types
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

_CLASSES = {"pysollib.game": ["GameSaveInfo", "GameGlobalSaveInfo", "GameMoves",
                              "GameGlobalStatsStruct", "GameStatsStruct"],
            "pysollib.move": ["AMoveMove", "ANextRoundMove"]}


@contextmanager
def _pysollib_stand_ins() -> Iterator[dict[str, type]]:
    saved = {name: sys.modules.get(name) for name in ("pysollib", *_CLASSES)}
    classes: dict[str, type] = {}
    try:
        sys.modules["pysollib"] = types.ModuleType("pysollib")
        for module_name, names in _CLASSES.items():
            module = types.ModuleType(module_name)
            sys.modules[module_name] = module
            for name in names:
                made = type(name, (), {"__module__": module_name, "__qualname__": name})
                setattr(module, name, made)
                classes[name] = made
        yield classes
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def _instance(cls: type, **fields: Any) -> Any:
    made = cls.__new__(cls)
    made.__dict__.update(fields)
    return made


def fake_save(*, game_id: int = 53, seed: int = 20412,
              stacks: Sequence[Sequence[int]] | None = None,
              history: Sequence[Sequence[tuple[int, int, int]] | str] = (),
              stats: dict[str, Any] | None = None) -> bytes:
    """A save of a Montana game: ``history`` steps are lists of (from, to, ncards) moves, or
    ``"redeal"``."""
    with _pysollib_stand_ins() as classes:
        stacks = [[card] for card in range(52)] + [[]] if stacks is None else stacks
        items: list[Any] = ["PySolFC", "3.6.1", (3, 6, 1), 0, 1, game_id, seed, ("state",),
                            len(stacks)]
        for stack in stacks:
            items.append(len(stack))
            for card in stack:
                items += [card, True]
        steps = [[_instance(classes["ANextRoundMove"])] if step == "redeal" else
                 [_instance(classes["AMoveMove"], from_stack_id=source, to_stack_id=target,
                            ncards=count) for source, target, count in step] for step in history]
        items += [1, False, _instance(classes["GameSaveInfo"]),
                  _instance(classes["GameGlobalSaveInfo"]),
                  _instance(classes["GameMoves"], history=steps, index=len(steps)), [],
                  _instance(classes["GameGlobalStatsStruct"]),
                  _instance(classes["GameStatsStruct"],
                            **(stats if stats is not None else {"undo_moves": 0,
                                                                 "elapsed_time": 1.5})),
                  "EOF"]
        buffer = io.BytesIO()
        pickler = pickle.Pickler(buffer, protocol=4)
        for item in items:
            pickler.dump(item)
        return buffer.getvalue()
