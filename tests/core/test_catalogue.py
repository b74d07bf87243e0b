"""The catalogue: loading plugins, reporting bad ones, names, options and per-game managers."""

from __future__ import annotations

import importlib.util
import itertools
import math
import pickle
import re
import textwrap
import types
from pathlib import Path

import attrs
import pytest

from gapgrid import plugins
from gapgrid.core.catalogue import (
    Catalogue,
    LoadedPlugin,
    OptionError,
    UnknownVariantError,
    build_catalogue,
    hooks_defined_twice,
)
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.fills import MontanaFill
from gapgrid.core.game import Engine
from gapgrid.core.hookspecs import hookimpl
from gapgrid.core.layout import Layout
from gapgrid.core.notation import Move
from gapgrid.core.redeals import GapsAtRandom
from gapgrid.core.registry import PresetInfo, Registry
from gapgrid.core.rules import UNLIMITED, RedealPlacement, RedealTiming
from gapgrid.core.score_checks import SAMPLE_SUMMARIES, PluginFault
from gapgrid.core.scoring import GameSummary, Score, points


def _plugin(name: str, register: object) -> LoadedPlugin:
    module = types.ModuleType(name)
    module.gapgrid_register = register  # type: ignore[attr-defined]
    return LoadedPlugin(name, module)


def _with(*extra: LoadedPlugin) -> Catalogue:
    return build_catalogue([*plugins.builtin_plugins(), *extra])


def test_builtins_load_without_problems(catalogue: Catalogue) -> None:
    """The 17 PySolFC variants and 7 presets load cleanly."""
    assert catalogue.problems == ()
    assert len(catalogue.variants) == 17
    assert len(catalogue.presets) == 7


@pytest.mark.parametrize(("name", "slug"), [
    ("gaps", "gaps"), ("Gaps", "gaps"), ("vacancies", "montana"), ("addiction", "spaces"),
    ("Rangoon", "blue-moon"), ("moonlight", "free-parking"), ("Park and Ride", "free-parking"),
    ("pretzel", "line-up"), ("long trip", "paganini"), ("BLUE MOON", "blue-moon"),
    ("blue_moon", "blue-moon"),
])
def test_other_names_find_the_variant(catalogue: Catalogue, name: str, slug: str) -> None:
    """Other names, case and spacing aside, name the variant; a slug wins over another name."""
    assert catalogue.lookup(name).slug == slug


def test_unknown_variant_suggests_close_names(catalogue: Catalogue) -> None:
    """A misspelt name is refused with suggestions."""
    with pytest.raises(UnknownVariantError, match="did you mean blue-moon"):
        catalogue.lookup("blue-mon")


def test_presets_are_a_variant_plus_options(catalogue: Catalogue) -> None:
    """A preset's rules are its base's rules with its options applied."""
    preset = catalogue.lookup("gaps-unlimited")
    assert isinstance(preset, PresetInfo) and preset.base == "montana"
    rules = catalogue.rules("gaps-unlimited")
    assert rules.redeals == UNLIMITED
    assert rules.timing is RedealTiming.STUCK
    assert rules.layout == catalogue.rules("montana").layout


def test_options_override_the_variant_and_the_preset(catalogue: Catalogue) -> None:
    """Given options beat the variant's own rules and a preset's options."""
    assert catalogue.rules("blue-moon", {"redeals": "5"}).redeals == 5
    assert catalogue.rules("blue-moon", {"redeals": "500"}).redeals == 500  # the most
    assert catalogue.rules("gaps", {"redeal-when": "anytime"}).timing is RedealTiming.ANYTIME
    assert catalogue.rules("montana", {"redeal-placement": "last-column"}).placement.name == (
        "last-column")


@pytest.mark.parametrize(("options", "message"), [
    ({"colour": "red"}, "montana has no option 'colour'"),
    ({"redeals": "many"}, "'many' is not a number of redeals"),
    ({"redeals": "-1"}, "not a number of redeals"),
    # no more than one game may ask for: 999 promised 499 redeals that would be refused,
    # yet counted as unused in the scores
    ({"redeals": "501"}, "'501' is more than the 500 redeals one game may ask for"),
    ({"redeal-placement": "sideways"}, "not a redeal placement"),
    ({"redeal-when": "never"}, "not a redeal timing"),
    ({"redeals": "1", "REDEALS": "2"}, "option redeals is given twice; give it once"),
    ({"reDeals ": "x"}, "option redeals: 'x' is not a number of redeals"),
])
def test_bad_options_are_refused_clearly(catalogue: Catalogue, options: dict[str, str],
                                         message: str) -> None:
    """An unknown key or a bad value raises OptionError naming the key."""
    with pytest.raises(OptionError, match=message) as caught:
        catalogue.rules("montana", options)
    assert caught.value.key == list(options)[-1]  # the one at fault, as the client wrote it


