"""docs/rules.md §3: round set-up — chips, the blind hand flip, and the first player."""

from __future__ import annotations

import random

import pytest

from sdk.engine import (
    FLIPS,
    Flip,
    FlipsRevealed,
    Game,
    IllegalAction,
    Phase,
    RoundStarted,
    Show,
    observe,
    public_view,
)

from .helpers import random_game, snapshot


@pytest.mark.parametrize("players", [3, 4, 5])
def test_3_three_to_five_players_start_with_no_chips_and_one_scout_and_show(players: int) -> None:
    game = Game(players, 1)
    assert game.chips == [0] * players
    assert game.scout_show == [True] * players


def test_3_two_players_start_each_round_with_three_chips_and_no_scout_and_show() -> None:
    game = Game(2, 1)
    assert game.chips == [3, 3] and game.scout_show == [False, False]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_3_every_round_resets_chips_and_scout_and_show(players: int) -> None:
    game = Game(players, 11)
    rng = random.Random(11)
    start_chips = 3 if players == 2 else 0
    rounds_seen = set()
    while not game.is_over:
        if game.phase is Phase.FLIP and game.round not in rounds_seen:
            rounds_seen.add(game.round)
            assert game.chips == [start_chips] * players
            assert game.scout_show == [players > 2] * players
            assert game.captured == [[] for _ in range(players)]
            assert game.active == [] and game.owner is None and game.round_actions == 0
        legal = game.legal_actions(game.awaiting[0])
        game.apply(game.awaiting[0], legal[rng.randrange(len(legal))])
    assert rounds_seen == set(range(players))


def test_3_flip_turns_every_card_and_keeps_the_order() -> None:
    """§3 Decision: flipping keeps the left-to-right order; top and bottom swap."""
    game = Game(4, 3)
    dealt = list(game.hands[2])
    game.apply(2, Flip(True))
    assert game.hands[2] == [c.turned() for c in dealt]
    assert [c.id for c in game.hands[2]] == [c.id for c in dealt]
    kept = list(game.hands[1])
    game.apply(1, Flip(False))
    assert game.hands[1] == kept


def test_3_each_seat_decides_once_in_any_order_before_the_first_turn() -> None:
    game = Game(3, 4)
    assert game.phase is Phase.FLIP
    for seat in range(3):
        assert set(game.legal_actions(seat)) == set(FLIPS) == {Flip(False), Flip(True)}
    game.apply(2, Flip(True))
    assert list(game.legal_actions(2)) == []
    before = snapshot(game)
    with pytest.raises(IllegalAction, match="already decided"):
        game.apply(2, Flip(False))
    with pytest.raises(IllegalAction, match="flip"):
        game.apply(0, Show(0, 1))  # no play before every seat has decided
    assert snapshot(game) == before
    game.apply(0, Flip(False))
    game.apply(1, Flip(True))
    assert game.phase is Phase.PLAY and game.flips == [False, True, True]
    with pytest.raises(IllegalAction, match="before the round's first turn"):
        game.apply(0, Flip(True))


def test_3_flip_decisions_are_blind_until_everyone_has_decided() -> None:
    """§3 Decision: seats decide blind; the decisions are revealed together (values stay hidden)."""
    flipped, kept = Game(3, 5), Game(3, 5)
    flipped.apply(0, Flip(True))
    kept.apply(0, Flip(False))
    for game in (flipped, kept):
        assert observe(game, 1).table.seats[0].flipped is None
        assert public_view(game).seats[0].flipped is None
        assert public_view(game).to_move is None
        assert not any(isinstance(e, FlipsRevealed) for e in public_view(game).history)
    assert observe(flipped, 0).table.seats[0].flipped is True  # a seat knows its own decision
    assert observe(kept, 0).table.seats[0].flipped is False
    # Seat 1 and seat 2 cannot tell the two games apart.
    for seat in (1, 2):
        assert observe(flipped, seat) == observe(kept, seat)
    for game in (flipped, kept):
        game.apply(2, Flip(True))
        game.apply(1, Flip(False))
    assert public_view(flipped).history[-1] == FlipsRevealed(0, (True, False, True))
    assert [v.flipped for v in observe(flipped, 1).table.seats] == [True, False, True]
    assert [v.flipped for v in observe(kept, 1).table.seats] == [False, False, True]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_3_round_r_is_started_by_seat_r(players: int) -> None:
    """§3 Decision: round r (0-based) is started by seat r, so every seat starts one round."""
    game = Game(players, 21)
    rng = random.Random(21)
    starters = []
    while not game.is_over:
        seat = game.awaiting[0]
        legal = game.legal_actions(seat)
        game.apply(seat, legal[rng.randrange(len(legal))])
        if game.phase is Phase.PLAY and game.round_actions == 0:
            assert game.to_move == game.round % players
            assert public_view(game).first_player == game.round
            starters.append(game.to_move)
    assert starters == list(range(players))
    started = [e for e in public_view(game).history if isinstance(e, RoundStarted)]
    assert [e.first_player for e in started] == list(range(players))


def test_3_flips_do_not_count_as_round_actions() -> None:
    game = random_game(4, 9, steps=4)
    assert game.phase is Phase.PLAY and game.round_actions == 0
