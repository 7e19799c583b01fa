"""A finished game as the rank statistics read it: who sat, their points and their final ranks.

The rank confidence bootstrap (`arena.ratings.rank_confidence`) and the crosstable (`arena.ratings.head_to_head`)
need only this of a game, so the store hands them these and they never see a record or a row.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PlayedGame"]


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One rated game, in seat order: `ranks` are the final ranks (1 is best, equal is a tie,
    forfeiters last), exactly those the ratings were computed from."""

    bots: tuple[str, ...]
    points: tuple[int, ...]
    ranks: tuple[int, ...]

    def __post_init__(self) -> None:
        if not len(self.bots) == len(self.points) == len(self.ranks) or len(self.bots) < 2:
            raise ValueError("an outcome needs two or more seats, each with a bot, points and a rank")
        if len(set(self.bots)) != len(self.bots):
            raise ValueError("a bot sits at most once in a game")