def test_option_keys_are_read_case_blind_as_names_and_values_are(catalogue: Catalogue
                                                                 ) -> None:
    """``REDEALS=1`` is ``redeals=1``, as ``MONTANA`` is montana and ``RANDOM`` random (it
    was refused as an option montana has not)."""
    assert catalogue.rules("MONTANA", {"REDEALS": "1", "Redeal-Placement": "RANDOM"}) is (
        catalogue.rules("montana", {"redeals": "1", "redeal-placement": "random"}))
    assert catalogue.canonical_options("montana", {"REDEALS": 1})[1] == {"redeals": "1"}


def test_rules_are_resolved_once_per_catalogue(catalogue: Catalogue) -> None:
    """The same variant and options give the same Rules object (no rebuild per game)."""
    assert catalogue.rules("blue-moon") is catalogue.rules("rangoon")
    assert catalogue.rules("montana", {"redeals": 1}) is catalogue.rules("montana",
                                                                        {"redeals": "1"})


def test_each_game_gets_a_fresh_plugin_manager(catalogue: Catalogue) -> None:
    """Game plugin managers are new objects holding baseline, family and options."""
    variant = catalogue.variants["galary"]
    first = catalogue.game_plugin_manager(variant, {"redeals": "1"})
    second = catalogue.game_plugin_manager(variant, {"redeals": "1"})
    assert first is not second
    names = {name for name, _ in first.list_name_plugin()}
    assert names == {"baseline", "variant:blue-moon", "variant:red-moon", "variant:galary",
                     "option:redeals"}


def test_a_plugin_that_raises_is_reported_and_the_rest_work() -> None:
    """A plugin whose registration raises is named with the reason; the built-ins still load."""
    def register(registry: Registry) -> None:
        raise RuntimeError("kaboom")
    catalogue = _with(_plugin("broken", hookimpl(register)))
    assert [(problem.plugin, "kaboom" in problem.reason) for problem in catalogue.problems] == [
        ("broken", True)]
    assert "montana" in catalogue.variants


def test_a_plugin_that_exits_while_registering_is_reported_and_the_rest_work() -> None:
    """sys.exit() in gapgrid_register ended every command, silently, with the plugin's
    status (1 is a refused move's)."""
    def register(registry: Registry) -> None:
        raise SystemExit(1)
    catalogue = _with(_plugin("quits", hookimpl(register)))
    assert [(problem.plugin, problem.reason) for problem in catalogue.problems] == [
        ("quits", "gapgrid_register, or a rule it registers, calls sys.exit(1)")]
    assert "montana" in catalogue.variants


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(slug="montana", name="Again"), "slug 'montana' is already registered by montana"),
    (dict(slug="mine", name="Mine", pysolfc_id=63), "PySolFC id 63 is already blue-moon"),
    (dict(slug="mine", name="Mine", other_names=("Rangoon",)), "already names blue-moon"),
    (dict(slug="Not A Slug", name="Mine"), "must be lower case"),
    (dict(slug="mine", name="Mine", base="nowhere"), "base variant 'nowhere'"),
    # each of these loaded, then broke `gapgrid variants` and GET /v1/variants for everyone,
    # forged lines on a terminal, or took the variant's name letter by letter
    (dict(slug="mine", name=object()), "mine: the name is object, not text"),
    (dict(slug="mine", name="Mine\x1b[31m"), "mine: the name holds control characters"),
    (dict(slug="mine", name="Mine", summary="one\ntwo"), "the summary holds control"),
    (dict(slug="mine", name="M" * 1_001), "the name has 1,001 characters: at most 1,000"),
    (dict(slug="mine", name="Mine", pysolfc_id=10**5000), "a whole number from 1 to"),
    (dict(slug="mine", name="Mine", other_names="Zygote"), "a list of names, not one text"),
    (dict(slug="mine", name="Mine", other_names=(1, 2)), "the other name is int, not text"),
    (dict(slug="mine", name="Mine", other_names=(f"n{n}" for n in itertools.count())),
     "more than 1,000 other names"),  # an endless iterable: refused, not read to the end
    (dict(slug="all", name="All"), "slug 'all' is taken"),  # `gapgrid study all`
])
def test_duplicates_and_bad_entries_are_reported(kwargs: dict[str, object], message: str) -> None:
    """A duplicate slug, id or name, or a bad entry, rolls the plugin back and says why."""
    def register(registry: Registry) -> None:
        registry.add_variant(slug="first-ok", name="First OK")
        registry.add_variant(**kwargs)  # type: ignore[arg-type]
    catalogue = _with(_plugin("dupe", hookimpl(register)))
    assert len(catalogue.problems) == 1
    assert catalogue.problems[0].plugin == "dupe"
    assert message in catalogue.problems[0].reason
    assert "first-ok" not in catalogue.variants  # rolled back
    assert catalogue.variants["montana"].plugin == "montana"


