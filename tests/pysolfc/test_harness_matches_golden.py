"""The real PySolFC, driven headless by tests/pysolfc_harness.py, replays every golden game.

These tests pin the harness to the recordings in data/pysolfc-games.jsonl, so that other
tests can trust it when they compare PySolFC with gapgrid: for each record, PySolFC's own
game class (the built-in game with the record's ``pysolfc_id``) deals the recorded initial
layout, accepts every recorded move and redeal, passes through every checkpoint, ends in
the final layout with the recorded won verdict, and refuses every recorded illegal probe
without changing anything.

They need a PySolFC source tree: set ``PYSOLFC_DIR`` to it, otherwise they are skipped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.golden import golden_games, golden_ids
from tests.pysolfc_harness import HeadlessGame, load_pysolfc, pysolfc_dir

PYSOLFC = pysolfc_dir()
RECORDS = golden_games()

if PYSOLFC is None:
    pytest.skip("set PYSOLFC_DIR to a PySolFC source tree to run these tests",
                allow_module_level=True)


@pytest.fixture(scope="module")
def pysolfc() -> Path:
    """The PySolFC tree, imported with all its built-in games (once: loading is idempotent)."""
    assert PYSOLFC is not None
    load_pysolfc(PYSOLFC)
    return PYSOLFC


def _play(game: HeadlessGame, move: str) -> bool:
    """Play one move of the golden notation ("F-T" or "redeal"); whether PySolFC took it."""
    if move == "redeal":
        return game.try_redeal()
    source, target = (int(slot) for slot in move.split("-"))
    return game.try_move(source, target)


def _state(game: HeadlessGame) -> tuple[Any, ...]:
    """Everything a refused probe must leave alone: layout, round, undo history, generator."""
    pysol = game.game
    return (
        game.rows(),
        pysol.s.talon.round,
        pysol.moves.index,
        len(pysol.moves.history),
        pysol.random.getstate(),
    )


def _check_probe_kind(game: HeadlessGame, probe: dict[str, Any]) -> None:
    """The recorded kind of refusal describes PySolFC's position at the probe."""
    kind, move = probe["kind"], probe["move"]
    talon = game.game.s.talon
    if move == "redeal":
        if kind == "variant-has-no-redeal":
            assert talon.max_rounds == 1, "the variant has redeals"
        else:
            assert kind == "no-redeal-left", kind
            assert talon.max_rounds > 1, "the variant has no redeal at all"
            assert talon.round == talon.max_rounds, "a redeal is left"
        return
    source, target = (game.game.s.rows[int(slot)] for slot in move.split("-"))
    if kind == "from-gap":
        assert not source.cards, "the source holds a card"
    elif kind == "to-card":
        assert source.cards, "the source is a gap"
        assert target.cards, "the target is a gap"
    else:
        assert kind == "misfit", kind
        assert source.cards, "the source is a gap"
        assert not target.cards, "the target holds a card"


@pytest.mark.parametrize("record", RECORDS, ids=golden_ids(RECORDS))
def test_pysolfc_plays_the_golden_game(pysolfc: Path, record: dict[str, Any]) -> None:
    """PySolFC deals, accepts, passes through, ends in and refuses exactly what was recorded."""
    checkpoints = {checkpoint["after"]: checkpoint["rows"] for checkpoint in record["checkpoints"]}
    probes: dict[int, list[dict[str, Any]]] = {}
    for probe in record["illegal"]:
        probes.setdefault(probe["after"], []).append(probe)
    moves: list[str] = record["moves"]

    with HeadlessGame(record["pysolfc_id"], record["deal"]) as game:
        assert game.rows() == record["initial"], "initial layout"
        for index in range(len(moves) + 1):
            if index in checkpoints:
                assert game.rows() == checkpoints[index], f"layout after {index} moves"
            for probe in probes.get(index, []):
                before = _state(game)
                _check_probe_kind(game, probe)
                assert not _play(game, probe["move"]), (
                    f"{probe['move']} ({probe['kind']}) after {index} moves was accepted"
                )
                assert _state(game) == before, f"refused {probe['move']} changed the game"
            if index < len(moves):
                assert _play(game, moves[index]), f"move {index} ({moves[index]}) refused"
        assert game.rows() == record["final"], "final layout"
        assert game.is_won() == record["won"], "won verdict"
