"""The store's rules, each on SQLite and on a real PostgreSQL (the ``store`` fixture runs
every test on both): one submission per player however many arrive at once, ranks and
pages as SQL's ``RANK()`` gives them, the tallies that replace walking a puzzle, leases
that exactly one owner takes, names that exactly one player claims, late start tokens that
exactly one player uses."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

import pytest

from gapgrid.api.db import queries
from gapgrid.api.store import (
    NameTaken,
    NewSubmission,
    PlayerClaim,
    RankingKey,
    Store,
    TokenTaken,
    UnrankedSubmission,
)

PUZZLE = "2026-11-30/montana"


def at_once(count: int, work: Callable[[int], Any]) -> list[Any]:
    """Run ``work(0) .. work(count - 1)`` in threads released together; their results."""
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = work(index)
        except Exception as error:  # kept: the test asserts on it
            results[index] = error
    threads = [threading.Thread(target=run, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def submission(player: str, keys: dict[str, tuple[int, ...]] | None = None,
               digest: str = "d", **changes: Any) -> NewSubmission:
    """A submission of ``player`` (key: the name lower-cased) with keys ``{scheme: key}``."""
    ranking = {scheme: RankingKey(key, len(key)) for scheme, key in (keys or {}).items()}
    fields: dict[str, Any] = {
        "puzzle_id": PUZZLE, "player": player, "player_key": player.lower(),
        "moves_digest": digest, "keys": ranking, "body": {"player": player, "digest": digest},
        "created_at": "2026-11-30T12:00:00Z"}
    return NewSubmission(**{**fields, **changes})


@pytest.fixture
def puzzle_store(store: Store) -> Store:
    """The store with today's puzzle in it."""
    store.keep_puzzle(PUZZLE, "2026-11-30", "montana", {"id": PUZZLE, "deal": "7"}, "t")
    return store


def test_the_first_puzzle_stored_is_kept(store: Store) -> None:
    """Keeping a puzzle that exists returns the stored one, unchanged."""
    assert store.puzzle(PUZZLE) is None
    first = store.keep_puzzle(PUZZLE, "2026-11-30", "montana", {"deal": "7"}, "t")
    assert store.keep_puzzle(PUZZLE, "2026-11-30", "montana", {"deal": "8"}, "t") == first
    assert store.puzzle(PUZZLE) == {"deal": "7"}


def test_one_submission_per_player_however_many_arrive_at_once(puzzle_store: Store) -> None:
    """Eight identical submissions of one player at once: one is stored, every answer is
    that one, and the player counts once."""
    results = at_once(8, lambda _: puzzle_store.submit(submission("Ann", {"par": (0, 5)})))
    assert [created for _, created in results].count(True) == 1
    assert {stored.body["player"] for stored, _ in results} == {"Ann"}
    assert puzzle_store.count(PUZZLE) == 1
    assert puzzle_store.rank(PUZZLE, "ann", "par") == (1, 1)


def test_many_players_at_once_are_all_counted_and_ranked(puzzle_store: Store) -> None:
    """Forty players submitting together: forty stored, tallied and ranked."""
    at_once(40, lambda index: puzzle_store.submit(
        submission(f"P{index}", {"par": (0, index % 7), "cards": (-index,)})))
    assert puzzle_store.count(PUZZLE) == 40
    page, total = puzzle_store.leaderboard(PUZZLE, "cards", 0, 100)
    assert total == 40 and [line.player for line in page] == [f"P{i}" for i in range(39, -1, -1)]


