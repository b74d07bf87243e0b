"""Loading plugins into a catalogue, and building one game's rules from it.

:func:`build_catalogue` registers each plugin in turn (built-ins first,
then third-party entry points of the ``gapgrid`` group) and lets it fill
the registry. A plugin that cannot be imported, implements a hook wrongly,
or registers something twice is recorded as a :class:`PluginProblem` with
its name and the reason; everything it registered is rolled back, and the
other plugins keep working. A third-party plugin module that defines the same
hook twice in one scope is refused too (:func:`hooks_defined_twice`): Python
would keep only the last definition and silently drop what the first one
registers.

:meth:`Catalogue.rules` then builds a fresh plugin manager for one game:
the baseline rules (``trylast``), the variant's rule plugins from the root
of its family down to itself, and the option plugins (``tryfirst``). Each
rule hook is called once; the resulting :class:`gapgrid.core.rules.Rules` is cached
per catalogue, never in a module global.
"""

from __future__ import annotations

import ast
import difflib
import importlib.metadata
import inspect
import types
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs
import pluggy

from gapgrid.core import hookspecs
from gapgrid.core.baseline import BaselineRules
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.fill_trials import try_fill_rule
from gapgrid.core.game import Engine, new_game
from gapgrid.core.plugin_code import failing_plugin
from gapgrid.core.redeals import leaves_one_gap_per_row
from gapgrid.core.registry import (
    SLUG_PATTERN,
    OptionInfo,
    PresetInfo,
    RegistrationError,
    Registry,
    ScoringInfo,
    VariantInfo,
    normalise_name,
)
from gapgrid.core.rules import MAX_REDEALS, UNLIMITED, RedealTiming, RuleError, Rules, rule_text
from gapgrid.core.score_checks import LONGEST_TEXT, SAMPLE_SUMMARIES, PluginFault

RULES_CACHE_SIZE = 256
"""Rules kept per catalogue: every variant with its usual options, and then some."""


class UnknownVariantError(LookupError):
    """Raised for a name that is no variant or preset, with suggestions."""

    def __init__(self, name: str, suggestions: Sequence[str]) -> None:
        hint = f"; did you mean {' or '.join(suggestions)}?" if suggestions else ""
        super().__init__(f"unknown variant {name!r}{hint} (`gapgrid variants` lists them)")
        self.name = name
        self.suggestions = tuple(suggestions)


class UnknownSchemeError(LookupError):
    """Raised for a scoring scheme name nobody registered."""

    def __init__(self, name: str, known: Sequence[str]) -> None:
        super().__init__(f"unknown scoring scheme {name!r} (known: {', '.join(known)}, or all)")
        self.name = name


