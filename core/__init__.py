"""gapgrid's core: the Montana family of solitaire games as pure, typed Python.

Cards, layouts and boards (:mod:`core.cards`, :mod:`core.layout`,
:mod:`core.board`), PySolFC's game numbers and deals (:mod:`core.dealnumber`,
:mod:`core.deals`), the rules (:mod:`core.fills`, :mod:`core.redeals`,
:mod:`core.runs`), playing and replaying (:mod:`core.game`,
:mod:`core.replay`), scores (:mod:`core.scoring`), and the plugin machinery
(:mod:`core.hookspecs`, :mod:`core.registry`, :mod:`core.catalogue`). No I/O,
no Flask, no global random state.
"""
