"""Sorting a rating table by any of its columns, the same way for the pages and the API."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from arena.ratings.table import RatingRow


class SortKey(StrEnum):
    """The columns a rating table can be sorted by (RatingRow's fields)."""

    RANK = "rank"
    BOT = "bot"
    MU = "mu"
    SIGMA = "sigma"
    CONSERVATIVE = "conservative"
    GAMES = "games"
    WINS = "wins"
    AVERAGE_POINTS = "average_points"
    AVERAGE_PLACING = "average_placing"
    CONFIDENCE = "confidence"


class Order(StrEnum):
    ASC = "asc"
    DESC = "desc"


ASCENDING_FIRST = frozenset({SortKey.RANK, SortKey.BOT, SortKey.SIGMA, SortKey.AVERAGE_PLACING})
"""Columns whose best values are the smallest: a first click sorts them ascending, the rest descending."""


def natural_order(key: SortKey) -> Order:
    """The order a column is sorted in when none is asked for: best first."""
    return Order.ASC if key in ASCENDING_FIRST else Order.DESC


def sort_table(rows: Sequence[RatingRow], key: SortKey, order: Order | None = None) -> list[RatingRow]:
    """`rows` by `key` (ties kept in rank order); rows without a value (a bot yet to play, the
    first row's confidence) come last whichever the order."""
    order = order or natural_order(key)
    present = [r for r in rows if getattr(r, key.value) is not None]
    missing = [r for r in rows if getattr(r, key.value) is None]
    present.sort(key=lambda r: getattr(r, key.value), reverse=order is Order.DESC)
    return present + missing