class OptionError(ValueError):
    """Raised for a rule option a variant does not accept, or a bad value."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


@attrs.frozen
class PluginProblem:
    """A plugin that could not be loaded, and why."""

    plugin: str
    reason: str
    disables_nothing: bool = False
    """Whether this is rather a name ``GAPGRID_DISABLE_PLUGINS`` gives that no plugin has (no
    plugin of that name failed to load): ``reason`` then says so in a whole line."""


@attrs.frozen
class LoadedPlugin:
    """A plugin object to register, under a name."""

    name: str
    plugin: object
    tried: bool = True
    """Whether to try the rules of its entries at load time (gapgrid's own plugins are
    covered by its test suite instead, which keeps start-up quick)."""


class Catalogue:
    """Every variant, preset, option and scoring scheme the loaded plugins provide."""

    def __init__(self, registry: Registry, problems: Sequence[PluginProblem]) -> None:
        self.variants: Mapping[str, VariantInfo] = dict(registry.variants)
        self.presets: Mapping[str, PresetInfo] = dict(registry.presets)
        self.options: Mapping[str, OptionInfo] = dict(registry.options)
        self.scoring: Mapping[str, ScoringInfo] = dict(registry.scoring)
        self.problems: tuple[PluginProblem, ...] = tuple(problems)
        self.third_parties: frozenset[str] = frozenset(registry.third_parties)
        """The plugins that are third parties' (a failure in their rules is theirs)."""
        self._names: dict[str, str] = {}
        entries: list[VariantInfo | PresetInfo] = [*self.variants.values(),
                                                   *self.presets.values()]
        for entry in entries:
            for other in entry.other_names:
                self._names.setdefault(normalise_name(other), entry.slug)
        self._rules_cache: OrderedDict[tuple[str, tuple[tuple[str, str], ...]], Rules] = (
            OrderedDict())

    # -- names -------------------------------------------------------------

    def slugs(self) -> list[str]:
        """Return every variant slug, then every preset slug, in registration order."""
        return [*self.variants, *self.presets]

    def lookup(self, name: str) -> VariantInfo | PresetInfo:
        """Find a variant or preset by slug or other name (``"gaps"``, ``"Rangoon"``).

        A slug wins over another entry's other name. Raises
        :class:`UnknownVariantError` with close matches.
        """
        key = normalise_name(name)
        slug = key if key in self.variants or key in self.presets else self._names.get(key)
        if slug is None:
            known = [*self.variants, *self.presets, *self._names]
            raise UnknownVariantError(name, difflib.get_close_matches(key, known, n=3))
        return self.variants[slug] if slug in self.variants else self.presets[slug]

    def variant_of(self, entry: VariantInfo | PresetInfo) -> VariantInfo:
        """Return the variant an entry plays (a preset's base, or the variant itself)."""
        return self.variants[entry.base] if isinstance(entry, PresetInfo) else entry

    def family(self, variant: VariantInfo) -> list[VariantInfo]:
        """Return the variants ``variant`` builds on, root first, ending with itself."""
        chain = [variant]
        while chain[-1].base is not None:
            chain.append(self.variants[chain[-1].base])
        return chain[::-1]

    def scoring_schemes(self, names: Iterable[str]) -> dict[str, ScoringInfo]:
        """Return the schemes named (``all`` means every one), in the order given.

        Raises :class:`UnknownSchemeError` for a name nobody registered.
        """
        chosen: dict[str, ScoringInfo] = {}
        for name in names:
            if name == "all":
                chosen.update(self.scoring)
            elif name in self.scoring:
                chosen[name] = self.scoring[name]
            else:
                raise UnknownSchemeError(name, list(self.scoring))
        return chosen

    # -- rules -------------------------------------------------------------

    def canonical_options(self, name: str, options: Mapping[str, str | int] | None = None
                          ) -> tuple[VariantInfo | PresetInfo, dict[str, str]]:
        """Check ``options`` for the variant or preset ``name``; return it and the merged options.

        A preset's own options come first; options given here override them. Their keys,
        like the names of games and the option values, are read case-blind (``REDEALS``).
        Raises :class:`UnknownVariantError` or :class:`OptionError`.
        """
        entry = self.lookup(name)
        variant = self.variant_of(entry)
        merged: dict[str, str] = dict(entry.options) if isinstance(entry, PresetInfo) else {}
        given: set[str] = set()
        for key, value in (options or {}).items():
            known = key.strip().lower() if isinstance(key, str) else key
            option = self.options.get(known)
            if known not in variant.options or option is None:
                accepted = ", ".join(k for k in variant.options if k in self.options) or "none"
                raise OptionError(key, f"{entry.slug} has no option {key!r} "
                                       f"(options it accepts: {accepted})")
            if known in given:  # "redeals" and "REDEALS": which would win?
                raise OptionError(key, f"option {known} is given twice; give it once")
            given.add(known)
            try:
                parsed = option.parse(value)
            except ValueError as error:
                raise OptionError(key, f"option {known}: {error} (values: {option.values})"
                                  ) from None
            except Exception as error:  # a parser's bug: the plugin's, said as such
                raise PluginFault(option.plugin, f"option {known!r} (plugin {option.plugin}) "
                                                 f"failed to read {_brief(value)}: "
                                                 f"{type(error).__name__}: {error}") from error
            if not isinstance(parsed, str):
                raise PluginFault(option.plugin, f"option {known!r} (plugin {option.plugin}) "
                                                 f"read {_brief(value)} as {_brief(parsed)}, "
                                                 f"not as text")
            merged[known] = parsed
        return entry, merged

    def rules(self, name: str, options: Mapping[str, str | int] | None = None) -> Rules:
        """Return the rules of the variant or preset ``name`` with ``options`` applied."""
        entry, merged = self.canonical_options(name, options)
        key = (entry.slug, tuple(sorted(merged.items())))
        cached = self._rules_cache.get(key)
        if cached is None:
            cached = self._built_or_blamed(entry, merged, given=options or {})
            self._rules_cache[key] = cached
            if len(self._rules_cache) > RULES_CACHE_SIZE:  # clients choose the options
                self._rules_cache.popitem(last=False)
        else:
            self._rules_cache.move_to_end(key)
        return cached

    def game_plugin_manager(self, variant: VariantInfo, options: Mapping[str, str]
                            ) -> pluggy.PluginManager:
        """Build a fresh plugin manager for one game of ``variant`` with ``options``."""
        manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        manager.add_hookspecs(hookspecs)
        manager.register(BaselineRules(), name="baseline")
        for member in self.family(variant):
            if member.rules is not None:
                manager.register(member.rules, name=f"variant:{member.slug}")
        for key, value in sorted(options.items()):
            manager.register(self.options[key].make_plugin(value), name=f"option:{key}")
        manager.check_pending()
        return manager

    def _built_or_blamed(self, entry: VariantInfo | PresetInfo, options: dict[str, str],
                         given: Mapping[str, str | int]) -> Rules:
        """The rules of ``entry`` with ``options``, dealt once with game 1; where they fail and
        a third party's plugin made them, a :class:`PluginFault` naming it.

        The load-time trial (:func:`_try_new_entries`) builds each entry with its own
        options only; a value the user chooses (``width=3``) may give rules that a plugin
        cannot build, or that gapgrid refuses, and that failure is the plugin's, not
        gapgrid's internal error. The plugin named is that of the first third party's
        option given, else the variant's (or the first third party's it builds on).
        Failures of gapgrid's own plugins are raised as they are: a bug of gapgrid's.
        """
        try:
            rules = self._build_rules(entry, options)
            Engine.start(rules, DealNumber(1))  # about 0.1 ms; a deal that fails, fails now
            return rules
        except (OptionError, PluginFault):
            raise
        except Exception as error:
            variant = self.variant_of(entry)
            chosen = [self.options[key.strip().lower()] for key in given
                      if isinstance(key, str) and key.strip().lower() in self.options]
            blamed = [*(option.plugin for option in chosen),
                      *(member.plugin for member in reversed(self.family(variant)))]
            # Whose code raised, where the traceback says (an installed plugin's); else
            # gapgrid refused what the plugins made, and the first third party is named.
            plugin = failing_plugin(error) or next(
                (name for name in blamed if name in self.third_parties), None)
            if plugin is None:
                raise
            values = ", ".join(f"{key}={value}" for key, value in sorted(options.items()))
            with_options = f" with {values}" if values else ""
            raise PluginFault(plugin, f"{entry.slug}{with_options} (plugin {plugin}): the rules "
                                      f"cannot be built or dealt: {type(error).__name__}: "
                                      f"{rule_text(error, LONGEST_TEXT)}") from error

    def _build_rules(self, entry: VariantInfo | PresetInfo, options: dict[str, str]) -> Rules:
        hook = self.game_plugin_manager(self.variant_of(entry), options).hook
        layout = hook.gapgrid_layout()
        redeals = hook.gapgrid_redeals()
        timing = hook.gapgrid_redeal_timing()
        if (isinstance(redeals, bool) or not isinstance(redeals, int)
                or not (redeals == UNLIMITED or 0 <= redeals <= MAX_REDEALS)):
            raise RuleError(f"{entry.slug}: gapgrid_redeals gave {_brief(redeals)}: a count "
                            f"from 0 to {MAX_REDEALS}, or UNLIMITED")
        if not isinstance(timing, RedealTiming):
            raise RuleError(f"{entry.slug}: gapgrid_redeal_timing gave {timing!r}")
        placement = hook.gapgrid_redeal_placement(layout=layout)
        name = getattr(placement, "name", None)
        if not isinstance(name, str) or not SLUG_PATTERN.fullmatch(name):
            raise RuleError(f"{entry.slug}: its redeal placement's name is {_brief(name)}, "
                            f"not lower case words joined by hyphens (listings show it)")
        rules = Rules(
            slug=entry.slug, name=entry.name, options=options, layout=layout,
            deal_style=hook.gapgrid_deal_style(layout=layout),
            fill=hook.gapgrid_fill_rule(layout=layout),
            redeals=redeals,
            keep=hook.gapgrid_redeal_keep(layout=layout),
            placement=placement,
            timing=timing,
            won=hook.gapgrid_won_rule(layout=layout),
        )
        _check_placement_fits(rules)
        return rules


