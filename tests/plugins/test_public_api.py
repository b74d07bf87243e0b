"""The public plugin API: ``from gapgrid import ...`` is all a plugin needs, and all it uses.

Every built-in plugin module, the example package and the Python examples of
docs/plugins.md are read with :mod:`ast` (never imported for this), and any
import that reaches behind :data:`gapgrid.__all__` fails the test: a
third-party plugin copied from any of them keeps working when the modules
behind the API move.
"""

from __future__ import annotations

import ast
import inspect
import re
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

import gapgrid
from gapgrid import GameSummary, plugins
from gapgrid.core.catalogue import LoadedPlugin, build_catalogue, hooks_defined_twice

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "plugins.md"
EXAMPLE = ROOT / "examples" / "gapgrid-diagonal" / "gapgrid_diagonal"
PUBLIC = frozenset(gapgrid.__all__)
INTERNAL_ROOTS = frozenset({"gapgrid", "core", "plugins", "api"})
"""Top-level names that lead into gapgrid's internals: ``core``, ``plugins`` and ``api``
are what the modules were called before they moved under ``gapgrid``."""


def private_imports(source: str, *, relative_allowed: bool = False) -> list[str]:
    """Return a message for each import in ``source`` that goes behind the public API.

    Allowed: ``import gapgrid`` (then only ``gapgrid.<public name>``) and
    ``from gapgrid import <public names>``; anything outside gapgrid. Refused:
    ``gapgrid.<module>`` in any form, the old top-level ``core``, ``plugins``
    and ``api``, and relative imports unless ``relative_allowed`` (a
    third-party package may import its own modules relatively; in
    ``plugins/`` that would reach a sibling plugin).
    """
    found: list[str] = []
    aliases: set[str] = set()
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "gapgrid":
                    aliases.add(alias.asname or "gapgrid")
                elif alias.name.split(".")[0] in INTERNAL_ROOTS:
                    found.append(f"line {node.lineno}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                if not relative_allowed:
                    found.append(f"line {node.lineno}: relative import from "
                                 f"{'.' * node.level}{module}")
            elif module == "gapgrid":
                found += [f"line {node.lineno}: {alias.name} is not in gapgrid.__all__"
                          for alias in node.names if alias.name not in PUBLIC]
            elif module.split(".")[0] in INTERNAL_ROOTS:
                found.append(f"line {node.lineno}: from {module} import ...")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in aliases and node.attr not in PUBLIC):
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr} is not in "
                         f"gapgrid.__all__")
    return found


def docs_python_blocks() -> list[tuple[int, str]]:
    """Return each ```python block of docs/plugins.md as (line number, dedented code)."""
    text = DOCS.read_text(encoding="utf-8")
    # Blocks inside a list item are indented; the closing fence has the same indent.
    fence = re.compile(r"^( *)```python\n(.*?)^\1```", re.MULTILINE | re.DOTALL)
    return [(text.count("\n", 0, match.start()) + 1, textwrap.dedent(match.group(2)))
            for match in fence.finditer(text)]


