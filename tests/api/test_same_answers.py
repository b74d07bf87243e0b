"""The command line and the HTTP API answer the same request with the same document.

Every golden game goes through ``gapgrid verify --json`` and ``gapgrid moves
--json`` (click's runner, in this process) and through ``POST /v1/verify`` and
``POST /v1/moves`` on a real server (``gapgrid serve`` in a subprocess), whole
and cut short by a move PySolFC refuses, and the documents must be equal,
field for field and in the same order.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from click.testing import CliRunner

from gapgrid import plugins
from gapgrid.api.cli import main
from gapgrid.core.catalogue import Catalogue
from tests.api.live import LiveServer, request
from tests.golden import golden_games

pytestmark = pytest.mark.slow  # some 1,200 requests each way, on a real server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One real server for the whole module (it only answers stateless requests here)."""
    live = LiveServer(tmp_path_factory.mktemp("same-answers") / "instance").start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def server_catalogue() -> Catalogue:
    """The plugins the server loads (built-in and installed, as `gapgrid serve` does)."""
    return plugins.load_catalogue()


def cli_document(catalogue: Catalogue, command: str, body: dict[str, Any]) -> tuple[int, Any]:
    """Run ``gapgrid COMMAND ... --json`` with the request's values as arguments."""
    args = [command, body["variant"], body["deal"], *body["moves"], "--json"]
    for key, value in body.get("options", {}).items():
        args += ["--option", f"{key}={value}"]
    for name in body.get("scoring", ()):
        args += ["--scoring", name]
    if "elapsed" in body:
        args += ["--elapsed", str(body["elapsed"])]
    if body.get("timed"):
        args.append("--timed")
    result = CliRunner().invoke(main, args, obj={"catalogue": catalogue})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.output)


def assert_same(server: LiveServer, catalogue: Catalogue, command: str,
                bodies: Sequence[dict[str, Any]]) -> int:
    """Send each body both ways and compare; return how many had a refused move."""
    refused = 0
    for body in bodies:
        status, _, over_http = request("POST", f"{server.url}/v1/{command}", body)
        assert status == 200, (body, over_http)
        code, printed = cli_document(catalogue, command, body)
        assert printed == over_http, body
        assert list(printed) == list(over_http), "the fields come in another order"
        assert code == (0 if printed["ok"] else 1)
        refused += not printed["ok"]
    return refused


def whole_games() -> list[dict[str, Any]]:
    return [{"variant": record["variant"], "deal": record["deal"], "moves": record["moves"]}
            for record in golden_games()]


def refused_games() -> list[dict[str, Any]]:
    """Each golden game with probes, cut after its first, with the move PySolFC refused there."""
    return [{"variant": record["variant"], "deal": record["deal"],
             "moves": [*record["moves"][:probe["after"]], probe["move"]]}
            for record in golden_games() for probe in record["illegal"][:1]]


def test_verify_answers_alike_for_every_golden_game(server: LiveServer,
                                                    server_catalogue: Catalogue) -> None:
    """verify --json and POST /v1/verify: the same document for every golden game, whole
    (scored with every scheme) and cut short by a refused move (no scores)."""
    assert assert_same(server, server_catalogue, "verify", whole_games()) == 0
    refused = refused_games()
    assert len(refused) > 150  # most games have probes
    assert assert_same(server, server_catalogue, "verify", refused) == len(refused)


def test_moves_answers_alike_for_every_golden_game(server: LiveServer,
                                                   server_catalogue: Catalogue) -> None:
    """moves --json and POST /v1/moves: the same position and legal moves for every golden
    game, whole and cut short by a refused move."""
    assert assert_same(server, server_catalogue, "moves", whole_games()) == 0
    refused = refused_games()
    assert assert_same(server, server_catalogue, "moves", refused) == len(refused)


def test_verify_options_schemes_and_time_answer_alike(server: LiveServer,
                                                      server_catalogue: Catalogue) -> None:
    """Options, chosen schemes, a time and the timed mode change both answers alike."""
    record = golden_games()[0]
    base = {"variant": record["variant"], "deal": record["deal"], "moves": record["moves"][:12]}
    bodies = [
        {**base, "scoring": ["cards"]},
        {**base, "scoring": ["par", "frontier"], "elapsed": 95.5},
        {**base, "elapsed": 42, "timed": True},
        {**base, "scoring": ["all"], "elapsed": 0},
        {**base, "options": {"redeals": "unlimited"}, "elapsed": 600.25},
        {**base, "options": {"redeals": "0"}},  # the opening's redeal is refused
    ]
    assert assert_same(server, server_catalogue, "verify", bodies) == 1
    _, _, timed = request("POST", f"{server.url}/v1/verify", bodies[2])
    _, _, untimed = request("POST", f"{server.url}/v1/verify", {**bodies[2], "timed": False})
    assert timed["scores"] != untimed["scores"], "timed changes nothing: the test proves little"
