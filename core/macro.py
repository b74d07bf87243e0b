"""A head macro as one step of the depth-first restarts (:mod:`core.head_macros`).

Its own module, which stays Python: a macro is a tuple of card moves, and a
subclass of ``tuple`` cannot be one of the classes the compiled build makes
(``python -m gapgrid.api.compiled build``), while the module that finds the
macros is compiled with the search.
"""

from __future__ import annotations


class Macro(tuple[tuple[int, int], ...]):
    """Card moves (source, target) made one after the other as one step of the search."""

    __slots__ = ()
