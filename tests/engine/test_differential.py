"""Differential tests: the engine's set strength and legal actions against a second, deliberately
simple implementation written from the words of docs/rules.md §4 (brute force over every contiguous
slice of the hand, every scout and every scout & show).
"""

from __future__ import annotations

import itertools
import random

import pytest

from sdk.engine import End, Game, Phase, Scout, ScoutShow, Show, set_key
from sdk.engine.cards import Card

from .helpers import random_game, table

# -- the reference, from the rules text ----------------------------------------------------------


def is_set(values: list[int]) -> bool:
    """§4.1: a single card, a group (same value), or a sequence (steps all +1 or all −1)."""
    if len(values) == 0:
        return False
    if len(values) == 1 or all(v == values[0] for v in values):
        return True
    steps = [b - a for a, b in itertools.pairwise(values)]
    return all(s == 1 for s in steps) or all(s == -1 for s in steps)


def is_group(values: list[int]) -> bool:
    return all(v == values[0] for v in values)  # a single card counts as a group of one


def beats(new: list[int], old: list[int]) -> bool:
    """§4.1 strength, step by step."""
    if len(new) != len(old):
        return len(new) > len(old)
    if is_group(new) != is_group(old):
        return is_group(new)
    return min(new) > min(old)


def reference_shows(values: list[int], active: list[int]) -> set[Show]:
    return {
        Show(start, end - start)
        for start in range(len(values))
        for end in range(start + 1, len(values) + 1)
        if is_set(values[start:end]) and (not active or beats(values[start:end], active))
    }


def reference_legal(game: Game) -> set[object]:
    """Every legal play action for the player to move, by brute force (docs/rules.md §4, §5)."""
    seat = game.to_move
    hand = [c.top for c in game.hands[seat]]
    active = list(game.active)
    tops_ = [c.top for c in active]
    legal: set[object] = set(reference_shows(hand, tops_))
    two_player = game.players == 2
    if not active or (two_player and game.chips[seat] == 0):
        return legal
    ends = [End.LEFT] if len(active) == 1 else [End.LEFT, End.RIGHT]
    for end in ends:
        taken = active[0] if end is End.LEFT else active[-1]
        rest = [c.top for c in (active[1:] if end is End.LEFT else active[:-1])]
        for flip in (False, True):
            value = taken.bottom if flip else taken.top
            for position in range(len(hand) + 1):
                scout = Scout(end, flip, position)
                legal.add(scout)
                if not two_player and game.scout_show[seat]:
                    after = [*hand[:position], value, *hand[position:]]
                    legal.update(ScoutShow(scout, s) for s in reference_shows(after, rest))
    return legal


def check_state(game: Game, rng: random.Random, full_membership: bool) -> None:
    """The engine's legal actions equal the reference's, without duplicates, and the returned
    sequence answers len, indexing, iteration and `in` consistently."""
    legal = game.legal_actions()
    listed = list(legal)
    assert len(legal) == len(listed) == len(set(listed)), "duplicate or miscounted actions"
    assert set(listed) == reference_legal(game)
    if listed:
        for i in {0, len(listed) - 1, rng.randrange(len(listed))}:
            assert legal[i] == listed[i]
        assert legal[-1] == listed[-1]
    for action in rng.sample(listed, min(25, len(listed))):
        assert action in legal
    if full_membership:
        # Everything in a bounded universe around the hand: `in` agrees with the reference.
        n = len(game.hands[game.to_move])
        expected = set(listed)
        universe: list[object] = [Show(s, k) for s in range(-1, n + 2) for k in range(0, n + 3)]
        universe += [Scout(e, f, p) for e in End for f in (False, True) for p in range(-1, n + 3)]
        shows = rng.sample(universe[: (n + 3) * (n + 3)], 12)
        universe += [ScoutShow(s, sh) for s in universe[len(universe) - 4 * (n + 4) :] for sh in shows]
        for action in universe:
            assert (action in legal) == (action in expected), action


# -- set strength --------------------------------------------------------------------------------


def test_4_1_set_key_agrees_with_the_rules_text_on_every_short_run() -> None:
    for length in range(1, 5):
        for values in itertools.product(range(1, 11), repeat=length):
            assert (set_key(values) is not None) == is_set(list(values)), values


def test_4_1_strength_order_agrees_with_the_rules_text_for_every_pair_of_sets() -> None:
    sets = []
    for length in range(1, 11):
        sets += [[v] * length for v in range(1, 11)]
        if length > 1:
            ups = [list(range(lo, lo + length)) for lo in range(1, 12 - length)]
            sets += ups + [u[::-1] for u in ups]
    assert len(sets) == 190
    for new, old in itertools.product(sets, repeat=2):
        assert (set_key(new) > set_key(old)) == beats(new, old), (new, old)  # type: ignore[operator]


# -- legal actions on random states --------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_4_legal_actions_match_brute_force_on_random_games(players: int) -> None:
    rng = random.Random(players)
    states = 0
    for seed in range(12 if players > 2 else 40):
        game = Game(players, seed)
        while not game.is_over and states < 1500:
            if game.phase is Phase.PLAY:
                check_state(game, rng, full_membership=states % 17 == 0)
                states += 1
            seat = game.awaiting[0]
            legal = game.legal_actions(seat)
            game.apply(seat, legal[rng.randrange(len(legal))])
    assert states >= 400


def crowded_table(rng: random.Random) -> Game:
    """3 or 4 players holding only cards numbered 1..7 in random orientations: many groups and
    sequences, so many shows and scout & shows."""
    players = rng.choice([3, 4])
    deck = [Card(a, b) for a in range(1, 8) for b in range(a + 1, 8)]
    rng.shuffle(deck)
    deck = [c.turned() if rng.random() < 0.5 else c for c in deck]
    sizes = [rng.randint(3, 21 // players) for _ in range(players)]
    hands, at = [], 0
    for size in sizes:
        hands.append(" ".join(f"{c.top}/{c.bottom}" for c in deck[at : at + size]))
        at += size
    return table(players, hands, to_move=rng.randrange(players))


def test_4_legal_actions_match_brute_force_on_crowded_hands() -> None:
    rng = random.Random(2024)
    states = 0
    for _ in range(150):
        game = crowded_table(rng)
        while game.round == 0:
            check_state(game, rng, full_membership=states % 7 == 0)
            states += 1
            legal = game.legal_actions()
            game.apply(game.to_move, legal[rng.randrange(len(legal))])
    assert states >= 500


def test_4_legal_actions_match_brute_force_late_in_long_games() -> None:
    """States deep into long rounds (big hands after many scouts)."""
    rng = random.Random(5)
    for seed in range(3):
        game = random_game(5, seed, steps=300)
        for _ in range(60):
            if game.is_over:
                break
            if game.phase is Phase.PLAY:
                check_state(game, rng, full_membership=False)
            legal = game.legal_actions(game.awaiting[0])
            game.apply(game.awaiting[0], legal[rng.randrange(len(legal))])
