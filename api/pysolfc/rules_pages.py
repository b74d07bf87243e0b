"""Rules pages for the games gapgrid adds to PySolFC, from the texts ``gapgrid variants`` prints.

PySolFC's rules button ("?") and Help > Rules show the HTML page that
``App.getGameRulesFilename`` finds for the game: the ``GameInfo``'s
``rules_filename`` when it is set, otherwise ``html/rules/NAME.html`` in
PySolFC's own data folder (which may be read-only and belongs to PySolFC).
Without a page the button is greyed out. So ``gapgrid pysolfc install``
writes one page per added game into a folder beside its plugin file, and
the plugin gives each game the absolute path of its page as
``rules_filename`` (PySolFC's data loader joins it to its folder, and an
absolute path stays itself). The pages use the few tags PySolFC's own
rules pages use, which its built-in viewer shows.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any, Final

from gapgrid.api.json_documents import entry_json
from gapgrid.api.pysolfc.games import in_pysolfc
from gapgrid.core.catalogue import Catalogue

FOLDER: Final = "gapgrid-rules"
"""The folder beside the plugin file that holds the pages (PySolFC loads only ``*.py`` files
from a plugins folder, so it leaves this one alone)."""

MARKER: Final = "<!-- gapgrid-pysolfc-rules -->"
"""First line of every page: uninstall removes only pages that carry it."""


def page_name(slug: str) -> str:
    """The file name of ``slug``'s page."""
    return f"{slug}.html"


def added_slugs(catalogue: Catalogue) -> list[str]:
    """The games gapgrid adds to PySolFC: every variant and preset PySolFC lacks."""
    return [slug for slug in catalogue.slugs() if not in_pysolfc(catalogue.lookup(slug))]


def _count(number: int, word: str) -> str:
    return f"{number} {word}" if number == 1 else f"{number} {word}s"


def _redeals(redeals: Any) -> str:
    if redeals == "unlimited":
        return "Unlimited redeals"
    return "No redeal" if redeals == 0 else _count(redeals, "redeal")


def rules_page(catalogue: Catalogue, slug: str) -> str:
    """The HTML rules page of ``slug``: the texts and facts ``gapgrid variants --json`` gives."""
    entry = catalogue.lookup(slug)
    about = entry_json(catalogue, entry)
    def text(words: str) -> str:
        return html.escape(words, quote=False)

    lines = [MARKER, f"<h1>{text(about['name'])} (gapgrid)</h1>",
             f"<p>Montana type. {_count(about['decks'], 'deck')}. {_redeals(about['redeals'])}."
             f" {about['rows']} rows of {about['rstep']} cards.",
             "<h3>Rules</h3>"]
    if about["base"] is not None:  # a preset: the variant's rules, then what the preset sets
        base = entry_json(catalogue, catalogue.lookup(about["base"]))
        lines += [f"<p>{text(base['summary'])}",
                  f"<h3>This game: {text(about['name'])}</h3>", f"<p>{text(about['summary'])}"]
    else:
        lines.append(f"<p>{text(about['summary'])}")
    settings = {option["key"]: option["summary"] for option in about["options"]}
    chosen = [("redeal-when", about["redeal_when"]),
              ("redeal-placement", about["redeal_placement"])]
    items = [f"<li><b>{text(key)}: {text(value)}</b>. {text(settings[key])}</li>"
             for key, value in chosen if key in settings]
    if items and about["redeals"] != 0:
        lines += ["<h3>Redeals</h3>", "<ul>", *items, "</ul>"]
    if about["other_names"]:
        names = ", ".join(f"<i>{text(name)}</i>" for name in about["other_names"])
        lines += ["<h3>History</h3>", f"<p>This game is also known as {names}."]
    lines += ["<h3>Notes</h3>",
              "<p>This game comes from gapgrid's plugin: its rules are gapgrid's own, the same "
              f"as <tt>gapgrid variants</tt> describes for <tt>{text(slug)}</tt>."]
    return "\n".join(lines) + "\n"


def rules_pages(catalogue: Catalogue, slugs: Iterable[str] | None = None) -> dict[str, str]:
    """Every added game's page, by file name."""
    return {page_name(slug): rules_page(catalogue, slug)
            for slug in (added_slugs(catalogue) if slugs is None else slugs)}