@pytest.mark.parametrize("direct_offset", [500, 0])
def test_ranks_and_pages_are_rank_over_the_sort_keys(puzzle_store: Store, direct_offset: int,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys of different lengths, many ties, across and within tally buckets: every rank and
    every page is what RANK() OVER (ORDER BY key) gives, ties sharing the first rank; so
    are deep pages, found by skipping whole buckets (forced here from the first page)."""
    monkeypatch.setattr(queries, "DIRECT_OFFSET", direct_offset)
    chosen = random.Random(13)
    keys = {}
    for index in range(120):
        length = chosen.choice((1, 3, 4, 5))
        keys[f"p{index}"] = tuple(chosen.choice((-2**40, -1, 0, 1, 2, 2**40))
                                  for _ in range(length))
        puzzle_store.submit(submission(f"p{index}", {"par": keys[f"p{index}"]}))
    ordered = sorted(keys, key=lambda name: (keys[name], int(name[1:])))
    expected = {name: 1 + sum(1 for other in keys.values() if other < keys[name])
                for name in keys}
    for name in keys:
        assert puzzle_store.rank(PUZZLE, name, "par") == (expected[name], 120)
    for offset, limit in ((0, 7), (7, 7), (50, 33), (110, 20), (119, 3), (120, 5), (200, 5)):
        page, total = puzzle_store.leaderboard(PUZZLE, "par", offset, limit)
        assert total == 120
        assert [(line.rank, line.player) for line in page] == [
            (expected[name], name) for name in ordered[offset:offset + limit]]
    assert puzzle_store.rank(PUZZLE, "nobody", "par") == (0, 0)


def test_a_replaced_submission_takes_its_keys_with_it(puzzle_store: Store) -> None:
    """A replacement happens only if the stored submission is still the one read; its keys
    replace the old ones in the ranking, and the player still counts once."""
    puzzle_store.submit(submission("Ann", {"par": (2, 9)}, digest="empty"))
    puzzle_store.submit(submission("Ben", {"par": (1, 1)}))
    assert puzzle_store.rank(PUZZLE, "ann", "par") == (2, 2)
    assert not puzzle_store.replace_submission(submission("Ann", {"par": (0, 3)}, digest="x"),
                                               "not the stored one")
    results = at_once(4, lambda index: puzzle_store.replace_submission(
        submission("Ann", {"par": (0, index)}, digest=f"won {index}"), "empty"))
    assert results.count(True) == 1
    assert puzzle_store.rank(PUZZLE, "ann", "par") == (1, 2)
    assert puzzle_store.count(PUZZLE) == 2
    page, total = puzzle_store.leaderboard(PUZZLE, "par", 0, 10)
    assert total == 2 and [line.player for line in page] == ["Ann", "Ben"]


def test_submissions_without_a_scheme_s_key_are_found_and_ranked_once(
        puzzle_store: Store) -> None:
    """A submission stored without a scheme's key is listed as unranked until its key is
    added; adding it twice (two servers at once) counts it once."""
    puzzle_store.submit(submission("Ann", {"par": (0, 1), "cards": (-3,)}))
    puzzle_store.submit(submission("Ben", {"par": (0, 2)}))
    assert puzzle_store.unranked(PUZZLE, "par") == []
    [missing] = puzzle_store.unranked(PUZZLE, "cards")
    assert isinstance(missing, UnrankedSubmission) and missing.body["player"] == "Ben"
    at_once(3, lambda _: puzzle_store.add_keys([(missing, "cards", RankingKey((-5,), 5))]))
    assert puzzle_store.unranked(PUZZLE, "cards") == []
    assert puzzle_store.leaderboard(PUZZLE, "cards", 0, 10)[1] == 2
    assert puzzle_store.rank(PUZZLE, "ben", "cards") == (1, 2)


def test_exactly_one_owner_takes_a_free_lease(store: Store) -> None:
    """Six owners asking at once for a free lease: one gets it, the others learn how long
    it lasts; it is free again when released or expired."""
    results = at_once(6, lambda index: store.take_lease("make", f"o{index}", 10, now=100.0))
    assert results.count(0.0) == 1 and all(left == pytest.approx(10) for left in results
                                           if left != 0.0)
    holder = f"o{results.index(0.0)}"
    assert store.take_lease("make", holder, 10, now=101.0) == 0  # its own: renewed
    store.release_lease("make", "someone else")
    assert store.take_lease("make", "x", 10, now=102.0) == pytest.approx(9)
    assert store.take_lease("make", "x", 10, now=111.5) == 0  # expired at 111
    store.release_lease("make", "x")
    assert store.take_lease("make", holder, 10, now=112.0) == 0


def test_hints_are_counted_by_token(puzzle_store: Store) -> None:
    """Hints asked with a token are counted for that token only."""
    assert puzzle_store.hints_for("t1") == 0
    puzzle_store.record_hint(PUZZLE, "t1", 3, "t")
    puzzle_store.record_hint(PUZZLE, "t1", 4, "t")
    assert (puzzle_store.hints_for("t1"), puzzle_store.hints_for("t2")) == (2, 0)


def test_exactly_one_player_claims_a_name(puzzle_store: Store) -> None:
    """Five claims of one name at once: one wins; a submission whose claim loses is not
    stored at all."""
    results = at_once(5, lambda index: puzzle_store.claim_player(
        PlayerClaim("ann", "Ann", f"digest {index}", "t")))
    assert sum(1 for result in results if isinstance(result, NameTaken)) == 4
    player = puzzle_store.player("ann")
    assert player is not None and player.token_digest == f"digest {results.index(None)}"
    with pytest.raises(NameTaken):
        puzzle_store.submit(submission("Ann", {"par": (0, 1)}),
                            PlayerClaim("ann", "Ann", "another", "t"))
    assert puzzle_store.count(PUZZLE) == 0 and puzzle_store.rank(PUZZLE, "ann", "par") == (0, 0)


def test_a_late_start_token_is_its_first_player_s_only(puzzle_store: Store) -> None:
    """A start token stays with the first player who submitted with it: during the day
    others may submit with it too, but a late submission with it is refused (nothing of it
    stored, its name claim neither) unless it is that player's; of five late submissions
    with a fresh token at once, one player's is taken."""
    puzzle_store.submit(submission("Ann", {"par": (0, 1)}, token_digest="t1"))
    puzzle_store.submit(submission("Bo", {"par": (0, 2)}, token_digest="t1"))  # in the day
    with pytest.raises(TokenTaken):
        puzzle_store.submit(submission("Cy", {"par": (0, 3)}, token_digest="t1", late=True),
                            PlayerClaim("cy", "Cy", "digest", "t"))
    assert puzzle_store.player("cy") is None and puzzle_store.count(PUZZLE) == 2
    stored, created = puzzle_store.submit(
        submission("Ann", {"par": (0, 1)}, digest="e", token_digest="t1", late=True))
    assert (stored.body["player"], created) == ("Ann", False)  # hers: the usual answer
    results = at_once(5, lambda index: puzzle_store.submit(submission(
        f"P{index}", {"par": (0, index)}, token_digest="t2", late=True)))
    taken = [result for result in results if not isinstance(result, TokenTaken)]
    assert len(taken) == 1 and taken[0][1] is True and puzzle_store.count(PUZZLE) == 3


def test_only_a_stored_submission_makes_a_start_token_its_player_s(
        puzzle_store: Store) -> None:
    """A submission not stored (the player has one already) leaves its start token free,
    so that its own player's late submission is still taken; a late replacement with a
    token another player holds is refused and replaces nothing."""
    puzzle_store.submit(submission("Ann", {"par": (0, 1)}))
    _, created = puzzle_store.submit(submission("Ann", {"par": (0, 1)}, digest="e",
                                                token_digest="bo's"))
    assert created is False
    _, created = puzzle_store.submit(submission("Bo", {"par": (0, 2)}, token_digest="bo's",
                                                late=True))
    assert created is True
    with pytest.raises(TokenTaken):
        puzzle_store.replace_submission(submission("Ann", {"par": (0, 3)}, digest="f",
                                                   token_digest="bo's", late=True), "d")
    assert puzzle_store.rank(PUZZLE, "ann", "par") == (1, 2)  # still her (0, 1)
    assert puzzle_store.replace_submission(submission("Ann", {"par": (0, 3)}, digest="f",
                                                      token_digest="ann's", late=True), "d")
