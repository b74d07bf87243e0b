"""The registry plugins fill through ``gapgrid_register``.

A plugin describes what it brings with keyword-only calls
(``registry.add_variant(slug=..., name=..., rules=...)``). The registry checks
each entry as it arrives and raises :class:`RegistrationError` on a
duplicate slug, other name or PySolFC id, so a faulty plugin is caught at
load time with a precise reason, and never silently replaces another game.
Plugins see the class as ``gapgrid.Registry`` and its error as
``gapgrid.RegistrationError``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, Protocol

import attrs
import pluggy

from gapgrid.core import hookspecs
from gapgrid.core.rules import has_control_characters
from gapgrid.core.score_checks import scored
from gapgrid.core.scoring import SUMMARY_FIELDS, GameSummary, Score, ScoringScheme

SLUG_PATTERN: Final = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")

LONGEST_TEXT: Final = 1_000
"""Characters a variant's or preset's name, other name or summary may have."""

MOST_OTHER_NAMES: Final = 1_000
"""Other names one variant or preset may have."""

LARGEST_PYSOLFC_ID: Final = 2**31 - 1
"""PySolFC's game ids are small numbers; a larger one is no id (and would not fit its
saved games)."""

REDEAL_OPTIONS: Final = ("redeals", "redeal-placement", "redeal-when")
"""The rule options every PySolFC variant accepts."""


class RegistrationError(ValueError):
    """Raised for an entry that cannot be registered, with the reason."""


def normalise_name(name: str) -> str:
    """Return the lookup key of a variant name: lower case, words joined by hyphens."""
    return "-".join(re.findall(r"[a-z0-9]+", name.lower()))


@attrs.frozen
class VariantInfo:
    """A variant: its names, its PySolFC id and the rule plugin that makes it differ."""

    slug: str
    """Lower-case, hyphenated key, e.g. ``"blue-moon"``."""

    name: str
    """Display name, e.g. ``"Blue Moon"``."""

    rules: object | None
    """Plugin object implementing the rule hooks that differ from ``base``."""

    base: str | None
    """Slug of the variant this one builds on; None builds on the baseline."""

    other_names: tuple[str, ...]
    """Other names players know the game by."""

    pysolfc_id: int | None
    """PySolFC's game id, when PySolFC has the game."""

    summary: str
    """A short rules text for people."""

    options: tuple[str, ...]
    """Keys of the rule options the variant accepts."""

    plugin: str
    """Name of the plugin that registered it."""


@attrs.frozen
class PresetInfo:
    """A preset: a variant plus fixed rule options, under a name of its own."""

    slug: str
    name: str
    base: str
    """Slug of the variant the preset plays."""

    options: tuple[tuple[str, str], ...]
    """The options the preset applies, as (key, value) pairs."""

    other_names: tuple[str, ...]
    summary: str
    plugin: str


class OptionParser(Protocol):
    """Turns an option value as given (text or number) into its canonical text."""

    def __call__(self, value: str | int) -> str: ...


@attrs.frozen
class OptionInfo:
    """A rule option: how to read its value and the plugin that applies it."""

    key: str
    summary: str
    values: str
    """The accepted values, for people (``"0, 1, 2, ... or unlimited"``)."""

    parse: OptionParser
    """Checks a value and returns its canonical text; raises ValueError with the reason."""

    make_plugin: Callable[[str], object]
    """Builds the plugin that applies the canonical value to a game."""

    choices: tuple[str, ...] = ()
    """The complete list of values, when there is one (for documentation and the API)."""

    plugin: str = ""


@attrs.frozen
class ScoringInfo:
    """A scoring scheme."""

    name: str
    summary: str
    scheme: ScoringScheme
    """An object with a ``score(summary)`` method (a :class:`gapgrid.ScoringScheme`)."""

    plugin: str = ""

    def score(self, summary: GameSummary) -> Score:
        """The scheme's score of ``summary``, checked (:func:`core.score_checks.scored`: a
        :class:`~gapgrid.core.score_checks.PluginFault` when the plugin's code fails)."""
        return scored(self.name, self.plugin, self.scheme, summary)


