"""Sets and their strength (RULES.md §4.1).

A set's strength is the key (length, kind, lowest value) with GROUP > SEQUENCE; a new set may be
shown only when its key is strictly greater than the active set's key. Tuple comparison gives
exactly the rule: more cards first, then group over sequence, then the higher lowest value, and
an equal key is "not stronger".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

from .actions import SHOWS, Show

SEQUENCE = 0
GROUP = 1
"""A single card counts as a group of one, so singles compare by value alone."""

SetKey: TypeAlias = tuple[int, int, int]
"""(number of cards, GROUP or SEQUENCE, lowest value)."""

HandSets: TypeAlias = tuple[tuple[SetKey, Show], ...]


def set_key(tops: Sequence[int]) -> SetKey | None:
    """The strength of `tops` shown as a set, or None if they do not form one."""
    n = len(tops)
    if n == 0:
        return None
    first = tops[0]
    if n == 1:
        return (1, GROUP, first)
    step = tops[1] - first
    if step not in (0, 1, -1):
        return None
    for i in range(2, n):
        if tops[i] - tops[i - 1] != step:
            return None
    return (n, GROUP, first) if step == 0 else (n, SEQUENCE, min(first, tops[-1]))


_cache: dict[tuple[int, ...], HandSets] = {}
_CACHE_LIMIT = 200_000


def hand_sets(tops: tuple[int, ...]) -> HandSets:
    """Every contiguous set in a hand with these top values, with its key, memoised.

    Runs are found by extending from each start while the step stays 0, +1 or -1; every prefix of
    a run of length >= 2 from that start is itself a set.
    """
    found = _cache.get(tops)
    if found is not None:
        return found
    out: list[tuple[SetKey, Show]] = []
    n = len(tops)
    for start in range(n):
        first = tops[start]
        row = SHOWS[start]
        out.append(((1, GROUP, first), row[1]))
        if start + 1 == n:
            break
        step = tops[start + 1] - first
        if step == 0:
            end = start + 1
            while end < n and tops[end] == first:
                out.append(((end - start + 1, GROUP, first), row[end - start + 1]))
                end += 1
        elif step == 1 or step == -1:
            end = start + 1
            prev = first
            while end < n and tops[end] - prev == step:
                prev = tops[end]
                length = end - start + 1
                out.append(((length, SEQUENCE, first if step == 1 else prev), row[length]))
                end += 1
    result = tuple(out)
    if len(_cache) >= _CACHE_LIMIT:
        _cache.clear()
    _cache[tops] = result
    return result
