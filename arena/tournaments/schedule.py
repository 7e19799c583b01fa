"""Tournament schedules: who sits at which table, in which seat; pure, deterministic from a seed.

Two formats. The full round robin (`rounds` None) lets every pair of entrants meet:

* 2 seats: every ordered pair once, n(n-1) tables, so each pair plays both seat orders and every
  entrant sits n-1 times in each seat. Tables come in circle-method rounds (everyone plays once
  per round), the second half repeating the first with seats swapped.
* 3-5 seats (k): m rounds' worth of n tables, T = n*m, with m = ceil((n-1) / (k(k-1))) the fewest
  that let every pair meet at least once. Every entrant then plays k*m tables, exactly m times in
  each seat, whatever n is (7 entrants at 4-seat tables: 7 tables, each entrant at 4 of them, once
  per seat). Up to `SMALL_FIELD` (12) entrants, which entrants share a table is found by a seeded
  local search over tables that always makes pair counts differ by at most one; seats are then
  given out by k successive random perfect matchings of the entrant/table graph (`sdk.seating`,
  which local play shares; the graph is regular, so König's theorem guarantees they exist), which
  balances seats exactly, and an annealed search over seat swaps that keep those counts makes "who
  plays right after whom" as varied as it can: keeping one cyclic order (the same neighbours every
  time) doubles the spread of an entrant's points (docs/benchmarks.md, "Figures measured before
  this project"). Larger fields use cyclic rounds (below), m of them.

The bounded format (`rounds` N, for fields too large for a full round robin) is N cyclic rounds:
n*N tables, each entrant at k*N of them, exactly N times in each seat. A cyclic round is every
translate t + B (mod n) of a base block B of k entrants, seat s of table t holding t + B[s]: each
entrant sits once in every seat of every round, and a pair d apart meets once for each pair of B's
elements d apart. The base blocks are searched (a fixed budget) so those differences are spread as
evenly as possible: the pair counts are within one of each other whenever each pair meets at most
once (N*k(k-1)/2 < n/2 or so: every bounded format of a large field), and in the densest full
round robins all but a few difference classes (n, or n/2, pairs each) are (benchmarks/schedule_speed.py
prints how many pairs never meet). Each block's seat order is chosen so the step from one seat to
the next, hence who follows whom, repeats as little as possible across rounds.

Tables are finally ordered so every prefix of the schedule keeps the entrants' table counts close
(`fair_order`, round by round for cyclic rounds), so a tournament played part way is as fair as
it can be. Every step is iterative and at most a few seconds for 1,000 entrants; the arena's
limits on fields and games are in `arena.tournaments.entries`.

>>> schedule = round_robin(["ann", "bob", "cy", "dee"], table_size=3, seed=1)
>>> len(schedule.tables), set(schedule.pair_counts().values())
(4, {2})
>>> set(schedule.seat_counts().values())
{(1, 1, 1)}
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations

from arena.errors import InvalidSetting, NotEnoughEntrants
from sdk.seating import fair_order, least_square_sum, seated, two_seat_tables

MIN_TABLE_SIZE = 2
MAX_TABLE_SIZE = 5
_SEARCH_STEPS = 20_000
"""Local-search moves per attempt; a fixed budget (not a clock) keeps schedules reproducible."""
_SEARCH_ATTEMPTS = 4
SMALL_FIELD = 12
"""Full round robins of at most this many entrants (3-5 seats) use the local search over tables,
which always balances them; larger ones and the bounded format use cyclic rounds."""
_BLOCK_STEPS = 100_000
"""Moves per attempt of the base-block search: a fixed budget (not a clock) keeps schedules
reproducible; a search that gets there at all mostly does within it, so fresh attempts beat more moves."""
_BLOCK_ATTEMPTS = 4
_REORDERED_TWO_SEAT_TABLES = 10_000
"""A 2-seat round robin up to this size is ordered by `fair_order` as it always was; a larger one
keeps the circle method's rounds (fair prefixes already: everyone plays once a round), since the
greedy order's time grows faster than its tables (a second for 10,000, twenty for 50,000)."""


