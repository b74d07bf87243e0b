"""Benchmark: hostile PySolFC saved games are read or refused within 2 s and 100 MiB.

Issue 15, item 6: any file up to the size limit (1 MiB) must be read or
refused within 2 seconds and 100 MiB. Each hostile file of
tests/api/pysolfc/hostile_saves.py (and each real save of data/pso, for
comparison) is read by ``read_save`` in a fresh Python process, so that a
file that hangs can be stopped (hashing in C ignores Ctrl-C) and each
measures alone:

* ``verdict``: read, or refused with the first words of the reason, or
  ``TIMEOUT`` when it ran past ``--timeout`` seconds;
* ``time``: wall-clock seconds of ``read_save`` alone (and CPU seconds: the
  machine may be shared);
* ``traced``: the most memory ``read_save`` held (``tracemalloc``, second run);
* ``rss``: the process's peak resident size, less that of the same process
  before reading (the interpreter and gapgrid).

Usage: python bench/hostile_saves.py [--timeout SECONDS]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the hostile files are built by the tests' module

from tests.api.pysolfc.hostile_saves import HOSTILE  # noqa: E402

CHILD = r"""
import json, resource, sys, time, tracemalloc
from gapgrid.api.pysolfc.savefile import SaveFileError, read_save
data = open(sys.argv[1], "rb").read()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started, cpu_started = time.perf_counter(), time.process_time()
try:
    read_save(data)
    verdict = "read"
except SaveFileError as error:
    verdict = "refused: " + str(error)
seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_started
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
tracemalloc.start()
try:
    read_save(data)
except SaveFileError:
    pass
traced = tracemalloc.get_traced_memory()[1]
print(json.dumps({"verdict": verdict, "seconds": seconds, "cpu": cpu, "rss_kib": rss,
                  "traced": traced}))
"""


def measure(data: bytes, timeout: float) -> dict[str, object]:
    """Read ``data`` in a fresh process; its verdict, time and memory, or a timeout."""
    with tempfile.NamedTemporaryFile(suffix=".pso") as handle:
        handle.write(data)
        handle.flush()
        try:
            done = subprocess.run([sys.executable, "-c", CHILD, handle.name], capture_output=True,
                                  text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return {"verdict": "TIMEOUT", "seconds": timeout, "cpu": None, "rss_kib": None,
                    "traced": None}
    if done.returncode != 0:
        return {"verdict": "CRASH " + done.stderr.strip().splitlines()[-1], "seconds": None,
                "cpu": None, "rss_kib": None, "traced": None}
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def main() -> None:
    """Measure every hostile file and every real save; print a table for bench/README.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=30.0)
    arguments = parser.parse_args()
    print(f"{platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}")
    print("| file | bytes | verdict | time (CPU) | traced | rss |")
    print("|---|---|---|---|---|---|")
    files = [(name, build()) for name, build in HOSTILE.items()]
    saves = sorted((ROOT / "data" / "pso").glob("*.pso"))
    files += [(path.name, path.read_bytes()) for path in saves]
    for name, data in files:
        found = measure(data, arguments.timeout)
        verdict = str(found["verdict"])
        shown = verdict if len(verdict) <= 60 else verdict[:57] + "..."
        seconds, cpu = found["seconds"], found["cpu"]
        traced, rss = found["traced"], found["rss_kib"]
        print(f"| {name} | {len(data):,} | {shown} | "
              + (f"{seconds:.2f} s" if isinstance(seconds, float) else "-")
              + (f" ({cpu:.2f} s)" if isinstance(cpu, float) else "") + " | "
              + (f"{traced / 2**20:.1f} MiB" if isinstance(traced, int) else "-") + " | "
              + (f"{rss / 1024:.1f} MiB" if isinstance(rss, int) else "-") + " |")


if __name__ == "__main__":
    main()
