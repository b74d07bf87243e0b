"""Telling a plugin's failure from gapgrid's own, after the fact.

A third party's rule, deal style or redeal runs inside gapgrid's engine: an
exception it raises reaches the command line or the server as any bug would,
and was reported as gapgrid's ("internal error: please report it"). The
traceback says whose code raised it: :func:`failing_plugin` finds the plugin
whose module the innermost code outside gapgrid and Python's own library
belongs to, so the message can name it, and say how to run without it.
"""

from __future__ import annotations

import importlib.metadata
import sys
from types import TracebackType

from gapgrid.core import hookspecs

_OURS = ("gapgrid", "pluggy", "attrs", "attr")
"""Top-level packages whose code is not a plugin's: gapgrid's, and what runs the plugins."""


def failing_plugin(error: BaseException) -> str | None:
    """The name (its entry point's, as ``GAPGRID_DISABLE_PLUGINS`` takes it) of the installed
    plugin whose code raised ``error``, or None when no plugin's code is on its traceback
    below gapgrid's."""
    module = _innermost_foreign_module(error.__traceback__)
    if module is None:
        return None
    top = module.partition(".")[0]
    for entry_point in importlib.metadata.entry_points(group=hookspecs.PROJECT_NAME):
        if entry_point.module.partition(".")[0] == top:
            return entry_point.name
    return None


def _innermost_foreign_module(trace: TracebackType | None) -> str | None:
    """The module of the innermost frame that is neither gapgrid's (nor what runs plugins)
    nor Python's own library, or None."""
    found = None
    while trace is not None:
        name = trace.tb_frame.f_globals.get("__name__", "")
        top = name.partition(".")[0] if isinstance(name, str) else ""
        if top and top not in _OURS and top not in sys.stdlib_module_names:
            found = name
        trace = trace.tb_next
    return found
