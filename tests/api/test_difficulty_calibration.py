"""The committed difficulty calibration: every built-in variant and preset has its own,
from at least 200 won deals (issue 11), and the server's table is exactly what those
deals give, so that the labels split each variant's deals into even quarters."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from gapgrid import plugins
from gapgrid.api import calibrate_difficulty
from gapgrid.api.services import difficulty, difficulty_table

ROWS = calibrate_difficulty.read_rows(calibrate_difficulty.CSV_PATH)
SLUGS = plugins.load_catalogue(entry_points=False).slugs()
CALIBRATION = difficulty_table.CALIBRATION


def _won_raws(slug: str) -> list[float]:
    return [float(row["raw"]) for row in ROWS
            if row["variant"] == slug and row["verdict"] == "won"]


@pytest.mark.parametrize("slug", SLUGS)
def test_every_variant_is_calibrated_on_200_won_deals_of_its_own(slug: str) -> None:
    """No built-in variant is rated on the pooled table."""
    entry = CALIBRATION["variants"][slug]
    assert entry["deals"] == len(_won_raws(slug)) >= 200


def test_the_servers_table_is_what_the_committed_deals_give(tmp_path: Path) -> None:
    """The table was written from the committed CSV and not edited since."""
    written = tmp_path / "difficulty_table.py"
    calibrate_difficulty.write_table(ROWS, SLUGS, written, CALIBRATION["budget_positions"])
    assert written.read_text() == Path(difficulty_table.__file__).read_text()


@pytest.mark.parametrize("slug", SLUGS)
def test_the_labels_split_a_variants_calibration_deals_into_quarters(slug: str) -> None:
    """Rated against its own table, each label holds about a quarter of the deals."""
    quantiles = CALIBRATION["variants"][slug]["quantiles"]
    raws = _won_raws(slug)
    labels = Counter(difficulty.label_of(difficulty.percentile(quantiles, raw)) for raw in raws)
    shares = {label: labels[label] / len(raws) for label in difficulty.LABELS}
    assert all(abs(share - 0.25) < 0.05 for share in shares.values()), shares
