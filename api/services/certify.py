"""Certified daily puzzles: candidate game numbers solved within a budget, the first won kept.

A day's candidates are game numbers drawn from the HMAC of the date, the
variant and an attempt counter under the server's secret, in the range where
PySolFC draws its own random game numbers (10**16 to 10**20 - 1), so a puzzle
can still be played in PySolFC by number and nobody can compute tomorrow's
from public data. Attempt 0 is the number gapgrid 0.1.0 chose for the day,
so a day whose first candidate is won keeps that number.

Each candidate is solved with :func:`gapgrid.core.search.solve` within
:attr:`CertifyBudget.candidate_positions`: a count of positions, not of
seconds, so that which candidate wins does not depend on how busy the
machine is (two processes choose the same puzzle, and the calibration is
reproducible). All candidates together get :attr:`CertifyBudget.total_seconds`
of wall time, which bounds the work whatever the load. The first won
becomes the puzzle; its line is shortened (:func:`gapgrid.core.search.shorten`,
a bounded pass) and kept, and its difficulty is rated
(:mod:`gapgrid.api.services.difficulty`). When no candidate is won within
the budget the first candidate is kept, uncertified; a stored puzzle's own
number can be certified later (:func:`certify_number`), since a stored
puzzle never changes its number.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import hmac
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

import attrs

from gapgrid.api.services import difficulty
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import new_game
from gapgrid.core.rules import Rules
from gapgrid.core.search import SOLVER_VERSION, Budget, shorten, solve

LOWEST_NUMBER: Final = 10**16
HIGHEST_NUMBER: Final = 10**20 - 1
"""PySolFC's range for random game numbers: every candidate lies in it."""


def candidate_deal(secret: str, date: datetime.date, slug: str, attempt: int) -> DealNumber:
    """Candidate number ``attempt`` (from 0) for the puzzle of ``slug`` on ``date``."""
    message = f"gapgrid-daily|{date.isoformat()}|{slug}"
    if attempt:  # attempt 0 is gapgrid 0.1.0's number for the day
        message += f"|{attempt}"
    digest = hmac.new(secret.encode("utf-8"), message.encode(), hashlib.sha256).digest()
    span = HIGHEST_NUMBER - LOWEST_NUMBER + 1
    return DealNumber(LOWEST_NUMBER + int.from_bytes(digest, "big") % span)


@attrs.frozen
class CertifyBudget:
    """How much creating or certifying one puzzle may spend."""

    candidate_positions: int | None = 100_000
    """Positions the search of one candidate may explore (about 5 s on one unloaded core)."""

    candidate_seconds: float = 60.0
    """Search time for one candidate, at most (a bound for a busy machine)."""

    total_seconds: float = 20.0
    """Search time for all candidates together."""

    max_candidates: int = 50
    """Candidates tried at most."""

    shorten_positions: int | None = 20_000
    """Positions of the shortening pass on the won line (after the searches): a count, not
    seconds, so that a deal's par is the same on any machine, however busy."""

    shorten_seconds: float = 5.0
    """Time of the shortening pass at most (a bound for a machine far too busy)."""

    memory: int = 512 << 20
    """Table memory of one search, in bytes."""

    @property
    def most_seconds(self) -> float:
        """An upper bound of the whole work's time, playouts included (a lease's length)."""
        return self.total_seconds + self.shorten_seconds + 10.0


@attrs.frozen
class Tried:
    """One candidate and what the solver said of it."""

    attempt: int | None
    """The candidate's attempt counter, or None for a stored puzzle's own number."""

    deal: DealNumber
    verdict: str
    positions: int
    seconds: float

    def json(self) -> dict[str, Any]:
        """As the certificate's JSON lists it."""
        return {"attempt": self.attempt, "deal": str(self.deal), "verdict": self.verdict,
                "positions": self.positions, "seconds": round(self.seconds, 3)}


@attrs.frozen
class Certificate:
    """What certifying found: the deal chosen, and its winning line if one was found."""

    deal: DealNumber
    certified: bool
    line: tuple[str, ...]
    """The shortened winning line, in notation (empty when not certified)."""

    difficulty: dict[str, Any] | None
    tried: tuple[Tried, ...]
    solver_version: str = SOLVER_VERSION

    @property
    def par(self) -> int | None:
        """The length of the line: the fewest actions known to win."""
        return len(self.line) if self.certified else None

    def body(self) -> dict[str, Any]:
        """What is stored beside the line: difficulty and how certification went."""
        won = next((tried for tried in self.tried if tried.verdict == "won"), None)
        return {"difficulty": self.difficulty, "solver_version": self.solver_version,
                "found_positions": won.positions if won else None,
                "tried": [tried.json() for tried in self.tried]}


