"""Schedule properties (DESIGN.md Tournaments; issue 4): pair and seat balance, both seat orders at
2 seats, fresh cyclic orders, determinism. Pure: no database."""

from __future__ import annotations

import doctest
import math
from collections import Counter
from functools import cache
from itertools import permutations

import pytest

import arena.schedule
from arena.errors import InvalidSetting, NotEnoughEntrants
from arena.schedule import Schedule, game_seed, round_robin

CASES = [(k, n) for k in range(2, 6) for n in range(2, 13) if n >= k]


def names(n: int) -> list[str]:
    return [f"bot{i:02d}" for i in range(n)]


@cache
def scheduled(table_size: int, entrants: int, seed: int) -> Schedule:
    """Schedules are pure, so tests of different properties share them."""
    return round_robin(names(entrants), table_size, seed)


def successors(schedule: Schedule) -> Counter[tuple[str, str]]:
    """How often b sits right after a (clockwise), over all tables."""
    k = schedule.table_size
    return Counter((t.seats[s], t.seats[(s + 1) % k]) for t in schedule.tables for s in range(k))


@pytest.mark.parametrize(("table_size", "entrants"), CASES)
@pytest.mark.parametrize("seed", [0, 1])
def test_every_pair_meets_a_near_equal_number_of_times(table_size: int, entrants: int, seed: int) -> None:
    schedule = scheduled(table_size, entrants, seed)
    counts = schedule.pair_counts().values()
    assert min(counts) >= 1
    assert max(counts) - min(counts) <= 1


@pytest.mark.parametrize(("table_size", "entrants"), CASES)
@pytest.mark.parametrize("seed", [0, 1])
def test_every_entrant_sits_in_every_seat_equally_often(table_size: int, entrants: int, seed: int) -> None:
    schedule = scheduled(table_size, entrants, seed)
    assert all(len(t.seats) == len(set(t.seats)) == table_size for t in schedule.tables)
    seat_counts = set(schedule.seat_counts().values())
    assert len(seat_counts) == 1
    (counts,) = seat_counts
    assert len(set(counts)) == 1 and counts[0] >= 1


@pytest.mark.parametrize("entrants", range(2, 13))
def test_two_seats_play_every_pair_in_both_seat_orders(entrants: int) -> None:
    schedule = round_robin(names(entrants), 2, seed=3)
    orders = [t.seats for t in schedule.tables]
    assert sorted(orders) == sorted(permutations(names(entrants), 2))


@pytest.mark.parametrize(("table_size", "entrants"), [c for c in CASES if c[0] >= 3 and c != (3, 3)])
def test_tables_get_fresh_cyclic_orders(table_size: int, entrants: int) -> None:
    """FACTS.md: the same neighbours every time doubles the spread of points. Nobody follows the
    same player much more often than an even spread over the tables they share would give."""
    schedule = scheduled(table_size, entrants, 1)
    pairs = schedule.pair_counts()
    for (a, b), count in successors(schedule).items():
        shared = pairs[min(a, b), max(a, b)]
        assert count <= math.ceil(shared / (table_size - 1)) + 1, (a, b, count, shared)


def test_four_players_at_four_seats_do_not_keep_one_cyclic_order() -> None:
    schedule = round_robin(names(4), 4, seed=0)
    assert max(successors(schedule).values()) < len(schedule.tables)


def test_seven_entrants_at_four_seats_play_seven_tables() -> None:
    """Entrants need not divide by the table size: every entrant still plays 4 tables, once per seat."""
    schedule = round_robin(names(7), 4, seed=11)
    assert len(schedule.tables) == 7
    assert set(schedule.seat_counts().values()) == {(1, 1, 1, 1)}
    assert set(schedule.pair_counts().values()) == {2}


@pytest.mark.parametrize(("table_size", "entrants"), [(2, 5), (3, 8), (4, 7), (5, 12)])
def test_same_seed_same_schedule_whatever_the_entry_order(table_size: int, entrants: int) -> None:
    first = round_robin(names(entrants), table_size, seed=42)
    again = round_robin(list(reversed(names(entrants))), table_size, seed=42)
    other = round_robin(names(entrants), table_size, seed=43)
    assert first == again
    assert first.tables != other.tables


def test_prefixes_keep_table_counts_close() -> None:
    """Tables are ordered so a tournament stopped part way has spread its games."""
    schedule = round_robin(names(9), 3, seed=2)
    played = Counter[str]()
    for table in schedule.tables:
        played.update(table.seats)
        assert max(played.values()) - min(played[e] for e in schedule.entrants) <= 2


def test_game_seeds_are_reproducible_distinct_and_fit_63_bits() -> None:
    seeds = {game_seed(9, table, game) for table in range(50) for game in range(20)}
    assert len(seeds) == 1000
    assert all(0 <= s < 2**63 for s in seeds)
    assert game_seed(9, 3, 4) == game_seed(9, 3, 4) != game_seed(10, 3, 4)


def test_bad_schedules_are_refused() -> None:
    with pytest.raises(InvalidSetting, match="table size"):
        round_robin(names(6), 6, seed=1)
    with pytest.raises(InvalidSetting, match="table size"):
        round_robin(names(6), 1, seed=1)
    with pytest.raises(NotEnoughEntrants, match="3 entrants cannot fill a 4-seat table"):
        round_robin(names(3), 4, seed=1)
    with pytest.raises(InvalidSetting, match="distinct"):
        round_robin(["a", "b", "a"], 2, seed=1)


def test_the_module_examples_hold() -> None:
    assert doctest.testmod(arena.schedule).failed == 0