class Registry:
    """Collects what the plugins register, one plugin at a time."""

    def __init__(self) -> None:
        self.variants: dict[str, VariantInfo] = {}
        self.presets: dict[str, PresetInfo] = {}
        self.options: dict[str, OptionInfo] = {}
        self.scoring: dict[str, ScoringInfo] = {}
        self._plugin = ""
        self._third_party = False
        self.third_parties: set[str] = set()
        """The plugins registered as third parties' (not gapgrid's own)."""

    # -- what plugins call -------------------------------------------------

    def add_variant(self, *, slug: str, name: str, rules: object | None = None,
                    base: str | None = None, other_names: Iterable[str] = (),
                    pysolfc_id: int | None = None, summary: str = "",
                    options: Iterable[str] = REDEAL_OPTIONS) -> None:
        """Register a variant built from ``base`` (or the baseline) plus ``rules``."""
        self._check_new_slug(slug)
        _check_texts(slug, name=name, summary=summary)
        names = _names_of(slug, other_names)
        self._check_other_names(slug, names)
        self._check_slug_is_no_other_name(slug, owner_allowed=None)
        if pysolfc_id is not None:
            if (isinstance(pysolfc_id, bool) or not isinstance(pysolfc_id, int)
                    or not 0 < pysolfc_id <= LARGEST_PYSOLFC_ID):
                raise RegistrationError(f"{slug}: the PySolFC id must be a whole number from 1 "
                                        f"to {LARGEST_PYSOLFC_ID:,}")
            for other in self.variants.values():
                if other.pysolfc_id == pysolfc_id:
                    raise RegistrationError(f"{slug}: PySolFC id {pysolfc_id} is already "
                                            f"{other.slug} (plugin {other.plugin})")
        if base is not None and base not in self.variants:
            raise RegistrationError(f"{slug}: base variant {base!r} is not registered "
                                    f"(register it first)")
        if rules is not None:
            _check_rule_plugin(slug, rules)
        self.variants[slug] = VariantInfo(
            slug=slug, name=name, rules=rules, base=base, other_names=names,
            pysolfc_id=pysolfc_id, summary=summary, options=tuple(options), plugin=self._plugin)

    def add_preset(self, *, slug: str, name: str, base: str,
                   options: Mapping[str, str | int], other_names: Iterable[str] = (),
                   summary: str = "") -> None:
        """Register a preset: the variant ``base`` with ``options`` applied."""
        self._check_new_slug(slug)
        _check_texts(slug, name=name, summary=summary)
        names = _names_of(slug, other_names)
        self._check_other_names(slug, names)
        variant = self.variants.get(base)
        if variant is None:
            raise RegistrationError(f"{slug}: base variant {base!r} is not registered")
        # A preset may take its own variant's other name as slug ("gaps" is Montana's Gaps),
        # when gapgrid or the variant's own plugin registers it: never a third party's taking
        # another plugin's name.
        own = not self._third_party or variant.plugin == self._plugin
        self._check_slug_is_no_other_name(slug, owner_allowed=base if own else None)
        canonical = []
        for key, value in sorted(options.items()):
            option = self.options.get(key)
            if option is None or key not in variant.options:
                raise RegistrationError(f"{slug}: {base} accepts no option {key!r}")
            try:
                parsed = option.parse(value)
            except ValueError as error:
                raise RegistrationError(f"{slug}: option {key}: {error}") from None
            if not isinstance(parsed, str):  # the options are text, as every caller's
                raise RegistrationError(f"{slug}: option {key} read {value!r} as "
                                        f"{type(parsed).__name__}, not as text")
            canonical.append((key, parsed))
        self.presets[slug] = PresetInfo(slug=slug, name=name, base=base, options=tuple(canonical),
                                        other_names=names, summary=summary, plugin=self._plugin)

    def add_option(self, *, key: str, summary: str, values: str, parse: OptionParser,
                   make_plugin: Callable[[str], object], choices: Iterable[str] = ()) -> None:
        """Register a rule option ``key`` that variants may accept."""
        if not isinstance(key, str) or not SLUG_PATTERN.fullmatch(key):
            raise RegistrationError(f"option key {key!r} must be lower case words joined "
                                    f"by hyphens")
        _check_texts(key, summary=summary, values=values)
        if key in self.options:
            raise RegistrationError(f"option {key!r} is already registered by "
                                    f"{self.options[key].plugin}")
        self.options[key] = OptionInfo(key=key, summary=summary, values=values, parse=parse,
                                       make_plugin=make_plugin, choices=tuple(choices),
                                       plugin=self._plugin)

    def add_scoring(self, *, name: str, summary: str, scheme: ScoringScheme) -> None:
        """Register a scoring scheme ``name``."""
        if (not isinstance(name, str) or not SLUG_PATTERN.fullmatch(name) or name == "all"
                or name in SUMMARY_FIELDS):
            raise RegistrationError(f"scoring scheme name {name!r} must be lower case words "
                                    f"joined by hyphens, and not 'all' or a summary term "
                                    f"({', '.join(SUMMARY_FIELDS)})")
        if name in self.scoring:
            raise RegistrationError(f"scoring scheme {name!r} is already registered by "
                                    f"{self.scoring[name].plugin}")
        if not callable(getattr(scheme, "score", None)):
            raise RegistrationError(f"scoring scheme {name!r} has no score() method")
        _check_texts(name, summary=summary)
        self.scoring[name] = ScoringInfo(name=name, summary=summary, scheme=scheme,
                                         plugin=self._plugin)

    # -- checks ------------------------------------------------------------

    def _check_new_slug(self, slug: str) -> None:
        if not isinstance(slug, str) or not SLUG_PATTERN.fullmatch(slug):
            raise RegistrationError(f"slug {slug!r} must be lower case words joined by hyphens")
        if slug == "all":  # `gapgrid study all` means every variant
            raise RegistrationError("slug 'all' is taken: it names every variant at once")
        for table in (self.variants, self.presets):
            if slug in table:
                raise RegistrationError(f"slug {slug!r} is already registered by "
                                        f"{table[slug].plugin}")

    def _check_slug_is_no_other_name(self, slug: str, owner_allowed: str | None) -> None:
        """A new slug may not take a name another entry answers to: lookups prefer slugs."""
        entries: list[VariantInfo | PresetInfo] = [*self.variants.values(), *self.presets.values()]
        for entry in entries:
            if entry.slug != owner_allowed and slug in {normalise_name(name)
                                                        for name in entry.other_names}:
                raise RegistrationError(f"slug {slug!r} is already another name of "
                                        f"{entry.slug} (plugin {entry.plugin})")

    def _check_other_names(self, slug: str, names: tuple[str, ...]) -> None:
        entries: list[VariantInfo | PresetInfo] = [*self.variants.values(), *self.presets.values()]
        for name in names:
            key = normalise_name(name)
            if not key:
                raise RegistrationError(f"{slug}: other name {name!r} has no letters or digits")
            if key in self.variants or key in self.presets:
                raise RegistrationError(f"{slug}: other name {name!r} is already a slug")
            for entry in entries:
                if key in {normalise_name(other) for other in entry.other_names}:
                    raise RegistrationError(f"{slug}: other name {name!r} already names "
                                            f"{entry.slug} (plugin {entry.plugin})")

    # -- staging, used by the catalogue loader -----------------------------

    def snapshot(self) -> tuple[dict[str, Any], ...]:
        """Return copies of the tables, to roll a failed plugin back."""
        return dict(self.variants), dict(self.presets), dict(self.options), dict(self.scoring)

    def restore(self, snapshot: tuple[dict[str, Any], ...]) -> None:
        """Undo everything registered since ``snapshot``."""
        variants, presets, options, scoring = snapshot
        self.variants, self.presets = dict(variants), dict(presets)
        self.options, self.scoring = dict(options), dict(scoring)

    def set_plugin(self, name: str, *, third_party: bool = False) -> None:
        """Say which plugin the following registrations come from, and whether it is a
        third party's (not one of gapgrid's own)."""
        self._plugin = name
        self._third_party = third_party
        if third_party:
            self.third_parties.add(name)


