"""Installing throw-away plugin distributions for a test: a dist-info on ``sys.path``."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

GAPGRID = Path(sys.executable).with_name("gapgrid")


def write_distribution(root: Path, name: str, module: str, source: str) -> None:
    """Make ``root`` hold a distribution ``name`` whose ``gapgrid`` entry point is ``module``."""
    info = root / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[gapgrid]\n{name} = {module}\n")
    (root / f"{module}.py").write_text(textwrap.dedent(source))


def run_gapgrid(*args: str, path: Path | None = None, stdin: str | None = None
                ) -> subprocess.CompletedProcess[str]:
    """Run the installed ``gapgrid`` command, with ``path`` on its PYTHONPATH."""
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = str(path)
    return subprocess.run([str(GAPGRID), *args], capture_output=True, text=True, env=env,
                          input=stdin, timeout=60, check=False)
