"""The solver's evaluation: nearer a win scores higher, for cards that jump and cards that slide."""

from __future__ import annotations

from gapgrid.core.cards import CARDS_PER_DECK, RANKS_PER_SUIT, make_card, rank_of, suit_of
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.evaluation import PAIR, STEP, evaluation_for, final_columns
from gapgrid.core.game import Engine
from gapgrid.core.rules import Rules


def _won_cells(rules: Rules) -> list[int | None]:
    """A won board: row r holds suit r's sequence from column 0, gaps after it."""
    layout = rules.layout
    cells: list[int | None] = []
    for row in range(layout.rows):
        suit = row % 4
        sequence = [suit * RANKS_PER_SUIT + rank for rank in layout.sequence_ranks]
        cells += sequence + [None] * (layout.rstep - len(sequence))
    return cells


def _engine(rules: Rules, cells: list[int | None]) -> Engine:
    deal = DealNumber(1)
    return Engine(rules, deal, cells, 0, deal.new_random().getstate())


def test_final_columns_follow_the_sequence(catalogue: Catalogue) -> None:
    """A card's final column is its rank's place in the sequence; set-aside ranks have none."""
    layout = catalogue.rules("montana").layout
    columns = final_columns(layout)
    assert columns[1] == 0 and columns[12] == 11  # 2 of the first suit heads, King ends
    assert columns[0] == -1  # Aces are set aside in Montana


def test_a_sliding_card_costs_a_step_for_each_slot_from_home(catalogue: Catalogue) -> None:
    """Rovers: sliding a card one slot out of its place costs one step; two cards of a row
    swapped cost their distances and a conflict (one of them has to step aside)."""
    rules = catalogue.rules("rectangular-rovers")
    evaluate, _ = evaluation_for(rules)
    won = _won_cells(rules)
    one_out = list(won)
    one_out[5], one_out[4] = one_out[4], None  # the row's last card slides into the gap
    swapped = list(won)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    home = evaluate(_engine(rules, won))
    assert home - evaluate(_engine(rules, one_out)) >= STEP
    assert home - evaluate(_engine(rules, swapped)) >= 4 * STEP


def test_rows_go_to_whichever_suit_is_nearest(catalogue: Catalogue) -> None:
    """Rovers: a won board with its rows in another order is as good as won (any row, any suit)."""
    rules = catalogue.rules("rectangular-rovers")
    evaluate, _ = evaluation_for(rules)
    won = _won_cells(rules)
    step = rules.layout.rstep
    reordered = won[step:2 * step] + won[:step] + won[2 * step:]
    assert evaluate(_engine(rules, reordered)) == evaluate(_engine(rules, won))


def test_a_card_out_of_its_run_lowers_the_score(catalogue: Catalogue) -> None:
    """Montana: a card taken out of its run lowers the score."""
    rules = catalogue.rules("montana", {"redeals": "0"})
    evaluate, _ = evaluation_for(rules)
    won = _won_cells(rules)
    step = rules.layout.rstep
    out_of_run = list(won)
    out_of_run[step - 2], out_of_run[step - 1] = None, won[step - 2]  # a King leaves its run
    assert evaluate(_engine(rules, won)) > evaluate(_engine(rules, out_of_run))


def test_cards_side_by_side_count_as_a_pair_only_within_a_row(catalogue: Catalogue) -> None:
    """Montana: the 5 and 6 of a suit side by side in a row score a pair; the same two
    cards at the end of one row and the start of the next score none."""
    rules = catalogue.rules("montana", {"redeals": "0"})
    evaluate, _ = evaluation_for(rules)
    five, six, king = make_card(4, 2), make_card(5, 2), make_card(12, 0)
    # Every other card in falling rank, so that no two others make a pair.
    others = sorted((card for card in range(CARDS_PER_DECK)
                     if rank_of(card) >= rules.layout.rbase and card not in (five, six, king)),
                    key=lambda card: (-rank_of(card), suit_of(card)))
    gaps = (20, 30, 40, 50)  # each right of a card that has a follower: no dead gap
    end = rules.layout.rstep - 1  # the last slot of row 0; row 1 starts at end + 1

    def board(cards_at: dict[int, int]) -> list[int | None]:
        rest = iter(others)
        return [cards_at[slot] if slot in cards_at else None if slot in gaps else next(rest)
                for slot in range(rules.layout.rlen)]

    in_one_row = board({end - 1: five, end: six, end + 1: king})
    across_rows = board({end - 1: king, end: five, end + 1: six})
    assert (evaluate(_engine(rules, in_one_row)) - evaluate(_engine(rules, across_rows))
            == PAIR)
