"""Helpers the per-variant test files share: replaying golden games up to a point."""

from __future__ import annotations

from typing import Any

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import GameState
from gapgrid.core.notation import parse_actions
from gapgrid.core.replay import replay


def state_after(catalogue: Catalogue, record: dict[str, Any], count: int) -> GameState:
    """The state of a golden game after its first ``count`` moves."""
    result = replay(catalogue.rules(record["variant"]), parse_deal_number(record["deal"]),
                    parse_actions(record["moves"][:count]))
    assert result.ok
    return result.state


def gaps_after_runs(state: GameState) -> list[int]:
    """The slot right after each row's run: where Montana's redeal leaves its gaps."""
    layout = state.rules.layout
    return [start + length for start, length in zip(layout.row_starts(),
                                                    state.board.run_lengths(), strict=True)]
