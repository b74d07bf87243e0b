"""gapgrid and PySolFC: gapgrid's games inside PySolFC, and PySolFC's games checked by gapgrid.

* :mod:`api.pysolfc.savefile` reads PySolFC saved games safely.
* :mod:`api.pysolfc.games` maps PySolFC game ids to gapgrid variants and back.
* :mod:`api.pysolfc.bridge` runs inside PySolFC and registers gapgrid's games.
* :mod:`api.pysolfc.hints` gives those games the solver's next move as PySolFC's Hint.
* :mod:`api.pysolfc.rules_pages` writes their rules pages.
* :mod:`api.pysolfc.install` writes, removes and inspects the plugin file.
"""