def _brief(value: object) -> str:
    """A plugin's value for a message: its repr, cut short (a number of 5,000 digits)."""
    shown = repr(value) if not isinstance(value, int) or abs(value) < 10**12 else (
        f"a number of about {int(value.bit_length() * 0.30103) + 1:,} digits")
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _check_placement_fits(rules: Rules) -> None:
    """Refuse rules whose redeals could not deal the game's gaps back.

    Raises :class:`OptionError` when the redeal options chose the misfit (the
    user can choose otherwise), :class:`RuleError` when the variant did (its
    plugin is then reported at load time). Game 1 is dealt to count the gaps,
    since a plugin's deal style decides how many there are.
    """
    if rules.redeals == 0 or not leaves_one_gap_per_row(rules.placement):
        return
    gaps = new_game(rules, DealNumber(1)).board.cells.count(None)
    if gaps == rules.layout.rows:
        return
    message = (f"{rules.slug}: the {rules.placement.name} redeal leaves one gap in each row, "
               f"and the game has {gaps} gaps in {rules.layout.rows} rows, so it cannot redeal")
    for key in ("redeal-placement", "redeals"):
        if key in rules.options:
            raise OptionError(key, f"option {key}: {message} (use redeal-placement=random "
                                   f"or redeals=0)")
    raise RuleError(message)


