"""Every registered variant and preset (third-party ones included) deals, plays and wins.

Parametrised over the whole catalogue, so a newly registered variant is
checked without writing a test for it.
"""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from gapgrid import plugins
from gapgrid.api.cli import main
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import new_game
from gapgrid.core.notation import REDEAL, Action
from gapgrid.core.replay import replay
from tests.boards import position, solved_text

SLUGS = plugins.load_catalogue(disabled=()).slugs()


@pytest.fixture
def full_catalogue() -> plugins.Catalogue:
    """Built-in and installed third-party plugins, fresh for each test."""
    return plugins.load_catalogue(disabled=())


@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("number", ["617", "12345678901234567890"])
def test_deal_and_random_legal_play(full_catalogue: plugins.Catalogue, slug: str,
                                    number: str) -> None:
    """The deal leaves one gap per row; every listed move is legal; replay agrees with play."""
    rules = full_catalogue.rules(slug)
    deal = parse_deal_number(number)
    state = new_game(rules, deal)
    assert len(state.board.gaps()) == rules.layout.rows
    chooser = random.Random(f"{slug}-{number}")
    played: list[Action] = []
    for _ in range(40):
        options: list[Action] = list(state.legal_moves())
        if state.can_redeal() and chooser.random() < 0.1:
            options = [REDEAL]
        if not options:
            break
        action = chooser.choice(options)
        state = state.apply(action)
        played.append(action)
    result = replay(rules, deal, played)
    assert result.ok and result.state == state


@pytest.mark.parametrize("slug", SLUGS)
def test_solved_board_is_won_and_a_swap_is_not(full_catalogue: plugins.Catalogue,
                                               slug: str) -> None:
    """Rows in sequence win; swapping two cards of a row spoils it."""
    rules = full_catalogue.rules(slug)
    solved = solved_text(rules.layout)
    assert position(rules, solved).is_won
    first_row = solved.splitlines()[0].split()
    first_row[1], first_row[2] = first_row[2], first_row[1]
    spoilt = "\n".join([" ".join(first_row), *solved.splitlines()[1:]])
    assert not position(rules, spoilt).is_won


@pytest.mark.parametrize("slug", SLUGS)
def test_command_line_deals_and_verifies(full_catalogue: plugins.Catalogue, slug: str) -> None:
    """`gapgrid deal` and `gapgrid verify` work for every variant and preset."""
    runner = CliRunner()
    dealt = runner.invoke(main, ["deal", slug, "617", "--json"])
    assert dealt.exit_code == 0, dealt.output
    rows = json.loads(dealt.output)["rows"]
    state = new_game(full_catalogue.rules(slug), parse_deal_number("617"))
    assert rows == state.board.to_rows()
    moves = [str(move) for move in state.legal_moves()[:1]]
    verified = runner.invoke(main, ["verify", slug, "617", *moves, "--json"])
    assert verified.exit_code == 0, verified.output
    assert json.loads(verified.output)["moves_applied"] == len(moves)


@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("option", ["redeals=unlimited", "redeals=0", "redeal-placement=random",
                                    "redeal-placement=no-shuffle", "redeal-when=stuck"])
def test_every_accepted_option_works(full_catalogue: plugins.Catalogue, slug: str,
                                     option: str) -> None:
    """Each option a variant accepts can be applied; one it does not accept is refused."""
    key, value = option.split("=")
    entry = full_catalogue.variant_of(full_catalogue.lookup(slug))
    result = CliRunner().invoke(main, ["deal", slug, "5", "--option", option, "--json"])
    if key in entry.options:
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["options"][key] == value
    else:
        assert result.exit_code == 2 and "has no option" in result.output
