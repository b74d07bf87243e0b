"""The service layer on its own: plain values in, documents out, refusals naming the field."""

from __future__ import annotations

import itertools
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gapgrid.api.services import games
from gapgrid.api.services.errors import Fault, ServiceError
from gapgrid.api.services.puzzles import summary_of_answer
from gapgrid.api.store import encode_sort_key
from gapgrid.core.catalogue import Catalogue
from tests.golden import golden_games


def test_the_service_layer_imports_no_web_or_terminal_code() -> None:
    """Importing the use cases brings in neither Flask nor click."""
    finished = subprocess.run(
        [sys.executable, "-c", "import sys, gapgrid.api.services.games, "
         "gapgrid.api.services.puzzles; print(sorted({'flask', 'click', 'werkzeug'} & "
         "set(sys.modules)))"], capture_output=True, text=True, timeout=60)
    assert finished.stdout.strip() == "[]", finished.stderr


@pytest.mark.parametrize(("changes", "fault", "field"), [
    ({"variant": "montanna"}, Fault.UNKNOWN_VARIANT, ("variant",)),
    ({"deal": "ms0"}, Fault.INVALID, ("deal",)),
    ({"moves": ["1-2", "3-x"]}, Fault.INVALID, ("moves", 1)),
    ({"options": {"colour": "red"}}, Fault.INVALID, ("options", "colour")),
    ({"options": {"redeals": "lots"}}, Fault.INVALID, ("options", "redeals")),
    ({"scoring": ["cards", "golf"]}, Fault.INVALID, ("scoring", 1)),
    ({"elapsed": -0.5}, Fault.INVALID, ("elapsed",)),
    ({"elapsed": float("nan")}, Fault.INVALID, ("elapsed",)),
    ({"elapsed": True}, Fault.INVALID, ("elapsed",)),
])
def test_verify_refusals_name_the_field(catalogue: Catalogue, changes: dict[str, Any],
                                        fault: Fault, field: tuple[str | int, ...]) -> None:
    """Each bad value is refused with its fault and its place in the request."""
    request: dict[str, Any] = {"variant": "montana", "deal": "1", "moves": [], **changes}
    with pytest.raises(ServiceError) as refused:
        games.verify(catalogue, **request)
    assert (refused.value.fault, refused.value.field) == (fault, field)


@pytest.mark.parametrize("elapsed", [None, 0.0, 95.25])
def test_a_stored_answer_scores_as_the_game_does(catalogue: Catalogue,
                                                 elapsed: float | None) -> None:
    """A scheme scoring a stored answer (to rank submissions made before it was loaded)
    gives what it gives when it scores the replay itself, for every golden game, given the
    deal's cards in sequence (which the puzzle's rows tell); also where the cap on the
    redeals a game asks for leaves fewer than the rules do (the scores count the rules')."""
    near_the_cap = [  # 499 redeals asked and undone: the rules' 2 are left, the cap's 1
        {"variant": "montana", "deal": "7", "moves": ["redeal", "undo"] * 499},
        {"variant": "montana", "deal": "7", "moves": ["redeal", "undo"] * 499 + ["redeal"]}]
    for record in [*golden_games(), *near_the_cap]:
        verified = games.verify(catalogue, variant=record["variant"], deal=record["deal"],
                                moves=record["moves"], elapsed=elapsed)
        answer = {"result": verified.document, "elapsed_seconds": elapsed}
        dealt = games.deal(catalogue, record["variant"], record["deal"])
        summary = summary_of_answer(answer, dealt.state.board.cards_in_sequence())
        for name, info in catalogue.scoring.items():
            score = info.scheme.score(summary)
            stored = verified.document["scores"][name]
            assert (score.total, list(score.sort_key)) == (stored["total"], stored["sort_key"])


KEYS = st.lists(st.integers(-2**63, 2**63 - 1), max_size=5)


@given(st.lists(KEYS, min_size=2, max_size=8))
def test_encoded_sort_keys_sort_as_the_tuples(keys: list[list[int]]) -> None:
    """The text a sort key is stored as sorts byte by byte exactly as the tuple sorts."""
    assert sorted(keys, key=encode_sort_key) == sorted(keys)
    for first, second in itertools.pairwise(keys):
        assert (encode_sort_key(first) == encode_sort_key(second)) == (first == second)


def test_a_sort_key_beyond_64_bits_is_refused() -> None:
    """A part that cannot be stored in order is an error, never a wrong ranking."""
    with pytest.raises(ValueError, match="64 bits"):
        encode_sort_key([2**63])


def test_position_of_the_deal_lists_every_legal_move(catalogue: Catalogue) -> None:
    """With no moves the position is the deal, and its legal moves are the engine's."""
    from gapgrid.core.dealnumber import parse_deal_number
    from gapgrid.core.game import new_game
    position = games.position(catalogue, variant="blue-moon", deal="617", moves=[])
    state = new_game(catalogue.rules("blue-moon"), parse_deal_number("617"))
    assert [move["move"] for move in position.document["legal_moves"]] == [
        str(move) for move in state.legal_moves()]
    assert position.ok and position.document["moves_applied"] == 0
