"""Load benchmark: verifications and submissions per second against real servers on
loopback, on SQLite and on PostgreSQL.

Starts ``gapgrid serve`` (waitress) on free ports with fresh instance folders
and points wrk (Debian package ``wrk``) at them, one wrk per server, each
with its share of the connections:

- verifications: ``POST /v1/verify`` with the 204 golden games as request
  bodies, in turn;
- submissions: ``POST /v1/puzzles/{today}/montana/submissions``, each by a
  new player (so each is stored: one transaction with its player, keys and
  tallies) playing 1 to 12 legal moves of today's puzzle.

Any answer of status 400 or more, and any connection error, counts as failed.

Reports requests per second (summed over the servers) and the median and
99th percentile latency (of the server whose figure is worse: wrk reports
each run's percentiles, not their merge). The SQLite phase runs one server
(``--servers`` changes it); with ``--database postgresql://...`` (an empty
database) or ``--postgres`` (a throwaway cluster from this machine's
``initdb``, as the tests start one) a PostgreSQL phase follows in the same
run, with two servers by default, so that the two are compared under the
same load from other work. Run by hand; record the figures in
bench/README.md.

Usage: python bench/load.py [--seconds 20] [--connections 16] [--threads 8]
       [--servers N] [--postgres-servers N] [--database URL | --postgres]
       [--only verify|submit] [--url URL]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "pysolfc-games.jsonl"
SECRET = "load-benchmark-secret"
VARIANT = "montana"

REPORT = """
done = function(summary, latency, requests)
  io.write(string.format("RESULT {\\"requests\\": %d, \\"seconds\\": %f, \\"p50_us\\": %d, " ..
    "\\"p99_us\\": %d, \\"errors\\": %d, \\"bad\\": %d}\\n", summary.requests,
    summary.duration / 1e6, latency:percentile(50), latency:percentile(99),
    summary.errors.connect + summary.errors.read + summary.errors.write +
    summary.errors.timeout, summary.errors.status))
