"""Reading the games recorded from the real PySolFC (copied into data/)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1] / "data"
GOLDEN_GAMES = DATA / "pysolfc-games.jsonl"
SAVED_GAMES = DATA / "pso"


@cache
def golden_games() -> tuple[dict[str, Any], ...]:
    """Every recorded game, in file order."""
    with GOLDEN_GAMES.open(encoding="utf-8") as lines:
        return tuple(json.loads(line) for line in lines if line.strip())


def golden_ids(records: tuple[dict[str, Any], ...]) -> list[str]:
    """Test ids naming each record by variant and game number."""
    return [f"{record['variant']}-{record['deal']}" for record in records]


def records_for(variant: str) -> list[dict[str, Any]]:
    """The recorded games of one variant."""
    return [record for record in golden_games() if record["variant"] == variant]


def redeal_points(record: dict[str, Any]) -> list[int]:
    """Indexes of the redeals among a record's moves."""
    return [index for index, move in enumerate(record["moves"]) if move == "redeal"]
