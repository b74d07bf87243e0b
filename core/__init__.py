"""gapgrid's core: the Montana family of solitaire games as pure, typed Python.

Cards, layouts and boards (:mod:`core.cards`, :mod:`core.layout`,
:mod:`core.board`), PySolFC's game numbers and deals (:mod:`core.dealnumber`,
:mod:`core.deals`), the rules (:mod:`core.fills`, :mod:`core.redeals`,
:mod:`core.runs`), playing and replaying (:mod:`core.game`,
:mod:`core.replay`), scores (:mod:`core.scoring`), and the plugin machinery
(:mod:`core.hookspecs`, :mod:`core.registry`, :mod:`core.catalogue`). No I/O
(but for :mod:`core.compiled_sources`' check of a compiled build), no Flask,
no global random state.
"""

from pathlib import Path as _Path

from gapgrid.core.compiled_sources import use_sources_of_stale_modules as _use_sources

# The one read at import, and only after `python -m gapgrid.api.compiled build`: compiled
# modules older than their sources must not run (core.compiled_sources).
_use_sources(__name__, _Path(__file__).resolve().parent)
