"""JSON shapes shared by the command line and the HTTP API.

Domain classes know nothing of JSON; these functions turn them into the
plain dictionaries both interfaces print, so ``gapgrid verify --json`` and
``POST /v1/verify`` always answer alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gapgrid.core.board import Board
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.registry import PresetInfo, ScoringInfo, VariantInfo
from gapgrid.core.replay import ReplayResult
from gapgrid.core.rules import Rules, redeals_json
from gapgrid.core.scoring import GameSummary


def entry_json(catalogue: Catalogue, entry: VariantInfo | PresetInfo) -> dict[str, Any]:
    """Describe a variant or preset: names, geometry, redeals, accepted options, rules text."""
    rules = catalogue.rules(entry.slug)
    variant = catalogue.variant_of(entry)
    layout = rules.layout
    return {
        "slug": entry.slug,
        "name": entry.name,
        "kind": "preset" if isinstance(entry, PresetInfo) else "variant",
        "other_names": list(entry.other_names),
        "pysolfc_id": entry.pysolfc_id if isinstance(entry, VariantInfo) else None,
        "base": entry.base,
        "rows": layout.rows,
        "rstep": layout.rstep,
        "rbase": layout.rbase,
        "rlen": layout.rlen,
        "decks": layout.decks,
        "ranks": list(layout.ranks),
        "redeals": redeals_json(rules.redeals),
        "redeal_placement": rules.placement.name,
        "redeal_when": rules.timing.value,
        "preset_options": dict(entry.options) if isinstance(entry, PresetInfo) else {},
        "options": [{"key": key, "values": catalogue.options[key].values,
                     "choices": list(catalogue.options[key].choices),
                     "summary": catalogue.options[key].summary}
                    for key in variant.options if key in catalogue.options],
        "summary": entry.summary,
        "plugin": entry.plugin,
    }


def deal_json(rules: Rules, deal: DealNumber, board: Board) -> dict[str, Any]:
    """The answer of ``gapgrid deal --json``."""
    return {
        "variant": rules.slug,
        "deal": str(deal),
        "pysolfc_title": deal.pysolfc_title,
        "options": dict(rules.options),
        "rows": board.to_rows(),
    }


def verify_json(rules: Rules, deal: DealNumber, result: ReplayResult) -> dict[str, Any]:
    """The answer of ``gapgrid verify --json``: the replay's outcome and final layout."""
    state = result.state
    error = result.error
    return {
        "variant": rules.slug,
        "deal": str(deal),
        "options": dict(rules.options),
        "ok": result.ok,
        "won": result.won,
        "moves_applied": result.applied,
        "redeals_used": state.redeals_used,
        "redeals_left": _left(rules, state.redeals_used),
        "rows": state.board.to_rows(),
        "error": None if error is None else {
            "index": error.index, "move": error.move, "kind": error.kind, "reason": error.reason,
        },
    }


def scores_json(summary: GameSummary, schemes: Mapping[str, ScoringInfo]) -> dict[str, Any]:
    """The ``scores`` object: the summary terms, then one entry per scheme."""
    scores: dict[str, Any] = summary.terms()
    for name, info in schemes.items():
        score = info.scheme.score(summary)
        scores[name] = {
            "total": score.total,
            "breakdown": dict(score.breakdown),
            "better": score.better,
            "sort_key": list(score.sort_key),
            "explanation": score.explanation,
            **score.extra,
        }
    return scores


def _left(rules: Rules, used: int) -> int | str:
    left = rules.redeals_left(used)
    return "unlimited" if left is None else left
