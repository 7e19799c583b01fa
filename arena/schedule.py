"""Round-robin schedules: who sits at which table, in which seat; pure, deterministic from a seed.

How many tables (the choice the issue leaves open):

* 2 seats: every ordered pair once, n(n-1) tables, so each pair plays both seat orders and every
  entrant sits n-1 times in each seat. Tables come in circle-method rounds (everyone plays once
  per round), the second half repeating the first with seats swapped.
* 3-5 seats (k): m rounds' worth of n tables, T = n*m, with m = ceil((n-1) / (k(k-1))) the fewest
  that let every pair meet at least once. Every entrant then plays k*m tables, exactly m times in
  each seat, whatever n is (7 entrants at 4-seat tables: 7 tables, each entrant at 4 of them, once
  per seat). Which entrants share a table is found by a seeded local search that makes pair counts
  differ by at most one (up to 12 entrants it always gets there; beyond, it is best effort within
  a fixed budget). Seats are then given out by k successive random perfect matchings of the
  entrant/table graph (it is regular, so König's theorem guarantees they exist), which balances
  seats exactly; an annealed search over seat swaps that keep those counts then makes "who plays
  right after whom" as varied as it can, so every table gets a fresh cyclic order: FACTS.md
  measured that keeping one cyclic order (the same neighbours every time) doubles the spread of
  an entrant's points. Generating a schedule takes well under a second for 12 entrants.

Tables are finally ordered so every prefix of the schedule keeps the entrants' table counts close,
so a tournament played part way is as fair as it can be.

>>> schedule = round_robin(["ann", "bob", "cy", "dee"], table_size=3, seed=1)
>>> len(schedule.tables), set(schedule.pair_counts().values())
(4, {2})
>>> set(schedule.seat_counts().values())
{(1, 1, 1)}
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from .errors import InvalidSetting, NotEnoughEntrants

MIN_TABLE_SIZE = 2
MAX_TABLE_SIZE = 5
_SEARCH_STEPS = 20_000
"""Local-search moves per attempt; a fixed budget (not a clock) keeps schedules reproducible."""
_SEARCH_ATTEMPTS = 4
_NEIGHBOUR_STEPS = 300
_SEATING_ATTEMPTS = 20


@dataclass(frozen=True, slots=True)
class Table:
    """One scheduled table: `seats[s]` is the entrant in seat s (seat 0 starts round 0)."""

    seats: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Schedule:
    """Every table of a tournament, in the order they should be played."""

    table_size: int
    entrants: tuple[str, ...]
    tables: tuple[Table, ...]

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


def round_robin(entrants: Sequence[str], table_size: int, seed: int) -> Schedule:
    """The schedule for `entrants` at tables of `table_size`; the same inputs give the same schedule.

    The order of `entrants` does not matter. Raises InvalidSetting for a table size outside 2-5 or
    repeated entrants, NotEnoughEntrants when there are fewer entrants than seats.
    """
    if not MIN_TABLE_SIZE <= table_size <= MAX_TABLE_SIZE:
        raise InvalidSetting(
            f"table size must be {MIN_TABLE_SIZE} to {MAX_TABLE_SIZE} players, not {table_size}"
        )
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
    if table_size == 2:
        seatings = _two_seat_tables(n)
    else:
        blocks = _balanced_blocks(n, table_size, rng)
        seatings = _seated(blocks, n, table_size, rng)
    tables = tuple(Table(tuple(order[i] for i in seats)) for seats in _fair_order(seatings, n))
    return Schedule(table_size, tuple(names), tables)


def game_seed(tournament_seed: int, table_index: int, game_index: int) -> int:
    """The deal seed of one game: a hash of its position, so seeds are fresh yet reproducible.

    63 bits, so it fits a signed 64-bit database column.
    """
    digest = hashlib.blake2b(
        f"{tournament_seed}:{table_index}:{game_index}".encode(), digest_size=8
    ).digest()
    return int.from_bytes(digest, "big") >> 1


def _two_seat_tables(n: int) -> list[tuple[int, ...]]:
    """Circle-method rounds of all pairs, then the same rounds with the seats swapped."""
    players: list[int | None] = list(range(n)) + ([None] if n % 2 else [])
    size = len(players)
    rounds: list[list[tuple[int, int]]] = []
    for r in range(size - 1):
        pairs = []
        for i in range(size // 2):
            a, b = players[i], players[size - 1 - i]
            if a is not None and b is not None:
                pairs.append((a, b) if (r + i) % 2 == 0 else (b, a))
        rounds.append(pairs)
        players = [players[0], players[-1], *players[1:-1]]
    first = [pair for pairs in rounds for pair in pairs]
    return first + [(b, a) for a, b in first]


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
    target = _least_square_sum(total, pairs)
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


def _seated(blocks: list[list[int]], n: int, k: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Give out seats so every entrant sits in every seat equally often, in fresh cyclic orders.

    Each entrant's tables are split into groups of k ("copies" of the entrant); copies and tables
    then form a k-regular bipartite graph, and each of k random perfect matchings fills one seat.
    Of a few such seatings, each improved by `_spread_neighbours`, the most varied one is kept.
    """
    best: list[list[int]] = []
    best_cost = -1
    sharing = {(a, b) for block in blocks for a in block for b in block if a != b}
    floor = _least_square_sum(len(blocks) * k, len(sharing))
    tables_of: list[list[int]] = [[] for _ in range(n)]
    for t, block in enumerate(blocks):
        for e in block:
            tables_of[e].append(t)
    for _ in range(_SEATING_ATTEMPTS):
        copies: list[tuple[int, list[int]]] = []
        for e, tables in enumerate(tables_of):
            shuffled = rng.sample(tables, len(tables))
            copies += [(e, shuffled[i : i + k]) for i in range(0, len(tables), k)]
        seats: list[list[int]] = [[-1] * k for _ in blocks]
        for seat in range(k):
            match = _perfect_matching([c[1] for c in copies], len(blocks), rng)
            for copy_index, table in enumerate(match):
                entrant, tables = copies[copy_index]
                seats[table][seat] = entrant
                tables.remove(table)
        cost = _spread_neighbours(seats, tables_of, floor, rng)
        if best_cost < 0 or cost < best_cost:
            best, best_cost = seats, cost
        if cost == floor:
            break
    return [tuple(s) for s in best]