def test_a_misspelt_hook_is_reported() -> None:
    """A plugin implementing a hook that does not exist is refused at load time."""
    module = types.ModuleType("typo")
    module.gapgrid_regster = hookimpl(lambda registry: None)  # type: ignore[attr-defined]
    catalogue = _with(LoadedPlugin("typo", module))
    assert catalogue.problems[0].plugin == "typo"
    assert "gapgrid_regster" in catalogue.problems[0].reason


def test_a_bad_rules_plugin_is_reported() -> None:
    """A variant whose rules object implements an unknown hook is refused with the reason."""
    class Rules:
        @hookimpl
        def gapgrid_fill(self) -> None:
            return None

    def register(registry: Registry) -> None:
        registry.add_variant(slug="odd", name="Odd", rules=Rules())
    catalogue = _with(_plugin("odd", hookimpl(register)))
    assert "its rules plugin is invalid" in catalogue.problems[0].reason


def test_disabled_builtin_plugins_are_not_loaded() -> None:
    """GAPGRID_DISABLE_PLUGINS-style names keep a plugin out."""
    catalogue = plugins.load_catalogue(entry_points=False, disabled=["jungle"])
    assert "jungle" not in catalogue.variants
    assert "blue-moon" in catalogue.variants


def test_disable_variable_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment variable is a comma-separated list of names."""
    monkeypatch.setenv("GAPGRID_DISABLE_PLUGINS", " jungle, galary ,")
    assert plugins.disabled_plugins() == ["jungle", "galary"]
    catalogue = plugins.load_catalogue(entry_points=False)
    assert "jungle" not in catalogue.variants and "galary" not in catalogue.variants


def test_a_layout_hook_from_a_variant_reaches_the_rules() -> None:
    """A variant's own hook overrides the baseline's (trylast) one."""
    class Wide:
        @hookimpl
        def gapgrid_layout(self) -> Layout:
            return Layout(rows=4, rstep=13, rbase=1).with_decks(2)

    def register(registry: Registry) -> None:
        registry.add_variant(slug="wide", name="Wide", rules=Wide())
    catalogue = _with(_plugin("wide", hookimpl(register)))
    assert catalogue.rules("wide").layout.rows == 8


@pytest.mark.parametrize(("layout", "message"), [
    (dict(rows=400, rstep=13, rbase=1, decks=100), "'rows' must be <= 32: 400"),
    (dict(rows=4, rstep=13, rbase=1, decks=100), "'decks' must be <= 4: 100"),
    (dict(rows=4, rstep=1_000, rbase=1), "'rstep' must be <= 64: 1000"),
])
def test_a_layout_beyond_what_a_search_can_hold_is_reported_at_load(
        layout: dict[str, int], message: str) -> None:
    """A layout of 100 decks in 400 rows loaded, and a two-second search of it took 2.5 GB
    (twice that, 6.9 GB and no answer): decks, rows and row lengths have a ceiling."""
    class Huge:
        @hookimpl
        def gapgrid_layout(self) -> Layout:
            return Layout(**layout)

    def register(registry: Registry) -> None:
        registry.add_variant(slug="huge", name="Huge", rules=Huge())
    catalogue = _with(_plugin("huge", hookimpl(register)))
    assert "huge" not in catalogue.variants
    assert message in catalogue.problems[0].reason


def test_a_plugin_may_not_take_another_variants_other_name_as_slug() -> None:
    """'addiction' names Spaces: a plugin registering it as a slug is refused, not obeyed."""
    def register(registry: Registry) -> None:
        registry.add_variant(slug="addiction", name="My Addiction")
    catalogue = _with(_plugin("hijack", hookimpl(register)))
    assert "already another name of spaces" in catalogue.problems[0].reason
    assert catalogue.lookup("addiction").slug == "spaces"


def test_an_other_name_may_not_be_a_slug() -> None:
    """An other name equal to a slug could never be looked up: refused."""
    def register(registry: Registry) -> None:
        registry.add_variant(slug="mine", name="Mine", other_names=("Jungle",))
    catalogue = _with(_plugin("shadow", hookimpl(register)))
    assert "is already a slug" in catalogue.problems[0].reason


def test_a_preset_may_take_its_own_variants_other_name() -> None:
    """The gaps preset is Montana, which PySolFC also calls Gaps: allowed, and it wins."""
    catalogue = plugins.load_catalogue(entry_points=False, disabled=())
    assert catalogue.lookup("gaps").slug == "gaps"
    assert "Gaps" in catalogue.variants["montana"].other_names


def test_a_third_party_preset_may_not_take_a_built_in_variants_other_name() -> None:
    """'Vacancies' names Montana: a third party's preset of that slug was registered without
    a word and took the name over (gapgrid's own gaps preset may, being gapgrid's)."""
    def register(registry: Registry) -> None:
        registry.add_preset(slug="vacancies", name="Not Montana", base="montana",
                            options={"redeals": 0})
    catalogue = _with(_plugin("hijack", hookimpl(register)))
    assert "already another name of montana" in catalogue.problems[0].reason
    assert catalogue.lookup("vacancies").slug == "montana"


class _Scores:
    """A scoring scheme that gives back whatever it was built with (or raises it)."""

    def __init__(self, given: object) -> None:
        self.given = given

    def score(self, summary: GameSummary) -> object:
        if isinstance(self.given, Exception):
            raise self.given
        return self.given(summary) if callable(self.given) else self.given


def _good_score(**changes: object) -> Score:
    return attrs.evolve(points({"cards": 3}, "three cards"), **changes)


@pytest.mark.parametrize(("given", "message"), [
    (ZeroDivisionError("score bug"), "failed: ZeroDivisionError: score bug"),
    (None, "NoneType is not a Score"),
    (_good_score(total=math.nan), "total is float, not a whole number"),
    (_good_score(total="lots"), "total is str, not a whole number"),
    (_good_score(total=10**5000), "total is beyond"),
    (_good_score(better="sideways"), "better is 'sideways'"),
    (_good_score(sort_key=("a", None)), "a part of sort_key is str"),
    (_good_score(sort_key=(2**63,)), "a part of sort_key is beyond"),
    (_good_score(explanation="fine\nMove 2 is legal"), "explanation holds control"),
    (_good_score(extra={"total": 999_999}), "extra facts named total would hide"),
    (_good_score(extra={"odd": {1, 2}}), "extra['odd'] is set"),
    (_good_score(extra={"far": math.inf}), "extra['far'] is inf, which JSON cannot hold"),
    (lambda summary: _good_score() if not summary.won else None, "NoneType is not a Score"),
])
def test_a_scoring_scheme_that_fails_is_reported_at_load(given: object, message: str) -> None:
    """A scheme that raises, or gives back a score that cannot be served or stored, on any of
    the sample games is refused at load with its plugin's name: it made every verification
    and every submission of every variant fail (500, exit 3, or NaN in the JSON)."""
    def register(registry: Registry) -> None:
        registry.add_scoring(name="evil-score", summary="Evil", scheme=_Scores(given))
    catalogue = _with(_plugin("evil", hookimpl(register)))
    assert [problem.plugin for problem in catalogue.problems] == ["evil"]
    assert "scoring scheme 'evil-score' (plugin evil)" in catalogue.problems[0].reason
    assert message in catalogue.problems[0].reason
    assert "evil-score" not in catalogue.scoring and "par" in catalogue.scoring


@pytest.mark.parametrize(("register_one", "message"), [
    (lambda registry: registry.add_scoring(name="shouty", summary="Score\n\x1b[31mred",
                                           scheme=_Scores(_good_score())),
     "shouty: the summary holds control characters"),
    (lambda registry: registry.add_option(key="odd", summary="Odd", values="1\n2",
                                          parse=str, make_plugin=lambda value: object()),
     "odd: the values holds control characters"),
    (lambda registry: (registry.add_option(key="odd", summary="Odd", values="any",
                                           parse=lambda value: 3,
                                           make_plugin=lambda value: object()),
                       registry.add_variant(slug="oddly", name="Oddly", base="montana",
                                            options=("redeals", "odd")),
                       registry.add_preset(slug="oddly-three", name="Oddly three",
                                           base="oddly", options={"odd": "3"})),
     "oddly-three: option odd read '3' as int, not as text"),
])
def test_what_a_scheme_or_an_option_registers_is_checked(register_one: object,
                                                         message: str) -> None:
    """A scheme's or an option's texts are one line, as a variant's are, and a preset's
    option values are text, as the options a caller gives are."""
    catalogue = _with(_plugin("texts", hookimpl(register_one)))
    assert message in catalogue.problems[0].reason


def test_a_plugin_fault_crosses_a_process_boundary() -> None:
    """A study's worker sends its error back pickled: a PluginFault that could not be
    rebuilt broke the pool instead of saying whose fault it was."""
    fault = pickle.loads(pickle.dumps(PluginFault("odd", "option 'odd' failed")))
    assert (fault.plugin, str(fault)) == ("odd", "option 'odd' failed")


def test_a_scoring_scheme_that_fails_later_is_said_as_its_plugins_fault() -> None:
    """A scheme that passed the load but fails on a game names itself and its plugin (a
    :class:`PluginFault`), rather than passing an unusable score on."""
    failing = _Scores(_good_score())

    def register(registry: Registry) -> None:
        registry.add_scoring(name="later", summary="Later", scheme=failing)
    catalogue = _with(_plugin("late", hookimpl(register)))
    assert not catalogue.problems
    failing.given = _good_score(total=math.nan)
    with pytest.raises(PluginFault, match=r"'later' \(plugin late\) gave a score") as fault:
        catalogue.scoring["later"].score(SAMPLE_SUMMARIES[0])
    assert fault.value.plugin == "late"


def test_a_third_party_variant_whose_rules_fail_is_reported_at_load() -> None:
    """Rules that raise are tried at load time: the plugin is reported, listings still work."""
    class Broken:
        @hookimpl
        def gapgrid_fill_rule(self, layout: Layout) -> None:
            raise RuntimeError("no fill for you")

    def register(registry: Registry) -> None:
        registry.add_variant(slug="broken", name="Broken", rules=Broken())
    catalogue = _with(_plugin("broken", hookimpl(register)))
    # the rule's own error, not wrapped in a PluginFault naming the plugin a second time
    assert catalogue.problems[0].reason == ("broken: its rules do not work: RuntimeError: "
                                            "no fill for you")
    assert "broken" not in catalogue.variants
    assert all(catalogue.rules(slug) for slug in catalogue.slugs())


class _EightGaps:
    """A layout whose deal leaves 8 gaps in 4 rows: the Aces and Twos are set aside."""

    @hookimpl
    def gapgrid_layout(self) -> Layout:
        return Layout(rows=4, rstep=13, rbase=2)


class _EightGapsAtRandom(_EightGaps):
    @hookimpl
    def gapgrid_redeal_placement(self, layout: Layout) -> RedealPlacement:
        return GapsAtRandom()


def _eight_gaps(rules: object) -> Catalogue:
    def register(registry: Registry) -> None:
        registry.add_variant(slug="eight", name="Eight", rules=rules)
    return _with(_plugin("eight", hookimpl(register)))


def test_a_variant_whose_redeal_cannot_place_its_gaps_is_reported_at_load() -> None:
    """Montana's placement leaves one gap per row: with 8 gaps in 4 rows the first redeal
    could not be dealt, so the plugin is refused at load instead of failing in play."""
    catalogue = _eight_gaps(_EightGaps())
    assert "eight" not in catalogue.variants
    assert ("the after-runs redeal leaves one gap in each row, and the game has 8 gaps "
            "in 4 rows") in catalogue.problems[0].reason


class _DealsOneCardEverywhere:
    """A deal style with a bug: every slot gets the deck's last card."""

    @hookimpl
    def gapgrid_deal_style(self, layout: Layout) -> object:
        class Everywhere:
            def place(self, layout: Layout, cards: list[int]) -> list[int | None]:
                return [cards[-1]] * layout.rlen
        return Everywhere()


