"""A scoring scheme from a third-party plugin is listed and computed like the built-in ones."""

from __future__ import annotations

import json
from pathlib import Path

from tests.distributions import run_gapgrid, write_distribution

SPEED_SCHEME = """
    from gapgrid import hookimpl, points


    class Speed:
        def score(self, summary):
            return points({"moves": -summary.moves, "undos": -10 * summary.undos},
                          f"{summary.moves} moves")


    @hookimpl
    def gapgrid_register(registry):
        registry.add_scoring(name="speedy", summary="Minus one per move.", scheme=Speed())
    """


def test_third_party_scheme_is_listed_and_computed(tmp_path: Path) -> None:
    """`gapgrid scoring` lists it; `verify --scoring all` computes it from the replay."""
    write_distribution(tmp_path, "speedy", "speedy_scheme", SPEED_SCHEME)
    listed = run_gapgrid("scoring", "--json", path=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert {"name": "speedy", "summary": "Minus one per move.", "plugin": "speedy"} in (
        json.loads(listed.stdout))
    verified = run_gapgrid("verify", "montana", "27769", "27-40", "redeal", "15-0", "undo",
                           "--scoring", "speedy", "--json", path=tmp_path)
    assert verified.returncode == 0, verified.stderr
    scores = json.loads(verified.stdout)["scores"]
    assert scores["speedy"]["total"] == -12  # 2 cards moved, 1 undo
    assert scores["moves"] == 2 and scores["undos"] == 1
