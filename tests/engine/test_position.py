"""Games built from a position (`Game.from_position`), `Game.copy`, and legal actions computed from
an observation alone (`legal_actions_for`): the engine API search bots and the SDK build on."""

from __future__ import annotations

import random

import pytest

from sdk.engine import (
    Card,
    End,
    Flip,
    Game,
    Phase,
    Position,
    Scout,
    ScoutShow,
    Show,
    legal_actions_for,
    observe,
    record_of,
)

from .helpers import cards, random_game, state_of


def position_of(game: Game, **changes: object) -> Position:
    """The position `game` is in, read from its documented attributes."""
    fields: dict[str, object] = dict(
        hands=game.hands,
        round=game.round,
        phase=game.phase,
        to_move=game.to_move,
        active=game.active,
        owner=game.owner,
        captured=game.captured,
        chips=game.chips,
        scout_show=game.scout_show,
        flips=game.flips,
        round_actions=game.round_actions,
        totals=game.totals,
    )
    fields.update(changes)
    return Position(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_game_rebuilt_from_its_position_has_its_state_and_legal_actions(players: int) -> None:
    for seed in range(4):
        game = random_game(players, seed, steps=8 + 5 * seed)
        if game.is_over:
            continue
        rebuilt = Game.from_position(position_of(game))
        results = -2  # a position has no past rounds (`results`), only their `totals`
        assert state_of(rebuilt)[:results] == state_of(game)[:results] and rebuilt.totals == game.totals
        assert rebuilt.active_key == game.active_key
        assert list(rebuilt.legal_actions()) == list(game.legal_actions())


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_rebuilt_game_plays_its_round_as_the_original_does(players: int) -> None:
    game = random_game(players, 11, steps=6)
    rebuilt = Game.from_position(position_of(game, rounds=game.round + 1))
    rng = random.Random(3)
    while not rebuilt.is_over:
        actions = game.legal_actions()
        assert list(rebuilt.legal_actions()) == list(actions)
        action = actions[rng.randrange(len(actions))]
        seat = game.awaiting[0]
        game.apply(seat, action)
        rebuilt.apply(seat, action)
    assert rebuilt.results[-1] == game.results[-1]


def test_the_defaults_are_a_fresh_round_and_later_rounds_are_dealt_from_the_seed() -> None:
    hands = [cards("1/2 2/4"), cards("5/6 2/3"), cards("7/8 1/3")]
    game = Game.from_position(Position(hands=hands, round=1, seed=9))
    assert game.to_move == 1, "docs/rules.md §3: round 1 is started by seat 1"
    assert game.chips == [0, 0, 0] and game.scout_show == [True] * 3 and game.flips == [False] * 3
    assert game.active == [] and game.owner is None and game.totals == [0, 0, 0]
    assert game.results == [] and game.events == [] and game.log == []
    game.apply(1, Show(0, 1))
    game.apply(2, Scout(End.LEFT, False, 0))
    assert game.round == 1 and game.to_move == 0 and game.chips == [0, 1, 0]
    game.apply(0, Show(0, 2))
    assert game.round == 2 and game.phase is Phase.FLIP
    assert [len(h) for h in game.hands] == [12, 12, 12], "round 2 is a full deal of a 3-player table"


def test_a_flip_phase_position_waits_for_the_undecided_seats() -> None:
    hands = [cards("1/2"), cards("3/4"), cards("5/6")]
    game = Game.from_position(Position(hands=hands, phase=Phase.FLIP, flips=[True, None, None], rounds=1))
    assert game.awaiting == (1, 2)
    game.apply(1, Flip(True))
    game.apply(2, Flip(False))
    assert game.phase is Phase.PLAY and game.hands[1] == [Card(4, 3)] and game.to_move == 0


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"chips": [0, 0]}, "chips has 2 entries for 3 seats"),
        ({"to_move": 3}, "no seat 3"),
        ({"round": 3}, "round 3 is outside 0..2"),
        ({"rounds": 1, "round": 1}, "lasts 2..3 rounds"),
        ({"phase": Phase.OVER}, "FLIP or PLAY"),
        ({"phase": Phase.FLIP, "flips": [True, True, False]}, "a seat that has not decided"),
        ({"flips": [True, None, False]}, "every seat has decided"),
    ],
)
def test_a_position_that_cannot_be_is_refused_with_the_reason(changes: dict[str, object], message: str) -> None:
    base: dict[str, object] = {"hands": [cards("1/2"), cards("3/4"), cards("5/6")]}
    with pytest.raises(ValueError, match=message):
        Game.from_position(Position(**{**base, **changes}))  # type: ignore[arg-type]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_copy_plays_on_exactly_as_the_original_later_deals_included(players: int) -> None:
    game = random_game(players, 21, steps=5)
    copy = game.copy()
    rng = random.Random(5)
    while not game.is_over:
        seat = game.awaiting[0]
        actions = game.legal_actions(seat)
        action = actions[rng.randrange(len(actions))]
        game.apply(seat, action)
        copy.apply(seat, action)
    assert record_of(copy) == record_of(game)


def test_playing_a_copy_leaves_the_original_as_it_was() -> None:
    game = random_game(4, 2, steps=20)
    before = state_of(game)
    events, log = list(game.events), list(game.log)
    copy = game.copy()
    while not copy.is_over:
        seat = copy.awaiting[0]
        copy.apply(seat, copy.legal_actions(seat)[0])
    assert state_of(game) == before and game.events == events and game.log == log


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_legal_actions_from_an_observation_are_the_referees(players: int) -> None:
    for seed in range(3):
        game, rng = Game(players, seed), random.Random(seed)
        while not game.is_over:
            for seat in range(players):
                assert list(legal_actions_for(observe(game, seat))) == list(game.legal_actions(seat))
            seat = game.awaiting[0]
            actions = game.legal_actions(seat)
            game.apply(seat, actions[rng.randrange(len(actions))])


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_scout_and_show_is_found_by_its_index(players: int) -> None:
    checked = 0
    for seed in range(8):
        game, rng = Game(players, seed), random.Random(seed)
        while not game.is_over:
            actions = game.legal_actions()
            listed = list(actions)
            if any(type(a) is ScoutShow for a in listed):
                assert [actions[i] for i in range(len(actions))] == listed
                checked += 1
            game.apply(game.awaiting[0], listed[rng.randrange(len(listed))])
    assert checked > 10