def build_catalogue(plugins: Iterable[LoadedPlugin],
                    problems: Iterable[PluginProblem] = ()) -> Catalogue:
    """Register ``plugins`` in order and return the catalogue they make.

    ``problems`` are failures found before registration (a plugin that
    could not be imported); they are reported with the rest.
    """
    found = list(problems)
    manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    manager.add_hookspecs(hookspecs)
    registry = Registry()
    for loaded in plugins:
        twice = _hooks_defined_twice_in(loaded.plugin) if loaded.tried else []
        if twice:
            found.append(PluginProblem(loaded.name, f"invalid plugin: {'; '.join(twice)}"))
            continue
        try:
            manager.register(loaded.plugin, name=loaded.name)
            manager.check_pending()
        except (pluggy.PluginValidationError, ValueError) as error:
            if manager.is_registered(loaded.plugin):
                manager.unregister(loaded.plugin)
            found.append(PluginProblem(loaded.name, f"invalid plugin: {error}"))
            continue
        others = [plugin for plugin in manager.get_plugins() if plugin is not loaded.plugin]
        register = manager.subset_hook_caller("gapgrid_register", remove_plugins=others)
        before = registry.snapshot()
        registry.set_plugin(loaded.name, third_party=loaded.tried)
        try:
            register(registry=registry)
            if loaded.tried:
                _try_new_entries(registry, before)
        except RegistrationError as error:
            registry.restore(before)
            found.append(PluginProblem(loaded.name, str(error)))
        except Exception as error:  # a third-party plugin's bug must not stop the others
            registry.restore(before)
            found.append(PluginProblem(loaded.name, f"gapgrid_register failed: "
                                                    f"{type(error).__name__}: {error}"))
        except SystemExit as exiting:  # it ended every command, silently, with its status
            registry.restore(before)
            found.append(PluginProblem(loaded.name, f"gapgrid_register, or a rule it "
                                                    f"registers, calls sys.exit({exiting.code!r})"))
    return Catalogue(registry, found)


def hooks_defined_twice(source: str) -> list[str]:
    """Say which hooks ``source`` defines twice in one scope (the module, or one class body).

    Python keeps only the last of two ``def gapgrid_register`` in a module, so
    pluggy never sees the first and whatever it registers is lost without a
    word. Only definitions written directly in a scope count: one inside an
    ``if`` or ``try`` may be an alternative, not a redefinition. Returns one
    message per repeated hook, empty when there is none.
    """
    tree = ast.parse(source)
    scopes: list[ast.Module | ast.ClassDef] = [
        tree, *(node for node in ast.walk(tree) if isinstance(node, ast.ClassDef))]
    found = []
    for scope in scopes:
        lines: dict[str, list[int]] = {}
        for statement in scope.body:
            if (isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
                    and statement.name.startswith(f"{hookspecs.PROJECT_NAME}_")):
                lines.setdefault(statement.name, []).append(statement.lineno)
        where = "" if isinstance(scope, ast.Module) else f" in class {scope.name}"
        found += [f"{name} is defined {len(at)} times{where} (lines "
                  f"{', '.join(map(str, at))}); Python keeps only the last, so the others "
                  f"are never called: do everything in one {name}"
                  for name, at in lines.items() if len(at) > 1]
    return found


