"""Move notation: F-T, redeal and undo, written and read back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gapgrid.core.notation import (
    REDEAL,
    UNDO,
    Move,
    NotationError,
    format_actions,
    parse_action,
    parse_actions,
)

actions = st.one_of(
    st.builds(Move, st.integers(min_value=0, max_value=999_999),
              st.integers(min_value=0, max_value=999_999)),
    st.just(REDEAL), st.just(UNDO))


@given(st.lists(actions, max_size=50))
def test_notation_formats_and_parses_back(sequence: list[Move]) -> None:
    """Any sequence of actions written in notation reads back as the same actions."""
    assert parse_actions(format_actions(sequence)) == sequence


def test_words_are_case_insensitive() -> None:
    """``Redeal`` and ``UNDO`` are accepted."""
    assert parse_action("Redeal") is REDEAL
    assert parse_action("UNDO") is UNDO
    assert parse_action("012-3") == Move(12, 3)


@pytest.mark.parametrize(("text", "reason"), [
    ("12", "write a move as F-T"),
    ("", "write a move as F-T"),
    ("12-", "a slot number is missing: write a move as F-T, such as '12-25'"),
    ("-5", "slot numbers are never negative"),
    ("-1-3", "slot numbers are never negative"),
    ("12--3", "slot numbers are never negative"),
    ("-١-3", "a slot number is missing"),  # not an ASCII digit: no minus sign either
    ("--3", "slot numbers are never negative"),
    ("-", "a slot number is missing"),
    ("a-5", "'a' is not a slot number"),
    ("1-2-3", "'2-3' is not a slot number"),
    ("12 - 25", "'12 ' is not a slot number"),
    ("+1-2", "'+1' is not a slot number"),
    ("١-٢", "is not a slot number"),
    ("1234567-1", "far off any board"),
    ("redo", "write a move as F-T"),
])
def test_text_that_is_no_move_is_refused(text: str, reason: str) -> None:
    """Malformed moves raise NotationError quoting the text and saying why."""
    with pytest.raises(NotationError, match="is not a move") as caught:
        parse_action(text)
    assert reason in caught.value.reason


def test_sequence_error_names_the_index() -> None:
    """In a sequence, the error says which move (from 0) is malformed."""
    with pytest.raises(NotationError) as caught:
        parse_actions(["1-2", "redeal", "x"])
    assert caught.value.index == 2
    assert str(caught.value).startswith("move 2: ")


def test_non_strings_are_refused() -> None:
    """A number where a move string belongs (JSON input) is a NotationError, not a crash."""
    with pytest.raises(NotationError):
        parse_action(12)  # type: ignore[arg-type]
