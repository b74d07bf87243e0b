"""Cards as small integers, with their two-character codes.

A card is the integer ``suit * 13 + rank``: ranks count from Ace = 0 to
King = 12 and suits come in PySolFC's order Clubs, Spades, Hearts, Diamonds,
so a card of the first deck has PySolFC's own card id. Two-deck games simply
hold each integer twice: the rules never need to know which deck a card came
from, and positions that differ only in that are the same position.

Codes are a rank letter from ``A23456789TJQK`` and a suit letter from ``CDHS``
(``"TD"`` is the ten of diamonds). Input is forgiving: ``10D`` and lower
case are accepted too.
"""

from __future__ import annotations

from typing import Final

RANK_LETTERS: Final = "A23456789TJQK"
"""Rank letters indexed by rank (Ace = 0 ... King = 12)."""

SUIT_LETTERS: Final = "CSHD"
"""Suit letters indexed by suit, in PySolFC's suit order."""

SUIT_SYMBOLS: Final = "♣♠♥♦"
"""Suit symbols indexed by suit."""

RANK_NAMES: Final = (
    "Ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "Jack", "Queen", "King",
)
"""Rank names for messages a person reads."""

ACE: Final = 0
KING: Final = 12
RANKS_PER_SUIT: Final = 13
SUITS: Final = 4
CARDS_PER_DECK: Final = RANKS_PER_SUIT * SUITS


class CardCodeError(ValueError):
    """Raised for text that is not a card code."""


def make_card(rank: int, suit: int) -> int:
    """Return the card of ``rank`` (0-12) and ``suit`` (0-3)."""
    if not 0 <= rank < RANKS_PER_SUIT or not 0 <= suit < SUITS:
        raise ValueError(f"no card has rank {rank} and suit {suit}")
    return suit * RANKS_PER_SUIT + rank


def rank_of(card: int) -> int:
    """Return the rank of ``card``: Ace = 0 ... King = 12."""
    return card % RANKS_PER_SUIT


def suit_of(card: int) -> int:
    """Return the suit of ``card``: Clubs 0, Spades 1, Hearts 2, Diamonds 3."""
    return card // RANKS_PER_SUIT


def is_red(card: int) -> bool:
    """Tell whether ``card`` is a Heart or a Diamond."""
    return suit_of(card) >= 2


def card_code(card: int) -> str:
    """Return the two-character code of ``card``, e.g. ``"TD"``."""
    return RANK_LETTERS[rank_of(card)] + SUIT_LETTERS[suit_of(card)]


def card_symbol(card: int) -> str:
    """Return ``card`` with a suit symbol, e.g. ``"10♦"``, for display."""
    rank = rank_of(card)
    label = "10" if rank == 9 else RANK_LETTERS[rank]
    return label + SUIT_SYMBOLS[suit_of(card)]


def parse_card(text: str) -> int:
    """Read a card code (``"TD"``, ``"10d"``, ``"as"``) and return the card.

    Raises :class:`CardCodeError` with the reason when ``text`` is not a card.
    """
    cleaned = text.strip().upper()
    if cleaned.startswith("10"):
        cleaned = "T" + cleaned[2:]
    if len(cleaned) != 2:
        raise CardCodeError(
            f"{text!r} is not a card: use a rank from {RANK_LETTERS} and a suit "
            f"from CDHS, e.g. TD"
        )
    rank = RANK_LETTERS.find(cleaned[0])
    suit = SUIT_LETTERS.find(cleaned[1])
    if rank < 0:
        raise CardCodeError(f"{text!r} is not a card: {cleaned[0]!r} is not a rank")
    if suit < 0:
        raise CardCodeError(f"{text!r} is not a card: {cleaned[1]!r} is not a suit")
    return make_card(rank, suit)
