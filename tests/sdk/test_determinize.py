"""Fast game copies and determinisation (sdk.engine.determinize), checked on played-out games."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from bots import GreedyBot
from sdk.engine import Flip, Game, Observation, Phase, observe
from sdk.engine.determinize import Determinizer, copy_game


def positions(players: int, seed: int) -> Iterator[tuple[Game, Observation]]:
    """Every PLAY-phase decision of a game where greedy and random moves alternate by chance."""
    game = Game(players, seed)
    rng = random.Random(seed)
    greedy = GreedyBot()
    while not game.is_over:
        seat = game.awaiting[0]
        if game.phase is Phase.FLIP:
            game.apply(seat, Flip(rng.random() < 0.5))
            continue
        obs = observe(game, seat)
        yield game, obs
        legal = obs.legal_actions
        game.apply(seat, greedy.choose(obs) if rng.random() < 0.7 else legal[rng.randrange(len(legal))])


def hidden_slots(game: Game, obs: Observation) -> set[tuple[int, int]]:
    """(seat, index) of every card in another hand that was never seen in public this round."""
    return {
        (seat, i)
        for seat, known in enumerate(Determinizer(obs).known_hands)
        if seat != obs.seat
        for i, card in enumerate(known)
        if card is None
    }


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_samples_agree_with_everything_the_seat_may_know(players: int) -> None:
    rng = random.Random(players)
    for seed in range(4):
        for game, obs in positions(players, seed):
            sample = Determinizer(obs).sample(rng)
            hidden = hidden_slots(game, obs)
            assert sample.hands[obs.seat] == game.hands[obs.seat]
            for seat, hand in enumerate(game.hands):
                assert len(sample.hands[seat]) == len(hand)
                for i, card in enumerate(hand):
                    if (seat, i) not in hidden:
                        assert sample.hands[seat][i] == card, "a publicly seen card moved"
            assert sample.active == game.active and sample.owner == game.owner
            assert [len(c) for c in sample.captured] == [len(c) for c in game.captured]
            assert (sample.chips, sample.scout_show, sample.totals) == (game.chips, game.scout_show, game.totals)
            assert sample.legal_actions() == game.legal_actions()
            cards = [c.id for h in sample.hands for c in h] + [c.id for c in sample.active]
            cards += [c.id for pile in sample.captured for c in pile]
            assert len(cards) == len(set(cards)), "a card was dealt twice"
            assert set(cards) <= {c.id for c in game.rules.deck}


def test_known_hands_hold_exactly_the_cards_seen_in_public() -> None:
    scouted_into_other_hands = 0
    for game, obs in positions(4, 6):
        known = Determinizer(obs).known_hands
        assert known[obs.seat] == tuple(obs.hand)
        for seat, hand in enumerate(known):
            assert all(card is None or card == game.hands[seat][i] for i, card in enumerate(hand))
            scouted_into_other_hands += seat != obs.seat and any(card is not None for card in hand)
    assert scouted_into_other_hands > 0


def test_hidden_cards_are_drawn_only_from_cards_the_seat_has_not_seen() -> None:
    rng = random.Random(0)
    for game, obs in positions(3, 1):
        hidden = hidden_slots(game, obs)
        seen = {c.id for c in obs.hand} | {c.id for c in obs.table.active_set}
        for _ in range(3):
            sample = Determinizer(obs).sample(rng)
            assert not {sample.hands[s][i].id for s, i in hidden} & seen


def test_the_hidden_cards_vary_between_samples() -> None:
    game, obs = next(positions(4, 2))
    worlds = Determinizer(obs)
    rng = random.Random(0)
    assert len({tuple(map(tuple, worlds.sample(rng).hands)) for _ in range(5)}) == 5


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_sample_ends_with_the_current_round(players: int) -> None:
    rng = random.Random(1)
    for _, obs in positions(players, 3):
        sample = Determinizer(obs).sample(rng)
        while not sample.is_over:
            legal = sample.legal_actions()
            sample.apply(sample.to_move, legal[rng.randrange(len(legal))])
        assert [r.round for r in sample.results] == [obs.table.round]


def test_determinising_needs_the_play_phase() -> None:
    with pytest.raises(ValueError, match="PLAY phase"):
        Determinizer(observe(Game(3, 0), 0))


def test_copy_game_copies_every_slot_and_shares_nothing_mutable() -> None:
    game, _ = next(positions(4, 5))
    copy = copy_game(game)
    for name in Game.__slots__:
        assert getattr(copy, name) == getattr(game, name) or name == "_rng", name
    assert copy._rng.next() == game._rng.next()
    before = [list(h) for h in game.hands]
    while not copy.is_over:
        seat = copy.awaiting[0]
        copy.apply(seat, copy.legal_actions(seat)[0])
    assert game.hands == before and not game.is_over
