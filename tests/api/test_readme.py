"""The command lines of the README and docs/plugins.md, and the README's endpoint table, say what
the code does."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import NamedTuple

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from gapgrid.api.cli import main

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCUMENTS = ("README.md", "docs/plugins.md")
"""The documents whose transcripts are run (docs/plugins.md's needs the example plugin,
which the README's test command installs)."""


class Example(NamedTuple):
    """One ``$ gapgrid ...`` line of a document's code block and the lines it shows."""

    document: str
    args: str
    stdin: str | None
    grep: str | None
    """The word of a ``| grep WORD`` after the command: only lines holding it are shown."""
    shown: list[str]


def _examples(document: str) -> list[Example]:
    """Each ``$ gapgrid ...`` (or ``$ echo ... | gapgrid ...``, or ``$ gapgrid ... | grep
    WORD``) in a code block of ``document``."""
    text = (ROOT / document).read_text(encoding="utf-8")
    found = []
    # Every fenced block, in order (so that a closing fence never opens one); the plain
    # ones hold transcripts, the others code.
    blocks = re.findall(r"^```(\w*)\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
    for block in (body for language, body in blocks if not language):
        command: tuple[str, str | None, str | None] | None = None
        shown: list[str] = []
        for line in [*block.splitlines(), "$ end"]:
            if line.startswith("$ "):
                if command is not None:
                    found.append(Example(document, *command, shown))
                command, shown = None, []
                piped = re.fullmatch(r'\$ echo "(.*)" \| gapgrid (.*)', line)
                if piped:
                    command = (piped.group(2), piped.group(1) + "\n", None)
                elif line.startswith("$ gapgrid "):
                    args, _, grep = line.removeprefix("$ gapgrid ").partition(" | grep ")
                    command = (args, None, grep or None)
            elif command is not None:
                shown.append(line)
    return found


EXAMPLES = [example for document in DOCUMENTS for example in _examples(document)]


def test_the_documents_have_command_examples() -> None:
    """The examples below are found (deal, verify text and JSON, moves, a JSON error; a
    third-party variant listed, and its move checked under it and under Montana)."""
    assert sum(example.document == "README.md" for example in EXAMPLES) >= 5
    assert sum(example.document == "docs/plugins.md" for example in EXAMPLES) >= 3


@pytest.mark.parametrize("example", EXAMPLES,
                         ids=[f"{example.document}: {example.args}" for example in EXAMPLES])
def test_a_documented_command_prints_what_the_document_shows(example: Example) -> None:
    """Each example prints the lines shown; a shown line ending in '...' (or a line '...')
    stands for the rest."""
    printed = CliRunner().invoke(main, shlex.split(example.args),
                                 input=example.stdin).stdout.splitlines()
    if example.grep is not None:
        printed = [line for line in printed if example.grep in line]
    for index, line in enumerate(example.shown):
        if line == "...":
            return
        if line.endswith(", ...}"):
            assert printed[index].startswith(line.removesuffix("...}")), printed[index]
        else:
            assert printed[index] == line
    assert len(printed) == len(example.shown)


def test_the_endpoint_table_lists_every_route(client: FlaskClient) -> None:
    """The README's endpoint table and the OpenAPI document name the same routes."""
    table = set(re.findall(r"^\| `(?:GET|POST) (/v1/[^`?]*)", README, re.MULTILINE))
    table |= set(re.findall(r", `(?:GET|POST) (/v1/[^`?]*)`", README))
    documented = set(client.get("/v1/openapi.json").get_json()["paths"])
    assert documented - {"/v1/openapi.json"} == table
