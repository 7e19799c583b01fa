"""Sets and their strength (docs/rules.md §4.1).

A set's strength is the key (length, kind, lowest value) with GROUP > SEQUENCE; a new set may be
shown only when its key is strictly greater than the active set's key. Tuple comparison gives
exactly the rule: more cards first, then group over sequence, then the higher lowest value, and
an equal key is "not stronger".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

SEQUENCE = 0
GROUP = 1
"""A single card counts as a group of one, so singles compare by value alone."""

SetKey: TypeAlias = tuple[int, int, int]
"""(number of cards, GROUP or SEQUENCE, lowest value)."""


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
