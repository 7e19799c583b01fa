"""Schedule properties (docs/operator-guide.md; issue 4): pair and seat balance, both seat orders at
2 seats, fresh cyclic orders, determinism. Pure: no database."""

from __future__ import annotations

import doctest
import hashlib
import math
from collections import Counter
from functools import cache
from itertools import combinations, permutations

import pytest

import arena.tournaments.schedule
from arena.errors import InvalidSetting, NotEnoughEntrants
from arena.tournaments.schedule import (
    MIXED_EVERY,
    Schedule,
    game_seed,
    open_pair_round,
    round_robin,
    stop_round,
    table_count,
)
from sdk.local import balanced_seatings

SMALL_FIELDS_DIGEST = "2cdbaa30e52f26e92f7b29d7d30101144ddb8f803b6038b21059f31788c61cd9"
"""Of the seats of the schedules the recursive matching and quadratic ordering made, before issue #11
(the same tables as the earlier digest of their repr, taken before `Table` became `ScheduledTable`)."""
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
    """The same neighbours every time doubles the spread of points (docs/benchmarks.md, "Figures
    measured before this project"). Nobody follows the same player much more often than an even
    spread over the tables they share would give."""
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
    assert doctest.testmod(arena.tournaments.schedule).failed == 0


# ---- large fields and the bounded format (issue #11) ----------------------------------------------


