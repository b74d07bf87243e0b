"""The scoring summary: the terms every scheme counts, taken from a replay."""

from __future__ import annotations

import pytest

from gapgrid.core.catalogue import Catalogue, UnknownSchemeError
from gapgrid.core.rules import UNLIMITED
from gapgrid.core.scoring import SUMMARY_FIELDS, GameSummary
from tests.scoring_positions import summary


def test_summary_of_the_winning_move(catalogue: Catalogue) -> None:
    """On paper: 48 cards in sequence, 4 rows finished, won with 1 move, no redeal used."""
    facts = summary(catalogue, "38-37")
    assert facts.won
    assert facts.terms() == {"cards_in_sequence": 48, "finished_rows": 4, "redeals_used": 0,
                             "undos": 0, "moves": 1}
    assert facts.unused_redeals == 2 and facts.redeals_to_spare


def test_an_undone_redeal_is_not_used_but_the_undo_counts(catalogue: Catalogue) -> None:
    """redeal, undo, 38-37: no redeal in effect, one undo, one card moved."""
    facts = summary(catalogue, "redeal undo 38-37")
    assert (facts.redeals_used, facts.undos, facts.moves) == (0, 1, 1)


def test_an_undone_move_still_counts_as_a_move(catalogue: Catalogue) -> None:
    """38-37, undo, 38-37: two cards moved, one undo (redeals and undos are not moves)."""
    facts = summary(catalogue, "38-37 undo 38-37")
    assert (facts.moves, facts.undos, facts.won) == (2, 1, True)


def test_unlimited_redeals_leave_nothing_to_count(catalogue: Catalogue) -> None:
    """With unlimited redeals there is no unused count, but always one to spare."""
    facts = summary(catalogue, "redeal 38-37", options={"redeals": "unlimited"})
    assert facts.redeals_allowed == UNLIMITED
    assert facts.unused_redeals == 0 and facts.redeals_to_spare


def test_seconds_left(catalogue: Catalogue) -> None:
    """Whole seconds left of an allowance, never below 0; None without a time."""
    assert summary(catalogue, "38-37", elapsed=119.4).seconds_left(600) == 480
    assert summary(catalogue, "38-37", elapsed=700).seconds_left(600) == 0
    assert summary(catalogue, "38-37").seconds_left(600) is None


def test_schemes_by_name(catalogue: Catalogue) -> None:
    """'all' selects every scheme; an unknown name is refused with the known ones."""
    assert list(catalogue.scoring_schemes(["all"])) == ["cards", "frontier", "par"]
    assert list(catalogue.scoring_schemes(["par", "cards"])) == ["par", "cards"]
    with pytest.raises(UnknownSchemeError, match="known: cards, frontier, par"):
        catalogue.scoring_schemes(["speed"])


def test_summary_fields_are_reserved_names(catalogue: Catalogue) -> None:
    """A scheme may not be called like a summary term, which shares its JSON object."""
    from gapgrid.core.registry import RegistrationError, Registry
    for name in SUMMARY_FIELDS:
        with pytest.raises(RegistrationError):
            Registry().add_scoring(name=name, summary="", scheme=catalogue.scoring["par"].scheme)


def test_summary_is_a_plain_value() -> None:
    """Summaries compare by value (hand-built ones are used by third-party scheme tests)."""
    facts = GameSummary(won=False, cards_in_sequence=3, finished_rows=0, rows=4,
                        redeals_allowed=2, redeals_used=1, undos=0, moves=7)
    assert facts == GameSummary(won=False, cards_in_sequence=3, finished_rows=0, rows=4,
                                redeals_allowed=2, redeals_used=1, undos=0, moves=7)
    assert facts.unused_redeals == 1
