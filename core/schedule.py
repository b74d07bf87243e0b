"""How a search's budget is shared among its searches, and when the shares change.

The solver (:mod:`core.search`) runs several searches in turns: the
complete depth-first restarts, which alone prove losses; the fixed-heads
restarts and their head levels (:mod:`core.head_levels`); the best-first
search and the beams; and the nested rollouts (:mod:`core.rollouts`). Each
gets a share of the positions, counted against the complete restarts'
positions, and the shares change at a few knees as a search grows long.
The figures behind each share and knee are in its docstring and in
docs/solver.md. Everything here is a number or a pure function of the
rules and of position counts, never of the clock, so the same input always
gives the same search.
"""

from __future__ import annotations

from typing import Final

from gapgrid.core.evaluation import cards_slide
from gapgrid.core.reductions import single_successor
from gapgrid.core.rules import Rules


def luby(number: int) -> int:
    """The ``number``-th term (from 1) of Luby's sequence 1 1 2 1 1 2 4 1 1 2 ...: restart lengths
    that waste at most a logarithmic factor against the best fixed length, whatever it is."""
    power = 1
    while power * 2 - 1 < number:
        power *= 2
    while True:
        if number == power * 2 - 1:
            return power
        if number < power:
            power //= 2
            continue
        number -= power - 1
        power = 1
        while power * 2 - 1 < number:
            power *= 2


RESTART_UNIT: Final = 2000
"""Positions in a restart of Luby length 1."""

ROLLOUT_SHARE: Final = 16
"""The nested rollouts' positions for each position of the depth-first restarts, where cards
jump (every fill rule but a sliding puzzle's), once the restarts have had their first
:func:`restarts_first` (:data:`RESTARTS_FIRST` with one deck, none with two): from then on
16/18 of the budget, the restarts 1/18, the best-first search and the beams 1/36 each, until
the rollouts have had :func:`rollouts_late` (with one deck).

The rollouts win most hard deals of the games where cards jump, with or
without redeals. Each search alone, on 8 Spaces and Aces and 8 Paganini
II deals that solver 4 took more than 10 s to win, at most 600,000
positions: the rollouts won all 16 (108,000 to 501,000 positions), the
beams 10, the restarts 8 and the best-first search 4. On the deals solver
4 needed more than 500,000 positions for (docs/solver.md, "Kept (2026-12-01,
ninth sitting)"), with the rollouts at 2 (solver 5), 4, 8 and 16 times the
restarts' share: Spaces and Aces 8, 14, 16 and 18 of 27 decided within
600,000 positions, Paganini II 0, 6 and 11 (at 8) of 30 within 500,000;
the 30 anchors at 500,000 positions 18 (at 2) and 19 (at 16). The restarts,
which prove losses, still get their first 2,000 positions before anything
else, and every later restart in turn."""

FIRST_ROLLOUT_SHARE: Final = 2
"""The rollouts' share for the restarts' first :data:`RESTARTS_FIRST` positions, and for
all of a sliding puzzle's (Rectangular Rovers: a random slide seldom helps, the beams win
them): solver 4's and 5's share."""

RESTARTS_FIRST: Final = 50_000
"""The restarts' positions before the rollouts' share grows from :data:`FIRST_ROLLOUT_SHARE`
to :data:`ROLLOUT_SHARE`, with one deck (:func:`restarts_first`): a small space is first
exhausted, and proven lost, at solver 5's pace. Line Up game 11 is lost, a proof of 209,346
positions of which about 52,000 are the restarts'; at 16 times the restarts' share from the
start it took more than 10 s."""


ROLLOUTS_LATE: Final = 1_000_000
"""With one deck where cards jump (:func:`rollouts_late`), the rollouts' due positions after
which they get only :data:`LATE_ROLLOUT_SHARE` times the restarts' further positions: about
20 s of a search here (about 1,200,000 positions in all), so a search of 10 s is not touched.

Past that, the rollouts seldom win what they have not won, while a loss proof needs the
restarts to exhaust a space of hundreds of thousands of positions or more, and at 16 times
their share the restarts got only about a twentieth of a minute. On single-round Gaps deals
that solver 6 left undecided after a minute, the restarts alone, a minute each, prove some
lost, and solver 11 proves two of them within the minute where solver 10 proves none
(docs/solver.md, "Kept (fifteenth sitting)")."""

LATE_ROLLOUT_SHARE: Final = 1
"""The rollouts' positions for each further position of the restarts once they are due
:data:`ROLLOUTS_LATE`: then the restarts and the rollouts get a third of the budget each,
the best-first search and the beams a sixth each (until :data:`PROOFS_LATE`, where it
applies)."""