@dataclass(frozen=True, slots=True)
class ScheduledTable:
    """One scheduled table: `seats[s]` is the entrant in seat s (seat 0 starts round 0)."""

    seats: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Schedule:
    """Every table of a tournament, in the order they should be played."""

    table_size: int
    entrants: tuple[str, ...]
    tables: tuple[ScheduledTable, ...]

    def pair_counts(self) -> dict[tuple[str, str], int]:
        """How many tables each pair of entrants (names in sorted order) shares; 0 included."""
        counts = {pair: 0 for pair in combinations(self.entrants, 2)}
        for table in self.tables:
            for a, b in combinations(sorted(table.seats), 2):
                counts[a, b] += 1
        return counts

    def seat_counts(self) -> dict[str, tuple[int, ...]]:
        """For each entrant, how often it sits in seat 0, 1, ..."""
        counts = {e: [0] * self.table_size for e in self.entrants}
        for table in self.tables:
            for seat, entrant in enumerate(table.seats):
                counts[entrant][seat] += 1
        return {e: tuple(c) for e, c in counts.items()}


def round_robin(entrants: Sequence[str], table_size: int, seed: int, rounds: int | None = None) -> Schedule:
    """The schedule for `entrants` at tables of `table_size`; the same inputs give the same schedule.

    `rounds` None is the full round robin; N is N rounds of the bounded format. The order of
    `entrants` does not matter. Raises InvalidSetting for a table size outside 2-5, rounds below 1
    or repeated entrants, NotEnoughEntrants when there are fewer entrants than seats.
    """
    if not MIN_TABLE_SIZE <= table_size <= MAX_TABLE_SIZE:
        raise InvalidSetting(f"table size must be {MIN_TABLE_SIZE} to {MAX_TABLE_SIZE} players, not {table_size}")
    if rounds is not None and rounds < 1:
        raise InvalidSetting(f"rounds must be at least 1, not {rounds}")
    names = sorted(entrants)
    if len(set(names)) != len(names):
        raise InvalidSetting("entrants must be distinct")
    if len(names) < table_size:
        raise NotEnoughEntrants(
            f"{len(names)} entrants cannot fill a {table_size}-seat table; need at least {table_size}"
        )
    rng = random.Random(seed)
    order = names[:]
    rng.shuffle(order)
    n = len(order)
    if rounds is None and table_size == 2:
        seatings = two_seat_tables(n)
        if len(seatings) <= _REORDERED_TWO_SEAT_TABLES:
            seatings = fair_order(seatings, [0] * n)
    elif rounds is None and n <= SMALL_FIELD:
        blocks = _balanced_blocks(n, table_size, rng)
        seatings = fair_order(seated(blocks, n, table_size, rng), [0] * n)
    else:
        seatings = _cyclic_rounds(n, table_size, rounds or _full_rounds(n, table_size), rng)
    tables = tuple(ScheduledTable(tuple(order[i] for i in seats)) for seats in seatings)
    return Schedule(table_size, tuple(names), tables)


def table_count(entrants: int, table_size: int, rounds: int | None = None) -> int:
    """How many tables `round_robin` schedules for a field of `entrants`, without making it."""
    if rounds is not None:
        return entrants * rounds
    if table_size == 2:
        return entrants * (entrants - 1)
    return entrants * _full_rounds(entrants, table_size)


