"""gapgrid's built-in plugins, and loading them with the third-party ones.

Every built-in feature is a plugin module listed in :data:`BUILTIN_PLUGINS`,
registered exactly like a third-party plugin found through the ``gapgrid``
entry-point group. Order matters only where an entry names another: options
before the presets that use them, a variant after the one it builds on.
"""

from __future__ import annotations

import difflib
import importlib
import os
from collections.abc import Iterable

from gapgrid.core.catalogue import (
    Catalogue,
    LoadedPlugin,
    PluginProblem,
    build_catalogue,
    discover_entry_points,
    installed_plugin_names,
)

BUILTIN_PLUGINS: tuple[str, ...] = (
    "options",
    "montana", "spaces", "station", "free_parking", "double_montana", "house_of_commons",
    "line_up", "rectangular_rovers",
    "blue_moon", "jungle", "paganini", "double_blue_moon", "spaces_and_aces", "paganini_ii",
    "red_moon", "galary", "double_red_moon",
    "presets",
    "scoring_cards", "scoring_frontier", "scoring_par",
)
"""The built-in plugin modules of this package, in registration order."""

DISABLE_VARIABLE = "GAPGRID_DISABLE_PLUGINS"
"""Environment variable: comma-separated names of plugins not to load."""


def builtin_plugins() -> list[LoadedPlugin]:
    """Import and return the built-in plugin modules."""
    return [LoadedPlugin(name, importlib.import_module(f"{__name__}.{name}"), tried=False)
            for name in BUILTIN_PLUGINS]


def disabled_plugins() -> list[str]:
    """Return the plugin names listed in ``GAPGRID_DISABLE_PLUGINS``."""
    return [name.strip() for name in os.environ.get(DISABLE_VARIABLE, "").split(",")
            if name.strip()]


def load_catalogue(*, entry_points: bool = True,
                   disabled: Iterable[str] | None = None) -> Catalogue:
    """Load the built-in plugins and (unless told not to) the installed third-party ones.

    ``disabled`` defaults to ``GAPGRID_DISABLE_PLUGINS``; it may name built-in
    plugins (``jungle``), entry points or distributions.
    """
    blocked = set(disabled_plugins() if disabled is None else disabled)
    plugins = [plugin for plugin in builtin_plugins() if plugin.name not in blocked]
    problems: list[PluginProblem] = []
    if entry_points:
        found, problems = discover_entry_points(disabled=blocked)
        plugins += found
        # a name that disables nothing is most likely a typo (line-up for line_up)
        known = set(BUILTIN_PLUGINS) | installed_plugin_names()
        problems += [_unknown_name(name, known) for name in sorted(blocked - known)]
    return build_catalogue(plugins, problems)


def _unknown_name(name: str, known: set[str]) -> PluginProblem:
    """What to say of a name in GAPGRID_DISABLE_PLUGINS that disables nothing: the names it
    is near, if any (plugin names use underscores where game names use hyphens)."""
    near = difflib.get_close_matches(name.replace("-", "_"), sorted(known), n=3)
    guess = f"; did you mean {' or '.join(repr(each) for each in near)}?" if near else ""
    return PluginProblem(name, f"{DISABLE_VARIABLE} names {name!r}, which is no plugin or "
                               f"distribution{guess}", disables_nothing=True)