def certify_candidates(rules: Rules, slug: str, candidates: Iterable[tuple[int | None,
                                                                          DealNumber]],
                       budget: CertifyBudget, calibration: Mapping[str, Any],
                       clock: Callable[[], float] = time.monotonic) -> Certificate:
    """Solve ``candidates`` in turn within ``budget``; the first won is certified.

    When none is won, the first candidate is the one kept, uncertified.
    """
    deadline = clock() + budget.total_seconds
    tried: list[Tried] = []
    first: DealNumber | None = None
    for count, (attempt, deal) in enumerate(candidates):
        if first is None:
            first = deal
        left = deadline - clock()
        if count >= budget.max_candidates or left <= 0:
            break
        state = new_game(rules, deal)
        result = solve(state, Budget(seconds=min(budget.candidate_seconds, left),
                                     positions=budget.candidate_positions,
                                     memory=budget.memory))
        tried.append(Tried(attempt, deal, result.verdict, result.positions, result.seconds))
        if result.verdict == "won":
            line = shorten(state, result.line, seconds=budget.shorten_seconds,
                           positions=budget.shorten_positions)
            rating = difficulty.rate(slug, str(deal), state, result.positions, calibration)
            return Certificate(deal, True, tuple(str(action) for action in line), rating,
                               tuple(tried))
    if first is None:
        raise ValueError("no candidate to certify")
    return Certificate(first, False, (), None, tuple(tried))


class _Remembered:
    """Certificates already computed in this process, by everything they depend on.

    Certifying is a function of its inputs (the searches are bounded by
    positions; the time bound only matters on a machine too busy to reach
    them), so a process that needs the same certificate twice (a test suite
    making many apps on fresh databases, a server certifying a stored
    puzzle it just failed to store) computes it once. Bounded: the oldest
    are forgotten.
    """

    def __init__(self, capacity: int = 256) -> None:
        self.capacity = capacity
        self._found: dict[tuple[Any, ...], Certificate] = {}
        self._lock = threading.Lock()

    def get(self, key: tuple[Any, ...]) -> Certificate | None:
        with self._lock:
            return self._found.get(key)

    def put(self, key: tuple[Any, ...], found: Certificate) -> None:
        with self._lock:
            self._found[key] = found
            while len(self._found) > self.capacity:
                del self._found[next(iter(self._found))]

    def clear(self) -> None:
        with self._lock:
            self._found.clear()


REMEMBERED: Final = _Remembered()
"""This process's certificates (:class:`_Remembered`); ``REMEMBERED.clear()`` forgets them."""


def _key(rules: Rules, slug: str, budget: CertifyBudget, calibration: Mapping[str, Any],
         *rest: object) -> tuple[Any, ...]:
    return (slug, tuple(sorted(rules.options.items())), budget, id(calibration), *rest)


Searching = Callable[[], contextlib.AbstractContextManager[None]]
"""What a certification holds while it searches (the caller's search slot), if it must."""


def certify_day(rules: Rules, slug: str, secret: str, date: datetime.date,
                budget: CertifyBudget, calibration: Mapping[str, Any],
                searching: Searching = contextlib.nullcontext) -> Certificate:
    """Choose and certify the puzzle of ``slug`` on ``date``: candidates 0, 1, 2, ...; the
    search, when the certificate is not remembered, inside ``searching()``."""
    key = _key(rules, slug, budget, calibration, "day", hashlib.sha256(secret.encode()
                                                                       ).hexdigest(), date)
    found = REMEMBERED.get(key)
    if found is None:
        candidates = ((attempt, candidate_deal(secret, date, slug, attempt))
                      for attempt in range(budget.max_candidates))
        with searching():
            found = certify_candidates(rules, slug, candidates, budget, calibration)
        REMEMBERED.put(key, found)
    return found


def certify_number(rules: Rules, slug: str, deal: DealNumber, budget: CertifyBudget,
                   calibration: Mapping[str, Any],
                   searching: Searching = contextlib.nullcontext) -> Certificate:
    """Certify a stored puzzle's own number (it cannot change): one candidate, searched for
    the whole time of the budget (inside ``searching()``, when not remembered)."""
    key = _key(rules, slug, budget, calibration, "number", str(deal))
    found = REMEMBERED.get(key)
    if found is None:
        whole = attrs.evolve(budget, candidate_seconds=budget.total_seconds,
                             candidate_positions=None)
        with searching():
            found = certify_candidates(rules, slug, [(None, deal)], whole, calibration)
        REMEMBERED.put(key, found)
    return found
