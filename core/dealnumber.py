"""PySolFC game numbers and the random generator each one selects.

PySolFC turns the number a player types into a random generator
(``pysollib.pysolrandom.construct_random``): ``ms<N>`` and numbers below
32000 select the Microsoft-compatible ``LCRandom31``, larger numbers the
Mersenne Twister ``MTRandom``. This module reads game numbers the same way
and builds the same generators from the ``pysol-cards`` package, so a game
number deals here exactly what it deals in PySolFC.
"""

from __future__ import annotations

import functools
import random
import re
import struct
from collections.abc import Hashable, Sequence
from typing import Final, NamedTuple, TypeVar

import attrs
from pysol_cards.random import LCRandom31, MTRandom

MS_MAX: Final = LCRandom31.MAX_SEED
"""Largest ``ms`` number PySolFC accepts: 2**33 - 1."""

MT_FIRST: Final = 32000
"""First plain number dealt by the Mersenne Twister (32000 itself is MT)."""

MAX_NUMBER: Final = 10**20
"""Largest game number: PySolFC's ``MTRandom.MAX_SEED``, its 20-digit maximum."""

_MS_PATTERN: Final = re.compile(r"ms([0-9]+)", re.IGNORECASE)
# PySolFC drops these characters from a typed number ("1,234" is 1234).
_SEPARATORS: Final = re.compile(r"[\s#\-_.,]")

T = TypeVar("T")


class DealNumberError(ValueError):
    """Raised for a game number PySolFC would refuse, with the reason."""


@attrs.frozen
class DealNumber:
    """A game number as PySolFC understands it."""

    value: int
    """The seed: 1 .. 10**20 (``ms`` numbers: 1 .. 2**33-1)."""

    ms: bool = False
    """True for an ``ms`` number of 32000 or more (below that, every number is ``LCRandom31``),
    so equal values deal equal games."""

    @property
    def uses_lcrandom(self) -> bool:
        """Tell whether PySolFC deals this number with ``LCRandom31``."""
        return self.ms or self.value < MT_FIRST

    def __str__(self) -> str:
        """The shortest text that deals the same game (``"617"``, ``"ms40000"``)."""
        if self.ms and self.value >= MT_FIRST:
            return f"ms{self.value}"
        return str(self.value)

    @property
    def pysolfc_title(self) -> str:
        """The number as PySolFC's title bar shows it (``#ms617``, 20 digits otherwise)."""
        if self.uses_lcrandom:
            return f"#ms{self.value}"
        return f"#{self.value:020d}"

    def new_random(self) -> GameRandom:
        """Return the generator PySolFC seeds with this number, in its initial state."""
        if self.uses_lcrandom:
            return GameRandom(LCRandom31(self.value))
        return GameRandom(MTRandom(self.value))


def parse_deal_number(text: str | int) -> DealNumber:
    """Read a game number the way PySolFC's "Select game by number" does.

    Accepts ``617``, ``ms617``, ``#ms617``, ``#00000000000000123456``, digit
    groups such as ``1,234`` and any number up to 10**20. Raises
    :class:`DealNumberError` for 0, ``ms0``, negative numbers and anything
    that is not a number.
    """
    if isinstance(text, bool):
        raise DealNumberError("a game number is a whole number, not true/false")
    if isinstance(text, int):
        return _plain_number(text, str(text))
    original = text
    cleaned = text.strip()
    if cleaned.startswith("#"):
        cleaned = cleaned[1:].strip()
    ms_match = _MS_PATTERN.fullmatch(cleaned)
    if ms_match:
        if len(ms_match.group(1).lstrip("0")) > len(str(MS_MAX)):
            raise DealNumberError(f"{_shorten(original)}: ms game numbers run from ms1 to "
                                  f"ms{MS_MAX}")
        value = int(ms_match.group(1))
        if not 1 <= value <= MS_MAX:
            raise DealNumberError(
                f"{_shorten(original)}: ms game numbers run from ms1 to ms{MS_MAX}")
        # Below 32000 the prefix changes nothing: "ms617" is game 617.
        return DealNumber(value, ms=value >= MT_FIRST)
    if re.match(r"-\s*[0-9]", cleaned):
        raise DealNumberError(f"{_shorten(original)}: game numbers are positive")
    if cleaned.endswith("L"):  # PySolFC drops a trailing L (Python 2 longs)
        cleaned = cleaned[:-1]
    digits = _SEPARATORS.sub("", cleaned)
    if not digits.isascii() or not digits.isdigit():
        raise DealNumberError(
            f"{_shorten(original)} is not a game number: use digits, e.g. 617, ms617 or "
            f"#00000000000000123456")
    if len(digits.lstrip("0")) > len(str(MAX_NUMBER)):
        raise DealNumberError(f"{_shorten(original)}: game numbers go up to 10**20 "
                              f"({MAX_NUMBER})")
    return _plain_number(int(digits), original)


