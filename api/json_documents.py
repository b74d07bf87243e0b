"""JSON serialisers: domain values as the plain dictionaries gapgrid prints and serves.

Domain classes know nothing of JSON; these functions turn them into the
documents of the service layer (:mod:`gapgrid.api.services`), which both the
command line and the HTTP API print unchanged, so ``gapgrid verify --json``
and ``POST /v1/verify`` answer alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gapgrid.core.board import Board
from gapgrid.core.cards import card_code
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


def verify_json(rules: Rules, deal: DealNumber, result: ReplayResult, *,
                redeals_cap_left: int) -> dict[str, Any]:
    """The answer of ``gapgrid verify --json``: the replay's outcome and final layout.

    ``redeals_left`` is what the rules leave (the scores count it); ``redeals_cap_left``,
    how many more redeals the service lets this game ask for, undone ones included,
    whatever the rules allow: a game may ask for a redeal when both are above 0.
    """
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
        "redeals_cap_left": redeals_cap_left,
        "rows": state.board.to_rows(),
        "error": None if error is None else {
            "index": error.index, "move": error.move, "kind": error.kind, "reason": error.reason,
        },
    }


def position_json(rules: Rules, deal: DealNumber, result: ReplayResult, *,
                  redeals_cap_left: int) -> dict[str, Any]:
    """The answer of ``gapgrid moves --json``: the verify document without scores, plus
    what can be played in the position reached (``stuck``, ``redeal_allowed``,
    ``legal_moves``: card moves, gap by gap in slot order)."""
    state = result.state
    cells = state.board.cells
    document = verify_json(rules, deal, result, redeals_cap_left=redeals_cap_left)
    document["stuck"] = state.is_stuck
    document["redeal_allowed"] = state.can_redeal() and redeals_cap_left > 0
    legal: list[dict[str, Any]] = []
    for move in state.legal_moves():
        card = cells[move.source]
        if card is None:  # the engine only offers moves of cards; a gap here is a bug
            raise AssertionError(f"legal move {move} starts from a gap")
        legal.append({"move": str(move), "source": move.source, "target": move.target,
                      "card": card_code(card)})
    document["legal_moves"] = legal
    return document


def scores_json(summary: GameSummary, schemes: Mapping[str, ScoringInfo]) -> dict[str, Any]:
    """The ``scores`` object: the summary terms, then one entry per scheme."""
    scores: dict[str, Any] = summary.terms()
    for name, info in schemes.items():
        score = info.score(summary)
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
