"""Load benchmark: verifications per second against the real server on loopback.

Starts ``gapgrid serve`` (waitress) on a free port with a fresh instance
folder, then points wrk (Debian package ``wrk``) at ``POST /v1/verify`` with
the 204 golden games as request bodies, in turn. Reports requests per
second and the median and 99th percentile latency, and checks that every
answer was a 200. Run by hand; record the figures in bench/README.md.

Usage: python bench/load.py [--seconds 30] [--connections 16] [--threads 8] [--url URL]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "pysolfc-games.jsonl"

LUA = """
local bodies = {}
for line in io.lines("%(bodies)s") do bodies[#bodies + 1] = line end
local index = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  index = index %% #bodies + 1
  return wrk.format(nil, "/v1/verify", nil, bodies[index])
end
local bad = 0
response = function(status, headers, body)
  if status ~= 200 then bad = bad + 1 end
end
done = function(summary, latency, requests)
  io.write(string.format("RESULT {\\"requests\\": %%d, \\"seconds\\": %%f, \\"p50_us\\": %%d, " ..
    "\\"p99_us\\": %%d, \\"errors\\": %%d}\\n", summary.requests, summary.duration / 1e6,
    latency:percentile(50), latency:percentile(99),
    summary.errors.status + summary.errors.connect + summary.errors.read +
    summary.errors.write + summary.errors.timeout))
end
"""


def start_server(threads: int) -> tuple[subprocess.Popen[bytes], str]:
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    instance = tempfile.mkdtemp(prefix="gapgrid-load-")
    # One client sending as fast as it can is exactly what the rate limits stop; raised
    # far above the rate (not turned off), so their cost is still measured.
    env = {**os.environ, "GAPGRID_INSTANCE": instance, "GAPGRID_SECRET_KEY": "load-benchmark",
           "GAPGRID_LIMIT_CHECKS": "10000000 per minute"}
    gapgrid = Path(sys.executable).with_name("gapgrid")
    process = subprocess.Popen([str(gapgrid), "serve", "--port", str(port), "--threads",
                                str(threads)], env=env, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(f"{url}/v1/variants/montana", timeout=1).read()
            return process, url
        except OSError:
            time.sleep(0.1)
    process.terminate()
    raise SystemExit("the server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=8, help="server worker threads")
    parser.add_argument("--url", help="an already running server instead of starting one")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install wrk")
    process, url = (None, args.url) if args.url else start_server(args.threads)
    try:
        work = Path(tempfile.mkdtemp(prefix="gapgrid-wrk-"))
        with DATA.open(encoding="utf-8") as lines:
            records = [json.loads(line) for line in lines]
        (work / "bodies.jsonl").write_text("\n".join(
            json.dumps({"variant": record["variant"], "deal": record["deal"],
                        "moves": record["moves"], "scoring": ["all"]})
            for record in records) + "\n")
        (work / "verify.lua").write_text(LUA % {"bodies": work / "bodies.jsonl"})
        output = subprocess.run(
            ["wrk", "-t1", f"-c{args.connections}", f"-d{args.seconds}s", "-s",
             str(work / "verify.lua"), url], capture_output=True, text=True, check=True).stdout
    finally:
        if process is not None:
            process.terminate()
            process.wait()
    found = re.search(r"RESULT (\{.*\})", output)
    if not found:
        raise SystemExit(output)
    result = json.loads(found.group(1))
    print(f"{result['requests']} verifications of golden games in {result['seconds']:.1f} s, "
          f"{args.connections} connections, {args.threads} server threads")
    print(f"throughput: {result['requests'] / result['seconds']:,.0f} verifications/s")
    print(f"latency: median {result['p50_us'] / 1000:.1f} ms, "
          f"p99 {result['p99_us'] / 1000:.1f} ms; failed requests: {result['errors']}")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"{platform.python_implementation()} {platform.python_version()}")


if __name__ == "__main__":
    main()
