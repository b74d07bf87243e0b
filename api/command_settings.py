"""Settings every command of gapgrid shares, ``gapgrid`` and the ``python -m`` ones alike,
in a module of their own so that a small command (``python -m gapgrid.api.compiled``,
``study_plot``) takes them without loading the whole command line and its database layer.
"""

from __future__ import annotations

from typing import Final

HELP_OPTIONS: Final = {"help_option_names": ["-h", "--help"]}
"""``-h`` as well as ``--help``."""
