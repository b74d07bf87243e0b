"""Write ``api/examples.py``, the OpenAPI document's examples, from real exchanges with the API.

Run by hand after an answer changes (a test then says the examples drifted):
``.venv/bin/python -m tests.api.write_openapi_examples``. The app runs on a
temporary database at 2026-11-30 12:00 UTC with the secret ``example-secret``,
as in the test that replays the examples.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import pprint
import tempfile
import textwrap
from pathlib import Path
from typing import Any

from flask.testing import FlaskClient

from gapgrid import plugins
from gapgrid.api.app import create_app
from gapgrid.api.config import Settings
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game

TARGET = Path(__file__).resolve().parents[2] / "api" / "examples.py"
NOW = datetime.datetime(2026, 11, 30, 12, 0, tzinfo=datetime.UTC)
DAY = "2026-11-30"
MONTANA = {"date": DAY, "slug": "montana"}

HEAD = '''"""Example requests and answers for the OpenAPI document, one per operation.

Each is a real exchange with the API (Montana, 2026-11-30 12:00 UTC, the secret
``example-secret``), written by ``python -m tests.api.write_openapi_examples``; the
tests check each against its schemas, and replay those that depend on no clock,
token or search time against the app, so they cannot drift from what it answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import attrs


@attrs.frozen
class Example:
    """One exchange: the request (its parameters and body) and the answer."""

    summary: str
    status: int
    response: Any
    parameters: Mapping[str, Any] = attrs.field(factory=dict)
    """Path and query parameters, by name."""

    request: Any = None
    """The JSON body, or None."""


