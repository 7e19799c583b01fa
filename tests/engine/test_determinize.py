"""Game copies and determinisation (`Game.copy`, `sdk.engine.Determinizer`), checked on played-out games."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from bots import GreedyBot
from sdk.engine import Card, Determinizer, Flip, Game, Observation, Phase, observe


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
    _, obs = next(positions(4, 2))
    worlds = Determinizer(obs)
    rng = random.Random(0)
    assert len({tuple(map(tuple, worlds.sample(rng).hands)) for _ in range(5)}) == 5


def test_every_unseen_card_is_as_likely_in_every_hidden_slot_and_either_way_up() -> None:
    """docs/rules.md §9: nothing but the public record narrows the hidden hands, so a sample must
    not favour a card, a slot or a side (a biased shuffle would skew every search)."""
    game, obs = next(positions(4, 2))
    worlds = Determinizer(obs)
    rng = random.Random(3)
    slots = sorted(hidden_slots(game, obs))
    unseen = sorted({game.hands[s][i].id for s, i in slots})
    assert len(unseen) == len(slots) > 20
    draws = 4000
    where = {(slot, card): 0 for slot in slots for card in unseen}
    turned = 0
    for _ in range(draws):
        sample = worlds.sample(rng)
        for seat, i in slots:
            card = sample.hands[seat][i]
            where[(seat, i), card.id] += 1
            turned += card != Card(*card.id)
    expected = draws / len(unseen)
    assert all(0.5 * expected < n < 1.6 * expected for n in where.values()), "a card favours a slot"
    assert abs(turned / (draws * len(slots)) - 0.5) < 0.01, "a side is favoured"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_sample_ends_with_the_current_round(players: int) -> None:
    rng = random.Random(1)
    for _, obs in positions(players, 3):
        sample = Determinizer(obs).sample(rng)
        while not sample.is_over:
            legal = sample.legal_actions()
            sample.apply(sample.to_move, legal[rng.randrange(len(legal))])
        assert [r.round for r in sample.results] == [obs.table.round]


def test_determinising_needs_a_game_that_is_not_over() -> None:
    game = Game(2, 0)
    while not game.is_over:
        game.apply(game.awaiting[0], game.legal_actions()[0])
    with pytest.raises(ValueError, match="not a finished game"):
        Determinizer(observe(game, 0))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_flip_phase_sample_waits_for_every_seat_but_one_that_has_decided(players: int) -> None:
    """docs/rules.md §3: flips are blind, so seat 1 knows its own decision and nobody else's."""
    game = Game(players, 3)
    if players > 2:
        game.apply(0, Flip(True))
    game.apply(1, Flip(False))
    sample = Determinizer(observe(game, 1)).sample(random.Random(0))
    assert sample.phase is Phase.FLIP
    assert sample.awaiting == tuple(s for s in range(players) if s != 1)
    assert sample.hands[1] == game.hands[1]
    ids = [c.id for h in sample.hands for c in h]
    assert len(set(ids)) == len(ids) == players * game.rules.hand_size
    assert set(ids) <= {c.id for c in game.rules.deck}
    for seat in sample.awaiting:
        sample.apply(seat, Flip(False))
    assert sample.phase is Phase.PLAY and sample.to_move == 0


def test_copy_copies_every_slot_and_shares_nothing_mutable() -> None:
    game, _ = next(positions(4, 5))
    copy = game.copy()
    for name in Game.__slots__:
        if name != "_rng":
            assert getattr(copy, name) == getattr(game, name), name
            if isinstance(getattr(game, name), list) and name != "_stock":
                assert getattr(copy, name) is not getattr(game, name), name
    for original, copied in zip(game.hands + game.captured, copy.hands + copy.captured, strict=True):
        assert copied is not original
    before = [list(h) for h in game.hands]
    while not copy.is_over:
        seat = copy.awaiting[0]
        copy.apply(seat, copy.legal_actions(seat)[0])
    assert game.hands == before and not game.is_over
