"""Game numbers read exactly as PySolFC reads them, and refused where PySolFC refuses."""

from __future__ import annotations

import pytest

from gapgrid.core.dealnumber import (
    MAX_NUMBER,
    MS_MAX,
    DealNumberError,
    GameRandom,
    MersenneState,
    parse_deal_number,
)


@pytest.mark.parametrize(("text", "value", "lcrandom"), [
    ("617", 617, True),
    ("ms617", 617, True),
    ("#ms617", 617, True),
    ("  617 ", 617, True),
    ("31999", 31999, True),
    ("32000", 32000, False),  # PySolFC: 32000 itself is MTRandom
    ("ms32000", 32000, True),
    ("#00000000000000123456", 123456, False),
    ("1,234", 1234, True),
    ("12-345", 12345, True),
    ("123-456", 123456, False),
    ("617L", 617, True),
    ("100000000000000000000", 10**20, False),
    ("ms8589934591", MS_MAX, True),
])
def test_accepted_numbers(text: str, value: int, lcrandom: bool) -> None:
    """Every form PySolFC accepts gives its seed and its generator."""
    number = parse_deal_number(text)
    assert number.value == value
    assert number.uses_lcrandom is lcrandom


@pytest.mark.parametrize(("text", "message"), [
    ("0", "no game 0"),
    ("ms0", "ms1 to"),
    ("ms8589934592", "ms1 to"),
    ("-5", "positive"),
    ("- 5", "positive"),
    ("abc", "not a game number"),
    ("", "not a game number"),
    ("#", "not a game number"),
    ("12a", "not a game number"),
    ("٣٤", "not a game number"),  # non-ASCII digits are not PySolFC numbers here
    ("100000000000000000001", "10\\*\\*20"),
    ("ms", "not a game number"),
])
def test_refused_numbers_say_why(text: str, message: str) -> None:
    """0, ms0, negative numbers, garbage and numbers past 10**20 get a clear error."""
    with pytest.raises(DealNumberError, match=message):
        parse_deal_number(text)


def test_integers_are_accepted_and_checked() -> None:
    """A JSON integer is a game number too, within the same limits."""
    assert parse_deal_number(617).value == 617
    with pytest.raises(DealNumberError):
        parse_deal_number(0)
    with pytest.raises(DealNumberError):
        parse_deal_number(MAX_NUMBER + 1)
    with pytest.raises(DealNumberError):
        parse_deal_number(True)


def test_text_forms() -> None:
    """str() is the shortest equivalent text; the title is what PySolFC shows."""
    assert str(parse_deal_number("#ms617")) == "617"
    assert str(parse_deal_number("ms6818606754")) == "ms6818606754"
    assert str(parse_deal_number("#00000000000000123456")) == "123456"
    assert parse_deal_number("617").pysolfc_title == "#ms617"
    assert parse_deal_number("123456").pysolfc_title == "#00000000000000123456"


def test_same_seed_same_generator_sequence() -> None:
    """The generator restarts from the seed: two fresh ones draw the same numbers."""
    first, second = parse_deal_number("40000").new_random(), parse_deal_number("40000").new_random()
    cards_a, cards_b = list(range(52)), list(range(52))
    first.shuffle(cards_a)
    second.shuffle(cards_b)
    assert cards_a == cards_b


@pytest.mark.parametrize("number", ["617", "40000"])
def test_state_restores_the_draws(number: str) -> None:
    """setstate(getstate()) makes the generator repeat its next draws (undo of a redeal)."""
    generator = parse_deal_number(number).new_random()
    generator.shuffle(list(range(10)))
    state = generator.getstate()
    hash(state)
    first = list(range(30))
    generator.shuffle(first)
    generator.setstate(state)
    again = list(range(30))
    generator.shuffle(again)
    assert first == again


def test_equal_numbers_deal_equal_games() -> None:
    """617, ms617 and #ms617 are one game and compare equal; ms40000 and 40000 are not."""
    assert parse_deal_number("617") == parse_deal_number("ms617") == parse_deal_number("#ms617")
    assert parse_deal_number("ms40000") != parse_deal_number("40000")


@pytest.mark.parametrize("number", ["617", "ms3000000000", "ms8000000000", "40000",
                                    "98765432109876543210"])
def test_shuffle_and_choice_draw_what_pysol_cards_draws(number: str) -> None:
    """The written-out shuffles (Mersenne, and LCRandom31 below and above 2**32) and choice
    draw pysol_cards' own, length by length."""
    ours, theirs = parse_deal_number(number).new_random(), parse_deal_number(number).new_random()
    pysol = theirs._generator
    for length in [0, 1, 2, 3, 13, 52, 104, 300]:
        mine, reference = list(range(length)), list(range(length))
        ours.shuffle(mine)
        pysol.shuffle(reference)
        assert mine == reference, length
        if length:
            assert ours.choice(mine) == pysol.choice(reference)
    assert ours.getstate() == GameRandom(pysol).getstate()


def test_mersenne_state_is_compact_and_shared() -> None:
    """A Mersenne state packs its 624 words in 2,496 bytes, shared until the twister regenerates."""
    generator = parse_deal_number("40000").new_random()
    generator.shuffle(list(range(10)))
    first = generator.getstate()
    generator.shuffle(list(range(10)))  # 9 more draws of 2 words: no regeneration
    second = generator.getstate()
    assert isinstance(first, MersenneState) and isinstance(second, MersenneState)
    assert len(first.words) == 2496
    assert second.words is first.words and second.position == first.position + 18
    generator.shuffle(list(range(400)))  # 798 words: the words are regenerated
    assert generator.getstate().words != first.words


def test_a_state_restores_in_another_generator() -> None:
    """A state taken from one generator sets another of the same game to the same draws."""
    one, other = parse_deal_number("40000").new_random(), parse_deal_number("40000").new_random()
    one.shuffle(list(range(700)))
    state = one.getstate()
    other.setstate(state)
    assert other.getstate() == state
    drawn_one, drawn_other = list(range(50)), list(range(50))
    one.shuffle(drawn_one)
    other.shuffle(drawn_other)
    assert drawn_one == drawn_other


@pytest.mark.parametrize("number", ["40000", "98765432109876543210"])
def test_a_state_counted_from_the_draws_is_the_generators_own(number: str) -> None:
    """getstate() derives the state from the draws counted since the last read while the
    words stay the same; read after every shuffle and choice, across many regenerations,
    it is always what the generator itself holds."""
    ours = parse_deal_number(number).new_random()
    ours.getstate()
    for length in [*range(0, 120, 7), 104, 103, 300, 1, 2, 900, 52, 48]:
        ours.shuffle(list(range(length)))
        if length:
            ours.choice(list(range(length)))
        assert ours.getstate() == GameRandom(ours._generator).getstate(), length
