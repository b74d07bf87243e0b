"""Telling a plugin's failure from gapgrid's own, after the fact.

A third party's rule, deal style or redeal runs inside gapgrid's engine: an
exception it raises reaches the command line or the server as any bug would,
and was reported as gapgrid's ("internal error: please report it"). The
traceback says whose code raised it: :func:`failing_plugin` finds the plugin
whose package the innermost plugin code on it belongs to, so the message can
name it, and say how to run without it.
"""

from __future__ import annotations

import importlib.metadata

from gapgrid.core import hookspecs


def failing_plugin(error: BaseException) -> str | None:
    """The name (its entry point's, as ``GAPGRID_DISABLE_PLUGINS`` takes it) of the installed
    plugin whose code is the innermost on ``error``'s traceback, or None when no plugin's
    code is on it. (The innermost: a plugin calling a library that raises is named, and a
    plugin calling gapgrid code that raises too.)"""
    plugins = {entry_point.module.partition(".")[0]: entry_point.name
               for entry_point in importlib.metadata.entry_points(
                   group=hookspecs.PROJECT_NAME)}
    found = None
    trace = error.__traceback__
    while trace is not None:
        name = trace.tb_frame.f_globals.get("__name__", "")
        top = name.partition(".")[0] if isinstance(name, str) else ""
        if top in plugins and top != hookspecs.PROJECT_NAME:  # gapgrid's own are not
            found = plugins[top]
        trace = trace.tb_next
    return found
