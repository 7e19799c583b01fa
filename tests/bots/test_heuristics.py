"""The random and greedy example bots: their building blocks and their strength."""

from __future__ import annotations

import itertools
import random

import pytest

from bots import GreedyBot, RandomBot
from bots.greedy import action_score, greedy_split, hand_value, min_sets, prefer_flip
from sdk import Scout, ScoutShow, Show
from sdk.engine import Card, End
from sdk.local import play_game, play_match


@pytest.mark.parametrize(
    ("tops", "sets"),
    [
        ((), 0),
        ((7,), 1),
        ((3, 4, 5), 1),
        ((5, 4, 3), 1),
        ((2, 2, 2, 2), 1),
        ((1, 3, 5), 3),
        ((9, 3, 9), 3),  # docs/rules.md §10: the 9s are not adjacent
        ((5, 5, 4, 3), 2),  # 5 | 5-4-3 or 5-5 | 4-3
        ((1, 2, 2, 3), 2),
        ((3, 4, 4, 5, 6), 2),
    ],
)
def test_min_sets_counts_the_fewest_sets_that_empty_the_hand(tops: tuple[int, ...], sets: int) -> None:
    assert min_sets(tops) == sets


def test_a_hand_is_worth_more_with_fewer_cards_and_fewer_sets() -> None:
    assert hand_value((3, 4, 5)) > hand_value((3, 5, 4))
    assert hand_value((3, 4)) > hand_value((3, 4, 9))


def test_showing_a_whole_run_beats_breaking_it() -> None:
    tops = (2, 3, 4, 9)
    assert action_score(tops, [], Show(0, 3)) > action_score(tops, [], Show(1, 1))


def test_a_scout_into_a_run_beats_a_scout_beside_nothing() -> None:
    tops = (2, 3, 8)
    active = [Card(4, 1)]
    assert action_score(tops, active, Scout(End.LEFT, False, 2)) > action_score(tops, active, Scout(End.LEFT, False, 3))
    assert action_score(tops, active, ScoutShow(Scout(End.LEFT, False, 2), Show(0, 3))) > action_score(
        tops, active, Scout(End.LEFT, False, 2)
    )


def test_the_flip_goes_to_the_better_shaped_side() -> None:
    hand = [Card(1, 5), Card(9, 6), Card(3, 7)]
    assert prefer_flip(hand) and not prefer_flip([c.turned() for c in hand])


def test_a_seeded_random_bot_repeats_itself() -> None:
    def record() -> object:
        return play_game([RandomBot(seed=4), RandomBot(seed=5), RandomBot(seed=6)], seed=2).record

    assert record() == record()
    assert record() != play_game([RandomBot(seed=7), RandomBot(seed=5), RandomBot(seed=6)], seed=2).record


@pytest.mark.parametrize("players", [3, 4])
def test_greedy_clearly_beats_random(players: int) -> None:
    """Measured: greedy won 100 of 100 games at each table size (benchmarks/bots_strength.py)."""
    bots = [GreedyBot()] + [RandomBot(seed=s) for s in range(players - 1)]
    greedy, *randoms = play_match(bots, games=60, seed=1000).summary()
    assert greedy.win_rate >= 0.9
    assert greedy.mean_placing <= 1.2
    assert all(greedy.mean_points > r.mean_points + 20 for r in randoms)


def fewest_sets_exhaustively(tops: tuple[int, ...]) -> int:
    """Every way to cut the hand into contiguous pieces, keeping those whose pieces are all sets."""
    from sdk.engine import set_key

    n = len(tops)
    best = n
    for cuts in range(1 << max(n - 1, 0)):
        bounds = [0] + [i + 1 for i in range(n - 1) if cuts >> i & 1] + [n]
        pieces = [tops[a:b] for a, b in itertools.pairwise(bounds)]
        if all(set_key(p) is not None for p in pieces):
            best = min(best, len(pieces))
    return best


def test_min_sets_agrees_with_an_exhaustive_split() -> None:
    rng = random.Random(4)
    for _ in range(400):
        tops = tuple(rng.randint(1, 6) for _ in range(rng.randint(0, 10)))
        assert min_sets(tops) == fewest_sets_exhaustively(tops), tops


def left_split(tops: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The split `min_sets` describes, spelled out: the longest set from the left, again and again."""
    from sdk.engine import set_key

    pieces = []
    i = 0
    while i < len(tops):
        j = max(k for k in range(i + 1, len(tops) + 1) if set_key(tops[i:k]) is not None)
        pieces.append(tops[i:j])
        i = j
    return pieces


@pytest.mark.parametrize(
    ("tops", "split"),
    [
        ((), (0, 0)),
        ((7,), (1, 1)),
        ((3, 4, 5, 5), (2, 3)),
        ((1, 2, 2, 2), (2, 2)),  # 1-2 | 2-2: the hand's longest set, 2-2-2, is not in the split
        ((9, 3, 9), (3, 1)),
    ],
)
def test_greedy_split_counts_the_sets_of_the_left_split_and_its_longest(
    tops: tuple[int, ...], split: tuple[int, int]
) -> None:
    assert greedy_split(tops) == split


def test_greedy_split_agrees_with_the_split_spelled_out() -> None:
    rng = random.Random(5)
    for _ in range(400):
        tops = tuple(rng.randint(1, 6) for _ in range(rng.randint(0, 12)))
        pieces = left_split(tops)
        assert greedy_split(tops) == (len(pieces), max(map(len, pieces), default=0)), tops