PROOFS_LATE: Final = 4_000_000
"""In single-round games with one deck where cards jump (:func:`proofs_late`), the
positions in all after which the search is left to the proofs: the best-first search and
the beams stop and give their tables back, the complete restarts get
:data:`PROOFS_RESTARTS_SHARE` positions for each one of the limited discrepancy search's
(then the rollouts'), and the fixed-heads restarts go on in levels (:mod:`core.head_levels`,
:data:`HEAD_LEVELS_SHARE`). About a minute
of a search here (solver 13's single-round Gaps searches of 60 s counted 3.1 to 4.2
million positions), so a search of 10 s is not touched, and one of a minute seldom is.

Past a minute the other searches seldom win what they have not won, while the deals left
are decided by the complete restarts after tens of millions of positions: single-round
Gaps games 181 and 187, unknown to solver 13 after 300 s (12 to 13 million positions, a
few of them the complete restarts'), the complete restarts alone won the first in
28,937,032 positions (633 s) and proved the second lost in 40,600,704 (849 s)
(docs/solver.md, "Kept (seventeenth sitting)")."""

HEAD_LEVELS_SHARE: Final = 1
"""Past :data:`PROOFS_LATE`, the fixed-heads restarts' levels' positions (:mod:`core.head_levels`)
for each position of the complete restarts: as many as those.

The fixed-heads restarts alone win single-round Gaps deals the complete restarts need
tens of millions of positions for, and that solver 14 left to them at the knee (games 12
and 46: 5.8 million positions each); their level 1 wins game 59 in 1.7 million. A loss
then costs the complete restarts' part twice the positions past the knee
(docs/solver.md, "Kept (nineteenth sitting)")."""

DISCREPANCIES_FIRST: Final = 2_000_000
"""Past :data:`PROOFS_LATE`, the limited discrepancy search (:mod:`core.discrepancies`) gets as
many positions as the complete restarts for its first this many (about 30 s here), then one for
each :data:`PROOFS_RESTARTS_SHARE` of theirs: :func:`beside_levels_due`.

Its wins come early or not at all: alone, on the 61 single-round Gaps deals that solver 15 won
past the knee, it won 12 within 3 million positions, all but one of them within 2 million, and
as many positions as the complete restarts that early make all 12 wins sooner, most of them two
to eight times (game 850: 4.2 million positions in all, solver 15 14.5 million; game 120: 8.0
million, solver 15 64.5 million). Every other search past the knee then decides at most 1.7
million positions later (six sevenths of these), some 25 s here (docs/solver.md, "Kept
(twenty-eighth sitting)")."""

DISCREPANCIES_MEMORY_PART: Final = 4
"""The limited discrepancy search's table may hold at most this part of the search's memory
(a quarter): it proves nothing, and gives its table back first when the table fills."""

PROOFS_RESTARTS_SHARE: Final = 7
"""The complete restarts' positions for each one of the eighth's past :data:`PROOFS_LATE`: the
limited discrepancy search's (:mod:`core.discrepancies`) until it is done, the rollouts' after.
The restarts get seven eighths of what the head levels leave (:data:`HEAD_LEVELS_SHARE`), once
the limited discrepancy search has had its first :data:`DISCREPANCIES_FIRST`.

The rollouts kept the eighth in solver 14 and 15, because they hold no table, so they cost the
proofs no memory; but of 16 single-round Gaps deals that solver 15 won past the knee, they won
none (docs/solver.md, "Measured (twenty-first sitting)"). The limited discrepancy search alone
wins some of the deals that solver 15 wins only after tens of millions of positions in a few
hundred thousand (game 850: 57,089 positions against 14,486,359), and one that it left unknown
after 1,200 s (game 261: 3,810,379), while the complete restarts and the head levels keep their
positions, so that every loss solver 15 proves past the knee is proven as before, some 1.7
million positions later (:data:`DISCREPANCIES_FIRST`); its table gives way first when the
memory runs out (docs/solver.md, "Kept (twenty-eighth sitting)")."""


def rollout_share(rules: Rules) -> int:
    """The nested rollouts' positions for each position of the restarts past their first
    :func:`restarts_first` (until the rollouts are due :func:`rollouts_late`), in ``rules``'
    game."""
    return FIRST_ROLLOUT_SHARE if cards_slide(rules) else ROLLOUT_SHARE


def restarts_first(rules: Rules) -> int:
    """The restarts' positions before the rollouts get :func:`rollout_share`, in ``rules``'
    game: :data:`RESTARTS_FIRST` with one deck, none with two.

    The first share is there for spaces small enough to exhaust within the
    budget, and a two-deck deal's never is: of the 800 deals of the four
    two-deck games studied (``data/study/solver-3``, 200 each), none was
    proven lost, while Paganini II, whose deals are won, spent a third of
    its positions outside the rollouts (deal 1: 572,311 positions in all,
    the rollouts' 402,000 of them).
    """
    return RESTARTS_FIRST if rules.layout.decks == 1 else 0


