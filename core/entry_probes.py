"""Entry probes: a search for wins that looks into a sample of the positions where column 0
has just filled for good, before all the others.

With open heads (:mod:`core.open_heads`) every win passes through an *entry*:
the position a Freeze leads to, column 0 full of heads whose arrangement is
left open. The complete restarts explore each entry's space as soon as they
reach it; most of these spaces are small (a median of 12 to 320 positions on
the single-round Gaps deals measured), but there are millions of entries, so
an entry reached late waits behind all the others' spaces. On game 761 a
winning entry comes after 3.9 million positions of the space before the
Freezes (502,198 entries): the complete restarts won it after 90 million
positions in all. Winning entries come in clusters (two of 3,000 sampled,
both at that point; docs/solver.md, "Kept (forty-eighth sitting)"), so a
sample of the entries, each looked into with a small search, meets a cluster
about when the space before the Freezes does.

The search runs in rounds. Round ``k`` explores the space before the
Freezes depth first (with a table of the positions it has seen, its own),
and looks into each entry it meets for the first time with probability
``RATE * 2**k`` (at most 1), by a depth-first search of at most
``CAP * 2**k`` positions (with a table of its own, given back after). Round
0 tries the moves in slot order, highest first (the restarts' order 1);
later rounds shuffle them. Shuffled (``entries-shuffled``), round 0 shuffles
them too, with generators seeded apart from the other rounds': the same
search meeting the entries in another order, for the deals the first left
unknown. Freezes first (``entries-freezes-first``), round 0 tries the
Freezes and head macros before the card moves, and those gap by gap in slot
order (the restarts' order 0, without the heuristic order, which the
searches run alone go without), and the later rounds are the plain
probes'. Lowest first (``entries-lowest-first``), round 0 tries the card
moves from the lowest source slot first, the reverse of the plain probes'
(the restarts' order 2), and the head macros and Freezes after them. A
round at rate 1 in which no look was cut short and the space before the
Freezes was explored to its end has explored the whole space, with the
restarts' own steps and reductions: no win exists, and the answer is
``lost``. Where no Freeze ever comes (rules without open
heads), round 0 is a plain depth-first search of the whole space.

Only :meth:`core.search._Search.steps` decides what is explored, so what
this search can reach is what the complete restarts can; it keeps no proofs
of dead positions between rounds, and repeats the space before the Freezes
in each. A search for the deals the complete restarts leave unknown, run on
request (``--search entries``).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Final, Literal

from gapgrid.core.notation import Action
from gapgrid.core.open_heads import arrangement_win, exchange_back

if TYPE_CHECKING:
    from gapgrid.core.discrepancies import Step
    from gapgrid.core.search import _Search

RATE: Final = 1 / 64
"""The share of the entries round 0 looks into (doubled each round, up to all)."""

CAP: Final = 1_000
"""The positions a look into an entry may explore in round 0 (doubled each round): a winning
entry of the deals measured was won in 77 to 662."""

_ENTRY_BYTES: Final = 100  # a set entry's bytes beyond its key, as the restarts count them


SHUFFLED_SEEDS: Final = 1_000
"""What the shuffled probes add to a round's number to seed its generators, so that no round
of theirs is seeded as one of the plain probes' is: those never get that far (from round 6 on
they look into every entry, and a look of round 20 may take a billion positions)."""


Start = Literal["slots", "shuffled", "freezes-first", "lowest-first"]
"""How round 0 orders the moves: in slot order (the plain probes), shuffled, the Freezes
and head macros first, or the lowest source slot first."""

_FIRST_ORDERS: Final[dict[Start, int]] = {
    "slots": 1, "shuffled": 3, "freezes-first": 0, "lowest-first": 2}
"""Round 0's order (of :func:`core.search._reorder`) for each start."""


def search_entries(search: _Search, start: Start = "slots") -> list[Action] | None:
    """Return a winning line from ``search``'s position, or None when no win exists; raise
    as ``search`` does when its budget runs out (see the module docstring for the
    ``start``)."""
    if search.engine.won:
        return []
    round_number = 0
    while True:
        rate = min(1.0, RATE * 2 ** round_number)
        cap = CAP * 2 ** round_number
        seed = round_number + SHUFFLED_SEEDS if start == "shuffled" else round_number
        order = _FIRST_ORDERS[start if round_number == 0 else "shuffled"]
        found = _Round(search, seed, rate, cap, order).run()
        if isinstance(found, list):
            return found
        if found:  # everything was explored
            return None
        round_number += 1