def _check_texts(slug: str, **texts: object) -> None:
    """Refuse a name or summary that is not one line of text of a sensible length: it is
    printed on terminals and served as JSON."""
    for what, text in texts.items():
        if not isinstance(text, str):
            raise RegistrationError(f"{slug}: the {what} is {type(text).__name__}, not text")
        if len(text) > LONGEST_TEXT:
            raise RegistrationError(f"{slug}: the {what} has {len(text):,} characters: at "
                                    f"most {LONGEST_TEXT:,}")
        if has_control_characters(text):
            raise RegistrationError(f"{slug}: the {what} holds control characters (a new "
                                    f"line, an escape), which would garble a terminal")


def _names_of(slug: str, other_names: Iterable[str]) -> tuple[str, ...]:
    """The other names given, at most :data:`MOST_OTHER_NAMES` of them (an endless iterable
    is refused, not read to the end); a single text is refused, not taken letter by letter."""
    if isinstance(other_names, str | bytes):
        raise RegistrationError(f"{slug}: other_names must be a list of names, not one text")
    try:
        names = tuple(itertools.islice(other_names, MOST_OTHER_NAMES + 1))
    except TypeError:
        raise RegistrationError(f"{slug}: other_names must be a list of names") from None
    if len(names) > MOST_OTHER_NAMES:
        raise RegistrationError(f"{slug}: more than {MOST_OTHER_NAMES:,} other names")
    for name in names:
        _check_texts(slug, **{"other name": name})
    return names


def _check_rule_plugin(slug: str, rules: object) -> None:
    """Fail now, at load time, if ``rules`` implements a hook wrongly or one that does not exist."""
    manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    manager.add_hookspecs(hookspecs)
    try:
        manager.register(rules)
        manager.check_pending()
    except (pluggy.PluginValidationError, ValueError) as error:
        raise RegistrationError(f"{slug}: its rules plugin is invalid: {error}") from None
