"""The hook specifications are documented, here and in docs/plugins.md."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pluggy
import pytest

from gapgrid.core import hookspecs

DOCS = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"


def _specs() -> list[str]:
    manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    manager.add_hookspecs(hookspecs)
    return sorted(name for name in dir(manager.hook) if name.startswith("gapgrid_"))


def test_every_hook_is_prefixed_and_there_are_hooks() -> None:
    """Hooks share the gapgrid_ prefix; the module declares the rule hooks and registration."""
    names = _specs()
    assert "gapgrid_register" in names and "gapgrid_fill_rule" in names
    public = [name for name, value in vars(hookspecs).items()
              if inspect.isfunction(value) and not name.startswith("_")]
    assert sorted(public) == names


@pytest.mark.parametrize("name", _specs())
def test_every_hookspec_has_a_complete_docstring(name: str) -> None:
    """Each spec says what it is for, when it is called and what it returns."""
    function = getattr(hookspecs, name)
    doc = " ".join((inspect.getdoc(function) or "").split())
    assert "Called" in doc and ":return:" in doc
    options = getattr(function, f"{hookspecs.PROJECT_NAME}_spec")  # set by pluggy's marker
    if options["firstresult"]:
        assert "Stops at first non-None result." in doc


@pytest.mark.parametrize("name", _specs())
def test_every_hookspec_is_in_the_plugin_guide(name: str) -> None:
    """docs/plugins.md has a section for each hook, with its parameters."""
    text = DOCS.read_text(encoding="utf-8")
    parameters = [p for p in inspect.signature(getattr(hookspecs, name)).parameters]
    assert f"### `{name}({', '.join(parameters)})`" in text


def test_hookspec_docstrings_name_only_the_public_api() -> None:
    """Types a hook docstring names are public (``gapgrid.Layout``), never internal modules."""
    import gapgrid
    text = " ".join(inspect.getdoc(getattr(hookspecs, name)) or "" for name in _specs())
    named = set(re.findall(r":(?:class|data|mod|func):`([\w.]+)`", text))
    assert named, "the docstrings name their types"
    for target in named:
        assert target.startswith("gapgrid.") and target.count(".") == 1, target
        assert target.removeprefix("gapgrid.") in gapgrid.__all__, target