class _RedealsKings:
    """A redeal placement with a bug: it deals Kings back, whatever it gathered."""

    @hookimpl
    def gapgrid_redeal_placement(self, layout: Layout) -> object:
        class Kings:
            name = "kings"

            def deal_back(self, layout: Layout, gathered: list[int], cards: list[int],
                          random: object) -> list[int | None]:
                return [12] * len(cards) + [None] * (len(gathered) - len(cards))
        return Kings()


@pytest.mark.parametrize(("rules", "message"), [
    (_DealsOneCardEverywhere(), "the deal placed cards that are not the deck's"),
    (_RedealsKings(), "Kings dealt back other cards than the ones it gathered"),
])
def test_a_variant_whose_deals_make_cards_up_is_reported_at_load(rules: object, message: str
                                                                  ) -> None:
    """A deal or a redeal that deals cards the deck does not hold (one card 52 times, Kings
    for whatever it gathered) was played, verified, and solved: "lost", about a game no one
    could play. It is refused at load, with its plugin."""
    def register(registry: Registry) -> None:
        registry.add_variant(slug="made-up", name="Made up", base="montana", rules=rules)
    catalogue = _with(_plugin("made_up", hookimpl(register)))
    assert "made-up" not in catalogue.variants
    assert message in catalogue.problems[0].reason


