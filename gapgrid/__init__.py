"""gapgrid: the Montana family of solitaire games, as PySolFC deals them.

This module is the public face of gapgrid for plugin authors: everything a
variant, rule option or scoring scheme needs imports from here,

    from gapgrid import hookimpl, Layout, Registry, MontanaFill

and the names in :data:`__all__` keep their meaning across releases. The
modules behind them (``gapgrid.core``, ``gapgrid.plugins``, ``gapgrid.api``)
may be reorganised at any time, so a plugin imports nothing from them.
``docs/plugins.md`` documents every name, grouped as below.

Importing gapgrid stays cheap: it loads the pure core only, never Flask and
never a plugin (plugins are loaded when a catalogue is built).
"""

from __future__ import annotations

import importlib.metadata

from gapgrid.core.baseline import AllRowsFinished
from gapgrid.core.board import Board
from gapgrid.core.cards import (
    ACE,
    CARDS_PER_DECK,
    KING,
    RANK_LETTERS,
    RANK_NAMES,
    RANKS_PER_SUIT,
    SUIT_LETTERS,
    SUITS,
    CardCodeError,
    card_code,
    is_red,
    make_card,
    parse_card,
    rank_of,
    suit_of,
)
from gapgrid.core.dealnumber import GameRandom
from gapgrid.core.deals import BlueMoonDeal, MontanaDeal, RedMoonDeal
from gapgrid.core.fills import (
    AscendingFill,
    FillBase,
    GalaryFill,
    JungleFill,
    MontanaFill,
    RoversFill,
)
from gapgrid.core.hookspecs import hookimpl
from gapgrid.core.layout import NO_SLOT, Layout
from gapgrid.core.redeals import (
    PLACEMENTS,
    GapsAfterRuns,
    GapsAtRandom,
    GapsInLastColumn,
    KeepRuns,
    NoShuffle,
)
from gapgrid.core.registry import REDEAL_OPTIONS, RegistrationError, Registry
from gapgrid.core.rules import (
    MAX_REDEALS,
    UNLIMITED,
    DealStyle,
    FillRule,
    KeepRule,
    RedealPlacement,
    RedealTiming,
    RuleError,
    WonRule,
)
from gapgrid.core.runs import CardIndex, Cells
from gapgrid.core.scoring import GameSummary, Score, ScoringScheme, points
from gapgrid.core.shared_rules import (
    BLUE_MOON_LAYOUT,
    MONTANA_LAYOUT,
    AcesStayRules,
    GalaryRules,
    RedMoonRules,
)

try:
    __version__: str = importlib.metadata.version("gapgrid")
except importlib.metadata.PackageNotFoundError:  # run from a source tree, not installed
    __version__ = "0+unknown"

# The public API, group by group as docs/plugins.md presents it.
__all__ = [  # plugin machinery
    "REDEAL_OPTIONS",
    "RegistrationError",
    "Registry",
    "hookimpl",
]
__all__ += [  # geometry and the board
    "BLUE_MOON_LAYOUT",
    "MONTANA_LAYOUT",
    "NO_SLOT",
    "Board",
    "CardIndex",
    "Cells",
    "Layout",
]
__all__ += [  # cards
    "ACE",
    "CARDS_PER_DECK",
    "KING",
    "RANKS_PER_SUIT",
    "RANK_LETTERS",
    "RANK_NAMES",
    "SUITS",
    "SUIT_LETTERS",
    "CardCodeError",
    "card_code",
    "is_red",
    "make_card",
    "parse_card",
    "rank_of",
    "suit_of",
]
__all__ += [  # rule contracts
    "MAX_REDEALS",
    "UNLIMITED",
    "DealStyle",
    "FillRule",
    "GameRandom",
    "KeepRule",
    "RedealPlacement",
    "RedealTiming",
    "RuleError",
    "WonRule",
]
__all__ += [  # rule implementations
    "PLACEMENTS",
    "AllRowsFinished",
    "AscendingFill",
    "BlueMoonDeal",
    "FillBase",
    "GalaryFill",
    "GapsAfterRuns",
    "GapsAtRandom",
    "GapsInLastColumn",
    "JungleFill",
    "KeepRuns",
    "MontanaDeal",
    "MontanaFill",
    "NoShuffle",
    "RedMoonDeal",
    "RoversFill",
]
__all__ += [  # rules plugins shared by several variants
    "AcesStayRules",
    "GalaryRules",
    "RedMoonRules",
]
__all__ += [  # scores
    "GameSummary",
    "Score",
    "ScoringScheme",
    "points",
]
__all__ += [  # the release
    "__version__",
]
