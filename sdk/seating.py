"""Seats at a table: every entrant in every seat equally often, "who plays right after whom" varied.

The arena's tournament schedules (`arena.tournaments.schedule`) give out seats with these, and
local play (`sdk.local.balanced_seatings`) seats a one-table field exactly as the arena's schedule
would (`one_table`), so a bot tested on its author's machine meets the seatings it will meet in a
tournament. Pure Python on the standard library, deterministic from the random generator given.
"""

from __future__ import annotations

import heapq
import math
import random
from typing import Any

_NEIGHBOUR_STEPS = 300
_SEATING_ATTEMPTS = 20


def one_table(n: int, rng: random.Random) -> list[tuple[int, ...]]:
    """The tables of a round robin of `n` entrants (0 to n-1) at one n-seat table, in play order:
    `tables[t][s]` is the entrant in seat s of table t. Two entrants play both seat orders; three
    to five play n tables, each entrant once in each seat, in varied cyclic orders. What
    `arena.tournaments.schedule.round_robin` schedules for a field that fills one table.
    """
    if n == 2:
        return fair_order(two_seat_tables(2), [0] * n)
    return fair_order(seated([list(range(n)) for _ in range(n)], n, n, rng), [0] * n)


def two_seat_tables(n: int) -> list[tuple[int, ...]]:
    """Circle-method rounds of all pairs, then the same rounds with the seats swapped."""
    players: list[int | None] = list(range(n)) + ([None] if n % 2 else [])
    size = len(players)
    rounds: list[list[tuple[int, ...]]] = []
    for r in range(size - 1):
        pairs: list[tuple[int, ...]] = []
        for i in range(size // 2):
            a, b = players[i], players[size - 1 - i]
            if a is not None and b is not None:
                pairs.append((a, b) if (r + i) % 2 == 0 else (b, a))
        rounds.append(pairs)
        players = [players[0], players[-1], *players[1:-1]]
    first = [pair for pairs in rounds for pair in pairs]
    return first + [(b, a) for a, b in first]


def seated(blocks: list[list[int]], n: int, k: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Give out seats so every entrant sits in every seat equally often, in fresh cyclic orders.

    Each entrant's tables are split into groups of k ("copies" of the entrant); copies and tables
    then form a k-regular bipartite graph, and each of k random perfect matchings fills one seat.
    Of a few such seatings, each improved by `_spread_neighbours`, the most varied one is kept.
    """
    best: list[list[int]] = []
    best_cost = -1
    sharing = {(a, b) for block in blocks for a in block for b in block if a != b}
    floor = least_square_sum(len(blocks) * k, len(sharing))
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


def _spread_neighbours(seats: list[list[int]], tables_of: list[list[int]], floor: int, rng: random.Random) -> int:
    """Make "who plays right after whom" as varied as possible, keeping every seat count.

    Matchings alone can repeat one cyclic order at every table. A move picks two seats i and j
    and a cycle of tables t1..tr where the entrant in seat j of each is the one in seat i of the
    next (and of t1 for tr); swapping seats i and j at all of them leaves every entrant's seat
    counts unchanged. Moves are annealed on the sum of squared successor counts, and `seats` is
    left at the best state seen (search stops early at `floor`, the least sum possible).
    Returns that sum. A move's change is counted over the links into and out of seats i and j
    only: the others are the same after the swap.
    """
    k = len(seats[0])
    after = [(s + 1) % k for s in range(k)]
    succ: dict[tuple[int, int], int] = {}
    for row in seats:
        for s in range(k):
            link = row[s], row[after[s]]
            succ[link] = succ.get(link, 0) + 1
    cost = sum(c * c for c in succ.values())
    best, best_cost = [row[:] for row in seats], cost

    def count(rows: list[int], touched: list[int], sign: int, change: dict[tuple[int, int], int]) -> None:
        for t in rows:
            row = seats[t]
            for s in touched:
                link = row[s], row[after[s]]
                change[link] = change.get(link, 0) + sign

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
        touched = list({(i - 1) % k, i, (j - 1) % k, j})
        change: dict[tuple[int, int], int] = {}
        count(cycle, touched, -1, change)
        for t in cycle:
            seats[t][i], seats[t][j] = seats[t][j], seats[t][i]
        count(cycle, touched, 1, change)
        delta = sum(dv * (2 * succ.get(p, 0) + dv) for p, dv in change.items())
        heat = 2.0 * (1 - step / _NEIGHBOUR_STEPS)
        if delta <= 0 or rng.random() < math.exp(-delta / heat):
            for p, dv in change.items():
                succ[p] = succ.get(p, 0) + dv
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


def least_square_sum(total: int, bins: int) -> int:
    """The least sum of squares of `bins` non-negative integers adding up to `total`."""
    low, extra = divmod(total, bins)
    return extra * (low + 1) ** 2 + (bins - extra) * low**2


def _perfect_matching(adjacency: list[list[int]], right: int, rng: random.Random) -> list[int]:
    """A perfect matching of a regular bipartite graph (Kuhn's augmenting paths, random order).

    Returns, for each left vertex, its matched right vertex. The depth-first search keeps its own
    stack (a path can be as long as the graph is large) and visits, shuffles and matches in the
    order a recursive search would, so schedules stay what they were.
    """
    owner = [-1] * right

    def options(u: int) -> list[int]:
        shuffled = adjacency[u][:]
        rng.shuffle(shuffled)
        return shuffled

    def augment(root: int) -> None:
        seen = [False] * right
        # Each frame: a left vertex, its shuffled options, the next option to try, and the right
        # vertex whose owner is being re-matched below it.
        stack: list[list[Any]] = [[root, options(root), 0, -1]]
        while stack:
            frame = stack[-1]
            u, tries = frame[0], frame[1]
            while frame[2] < len(tries):
                t = tries[frame[2]]
                frame[2] += 1
                if seen[t]:
                    continue
                seen[t] = True
                if owner[t] < 0:
                    owner[t] = u
                    for below in stack[:-1]:
                        owner[below[3]] = below[0]
                    return
                frame[3] = t
                stack.append([owner[t], options(owner[t]), 0, -1])
                break
            else:
                stack.pop()

    lefts = list(range(len(adjacency)))
    rng.shuffle(lefts)
    for u in lefts:
        augment(u)
    match = [-1] * len(adjacency)
    for t, u in enumerate(owner):
        match[u] = t
    return match


def fair_order(tables: list[tuple[int, ...]], played: list[int]) -> list[tuple[int, ...]]:
    """Order tables greedily: next is the one whose entrants have played least so far (the most
    they have played, then their total; the earlier table on a tie). `played` counts each
    entrant's tables before these and is updated.

    A heap with lazy updates: counts only grow, so a table's stored key is never above its true
    one, and a popped table whose key is still current is the least of all.
    """

    def key(table: tuple[int, ...]) -> tuple[int, int]:
        return max(played[e] for e in table), sum(played[e] for e in table)

    heap = [(*key(table), index) for index, table in enumerate(tables)]
    heapq.heapify(heap)
    ordered: list[tuple[int, ...]] = []
    while heap:
        most, total, index = heap[0]
        table = tables[index]
        now = key(table)
        if now != (most, total):
            heapq.heapreplace(heap, (*now, index))
            continue
        heapq.heappop(heap)
        ordered.append(table)
        for e in table:
            played[e] += 1
    return ordered
