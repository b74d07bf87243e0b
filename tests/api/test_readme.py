"""The README's command lines and endpoint table say what the code does."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from gapgrid.api.cli import main

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def _examples() -> list[tuple[str, str | None, list[str]]]:
    """Each ``$ gapgrid ...`` (or ``$ echo ... | gapgrid ...``) in a code block of the
    README: the arguments, the standard input, and the lines it shows."""
    found = []
    for block in re.findall(r"```\n(.*?)```", README, re.DOTALL):
        command: tuple[str, str | None] | None = None
        shown: list[str] = []
        for line in [*block.splitlines(), "$ end"]:
            if line.startswith("$ "):
                if command is not None:
                    found.append((*command, shown))
                command, shown = None, []
                piped = re.fullmatch(r'\$ echo "(.*)" \| gapgrid (.*)', line)
                if piped:
                    command = (piped.group(2), piped.group(1) + "\n")
                elif line.startswith("$ gapgrid "):
                    command = (line.removeprefix("$ gapgrid "), None)
            elif command is not None:
                shown.append(line)
    return found


EXAMPLES = _examples()


def test_the_readme_has_command_examples() -> None:
    """The examples below are found (deal, verify text and JSON, moves, a JSON error)."""
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize(("args", "stdin", "shown"), EXAMPLES,
                         ids=[args for args, _, _ in EXAMPLES])
def test_readme_command_prints_what_the_readme_shows(args: str, stdin: str | None,
                                                     shown: list[str]) -> None:
    """Each example prints the lines shown; a shown line ending in '...' (or a line '...')
    stands for the rest."""
    printed = CliRunner().invoke(main, shlex.split(args), input=stdin).stdout.splitlines()
    for index, line in enumerate(shown):
        if line == "...":
            return
        if line.endswith(", ...}"):
            assert printed[index].startswith(line.removesuffix("...}")), printed[index]
        else:
            assert printed[index] == line
    assert len(printed) == len(shown)


def test_the_endpoint_table_lists_every_route(client: FlaskClient) -> None:
    """The README's endpoint table and the OpenAPI document name the same routes."""
    table = set(re.findall(r"^\| `(?:GET|POST) (/v1/[^`?]*)", README, re.MULTILINE))
    table |= set(re.findall(r", `(?:GET|POST) (/v1/[^`?]*)`", README))
    documented = set(client.get("/v1/openapi.json").get_json()["paths"])
    assert documented - {"/v1/openapi.json"} == table