def rollouts_late(rules: Rules) -> int | None:
    """The rollouts' due positions past which the restarts get a bigger share, in ``rules``'
    game: :data:`ROLLOUTS_LATE` with one deck where cards jump; never (None) with two decks,
    whose spaces are never exhausted within any budget (:func:`restarts_first`), nor for a
    sliding puzzle, whose rollouts keep :data:`FIRST_ROLLOUT_SHARE` (not measured there)."""
    if rules.layout.decks != 1 or cards_slide(rules):
        return None
    return ROLLOUTS_LATE


def rollout_positions(rules_share: int, in_restarts: int, first: int,
                      late: int | None) -> int:
    """The rollouts' positions due once the restarts have had ``in_restarts``, where
    :func:`restarts_first` is ``first`` and :func:`rollouts_late` is ``late`` (no defaults: a
    caller that forgot the decks would silently give a two-deck game the one-deck pace).

    Twice the restarts' positions for their first ``first``, then ``rules_share`` times, and
    once that makes ``late`` (when not None), :data:`LATE_ROLLOUT_SHARE` times each further one.
    """
    early = min(in_restarts, first)
    due = FIRST_ROLLOUT_SHARE * early + rules_share * (in_restarts - early)
    knee = late_knee(rules_share, first, late)
    if knee is None or late is None or due <= late:
        return due
    return late + LATE_ROLLOUT_SHARE * (in_restarts - knee)


def late_knee(rules_share: int, first: int, late: int | None) -> int | None:
    """The restarts' positions when the rollouts' due reaches ``late`` (None: never), with
    :func:`rollout_positions`' ``rules_share`` and ``first``."""
    if late is None:
        return None
    if FIRST_ROLLOUT_SHARE * first >= late:
        return late // FIRST_ROLLOUT_SHARE
    return first + (late - FIRST_ROLLOUT_SHARE * first) // rules_share


FIXED_HEADS_MEMORY_PART: Final = 2
"""The fixed-heads restarts' tables may hold at most this part of the search's memory (a
half): they prove nothing, and the rest must be left to the restarts that prove losses.
Without it they held nine tenths of a long search's table (88 % of it at 600,000
positions of single-round Gaps game 3)."""

FIXED_HEADS_SHARE: Final = 3
"""Where the fixed-heads restarts run (:func:`fixed_heads_apply`), their positions for each
position of all the other searches: three quarters of the budget, until they win, have
explored their whole space, or the search is left to the proofs (:data:`PROOFS_LATE`;
then they go on in levels, :data:`HEAD_LEVELS_SHARE`).

The space where no head leaves column 0 is a small part of single-round
Gaps' space, and most deals are won within it: the fixed-heads restarts
alone, 10 s each, won 20 of the 30 anchors (two that solver 12 leaves
undecided at 10 s, 021 and 027, among them, in 5.3 and 4.7 s), and,
60 s each, 5 of 18 deals solver 6 and solver 11 both left undecided
after a minute; on 8 of those 18 they explored their whole space within
the minute. At 10 s a deal, with the other searches as in solver 12, the
anchors decided: 21 with no share, 21 with as many positions as the
complete restarts, 20 with half the budget, 22 with two thirds, 23 with
three quarters (docs/solver.md, "Kept (sixteenth sitting)")."""


def proofs_late(rules: Rules) -> int | None:
    """The positions after which a search of ``rules``' game is left to the proofs
    (:data:`PROOFS_LATE`): in single-round games with one deck where cards jump (as
    :func:`rollouts_late`), where it was measured; never (None) elsewhere. With redeals
    no study has proven a loss, and with unlimited ones the restarts never finish."""
    return None if rollouts_late(rules) is None or rules.redeals != 0 else PROOFS_LATE


def fixed_heads_apply(rules: Rules) -> bool:
    """Whether a search of ``rules``' game runs the fixed-heads restarts: single-round games
    (no redeal) where :mod:`core.head_macros` applies (single-round Gaps, Line Up)."""
    return single_successor(rules) and rules.redeals == 0


ROLLOUT_STEPS_PER_POSITION: Final = 4
"""Playout actions that count as one position: a position of solver 3's searches taken
together cost about as much as four actions on four games (27,000 to 40,000 positions a
second against 78,000 to 127,000 actions). A depth-first restart's position alone is
cheaper, one to two and a half actions; a best-first search's dearer."""


def beside_levels_due(since_knee: int) -> int:
    """Past :data:`PROOFS_LATE`, the positions due to the limited discrepancy search, and once it
    is done to the rollouts, when the complete restarts have had ``since_knee`` since the knee: as
    many as those for the first :data:`DISCREPANCIES_FIRST`, then one for each
    :data:`PROOFS_RESTARTS_SHARE`."""
    early = min(since_knee, DISCREPANCIES_FIRST)
    return early + (since_knee - early) // PROOFS_RESTARTS_SHARE