def _shorten(text: str) -> str:
    """The input as a repr, cut short when long: error messages never echo a flood."""
    return repr(text) if len(text) <= 40 else repr(text[:37] + "...")


def _plain_number(value: int, original: str) -> DealNumber:
    if value == 0:
        raise DealNumberError(f"{original!r}: there is no game 0; numbers start at 1")
    if value < 0:
        raise DealNumberError(f"{original!r}: game numbers are positive")
    if value > MAX_NUMBER:
        raise DealNumberError(f"{original!r}: game numbers go up to 10**20 "
                              f"({MAX_NUMBER})")
    return DealNumber(value)


_WORDS: Final = struct.Struct("=624I")
"""The Mersenne Twister's 624 state words packed as unsigned 32-bit integers, native order
(``struct`` packs and unpacks them twice as fast as ``array``)."""

_MT_WORDS: Final = 624
"""Words in the Mersenne Twister's state (``random.Random.getstate()`` adds its position)."""

_LC_MASK: Final = LCRandom31.MAX_SEED
_LC_HIGH_SEED: Final = 0x100000000
"""pysol_cards' ``LCRandom31`` draws 16-bit numbers (``_randp``) for seeds from here up."""


class MersenneState(NamedTuple):
    """A Mersenne Twister state, compact and hashable (a redeal's undo keeps one).

    ``random.Random.getstate()`` gives 625 Python ints, some 25 KB. Here the
    624 state words are one ``bytes`` of 2,496 bytes, and a generator hands
    out the same ``bytes`` object again as long as the twister has not
    regenerated its words (every 624 draws of 32 bits, some three redeals
    of a two-deck game), so the states of consecutive redeals share it.
    """

    words: bytes
    """The 624 state words, packed as unsigned 32-bit integers in native byte order."""

    position: int
    """How many of the words have been used (624: the next draw regenerates them)."""

    gauss_next: float | None
    """``random.Random``'s cached normal variate; None unless ``gauss`` was called."""


_new_state: Final = functools.partial(tuple.__new__, MersenneState)
"""Make a :class:`MersenneState` from a (words, position, gauss_next) triple without the
named tuple's Python-level ``__new__``: half the cost, and every redeal makes one."""


