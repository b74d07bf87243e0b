"""Plot and tabulate winnability studies: ``python -m gapgrid.api.study_plot DIR... OUT.png``.

Reads every study CSV in ``DIR`` (written by ``gapgrid study``), sums each
variant (with its options) up exactly as the command's own summary does
(:func:`gapgrid.api.services.study.summarise`), draws the winnable share of
the decided deals with its 95 % Wilson interval for every variant, with the
range that counting every unknown deal as lost or as won would give behind it,
and prints the same figures as a Markdown table on standard output (the one in
``docs/winnability.md``). Given several folders, best first, each game comes
from the first that studied it: the latest studies of some games beside an
older study of them all make one picture of every game. Needs matplotlib:
``pip install 'gapgrid[plot]'``.
"""

from __future__ import annotations

import io
import shlex
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO, Final

import click

from gapgrid.api.command_settings import HELP_OPTIONS
from gapgrid.api.services.study import (
    StudyFileError,
    Summary,
    iter_latest_rows,
    replace_atomically,
    summarise,
    version_order,
)

TITLE_WIDTH = 80
"""Characters a line of the title holds: it is centred over the axes, right of the long labels."""


def read_summaries(folder: Path) -> list[Summary]:
    """The summary of every study in the CSV files of ``folder``, sorted by label."""
    files = sorted(folder.glob("*.csv"))
    if not files:
        raise click.BadParameter(f"{folder} holds no .csv file", param_hint="DIR")
    summaries = []
    file_of_label: dict[str, Path] = {}
    for path in files:
        try:
            found = summarise(iter_latest_rows(path))
        except StudyFileError as error:
            raise click.BadParameter(str(error), param_hint="DIR") from None
        except OSError as error:  # a folder named x.csv, a file not to be read, a dead link
            raise click.BadParameter(f"cannot read {path}: {error.strerror or error}",
                                     param_hint="DIR") from None
        for summary in found:
            # Two rows of one label would read as two studies of one game (a copy of a file
            # made it so): one study of a variant and its options is one row
            first = file_of_label.setdefault(summary.label, path)
            if first != path:
                raise click.BadParameter(
                    f"{first.name} and {path.name} both hold {summary.label}: merge them "
                    f"into one file outside the folder (python -m gapgrid.api.study_merge "
                    f"MERGED.csv {shlex.quote(str(first))} {shlex.quote(str(path))}) and "
                    f"keep only that one in it, to plot them as one study", param_hint="DIR")
        summaries.extend(found)
    return sorted(summaries, key=lambda summary: summary.label)


def first_summaries(folders: Sequence[Path]) -> list[Summary]:
    """The studies of ``folders`` (:func:`read_summaries`), each game (variant and options)
    from the first folder that has it, sorted by label."""
    chosen: dict[str, Summary] = {}
    for folder in folders:
        for summary in read_summaries(folder):
            chosen.setdefault(summary.label, summary)
    return sorted(chosen.values(), key=lambda summary: summary.label)


def _percent(value: float) -> str:
    return f"{value:.1%}".replace("%", " %")


def markdown_table(summaries: Sequence[Summary]) -> str:
    """The studies as a Markdown table, one row per variant and options."""
    lines = ["| variant (options) | deals | won | lost | unknown | winnable share of the "
             "decided, 95 % interval | unknown as lost .. as won (95 %) | median s to a "
             "decision | budget per deal |",
             "|---|---:|---:|---:|---:|---|---|---:|---|"]
    for summary in summaries:
        winnable = summary.winnable
        share = ("-" if winnable is None else
                 f"{_percent(winnable.share)} ({_percent(winnable.low)} .. "
                 f"{_percent(winnable.high)})")
        low, high = summary.unknown_as_lost, summary.unknown_as_won
        bounds = ("-" if low is None or high is None else
                  f"{_percent(low.low)} .. {_percent(high.high)}")
        median = "-" if summary.median_seconds is None else f"{summary.median_seconds:.2f}"
        unknown = f"{summary.unknown} ({_percent(summary.unknown / summary.deals)})"
        lines.append(f"| `{summary.label}` | {summary.deals} | {summary.won} | {summary.lost} "
                     f"| {unknown} | {share} | {bounds} | {median} | {summary.budget_text()} |")
    return "\n".join(lines)


IMAGE_FORMATS: Final = (".png", ".svg", ".pdf")
"""The kinds of image OUT may name, by its suffix."""


