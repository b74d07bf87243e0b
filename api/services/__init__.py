"""The service layer: gapgrid's use cases, over plain values, with no HTTP and no terminal.

* :mod:`~gapgrid.api.services.games`: list variants and scoring schemes,
  deal, verify with scores, the legal moves of a position, PySolFC saved games.
* :mod:`~gapgrid.api.services.puzzles`: the daily puzzle, start tokens,
  submissions and leaderboards (:class:`~gapgrid.api.services.puzzles.PuzzleService`).
* :mod:`~gapgrid.api.services.errors`: the one error a use case raises for a
  request it refuses, naming the faulty field.

The command line (:mod:`gapgrid.api.cli`) and the HTTP API
(:mod:`gapgrid.api.routes`) are thin adapters over these: they turn their
input into plain values, call one use case, and print or serve the document it
returns unchanged, so the two cannot drift apart. (Percival and Gregory's
*Architecture Patterns with Python*, chapter "Service layer", is the model.)
"""