class _Fill:
    """Montana's fill rule with one of the bugs a third party's could have."""

    def __init__(self, layout: Layout, bug: str) -> None:
        self.montana = MontanaFill(layout)
        self.bug = bug

    def accepts(self, cells: list[int | None], source: int, target: int) -> bool:
        return True if self.bug == "accepts everything" else self.montana.accepts(
            cells, source, target)

    def sources(self, cells: list[int | None], target: int, where: object = None) -> list[int]:
        listed = self.montana.sources(cells, target)
        if self.bug == "lists nothing":
            return []
        if self.bug == "lists the gap":
            return [target]
        return listed * 2 if self.bug == "lists twice" else listed

    def refusal(self, cells: list[int | None], source: int, target: int) -> str:
        return "no\nMove 2 is legal\x1b[31m" + "!" * 10_000_000 if self.bug == "forges" else "no"


class _FillWithABug:
    def __init__(self, bug: str) -> None:
        self.bug = bug

    @hookimpl
    def gapgrid_fill_rule(self, layout: Layout) -> object:
        return _Fill(layout, self.bug)


@pytest.mark.parametrize(("bug", "message"), [
    ("accepts everything", "its fill rule disagrees with itself at gap"),
    ("lists nothing", "its fill rule disagrees with itself at gap"),
    ("lists the gap", "name slots that hold no card"),
    ("lists twice", "are not in slot order, each once"),
    ("none", ""),  # the rule without a bug loads
])
def test_a_fill_rule_whose_two_answers_disagree_is_reported_at_load(bug: str, message: str
                                                                     ) -> None:
    """accepts() (replay, verification) and sources() (the moves offered, the solver) must
    agree: a rule accepting every card but listing none had the solver prove "lost" a game
    that verification then accepted won."""
    def register(registry: Registry) -> None:
        registry.add_variant(slug="buggy-fill", name="Buggy fill", base="montana",
                             rules=_FillWithABug(bug))
    catalogue = _with(_plugin("buggy_fill", hookimpl(register)))
    if not message:
        assert not catalogue.problems and "buggy-fill" in catalogue.variants
        return
    assert "buggy-fill" not in catalogue.variants
    assert "buggy-fill: its rules do not work" in catalogue.problems[0].reason
    assert message in catalogue.problems[0].reason


