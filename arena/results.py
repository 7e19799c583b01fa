"""What a finished game produced, seat by seat: the referee writes it, storage and ratings read it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from sdk.engine import GameRecord, competition_ranks


class ForfeitCause(Enum):
    """Why the referee forfeited a seat; a tournament's failure policy decides per cause."""

    TIMEOUT = "timeout"
    """No legal answer to a request within its time."""
    ILLEGAL = "illegal"
    """Too many illegal answers to one request."""
    DISCONNECT = "disconnect"
    """The bot's connection broke mid-game and it did not come back within the grace period."""
    ABSENT = "absent"
    """The bot was not connected when the game began (it crashed at start, or never came)."""


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat's result. `forfeit` is the reason the seat was forfeited, or None; `cause`
    classifies it and is set exactly when `forfeit` is."""

    seat: int
    bot: str
    points: int
    rank: int
    forfeit: str | None = None
    cause: ForfeitCause | None = None

    def __post_init__(self) -> None:
        if (self.forfeit is None) != (self.cause is None):
            raise ValueError("a forfeited seat needs both a reason and a cause, any other seat neither")


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game: its full record and one `SeatResult` per seat, in seat order."""

    record: GameRecord
    seats: tuple[SeatResult, ...]


def final_ranks(points: Sequence[int], forfeited: Sequence[bool]) -> tuple[int, ...]:
    """Competition ranks by points (RULES.md §8), except that forfeiting seats rank last, together.

    >>> final_ranks([7, 5, 5, 1], [False, False, False, False])
    (1, 2, 2, 4)
    >>> final_ranks([9, 5, 5, 1], [True, False, False, False])
    (4, 1, 1, 3)
    """
    playing = [p for p, f in zip(points, forfeited) if not f]
    ranks = iter(competition_ranks(playing))
    last = len(playing) + 1
    return tuple(last if f else next(ranks) for f in forfeited)
