"""Property-based tests of the API against its own OpenAPI document (schemathesis).

Schemathesis generates requests from /v1/openapi.json, valid and invalid,
sends them through the WSGI app, and checks every answer: no 500, a status
code and content type the document lists, and a body matching its schema.
The number of examples per operation is bounded so CI stays quick.
"""

from __future__ import annotations

import datetime
import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance

from gapgrid import plugins
from gapgrid.api.app import create_app
from gapgrid.api.config import Settings

# Built at import: schemathesis reads the document when the test is collected.
_FOLDER = Path(tempfile.mkdtemp(prefix="gapgrid-schemathesis-"))
APP = create_app(
    Settings(instance=_FOLDER, database=_FOLDER / "db.sqlite3", secret_key="schemathesis",
             first_day=datetime.date(2026, 1, 1)),
    catalogue=plugins.load_catalogue(entry_points=False),
    clock=lambda: datetime.datetime(2026, 11, 30, 12, tzinfo=datetime.UTC))
schema = schemathesis.openapi.from_wsgi("/v1/openapi.json", APP)


@schema.parametrize()
@settings(max_examples=50, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_api_conforms_to_its_openapi_document(case: schemathesis.Case) -> None:
    """Every generated request gets a documented, schema-conforming answer, never a 500."""
    # A request can fit the schema and still be refused on meaning (game 0, a variant
    # nobody registered, an option value it does not take): the schema cannot list the
    # catalogue, so "schema-valid means accepted" is the one check left out.
    case.call_and_validate(excluded_checks=[positive_data_acceptance])
