"""Daily puzzles: which game number a day's puzzle is, and keeping it once served.

The game number comes from an HMAC of the date and the variant under the
server's secret, so nobody can tell tomorrow's puzzle from public data. It
lies where PySolFC draws its own random game numbers (10**16 to 10**20),
so the same puzzle can be played in PySolFC by number. The first time a
puzzle is served it is stored, and from then on the stored puzzle is what
everyone gets, whatever changes in the code later.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
from typing import Any, Final

from gapgrid.api.pysolfc.games import in_pysolfc, pysolfc_id_of, pysolfc_name
from gapgrid.api.store import Store
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import new_game
from gapgrid.core.registry import PresetInfo, VariantInfo

RULES_VERSION: Final = "1"
"""Bumped whenever a rule of an existing variant changes; stored with each puzzle."""

LOWEST_NUMBER: Final = 10**16
HIGHEST_NUMBER: Final = 10**20 - 1


def puzzle_id(date: datetime.date, slug: str) -> str:
    """The id of the puzzle of ``slug`` on ``date``: ``2026-11-30-blue-moon``."""
    return f"{date.isoformat()}-{slug}"


def puzzle_deal(secret: str, date: datetime.date, slug: str) -> DealNumber:
    """The game number of the puzzle of ``slug`` on ``date`` under ``secret``."""
    digest = hmac.new(secret.encode("utf-8"), f"gapgrid-daily|{date.isoformat()}|{slug}".encode(),
                      hashlib.sha256).digest()
    span = HIGHEST_NUMBER - LOWEST_NUMBER + 1
    return DealNumber(LOWEST_NUMBER + int.from_bytes(digest, "big") % span)


def day_bounds(date: datetime.date) -> tuple[datetime.datetime, datetime.datetime]:
    """The UTC day ``date`` spans: from its midnight to the next."""
    start = datetime.datetime.combine(date, datetime.time(), tzinfo=datetime.UTC)
    return start, start + datetime.timedelta(days=1)


def iso(moment: datetime.datetime) -> str:
    """A UTC time as ``2026-11-30T00:00:00Z``."""
    return moment.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")


def pysolfc_instructions(entry: VariantInfo | PresetInfo, deal: DealNumber) -> str:
    """How to open a puzzle in PySolFC."""
    plugin = "" if in_pysolfc(entry) else (
        ", which `gapgrid pysolfc install` adds to PySolFC,")
    return (f"In PySolFC, choose the game {pysolfc_name(entry)}{plugin} then File > Select "
            f"game by number... and enter {deal.pysolfc_title}.")


def make_puzzle(catalogue: Catalogue, secret: str, date: datetime.date,
                entry: VariantInfo | PresetInfo) -> dict[str, Any]:
    """A new puzzle document for ``entry`` on ``date``."""
    deal = puzzle_deal(secret, date, entry.slug)
    rules = catalogue.rules(entry.slug)
    starts, ends = day_bounds(date)
    return {
        "id": puzzle_id(date, entry.slug),
        "date": date.isoformat(),
        "variant": entry.slug,
        "name": entry.name,
        "options": dict(rules.options),
        "deal": str(deal),
        "rows": new_game(rules, deal).board.to_rows(),
        "starts_at": iso(starts),
        "ends_at": iso(ends),
        "rules_version": RULES_VERSION,
        "pysolfc": {"game_id": pysolfc_id_of(entry), "game_number": deal.pysolfc_title,
                    "how": pysolfc_instructions(entry, deal)},
    }


def daily_puzzle(store: Store, catalogue: Catalogue, secret: str, date: datetime.date,
                 entry: VariantInfo | PresetInfo, now: datetime.datetime) -> dict[str, Any]:
    """The puzzle of ``entry`` on ``date``: the stored one, or a new one stored now."""
    stored = store.puzzle(puzzle_id(date, entry.slug))
    if stored is not None:
        return stored
    return store.keep_puzzle(puzzle_id(date, entry.slug), date.isoformat(), entry.slug,
                             make_puzzle(catalogue, secret, date, entry), iso(now))