def _hooks_defined_twice_in(plugin: object) -> list[str]:
    """Run :func:`hooks_defined_twice` on a module plugin's source, when it can be read.

    Modules loaded without source (from a zip of bytecode, say) and plugin
    objects that are not modules are not checked.
    """
    if not isinstance(plugin, types.ModuleType):
        return []
    try:
        source = inspect.getsource(plugin)
    except (OSError, TypeError):
        return []
    try:
        return hooks_defined_twice(source)
    except SyntaxError:  # the module imported, so its source has changed since: no verdict
        return []


def _try_new_entries(registry: Registry, before: tuple[dict[str, Any], ...]) -> None:
    """Build the rules of each entry a plugin just added, and deal game 1 with them; score
    sample games with each scoring scheme it added (:data:`core.score_checks.SAMPLE_SUMMARIES`).

    A rule hook or a scheme that raises or returns nonsense is found now, at
    load time, and reported against the plugin, instead of failing every
    listing, verification or submission later.
    """
    known = set(before[0]) | set(before[1])
    trial = Catalogue(registry, [])
    for slug in trial.slugs():
        if slug in known:
            continue
        try:
            rules = trial.rules(slug)
            engine = Engine.start(rules, DealNumber(1))
            engine.redeal()  # where the rules allow one now: it deals back what it gathers
            try_fill_rule(rules)
        except Exception as error:
            # said as the rule's own error: the plugin is named by the load's message
            cause = error.__cause__ if isinstance(error, PluginFault) else None
            failed = cause if isinstance(cause, Exception) else error
            raise RegistrationError(f"{slug}: its rules do not work: "
                                    f"{type(failed).__name__}: {failed}") from None
    for name, info in registry.scoring.items():
        if name in before[3]:
            continue
        try:  # each game kind a scheme scores: a scheme that fails on one fails at load
            for summary in SAMPLE_SUMMARIES:
                info.score(summary)
        except PluginFault as fault:
            raise RegistrationError(str(fault)) from None


def installed_plugin_names(group: str = hookspecs.PROJECT_NAME) -> set[str]:
    """The names a third-party plugin may be disabled by: its entry point's, and its
    distribution's."""
    names = set()
    for entry_point in importlib.metadata.entry_points(group=group):
        names.add(entry_point.name)
        if entry_point.dist is not None:
            names.add(entry_point.dist.name)
    return names


def discover_entry_points(group: str = hookspecs.PROJECT_NAME,
                          disabled: Iterable[str] = ()
                          ) -> tuple[list[LoadedPlugin], list[PluginProblem]]:
    """Import the plugins published under the entry-point ``group``.

    Entry points named in ``disabled`` (or whose distribution is) are skipped.
    Returns the plugins that imported and a problem for each that did not.
    """
    blocked = {name.strip() for name in disabled if name.strip()}
    loaded: list[LoadedPlugin] = []
    problems: list[PluginProblem] = []
    for entry_point in sorted(importlib.metadata.entry_points(group=group),
                              key=lambda ep: ep.name):
        distribution = entry_point.dist.name if entry_point.dist else ""
        if entry_point.name in blocked or distribution in blocked:
            continue
        try:
            plugin = entry_point.load()
        except Exception as error:  # any import failure is the plugin's, reported by name
            problems.append(PluginProblem(entry_point.name, f"cannot be imported: "
                                                            f"{type(error).__name__}: {error}"))
            continue
        except SystemExit as exiting:  # sys.exit() in a module: every command ended silently
            problems.append(PluginProblem(entry_point.name, f"cannot be imported: it calls "
                                                            f"sys.exit({exiting.code!r})"))
            continue
        loaded.append(LoadedPlugin(entry_point.name, plugin))
    return loaded, problems
