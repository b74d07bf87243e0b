"""Card codes: the two-character form, and the forgiving ways people type them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gapgrid.core.cards import (
    CardCodeError,
    card_code,
    card_symbol,
    is_red,
    make_card,
    parse_card,
    rank_of,
    suit_of,
)

cards = st.integers(min_value=0, max_value=51)


@given(cards)
def test_code_parses_back_to_the_same_card(card: int) -> None:
    """Every card's code reads back as that card."""
    assert parse_card(card_code(card)) == card


@given(cards)
def test_lower_case_and_ten_spelt_10_are_accepted(card: int) -> None:
    """``td``, ``10D`` and ``10d`` all name the ten of diamonds, and so on for every card."""
    code = card_code(card)
    assert parse_card(code.lower()) == card
    if code[0] == "T":
        assert parse_card("10" + code[1]) == card
        assert parse_card("10" + code[1].lower()) == card


def test_card_numbers_follow_pysolfc_card_ids() -> None:
    """A card is suit * 13 + rank, suits in PySolFC's order Clubs, Spades, Hearts, Diamonds."""
    assert parse_card("AC") == 0
    assert parse_card("KC") == 12
    assert parse_card("AS") == 13
    assert parse_card("AH") == 26
    assert parse_card("KD") == 51
    assert rank_of(parse_card("TD")) == 9 and suit_of(parse_card("TD")) == 3


def test_symbols_and_colours() -> None:
    """Display uses suit symbols and 10; Hearts and Diamonds are red."""
    assert card_symbol(parse_card("TD")) == "10♦"
    assert card_symbol(parse_card("AS")) == "A♠"
    assert is_red(parse_card("2H")) and is_red(parse_card("2D"))
    assert not is_red(parse_card("2C")) and not is_red(parse_card("2S"))


@pytest.mark.parametrize("text", ["", "T", "TDX", "1D", "11D", "ZD", "TX", "10", "♦10"])
def test_text_that_is_no_card_is_refused(text: str) -> None:
    """Anything but a rank and a suit raises a CardCodeError that quotes the input."""
    with pytest.raises(CardCodeError, match="is not a card"):
        parse_card(text)


def test_make_card_refuses_impossible_ranks_and_suits() -> None:
    """Ranks run 0-12 and suits 0-3."""
    with pytest.raises(ValueError):
        make_card(13, 0)
    with pytest.raises(ValueError):
        make_card(0, 4)