def _full_rounds(n: int, k: int) -> int:
    """The fewest rounds (n tables each) that let every pair of n entrants meet at k-seat tables."""
    return -(-(n - 1) // (k * (k - 1)))


MIXED_EVERY = 8
"""Every this many rounds of a stop-rule tournament (round 0 first) is a balanced round of the
format (`round_robin`) rather than a round of open pairs: the floor of mixed tables, so every pair
keeps meeting and a bot misplaced in the order still meets the bots it belongs among."""


def stop_round(
    entrants: Sequence[str],
    table_size: int,
    seed: int,
    round_index: int,
    rounds: int | None,
    order: Sequence[str],
    open_pairs: Mapping[tuple[str, str], float],
    seats_so_far: Mapping[str, Sequence[int]] | None = None,
) -> Schedule:
    """Round `round_index` of a stop-rule tournament (`arena.tournaments.stop_rule`), drawn with
    `seed` (`round_seed`): a balanced round of the format every `MIXED_EVERY` rounds from round 0
    (so round 0 is the schedule the tournament would have without the rule), else
    `open_pair_round` over the rule's order and open pairs after the rounds before."""
    if round_index % MIXED_EVERY == 0 or not open_pairs:
        return round_robin(entrants, table_size, seed, rounds)
    return open_pair_round(order, open_pairs, table_size, seed, rounds, seats_so_far)


def open_pair_round(
    order: Sequence[str],
    open_pairs: Mapping[tuple[str, str], float],
    table_size: int,
    seed: int,
    rounds: int | None = None,
    seats_so_far: Mapping[str, Sequence[int]] | None = None,
) -> Schedule:
    """As many tables as a round of the format (`table_count`), each of k consecutive places of
    `order` (best first) chosen to hold the most `open_pairs` (adjacent places whose order is not
    yet decided), each with the shared games it still wants (`stop_rule.open_pairs`).

    Tables come in units of k: one window of places played k times, its seats rotated, so each of
    its entrants sits once in every seat. Each unit takes the window whose open pairs want the
    most games and counts k of them as given to each (water-filling: the neediest pairs get the
    most tables, and the fewer are open the more each gets: with every pair of 8 entrants open, a
    pair shares 0.75-1 table of every 4-seat table against the format's 12/56 = 0.21). The k mod
    tables left over (T not a multiple of k) take the next window, each seated where its
    entrants have sat least (`seats_so_far`, the tournament's counts before the round, and the
    round's own), so seat counts stay within one a round. Bots far from every open pair may sit a
    round out; `MIXED_EVERY` keeps every bot playing.
    """
    if not MIN_TABLE_SIZE <= table_size <= MAX_TABLE_SIZE:
        raise InvalidSetting(f"table size must be {MIN_TABLE_SIZE} to {MAX_TABLE_SIZE} players, not {table_size}")
    if len(set(order)) != len(order):
        raise InvalidSetting("entrants must be distinct")
    n, k = len(order), table_size
    if n < k:
        raise NotEnoughEntrants(f"{n} entrants cannot fill a {k}-seat table; need at least {k}")
    place = {e: i for i, e in enumerate(order)}
    want: dict[int, float] = {}
    for (a, b), wanted in open_pairs.items():
        low = min(place[a], place[b])
        if abs(place[a] - place[b]) != 1:
            raise InvalidSetting(f"{a} and {b} are not adjacent in the order")
        want[low] = wanted
    if not want:
        want = dict.fromkeys(range(n - 1), 1.0)
    rng = random.Random(seed)
    counts = {e: list(seats_so_far.get(e, [0] * k)) if seats_so_far else [0] * k for e in order}
    seatings: list[tuple[int, ...]] = []
    total = table_count(n, k, rounds)
    while len(seatings) < total:
        start = max(
            range(n - k + 1), key=lambda s: (sum(max(0.0, want.get(i, 0.0)) for i in range(s, s + k - 1)), rng.random())
        )
        for i in range(start, start + k - 1):
            if i in want:
                want[i] -= k
        window = rng.sample(range(start, start + k), k)
        unit = [tuple(window[(s + shift) % k] for s in range(k)) for shift in range(k)]
        if total - len(seatings) < k:
            unit = [_least_sat(window, counts, order, rng) for _ in range(total - len(seatings))]
        for seats in unit:
            for s, i in enumerate(seats):
                counts[order[i]][s] += 1
        seatings += unit
    tables = tuple(ScheduledTable(tuple(order[i] for i in seats)) for seats in seatings)
    return Schedule(k, tuple(sorted(order)), tables)


def _least_sat(
    window: list[int], counts: Mapping[str, list[int]], order: Sequence[str], rng: random.Random
) -> tuple[int, ...]:
    """The seating of `window`'s places whose entrants have sat least in the seats it gives them."""
    options = list(permutations(window))
    rng.shuffle(options)
    return min(options, key=lambda seats: sum(counts[order[i]][s] for s, i in enumerate(seats)))


def schedule_seed(tournament_seed: int) -> int:
    """The seed a tournament's schedule is drawn with: a hash of the tournament's seed, never the
    seed itself. The schedule is public from the start while the seed stays secret, and Python's
    Mersenne Twister is not a one-way function: enough of its output can give back its state and,
    through its seeding, the seed. Through the hash, the schedule tells nothing about the deals.
    """
    digest = hashlib.blake2b(f"schedule:{tournament_seed}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def round_seed(schedule_seed_: int, round_index: int) -> int:
    """The seed round `round_index` of a stop-rule tournament (`arena.tournaments.stop_rule`) is drawn with:
    round 0 keeps the schedule seed, so its first round is the schedule it would have without the
    rule; later rounds hash the round number in. Derived from `schedule_seed` alone, so the
    schedule still tells nothing about the deals.
    """
    if round_index == 0:
        return schedule_seed_
    digest = hashlib.blake2b(f"round:{schedule_seed_}:{round_index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def game_seed(tournament_seed: int, table_index: int, game_index: int) -> int:
    """The deal seed of one game: a hash of its position, so seeds are fresh yet reproducible.

    63 bits, so it fits a signed 64-bit database column.
    """
    digest = hashlib.blake2b(f"{tournament_seed}:{table_index}:{game_index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def _balanced_blocks(n: int, k: int, rng: random.Random) -> list[list[int]]:
    """T = n*m blocks of k entrants, each entrant in k*m of them, pair counts as equal as found.

    Local search over swaps of two entrants between two blocks (which keeps every entrant's
    block count), minimising the sum of squared pair counts; that sum is smallest exactly when
    all counts are within one of each other, so the search stops as soon as it reaches it.
    """
    m = -(-(n - 1) // (k * (k - 1)))
    tables = n * m
    pairs = n * (n - 1) // 2
    total = tables * k * (k - 1) // 2
    target = least_square_sum(total, pairs)
    best: list[list[int]] = []
    best_cost = -1
    for _ in range(_SEARCH_ATTEMPTS):
        blocks = [[(t * k + j) % n for j in range(k)] for t in range(tables)]
        count = [[0] * n for _ in range(n)]
        for block in blocks:
            for a, b in combinations(block, 2):
                count[a][b] += 1
                count[b][a] += 1
        cost = sum(count[a][b] ** 2 for a in range(n) for b in range(a + 1, n))
        for _step in range(_SEARCH_STEPS):
            if cost == target:
                break
            x, y = rng.sample(range(tables), 2)
            bx, by = blocks[x], blocks[y]
            i, j = rng.randrange(k), rng.randrange(k)
            a, b = bx[i], by[j]
            if a in by or b in bx:
                continue
            change: Counter[tuple[int, int]] = Counter()
            for c in bx:
                if c != a:
                    change[a, c] -= 1
                    change[b, c] += 1
            for d in by:
                if d != b:
                    change[b, d] -= 1
                    change[a, d] += 1
            delta = sum((count[p][q] + dv) ** 2 - count[p][q] ** 2 for (p, q), dv in change.items())
            if delta <= 0:
                for (p, q), dv in change.items():
                    count[p][q] += dv
                    count[q][p] += dv
                bx[i], by[j] = b, a
                cost += delta
        if best_cost < 0 or cost < best_cost:
            best, best_cost = [block[:] for block in blocks], cost
        if cost == target:
            break
    return best


def _cyclic_rounds(n: int, k: int, rounds: int, rng: random.Random) -> list[tuple[int, ...]]:
    """`rounds` rounds of n tables: round r is every translate t + B_r (mod n) of a base block B_r,
    seat s of table t holding entrant t + B_r[s]. So in every round each entrant sits once in each
    seat, and a pair of entrants d apart meets once for each pair of B_r's elements d apart: the
    blocks are searched so those differences are spread evenly (`_base_blocks`). Each round's tables
    are ordered fairly, round after round."""
    played = [0] * n
    tables: list[tuple[int, ...]] = []
    for block in _seat_orders(_base_blocks(n, k, rounds, rng), n):
        tables += fair_order([tuple((t + b) % n for b in block) for t in range(n)], played)
    return tables


def _base_blocks(n: int, k: int, rounds: int, rng: random.Random) -> list[list[int]]:
    """`rounds` blocks of k distinct residues mod n whose differences cover the difference classes
    (d and n-d) as evenly as found. A class d < n/2 stands for n pairs, n/2 (n even) for n/2 pairs
    met twice per difference, so the pairs' sum of squared counts is the cost, least exactly when
    the counts are within one. A fixed budget of moves (one residue of one block), three in four aimed at a
    class met too rarely, taken when the cost does not rise, in a few fresh attempts; sparse fields
    reach the least cost at once, dense full round robins mostly, else come close
    (benchmarks/schedule_speed.py)."""
    half = n // 2
    weight = [0] + [n // 2 if 2 * c == n else n for c in range(1, half + 1)]
    hits = [0] + [2 if 2 * c == n else 1 for c in range(1, half + 1)]
    cls = [min(d, n - d) for d in range(n)]  # a difference's class, indexed by the difference mod n
    pairs = n * (n - 1) // 2
    low = n * rounds * k * (k - 1) // 2 // pairs
    target = least_square_sum(n * rounds * k * (k - 1) // 2, pairs)
    best: list[list[int]] = []
    best_cost = -1
    for _ in range(_BLOCK_ATTEMPTS):
        blocks = [rng.sample(range(n), k) for _ in range(rounds)]
        met = [0] * (half + 1)
        for block in blocks:
            for a, b in combinations(block, 2):
                c = cls[(b - a) % n]
                met[c] += hits[c]
        cost = sum(weight[c] * met[c] ** 2 for c in range(1, half + 1))
        for _step in range(_BLOCK_STEPS):
            if cost == target:
                break
            block = blocks[rng.randrange(rounds)]
            s = rng.randrange(k)
            if rng.random() < 0.75:
                # Aim at a class met at most `low` times (one always is: the average is above it).
                aim = rng.randrange(1, half + 1)
                while met[aim] > low:
                    aim = rng.randrange(1, half + 1)
                j = rng.randrange(k - 1)
                j += j >= s
                new = (block[j] + (aim if rng.random() < 0.5 else -aim)) % n
            else:
                new = rng.randrange(n)
            if new in block:
                continue
            old = block[s]
            change: dict[int, int] = {}
            for other in block:
                if other != old:
                    c = cls[(other - old) % n]
                    change[c] = change.get(c, 0) - hits[c]
                    c = cls[(other - new) % n]
                    change[c] = change.get(c, 0) + hits[c]
            delta = sum(weight[c] * v * (2 * met[c] + v) for c, v in change.items())
            if delta <= 0:
                for c, v in change.items():
                    met[c] += v
                block[s] = new
                cost += delta
        if best_cost < 0 or cost < best_cost:
            best, best_cost = blocks, cost
        if cost == target:
            break
    return best


def _seat_orders(blocks: list[list[int]], n: int) -> list[tuple[int, ...]]:
    """Each block in the seat order whose steps (the difference from one seat to the next, which
    decides who plays right after whom at every table of its round) were used least so far."""
    used: Counter[int] = Counter()
    ordered = []
    for block in blocks:
        first, *rest = block
        best = min(
            ((first, *p) for p in permutations(rest)),
            key=lambda seats: sum(used[(seats[(s + 1) % len(seats)] - seats[s]) % n] for s in range(len(seats))),
        )
        used.update((best[(s + 1) % len(best)] - best[s]) % n for s in range(len(best)))
        ordered.append(best)
    return ordered
