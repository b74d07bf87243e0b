"""The packed table of dead positions: a set's answers in less memory, and a search that
packs its table answers as one that does not, position for position."""

from __future__ import annotations

import random

import attrs
import pytest

from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import new_game
from gapgrid.core.packed_keys import PackedKeys
from gapgrid.core.replay import replay_from
from gapgrid.core.search import Budget, solve


def test_it_answers_as_a_set_through_many_splits() -> None:
    """Keys of several lengths, enough to split the buckets many times over: every key
    added is found, no other is, and the count is the set's."""
    chooser = random.Random(7)
    added = {chooser.randbytes(chooser.choice((3, 39, 40))) for _ in range(60_000)}
    packed = PackedKeys(added)
    assert len(packed) == len(added)
    assert all(key in packed for key in added)
    others = {chooser.randbytes(chooser.choice((3, 39, 40, 41))) for _ in range(60_000)}
    assert [key for key in others - added if key in packed] == []


def test_a_key_is_never_found_across_two_others() -> None:
    """Keys side by side in their bucket hold, at every offset, the bytes of others: none of
    those is in the set unless added (a key is found only at a multiple of its length)."""
    chooser = random.Random(11)
    added = {chooser.randbytes(4) for _ in range(5_000)}
    packed = PackedKeys(added)
    across = {bytes(bucket[at:at + 4])
              for bucket in packed._by_width[4].buckets  # the buckets as they lie
              for at in range(1, len(bucket) - 4) if at % 4}
    assert len(across - added) > 10_000
    assert [key for key in across - added if key in packed] == []


def test_the_empty_key() -> None:
    """b"" has no bucket to sit in: it is a member only once added."""
    packed = PackedKeys([b"ab"])
    assert b"" not in packed
    packed.add(b"")
    assert b"" in packed and len(packed) == 2


def test_packing_changes_no_answer_and_no_position(catalogue: Catalogue) -> None:
    """With the tables packed from their first dead positions on, a search explores the
    same positions and gives the same answers: a loss proven, a win with the same line."""
    games = [new_game(catalogue.rules("line-up"), DealNumber(11)),  # lost: some 63,000
             new_game(catalogue.rules("montana", {"redeals": "0"}), DealNumber(2))]
    budget = Budget(seconds=None, positions=200_000)
    plain = [solve(state, budget) for state in games]
    packed = [solve(state, attrs.evolve(budget, pack_at=1e-9)) for state in games]
    assert [(result.verdict, result.positions, result.line) for result in packed] == [
        (result.verdict, result.positions, result.line) for result in plain]
    assert plain[0].verdict == "lost" and plain[1].verdict == "won"
    replayed = replay_from(games[1], packed[1].line)
    assert replayed.ok and replayed.won


def test_a_packed_table_holds_a_proof_a_set_could_not(catalogue: Catalogue) -> None:
    """Line Up game 11's proof does not fit in 2 MB of sets (unknown, the memory full); packed
    once the tables fill half of it, it does: lost, after the very positions an unlimited
    search explores."""
    state = new_game(catalogue.rules("line-up"), DealNumber(11))
    unlimited = solve(state, Budget(seconds=None))
    small = Budget(seconds=None, memory=2_000_000)
    in_sets = solve(state, attrs.evolve(small, pack_at=2.0))  # never packed
    assert (in_sets.verdict, in_sets.stopped_by) == ("unknown", "memory")
    packed = solve(state, small)
    assert (packed.verdict, packed.positions) == ("lost", unlimited.positions)


@pytest.mark.parametrize("share", [0, -0.5, float("nan")])
def test_a_budget_refuses_a_share_to_pack_at_that_is_not_above_0(share: float) -> None:
    """A share of the memory that is not a number above 0 is refused when the budget is
    made, not met as a search that never packs (NaN) or packs at once (0)."""
    with pytest.raises(ValueError, match="pack_at must be a number above 0"):
        Budget(pack_at=share)


@pytest.mark.parametrize("share", ["half", None])
def test_a_budget_refuses_a_share_to_pack_at_that_is_no_number(share: object) -> None:
    """Not a number at all: a TypeError, as the compiled class gives."""
    with pytest.raises(TypeError):
        Budget(pack_at=share)  # type: ignore[arg-type]