end
"""

VERIFY = """
local bodies = {}
for line in io.lines("%(bodies)s") do bodies[#bodies + 1] = line end
local index = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  index = index %% #bodies + 1
  return wrk.format(nil, "/v1/verify", nil, bodies[index])
end
""" + REPORT.replace("%", "%%")

SUBMIT = """
local games = {}
for line in io.lines("%(games)s") do games[#games + 1] = line end
local index = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  index = index + 1
  local body = '{"player": "%(prefix)s' .. index .. '", "moves": ' ..
    games[index %% #games + 1] .. '}'
  return wrk.format(nil, "%(path)s", nil, body)
end
""" + REPORT.replace("%", "%%")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_servers(count: int, threads: int, database: str | None) -> list[tuple[Any, str]]:
    """``count`` servers on one database (a new SQLite file when None); (process, url)."""
    instance = tempfile.mkdtemp(prefix="gapgrid-load-")
    # One client sending as fast as it can is exactly what the rate limits stop; raised
    # far above the rate (not turned off), so their cost is still measured.
    env = {**os.environ, "GAPGRID_INSTANCE": instance, "GAPGRID_SECRET_KEY": SECRET,
           "GAPGRID_LIMIT_CHECKS": "10000000 per minute",
           "GAPGRID_LIMIT_WRITES": "10000000 per minute", "GAPGRID_CERTIFY_SECONDS": "0"}
    if database:
        env["GAPGRID_DATABASE"] = database
    gapgrid = Path(sys.executable).with_name("gapgrid")
    servers = []
    for _ in range(count):
        port = free_port()
        process = subprocess.Popen([str(gapgrid), "serve", "--port", str(port), "--threads",
                                    str(threads)], env=env, stderr=subprocess.DEVNULL)
        servers.append((process, f"http://127.0.0.1:{port}"))
    for process, url in servers:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{url}/v1/variants/{VARIANT}", timeout=1).read()
                break
            except OSError:
                if process.poll() is not None:
                    raise SystemExit("a server exited at start-up") from None
                time.sleep(0.1)
        else:
            raise SystemExit("a server did not start")
    return servers


def submission_games(url: str) -> tuple[str, list[list[str]]]:
    """Today's submissions path, and 12 games of 1 to 12 legal moves of today's puzzle."""
    from gapgrid import plugins
    from gapgrid.core.dealnumber import parse_deal_number
    from gapgrid.core.game import new_game

    day = datetime.datetime.now(datetime.UTC).date().isoformat()
    path = f"/v1/puzzles/{day}/{VARIANT}"
    with urllib.request.urlopen(url + path, timeout=60) as answer:
        puzzle = json.loads(answer.read())
    state = new_game(plugins.load_catalogue().rules(VARIANT), parse_deal_number(puzzle["deal"]))
    line = []
    for _ in range(12):
        move = state.legal_moves()[0]
        state = state.apply(move)
        line.append(str(move))
    return path + "/submissions", [line[:count] for count in range(1, 13)]


def cpu_ticks() -> tuple[int, int]:
    """The machine's CPU time so far, in ticks of /proc/stat: all of it, and the part
    stolen by the hypervisor for other guests (0 where /proc/stat is missing)."""
    try:
        fields = [int(field) for field in Path("/proc/stat").read_text().split("\n")[0]
                  .split()[1:9]]
    except (OSError, ValueError):
        return 0, 0
    return sum(fields), fields[7]


def run_wrk(servers: list[tuple[Any, str]], scripts: list[Path], connections: int,
            seconds: int) -> dict[str, Any]:
    """One wrk per server at once; the summed throughput, the worse percentiles, and the
    share of CPU time the hypervisor gave other guests meanwhile (a run on a shared host
    is slower for it: the figure tells a noisy run from a slower server)."""
    share = max(1, connections // len(servers))
    total_before, stolen_before = cpu_ticks()
    runs = [subprocess.Popen(["wrk", "-t1", f"-c{share}", f"-d{seconds}s", "-s", str(script),
                              url], stdout=subprocess.PIPE, text=True)
            for (_, url), script in zip(servers, scripts, strict=True)]
    results = []
    for run in runs:
        output, _ = run.communicate()
        found = re.search(r"RESULT (\{.*\})", output)
        if not found:
            raise SystemExit(output)
        results.append(json.loads(found.group(1)))
    total_after, stolen_after = cpu_ticks()
    stolen = (stolen_after - stolen_before) / max(1, total_after - total_before)
    return {"stolen": stolen, "requests": sum(result["requests"] for result in results),
            "per_second": sum(result["requests"] / result["seconds"] for result in results),
            "p50_ms": max(result["p50_us"] for result in results) / 1000,
            "p99_ms": max(result["p99_us"] for result in results) / 1000,
            "failed": sum(result["errors"] + result["bad"] for result in results)}


def phase(name: str, database: str | None, args: argparse.Namespace, servers_count: int,
          work: Path) -> None:
    """Start the servers, measure what was asked, print it, stop them."""
    servers = start_servers(servers_count, args.threads, database)
    try:
        setup = f"{servers_count} server{'s' * (servers_count > 1)}, " \
                f"{args.connections} connections, {args.threads} threads each"
        if args.only in (None, "verify"):
            script = work / "verify.lua"
            script.write_text(VERIFY % {"bodies": work / "bodies.jsonl"})
            result = run_wrk(servers, [script] * len(servers), args.connections, args.seconds)
            report(name, "verifications", setup, result)
        if args.only in (None, "submit"):
            path, games = submission_games(servers[0][1])
            (work / "games.jsonl").write_text("\n".join(json.dumps(game) for game in games))
            scripts = []
            for index in range(len(servers)):
                script = work / f"submit-{name}-{index}.lua"
                script.write_text(SUBMIT % {"games": work / "games.jsonl", "path": path,
                                            "prefix": f"{name} {index} "})
                scripts.append(script)
            result = run_wrk(servers, scripts, args.connections, args.seconds)
            report(name, "submissions", setup, result)
    finally:
        for process, _ in servers:
            process.terminate()
            process.wait()


def report(name: str, what: str, setup: str, result: dict[str, Any]) -> None:
    print(f"{name}, {setup}: {result['per_second']:,.0f} {what}/s "
          f"({result['requests']:,} in the run), median {result['p50_ms']:.1f} ms, "
          f"p99 {result['p99_ms']:.1f} ms, failed {result['failed']}; "
          f"CPU stolen by the host {100 * result['stolen']:.0f} %", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=8, help="server worker threads")
    parser.add_argument("--servers", type=int, default=1, help="SQLite servers")
    parser.add_argument("--postgres-servers", type=int, default=2)
    parser.add_argument("--only", choices=("verify", "submit"))
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--database", help="an empty PostgreSQL database for a second phase")
    where.add_argument("--postgres", action="store_true",
                       help="start a throwaway PostgreSQL cluster for a second phase")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install wrk")
    work = Path(tempfile.mkdtemp(prefix="gapgrid-wrk-"))
    with DATA.open(encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    (work / "bodies.jsonl").write_text("\n".join(
        json.dumps({"variant": record["variant"], "deal": record["deal"],
                    "moves": record["moves"], "scoring": ["all"]})
        for record in records) + "\n")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"{platform.python_implementation()} {platform.python_version()}; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    phase("SQLite", None, args, args.servers, work)
    cluster = None
    if args.postgres:
        sys.path.insert(0, str(ROOT))
        from tests.postgres import start_cluster  # the tests' own throwaway cluster
        cluster, why = start_cluster(durable=True)
        if cluster is None:
            raise SystemExit(why)
        args.database = cluster.new_database()
    try:
        if args.database:
            phase("PostgreSQL", args.database, args, args.postgres_servers, work)
    finally:
        if cluster is not None:
            cluster.stop()
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
