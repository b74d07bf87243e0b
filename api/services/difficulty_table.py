"""The difficulty calibration, written by ``python -m gapgrid.api.calibrate_difficulty``:
do not edit.

Empty until the calibration has run.
"""

from __future__ import annotations

from typing import Any, Final

CALIBRATION: Final[dict[str, Any]] = {"variants": {}, "pooled": None}
