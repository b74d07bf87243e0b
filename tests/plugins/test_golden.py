"""Every game recorded from the real PySolFC plays out identically here.

For each record: the deal gives PySolFC's initial layout; replaying the
moves passes through every checkpoint (taken after each redeal) and ends
in the final layout with PySolFC's won verdict; and every move PySolFC
refused is refused here at the same point, for the same kind of reason.
"""

from __future__ import annotations

from typing import Any

import pytest

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import Engine
from gapgrid.core.notation import parse_action, parse_actions
from gapgrid.core.replay import replay
from tests.golden import golden_games, golden_ids

RECORDS = golden_games()


def _rows(engine: Engine) -> list[list[str | None]]:
    return engine.snapshot().board.to_rows()


@pytest.mark.parametrize("record", RECORDS, ids=golden_ids(RECORDS))
def test_golden_game_plays_as_in_pysolfc(catalogue: Catalogue, record: dict[str, Any]) -> None:
    """Initial layout, checkpoints, final layout, won flag and refusals all match PySolFC."""
    rules = catalogue.rules(record["variant"])
    engine = Engine.start(rules, parse_deal_number(record["deal"]))
    assert _rows(engine) == record["initial"]
    checkpoints = {checkpoint["after"]: checkpoint["rows"] for checkpoint in record["checkpoints"]}
    probes: dict[int, list[dict[str, Any]]] = {}
    for probe in record["illegal"]:
        probes.setdefault(probe["after"], []).append(probe)
    moves = parse_actions(record["moves"])
    for index in range(len(moves) + 1):
        if index in checkpoints:
            assert _rows(engine) == checkpoints[index], f"layout after {index} moves"
        for probe in probes.get(index, []):
            refusal = engine.snapshot().check(parse_action(probe["move"]))
            assert refusal is not None, f"{probe['move']} after {index} moves was accepted"
            assert refusal.kind == probe["kind"], refusal.reason
        if index < len(moves):
            refusal = engine.apply(moves[index])
            assert refusal is None, f"move {index} ({moves[index]}) refused: {refusal}"
    assert _rows(engine) == record["final"]
    assert engine.won == record["won"]


@pytest.mark.parametrize("record", RECORDS, ids=golden_ids(RECORDS))
def test_replay_of_golden_moves_ends_in_the_final_layout(catalogue: Catalogue,
                                                         record: dict[str, Any]) -> None:
    """The one-call replay (what verify uses) agrees with PySolFC's final layout."""
    result = replay(catalogue.rules(record["variant"]), parse_deal_number(record["deal"]),
                    parse_actions(record["moves"]))
    assert result.ok
    assert result.applied == len(record["moves"])
    assert result.state.board.to_rows() == record["final"]
    assert result.won == record["won"]


def test_golden_data_covers_every_pysolfc_variant(catalogue: Catalogue) -> None:
    """The recorded games exercise every variant that has a PySolFC id."""
    recorded = {record["variant"] for record in RECORDS}
    with_pysolfc_id = {slug for slug, info in catalogue.variants.items() if info.pysolfc_id}
    assert recorded == with_pysolfc_id
    assert all(catalogue.variants[record["variant"]].pysolfc_id == record["pysolfc_id"]
               for record in RECORDS)