def assert_balanced(schedule: Schedule, tables_each: int) -> None:
    """Seats exactly balanced, every entrant at `tables_each` tables, pair counts within one."""
    k = schedule.table_size
    assert all(len(set(t.seats)) == k for t in schedule.tables)
    assert set(schedule.seat_counts().values()) == {(tables_each // k,) * k}
    counts = Counter(pair for t in schedule.tables for pair in combinations(sorted(t.seats), 2))
    pairs = len(schedule.entrants) * (len(schedule.entrants) - 1) // 2
    low = min(counts.values()) if len(counts) == pairs else 0
    assert max(counts.values()) - low <= 1, (low, max(counts.values()))


@pytest.mark.parametrize("seed", [1, 2])
def test_a_full_round_robin_of_200_at_4_seats_balances_seats_and_nearly_every_pair(seed: int) -> None:
    """The old search recursed once per entrant in a matching (RecursionError at about 160). So
    dense a field is balanced as far as the search gets in its budget (arena.tournaments.schedule): seats
    exactly, every pair at most twice, and all but a few (n or n/2 at a difference) at least once."""
    schedule = round_robin(names(200), 4, seed=seed)
    assert len(schedule.tables) == table_count(200, 4) == 200 * 17
    assert set(schedule.seat_counts().values()) == {(17, 17, 17, 17)}
    counts = Counter(schedule.pair_counts().values())
    assert max(counts) <= 2 and counts[0] <= 200


def test_200_entrants_in_8_rounds_at_4_seats_are_balanced() -> None:
    schedule = round_robin(names(200), 4, seed=1, rounds=8)
    assert len(schedule.tables) == table_count(200, 4, 8) == 200 * 8
    assert_balanced(schedule, 4 * 8)


@pytest.mark.parametrize(("table_size", "rounds"), [(2, 5), (3, 4), (4, 3), (5, 2)])
def test_1000_entrants_play_rounds_each_once_in_every_seat(table_size: int, rounds: int) -> None:
    n = 1000
    schedule = round_robin(names(n), table_size, seed=3, rounds=rounds)
    assert len(schedule.tables) == table_count(n, table_size, rounds) == n * rounds
    assert_balanced(schedule, table_size * rounds)
    for r in range(rounds):  # every round: each entrant once in each seat
        in_round = schedule.tables[r * n : (r + 1) * n]
        for seat in range(table_size):
            assert sorted(t.seats[seat] for t in in_round) == sorted(names(n))


@pytest.mark.parametrize(
    ("table_size", "entrants", "rounds"), [(2, 7, 3), (3, 13, 2), (4, 9, 1), (4, 30, 4), (5, 5, 2)]
)
def test_rounds_keep_seats_exact_and_pairs_within_one(table_size: int, entrants: int, rounds: int) -> None:
    schedule = round_robin(names(entrants), table_size, seed=5, rounds=rounds)
    assert len(schedule.tables) == entrants * rounds
    assert_balanced(schedule, table_size * rounds)
    assert schedule == round_robin(list(reversed(names(entrants))), table_size, seed=5, rounds=rounds)


def test_full_round_robins_of_up_to_12_keep_their_schedules() -> None:
    """The old search's tables for small fields, unchanged (a digest of one schedule per size)."""
    digest = hashlib.sha256(
        repr(
            [[t.seats for t in round_robin(names(n), k, seed=1).tables] for k in range(2, 6) for n in range(k, 13)]
        ).encode()
    ).hexdigest()
    assert digest == SMALL_FIELDS_DIGEST


def test_rounds_below_one_are_refused() -> None:
    with pytest.raises(InvalidSetting, match="rounds must be at least 1, not 0"):
        round_robin(names(6), 3, seed=1, rounds=0)


@pytest.mark.parametrize(("table_size", "entrants", "rounds"), [(3, 50, None), (4, 30, None), (5, 20, 4), (4, 200, 8)])
def test_cyclic_rounds_get_fresh_cyclic_orders(table_size: int, entrants: int, rounds: int | None) -> None:
    """As for small fields: nobody follows the same player much more often than the tables they
    share allow (each round's seat steps are chosen to repeat those of earlier rounds least)."""
    schedule = round_robin(names(entrants), table_size, seed=1, rounds=rounds)
    pairs = schedule.pair_counts()
    for (a, b), count in successors(schedule).items():
        assert count <= math.ceil(pairs[min(a, b), max(a, b)] / (table_size - 1)) + 1, (a, b, count)


def test_a_round_of_open_pairs_seats_them_together_and_keeps_seats_balanced() -> None:
    """Eight entrants at 4 seats with one open pair: every table of the round holds it (the format's
    round would seat it at 3 of 8 tables at most), each unit of four tables seats each of its bots
    once in every seat, and the round has as many tables as the format's."""
    order = [f"b{i}" for i in range(8)]
    schedule = open_pair_round(order, {("b3", "b4"): 50.0}, 4, seed=9)
    assert len(schedule.tables) == table_count(8, 4)
    assert all({"b3", "b4"} <= set(t.seats) for t in schedule.tables)
    for t in schedule.tables:
        places = sorted(order.index(b) for b in t.seats)
        assert places == list(range(places[0], places[0] + 4)), "consecutive places"
    for first in range(0, len(schedule.tables), 4):
        unit = schedule.tables[first : first + 4]
        for bot in unit[0].seats:
            assert sorted(t.seats.index(bot) for t in unit) == [0, 1, 2, 3]


def test_rounds_of_open_pairs_share_tables_by_need_and_keep_every_bots_seats_within_one() -> None:
    """Many rounds at 5 entrants (5 tables a round, so one table is left over each round): seat
    counts carried from round to round stay within one of each other for every bot, and the pair
    that wants the most games gets the most tables."""
    order = ["a", "b", "c", "d", "e"]
    seats = {e: [0, 0, 0, 0] for e in order}
    shared = dict.fromkeys([("a", "b"), ("d", "e")], 0)
    for r in range(40):
        schedule = open_pair_round(order, {("a", "b"): 400.0, ("d", "e"): 10.0}, 4, seed=r, seats_so_far=seats)
        for t in schedule.tables:
            for s, bot in enumerate(t.seats):
                seats[bot][s] += 1
            for pair in shared:
                shared[pair] += set(pair) <= set(t.seats)
    assert all(max(c) - min(c) <= 1 for c in seats.values()), seats
    assert shared["a", "b"] > shared["d", "e"]


def test_a_stop_rule_round_keeps_a_floor_of_mixed_rounds() -> None:
    """Every MIXED_EVERY rounds from round 0 is the format's own balanced round, whatever is open."""
    entrants = [f"e{i}" for i in range(8)]
    for r in (0, MIXED_EVERY, 2 * MIXED_EVERY):
        assert stop_round(entrants, 4, 5, r, None, entrants, {("e0", "e1"): 9.0}) == round_robin(entrants, 4, 5)
    focused = stop_round(entrants, 4, 5, 1, None, entrants, {("e0", "e1"): 9.0})
    assert all({"e0", "e1"} <= set(t.seats) for t in focused.tables)
    assert stop_round(entrants, 4, 5, 1, None, entrants, {}) == round_robin(entrants, 4, 5), "nothing open"


def test_a_round_of_open_pairs_refuses_pairs_that_are_not_neighbours() -> None:
    with pytest.raises(InvalidSetting, match="a and c are not adjacent in the order"):
        open_pair_round(["a", "b", "c", "d"], {("a", "c"): 1.0}, 3, seed=1)


@pytest.mark.parametrize("players", range(2, 6))
def test_local_play_seats_a_one_table_field_as_the_arena_schedule_does(players: int) -> None:
    """`scout-bot play` and `check` (sdk.local.balanced_seatings) seat a bot as a tournament of one
    table would: the SDK's seating (sdk.seating.one_table) is the schedule's."""
    for seed in range(10):
        schedule = round_robin([str(i) for i in range(players)], players, seed)
        tables = [tuple(int(e) for e in table.seats) for table in schedule.tables]
        seatings = balanced_seatings(players, len(tables), seed)
        assert [tuple(sorted(range(players), key=seating.__getitem__)) for seating in seatings] == tables, seed
