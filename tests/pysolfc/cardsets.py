"""Small generated cardsets, so that the real PySolFC program can start without a cardset package.

PySolFC starts only with a French cardset it can load (faces, a back and a
shade picture of one size), and warns in a dialog that waits for a click when
a type of cardset its games use is missing (``identify_missing_cardsets``:
Hanafuda, Tarock, Mahjongg, Hexadeck, Ganjifa, trumps only, every size of
puzzle, Ishido). The cardset packages cannot be had here, so
:func:`write_cardsets` writes one French cardset with every picture (plain
cards: a suit's colour, the rank as a bar whose length grows with it) and,
for each other type, the parts PySolFC reads at start-up (its ``config.txt``,
a back and a shade); those are never loaded, since only a game of the
Montana family is played.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Final

CARD_WIDTH: Final = 73
CARD_HEIGHT: Final = 97

#: The suits' letters in PySolFC's picture names (``01c.png`` is the Ace of Clubs) and colours.
FRENCH_SUITS: Final = {"c": (40, 40, 40), "s": (40, 40, 120), "h": (200, 30, 30),
                       "d": (220, 110, 20)}

#: (type, subtype, cards) of each other kind of cardset PySolFC asks for at start-up.
OTHER_TYPES: Final = [
    (2, 0, 48),     # Hanafuda
    (3, 0, 78),     # Tarock
    (4, 0, 42),     # Mahjongg
    (5, 0, 68),     # Hexadeck
    (6, 0, 96),     # Mughal Ganjifa
    (8, 0, 120),    # Dashavatara Ganjifa
    (9, 0, 100),    # trumps only, with at least 100 cards
    *((11, size, size * size) for size in range(3, 11)),  # puzzles, 3x3 .. 10x10
    (12, 0, 36),    # Ishido
]


def png(width: int, height: int, pixel: object) -> bytes:
    """A PNG picture (8-bit RGB) whose pixel at (x, y) is ``pixel(x, y)``, an (r, g, b) tuple."""
    rows = b"".join(
        b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(width))  # type: ignore[operator]
        for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _card(colour: tuple[int, int, int], rank: int) -> bytes:
    """A card face: white with a border and a bar of the suit's colour as long as the rank."""
    bar = 4 + rank * (CARD_HEIGHT - 12) // 13

    def pixel(x: int, y: int) -> tuple[int, int, int]:
        if x in (0, CARD_WIDTH - 1) or y in (0, CARD_HEIGHT - 1):
            return (0, 0, 0)
        if 6 <= x < 16 and 6 <= y < 6 + bar:
            return colour
        return (255, 255, 255)

    return png(CARD_WIDTH, CARD_HEIGHT, pixel)


def _config(kind: int, subtype: int, cards: int, ident: str, name: str) -> str:
    # Version 7: extension, type, cards, styles, year, subtype, 3D Mahjongg (empty: no).
    return "\n".join([f"PySol solitaire cardset;7;.png;{kind};{cards};0;0;{subtype};",
                      f"{ident};{name}", f"{CARD_WIDTH} {CARD_HEIGHT} 8", "12 18 7 7",
                      "back01.png", "back01.png"]) + "\n"


def _write_common(folder: Path, config: str) -> None:
    """The parts PySolFC reads of every cardset at start-up: config, back and shade."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.txt").write_text(config)
    (folder / "back01.png").write_bytes(png(CARD_WIDTH, CARD_HEIGHT, lambda x, y: (0, 90, 40)))
    (folder / "shade.png").write_bytes(png(CARD_WIDTH, CARD_HEIGHT, lambda x, y: (90, 90, 90)))


def write_cardsets(cardsets_dir: Path) -> str:
    """Write the cardsets into ``cardsets_dir`` (PySolFC's ``~/.PySolFC/cardsets``); return
    the French cardset's name."""
    name = "gapgrid test cards"
    french = cardsets_dir / "cardset-gapgrid-test-french"
    # Subtype 1, a deck with two jokers ("01z", "02z"): PySolFC asks for one.
    _write_common(french, _config(1, 1, 54, "gapgrid-test-french", name))
    for suit, colour in FRENCH_SUITS.items():
        for rank in range(13):
            (french / f"{rank + 1:02d}{suit}.png").write_bytes(_card(colour, rank))
    for joker in (1, 2):
        (french / f"{joker:02d}z.png").write_bytes(_card((120, 0, 160), 13))
    for kind, subtype, cards in OTHER_TYPES:
        ident = f"gapgrid-test-{kind}-{subtype}"
        _write_common(cardsets_dir / f"cardset-{ident}",
                      _config(kind, subtype, cards, ident, f"gapgrid test {kind}.{subtype}"))
    return name