def plot_title(summaries: Sequence[Summary]) -> str:
    """The plot's title: every solver version once, in numeric order (a merged study's
    summary lists several), the budgets, and the larger budgets unknown deals were retried
    under."""
    versions = sorted({version for summary in summaries
                       for version in summary.solver_version.split(", ")}, key=version_order)
    budgets = sorted({summary.budget_seconds for summary in summaries})
    retried = sorted({budget for summary in summaries for budget, _ in summary.retries},
                     key=lambda text: float(text.split()[0]))
    retry_text = f"; unknown deals retried at {', '.join(retried)}" if retried else ""
    return (f"How often each game can be won: gapgrid's solver (version "
            f"{', '.join(versions)}), {' or '.join(f'{budget:g}' for budget in budgets)} "
            f"s per deal{retry_text}")


def plot(summaries: Sequence[Summary], out: Path) -> None:
    """Draw each study's winnable share and intervals into the image ``out`` (a PNG, SVG or
    PDF file, by its suffix), which is replaced only once the image is whole."""
    try:
        import matplotlib
    except ImportError:
        raise click.UsageError("the plot needs matplotlib, which is not installed: "
                               "pip install 'gapgrid[plot]'") from None
    matplotlib.use("Agg")  # no display needed: the plot goes to a file
    from matplotlib import pyplot
    from matplotlib.ticker import PercentFormatter

    figure, axes = pyplot.subplots(figsize=(9, 0.42 * len(summaries) + 1.6))
    for position, summary in enumerate(reversed(summaries)):
        low, high = summary.unknown_as_lost, summary.unknown_as_won
        if low is not None and high is not None:
            axes.plot([low.low, high.high], [position, position], color="0.82", linewidth=7,
                      solid_capstyle="butt", zorder=1)
        winnable = summary.winnable
        if winnable is not None:
            axes.errorbar(winnable.share, position,
                          xerr=[[winnable.share - winnable.low], [winnable.high - winnable.share]],
                          fmt="o", color="tab:blue", capsize=3, markersize=5, zorder=2)
    axes.set_yticks(range(len(summaries)),
                    [f"{summary.label}  (n={summary.deals}, "
                     f"{summary.unknown / summary.deals:.1%} unknown)"  # 1 of 200 is 0.5 %
                     for summary in reversed(summaries)])
    axes.set_xlim(0, 1)
    axes.xaxis.set_major_formatter(PercentFormatter(1.0))
    axes.set_ylim(-0.7, len(summaries) - 0.3)
    axes.set_xlabel("blue: winnable share of the decided deals, with its 95 % Wilson interval\n"
                    "grey: from every unknown deal lost to every unknown deal won (95 %)")
    axes.grid(axis="x", color="0.9")
    axes.set_axisbelow(True)
    # Wrapped: with several retry budgets one line ran past the figure's edge.
    axes.set_title("\n".join(textwrap.wrap(plot_title(summaries), TITLE_WIDTH)), fontsize=10)
    figure.tight_layout()
    image = io.BytesIO()  # drawn whole before the file is touched
    figure.savefig(image, dpi=110, format=out.suffix.lower().lstrip("."))
    pyplot.close(figure)

    def write(written: BinaryIO) -> None:
        written.write(image.getvalue())

    try:
        replace_atomically(out, write)
    except StudyFileError as error:  # not a regular file: not replaced
        raise click.BadParameter(str(error), param_hint="OUT.png") from None
    except OSError as error:
        raise click.BadParameter(f"cannot write {out}: {error.strerror or error}",
                                 param_hint="OUT.png") from None


@click.command(context_settings=HELP_OPTIONS)
@click.argument("folders", metavar="DIR...", nargs=-1, required=True,
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("out", metavar="OUT.png", type=click.Path(dir_okay=False, path_type=Path))
def main(folders: tuple[Path, ...], out: Path) -> None:
    """Plot the studies in DIR into OUT.png (or .svg, .pdf) and print their figures as a
    Markdown table. Given several DIRs, best first, each game comes from the first DIR
    that studied it."""
    if out.suffix.lower() not in IMAGE_FORMATS:
        raise click.BadParameter(f"{out} names no image: its name ends in "
                                 f"{', '.join(IMAGE_FORMATS)}", param_hint="OUT.png")
    summaries = first_summaries(folders)
    if not summaries:  # header-only or empty files: an empty plot would say nothing
        shown = ", ".join(str(folder) for folder in folders)
        raise click.BadParameter(f"the .csv files of {shown} hold no row: there is no study "
                                 f"to plot", param_hint="DIR")
    plot(summaries, out)
    click.echo(markdown_table(summaries))


if __name__ == "__main__":
    main()