def test_a_rules_refusal_is_one_bounded_line() -> None:
    """A refusal's reason is a plugin's text: its new lines forged "Move 2 is legal" under a
    refused move, its escapes recoloured the terminal, and 10 MB were printed whole."""
    def register(registry: Registry) -> None:
        registry.add_variant(slug="forges", name="Forges", base="montana",
                             rules=_FillWithABug("forges"))
    catalogue = _with(_plugin("forges", hookimpl(register)))
    engine = Engine.start(catalogue.rules("forges"), DealNumber(1))
    target = engine.gaps[0]
    source = next(slot for slot, card in enumerate(engine.cells)
                  if card is not None and not engine.allows(slot, target))
    refusal = engine.apply(Move(source, target))
    assert refusal is not None and refusal.reason.startswith("no Move 2 is legal [31m!")
    assert len(refusal.reason) == 500 and refusal.reason.endswith("…")


class _Redeals:
    def __init__(self, count: object) -> None:
        self.count = count

    @hookimpl
    def gapgrid_redeals(self) -> object:
        return self.count


class _PlacementNamed:
    def __init__(self, name: object) -> None:
        self.name = name

    @hookimpl
    def gapgrid_redeal_placement(self, layout: Layout) -> object:
        class Named(GapsAtRandom):
            pass
        placement = Named()
        object.__setattr__(placement, "name", self.name)  # an instance's own, for the test
        return placement


