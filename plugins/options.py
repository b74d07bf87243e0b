"""The rule options of the seed documents: how many redeals, where their gaps go, and when.

Each option value becomes a small plugin stacked on a game's plugin manager
with ``tryfirst`` hooks, so it overrides whatever the variant says.
"""

from __future__ import annotations

from gapgrid import (
    MAX_REDEALS,
    PLACEMENTS,
    UNLIMITED,
    RedealPlacement,
    RedealTiming,
    Registry,
    hookimpl,
)


def parse_redeals(value: str | int) -> str:
    """Read a redeal count: ``0`` ... :data:`MAX_REDEALS` or ``unlimited``."""
    if isinstance(value, bool):
        raise ValueError("a number of redeals, not true/false")
    text = str(value).strip().lower()
    if text == "unlimited":
        return text
    if text.isascii() and text.isdigit() and int(text) <= MAX_REDEALS:
        return str(int(text))
    if text.isascii() and text.isdigit():
        raise ValueError(f"{value!r} is more than the {MAX_REDEALS} redeals one game may ask for")
    raise ValueError(f"{value!r} is not a number of redeals")


class ChoiceParser:
    """Reads one of a fixed list of words, case-blind."""

    def __init__(self, choices: tuple[str, ...], what: str) -> None:
        self.choices, self.what = choices, what

    def __call__(self, value: str | int) -> str:
        text = str(value).strip().lower()
        if text not in self.choices:
            raise ValueError(f"{value!r} is not a {self.what}")
        return text


TIMINGS = tuple(timing.value for timing in RedealTiming)


class RedealCount:
    """Allow ``count`` redeals (or unlimited)."""

    def __init__(self, value: str) -> None:
        self.count = UNLIMITED if value == "unlimited" else int(value)

    @hookimpl(tryfirst=True)
    def gapgrid_redeals(self) -> int:
        return self.count


class RedealPlacementChoice:
    """Place the gaps after a redeal the named way."""

    def __init__(self, value: str) -> None:
        self.placement = PLACEMENTS[value]

    @hookimpl(tryfirst=True)
    def gapgrid_redeal_placement(self) -> RedealPlacement:
        return self.placement


class RedealWhen:
    """Allow a redeal at any moment, or only when no move is left."""

    def __init__(self, value: str) -> None:
        self.timing = RedealTiming(value)

    @hookimpl(tryfirst=True)
    def gapgrid_redeal_timing(self) -> RedealTiming:
        return self.timing


@hookimpl
def gapgrid_register(registry: Registry) -> None:
    registry.add_option(
        key="redeals", summary="How many redeals the game allows.",
        values=f"0, 1, 2, ... {MAX_REDEALS} or unlimited", parse=parse_redeals,
        make_plugin=RedealCount)
    registry.add_option(
        key="redeal-placement",
        summary="Where a redeal leaves the gaps: after-runs (one after each row's run), "
                "random (drawn from the gathered slots), last-column, or no-shuffle (cards "
                "dealt back unshuffled in pick-up order, gaps after the runs).",
        values=", ".join(PLACEMENTS), choices=tuple(PLACEMENTS),
        parse=ChoiceParser(tuple(PLACEMENTS), "redeal placement"),
        make_plugin=RedealPlacementChoice)
    registry.add_option(
        key="redeal-when",
        summary="When a redeal may be asked for: anytime (PySolFC) or stuck (only when no "
                "move is left, as Gaps is usually played).",
        values=", ".join(TIMINGS), choices=TIMINGS,
        parse=ChoiceParser(TIMINGS, "redeal timing"), make_plugin=RedealWhen)
