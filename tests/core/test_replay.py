"""Replay and undo: random legal games round-trip, and replay agrees with step-by-step play."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gapgrid import plugins
from gapgrid.core.dealnumber import parse_deal_number
from gapgrid.core.game import GameState, new_game
from gapgrid.core.notation import REDEAL, UNDO, Action, Move, parse_action
from gapgrid.core.replay import replay

# Built once: hypothesis runs the test body many times and the catalogue is read-only.
CATALOGUE = plugins.load_catalogue(entry_points=False, disabled=())
VARIANTS = sorted(CATALOGUE.slugs())
NUMBERS = st.one_of(st.integers(min_value=1, max_value=31999).map(str),
                    st.integers(min_value=32000, max_value=10**20).map(str),
                    st.integers(min_value=1, max_value=2**33 - 1).map(lambda n: f"ms{n}"))


def _play_randomly(data: st.DataObject, state: GameState, steps: int) -> tuple[GameState,
                                                                               list[Action]]:
    played: list[Action] = []
    for _ in range(steps):
        choices: list[Action] = list(state.legal_moves())
        if state.can_redeal():
            choices.append(REDEAL)
        if not choices:
            break
        action = data.draw(st.sampled_from(choices))
        state = state.apply(action)
        played.append(action)
    return state, played


@settings(max_examples=60, deadline=None)
@given(data=st.data(), variant=st.sampled_from(VARIANTS), number=NUMBERS,
       steps=st.integers(min_value=0, max_value=40))
def test_random_legal_game_and_its_undos_round_trip(data: st.DataObject, variant: str,
                                                    number: str, steps: int) -> None:
    """Undoing every action of a random legal game returns exactly to the deal, generator too."""
    start = new_game(CATALOGUE.rules(variant), parse_deal_number(number))
    end, played = _play_randomly(data, start, steps)
    assert end.actions() == played
    states = [start]
    for action in played:
        states.append(states[-1].apply(action))
    assert states[-1] == end
    state = end
    for expected in reversed(states[:-1]):
        state = state.apply(UNDO)
        assert state == expected
    assert state.board == start.board and state.rng_state == start.rng_state
    result = replay(CATALOGUE.rules(variant), parse_deal_number(number),
                    [*played, *[UNDO] * len(played)])
    assert result.ok and result.state == start


@settings(max_examples=40, deadline=None)
@given(data=st.data(), variant=st.sampled_from(VARIANTS), number=NUMBERS)
def test_replay_equals_step_by_step_play(data: st.DataObject, variant: str, number: str) -> None:
    """replay() of a sequence ends in the state that applying it one action at a time reaches."""
    rules, deal = CATALOGUE.rules(variant), parse_deal_number(number)
    end, played = _play_randomly(data, new_game(rules, deal), 30)
    result = replay(rules, deal, played)
    assert result.ok and result.applied == len(played)
    assert result.state == end
    assert result.moves_made == sum(isinstance(action, Move) for action in played)


def test_replay_stops_at_the_first_illegal_action() -> None:
    """The result names the index, the move and the reason, and keeps the state before it."""
    rules, deal = CATALOGUE.rules("montana"), parse_deal_number("27769")
    actions = [parse_action(text) for text in ["27-40", "redeal", "15-0", "0-3", "0-39"]]
    result = replay(rules, deal, actions)
    assert not result.ok
    assert result.applied == 3
    assert result.error is not None
    assert (result.error.index, result.error.move, result.error.kind) == (3, "0-3", "to-card")
    assert result.error.reason == "slot 3 is not a gap: it holds 2D"
    assert result.state == replay(rules, deal, actions[:3]).state
