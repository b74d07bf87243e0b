"""The contract between the engine and the rules a variant chooses.

A variant's hooks (see :mod:`core.hookspecs`) each return one rule object,
once per game; the engine then calls plain methods on those objects. That
keeps pluggy's dispatch out of the inner loops of replay and search, which
run millions of legality checks. The objects' shapes are the protocols
below; :mod:`core.fills`, :mod:`core.deals` and :mod:`core.redeals` hold the
implementations every PySolFC variant is made from.
"""

from __future__ import annotations

import enum
import unicodedata
from collections.abc import Mapping
from typing import Final, Protocol

import attrs

from gapgrid.core.dealnumber import GameRandom
from gapgrid.core.layout import Layout
from gapgrid.core.runs import CardIndex, Cells

UNLIMITED: Final = -1
"""Redeal count meaning "as many as you like" (PySolFC: ``max_rounds=-1``)."""

MAX_REDEALS: Final = 500
"""The most redeals a game may allow short of :data:`UNLIMITED`: the most the ``redeals``
option grants (beyond it, say ``unlimited``), and as many as one game may ask for from the
service and the commands (:data:`gapgrid.api.services.games.MAX_REDEALS`), so that no game
allows redeals it could never ask for (at 999, 499 of them could never be played, and were
yet counted as unused in the scores). Redeals taken back still count against that cap."""


class RuleError(RuntimeError):
    """Raised when a rule object breaks its contract (a bug in a variant)."""


class DealStyle(Protocol):
    """Where the initial deal puts the shuffled cards."""

    def place(self, layout: Layout, cards: list[int]) -> list[int | None]:
        """Return every slot's content after the deal.

        ``cards`` is the shuffled list PySolFC puts in its talon: the LAST
        card is dealt first. The list may be consumed.
        """
        ...


class FillRule(Protocol):
    """Which card may fill a gap."""

    def accepts(self, cells: Cells, source: int, target: int) -> bool:
        """Tell whether the card in ``source`` may move into the gap ``target``.

        The engine has already checked that ``source`` holds a card and
        ``target`` is a gap; this is called once per candidate, so keep it lean.
        """
        ...

    def sources(self, cells: Cells, target: int, where: CardIndex | None = None) -> list[int]:
        """Return every slot whose card may move into the gap ``target``, in slot order.

        ``where`` is the engine's card-to-slots index of ``cells``, kept up to
        date move by move, so a rule can look the wanted cards up instead of
        scanning the board; without it the rule builds one.
        """
        ...

    def refusal(self, cells: Cells, source: int, target: int) -> str:
        """Explain, for a person, why the card in ``source`` may not fill ``target``."""
        ...


class KeepRule(Protocol):
    """What a redeal leaves in place."""

    def kept_per_row(self, layout: Layout, cells: Cells) -> list[int]:
        """Return, for each row, how many slots from column 0 stay untouched."""
        ...


class RedealPlacement(Protocol):
    """How a redeal deals the gathered cards back, and where it leaves the gaps."""

    @property
    def name(self) -> str:
        """A short name for people and JSON, e.g. ``"after-runs"``: lower case words joined
        by hyphens (the catalogue refuses another)."""
        ...

    def deal_back(self, layout: Layout, gathered: list[int], cards: list[int],
                  random: GameRandom) -> list[int | None]:
        """Return the new content of each slot in ``gathered``, in the same order.

        ``gathered`` lists the slots the redeal took up, row by row, and
        ``cards`` the cards it picked up from them, in pick-up order. Exactly
        ``len(gathered) - len(cards)`` of the returned entries are gaps.
        """
        ...


class WonRule(Protocol):
    """When the game is won."""

    def is_won(self, cells: Cells) -> bool:
        """Tell whether the position ``cells`` is won."""
        ...


class RedealTiming(enum.Enum):
    """When a redeal may be asked for."""

    ANYTIME = "anytime"
    """At any moment while redeals remain (PySolFC)."""

    STUCK = "stuck"
    """Only when no move is left (the seed documents)."""


@attrs.frozen(eq=False)
class Rules:
    """Everything one game needs, resolved once from its plugin manager."""

    slug: str
    """The variant or preset the rules came from."""

    name: str
    """The name a person knows the game by."""

    options: Mapping[str, str]
    """The rule options applied on top of the variant, as canonical text."""

    layout: Layout
    deal_style: DealStyle
    fill: FillRule
    redeals: int
    """Redeals allowed (rounds - 1), or :data:`UNLIMITED`."""

    keep: KeepRule
    placement: RedealPlacement
    timing: RedealTiming
    won: WonRule

    @property
    def unlimited_redeals(self) -> bool:
        """Tell whether redeals never run out."""
        return self.redeals == UNLIMITED

    def redeals_left(self, used: int) -> int | None:
        """Return how many redeals remain after ``used``, None when unlimited."""
        return None if self.unlimited_redeals else max(self.redeals - used, 0)


RULE_TEXT_LENGTH: Final = 500
"""Characters of a rule's own text (a refusal's reason) that are shown at most."""


def has_control_characters(text: str) -> bool:
    """Whether ``text`` holds a control character (a new line, an escape): a plugin's text
    that would forge lines on a terminal or recolour it."""
    return any(unicodedata.category(character) == "Cc" for character in text)


def rule_text(text: object, limit: int = RULE_TEXT_LENGTH) -> str:
    """A rule's text for people, as a terminal may show it: one line (control characters, a
    new line or an escape that would forge lines or recolour a terminal, become spaces), at
    most ``limit`` characters. A plugin's code writes it."""
    line = "".join(" " if unicodedata.category(character) == "Cc" else character
                   for character in str(text)[:limit + 1])
    return line if len(line) <= limit else line[:limit - 1] + "…"


def redeals_json(count: int) -> int | str:
    """Return a redeal count for JSON: an integer or ``"unlimited"``."""
    return "unlimited" if count == UNLIMITED else count