'''


class Recorder:
    """Sends requests to an app and keeps each exchange under its operation id."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        self.examples: dict[str, dict[str, Any]] = {}

    def record(self, operation: str, summary: str, method: str, path: str, status: int,
               parameters: dict[str, Any] | None = None, body: Any = None,
               headers: dict[str, str] | None = None) -> Any:
        """Send one request, check its status, and keep the exchange."""
        answer = self.client.open(path, method=method, json=body, headers=headers)
        assert answer.status_code == status, (operation, answer.status_code, answer.get_json())
        data = answer.get_json()
        self.examples[operation] = {"summary": summary, "status": status,
                                    "parameters": parameters or {}, "request": body,
                                    "response": data}
        return data


def exchanges(client: FlaskClient) -> tuple[dict[str, dict[str, Any]], str]:
    """Every operation's example, and the start token they use."""
    recorder = Recorder(client)
    record = recorder.record
    everything = client.get("/v1/variants").get_json()
    recorder.examples["list_variants"] = {
        "summary": "The list, cut to its first entry here.", "status": 200, "parameters": {},
        "request": None, "response": everything[:1]}
    record("get_variant", "Montana, by its slug.", "GET", "/v1/variants/montana", 200,
           {"slug": "montana"})
    record("get_deal", "Montana game 617.", "GET", "/v1/variants/montana/deals/617", 200,
           {"slug": "montana", "number": "617"})
    record("get_daily", "Today's Montana (on 2026-11-30).", "GET", "/v1/daily/montana", 200,
           {"slug": "montana"})
    record("get_puzzle", "Montana of 2026-11-30.", "GET", f"/v1/puzzles/{DAY}/montana", 200,
           MONTANA)
    record("post_verify", "Three legal moves, a redeal among them, timed at 42.5 s.", "POST",
           "/v1/verify", 200, body={"variant": "montana", "deal": "27769",
                                    "moves": ["27-40", "redeal", "15-0"], "elapsed": 42.5})
    record("post_moves", "The position after one move, and the moves legal there.", "POST",
           "/v1/moves", 200, body={"variant": "montana", "deal": "27769", "moves": ["27-40"]})
    if "v1.post_hint" in client.application.view_functions:
        record("post_hint", "The next action of a winning line, after one move.", "POST",
               "/v1/hint", 200, body={"variant": "montana", "deal": "27769",
                                      "moves": ["27-40"]})
    if "v1.get_solution" in client.application.view_functions:
        record("get_solution", "The shortest known win of yesterday's Montana.", "GET",
               "/v1/puzzles/2026-11-29/montana/solution", 200,
               {"date": "2026-11-29", "slug": "montana"})
    ann = record("post_player", "Ann registers her name.", "POST", "/v1/players", 201,
                 body={"player": "Ann"})
    owner = {"Authorization": f"Bearer {ann['token']}"}
    start = record("post_start", "A start token for today's Montana, for Ann (sent with her "
                   "player token).", "POST", f"/v1/puzzles/{DAY}/montana/start", 200, MONTANA,
                   {"player": "Ann"}, owner)
    moves = _opening(client.get("/v1/daily/montana").get_json()["deal"], 3)
    client.post(f"/v1/puzzles/{DAY}/montana/submissions", json={"player": "Ben",
                                                                "moves": moves[:2]})
    record("post_submission", "Ann's three moves, timed by her start token (sent with her "
           "player token).", "POST", f"/v1/puzzles/{DAY}/montana/submissions", 201, MONTANA,
           {"player": "Ann", "moves": moves, "token": start["token"]}, owner)
    record("get_leaderboard", "The first page, one entry a page.", "GET",
           f"/v1/puzzles/{DAY}/montana/leaderboard?per_page=1", 200,
           {**MONTANA, "per_page": 1})
    recorder.examples["get_openapi"] = {
        "summary": "This document, cut to its first lines.", "status": 200, "parameters": {},
        "request": None, "response": {"openapi": "3.1.0", "info": {
            "title": "gapgrid puzzle API", "version": importlib.metadata.version("gapgrid")},
        "paths": {}}}
    record("get_health", "A ready process.", "GET", "/v1/health", 200)
    index = record("get_index", "The index on the examples' day, its daily list cut to its "
                   "first entry here.", "GET", "/v1/", 200)
    index["daily"] = index["daily"][:1]
    return recorder.examples, str(start["token"])


def _opening(deal: str, count: int) -> list[str]:
    """The first ``count`` legal moves, each the first one offered."""
    state = new_game(plugins.load_catalogue(disabled=()).rules("montana"),
                     parse_deal_number(deal))
    moves = []
    for _ in range(count):
        move = state.legal_moves()[0]
        state = state.apply(move)
        moves.append(str(move))
    return moves


def source(examples: dict[str, dict[str, Any]], token: str) -> str:
    """The module's text: the examples as Python literals, the long token split."""
    lines = [f"_TOKEN: Final = ({token[:60]!r}", f"          {token[60:]!r})",
             '"""The start token of the examples (signed with the example secret)."""', "", "",
             "EXAMPLES: Final[dict[str, Example]] = {"]
    for operation, example in examples.items():
        lines += [f"    {operation!r}: Example(", f"        summary={example['summary']!r},",
                  f"        status={example['status']},"]
        if example["parameters"]:
            lines.append(f"        parameters={example['parameters']!r},")
        if example["request"] is not None:
            lines.append("        request=" + _literal(example["request"], 16) + ",")
        lines.append("        response=" + _literal(example["response"], 17) + "),")
    lines += ["}", '"""Keyed by operation id."""', ""]
    return HEAD + "\n".join(lines).replace(repr(token), "_TOKEN")


def _literal(value: Any, indent: int) -> str:
    return textwrap.indent(pprint.pformat(value, width=80, sort_dicts=False),
                           " " * indent).lstrip()


def main() -> None:
    """Write the examples."""
    folder = Path(tempfile.mkdtemp(prefix="gapgrid-examples-"))
    settings = Settings(instance=folder, database=folder / "db.sqlite3",
                        secret_key="example-secret", first_day=datetime.date(2026, 1, 1),
                        limit_reads=None, limit_checks=None, limit_writes=None)
    app = create_app(settings, catalogue=plugins.load_catalogue(entry_points=False,
                                                                disabled=()),
                     clock=lambda: NOW)
    examples, token = exchanges(app.test_client())
    TARGET.write_text(source(examples, token), encoding="utf-8")
    print(f"wrote {len(examples)} examples to {TARGET}")


if __name__ == "__main__":
    main()
