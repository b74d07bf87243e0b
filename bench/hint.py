"""Latency of ``POST /v1/hint`` on certified puzzles, against the real server.

Starts ``gapgrid serve`` on an instance folder whose puzzles were prepared
(``bench/prepare.py``, which keeps its folder), and asks for hints in the
positions players reach, one request at a time over loopback:

* **on the line**: after a random number of the certified line's actions
  (0 to par - 1), the correct moves a player who follows the puzzle's line
  has made; the hint must be the line's next action;
* **off the line**: after a random number (1 to 30) of random legal card
  moves from the deal, where the server usually has to search (its budget
  is about a second).

Prints, per kind, the number of hints, the verdicts, and the median and
99th percentile of the latency seen by the client.

Usage: python bench/hint.py --instance DIR [--hints 400] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from gapgrid import plugins
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game

SECRET = "bench-prepare-secret"  # bench/prepare.py's
GAPGRID = Path(sys.executable).with_name("gapgrid")


def start_server(instance: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``gapgrid serve`` on a free port, the rate limits raised out of the way."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "GAPGRID_INSTANCE": str(instance), "GAPGRID_SECRET_KEY": SECRET,
           "GAPGRID_LIMIT_CHECKS": "1000000 per minute",
           "GAPGRID_LIMIT_READS": "1000000 per minute"}
    process = subprocess.Popen([str(GAPGRID), "serve", "--port", str(port)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(f"{url}/v1/variants/montana", timeout=5).read()
            return process, url
        except OSError:
            time.sleep(0.1)
    process.terminate()
    raise SystemExit("gapgrid serve did not start")


def certified(instance: Path) -> list[tuple[str, dict[str, Any], list[str]]]:
    """Every certified puzzle of the instance: variant, puzzle body, line."""
    with sqlite3.connect(instance / "gapgrid.sqlite3") as connection:
        rows = connection.execute(
            "SELECT p.slug, p.body, c.line FROM puzzles AS p JOIN certificates AS c "
            "ON c.puzzle_id = p.id WHERE c.certified ORDER BY p.id").fetchall()
    return [(slug, json.loads(body), json.loads(line)) for slug, body, line in rows]


def ask(url: str, body: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """One hint: the seconds it took and the answer."""
    data = json.dumps(body).encode()
    request = urllib.request.Request(f"{url}/v1/hint", data=data, method="POST",
                                     headers={"Content-Type": "application/json"})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as response:
        answer = json.loads(response.read())
    return time.perf_counter() - started, answer


def random_moves(variant: str, options: dict[str, str], deal: str, count: int,
                 generator: random.Random) -> list[str]:
    """Up to ``count`` random legal card moves from the deal."""
    rules = plugins.load_catalogue(entry_points=False).rules(variant, options)
    state = new_game(rules, parse_deal_number(deal))
    moves: list[str] = []
    for _ in range(count):
        legal = state.legal_moves()
        if not legal:
            break
        move = generator.choice(legal)
        state = state.apply(move)
        moves.append(str(move))
    return moves


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--instance", type=Path, required=True)
    parser.add_argument("--hints", type=int, default=400, help="hints of each kind")
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()
    puzzles = certified(arguments.instance)
    if not puzzles:
        raise SystemExit("no certified puzzle in the instance: run bench/prepare.py first")
    generator = random.Random(arguments.seed)
    process, url = start_server(arguments.instance)
    results: dict[str, list[tuple[float, str]]] = {"on the line": [], "off the line": []}
    wrong = 0
    try:
        for _ in range(arguments.hints):
            variant, body, line = generator.choice(puzzles)
            step = generator.randrange(len(line))
            seconds, answer = ask(url, {"variant": variant, "deal": body["deal"],
                                        "options": body["options"], "moves": line[:step]})
            results["on the line"].append((seconds, answer["verdict"]))
            wrong += answer["next"] != line[step]
        for _ in range(arguments.hints):
            variant, body, line = generator.choice(puzzles)
            moves = random_moves(variant, body["options"], body["deal"],
                                 generator.randint(1, 30), generator)
            seconds, answer = ask(url, {"variant": variant, "deal": body["deal"],
                                        "options": body["options"], "moves": moves})
            results["off the line"].append((seconds, answer["verdict"]))
    finally:
        process.terminate()
        process.wait(timeout=20)
    print(f"Machine: {platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}; one waitress process, one client, "
          f"{len(puzzles)} certified puzzles of {len({slug for slug, _, _ in puzzles})} "
          f"variants.\n")
    print("| positions | hints | won / lost / unknown | median | p99 |")
    print("|---|---|---|---|---|")
    for kind, measured in results.items():
        latencies = [seconds * 1000 for seconds, _ in measured]
        verdicts = [verdict for _, verdict in measured]
        counts = " / ".join(str(verdicts.count(name)) for name in ("won", "lost", "unknown"))
        print(f"| {kind} | {len(measured)} | {counts} | {statistics.median(latencies):.1f} ms "
              f"| {percentile(latencies, 0.99):.1f} ms |")
    print(f"\nOn the line, the hint was the line's next action {arguments.hints - wrong} times "
          f"of {arguments.hints}.")


if __name__ == "__main__":
    main()