class GameRandom:
    """PySolFC's generator for one game, with a hashable, compact, restorable state.

    Wraps the ``pysol-cards`` generator PySolFC itself uses; ``shuffle`` and
    ``choice`` draw exactly the numbers PySolFC's do (Fisher-Yates from the
    end with ``randint(0, n)``), so the deal and every redeal are PySolFC's.
    Every draw must go through this wrapper: it counts the Mersenne
    Twister's draws to know its state without asking for it (see
    :meth:`getstate`).
    """

    __slots__ = ("_draws", "_generator", "_known", "_packed", "_unpacked")

    def __init__(self, generator: LCRandom31 | MTRandom) -> None:
        self._generator = generator
        # The last state words seen, packed and as a tuple: getstate() hands out
        # the same bytes while they have not changed, setstate() skips unpacking.
        self._packed = b""
        self._unpacked: tuple[int, ...] = ()
        # The Mersenne state last read or set, and the draws of random() since:
        # getstate() derives the state from them while no regeneration came between.
        self._known: MersenneState | None = None
        self._draws = 0

    def shuffle(self, items: list[T]) -> None:
        """Shuffle ``items`` in place exactly as PySolFC does."""
        generator = self._generator
        if type(generator) is LCRandom31:
            _lc_shuffle(generator, items)
            return
        if type(generator) is not MTRandom:
            generator.shuffle(items)  # a subclass: its own draws, not counted
            self._known = None
            return
        # pysol_cards' RandomBase.shuffle with its randint(0, n), which is
        # 0 + int(random() * (n + 1)), written out: 30% faster, the same draws
        # (tests/core/test_dealnumber.py compares the two).
        draw = generator.random
        for last in range(len(items) - 1, 0, -1):
            other = int(draw() * (last + 1))
            items[last], items[other] = items[other], items[last]
        if len(items) > 1:
            self._draws += len(items) - 1

    def choice(self, items: Sequence[T]) -> T:
        """Pick one of ``items`` exactly as PySolFC's ``random.choice`` does."""
        generator = self._generator
        if type(generator) is not MTRandom:
            self._known = None  # LCRandom31 needs no count; a subclass's draws are unknown
            return generator.choice(items)  # type: ignore[no-any-return]
        # RandomBase.choice: randrange(0, n) = randint(0, n - 1) = int(random() * n).
        index = int(generator.random() * len(items))
        self._draws += 1
        return items[index]

    def getstate(self) -> Hashable:
        """Return the generator's state as a hashable value: a pair of ints, or a
        :class:`MersenneState`."""
        generator = self._generator
        if isinstance(generator, LCRandom31):
            return (generator.seed, generator.seedx)
        known = self._known
        if known is not None:
            # random() takes two 32-bit words; while the position stays within
            # the words, none was regenerated and the words are the same: no
            # need to read (625 ints, some 15 us) and pack them again.
            position = known.position + 2 * self._draws
            if position <= _MT_WORDS:
                if self._draws:
                    known = self._known = _new_state((known.words, position, known.gauss_next))
                    self._draws = 0
                return known
        # MTRandom's own getstate() carries a bound method; the Mersenne
        # Twister state alone is what decides the numbers drawn.
        _, internal, gauss_next = random.Random.getstate(generator)
        words = internal[:_MT_WORDS]
        packed = _WORDS.pack(*words)
        # Comparing the packed bytes is three times faster than comparing the ints.
        if packed != self._packed:
            self._unpacked, self._packed = words, packed
        self._known, self._draws = MersenneState(self._packed, internal[_MT_WORDS], gauss_next), 0
        return self._known

    def setstate(self, state: Hashable) -> None:
        """Restore a state returned by :meth:`getstate`."""
        generator = self._generator
        if isinstance(generator, LCRandom31):
            generator.seed, generator.seedx = state  # type: ignore[misc]
            return
        if not isinstance(state, MersenneState):
            raise TypeError(f"not a Mersenne Twister state: {type(state).__name__}")
        if state.words is not self._packed:
            self._unpacked = _WORDS.unpack(state.words)
            self._packed = state.words
        random.Random.setstate(generator, (random.Random.VERSION, (*self._unpacked, state.position),
                                           state.gauss_next))
        self._known, self._draws = state, 0


def _lc_shuffle(generator: LCRandom31, items: list[T]) -> None:
    """pysol_cards' ``LCRandom31.shuffle``, its ``randint`` and ``random`` written out.

    The same draws in the same order (tests/core/test_dealnumber.py compares
    them), twice as fast: the generator's number stays in a local. A
    seed below 2**32 draws ``_rand`` (15 bits, bit 15 set from 2**31 up),
    above it ``_randp`` (16 bits, plus one); the seed itself never changes.
    """
    seed, state = generator.seed, generator.seedx
    if seed < _LC_HIGH_SEED:
        high_bit = 0x8000 if seed >= 0x80000000 else 0
        for last in range(len(items) - 1, 0, -1):
            state = (state * 214013 + 2531011) & _LC_MASK
            other = (((state >> 16) & 0x7FFF) | high_bit) % (last + 1)
            items[last], items[other] = items[other], items[last]
    else:
        for last in range(len(items) - 1, 0, -1):
            state = (state * 214013 + 2531011) & _LC_MASK
            other = (((state >> 16) & 0xFFFF) + 1) % (last + 1)
            items[last], items[other] = items[other], items[last]
    generator.seedx = state