class _Round:
    """One round: the space before the Freezes, and the looks into the entries it meets."""

    def __init__(self, search: _Search, seed: int, rate: float, cap: int, order: int) -> None:
        """A round that tries the moves in restart ``order``'s order (1: slot order, 0: the
        Freezes and head macros first, 2: the lowest slot first, 3: shuffled), its generators
        seeded by ``seed``."""
        self.search = search
        self.order = order
        self.rate = rate
        self.cap = cap
        self.sampler = random.Random(seed)
        self.complete = True
        """Whether everything this round met was explored to its end, so far: no entry
        left out of the sample (none may be met, where no Freeze comes), no look cut
        short."""
        search.shuffler = random.Random(seed)

    def run(self) -> list[Action] | bool:
        """Return a winning line, or whether the round explored the whole space."""
        won = self._explore([], None)
        return won if won is not None else self.complete

    def _explore(self, path: list[Step], cap: int | None) -> list[Action] | None:
        """Depth first from the position at the end of ``path``, with a table of its own:
        the round's search before the Freezes (``cap`` None), whose entries are leaves
        looked into maybe (:meth:`_entry`), or a look into an entry, of at most ``cap``
        positions. Return a winning line (the whole path taken back), or None with the
        engine where it started."""
        search = self.search
        seen = {search.key()}
        charged = explored = 0
        depth = len(path)
        frames = [self._steps()]
        try:
            while frames:
                frame = frames[-1]
                if not frame:
                    frames.pop()
                    if len(path) > depth:
                        search.undo(path.pop())
                    continue
                step = frame.pop()
                search.do(step)
                key = search.key()
                if key in seen:
                    search.undo(step)
                    continue
                if explored == cap:  # a look cut short: the round proves nothing
                    search.undo(step)
                    self.complete = False
                    while len(path) > depth:
                        search.undo(path.pop())
                    return None
                seen.add(key)
                search.charge(key)
                charged += len(key) + _ENTRY_BYTES
                explored += 1
                search.positions += 1
                path.append(step)
                if search.engine.won:
                    return self._line(path)
                steps = self._steps()
                if not steps and search.open_rows:  # won, maybe, with the heads arranged
                    won = self._arranged(path)
                    if won is not None:
                        return won
                if cap is None and search.open_rows:  # an entry: a leaf here
                    won = self._entry(path)
                    if won is not None:
                        return won
                    search.undo(path.pop())
                    continue
                self._check()
                frames.append(steps)
            return None
        finally:
            search.table_bytes -= charged

    def _entry(self, path: list[Step]) -> list[Action] | None:
        """Look into the entry at the end of ``path``, if the round's sample takes it: a
        winning line, or None (the engine at the entry again)."""
        if self.sampler.random() < self.rate:
            return self._explore(path, self.cap)
        self.complete = False
        return None

    def _steps(self) -> list[Step]:
        """The steps of the position, in the order they are to be tried (popped from the
        end)."""
        steps = self.search.steps(self.order)
        steps.reverse()
        return steps

    def _check(self) -> None:
        """Look at the budget when it is due (:meth:`core.search._Search.check_budget`)."""
        search = self.search
        if search.positions >= search.next_check:
            search.check_budget()

    def _line(self, path: list[Step]) -> list[Action]:
        """The winning line of ``path``, the engine at its end; the path taken back."""
        search = self.search
        line = search.line(path)
        search._unwind(path)
        return line

    def _arranged(self, path: list[Step]) -> list[Action] | None:
        """The winning line of ``path`` when its position, where no step is left, is won
        with the open heads arranged (the path then taken back); else None."""
        search = self.search
        exchanges = arrangement_win(search.engine, search.open_rows)
        if exchanges is None:
            return None
        line = search.line(path)
        exchange_back(search.engine, exchanges)
        search._unwind(path)
        return line