@pytest.mark.parametrize("name", [object(), None, "Two\nlines"])
def test_a_redeal_placement_without_a_usable_name_is_reported_at_load(name: object) -> None:
    """A placement's name is listed by `gapgrid variants` and the API: an object, none, or a
    text on two lines had loaded, then broken the listings for everyone."""
    def register(registry: Registry) -> None:
        registry.add_variant(slug="unnamed", name="Unnamed", base="montana",
                             rules=_PlacementNamed(name))
    catalogue = _with(_plugin("unnamed", hookimpl(register)))
    assert "unnamed" not in catalogue.variants
    assert "its redeal placement's name is" in catalogue.problems[0].reason


@pytest.mark.parametrize(("count", "shown"), [
    (True, "True"), (501, "501"), (-2, "-2"), (10**30, "a number of about 31 digits"),
    (10**5000, "a number of about 5,001 digits"),  # its repr alone would raise
], ids=["true", "501", "minus-2", "1e30", "1e5000"])
def test_a_redeal_count_past_what_a_game_may_ask_is_reported_at_load(count: object,
                                                                     shown: str) -> None:
    """A variant's redeals are a count from 0 to 500, or unlimited: True was listed as
    "redeals True", and a 5,000-digit count broke `gapgrid variants` for everyone."""
    def register(registry: Registry) -> None:
        registry.add_variant(slug="many", name="Many", base="montana", rules=_Redeals(count))
    catalogue = _with(_plugin("many", hookimpl(register)))
    assert "many" not in catalogue.variants
    assert (f"gapgrid_redeals gave {shown}: a count from 0 to 500, or UNLIMITED"
            in catalogue.problems[0].reason)


@pytest.mark.parametrize(("parse", "message"), [
    (lambda value: {}[value], "option 'odd' (plugin odd) failed to read '3': KeyError"),
    (lambda value: 3, "option 'odd' (plugin odd) read '3' as 3, not as text"),
])
def test_an_option_whose_parser_fails_is_its_plugins_fault(parse: object, message: str
                                                           ) -> None:
    """A parser must raise ValueError for a value it refuses (a usage error, 422); one that
    raises anything else, or gives back something that is not text, is its plugin's bug,
    named (it was gapgrid's internal error, or leaked 3 into the options)."""
    def register(registry: Registry) -> None:
        registry.add_option(key="odd", summary="Odd", values="any", parse=parse,
                            make_plugin=lambda value: object())
        registry.add_variant(slug="oddly", name="Oddly", base="montana",
                             options=("redeals", "odd"))
    catalogue = _with(_plugin("odd", hookimpl(register)))
    with pytest.raises(PluginFault, match=re.escape(message)) as fault:
        catalogue.rules("oddly", {"odd": "3"})
    assert fault.value.plugin == "odd"


class _Wide:
    """Applies a third party's ``width`` option: rows of that many slots."""

    def __init__(self, value: str) -> None:
        self.width = int(value)

    @hookimpl
    def gapgrid_layout(self) -> Layout:
        return Layout(rows=4, rstep=self.width, rbase=1)


def _register_wide(registry: Registry) -> None:
    registry.add_option(key="width", summary="Width", values="a number",
                        parse=lambda value: str(int(value)), make_plugin=_Wide)
    registry.add_variant(slug="wide", name="Wide", base="montana", options=("redeals", "width"))


@pytest.mark.parametrize(("width", "reason"), [
    ("3", "RuleError: a Montana deal needs 12 cards for a 4x3 grid, the game has 52"),
    ("99", "ValueError: 'rstep' must be <= 64: 99"),
])
def test_an_option_value_whose_rules_fail_is_its_plugins_fault(width: str, reason: str
                                                               ) -> None:
    """A value the option's parser accepts may give rules that cannot be built (or dealt):
    the plugin's fault, named, where it was gapgrid's internal error without a name."""
    catalogue = _with(_plugin("wideplug", hookimpl(_register_wide)))
    assert not catalogue.problems
    assert catalogue.rules("wide", {"width": "13"}).layout.rstep == 13
    with pytest.raises(PluginFault) as fault:
        catalogue.rules("wide", {"width": width})
    assert fault.value.plugin == "wideplug"
    assert str(fault.value) == (f"wide with width={width} (plugin wideplug): "
                                f"the rules cannot be built or dealt: {reason}")