def plugin_sources() -> list[tuple[str, str, bool]]:
    """Every source the rule covers, as (label, code, relative imports allowed)."""
    sources = [(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"), False)
               # plugins/__init__.py is the loader that imports the plugins, not a plugin.
               for path in sorted((ROOT / "plugins").glob("*.py")) if path.name != "__init__.py"]
    sources += [(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"), True)
                for path in sorted(EXAMPLE.rglob("*.py"))]
    sources += [(f"docs/plugins.md:{line}", code, False) for line, code in docs_python_blocks()]
    return sources


SOURCES = plugin_sources()


def test_the_rule_covers_every_plugin_the_example_and_the_docs() -> None:
    """All 22 built-in plugin modules, the example and several docs examples are checked."""
    labels = [label for label, _, _ in SOURCES]
    assert sum(label.startswith("plugins/") for label in labels) == len(plugins.BUILTIN_PLUGINS)
    assert "examples/gapgrid-diagonal/gapgrid_diagonal/__init__.py" in labels
    assert sum(label.startswith("docs/") for label in labels) >= 5


@pytest.mark.parametrize(("label", "source", "relative_allowed"), SOURCES,
                         ids=[label for label, _, _ in SOURCES])
def test_plugins_the_example_and_the_docs_use_only_the_public_api(
        label: str, source: str, relative_allowed: bool) -> None:
    """Each parses, imports nothing behind gapgrid.__all__, and defines each hook once per scope."""
    assert private_imports(source, relative_allowed=relative_allowed) == []
    assert hooks_defined_twice(source) == []


@pytest.mark.parametrize("source", [
    "from gapgrid.core.fills import MontanaFill",
    "from gapgrid.core import fills",
    "import gapgrid.core.hookspecs",
    "from gapgrid.api.cli import run",
    "from gapgrid.plugins.galary import GalaryRules",
    "from gapgrid.plugins import galary",
    "from gapgrid import plugins",
    "from gapgrid import BaselineRules",
    "from core.hookspecs import hookimpl",
    "import plugins.galary",
    "from .galary import GalaryRules",
    "import gapgrid\nrules = gapgrid.core.shared_rules.GalaryRules()",
    "import gapgrid as gg\nfill = gg.fills",
])
def test_the_check_refuses_private_imports(source: str) -> None:
    """The checker itself catches each way of reaching behind the API."""
    assert len(private_imports(source)) == 1


@pytest.mark.parametrize("source", [
    "from gapgrid import hookimpl, Layout, MontanaFill",
    "import gapgrid\nlayout = gapgrid.MONTANA_LAYOUT",
    "import attrs\nfrom collections.abc import Sequence",
    "from gapgridx import anything",
])
def test_the_check_accepts_the_public_api(source: str) -> None:
    """Public names, and modules that are not gapgrid's, pass."""
    assert private_imports(source) == []


def test_relative_imports_are_allowed_only_where_asked() -> None:
    """A third-party package may import its own modules; a built-in plugin may not."""
    assert private_imports("from .fill import DiagonalFill", relative_allowed=True) == []
    assert private_imports("from .fill import DiagonalFill") != []


def test_public_names_are_listed_once_and_each_is_importable() -> None:
    """__all__ has no repeats, and ``from gapgrid import name`` works for each name."""
    assert len(gapgrid.__all__) == len(PUBLIC)
    for name in gapgrid.__all__:
        namespace: dict[str, object] = {}
        exec(f"from gapgrid import {name}", namespace)
        assert namespace[name] is getattr(gapgrid, name)


def _public_api_section() -> str:
    text = DOCS.read_text(encoding="utf-8")
    start = text.index("\n## The public API\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


@pytest.mark.parametrize("name", gapgrid.__all__)
def test_every_public_name_is_documented(name: str) -> None:
    """Each name is in the public API section of docs/plugins.md; classes and functions also
    carry their own docstring."""
    assert f"`{name}`" in _public_api_section()
    value = getattr(gapgrid, name)
    if inspect.isclass(value):
        assert (vars(value).get("__doc__") or "").strip(), f"{name} has no docstring"
    elif inspect.isfunction(value):
        assert (value.__doc__ or "").strip(), f"{name} has no docstring"


def test_importing_gapgrid_loads_neither_flask_nor_a_plugin() -> None:
    """``import gapgrid`` stays cheap: the pure core only, no web stack, no plugin loading."""
    code = ("import sys, gapgrid; print(' '.join(sorted(name for name in sys.modules "
            "if name.split('.')[0] in ('flask', 'werkzeug', 'jsonschema', 'waitress') "
            "or name.startswith(('gapgrid.plugins', 'gapgrid.api')))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=60).stdout.split()
    assert loaded == []


def test_the_version_is_the_installed_distributions() -> None:
    """``gapgrid.__version__`` is the version pip installed."""
    import importlib.metadata
    assert gapgrid.__version__ == importlib.metadata.version("gapgrid")


def _complete_docs_examples() -> list[tuple[int, str]]:
    return [(line, code) for line, code in docs_python_blocks()
            if code.startswith("from gapgrid import")]


@pytest.mark.parametrize(("line", "code"), _complete_docs_examples(),
                         ids=[f"docs/plugins.md:{line}" for line, _ in _complete_docs_examples()])
def test_complete_docs_examples_run(line: str, code: str) -> None:
    """Every docs example that starts with its imports runs as it stands (asserts included)."""
    exec(compile(code, f"docs/plugins.md:{line}", "exec"), {})


def test_the_docs_scoring_example_is_a_working_plugin() -> None:
    """The complete plugin in the docs registers its scheme and its preset from one
    gapgrid_register, loads without problems, and scores."""
    [code] = [code for _, code in docs_python_blocks() if "registry.add_scoring(" in code]
    module = types.ModuleType("docs_example")
    exec(compile(code, "docs/plugins.md", "exec"), module.__dict__)
    catalogue = build_catalogue([*plugins.builtin_plugins(), LoadedPlugin("docs", module)])
    assert catalogue.problems == ()
    assert catalogue.scoring["speedy"].plugin == "docs"
    assert catalogue.presets["speedy-gaps"].plugin == "docs"
    summary = GameSummary(won=False, cards_in_sequence=3, finished_rows=0, rows=4,
                          redeals_allowed=2, redeals_used=0, undos=0, moves=7)
    assert catalogue.scoring["speedy"].scheme.score(summary).total == -7
    assert catalogue.rules("speedy-gaps").redeals == 0