def _spread_neighbours(
    seats: list[list[int]], tables_of: list[list[int]], floor: int, rng: random.Random
) -> int:
    """Make "who plays right after whom" as varied as possible, keeping every seat count.

    Matchings alone can repeat one cyclic order at every table. A move picks two seats i and j
    and a cycle of tables t1..tr where the entrant in seat j of each is the one in seat i of the
    next (and of t1 for tr); swapping seats i and j at all of them leaves every entrant's seat
    counts unchanged. Moves are annealed on the sum of squared successor counts, and `seats` is
    left at the best state seen (search stops early at `floor`, the least sum possible).
    Returns that sum.
    """
    k = len(seats[0])
    succ: Counter[tuple[int, int]] = Counter()
    for row in seats:
        for s in range(k):
            succ[row[s], row[(s + 1) % k]] += 1
    cost = sum(c * c for c in succ.values())
    best, best_cost = [row[:] for row in seats], cost

    def links(rows: list[int]) -> list[tuple[int, int]]:
        return [(seats[t][s], seats[t][(s + 1) % k]) for t in rows for s in range(k)]

    for step in range(_NEIGHBOUR_STEPS):
        i, j = rng.sample(range(k), 2)
        table = rng.randrange(len(seats))
        path: list[int] = []
        where = {seats[table][i]: 0}
        while True:
            path.append(table)
            nxt = seats[table][j]
            if nxt in where:
                cycle = path[where[nxt] :]
                break
            where[nxt] = len(path)
            table = rng.choice([t for t in tables_of[nxt] if seats[t][i] == nxt])
        before = links(cycle)
        for t in cycle:
            seats[t][i], seats[t][j] = seats[t][j], seats[t][i]
        change: Counter[tuple[int, int]] = Counter(links(cycle))
        change.subtract(before)
        delta = sum((succ[p] + dv) ** 2 - succ[p] ** 2 for p, dv in change.items())
        heat = 2.0 * (1 - step / _NEIGHBOUR_STEPS)
        if delta <= 0 or rng.random() < math.exp(-delta / heat):
            succ.update(change)
            cost += delta
            if cost < best_cost:
                best, best_cost = [row[:] for row in seats], cost
                if cost == floor:
                    break
        else:
            for t in cycle:
                seats[t][i], seats[t][j] = seats[t][j], seats[t][i]
    seats[:] = best
    return best_cost


def _least_square_sum(total: int, bins: int) -> int:
    """The least sum of squares of `bins` non-negative integers adding up to `total`."""
    low, extra = divmod(total, bins)
    return extra * (low + 1) ** 2 + (bins - extra) * low**2


def _perfect_matching(adjacency: list[list[int]], right: int, rng: random.Random) -> list[int]:
    """A perfect matching of a regular bipartite graph (Kuhn's augmenting paths, random order).

    Returns, for each left vertex, its matched right vertex.
    """
    owner = [-1] * right

    def augment(u: int, seen: list[bool]) -> bool:
        options = adjacency[u][:]
        rng.shuffle(options)
        for t in options:
            if not seen[t]:
                seen[t] = True
                if owner[t] < 0 or augment(owner[t], seen):
                    owner[t] = u
                    return True
        return False

    lefts = list(range(len(adjacency)))
    rng.shuffle(lefts)
    for u in lefts:
        augment(u, [False] * right)
    match = [-1] * len(adjacency)
    for t, u in enumerate(owner):
        match[u] = t
    return match


def _fair_order(tables: list[tuple[int, ...]], n: int) -> list[tuple[int, ...]]:
    """Order tables greedily: next is the one whose entrants have played least so far."""
    played = [0] * n
    remaining = list(tables)
    ordered: list[tuple[int, ...]] = []
    while remaining:
        best = min(
            range(len(remaining)),
            key=lambda i: (max(played[e] for e in remaining[i]), sum(played[e] for e in remaining[i])),
        )
        table = remaining.pop(best)
        ordered.append(table)
        for e in table:
            played[e] += 1
    return ordered