def test_a_redeal_option_that_cannot_place_the_gaps_is_refused_by_name() -> None:
    """Random gaps fit any count; choosing a one-gap-per-row placement is the user's error."""
    catalogue = _eight_gaps(_EightGapsAtRandom())
    assert not catalogue.problems
    engine = Engine.start(catalogue.rules("eight", {"redeals": "1"}), DealNumber(1))
    assert engine.redeal() is None and len(engine.gaps) == 8
    with pytest.raises(OptionError, match="last-column redeal leaves one gap in each row"
                       ) as caught:
        catalogue.rules("eight", {"redeal-placement": "last-column"})
    assert caught.value.key == "redeal-placement"
    assert catalogue.rules("eight", {"redeal-placement": "after-runs", "redeals": "0"})


def test_the_rules_cache_is_bounded(catalogue: Catalogue) -> None:
    """Clients choose option values, so the cache of built rules cannot grow without end."""
    from gapgrid.core.catalogue import RULES_CACHE_SIZE
    for count in range(RULES_CACHE_SIZE + 50):
        catalogue.rules("montana", {"redeals": count})
    assert len(catalogue._rules_cache) == RULES_CACHE_SIZE


ONE_REGISTER = """
    from gapgrid import hookimpl

    @hookimpl
    def gapgrid_register(registry):
        registry.add_variant(slug="first-of-two", name="First of two", base="montana")
    """

TWO_REGISTERS = ONE_REGISTER + """
    @hookimpl
    def gapgrid_register(registry):
        registry.add_variant(slug="second-of-two", name="Second of two", base="montana")
    """


def test_hooks_defined_twice_finds_a_redefinition_at_module_level_and_in_a_class() -> None:
    """Two defs of one hook in the module, or in one class body, are each named with lines."""
    source = textwrap.dedent(TWO_REGISTERS) + textwrap.dedent("""
        class Rules:
            @hookimpl
            def gapgrid_redeals(self):
                return 1

            @hookimpl
            def gapgrid_redeals(self):
                return 2
        """)
    found = hooks_defined_twice(source)
    assert len(found) == 2
    assert found[0].startswith("gapgrid_register is defined 2 times (lines 5, 9)")
    assert found[1].startswith("gapgrid_redeals is defined 2 times in class Rules")


@pytest.mark.parametrize("source", [
    # one definition per scope, the same hook in two classes
    "def gapgrid_register(registry): pass\n"
    "class A:\n    def gapgrid_redeals(self): return 1\n"
    "class B:\n    def gapgrid_redeals(self): return 2\n",
    # alternatives under a condition are not redefinitions
    "import sys\nif sys.version_info >= (3, 12):\n    def gapgrid_register(registry): pass\n"
    "else:\n    def gapgrid_register(registry): pass\n",
    # only hooks count
    "def helper(): pass\ndef helper(): pass\n",
])
def test_hooks_defined_twice_accepts_sound_modules(source: str) -> None:
    """Single definitions, conditional alternatives and non-hook functions raise nothing."""
    assert hooks_defined_twice(source) == []


def _module_from_file(path: Path, source: str) -> types.ModuleType:
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_third_party_module_defining_a_hook_twice_is_refused(tmp_path: Path) -> None:
    """Instead of silently losing the first gapgrid_register, the loader refuses the plugin."""
    module = _module_from_file(tmp_path / "twice.py", TWO_REGISTERS)
    catalogue = _with(LoadedPlugin("twice", module))
    assert [problem.plugin for problem in catalogue.problems] == ["twice"]
    assert "gapgrid_register is defined 2 times" in catalogue.problems[0].reason
    assert "first-of-two" not in catalogue.variants
    assert "second-of-two" not in catalogue.variants


def test_a_third_party_module_defining_each_hook_once_loads(tmp_path: Path) -> None:
    """The check passes a sound module read from its source file."""
    module = _module_from_file(tmp_path / "once.py", ONE_REGISTER)
    catalogue = _with(LoadedPlugin("once", module))
    assert catalogue.problems == ()
    assert "first-of-two" in catalogue.variants
