"""The acceptance benchmarks run: ``bench/prepare.py`` prepares days of puzzles and replays
each stored line through POST /v1/verify, and ``bench/hint.py`` asks the real server for
hints on them (the full runs, 14 days of every variant, are recorded in bench/README.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.mark.slow
def test_prepare_and_hint_benchmarks_on_two_small_variants(tmp_path: Path) -> None:
    """Two days of Paganini and Line Up: every puzzle certified and its line winning in par
    actions; then hints on them, on and off the line, all answered."""
    prepared = subprocess.run(
        [sys.executable, str(BENCH / "prepare.py"), "--days", "2", "--from", "2026-12-01",
         "--variant", "paganini", "--variant", "line-up", "--instance", str(tmp_path / "i"),
         "--out", str(tmp_path / "prepare.jsonl")],
        capture_output=True, text=True, timeout=600)
    assert prepared.returncode == 0, prepared.stdout + prepared.stderr
    assert "| paganini | 2 of 2 |" in prepared.stdout
    assert "4 of 4 stored lines win in exactly par actions" in prepared.stdout
    hints = subprocess.run(
        [sys.executable, str(BENCH / "hint.py"), "--instance", str(tmp_path / "i"),
         "--hints", "10"], capture_output=True, text=True, timeout=600)
    assert hints.returncode == 0, hints.stdout + hints.stderr
    assert "| on the line | 10 | 10 / 0 / 0 |" in hints.stdout
    assert "the line's next action 10 times of 10" in hints.stdout
