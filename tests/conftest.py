"""Fixtures shared by every test: a fresh catalogue per test, and the golden games."""

from __future__ import annotations

import pytest

from gapgrid import plugins
from gapgrid.core.catalogue import Catalogue


@pytest.fixture
def catalogue() -> Catalogue:
    """A catalogue of the built-in plugins only, built afresh for each test."""
    return plugins.load_catalogue(entry_points=False, disabled=())
